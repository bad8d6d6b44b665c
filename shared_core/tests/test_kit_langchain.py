"""Kit additions from the LangChain adapter: TextVerdicts (verdicts kept by run and exact
result text), invalid_call_verdict (a call the framework itself marked invalid),
decision_step_failed (the core's answer to "can a rewrite change this?"), the rewrite of a
framework's own list, provider fields without removed calls, tool_raised, hinted_safety
and Layers.for_tools."""

from __future__ import annotations

import dataclasses
import gc
import threading
import warnings

import pytest
from toolerr import FailureLedger, Message, ToolCall, ToolErrorLayer, ToolLoopError, Verdict
from toolerr.adapters import (
    CALL_BLOCK_TYPES,
    Layers,
    TextVerdicts,
    chat_raw_arguments,
    decision_step_failed,
    hinted_safety,
    invalid_call_verdict,
    origin_of,
    restore_objects,
    rewrite_objects,
    rewrite_tail,
    safety_from_annotations,
    tool_raised,
    weak_origin,
    without_call_blocks,
    without_chat_calls,
)

TEXT = "Error: HTTPStatusError: upstream said no"
TRANSIENT = Verdict(failed=True, kind="transient", rule="http:503", detection="exception")
FATAL = Verdict(failed=True, kind="unrecoverable", rule="http:401", detection="exception")


def test_text_verdicts_are_given_back_in_their_run_for_the_exact_text_only() -> None:
    verdicts = TextVerdicts()
    run_a, run_b = object(), object()
    verdicts.put(run_a, TEXT, TRANSIENT)
    assert verdicts.get(run_a, TEXT) == TRANSIENT
    assert verdicts.get(run_b, TEXT) is None
    assert verdicts.get(None, TEXT) is None
    assert verdicts.get(run_a, TEXT + " ") is None
    verdicts.put(None, TEXT, FATAL)  # no run: nothing kept
    assert verdicts.get(run_a, TEXT) == TRANSIENT


def test_a_key_scope_counts_by_value_and_an_object_scope_by_identity() -> None:
    verdicts = TextVerdicts()
    verdicts.put(("thread_id", "t1"), TEXT, FATAL)
    assert verdicts.get(("thread_id", "t1"), TEXT) == FATAL
    assert verdicts.get(("thread_id", "t2"), TEXT) is None


def test_one_text_with_two_verdicts_in_one_run_gives_none() -> None:
    verdicts = TextVerdicts()
    run = object()
    verdicts.put(run, TEXT, TRANSIENT)
    verdicts.put(run, TEXT, TRANSIENT)
    assert verdicts.get(run, TEXT) == TRANSIENT
    verdicts.put(run, TEXT, FATAL)
    assert verdicts.get(run, TEXT) is None
    verdicts.put(run, TEXT, TRANSIENT)  # ambiguous stays ambiguous
    assert verdicts.get(run, TEXT) is None


def test_text_verdicts_are_bounded_and_keep_no_text() -> None:
    verdicts = TextVerdicts(size=2)
    run = object()
    for text in ("one", "two", "three"):
        verdicts.put(run, text * 1000, TRANSIENT)
    assert verdicts.get(run, "one" * 1000) is None
    assert verdicts.get(run, "three" * 1000) == TRANSIENT
    assert not any(isinstance(part, str) for key in verdicts._items._items for part in key)


def test_text_verdicts_from_many_threads() -> None:
    verdicts = TextVerdicts()
    run = object()

    def put(n: int) -> None:
        for i in range(200):
            verdicts.put(run, f"{TEXT} {n} {i}", TRANSIENT)

    threads = [threading.Thread(target=put, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(verdicts.get(run, f"{TEXT} {n} 199") == TRANSIENT for n in range(4))


def test_invalid_call_verdict_is_a_fixable_malformed_call_of_its_client() -> None:
    verdict = invalid_call_verdict("langchain")
    assert verdict == Verdict(
        failed=True,
        kind="fixable",
        rule="langchain:invalid-tool-call",
        detection="langchain:invalid_tool_calls",
        family="malformed_arguments",
    )
    # Carried on the converted message, it wins over detection of the result's text.
    message = Message(
        role="tool", content="Tool call f could not be executed", tool_call_id="c1", verdict=verdict
    )
    assert ToolErrorLayer().inspect(message) is verdict


def test_decision_step_failed_asks_the_core_for_the_step_and_its_verdicts() -> None:
    layer = ToolErrorLayer()
    call = Message(role="assistant", content="", tool_calls=(ToolCall("c1", "read_file", {"path": "/x"}),))
    failed = Message(
        role="tool",
        content="PermissionError: [Errno 13] Permission denied: '/x'",
        tool_call_id="c1",
        is_error=True,
    )
    ok = Message(role="tool", content="fine", tool_call_id="c1")
    assert decision_step_failed(layer, [call, failed])
    assert not decision_step_failed(layer, [call, ok])
    assert not decision_step_failed(layer, [Message(role="user", content="hi")])  # no step
    assert not decision_step_failed(layer, [call])  # no result yet
    # a verdict the message carries counts; a duplicate result does not
    assert decision_step_failed(layer, [call, dataclasses.replace(ok, verdict=FATAL)])
    assert not decision_step_failed(layer, [call, ok, failed])
    # only the tail is needed: the same answer as for the whole conversation
    history = [Message(role="user", content="go"), call, failed]
    assert decision_step_failed(layer, history) == decision_step_failed(layer, history[1:])


# -- weak_origin, origin_of, rewrite_tail, restore_objects ------------------------------------


class _Item:
    """A framework message stand-in: a role and a text."""

    def __init__(self, role: str, text: str, call: str | None = None, error: bool = False) -> None:
        self.role, self.text, self.call, self.error = role, text, call, error


def _neutral(items: object) -> list[Message]:
    out = []
    for item in items:  # type: ignore[attr-defined]
        if item.role == "assistant":
            calls = (ToolCall(id=item.call, name="fetch", arguments={}),) if item.call else ()
            out.append(
                Message(role="assistant", content=item.text, tool_calls=calls, origin=weak_origin(item))
            )
        else:
            out.append(
                Message(
                    role=item.role,
                    content=item.text,
                    tool_call_id=item.call,
                    name="fetch" if item.role == "tool" else None,
                    is_error=item.error,
                    origin=weak_origin(item),
                )
            )
    return out


def test_weak_origin_is_weak_where_it_can_be() -> None:
    item = _Item("user", "hi")
    message = Message(role="user", content="hi", origin=weak_origin(item))
    assert origin_of(message) is item
    del item
    gc.collect()
    assert origin_of(message) is None
    plain = Message(role="user", content="hi", origin=weak_origin("text"))  # str takes no weakref
    assert origin_of(plain) == "text"
    assert origin_of(Message(role="user", content="hi")) is None


def test_rewrite_tail_converts_only_the_tail_when_the_step_did_not_fail() -> None:
    seen: list[int] = []

    def convert(items: object) -> list[Message]:
        seen.append(len(items))  # type: ignore[arg-type]
        return _neutral(items)

    layer = ToolErrorLayer()
    history = [_Item("user", "go"), _Item("assistant", "", "c1"), _Item("tool", "ok", "c1")]
    items = [*history, _Item("assistant", "", "c2"), _Item("tool", "sunny", "c2")]
    assert rewrite_tail(layer, items, lambda item: item.role, convert) is None
    assert seen == [2]
    assert rewrite_tail(layer, [_Item("user", "go")], lambda item: item.role, convert) is None


def test_rewrite_tail_and_restore_objects_map_back_to_the_originals() -> None:
    layer = ToolErrorLayer()
    items = [
        _Item("user", "go"),
        _Item("assistant", "", "c1"),
        _Item("tool", "Error: ConnectionRefusedError: [Errno 111] Connection refused", "c1", error=True),
    ]
    rewritten = rewrite_tail(layer, items, lambda item: item.role, _neutral)
    assert rewritten is not None
    given, result = rewritten
    assert len(given) == 3
    assert result.changed

    def rebuild(message: Message, before: Message | None, origin: object) -> object:
        return ("rebuilt", message.content, before is not None, origin)

    out = restore_objects(result.messages, given, rebuild)
    assert out[:3] == items and all(a is b for a, b in zip(out, items, strict=False))
    assert out[3:] == [("rebuilt", result.messages[3].content, False, None)]  # the note, new
    changed = dataclasses.replace(given[2], content="changed")  # same origin, new content
    assert restore_objects([given[0], changed], given, rebuild) == [
        items[0],
        ("rebuilt", "changed", True, items[2]),
    ]


# -- chat_raw_arguments, without_call_blocks --------------------------------------------------


def test_chat_raw_arguments_reads_the_argument_text_by_call_id() -> None:
    wire = [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1'}},
        {"id": "c2", "function": {"name": "g", "arguments": {"parsed": True}}},  # not text
        {"function": {"arguments": "{}"}},  # no id
        "junk",
    ]
    assert chat_raw_arguments(wire) == {"c1": '{"a": 1'}
    assert chat_raw_arguments(None) == {}
    assert chat_raw_arguments({"id": "c1"}) == {}


def test_without_call_blocks_drops_only_the_blocks_of_calls_not_kept() -> None:
    text = {"type": "text", "text": "Let me look."}
    blocks = [
        text,
        {"type": "tool_use", "id": "c1", "name": "f", "input": {}},
        {"type": "function_call", "call_id": "c2", "name": "g", "arguments": "{}"},
        {"type": "tool_call", "id": "c3", "name": "h", "args": {}},
        "plain text",
    ]
    assert without_call_blocks(blocks, {"c1"}) == [text, blocks[1], "plain text"]
    assert without_call_blocks(blocks, {"c2", "c3"}) == [text, blocks[2], blocks[3], "plain text"]
    assert "server_tool_call" in CALL_BLOCK_TYPES


def test_rewrite_objects_gives_the_new_objects_and_the_ledger_only_when_something_changed() -> None:
    layer = ToolErrorLayer()
    restored: list[int] = []

    def restore(messages: list[Message], given: list[Message]) -> list[object]:
        restored.append(len(given))
        return restore_objects(messages, given, lambda message, before, origin: message.content)

    calm = [_Item("user", "go"), _Item("assistant", "", "c1"), _Item("tool", "sunny", "c1")]
    assert rewrite_objects(layer, calm, lambda item: item.role, _neutral, restore) == (None, None)
    failed = [
        *calm[:2],
        _Item("tool", "Error: ConnectionRefusedError: [Errno 111] refused", "c1", error=True),
    ]
    out, ledger = rewrite_objects(layer, failed, lambda item: item.role, _neutral, restore)
    assert out is not None and ledger is not None and restored == [3]
    assert out[:2] == failed[:2] and out[0] is failed[0]  # unchanged: the very objects
    assert isinstance(ledger, FailureLedger)


# -- without_chat_calls, tool_raised, hinted_safety, Layers.for_tools -------------------------


def test_without_chat_calls_keeps_the_order_of_the_fields_and_drops_an_empty_list() -> None:
    fields = {"a": 1, "tool_calls": [{"id": "c1"}, {"id": "c2"}, "junk"], "z": 2}
    kept = without_chat_calls(fields, {"c2"})
    assert kept == {"a": 1, "tool_calls": [{"id": "c2"}, "junk"], "z": 2}
    assert kept is not None and list(kept) == ["a", "tool_calls", "z"]
    assert without_chat_calls({"a": 1, "tool_calls": [{"id": "c1"}]}, set()) == {"a": 1}
    assert without_chat_calls({"a": 1}, set()) is None
    assert fields["tool_calls"] == [{"id": "c1"}, {"id": "c2"}, "junk"]  # not changed


class _Interrupt(Exception):
    """A framework's control flow, raised through a tool."""


def test_tool_raised_catches_a_tools_exception_and_lets_control_flow_leave() -> None:
    with tool_raised() as raised:
        raise KeyError("missing")
    assert isinstance(raised.error, KeyError)
    with tool_raised() as raised:
        pass
    assert raised.error is None
    leaving = [
        _Interrupt("x"),
        ValueError("resume"),
        ToolLoopError.__new__(ToolLoopError),
        KeyboardInterrupt(),
    ]
    for error in leaving:
        with pytest.raises(type(error)), tool_raised((_Interrupt,), lambda e: str(e) == "resume"):
            raise error


def test_hinted_safety_reads_hints_at_the_top_level_or_under_annotations_only() -> None:
    assert hinted_safety({"readOnlyHint": True}) == "read_only"
    assert hinted_safety({"annotations": {"idempotentHint": True}}) == "idempotent"
    assert hinted_safety({"destructiveHint": True}) == "unsafe"
    assert hinted_safety({"toolerr_safety": "read_only"}) is None
    assert hinted_safety(None) is None and hinted_safety(["readOnlyHint"]) is None


class _Annotations2:
    """mcp 2.x ``ToolAnnotations`` as FastMCP leaves it: snake-case fields, and camel-case
    aliases that warn when read (an error under this suite's ``filterwarnings``)."""

    def __init__(self, **hints: object) -> None:
        self.title = None
        for name in ("read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint"):
            setattr(self, name, hints.get(name))

    def __getattr__(self, name: str) -> object:
        if name.endswith("Hint"):
            warnings.warn(
                f"Accessing `ToolAnnotations.{name}` is deprecated", DeprecationWarning, stacklevel=2
            )
        raise AttributeError(name)


class _Annotations1:
    """mcp 1.x ``ToolAnnotations``: camel-case fields only."""

    def __init__(self, **hints: object) -> None:
        for name in ("readOnlyHint", "destructiveHint", "idempotentHint"):
            setattr(self, name, hints.get(name))


def test_safety_from_annotation_objects_reads_snake_case_first() -> None:
    """An mcp 2.x object is read by its snake-case fields (a camel-case alias that warns is
    never touched, even for a hint left unset); an mcp 1.x object by its camel-case ones."""
    assert safety_from_annotations(_Annotations2(read_only_hint=True)) == "read_only"
    assert safety_from_annotations(_Annotations2(idempotent_hint=True)) == "idempotent"
    assert safety_from_annotations(_Annotations2(destructive_hint=True)) == "unsafe"
    assert safety_from_annotations(_Annotations2(read_only_hint=False)) == "unsafe"
    assert safety_from_annotations(_Annotations2()) is None
    assert safety_from_annotations(_Annotations1(readOnlyHint=True)) == "read_only"
    assert safety_from_annotations(_Annotations1(idempotentHint=True)) == "idempotent"
    assert safety_from_annotations(_Annotations1(destructiveHint=True)) == "unsafe"
    assert safety_from_annotations(_Annotations1()) is None
    assert safety_from_annotations({"read_only_hint": True}) == "read_only"


class _Tool:
    def __init__(self, name: object, metadata: object) -> None:
        self.name, self.metadata = name, metadata


def test_layers_for_tools_derives_the_safety_the_tools_declare() -> None:
    base = ToolErrorLayer(tool_safety={"fetch": "unsafe"})
    layers = Layers(base)
    assert layers.for_tools([_Tool("x", None), _Tool(None, {"toolerr_safety": "read_only"})]) is base
    layer = layers.for_tools([_Tool("get", {"toolerr_safety": "read_only"}), _Tool("fetch", {})])
    assert layer is not base and layer.policy.tool_safety["get"] == "read_only"
    assert layer.policy.tool_safety["fetch"] == "unsafe"
    hinted = layers.for_tools([_Tool("get", {"readOnlyHint": True})], hinted_safety)
    assert hinted.policy.tool_safety["get"] == "read_only"
    assert layers.for_tools([_Tool("get", {"readOnlyHint": True})]) is base  # not read by default
