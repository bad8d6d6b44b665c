"""The plugin in real ADK runs: loops (note, block, stop), isolation of concurrent
sessions with colliding call ids, stacking with other plugins, agent transfers, ADK's MCP
toolset, fail-open, and ADK's own ReflectAndRetryToolPlugin on the same scripted run."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path
from typing import Annotated, Any

import pytest
import toolerr
import toolerr_google_adk
from adk_support import ScriptedLlm, dump, make_runner, run
from google.adk.agents import LlmAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.apps import App
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins import ReflectAndRetryToolPlugin
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.runners import InMemoryRunner
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.tool_context import ToolContext
from google.genai import types
from pydantic import Field
from shared_support import CASES, FIXABLE, MCP_FILES_SERVER, TRANSIENT, UNRECOVERABLE
from test_forms import QUESTION, note, weather_tool
from toolerr import DetectionRecord, ToolLoopError
from toolerr.adapters import NOTE_PREFIX
from toolerr_google_adk import ToolErrorPlugin


def test_all() -> None:
    assert toolerr_google_adk.__all__ == ["ToolErrorPlugin"]
    assert toolerr_google_adk.__version__ == toolerr.__version__
    assert all(hasattr(toolerr_google_adk, name) for name in toolerr_google_adk.__all__)


# -- loops -------------------------------------------------------------------------------

REPEAT = [[("get_weather", {"city": ""})], [("get_weather", {"city": ""})], "I could not get it."]


def test_block_keeps_an_identical_repeat_of_a_failed_call_from_running() -> None:
    calls: list[str] = []
    records: list[DetectionRecord] = []
    runner, model = make_runner(
        REPEAT,
        [weather_tool({"": ValueError("city must not be empty")}, calls)],
        [ToolErrorPlugin(loop_action="block", on_record=records.append)],
    )
    _, session = asyncio.run(run(runner, QUESTION))
    assert calls == [""]  # the repeat did not run
    blocked = dump(model.requests[2])[4]["parts"][0]["function_response"]["response"]["error"]
    assert blocked.startswith("Error: this call was not executed.")
    assert records[-1].rule == "ledger:blocked-repeat"
    assert records[-1].loop == "repeat"
    assert NOTE_PREFIX not in repr(dump([e.content for e in session.events if e.content]))


def test_note_lets_the_repeat_run_and_says_it_repeats() -> None:
    calls: list[str] = []
    records: list[DetectionRecord] = []
    runner, model = make_runner(
        REPEAT,
        [weather_tool({"": ValueError("city must not be empty")}, calls)],
        [ToolErrorPlugin(on_record=records.append)],
    )
    asyncio.run(run(runner, QUESTION))
    assert calls == ["", ""]
    assert records[-1].repeat == "exact"
    assert records[-1].loop == "repeat"
    text = dump(model.requests[2])[-1]["parts"][0]["text"]
    assert text.startswith(f"{NOTE_PREFIX}get_weather was already called with these arguments and failed")
    assert records[-1].note == text


def test_stop_ends_the_run() -> None:
    calls: list[str] = []
    runner, _ = make_runner(
        REPEAT,
        [weather_tool({"": ValueError("city must not be empty")}, calls)],
        [ToolErrorPlugin(loop_action="stop")],
    )
    # ADK wraps an exception from a plugin callback in a RuntimeError naming the plugin.
    with pytest.raises(RuntimeError, match="Error in plugin 'toolerr'") as info:
        asyncio.run(run(runner, QUESTION))
    assert isinstance(info.value.__cause__, ToolLoopError)
    assert calls == [""]


def test_each_plugin_checks_against_its_own_snapshot() -> None:
    """Two plugins: the first blocks the repeat from the conversation its own model
    callback kept (not the second one's), and so knows the answer for the blocked repeat."""
    calls: list[str] = []
    records: list[DetectionRecord] = []
    runner, _ = make_runner(
        REPEAT,
        [weather_tool({"": ValueError("city must not be empty")}, calls)],
        [
            ToolErrorPlugin(name="first", loop_action="block", on_record=records.append),
            ToolErrorPlugin(name="second", loop_action="block"),
        ],
    )
    asyncio.run(run(runner, QUESTION))
    assert calls == [""]
    assert records[-1].rule == "ledger:blocked-repeat"


# -- isolation ---------------------------------------------------------------------------


def test_concurrent_sessions_with_colliding_call_ids_see_only_their_own_failure() -> None:
    """One plugin, two concurrent invocations whose model numbers its calls (``call_0``):
    each one's request is exactly what it would be alone."""
    plugin = ToolErrorPlugin()
    failures = {"": ValueError("city must not be empty"), "Oslo": PermissionError(13, "Permission denied")}

    async def both() -> tuple[list[Any], list[Any]]:
        one, model_one = make_runner(
            [[("get_weather", {"city": ""})], "done"], [weather_tool(failures)], [plugin], ids=True
        )
        two, model_two = make_runner(
            [[("get_weather", {"city": "Oslo"})], "done"], [weather_tool(failures)], [plugin], ids=True
        )
        await asyncio.gather(run(one, QUESTION, session_id="s"), run(two, QUESTION, session_id="s"))
        return model_one.requests, model_two.requests

    async def alone(city: str) -> list[Any]:
        runner, model = make_runner(
            [[("get_weather", {"city": city})], "done"],
            [weather_tool(failures)],
            [ToolErrorPlugin()],
            ids=True,
        )
        await run(runner, QUESTION, session_id="s")
        return model.requests

    first, second = asyncio.run(both())
    assert dump(first[1]) == dump(asyncio.run(alone(""))[1])
    assert dump(second[1]) == dump(asyncio.run(alone("Oslo"))[1])
    assert FIXABLE in dump(first[1])[-1]["parts"][0]["text"]
    assert UNRECOVERABLE in dump(second[1])[-1]["parts"][0]["text"]


@pytest.mark.parametrize("users", [("a", "b"), ("u", "u")])
def test_a_remembered_verdict_never_reaches_another_session(users: tuple[str, str]) -> None:
    """The same call id and the same text in another session of the same plugin (also one
    of another runner with the very same app, user and session names): that result is
    classified from its own content, not from the other's exception."""
    records: list[DetectionRecord] = []
    plugin = ToolErrorPlugin(on_record=records.append)

    def raising(city: str) -> dict[str, Any]:
        """The weather in a city."""
        raise ConnectionRefusedError(111, "Connection refused")

    def answering(city: str) -> dict[str, Any]:
        """The weather in a city."""
        return {"error": "ConnectionRefusedError: [Errno 111] Connection refused"}

    raising.__name__ = answering.__name__ = "get_weather"
    script = [[("get_weather", {"city": "Paris"})], "done"]

    async def go() -> None:
        runner, _ = make_runner(script, [raising], [plugin], ids=True)
        await run(runner, QUESTION, user=users[0], session_id="s1")
        # the same call (id call_0, same arguments) answered with the same text, as a dict
        runner, _ = make_runner(script, [answering], [plugin], ids=True)
        await run(runner, QUESTION, user=users[1], session_id="s1")

    asyncio.run(go())
    assert [r.detection for r in records] == ["exception", "flag:is_error"]
    assert [r.call_id for r in records] == ["call_0", "call_0"]  # as ADK has them


@pytest.mark.parametrize("form", ["c2", "c3"])
def test_two_plugins_add_one_note(form: str) -> None:
    """A form applied to an already rewritten request changes nothing more (C3: a content of
    toolerr's own; C2: a part toolerr added to the user's content)."""
    city, exception, _, _ = CASES["fixable"]
    runner, model = make_runner(
        [[("get_weather", {"city": city})], "done"],
        [weather_tool({city: exception})],
        [ToolErrorPlugin(name="first", form=form), ToolErrorPlugin(name="second", form=form)],
    )
    asyncio.run(run(runner, QUESTION))
    assert json.dumps(dump(model.requests[1])).count(NOTE_PREFIX) == 1


def test_two_plugins_with_different_tool_safety_add_one_note() -> None:
    """The first plugin knows the tool is read-only, the second does not: a timeout gets
    the first one's note only, not a second one telling the model to check first."""
    runner, model = make_runner(
        [[("get_weather", {"city": "Paris"})], "done"],
        [weather_tool({"Paris": TimeoutError("The read operation timed out")})],
        [
            ToolErrorPlugin(name="first", tool_safety={"get_weather": "read_only"}),
            ToolErrorPlugin(name="second"),
        ],
    )
    asyncio.run(run(runner, QUESTION))
    sent = json.dumps(dump(model.requests[1]))
    assert sent.count(NOTE_PREFIX) == 1 and TRANSIENT in sent


# -- other plugins -----------------------------------------------------------------------


class Recorder(BasePlugin):
    """Another plugin: records the contents it sees before the model call."""

    def __init__(self) -> None:
        super().__init__("recorder")
        self.seen: list[list[dict[str, Any]]] = []

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        self.seen.append(dump(llm_request.contents))
        return None


def test_stacked_with_another_plugin() -> None:
    recorder = Recorder()
    city, exception, _, _ = CASES["fixable"]
    runner, model = make_runner(
        [[("get_weather", {"city": city})], "done"],
        [weather_tool({city: exception})],
        [ToolErrorPlugin(), recorder],
    )
    asyncio.run(run(runner, QUESTION))
    # The later plugin sees the rewritten request; the model gets what both left.
    assert recorder.seen[1] == dump(model.requests[1])
    assert NOTE_PREFIX in recorder.seen[1][-1]["parts"][0]["text"]

    recorder = Recorder()
    runner, model = make_runner(
        [[("get_weather", {"city": city})], "done"],
        [weather_tool({city: exception})],
        [recorder, ToolErrorPlugin()],
    )
    asyncio.run(run(runner, QUESTION))
    assert NOTE_PREFIX not in repr(recorder.seen[1])
    assert NOTE_PREFIX in dump(model.requests[1])[-1]["parts"][0]["text"]


SIDE_BY_SIDE = [
    [("get_weather", {"city": ""})],
    [("get_weather", {"city": ""})],
    "I could not get it.",
]


def side_by_side(plugin: BasePlugin) -> list[Any]:
    runner, model = make_runner(
        SIDE_BY_SIDE, [weather_tool({"": ValueError("city must not be empty")})], [plugin]
    )
    asyncio.run(run(runner, QUESTION))
    return model.requests


def test_reflect_and_retry_side_by_side() -> None:
    """ADK's ReflectAndRetryToolPlugin and toolerr on the same scripted run: what each
    sends the model after the first failure (the README shows both)."""
    theirs = side_by_side(ReflectAndRetryToolPlugin())
    ours = side_by_side(ToolErrorPlugin())
    reflect = dump(theirs[1])[-1]["parts"][0]["function_response"]["response"]
    assert reflect["response_type"] == "ERROR_HANDLED_BY_REFLECT_AND_RETRY_PLUGIN"
    guidance = reflect["reflection_guidance"]
    assert guidance.startswith("The call to tool `get_weather` failed.")
    assert '"city": ""' in guidance  # the failed arguments, verbatim
    assert "This is retry attempt **1 of 3**" in guidance
    assert "Do not repeat the exact same call." in guidance
    assert len(dump(theirs[1])) == 3  # no content after the function response
    assert dump(ours[1])[-1] == {
        "parts": [{"text": note('city=""', "ValueError: city must not be empty", FIXABLE)}],
        "role": "user",
    }
    assert dump(ours[1])[-2]["parts"][0]["function_response"]["response"] == {
        "error": "ValueError: city must not be empty"
    }
    # The second identical failure: ADK counts a retry; toolerr names the repeat.
    assert (
        "retry attempt **2 of 3**"
        in dump(theirs[2])[-1]["parts"][0]["function_response"]["response"]["reflection_guidance"]
    )
    assert "already called with these arguments" in dump(ours[2])[-1]["parts"][0]["text"]


def test_stacked_with_reflect_and_retry_the_first_plugin_answers_the_error() -> None:
    """ADK stops at the first plugin that returns a value: with toolerr first, the model
    gets toolerr's response and note; with ReflectAndRetry first, its reflection (which
    carries no error field or flag toolerr reads: it passes as it is)."""
    ours = side_by_side_stack([ToolErrorPlugin(), ReflectAndRetryToolPlugin()])
    assert dump(ours[1])[2]["parts"][0]["function_response"]["response"] == {
        "error": "ValueError: city must not be empty"
    }
    records: list[DetectionRecord] = []
    theirs = side_by_side_stack([ReflectAndRetryToolPlugin(), ToolErrorPlugin(on_record=records.append)])
    assert "reflection_guidance" in dump(theirs[1])[2]["parts"][0]["function_response"]["response"]
    assert records == []
    assert len(dump(theirs[1])) == 3


def side_by_side_stack(plugins: list[BasePlugin]) -> list[Any]:
    runner, model = make_runner(
        SIDE_BY_SIDE, [weather_tool({"": ValueError("city must not be empty")})], plugins
    )
    asyncio.run(run(runner, QUESTION))
    return model.requests


def test_an_unknown_tool_name_gets_adks_own_answer() -> None:
    """ADK's answer names the tools there are (its ValueError is for developers); toolerr
    detects it from the error field, reads ADK's wording as a fixable unknown tool and adds
    the note after it."""
    records: list[DetectionRecord] = []
    runner, model = make_runner(
        [[("get_wether", {"city": "Paris"})], "done"],
        [weather_tool({})],
        [ToolErrorPlugin(on_record=records.append)],
    )
    asyncio.run(run(runner, QUESTION))
    contents = dump(model.requests[1])
    error = contents[2]["parts"][0]["function_response"]["response"]["error"]
    assert error.startswith("Invoking `get_wether()` failed as no tool with that name is available.")
    (record,) = records
    assert (record.tool, record.detection, record.kind) == ("get_wether", "flag:is_error", "fixable")
    assert contents[3] == {
        "parts": [
            {
                "text": f'{NOTE_PREFIX}the last attempt called get_wether with city="Paris" and it'
                f" failed with: {error}\n\n{FIXABLE}"
            }
        ],
        "role": "user",
    }


@pytest.mark.parametrize("args", [{}, None])
def test_a_tool_without_arguments(args: Any) -> None:
    """The verdict from the exception object reaches the request (the call's key is
    recovered from the session), with and without an arguments object."""

    def get_time() -> str:
        """The current time."""
        raise ConnectionRefusedError(111, "Connection refused")

    records: list[DetectionRecord] = []
    runner, model = make_runner(
        [[("get_time", args)], "done"], [get_time], [ToolErrorPlugin(on_record=records.append)]
    )
    asyncio.run(run(runner, QUESTION))
    (record,) = records
    assert record.kind == "transient"
    if args is not None:
        assert record.detection == "exception"
    assert dump(model.requests[1])[-1]["parts"][0]["text"].startswith(
        f"{NOTE_PREFIX}the last attempt called get_time with no arguments and it failed with: ConnectionRefusedError"
    )


def test_the_plain_runner_with_its_own_session_service() -> None:
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService

    city, exception, error, guidance = CASES["transient"]
    model = ScriptedLlm([[("get_weather", {"city": city})], "done"])
    agent = LlmAgent(name="assistant", model=model, tools=[weather_tool({city: exception})])
    app = App(name="app", root_agent=agent, plugins=[ToolErrorPlugin()])
    runner: Any = Runner(app=app, session_service=InMemorySessionService())
    asyncio.run(run(runner, QUESTION))
    assert guidance is not None
    assert dump(model.requests[1])[-1] == {
        "parts": [{"text": note(f'city="{city}"', error, guidance)}],
        "role": "user",
    }


# -- transfers ---------------------------------------------------------------------------


def test_transfer_to_a_sub_agent_whose_tool_fails() -> None:
    city, exception, error, guidance = CASES["unrecoverable"]
    helper_model = ScriptedLlm([[("get_weather", {"city": city})], "It is not available."])
    helper = LlmAgent(
        name="weather_helper",
        model=helper_model,
        description="Answers weather questions.",
        tools=[weather_tool({city: exception})],
    )
    root_model = ScriptedLlm([[("transfer_to_agent", {"agent_name": "weather_helper"})]])
    root = LlmAgent(name="assistant", model=root_model, sub_agents=[helper])
    runner = InMemoryRunner(app=App(name="app", root_agent=root, plugins=[ToolErrorPlugin()]))
    _, session = asyncio.run(run(runner, QUESTION))
    assert guidance is not None
    assert dump(helper_model.requests[1])[-1] == {
        "parts": [{"text": note(f'city="{city}"', error, guidance)}],
        "role": "user",
    }
    assert NOTE_PREFIX not in repr(dump([e.content for e in session.events if e.content]))


# -- the tool's declared parameters -------------------------------------------------------

LITERAL = "ValueError: invalid literal for int() with base 10: 'forty'"
SAVED = "Name of a saved query"  # a reference to stored data: the value was read, not written
WRITTEN = "SQL query to run"  # the value itself: the model wrote it


def query_function(description: str) -> Any:
    """A function tool whose parameter ADK declares with ``parameters_json_schema``."""

    def run_query(name: str) -> dict[str, Any]:
        """Run a query."""
        raise ValueError("invalid literal for int() with base 10: 'forty'")

    # evaluated here (this module's annotations are strings ADK cannot resolve in a closure)
    run_query.__annotations__ = {
        "name": Annotated[str, Field(description=description)],
        "return": dict[str, Any],
    }
    return run_query


class SchemaQueryTool(BaseTool):
    """A tool that declares its parameter with a ``google.genai`` ``Schema``
    (``FunctionDeclaration.parameters``); counts how often its declaration is read."""

    def __init__(self, description: str) -> None:
        super().__init__(name="run_query", description="Run a query.")
        self.parameter = description
        self.declarations = 0

    def _get_declaration(self) -> types.FunctionDeclaration:
        self.declarations += 1
        return types.FunctionDeclaration(
            name=self.name,
            description=self.description,
            parameters=types.Schema(
                type=types.Type.OBJECT,
                properties={"name": types.Schema(type=types.Type.STRING, description=self.parameter)},
                required=["name"],
            ),
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        raise ValueError("invalid literal for int() with base 10: 'forty'")


def query_run(tool: Any, plugin: ToolErrorPlugin, calls: int = 1) -> list[dict[str, Any]]:
    """The contents the model got after ``calls`` failed calls of ``run_query``."""
    script: list[Any] = [[("run_query", {"name": "churn_by_plan"})]] * calls
    runner, model = make_runner([*script, "done"], [tool], [plugin])
    asyncio.run(run(runner, "How many churned?"))
    return dump(model.requests[calls])


def query_contents(kind: str) -> list[dict[str, Any]]:
    """What the model sees at the decision step: the failure, and for a fixable one the note."""
    contents = [
        {"parts": [{"text": "How many churned?"}], "role": "user"},
        {
            "parts": [{"function_call": {"args": {"name": "churn_by_plan"}, "name": "run_query"}}],
            "role": "model",
        },
        {
            "parts": [{"function_response": {"name": "run_query", "response": {"error": LITERAL}}}],
            "role": "user",
        },
    ]
    if kind == "fixable":
        text = (
            f'{NOTE_PREFIX}the last attempt called run_query with name="churn_by_plan" and it failed'
            f" with: {LITERAL}\n\n{FIXABLE}"
        )
        contents.append({"parts": [{"text": text}], "role": "user"})
    return contents


@pytest.mark.parametrize("make_tool", [query_function, SchemaQueryTool], ids=["json_schema", "genai_schema"])
@pytest.mark.parametrize(("description", "kind"), [(SAVED, "ambiguous"), (WRITTEN, "fixable")])
def test_the_tools_declared_parameters_decide_the_note(make_tool: Any, description: str, kind: str) -> None:
    """The same rejected value: fixable when the schema says the model wrote it (the note
    tells it to correct the value), ambiguous when the schema says it names a saved query
    (the value came from stored data: no note tells the model to rewrite it)."""
    records: list[DetectionRecord] = []
    contents = query_run(make_tool(description), ToolErrorPlugin(on_record=records.append))
    assert contents == query_contents(kind)
    assert [(r.tool, r.kind) for r in records] == [("run_query", kind)]


def test_the_declared_parameters_are_read_once_per_tool() -> None:
    """The same tool failing in two runs: the plugin reads its declaration once (ADK itself
    reads it for every request) and hands the core the same dict each time."""
    tool = SchemaQueryTool(SAVED)
    plugin = ToolErrorPlugin()
    assert query_run(tool, plugin) == query_contents("ambiguous")
    first = tool.declarations
    assert query_run(tool, plugin) == query_contents("ambiguous")
    assert tool.declarations - first == first - 1  # the second run: ADK's reads only
    assert plugin._parameters.of(tool) is plugin._parameters.of(tool)


def test_a_declaration_that_cannot_be_read_is_left_out(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import toolerr_google_adk._plugin as plugin_module

    def broken(tool: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(plugin_module, "_declared", broken)
    with caplog.at_level(logging.WARNING, logger="toolerr"):
        contents = query_run(query_function(SAVED), ToolErrorPlugin())
    assert contents == query_contents("fixable")  # classified without the schema
    assert any(r.name == "toolerr" and "declared parameters" in r.getMessage() for r in caplog.records)


# -- MCP ---------------------------------------------------------------------------------


def test_mcp_toolset_is_error_result() -> None:
    from google.adk.tools.mcp_tool import McpToolset, StdioConnectionParams
    from mcp import StdioServerParameters

    server = MCP_FILES_SERVER
    records: list[DetectionRecord] = []

    async def go() -> list[Any]:
        toolset = McpToolset(
            connection_params=StdioConnectionParams(
                server_params=StdioServerParameters(command=sys.executable, args=[str(server)]), timeout=30
            )
        )
        model = ScriptedLlm([[("read_file", {"path": "/root/secret"})], "I may not read it."])
        agent = LlmAgent(name="assistant", model=model, tools=[toolset])
        runner = InMemoryRunner(
            app=App(name="app", root_agent=agent, plugins=[ToolErrorPlugin(on_record=records.append)])
        )
        try:
            await run(runner, "Read /root/secret")
        finally:
            await toolset.close()
        return model.requests

    requests = asyncio.run(go())
    (record,) = records
    assert (record.detection, record.kind) == ("flag:is_error", "unrecoverable")
    text = dump(requests[1])[-1]["parts"][0]["text"]
    assert text.startswith(f'{NOTE_PREFIX}the last attempt called read_file with path="/root/secret"')
    assert "EACCES: permission denied" in text
    assert text.endswith(UNRECOVERABLE)


# -- fail open ---------------------------------------------------------------------------


def test_fails_open_when_rewriting_breaks(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import toolerr_google_adk._plugin as plugin_module

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(plugin_module, "to_conversation", broken)
    city, exception, _, _ = CASES["fixable"]
    runner, model = make_runner(
        [[("get_weather", {"city": city})], "done"], [weather_tool({city: exception})], [ToolErrorPlugin()]
    )
    with caplog.at_level(logging.WARNING, logger="toolerr"):
        events, _ = asyncio.run(run(runner, QUESTION))
    assert events[-1].content.parts[0].text == "done"
    assert len(dump(model.requests[1])) == 3  # unchanged: the tool's answer, no note
    assert any(r.name == "toolerr" and r.levelno >= logging.WARNING for r in caplog.records)


def test_a_raising_on_record_is_ignored() -> None:
    def on_record(record: DetectionRecord) -> None:
        raise RuntimeError("user callback")

    city, exception, _, _ = CASES["fixable"]
    runner, model = make_runner(
        [[("get_weather", {"city": city})], "done"],
        [weather_tool({city: exception})],
        [ToolErrorPlugin(on_record=on_record)],
    )
    asyncio.run(run(runner, QUESTION))
    assert NOTE_PREFIX in json.dumps(dump(model.requests[1]))


def test_the_session_payload_objects_are_not_changed_by_c1() -> None:
    """C1 appends guidance to the function response: a new payload, the session's stays."""
    city, exception, error, guidance = CASES["fixable"]
    runner, model = make_runner(
        [[("get_weather", {"city": city})], "done"],
        [weather_tool({city: exception})],
        [ToolErrorPlugin(form="c1")],
    )
    _, session = asyncio.run(run(runner, QUESTION))
    assert dump(model.requests[1])[2]["parts"][0]["function_response"]["response"] == {
        "error": f"{error}\n{guidance}"
    }
    stored = [e.content for e in session.events if e.content is not None][2]
    assert stored.parts[0].function_response.response == {"error": error}


def test_the_eval_harness_matches_adk() -> None:
    """The eval's ``adk-reflect`` harness (toolerr-eval, which does not import google-adk) is
    held to the fixture packages/eval/tests/data/adk_reflect_responses.json; here the fixture
    is held to the installed ReflectAndRetryToolPlugin, so an ADK upgrade that changes the
    wording shows."""
    from google.adk.tools.base_tool import BaseTool

    fixture_path = Path(__file__).parents[2] / "eval" / "tests" / "data" / "adk_reflect_responses.json"
    fixture = json.loads(fixture_path.read_text(encoding="utf-8"))
    plugin = ReflectAndRetryToolPlugin()
    tool = BaseTool(name=fixture["name"], description="")
    for case in fixture["cases"]:
        count = case["retry_count"]
        if count <= plugin.max_retries:
            built = plugin._create_tool_reflection_response(
                tool, fixture["arguments"], fixture["error"], count
            )
        else:
            built = plugin._get_tool_retry_exceed_msg(tool, fixture["arguments"], fixture["error"])
        assert built == case["response"]
