"""Issue 28's "Done when" on strands' real Agent loop (scripted Model): a real 503 from a
server on 127.0.0.1, a PermissionError and strands' own argument validation each reach the
model with their kind's delivery byte-exact; the agent's history holds no note; a run
without failure reaches the model byte-identical to one without toolerr, through every
entry point (``Agent.__call__``, ``invoke_async``, ``stream_async``); one plugin serves
concurrent agents with colliding call ids, and strands itself refuses a second concurrent
invocation of one agent."""

from __future__ import annotations

import asyncio
import http.server
import logging
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from adapter_contract import NOTE_PREFIX, note
from shared_support import FIXABLE, TRANSIENT, UNRECOVERABLE
from strands import Agent, tool
from strands.types.exceptions import ConcurrencyException
from strands_support import ScriptedModel, entries
from toolerr import DetectionRecord
from toolerr_strands import ToolErrorPlugin

pytestmark = [pytest.mark.enable_socket, pytest.mark.allow_hosts(["127.0.0.1"])]

ASK = "What is the weather?"


class _Unavailable(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"upstream overloaded"
        self.send_response(503, "Service Unavailable")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """A server on 127.0.0.1 that answers every request with a real 503."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Unavailable)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/weather"
    httpd.shutdown()
    httpd.server_close()


def make_agent(url: str, turns: list[Any], plugin: ToolErrorPlugin | None) -> tuple[Agent, ScriptedModel]:
    @tool
    def get_weather(city: str) -> str:
        """The weather in a city.

        Args:
            city: The city.
        """
        if city == "Paris":
            httpx.get(url, timeout=5).raise_for_status()
        if city == "Oslo":
            raise PermissionError(13, "Permission denied")
        return f"{city}: 12 C, cloudy"

    model = ScriptedModel(turns)
    plugins = [plugin] if plugin is not None else []
    agent = Agent(model=model, tools=[get_weather], plugins=plugins, callback_handler=None)
    return agent, model


def one_call(arguments: dict[str, Any]) -> list[Any]:
    return [[("call_0", "get_weather", arguments)], "done"]


@pytest.mark.parametrize(
    ("kind", "arguments", "shown_type", "written", "guidance"),
    [
        ("transient", {"city": "Paris"}, "HTTPStatusError", 'city="Paris"', TRANSIENT),
        ("unrecoverable", {"city": "Oslo"}, "PermissionError", 'city="Oslo"', UNRECOVERABLE),
        ("fixable", {"city": 5}, "ValueError", "city=5", FIXABLE),
    ],
)
def test_each_kind_reaches_the_model_byte_exact(
    server: str, kind: str, arguments: dict[str, Any], shown_type: str, written: str, guidance: str
) -> None:
    """The model call after the failure: the call, its result as the tool's diagnosis
    (``Type: message``), and the runtime note with the kind's guidance as a trailing text
    block of the user message that carries the result; the agent's history keeps the result
    and no note."""
    records: list[DetectionRecord] = []
    agent, model = make_agent(server, one_call(arguments), ToolErrorPlugin(on_record=records.append))
    agent(ASK)
    [result] = [e[1] for e in entries(agent.messages) if e[0] == "tool"]
    assert result.startswith(f"{shown_type}: ")
    if kind == "transient":
        assert "503 Service Unavailable" in result
    if kind == "fixable":  # strands' own validation of the arguments, before the tool ran
        assert "Validation failed for input parameters" in result
    runtime_note = note(written, result, guidance)
    call = ("call", "get_weather", arguments)
    assert entries(model.sent[1]) == [("user", ASK), call, ("tool", result), ("user", runtime_note)]
    # one user message: the result, then the note (Bedrock rejects two user messages in a row)
    last = model.sent[1][-1]
    assert last["role"] == "user" and [list(block) for block in last["content"]] == [["toolResult"], ["text"]]
    assert last["content"][0]["toolResult"]["status"] == "error"
    assert entries(agent.messages) == [("user", ASK), call, ("tool", result), ("assistant", "done")]
    assert NOTE_PREFIX not in repr(agent.messages)
    assert [(r.kind, r.call_id, r.changed) for r in records] == [(kind, "call_0", True)]


def test_without_toolerr_strands_shows_its_own_text(server: str) -> None:
    """Strands alone: ``Error: PermissionError - ...`` and no note (what the plugin replaces)."""
    agent, model = make_agent(server, one_call({"city": "Oslo"}), None)
    agent(ASK)
    assert entries(model.sent[1])[-1] == ("tool", "Error: PermissionError - [Errno 13] Permission denied")


async def _collect(agent: Agent, prompt: str) -> None:
    async for _ in agent.stream_async(prompt):
        pass


@pytest.mark.parametrize("entry", ["call", "invoke_async", "stream_async"])
def test_a_run_without_failure_is_byte_identical(server: str, entry: str) -> None:
    """Each entry point (the sync ``__call__`` and the async twins): what the model is sent,
    and the history, are what the same agent without toolerr gives."""
    turns: list[Any] = [
        [("call_0", "get_weather", {"city": "Rome"})],
        [("call_1", "get_weather", {"city": "Lima"}), ("call_2", "get_weather", {"city": "Rome"})],
        "done",
    ]
    runs = []
    for plugin in (ToolErrorPlugin(), None):
        agent, model = make_agent(server, list(turns), plugin)
        if entry == "call":
            agent(ASK)
        elif entry == "invoke_async":
            asyncio.run(agent.invoke_async(ASK))
        else:
            asyncio.run(_collect(agent, ASK))
        # strands gives each history message a random tracking_id (never sent to the model)
        runs.append(
            (model.requests, [{k: v for k, v in m.items() if k != "tracking_id"} for m in agent.messages])
        )
    (with_toolerr, history), (without, plain) = runs
    assert len(with_toolerr) == 3
    assert with_toolerr == without
    assert history == plain


@pytest.mark.parametrize("entry", ["call", "stream_async"])
def test_the_sync_and_stream_entry_points_deliver_the_note(server: str, entry: str) -> None:
    agent, model = make_agent(server, one_call({"city": "Oslo"}), ToolErrorPlugin())
    if entry == "call":
        agent(ASK)
    else:
        asyncio.run(_collect(agent, ASK))
    assert entries(model.sent[1])[-1][1].endswith(UNRECOVERABLE)
    assert NOTE_PREFIX not in repr(agent.messages)


def test_one_plugin_two_agents_in_threads_with_colliding_ids(server: str) -> None:
    """Two agents (sync ``__call__``, a thread each) share one plugin; both number their
    calls ``call_0``, ``call_1``: a failed call of one is neither noted nor blocked in the
    other."""
    plugin = ToolErrorPlugin(loop_action="block")
    script: list[Any] = [
        [("call_0", "get_weather", {"city": "Oslo"})],
        [("call_1", "get_weather", {"city": "Oslo"})],
        "done",
    ]
    failing, failing_model = make_agent(server, list(script), plugin)
    other_script: list[Any] = [
        [("call_0", "get_weather", {"city": "Rome"})],
        [("call_1", "get_weather", {"city": "Rome"})],
        "done",
    ]
    healthy, healthy_model = make_agent(server, other_script, plugin)
    alone, alone_model = make_agent(server, list(other_script), None)
    alone(ASK)
    barrier = threading.Barrier(2)

    def run(agent: Agent) -> None:
        barrier.wait()
        agent(ASK)

    threads = [threading.Thread(target=run, args=(a,)) for a in (failing, healthy)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert healthy_model.requests == alone_model.requests
    blocked = entries(failing_model.sent[2])
    assert [e for e in blocked if e[0] == "tool"][-1][1].startswith("Error: this call was not executed.")
    assert blocked[-1][1].startswith(NOTE_PREFIX)


def test_strands_refuses_a_second_concurrent_invocation_of_one_agent(server: str) -> None:
    """What strands allows: one invocation at a time per agent (ConcurrencyException), so the
    agent is a sound run scope; the agent's next invocation continues its conversation."""
    gate = threading.Event()
    agent, model = make_agent(
        server, [[("call_0", "get_weather", {"city": "Oslo"})], "done"], ToolErrorPlugin()
    )
    original = model.stream

    async def slow(*args: Any, **kwargs: Any) -> Any:
        while not gate.is_set():
            await asyncio.sleep(0.01)
        async for event in original(*args, **kwargs):
            yield event

    model.stream = slow  # type: ignore[method-assign]

    async def both() -> list[Any]:
        first = asyncio.create_task(agent.invoke_async(ASK))
        await asyncio.sleep(0.05)
        second = asyncio.create_task(agent.invoke_async(ASK))
        await asyncio.sleep(0.05)
        gate.set()
        return await asyncio.gather(first, second, return_exceptions=True)

    first, second = asyncio.run(both())
    assert isinstance(second, ConcurrencyException)
    assert not isinstance(first, BaseException)
    assert entries(model.sent[1])[-1][1].endswith(UNRECOVERABLE)


# -- the tool's declared parameters -------------------------------------------------------

LITERAL = "ValueError: invalid literal for int() with base 10: 'forty'"
SAVED = "Name of a saved query."  # a reference to stored data: the value was read, not written
WRITTEN = "SQL query to run."  # the value itself: the model wrote it
QUERY_CALL = [[("call_0", "run_query", {"name": "churn_by_plan"})], "done"]


def query_tool(description: str) -> Any:
    """``@tool`` ``run_query(name)``: strands reads the parameter's description from the
    docstring into ``tool_spec["inputSchema"]["json"]``; the tool rejects the value."""

    def run_query(name: str) -> str:
        raise ValueError("invalid literal for int() with base 10: 'forty'")

    run_query.__doc__ = f"Run a query.\n\nArgs:\n    name: {description}\n"
    return tool(run_query)


def query_entries(kind: str) -> list[Any]:
    """What the model sees after the failure: the result, and for a fixable one the note."""
    seen = [("user", ASK), ("call", "run_query", {"name": "churn_by_plan"}), ("tool", LITERAL)]
    if kind == "fixable":
        text = note('name="churn_by_plan"', LITERAL, FIXABLE).replace("get_weather", "run_query", 1)
        seen.append(("user", text))
    return seen


@pytest.mark.parametrize(("description", "kind"), [(SAVED, "ambiguous"), (WRITTEN, "fixable")])
def test_the_tools_declared_parameters_decide_the_note(description: str, kind: str) -> None:
    """The same rejected value: fixable when the tool's schema says the model wrote it (the
    note tells it to correct the value), ambiguous when the schema says it names a saved
    query (the value came from stored data: no note tells the model to rewrite it)."""
    records: list[DetectionRecord] = []
    run_query = query_tool(description)
    assert run_query.tool_spec["inputSchema"]["json"]["properties"]["name"]["description"] == description
    model = ScriptedModel(QUERY_CALL)
    agent = Agent(
        model=model,
        tools=[run_query],
        plugins=[ToolErrorPlugin(on_record=records.append)],
        callback_handler=None,
    )
    agent(ASK)
    assert entries(model.sent[1]) == query_entries(kind)
    assert [(r.tool, r.kind) for r in records] == [("run_query", kind)]


class _NoGet(dict):  # type: ignore[type-arg]
    """A spec part that strands reads by key and the plugin cannot read (``get`` raises)."""

    def get(self, *args: Any) -> Any:
        raise RuntimeError("boom")


def test_a_spec_that_cannot_be_read_is_left_out(caplog: pytest.LogCaptureFixture) -> None:
    run_query = query_tool(SAVED)
    spec = dict(run_query.tool_spec)
    spec["inputSchema"] = _NoGet(spec["inputSchema"])
    run_query.tool_spec = spec
    model = ScriptedModel(QUERY_CALL)
    agent = Agent(model=model, tools=[run_query], plugins=[ToolErrorPlugin()], callback_handler=None)
    with caplog.at_level(logging.WARNING, logger="toolerr"):
        agent(ASK)
    assert entries(model.sent[1]) == query_entries("fixable")  # classified without the schema
    assert any(r.name == "toolerr" and "declared parameters" in r.getMessage() for r in caplog.records)
