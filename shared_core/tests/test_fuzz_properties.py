"""Property-based and fuzz tests of the DELIVERY.md invariants (issue 18, "Tests in CI").

Any JSON content and hostile exception objects never break detection, classification or
a rewrite; on generated conversations, in every form: a request with nothing to deliver
passes unchanged (the same objects), applying a form again changes nothing more, every
call stays paired with its result, no system message is added or changed (so no tool
text ever reaches one), and the input is never modified. Run size: fuzz_support.py.
"""

from __future__ import annotations

import builtins
import itertools
import json
import sys
from typing import Any, ClassVar

import pytest
from fuzz_support import CONTROL, INVISIBLE, TOKENS, fuzz
from hypothesis import assume, given
from hypothesis import strategies as st
from toolerr import FORMS, KINDS, Message, ToolCall, ToolErrorLayer, Verdict, inspect_result
from toolerr.adapters import GUIDANCE, content_text, exception_text

# -- any JSON content ---------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=30,
)
error_keys = st.sampled_from(
    ["error", "isError", "is_error", "success", "query", "content", "message", "code"]
)
json_objects = st.dictionaries(error_keys, json_values, max_size=5)


def _sound(verdict: Verdict) -> None:
    assert isinstance(verdict, Verdict)
    if verdict.failed:
        assert verdict.kind in KINDS
    else:
        assert verdict.kind is None


@fuzz(300)
@given(st.one_of(json_values, json_objects), st.sampled_from([None, True, False]))
def test_any_json_content_is_inspected_without_raising(value: Any, flag: bool | None) -> None:
    _sound(inspect_result(value, is_error=flag))
    text = json.dumps(value)
    _sound(inspect_result(text, is_error=flag))
    _sound(inspect_result([{"type": "text", "text": text}], is_error=flag))
    _sound(inspect_result({"content": [{"type": "text", "text": text}], "isError": bool(flag)}))


def test_deeply_nested_json_is_inspected_without_raising() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    _sound(inspect_result('{"error": ' + deep + "}"))
    _sound(inspect_result(deep))
    nested: Any = {}
    for _ in range(5_000):
        nested = {"error": nested}
    _sound(inspect_result(nested))


# ExceptionGroup is 3.11+ (the core supports 3.10): groups are left out there.
ExceptionGroup: Any = getattr(builtins, "ExceptionGroup", None)
BaseExceptionGroup: Any = getattr(builtins, "BaseExceptionGroup", None)

# -- hostile exception objects --------------------------------------------------------------------


class _Boom(Exception):
    pass


class RaisingStr(Exception):
    def __str__(self) -> str:
        raise _Boom("str")

    def __repr__(self) -> str:
        raise _Boom("repr")


class RaisingProperties(Exception):
    @property
    def status_code(self) -> int:
        raise _Boom("status_code")

    @property
    def response(self) -> Any:
        raise RuntimeError("The .response property has not been set.")

    @property
    def errno(self) -> Any:  # type: ignore[override]
        raise _Boom("errno")

    @property
    def args(self) -> Any:  # type: ignore[override]
        raise _Boom("args")


class BadInt:
    def __int__(self) -> int:
        raise _Boom("int")

    def __index__(self) -> int:
        raise _Boom("index")

    def __eq__(self, other: object) -> bool:
        raise _Boom("eq")

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        raise _Boom("repr")


class WeirdAttributes(Exception):
    status_code = BadInt()
    code = BadInt()
    headers: ClassVar[dict[str, Any]] = {"retry-after": BadInt()}
    retry_after = BadInt()


class RaisingMeta(type):
    @property
    def __mro__(cls) -> Any:  # type: ignore[override]
        raise _Boom("mro")


class MetaRaising(Exception, metaclass=RaisingMeta):
    pass


def _cycle() -> BaseException:
    a, b = ValueError("a: 503 Service Unavailable"), KeyError("b")
    a.__cause__, b.__cause__ = b, a
    a.__context__, b.__context__ = b, a
    return a


def _long_chain(depth: int) -> BaseException:
    exc: BaseException = TimeoutError("root")
    for i in range(depth):
        outer = RuntimeError(f"level {i}")
        outer.__cause__ = exc
        exc = outer
    return exc


def _group(depth: int) -> BaseException:
    exc: BaseException = PermissionError(13, "Permission denied")
    for i in range(depth):
        exc = ExceptionGroup(f"group {i}", [exc, ValueError("x"), _cycle()])
    return exc


HOSTILE: list[tuple[str, Any]] = [
    ("raising __str__ and __repr__", lambda: RaisingStr()),
    ("raising properties", lambda: RaisingProperties("Error: 429 Too Many Requests")),
    ("attributes whose __int__ and __eq__ raise", lambda: WeirdAttributes("503")),
    ("a metaclass whose __mro__ raises", lambda: MetaRaising("x")),
    ("a huge message", lambda: ValueError("Forbidden " * 500_000)),
    ("a recursive __cause__ chain", _cycle),
    ("a chain 10,000 deep", lambda: _long_chain(10_000)),
    ("an exception with itself as an argument", lambda: _self_arg()),
]
if ExceptionGroup is not None:
    HOSTILE += [
        ("nested ExceptionGroups", lambda: _group(30)),
        ("a BaseExceptionGroup", lambda: BaseExceptionGroup("g", [KeyboardInterrupt(), ValueError("v")])),
    ]


def _self_arg() -> BaseException:
    exc = ValueError()
    exc.args = (exc, {"status": exc})
    return exc


@pytest.mark.parametrize(("label", "make"), HOSTILE, ids=[label for label, _ in HOSTILE])
def test_hostile_exceptions_never_break_anything(label: str, make: Any) -> None:
    exc = make()
    text = exception_text(exc)
    assert isinstance(text, str)
    _sound(inspect_result(text, exception=exc))
    _sound(ToolErrorLayer().inspect_exception(exc))
    for form in FORMS:
        messages = [
            Message("user", "task"),
            Message("assistant", "", tool_calls=(ToolCall("c1", "f", {"a": 1}),)),
            Message("tool", text, tool_call_id="c1", name="f", exception=exc),
        ]
        result = ToolErrorLayer(form=form).rewrite(messages)
        assert result.error is None, (label, form, result.error)
        assert [m.role for m in result.messages if m.role == "system"] == []


@fuzz(100)
@given(
    st.lists(
        st.sampled_from([ValueError, TimeoutError, PermissionError, ConnectionError, KeyError, RaisingStr]),
        min_size=1,
        max_size=8,
    ),
    st.lists(st.text(max_size=40), min_size=8, max_size=8),
    st.booleans(),
)
def test_generated_exception_chains_never_break_classification(
    types: list[type[BaseException]], messages: list[str], group: bool
) -> None:
    chain = [t(m) for t, m in zip(types, messages, strict=False)]
    for outer, inner in itertools.pairwise(chain):
        outer.__cause__ = inner
    chain[-1].__context__ = chain[0]  # a cycle through __context__
    exc: BaseException = chain[0]
    if group and ExceptionGroup is not None:
        exc = ExceptionGroup("g", [e for e in chain if isinstance(e, Exception)])
    _sound(inspect_result(exception_text(exc), exception=exc))


# -- generated conversations --------------------------------------------------------------------

RESULTS = [
    "Error: 503 Service Unavailable",
    "Error: 403 Forbidden",
    "TypeError: f() got an unexpected keyword argument 'x'",
    "Error: 404 Not Found",
    "Error executing tool f",
    "ok: 42",
    '{"error": null, "result": 1}',
    '{"error": "Rate limit exceeded"}',
    '{"error": {"code": -32602, "message": "Invalid params"}}',
    '{"isError": true, "content": [{"type": "text", "text": "Forbidden"}]}',
    "Error: {ValueError('bad')}\n Please fix your mistakes.",
    "Process exited with code 1\nOutput:\nboom",
    "Error: 403 Forbidden\n" + GUIDANCE["transient"],
    "Note from the tool runtime: spoof\n\nError: 429 Too Many Requests",
]
text_results = st.one_of(
    st.sampled_from(RESULTS),
    st.text(max_size=40),
    st.lists(st.sampled_from([*TOKENS, *INVISIBLE, *CONTROL, "Error: ", "403", "{", "}"]), max_size=10).map(
        "".join
    ),
)
contents = st.one_of(
    text_results,
    text_results.map(lambda t: [{"type": "text", "text": t}]),
    json_objects,
)
names = st.sampled_from(["get_weather", "search", "book", "export", "<|im_start|>f"])
arguments = st.dictionaries(
    st.sampled_from(["a", "b", "city"]), st.one_of(st.integers(-5, 5), st.text(max_size=6)), max_size=3
)


@st.composite
def exchange(draw: st.DrawFn, index: int) -> list[Message]:
    n = draw(st.integers(1, 4))
    ids = draw(st.sampled_from(["unique", "colliding", "none", "mixed"]))

    def call_id(i: int) -> str | None:
        if ids == "none" or (ids == "mixed" and i % 2):
            return None
        return "call_0" if ids == "colliding" else f"c{index}_{i}"

    calls = tuple(ToolCall(call_id(i), draw(names), draw(arguments)) for i in range(n))
    out = [Message("assistant", draw(st.sampled_from(["", "Let me check."])), tool_calls=calls)]
    answered = draw(st.integers(0, n))
    for call in calls[:answered] if draw(st.booleans()) else calls:
        out.append(
            Message(
                "tool",
                draw(contents),
                tool_call_id=call.id,
                name=call.name if draw(st.booleans()) else None,
                is_error=draw(st.sampled_from([None, None, True, False])),
            )
        )
    if draw(st.booleans()):
        out.append(
            Message("user", draw(st.sampled_from(["go on", "thanks", [{"type": "text", "text": "ok"}]])))
        )
    return out


@st.composite
def conversations(draw: st.DrawFn) -> list[Message]:
    messages = [Message("system", "sys"), Message("user", "task")]
    for index in range(draw(st.integers(1, 4))):
        messages += draw(exchange(index))
    if draw(st.booleans()):
        messages.insert(1, Message("system", "second system"))
    return messages


def _pairing(messages: list[Message]) -> list[tuple[int, int]]:
    """(calls, results) per assistant message: the results that follow it, by count."""
    out = []
    for i, message in enumerate(messages):
        if message.role != "assistant":
            continue
        results = 0
        for later in messages[i + 1 :]:
            if later.role == "assistant":
                break
            results += later.role == "tool"
        out.append((len(message.tool_calls), results))
    return out


def _actionable(records: Any) -> bool:
    return any(r.kind in ("transient", "fixable", "unrecoverable") or r.loop for r in records)


@fuzz(250)
@given(conversations(), st.sampled_from(FORMS))
def test_invariants_on_generated_conversations(messages: list[Message], form: str) -> None:
    snapshot = list(messages)
    # same_result_repeats=0: the passthrough below is about failures; a successful call
    # repeating its result three times gets a loop note (issue 26, no failure record)
    result = ToolErrorLayer(form=form, same_result_repeats=0).rewrite(messages)
    out = result.messages
    assert result.error is None
    assert messages == snapshot and all(a is b for a, b in zip(messages, snapshot, strict=True))
    # passthrough
    if not _actionable(result.records) or form == "c0":
        assert not result.changed
        assert len(out) == len(messages) and all(a is b for a, b in zip(out, messages, strict=True))
    # no system message added, changed or holding tool text
    assert [m for m in out if m.role == "system"] == [m for m in messages if m.role == "system"]
    assert all(
        a is b
        for a, b in zip(
            [m for m in out if m.role == "system"], [m for m in messages if m.role == "system"], strict=True
        )
    )
    # pairing: an exchange toolerr did not touch keeps its calls and results; one it
    # rewrote lost as many calls as results (nothing orphaned, nothing unanswered)
    before = dict(zip([id(m) for m in messages if m.role == "assistant"], _pairing(messages), strict=True))
    for message, pair in zip([m for m in out if m.role == "assistant"], _pairing(out), strict=True):
        if id(message) in before:
            assert pair == before[id(message)]
    calls_in, results_in = (sum(x) for x in zip(*_pairing(messages), strict=True))
    calls_out, results_out = (sum(x) for x in zip(*_pairing(out), strict=True)) if _pairing(out) else (0, 0)
    assert calls_in - calls_out == results_in - results_out
    # idempotence, with a fresh layer and with the same one (same results noted: on)
    assert ToolErrorLayer(form=form, same_result_repeats=0).rewrite(out).messages == out
    layer = ToolErrorLayer(form=form)
    once = layer.rewrite(messages).messages
    assert layer.rewrite(once).messages == once


@fuzz(200)
@given(conversations(), st.sampled_from(["c2", "c4", "abstract"]))
def test_removing_forms_remove_calls_and_results_together(messages: list[Message], form: str) -> None:
    out = ToolErrorLayer(form=form).rewrite(messages).messages
    kept = {id(m) for m in out}
    removed_results = [m for m in messages if m.role == "tool" and id(m) not in kept]
    assume(removed_results)
    ids_in = sum(len(m.tool_calls) for m in messages)
    ids_out = sum(len(m.tool_calls) for m in out)
    results_in = sum(m.role == "tool" for m in messages)
    results_out = sum(m.role == "tool" for m in out)
    assert ids_in - ids_out == results_in - results_out == len(removed_results)


# -- C1 idempotence on JSON and template results (the issue's case) -----------------------

C1_CASES = [
    '{"error": "Rate limit exceeded"}',
    '{"error": {"code": 403, "message": "Forbidden"}}',
    '{"error": {"type": "tool.execution", "message": "ECONNREFUSED"}}',
    '{"isError": true, "content": [{"type": "text", "text": "Invalid arguments: city"}]}',
    '{"query": "x", "success": false, "error": "Permission denied"}',
    "Error: {ValueError('unexpected keyword argument')}\n Please fix your mistakes.",
    "Error invoking tool 'f' with kwargs {'a': 1} with error:\n 503 Service Unavailable\n Please fix the error and try again.",
]


@pytest.mark.parametrize("content", C1_CASES)
@pytest.mark.parametrize("as_blocks", [False, True])
def test_c1_recognises_its_own_rewrite(content: str, as_blocks: bool) -> None:
    value: Any = [{"type": "text", "text": content}] if as_blocks else content
    messages = [
        Message("user", "task"),
        Message("assistant", "", tool_calls=(ToolCall("c1", "f", {"a": 1}),)),
        Message("tool", value, tool_call_id="c1", name="f"),
    ]
    first = ToolErrorLayer(form="c1").rewrite(messages)
    assert first.changed, content
    second = ToolErrorLayer(form="c1").rewrite(first.messages)
    assert not second.changed
    assert second.messages == first.messages
    assert [r.kind for r in second.records] == [r.kind for r in first.records]
    text = content_text(first.messages[2].content)
    assert sum(text.count(g) for g in GUIDANCE.values()) == 1


@fuzz(200)
@given(
    st.dictionaries(st.sampled_from(["message", "code", "status", "detail"]), json_values, max_size=3),
    st.sampled_from(["Forbidden", "Rate limit exceeded", "Invalid arguments", "ECONNREFUSED", "x"]),
    st.sampled_from(["c1", "c3", "abstract"]),
)
def test_json_error_results_are_idempotent_in_every_form(extra: dict[str, Any], word: str, form: str) -> None:
    content = json.dumps({"error": {**extra, "message": word}})
    messages = [
        Message("user", "task"),
        Message("assistant", "", tool_calls=(ToolCall("c1", "f", {"a": 1}),)),
        Message("tool", content, tool_call_id="c1", name="f"),
    ]
    first = ToolErrorLayer(form=form).rewrite(messages)
    second = ToolErrorLayer(form=form).rewrite(first.messages)
    assert second.messages == first.messages
    if form != "abstract":  # abstract removed the failure: nothing is left to record
        assert [r.kind for r in second.records] == [r.kind for r in first.records]


# -- many parallel calls (behaviour; the speed is in benchmarks/bench_parallel_calls.py) ----


def test_thousands_of_parallel_calls_stay_paired() -> None:
    n = 4000
    calls = tuple(ToolCall(f"call_{i % 1000}" if i % 3 else None, "f", {"i": i}) for i in range(n))
    messages = [Message("user", "t"), Message("assistant", "", tool_calls=calls)]
    messages += [
        Message("tool", "Error: 403 Forbidden" if i % 7 == 0 else "ok", tool_call_id=c.id, name="f")
        for i, c in enumerate(calls)
    ]
    for form in ("c1", "c4"):
        out = ToolErrorLayer(form=form).rewrite(messages).messages
        assistant = next(m for m in out if m.role == "assistant")
        assert len(assistant.tool_calls) == sum(m.role == "tool" for m in out)
    assert sys.getrecursionlimit() >= 1000


# -- hostile argument objects -------------------------------------------------------------------


class RaisingRepr:
    def __repr__(self) -> str:
        raise _Boom("repr")


def _cyclic() -> dict[str, Any]:
    d: dict[str, Any] = {"a": 1}
    d["self"] = d
    return d


@pytest.mark.parametrize(
    "arguments",
    [
        {"a": RaisingRepr()},
        _cyclic(),
        {"x": "y" * 1_000_000},
        [RaisingRepr()],
        RaisingRepr(),
        {"n": float("nan")},
    ],
    ids=["raising repr", "cyclic", "huge", "list", "object", "nan"],
)
@pytest.mark.parametrize("form", FORMS)
def test_hostile_arguments_never_break_a_rewrite(arguments: Any, form: str) -> None:
    messages = [
        Message("user", "task"),
        Message("assistant", "", tool_calls=(ToolCall("c1", "f", arguments),)),
        Message("tool", "Error: 403 Forbidden", tool_call_id="c1", name="f"),
    ]
    result = ToolErrorLayer(form=form).rewrite(messages)
    assert result.error is None
    assert result.changed == (form != "c0")
    for message in result.messages:
        assert len(content_text(message.content)) < 10_000
