"""The recovery object in real runs: failures it did not produce, loops, handoffs,
concurrent runs, the user's own filter and formatter, bad input and fail-open."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest
import toolerr
from agents import (
    Agent,
    AgentsException,
    RunConfig,
    Runner,
    SQLiteSession,
    ToolOutputText,
    function_tool,
    handoff,
)
from agents.run_config import CallModelData, ModelInputData, ToolErrorFormatterArgs
from oa_support import Tools, call, done, note, run_agent, scripted
from shared_support import FIXABLE, TRANSIENT, UNRECOVERABLE
from toolerr import DetectionRecord, ToolLoopError
from toolerr_openai_agents import ToolErrorRecovery


def _note_of(items: list[Any]) -> str:
    last = items[-1]
    assert last.get("role") == "user", last
    assert isinstance(last["content"], str)
    return last["content"]


# -- failures the recovery did not produce -------------------------------------------------


def test_tool_not_found_returned_to_the_model(mode: str) -> None:
    records: list[DetectionRecord] = []
    tools = Tools()
    model = scripted([call("get_forecast", {"city": "Oslo"}, "c1")], [done()])
    agent = Agent(name="weather", model=model, tools=[tools.weather()])
    recovery = ToolErrorRecovery(on_record=records.append)

    run_agent(
        mode,
        agent,
        "Forecast?",
        run_config=recovery.run_config(tool_not_found_behavior="return_error_to_model"),
    )

    decision = model.calls[1].input
    assert decision[2] == {
        "call_id": "c1",
        "output": "Tool 'get_forecast' not found.",
        "type": "function_call_output",
    }
    assert [(r.tool, r.kind) for r in records] == [("get_forecast", "fixable")]
    assert _note_of(decision) == note(
        "get_forecast", 'city="Oslo"', "Tool 'get_forecast' not found.", FIXABLE
    )


def test_a_rejected_approval_is_unrecoverable() -> None:
    """A person rejects a needs_approval call: the SDK's rejection text reaches the model
    with the unrecoverable note (the same call would be rejected again)."""
    executed: list[str] = []

    @function_tool(needs_approval=True)
    def delete_file(path: str) -> str:
        """Delete a file."""
        executed.append(path)
        return "deleted"

    records: list[DetectionRecord] = []
    recovery = ToolErrorRecovery(on_record=records.append)
    model = scripted([call("delete_file", {"path": "/etc/hosts"}, "c1")], [done("I could not delete it.")])
    agent = Agent(name="files", model=model, tools=[delete_file])

    async def run() -> Any:
        first = await Runner.run(agent, "Delete /etc/hosts.", run_config=recovery.run_config())
        assert len(first.interruptions) == 1
        state = first.to_state()
        state.reject(first.interruptions[0])
        return await Runner.run(agent, state, run_config=recovery.run_config())

    result = asyncio.run(run())
    assert executed == []
    assert result.final_output == "I could not delete it."
    rejected = "Tool execution was not approved."
    decision = model.calls[1].input
    assert [i.get("output") for i in decision if i.get("type") == "function_call_output"] == [rejected]
    assert _note_of(decision) == note("delete_file", 'path="/etc/hosts"', rejected, UNRECOVERABLE)
    assert [(r.tool, r.kind, r.detection) for r in records] == [
        ("delete_file", "unrecoverable", "openai-agents:approval-rejected")
    ]


def test_a_tool_with_its_own_failure_function_is_detected_by_text(mode: str) -> None:
    def own_text(ctx: Any, error: Exception) -> str:
        return f"Error: upstream answered 503 Service Unavailable ({error})"

    @function_tool(failure_error_function=own_text)
    def get_weather(city: str) -> str:
        """Current weather."""
        raise RuntimeError("try later")

    model = scripted([call("get_weather", {"city": "Oslo"}, "c1")], [done()])
    agent = Agent(name="weather", model=model, tools=[get_weather])

    run_agent(mode, agent, "Weather?", run_config=ToolErrorRecovery().run_config())

    error = "Error: upstream answered 503 Service Unavailable (try later)"
    assert model.calls[1].input[2]["output"] == error
    assert _note_of(model.calls[1].input) == note("get_weather", 'city="Oslo"', error, TRANSIENT)


def test_list_outputs_get_guidance_as_an_input_text_part() -> None:
    @function_tool(failure_error_function=None)
    def fetch(url: str) -> list[ToolOutputText]:
        """Fetch a URL."""
        return [ToolOutputText(text="HTTP 503 Service Unavailable"), ToolOutputText(text="retry-after: 1")]

    for form in ("c1", "c3"):
        model = scripted([call("fetch", {"url": "https://example.org"}, "c1")], [done()])
        agent = Agent(name="web", model=model, tools=[fetch])
        result = run_agent("run", agent, "Fetch it", run_config=ToolErrorRecovery(form=form).run_config())
        output = model.calls[1].input[2]["output"]
        sent = [
            {"type": "input_text", "text": "HTTP 503 Service Unavailable"},
            {"type": "input_text", "text": "retry-after: 1"},
        ]
        # the result carries a wait (retry-after: 1): the guidance says when (issue 27)
        wait = "This is a temporary failure. Retrying the same call after 1 seconds is expected to succeed."
        if form == "c1":
            assert output == [*sent, {"type": "input_text", "text": wait}]
        else:
            assert output == sent
            assert _note_of(model.calls[1].input) == note(
                "fetch",
                'url="https://example.org"',
                "HTTP 503 Service Unavailable\nretry-after: 1",
                wait,
            )
        assert result.to_input_list()[2]["output"] == sent


def test_unparseable_arguments(mode: str) -> None:
    tools = Tools()
    raw = '{"city": "Oslo"'
    model = scripted([call("get_weather", raw, "c1")], [done()])
    agent = Agent(name="weather", model=model, tools=[tools.weather()])

    run_agent(mode, agent, "Weather?", run_config=ToolErrorRecovery().run_config())

    assert tools.executed == []
    output = model.calls[1].input[2]["output"]
    assert output.startswith("ModelBehaviorError: Invalid JSON input for tool get_weather")
    text = _note_of(model.calls[1].input)
    # The note shows the arguments exactly as the model wrote them.
    assert text.startswith(
        f"Note from the tool runtime: the last attempt called get_weather with {raw} and it failed with: "
    )
    assert text.endswith("\n\n" + FIXABLE)


def test_the_exception_object_decides_the_kind() -> None:
    class QuotaError(Exception):
        def __init__(self) -> None:
            super().__init__(
                "Too Many Requests: You exceeded your current quota, please check your plan and billing"
            )
            self.status_code = 429

    tools = Tools({"Oslo": QuotaError()})
    records: list[DetectionRecord] = []
    model = scripted([call("get_weather", {"city": "Oslo"}, "c1")], [done()])
    agent = Agent(name="weather", model=model, tools=[tools.weather()])

    run_agent("run", agent, "Weather?", run_config=ToolErrorRecovery(on_record=records.append).run_config())

    # A 429 that says the quota is exhausted is not worth retrying.
    assert [r.kind for r in records] == ["unrecoverable"]
    assert _note_of(model.calls[1].input).endswith(UNRECOVERABLE)


class UpstreamError(Exception):
    """An HTTP client's error whose text says nothing of the kind; its status does."""

    def __init__(self, status_code: int) -> None:
        super().__init__("the upstream said no")
        self.status_code = status_code


def test_the_exception_decides_the_kind_of_a_failure_in_the_first_turn(mode: str) -> None:
    """The SDK runs a run's first turn in a task of its own (beside the input guardrails):
    the classification learned from the exception there still reaches the next model call."""
    tools = Tools({"Oslo": UpstreamError(503)})
    records: list[DetectionRecord] = []
    model = scripted([call("get_weather", {"city": "Oslo"}, "c1")], [done()])
    agent = Agent(name="weather", model=model, tools=[tools.weather()])

    run_agent(mode, agent, "Weather?", run_config=ToolErrorRecovery(on_record=records.append).run_config())

    assert [(r.kind, r.detection) for r in records] == [("transient", "exception")]
    assert _note_of(model.calls[1].input) == note(
        "get_weather", 'city="Oslo"', "UpstreamError: the upstream said no", TRANSIENT
    )


def test_long_errors_are_capped() -> None:
    tools = Tools({"Oslo": PermissionError("Permission denied: " + "x" * 5000)})
    model = scripted([call("get_weather", {"city": "Oslo"}, "c1")], [done()])
    agent = Agent(name="weather", model=model, tools=[tools.weather()])

    run_agent("run", agent, "Weather?", run_config=ToolErrorRecovery(max_error_chars=200).run_config())

    output = model.calls[1].input[2]["output"]
    assert output.startswith("PermissionError: Permission denied: xxx")
    assert output.endswith("more characters cut by toolerr]")
    assert len(output) < 260


# -- loops -------------------------------------------------------------------------------


def test_c1_guidance_follows_the_retry_budget_without_contradiction() -> None:
    tools = Tools({"Oslo": ConnectionRefusedError(111, "Connection refused")})
    model = scripted(*[[call("get_weather", {"city": "Oslo"}, f"c{n}")] for n in range(5)], [done()])
    agent = Agent(name="weather", model=model, tools=[tools.weather()])

    result = run_agent("run", agent, "Weather?", run_config=ToolErrorRecovery(form="c1").run_config())

    error = "ConnectionRefusedError: [Errno 111] Connection refused"
    last_outputs = [c.input[-1]["output"] for c in model.calls[1:]]
    # Retries 1-3 are within the default budget: retrying is the right advice.
    assert last_outputs[:3] == [f"{error}\n{TRANSIENT}"] * 3
    # The fourth failure of the same call counts as unrecoverable: one sentence, not two.
    assert last_outputs[3] == f"{error}\n{UNRECOVERABLE}"
    assert last_outputs[4].startswith(f"{error}\nNote from the tool runtime: get_weather was already called")
    assert TRANSIENT not in last_outputs[3] + last_outputs[4]
    # The history holds none of it: C1 is applied to the model call's view only.
    history = [i["output"] for i in result.to_input_list() if i.get("type") == "function_call_output"]
    assert history == [error] * 5


def test_block_keeps_an_identical_repeat_of_a_failed_call_from_running(mode: str) -> None:
    tools = Tools({"Oslo": PermissionError(13, "Permission denied")})
    model = scripted(
        [call("get_weather", {"city": "Oslo"}, "c1")],
        [call("get_weather", {"city": "Oslo"}, "c2")],
        [done()],
    )
    agent = Agent(name="weather", model=model, tools=[tools.weather()])
    recovery = ToolErrorRecovery(loop_action="block")

    result = run_agent(mode, agent, "Weather?", run_config=recovery.run_config())

    assert tools.executed == [("get_weather", {"city": "Oslo"})]
    blocked = model.calls[2].input[4]
    assert (blocked["type"], blocked["call_id"]) == ("function_call_output", "c2")
    assert blocked["output"].startswith("Error: this call was not executed.")
    text = _note_of(model.calls[2].input)
    assert text.startswith("Note from the tool runtime: ")
    assert '"Oslo"' not in text  # a loop note names the loop without the verbatim call
    assert "Note from the tool runtime" not in json.dumps(result.to_input_list())
    assert [
        r.output.output_info
        for r in result.tool_input_guardrail_results
        if r.output.behavior["type"] != "allow"
    ]


def test_block_lets_a_transient_failure_be_retried() -> None:
    tools = Tools({"Oslo": ConnectionRefusedError(111, "Connection refused")})
    model = scripted(
        [call("get_weather", {"city": "Oslo"}, "c1")],
        [call("get_weather", {"city": "Oslo"}, "c2")],
        [done()],
    )
    agent = Agent(name="weather", model=model, tools=[tools.weather()])

    run_agent("run", agent, "Weather?", run_config=ToolErrorRecovery(loop_action="block").run_config())

    assert len(tools.executed) == 2


def test_stop_ends_the_run_with_a_clear_error(mode: str) -> None:
    tools = Tools({"Oslo": PermissionError(13, "Permission denied")})
    model = scripted(
        [call("get_weather", {"city": "Oslo"}, "c1")],
        [call("get_weather", {"city": "Oslo"}, "c2")],
        [done()],
    )
    agent = Agent(name="weather", model=model, tools=[tools.weather()])

    with pytest.raises(
        ToolLoopError, match="toolerr stopped the run: get_weather was already called"
    ) as caught:
        run_agent(mode, agent, "Weather?", run_config=ToolErrorRecovery(loop_action="stop").run_config())
    assert isinstance(caught.value, AgentsException)  # the SDK lets it through as it is
    assert caught.value.decision.action == "stop"
    assert len(tools.executed) == 1


def test_the_guard_ignores_runs_without_the_recovery() -> None:
    tools = Tools({"Oslo": PermissionError(13, "Permission denied")})
    recovery = ToolErrorRecovery(loop_action="block")
    tool = tools.weather()
    recovery.wrap(tool)
    model = scripted(
        [call("get_weather", {"city": "Oslo"}, "c1")],
        [call("get_weather", {"city": "Oslo"}, "c2")],
        [done()],
    )
    agent = Agent(name="weather", model=model, tools=[tool])

    async def both() -> None:
        first = scripted([call("get_weather", {"city": "Oslo"}, "a1")], [done()])
        await Runner.run(agent.clone(model=first), "Weather?", run_config=recovery.run_config())
        # Same task, same tools, no recovery in this run: nothing is blocked.
        await Runner.run(agent, "Weather?", run_config=RunConfig())

    asyncio.run(both())
    assert len(tools.executed) == 3


def test_concurrent_runs_do_not_share_failures() -> None:
    tools = Tools({"Oslo": PermissionError(13, "Permission denied")})
    recovery = ToolErrorRecovery(loop_action="block")
    tool = tools.weather()
    failing = scripted(
        [call("get_weather", {"city": "Oslo"}, "a1")],
        [call("get_weather", {"city": "Oslo"}, "a2")],
        [done()],
    )
    fresh = scripted([call("get_weather", {"city": "Oslo"}, "b1")], [done()])

    async def both() -> None:
        await asyncio.gather(
            Runner.run(
                Agent(name="a", model=failing, tools=[tool]), "Weather?", run_config=recovery.run_config()
            ),
            Runner.run(
                Agent(name="b", model=fresh, tools=[tool]), "Weather?", run_config=recovery.run_config()
            ),
        )

    asyncio.run(both())
    # a1 ran, a2 was blocked, b1 (a first attempt in its own run) ran.
    assert len(tools.executed) == 2
    assert fresh.calls[1].input[2]["output"] == "PermissionError: [Errno 13] Permission denied"


# -- handoffs ------------------------------------------------------------------------------


def test_handoffs_between_agents(mode: str) -> None:
    tools = Tools({"Oslo": PermissionError(13, "Permission denied")})
    records: list[DetectionRecord] = []
    specialist_model = scripted([call("get_weather", {"city": "Oslo"}, "c2")], [done("cannot read it")])
    specialist = Agent(name="specialist", model=specialist_model, tools=[tools.weather()])
    triage_model = scripted([call("transfer_to_specialist", {}, "c1")])
    triage = Agent(name="triage", model=triage_model, handoffs=[handoff(specialist)])

    result = run_agent(
        mode, triage, "Weather in Oslo?", run_config=ToolErrorRecovery(on_record=records.append).run_config()
    )

    assert result.last_agent is specialist
    # The specialist's first call: the handoff exchange is no failure; unchanged.
    assert "Note from the tool runtime" not in json.dumps(specialist_model.calls[0].input)
    decision = specialist_model.calls[1].input
    assert _note_of(decision) == note(
        "get_weather", 'city="Oslo"', "PermissionError: [Errno 13] Permission denied", UNRECOVERABLE
    )
    assert [r.call_id for r in records] == ["c2"]


def test_a_session_never_stores_a_note() -> None:
    tools = Tools({"Oslo": PermissionError(13, "Permission denied")})
    model = scripted(
        [call("get_weather", {"city": "Oslo"}, "c1")],
        [done("I may not read the Oslo data.")],
        [call("get_weather", {"city": "Bergen"}, "c2")],
        [done("Bergen: 18 C")],
    )
    agent = Agent(name="weather", model=model, tools=[tools.weather()])
    recovery = ToolErrorRecovery()

    async def two_turns() -> list[Any]:
        session = SQLiteSession("user-1")  # in memory
        try:
            await Runner.run(agent, "Weather in Oslo?", session=session, run_config=recovery.run_config())
            await Runner.run(agent, "And Bergen?", session=session, run_config=recovery.run_config())
            return list(await session.get_items())
        finally:
            session.close()

    stored = asyncio.run(two_turns())

    assert model.calls[1].input[-1]["content"].startswith("Note from the tool runtime")
    assert "Note from the tool runtime" not in json.dumps(stored)
    # The second run starts from the stored history: no failure at its decision step.
    assert "Note from the tool runtime" not in json.dumps(model.calls[2].input)
    assert model.calls[2].input[2]["output"] == "PermissionError: [Errno 13] Permission denied"


# -- wiring --------------------------------------------------------------------------------


def test_run_config_keeps_the_users_filter_and_formatter() -> None:
    tools = Tools({"Oslo": PermissionError(13, "Permission denied")})
    seen: list[int] = []

    async def user_filter(data: CallModelData[Any]) -> ModelInputData:
        seen.append(len(data.model_data.input))
        return ModelInputData(input=data.model_data.input, instructions="Be brief.")

    def user_formatter(args: ToolErrorFormatterArgs[Any]) -> str | None:
        return "Nothing called get_forecast here." if args.kind == "tool_not_found" else None

    model = scripted(
        [call("get_weather", {"city": "Oslo"}, "c1"), call("get_forecast", {}, "c2")],
        [done()],
    )
    agent = Agent(name="weather", instructions="Long instructions.", model=model, tools=[tools.weather()])
    recovery = ToolErrorRecovery()
    config = recovery.run_config(
        call_model_input_filter=user_filter,
        tool_error_formatter=user_formatter,
        tool_not_found_behavior="return_error_to_model",
    )
    assert isinstance(config, RunConfig)
    assert config.tool_not_found_behavior == "return_error_to_model"

    asyncio.run(Runner.run(agent, "Weather?", run_config=config, max_turns=5))

    assert seen == [1, 5]
    decision = model.calls[1]
    assert decision.system_instructions == "Be brief."
    outputs = {i["call_id"]: i["output"] for i in decision.input if i.get("type") == "function_call_output"}
    assert outputs == {
        "c1": "PermissionError: [Errno 13] Permission denied",
        "c2": "Nothing called get_forecast here.",
    }
    assert decision.input[-1]["content"].startswith("Note from the tool runtime")


@pytest.mark.parametrize("asynchronous", [False, True])
def test_the_users_formatter_text_is_classified_from_the_exception(asynchronous: bool) -> None:
    """The user's tool_error_formatter words the result; the exception still classifies it
    (this SDK's outputs carry no error flag: from its text alone it is not even a failure)."""
    refused = "The weather service refused the request."

    def words(args: ToolErrorFormatterArgs[Any]) -> str | None:
        return refused if args.kind == "tool_exception" else None

    async def awords(args: ToolErrorFormatterArgs[Any]) -> str | None:
        return words(args)

    tools = Tools({"Oslo": UpstreamError(503)})
    records: list[DetectionRecord] = []
    model = scripted([call("get_weather", {"city": "Oslo"}, "c1")], [done()])
    agent = Agent(name="weather", model=model, tools=[tools.weather()])
    recovery = ToolErrorRecovery(on_record=records.append)
    classified: list[BaseException] = []
    inspect_exception = recovery.layer.inspect_exception

    def counted(error: BaseException, **kwargs: Any) -> Any:
        classified.append(error)
        return inspect_exception(error, **kwargs)

    recovery.layer.inspect_exception = counted  # type: ignore[method-assign]
    config = recovery.run_config(tool_error_formatter=awords if asynchronous else words)

    asyncio.run(Runner.run(agent, "Weather?", run_config=config))

    assert model.calls[1].input[2]["output"] == refused
    assert len(classified) == 1  # toolerr's text and the user's words: one classification
    assert [(r.kind, r.detection) for r in records] == [("transient", "exception")]
    assert _note_of(model.calls[1].input) == note("get_weather", 'city="Oslo"', refused, TRANSIENT)


def test_unchanged_input_is_the_very_same_object() -> None:
    recovery = ToolErrorRecovery()
    items: list[Any] = [
        {"role": "user", "content": "Weather?"},
        {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": '{"city":"Oslo"}'},
        {"type": "function_call_output", "call_id": "c1", "output": "Oslo: 18 C"},
    ]
    data = ModelInputData(input=list(items), instructions=None)
    out = recovery.call_model_input_filter(
        CallModelData(model_data=data, agent=Agent(name="a"), context=None)
    )
    assert out is data
    assert all(a is b for a, b in zip(out.input, items, strict=True))


def test_wrap_wires_guard_timeout_and_mcp_failure_function() -> None:
    recovery = ToolErrorRecovery(loop_action="block")
    tool = Tools().weather()
    helper = Agent(name="helper", tools=[tool])
    agent = Agent(name="main", tools=[tool], handoffs=[helper])

    assert recovery.wrap(agent) is agent
    assert recovery.wrap(agent) is agent  # idempotent

    assert tool.tool_input_guardrails == [recovery.tool_input_guardrail]
    assert tool.timeout_error_function == recovery.failure_error_function
    assert agent.mcp_config["failure_error_function"] == recovery.failure_error_function
    assert helper.mcp_config["failure_error_function"] == recovery.failure_error_function
    with pytest.raises(TypeError):
        recovery.wrap("not an agent")  # type: ignore[type-var]


def test_a_timeout_is_classified_from_the_exception() -> None:
    @function_tool(timeout=0.05)
    async def slow(city: str) -> str:
        """Slow weather."""
        await asyncio.sleep(5)
        return "late"

    records: list[DetectionRecord] = []
    recovery = ToolErrorRecovery(on_record=records.append)
    model = scripted([call("slow", {"city": "Oslo"}, "c1")], [done()])
    agent = recovery.wrap(Agent(name="weather", model=model, tools=[slow]))

    asyncio.run(Runner.run(agent, "Weather?", run_config=recovery.run_config()))

    output = model.calls[1].input[2]["output"]
    assert output.startswith("ToolTimeoutError: ")
    assert [r.kind for r in records] == ["transient"]


# -- fail open -----------------------------------------------------------------------------


def test_an_internal_error_lets_the_input_pass_and_is_logged(
    mode: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("toolerr bug")

    monkeypatch.setattr("toolerr_openai_agents._recovery.to_conversation", broken)
    tools = Tools({"Oslo": PermissionError(13, "Permission denied")})
    model = scripted([call("get_weather", {"city": "Oslo"}, "c1")], [done("ok")])
    agent = Agent(name="weather", model=model, tools=[tools.weather()])

    with caplog.at_level(logging.WARNING, logger="toolerr"):
        result = run_agent(mode, agent, "Weather?", run_config=ToolErrorRecovery().run_config())

    assert result.final_output == "ok"
    assert model.calls[1].input == result.to_input_list()[:3]
    assert any(r.name == "toolerr" and "passes unchanged" in r.getMessage() for r in caplog.records)


def test_an_internal_error_in_the_core_fails_open_too(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    recovery = ToolErrorRecovery()

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("toolerr bug")

    monkeypatch.setattr(recovery.layer, "_rewrite", broken)
    monkeypatch.setattr(recovery.layer, "inspect_exception", broken)
    tools = Tools({"Oslo": PermissionError(13, "Permission denied")})
    model = scripted([call("get_weather", {"city": "Oslo"}, "c1")], [done("ok")])
    agent = Agent(name="weather", model=model, tools=[tools.weather()])

    with caplog.at_level(logging.WARNING, logger="toolerr"):
        result = asyncio.run(Runner.run(agent, "Weather?", run_config=recovery.run_config()))

    assert result.final_output == "ok"
    # The SDK's own text and an unchanged input.
    assert model.calls[1].input[2]["output"] == "An error occurred while running the tool. Please try again."
    assert model.calls[1].input == result.to_input_list()[:3]
    assert len([r for r in caplog.records if r.name == "toolerr"]) >= 2


def test_an_internal_error_while_blocking_a_repeat_lets_the_call_run(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    recovery = ToolErrorRecovery(loop_action="block")

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("toolerr bug")

    monkeypatch.setattr(recovery.layer, "blocked_result", broken)
    tools = Tools({"Oslo": PermissionError(13, "Permission denied")})
    model = scripted(
        [call("get_weather", {"city": "Oslo"}, "c1")],
        [call("get_weather", {"city": "Oslo"}, "c2")],
        [done("ok")],
    )
    agent = Agent(name="weather", model=model, tools=[tools.weather()])

    with caplog.at_level(logging.WARNING, logger="toolerr"):
        result = asyncio.run(Runner.run(agent, "Weather?", run_config=recovery.run_config()))

    assert result.final_output == "ok"
    assert len(tools.executed) == 2  # the repeat ran, as without toolerr
    assert any(r.name == "toolerr" and "toolerr bug" in (r.exc_text or "") for r in caplog.records)


def test_public_api() -> None:
    import toolerr_openai_agents

    assert toolerr_openai_agents.__all__ == ["ToolErrorRecovery"]
    assert (Path(toolerr_openai_agents.__file__).parent / "py.typed").exists()
    recovery = toolerr_openai_agents.ToolErrorRecovery(
        form="c1", retry_budget=1, tool_safety={"get_weather": "read_only"}
    )
    assert (recovery.policy.form, recovery.policy.client) == ("c1", "openai-agents")
    assert isinstance(recovery.layer, toolerr.ToolErrorLayer)
    with pytest.raises(ValueError, match="unknown form"):
        ToolErrorRecovery(form="c9")


def test_the_c1_failure_text_is_the_plain_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    """C1 is applied by the input filter to the model call's view only: the failure hooks
    return the plain failure text, as in every other form, and deliver nothing (a delivery
    there, which loop action stop may end with ToolLoopError, would fail this test)."""
    from agents.run_context import RunContextWrapper
    from toolerr.adapters import LoopDecision, RepeatReport

    recovery = ToolErrorRecovery(form="c1", loop_action="stop", error_detail="full")

    def stop(*args: Any, **kwargs: Any) -> Any:
        raise ToolLoopError(LoopDecision("stop", "a repeat", RepeatReport()))

    monkeypatch.setattr(recovery.layer, "deliver_result", stop)
    context, error = RunContextWrapper(context=None), PermissionError(13, "Permission denied")
    assert recovery.failure_error_function(context, error) == "PermissionError: [Errno 13] Permission denied"
