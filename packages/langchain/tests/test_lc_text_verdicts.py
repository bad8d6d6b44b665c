"""Verdicts that ``handle_tool_errors`` learns from exceptions stay in their graph run
(issue 18, part 1).

``handle_tool_errors`` sees only the exception, so its classification is kept by result
text until the model node's rewrite finds the error message with that text. Here runs
share one middleware, every run numbers its calls ``call_0``, and every run's failed
result has the same text, ``Error: HTTPStatusError: upstream said no``, from exceptions
that classify differently: a 503 (transient), a 401 (unrecoverable), an exception of
another type with the same name and message (the text alone: ambiguous), and a
``create_agent`` run whose tool returns that error text itself. Each run's model input
must be exactly what the run gets alone: one after another, in threads and in asyncio
tasks, with the runs held at a barrier so that every run's exception is classified
before any run's model sees its result.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from typing import Any

import httpx
import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, AgentState
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import BaseTool, tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.runtime import Runtime
from lc_support import TRANSIENT, UNRECOVERABLE, note
from shared_support import bytes_kept_after_runs
from toolerr import Verdict
from toolerr_langchain import ToolErrorMiddleware, handle_tool_errors, rewrite_messages
from toolerr_langchain._messages import TEXT_VERDICTS, TextVerdicts
from toolerr_langchain.testing import ScriptedChatModel, tool_call

TEXT = "Error: HTTPStatusError: upstream said no"
AMBIGUOUS = None
"""An ambiguous failure has no guidance: the model sees the result as it is, no note."""


class HTTPStatusError(Exception):
    """Not httpx's: the same name and message, no response to classify."""


def _raise(status: int | None) -> None:
    if status is None:
        raise HTTPStatusError("upstream said no")
    request = httpx.Request("GET", "https://search.example.com")
    raise httpx.HTTPStatusError("upstream said no", request=request, response=httpx.Response(status))


def _lookup(status: int | None) -> BaseTool:
    @tool
    def lookup(query: str) -> str:
        """Look something up."""
        _raise(status)
        return "found"

    return lookup


@tool
def lookup_returned(query: str) -> ToolMessage:
    """Look something up (the tool reports its own failure)."""
    return ToolMessage(content=TEXT, tool_call_id="call_0", name="lookup_returned", status="error")


def _script(name: str) -> list[Any]:
    return [AIMessage("", tool_calls=[tool_call(name, "call_0", query="x")]), "done"]


def _seen(calls: Sequence[Sequence[BaseMessage]]) -> list[list[tuple[Any, ...]]]:
    """What the model was sent, without LangChain's random message ids."""

    def one(message: BaseMessage) -> tuple[Any, ...]:
        if isinstance(message, ToolMessage):
            return ("tool", message.content, message.tool_call_id, message.status)
        if isinstance(message, AIMessage):
            return ("ai", message.content, [(c["id"], c["name"], c["args"]) for c in message.tool_calls])
        return (message.type, message.content)

    return [[one(message) for message in call] for call in calls]


class _Gate:
    """Holds every run before the model call that sees its tool result, until all runs
    are there (``None``: no waiting, a run alone)."""

    def __init__(self, parties: int | None, *, asynchronous: bool = False) -> None:
        self._sync = threading.Barrier(parties) if parties and not asynchronous else None
        self._async = asyncio.Barrier(parties) if parties and asynchronous else None

    def wait(self, messages: Sequence[BaseMessage]) -> None:
        if self._sync is not None and isinstance(messages[-1], ToolMessage):
            self._sync.wait(timeout=30)

    async def await_(self, messages: Sequence[BaseMessage]) -> None:
        if self._async is not None and isinstance(messages[-1], ToolMessage):
            await asyncio.wait_for(self._async.wait(), timeout=30)


class _GateMiddleware(AgentMiddleware[AgentState[Any], Any, Any]):
    """The same gate for a ``create_agent`` run, before its model call."""

    def __init__(self, gate: _Gate) -> None:
        super().__init__()
        self.gate = gate

    def before_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> None:
        self.gate.wait(state["messages"])

    async def abefore_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> None:
        await self.gate.await_(state["messages"])


def _graph(
    model: ScriptedChatModel,
    tools: list[BaseTool],
    rewrite: Callable[[Sequence[BaseMessage]], Any],
    gate: _Gate,
) -> Any:
    """A graph built by hand: a model node that rewrites its messages, and a ToolNode
    with ``handle_tool_errors``."""
    bound = model.bind_tools(tools)

    def call_model(state: MessagesState) -> dict[str, Any]:
        gate.wait(state["messages"])
        return {"messages": [bound.invoke(rewrite(state["messages"]))]}

    async def acall_model(state: MessagesState) -> dict[str, Any]:
        await gate.await_(state["messages"])
        return {"messages": [await bound.ainvoke(rewrite(state["messages"]))]}

    builder = StateGraph(MessagesState)
    builder.add_node("model", call_model if gate._async is None else acall_model)
    builder.add_node("tools", ToolNode(tools, handle_tool_errors=handle_tool_errors))
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", tools_condition, ["tools", END])
    builder.add_edge("tools", "model")
    return builder.compile()


RUNS: dict[str, int | None] = {"503": 503, "agent": None, "401": 401, "other-type": None}
"""Each run: the HTTP status of its exception (``None``: not httpx's exception)."""


def _app(run: str, middleware: ToolErrorMiddleware, gate: _Gate) -> tuple[Any, ScriptedChatModel]:
    if run == "agent":
        model = ScriptedChatModel(script=_script("lookup_returned"))
        agent = create_agent(model, [lookup_returned], middleware=[_GateMiddleware(gate), middleware])
        return agent, model
    model = ScriptedChatModel(script=_script("lookup"))
    return _graph(model, [_lookup(RUNS[run])], middleware.rewrite, gate), model


def _middleware() -> ToolErrorMiddleware:
    # The middleware's own tool handling is kept off the agent's tool: its error result
    # carries no classification, so the model call looks its text up.
    return ToolErrorMiddleware(tools=["unrelated"])


def _invoke(
    run: str, middleware: ToolErrorMiddleware, gate: _Gate | None = None
) -> list[list[tuple[Any, ...]]]:
    app, model = _app(run, middleware, gate or _Gate(None))
    app.invoke({"messages": [("user", "Look it up.")]})
    return _seen(model.calls)


async def _ainvoke(run: str, middleware: ToolErrorMiddleware, gate: _Gate) -> list[list[tuple[Any, ...]]]:
    app, model = _app(run, middleware, gate)
    await app.ainvoke({"messages": [("user", "Look it up.")]})
    return _seen(model.calls)


def _alone() -> dict[str, list[list[tuple[Any, ...]]]]:
    return {run: _invoke(run, _middleware()) for run in RUNS}


def _guidance(seen: list[list[tuple[Any, ...]]]) -> str | None:
    """The guidance of the note the model saw last (``None``: the result went as it was)."""
    last = seen[-1][-1]
    if last[0] != "human":
        assert last == ("tool", TEXT, "call_0", "error")
        return None
    return str(last[1]).rsplit("\n\n", 1)[-1]


def test_each_run_alone_gets_its_own_exceptions_classification() -> None:
    alone = _alone()
    assert _guidance(alone["503"]) == TRANSIENT
    assert _guidance(alone["401"]) == UNRECOVERABLE
    assert _guidance(alone["other-type"]) == AMBIGUOUS
    assert _guidance(alone["agent"]) == AMBIGUOUS
    assert alone["503"][-1][-2:] == [
        ("tool", TEXT, "call_0", "error"),
        ("human", note("lookup", 'query="x"', TEXT, TRANSIENT)),
    ]


def test_sequential_runs_sharing_one_middleware() -> None:
    alone = _alone()
    shared = _middleware()
    for run in [*RUNS, *reversed(RUNS), *RUNS]:
        assert _invoke(run, shared) == alone[run], run


def test_the_module_function_rewrite_messages_too() -> None:
    """``rewrite_messages`` (a fresh layer each call) finds the verdict of its own run only."""
    seen: dict[str, list[list[tuple[Any, ...]]]] = {}
    for run in ("503", "401", "other-type", "503"):
        model = ScriptedChatModel(script=_script("lookup"))
        _graph(model, [_lookup(RUNS[run])], rewrite_messages, _Gate(None)).invoke(
            {"messages": [("user", "x")]}
        )
        seen[run] = _seen(model.calls)
        assert _guidance(seen[run]) == {"503": TRANSIENT, "401": UNRECOVERABLE, "other-type": AMBIGUOUS}[run]


@pytest.mark.parametrize("copies", [1, 3])
def test_concurrent_runs_in_threads(copies: int) -> None:
    alone = _alone()
    shared = _middleware()
    runs = [run for run in RUNS for _ in range(copies)]
    gate = _Gate(len(runs))
    results: dict[int, list[list[tuple[Any, ...]]]] = {}
    errors: list[BaseException] = []

    def go(n: int) -> None:
        try:
            results[n] = _invoke(runs[n], shared, gate)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=go, args=(n,)) for n in range(len(runs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    for n, run in enumerate(runs):
        assert results[n] == alone[run], run


@pytest.mark.parametrize("copies", [1, 3])
def test_concurrent_runs_in_asyncio_tasks(copies: int) -> None:
    alone = _alone()
    shared = _middleware()
    runs = [run for run in RUNS for _ in range(copies)]

    async def main() -> list[list[list[tuple[Any, ...]]]]:
        gate = _Gate(len(runs), asynchronous=True)
        return await asyncio.gather(*(_ainvoke(run, shared, gate) for run in runs))

    for run, got in zip(runs, asyncio.run(main()), strict=True):
        assert got == alone[run], run


def test_one_text_from_two_exceptions_of_one_run_uses_neither() -> None:
    """Two parallel calls of one run fail with the same text, a 503 and a 401: which
    result is whose cannot be told from the text, so both are classified by the text."""

    @tool
    def lookup(query: str) -> str:
        """Look something up."""
        _raise(503 if query == "a" else 401)
        return "found"

    model = ScriptedChatModel(
        script=[
            AIMessage(
                "",
                tool_calls=[
                    tool_call("lookup", "call_0", query="a"),
                    tool_call("lookup", "call_1", query="b"),
                ],
            ),
            "done",
        ]
    )
    _graph(model, [lookup], _middleware().rewrite, _Gate(None)).invoke({"messages": [("user", "x")]})
    assert _seen(model.calls)[-1][-2:] == [
        ("tool", TEXT, "call_0", "error"),
        ("tool", TEXT, "call_1", "error"),
    ]


def test_outside_a_graph_run_nothing_is_kept() -> None:
    """``handle_tool_errors`` called by hand keeps nothing that a later run could take."""
    request = httpx.Request("GET", "https://search.example.com")
    error = httpx.HTTPStatusError("upstream said no", request=request, response=httpx.Response(503))
    assert handle_tool_errors(error) == TEXT
    model = ScriptedChatModel(script=_script("lookup_returned"))
    create_agent(model, [lookup_returned], middleware=[_middleware()]).invoke({"messages": [("user", "x")]})
    assert _guidance(_seen(model.calls)) == AMBIGUOUS


def test_text_verdicts_match_the_run_and_the_exact_text() -> None:
    verdicts = TextVerdicts(size=2)
    transient = Verdict(failed=True, kind="transient", rule="http:503", detection="exception")
    fatal = Verdict(failed=True, kind="unrecoverable", rule="http:401", detection="exception")
    run_a, run_b = object(), object()
    verdicts.put(run_a, TEXT, transient)
    assert verdicts.get(run_a, TEXT) == transient
    assert verdicts.get(run_b, TEXT) is None
    assert verdicts.get(None, TEXT) is None
    assert verdicts.get(run_a, TEXT + " ") is None
    assert verdicts.get(run_a, TEXT[:-1]) is None
    verdicts.put(None, TEXT, transient)  # no run: nothing kept
    # A key scope is compared by value, an object scope by identity.
    verdicts.put(("thread_id", "t1"), TEXT, fatal)
    assert verdicts.get(("thread_id", "t1"), TEXT) == fatal
    assert verdicts.get(("thread_id", "t2"), TEXT) is None
    # One text, two verdicts in one run: which result is whose is unknown, none is given.
    verdicts.put(run_a, TEXT, transient)
    assert verdicts.get(run_a, TEXT) == transient
    verdicts.put(run_a, TEXT, fatal)
    assert verdicts.get(run_a, TEXT) is None
    verdicts.put(run_a, TEXT, transient)
    assert verdicts.get(run_a, TEXT) is None
    # Bounded: the oldest entries of all runs go first (size=2).
    verdicts.put(run_b, "one", transient)
    assert verdicts.get(("thread_id", "t1"), TEXT) is None
    assert verdicts.get(run_b, "one") == transient
    verdicts.put(run_b, "two", transient)
    verdicts.put(run_b, "three", transient)
    assert verdicts.get(run_b, "one") is None
    assert verdicts.get(run_b, "three") == transient


def test_memory_is_bounded_over_many_runs() -> None:
    verdicts = TextVerdicts()
    verdict = Verdict(failed=True, kind="transient", rule="http:503", detection="exception")
    runs = [object() for _ in range(3000)]
    for n, run in enumerate(runs):
        verdicts.put(run, f"{TEXT} {n}", verdict)
    assert len(verdicts._items) == 1024 == TEXT_VERDICTS._items.size
    assert verdicts.get(runs[0], f"{TEXT} 0") is None
    assert verdicts.get(runs[-1], f"{TEXT} 2999") == verdict


def test_finished_runs_keep_no_error_text_alive() -> None:
    """Graph runs whose tool raises with a message of 1 MB (an error body, a log): once a
    run is over, its text is not kept with its classification."""

    def one_run(n: int) -> None:
        @tool
        def fetch_log(query: str) -> str:
            """Fetch a log."""
            raise RuntimeError(f"{n:08d}" * 125_000)

        model = ScriptedChatModel(script=_script("fetch_log"))
        _graph(model, [fetch_log], rewrite_messages, _Gate(None)).invoke({"messages": [("user", "Go.")]})

    retained = bytes_kept_after_runs(one_run)
    assert retained < 1_000_000, f"{retained / 1e6:.1f} MB kept after 8 runs of 1 MB"
