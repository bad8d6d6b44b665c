"""LangChain messages <-> the neutral toolerr conversation, and verdicts kept on messages.

Conversion is lossless where it matters: every neutral message keeps its LangChain
original in ``origin``; after a rewrite, unchanged messages are mapped back to those
very objects and only new or changed ones are built (copies of the originals, so ids,
metadata and provider fields survive). The adapter converts through a cache keyed by
message identity (:func:`neutral`), so a long run converts each message once.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langgraph.config import get_config
from langgraph.runtime import get_runtime
from toolerr import FailureLedger, Message, ToolCall, ToolErrorLayer, Verdict
from toolerr.adapters import LRUCache, Role

CLIENT = "langchain"
"""The client name toolerr uses for LangChain / LangGraph templates."""

METADATA_KEY = "toolerr"
"""Key under ``ToolMessage.response_metadata`` where the classification of a failed call is kept."""

_UNKNOWN_TOOL = "unknown"
"""LangChain's own name for an invalid tool call without a name (``_invalid_tool_call_message``)."""

_UNSET: Any = object()

_CALL_BLOCK_TYPES = frozenset(
    {"tool_use", "tool_call", "invalid_tool_call", "function_call", "server_tool_call"}
)
"""Content block types that restate a tool call inside an AIMessage's content."""


# -- verdicts kept on messages ----------------------------------------------------------


def verdict_to_metadata(verdict: Verdict) -> dict[str, Any]:
    """What is stored under ``response_metadata["toolerr"]``: :meth:`toolerr.Verdict.to_dict`."""
    return verdict.to_dict()


def verdict_from_metadata(data: Any) -> Verdict | None:
    """The verdict stored by :func:`verdict_to_metadata`, or ``None`` when ``data`` is not one."""
    try:
        return Verdict.from_dict(data)
    except ValueError:
        return None


def verdict_of(message: BaseMessage) -> Verdict | None:
    """The toolerr classification kept on a ``ToolMessage`` (``None`` when it holds none)."""
    metadata = getattr(message, "response_metadata", None)
    if not isinstance(metadata, Mapping):
        return None
    return verdict_from_metadata(metadata.get(METADATA_KEY))


def with_verdict(message: ToolMessage, verdict: Verdict) -> ToolMessage:
    """A copy of ``message`` that keeps ``verdict`` in its ``response_metadata``."""
    metadata = {**message.response_metadata, METADATA_KEY: verdict_to_metadata(verdict)}
    return message.model_copy(update={"response_metadata": metadata})


def graph_run() -> object | None:
    """The run scope of the LangGraph invocation the caller runs in, for verdicts that
    are kept by result text (:class:`TextVerdicts`): the invocation's ``RunControl`` (one
    per ``invoke``/``stream``, shared by its subgraphs and nodes), else the configured
    ``thread_id``; ``None`` outside a graph run (then nothing is reused)."""
    try:
        configurable = get_config().get("configurable")
        runtime = get_runtime()
    except (RuntimeError, KeyError):  # not inside a graph run: no run to scope to
        return None
    if not isinstance(configurable, Mapping):
        return None
    control: object | None = getattr(runtime, "control", None)  # none before RunControl
    if control is not None:
        return control
    thread = configurable.get("thread_id")
    if isinstance(thread, (str, int)) and not isinstance(thread, bool):
        return ("thread_id", thread)
    return None


_AMBIGUOUS = object()
"""A text learned with two different verdicts in one run: no verdict is reused for it."""


class TextVerdicts:
    """Verdicts learned from exceptions where no call id is at hand (LangGraph's
    ``handle_tool_errors`` only sees the exception), kept per run scope
    (:func:`graph_run`) and keyed by the exact result text they produced. A verdict is
    only given back in the run it was learned in, for a result whose text equals the one
    it was learned for; a text that two exceptions of one run produced with different
    verdicts gives none (which result is whose cannot be told). Bounded (the latest
    ``size`` texts of all runs); a text is kept as its length and hash, not itself (an
    error text may be megabytes); thread-safe.

    A run scope is an object (held while its entries are kept, and compared by identity,
    so that its id cannot be reused meanwhile) or a tuple key (compared by value)."""

    def __init__(self, size: int = 1024) -> None:
        self._items: LRUCache[tuple[Hashable, int, int], tuple[object, object]] = LRUCache(size)
        self._lock = threading.Lock()  # get-then-put of one text is one step

    @staticmethod
    def _key(run: object, text: str) -> tuple[Hashable, int, int]:
        return (run if isinstance(run, tuple) else ("id", id(run)), len(text), hash(text))

    @staticmethod
    def _same(kept: object, run: object) -> bool:
        return kept is run or (isinstance(run, tuple) and kept == run)

    def put(self, run: object | None, text: str, verdict: Verdict) -> None:
        """Keep ``verdict`` for ``text`` in run scope ``run`` (nothing is kept without one)."""
        if run is None:
            return
        key = self._key(run, text)
        with self._lock:
            entry = self._items.get(key)
            known = entry[1] if entry is not None and self._same(entry[0], run) else None
            self._items.put(key, (run, verdict if known is None or known == verdict else _AMBIGUOUS))

    def get(self, run: object | None, text: str) -> Verdict | None:
        """The verdict kept for exactly ``text`` in run scope ``run`` (``None``: none, or
        an ambiguous one)."""
        if run is None:
            return None
        with self._lock:
            entry = self._items.get(self._key(run, text))
        if entry is None or not self._same(entry[0], run):
            return None
        return entry[1] if isinstance(entry[1], Verdict) else None


TEXT_VERDICTS = TextVerdicts()


INVALID_CALL_VERDICT = Verdict(
    failed=True,
    kind="fixable",
    rule="langchain:invalid-tool-call",
    detection="langchain:invalid_tool_calls",
    family="malformed_arguments",
)
"""The failed result of a call LangChain itself marked invalid (``AIMessage.invalid_tool_calls``:
the model's argument text did not parse, e.g. it was truncated). Structural evidence, like
an exception object; create_agent answers such a call with ``Tool call {name} with id {id}
could not be executed - arguments were malformed or truncated.``, a text the core's
LangChain templates do not know yet."""


def restore_verdicts(
    layer: ToolErrorLayer, messages: Sequence[BaseMessage], run: object | None = None
) -> None:
    """Give the layer, in run scope ``run``, every classification kept with the messages
    (in their metadata, or learned by :func:`toolerr_langchain.handle_tool_errors`), so it
    uses the exception evidence even after a checkpoint was restored in another process;
    and the verdict of error results that answer calls LangChain marked invalid. Each is
    remembered for its message's content. A verdict learned by ``handle_tool_errors`` is
    only taken in the graph run it was learned in (:func:`graph_run`)."""
    invalid: set[str] = set()
    scope: object | None = _UNSET
    for message in messages:
        if isinstance(message, AIMessage):
            invalid = {call_id for call in message.invalid_tool_calls if (call_id := call.get("id"))}
            continue
        if not isinstance(message, ToolMessage) or message.status != "error":
            continue
        verdict = verdict_of(message)
        if verdict is None and isinstance(message.content, str):
            if scope is _UNSET:
                scope = graph_run()
            verdict = TEXT_VERDICTS.get(scope, message.content)
        call_id, content = message.tool_call_id, message.content
        if verdict is None and call_id in invalid and layer.recall(call_id, content, run=run) is None:
            verdict = INVALID_CALL_VERDICT
        if verdict is not None and layer.recall(call_id, content, run=run) != verdict:
            layer.remember(call_id, verdict, content, run=run)


# -- LangChain -> neutral --------------------------------------------------------------


def _raw_arguments(message: AIMessage) -> dict[str, str]:
    """The argument text the model wrote, by call id, where the provider kept it
    (OpenAI-style ``additional_kwargs["tool_calls"]``)."""
    raw: dict[str, str] = {}
    entries = message.additional_kwargs.get("tool_calls")
    if not isinstance(entries, list):
        return raw
    for entry in entries:
        if not isinstance(entry, Mapping):
            continue
        function = entry.get("function")
        call_id = entry.get("id")
        if isinstance(call_id, str) and isinstance(function, Mapping):
            arguments = function.get("arguments")
            if isinstance(arguments, str):
                raw[call_id] = arguments
    return raw


def _assistant(message: AIMessage, origin: Any) -> Message:
    # A call without id (``"id": None``) is answered by a ToolMessage with ``tool_call_id=""``
    # (it must be a string): that is its id here too, so the two pair.
    raw = _raw_arguments(message) if message.additional_kwargs else {}
    calls: list[ToolCall] = [
        ToolCall(
            id=call.get("id") or "",
            name=call.get("name") or _UNKNOWN_TOOL,
            arguments=call.get("args", {}),
            raw_arguments=raw.get(call.get("id") or ""),
        )
        for call in message.tool_calls
    ]
    calls.extend(
        ToolCall.from_raw(call.get("id") or "", call.get("name") or _UNKNOWN_TOOL, call.get("args") or "")
        for call in message.invalid_tool_calls
    )
    return Message(role="assistant", content=message.content, tool_calls=tuple(calls), origin=origin)


_CHAT_ROLES: Mapping[str, Role] = {
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "system": "system",
    "developer": "system",
}


def to_toolerr(message: Any) -> Message:
    """One LangChain message as a neutral message (``origin`` is the LangChain object).

    Tool messages get ``client="langchain"`` and ``is_error = status == "error"``. A
    message of a type toolerr has no role for is carried as an opaque system message:
    the forms never change it.
    """
    return _convert(message, message)


def _convert(message: Any, origin: Any) -> Message:
    if isinstance(message, ToolMessage):
        return Message(
            role="tool",
            content=message.content,
            tool_call_id=message.tool_call_id,
            name=message.name,
            is_error=message.status == "error",
            client=CLIENT,
            origin=origin,
        )
    if isinstance(message, AIMessage):
        return _assistant(message, origin)
    if isinstance(message, HumanMessage):
        return Message(role="user", content=message.content, origin=origin)
    if isinstance(message, SystemMessage):
        return Message(role="system", content=message.content, origin=origin)
    if isinstance(message, FunctionMessage):
        return Message(role="tool", content=message.content, name=message.name, client=CLIENT, origin=origin)
    if isinstance(message, ChatMessage) and message.role in _CHAT_ROLES:
        return Message(role=_CHAT_ROLES[message.role], content=message.content, origin=origin)
    return Message(role="system", content=getattr(message, "content", ""), origin=origin)


def origin_of(message: Message) -> Any:
    """The LangChain message a neutral message came from (``None`` for a new one)."""
    origin = message.origin
    return origin() if isinstance(origin, weakref.ref) else origin


def _unchanged(converted: Message, message: Any) -> bool:
    if converted.content is not getattr(message, "content", None):
        return False
    if isinstance(message, ToolMessage):
        return (
            converted.is_error == (message.status == "error")
            and converted.tool_call_id == message.tool_call_id
        )
    if isinstance(message, AIMessage):
        return len(converted.tool_calls) == len(message.tool_calls) + len(message.invalid_tool_calls)
    return True


class _Conversions:
    """Neutral messages by LangChain message identity, each made once while its message
    lives: a model call of a long run converts only the messages that are new. The
    neutral message refers to its origin weakly, so the cache keeps nothing alive."""

    def __init__(self) -> None:
        self._items: dict[int, Message] = {}

    def get(self, message: Any) -> Message:
        key = id(message)
        cached = self._items.get(key)
        if cached is not None and origin_of(cached) is message and _unchanged(cached, message):
            return cached
        items = self._items
        try:
            ref = weakref.ref(message, lambda _ref: items.pop(key, None))
        except TypeError:  # not weakly referable: convert every time
            return to_toolerr(message)
        converted = _convert(message, ref)
        items[key] = converted
        return converted


_CONVERSIONS = _Conversions()


def neutral(message: Any) -> Message:
    """:func:`to_toolerr` through the conversion cache (``origin`` is a weak reference;
    read it with :func:`origin_of`)."""
    return _CONVERSIONS.get(message)


# -- neutral -> LangChain --------------------------------------------------------------


def _block_call_id(block: Any) -> Any:
    if isinstance(block, Mapping):
        return block.get("id") or block.get("call_id")
    return None


def _rebuilt_assistant(original: AIMessage, converted: Message, kept: Sequence[ToolCall]) -> AIMessage:
    """``original`` with only the ``kept`` calls (of its neutral form ``converted``): the
    parsed calls, the invalid calls, the provider's raw calls and call content blocks all
    agree, so no result is left without its call or a call without its result."""
    positions = {id(call): index for index, call in enumerate(converted.tool_calls)}
    valid_count = len(original.tool_calls)
    valid = []
    invalid = []
    for call in kept:
        index = positions.get(id(call))
        if index is None:
            continue
        if index < valid_count:
            valid.append(original.tool_calls[index])
        else:
            invalid.append(original.invalid_tool_calls[index - valid_count])
    kept_ids = {call.get("id") for call in (*valid, *invalid)}
    update: dict[str, Any] = {"tool_calls": valid, "invalid_tool_calls": invalid}
    raw_calls = original.additional_kwargs.get("tool_calls")
    if isinstance(raw_calls, list):
        remaining = [c for c in raw_calls if not isinstance(c, Mapping) or c.get("id") in kept_ids]
        additional = dict(original.additional_kwargs)
        if remaining:
            additional["tool_calls"] = remaining
        else:
            additional.pop("tool_calls", None)
        update["additional_kwargs"] = additional
    if isinstance(original.content, list):
        update["content"] = [
            block
            for block in original.content
            if not (
                isinstance(block, Mapping)
                and block.get("type") in _CALL_BLOCK_TYPES
                and _block_call_id(block) not in kept_ids
            )
        ]
    return original.model_copy(update=update)


def _new_message(message: Message) -> BaseMessage:
    if message.role == "user":
        return HumanMessage(content=message.content)
    if message.role == "system":
        return SystemMessage(content=message.content)
    if message.role == "tool":
        return ToolMessage(
            content=message.content,
            tool_call_id=message.tool_call_id or "",
            name=message.name,
            status="error" if message.is_error else "success",
        )
    return AIMessage(
        content=message.content,
        tool_calls=[
            {
                "name": call.name,
                "args": call.arguments if isinstance(call.arguments, dict) else {},
                "id": call.id,
            }
            for call in message.tool_calls
        ],
    )


def from_toolerr(messages: Sequence[Message], converted: Sequence[Message]) -> list[Any]:
    """The LangChain messages for a rewritten neutral list.

    ``converted`` is the neutral list the rewrite was given: messages of ``messages`` that
    are among them (by identity) become their LangChain originals again; changed ones are
    copies of their originals with the new content or calls; new ones are built.
    """
    inputs = {id(message): message for message in converted}
    by_origin = {id(origin_of(message)): message for message in converted if message.origin is not None}
    out: list[Any] = []
    for message in messages:
        if inputs.get(id(message)) is message:
            out.append(origin_of(message))
            continue
        origin = origin_of(message)
        if isinstance(origin, AIMessage) and message.role == "assistant":
            original = by_origin.get(id(origin))
            if original is not None and original.tool_calls != message.tool_calls:
                out.append(_rebuilt_assistant(origin, original, message.tool_calls))
                continue
        if isinstance(origin, BaseMessage):
            out.append(origin.model_copy(update={"content": message.content}))
            continue
        out.append(_new_message(message))
    return out


def _decision_step_failed(layer: ToolErrorLayer, messages: Sequence[Any], run: object | None) -> bool:
    """Whether a tool result after the last assistant message is a failure.

    Only such a conversation can change (the contract's "Delivery forms": requests with no failure
    at the decision step pass through unchanged), so the whole conversation is converted
    and replayed only then: the cost of a step without a failure does not grow with the
    length of the run.
    """
    results: list[Message] = []
    for index in range(len(messages) - 1, -1, -1):
        converted = neutral(messages[index])
        if converted.role == "assistant":
            break
        if converted.role == "tool":
            results.append(converted)
    else:
        return False
    if not results:
        return False
    restore_verdicts(layer, messages[index:], run)
    return any(layer.inspect(result, run=run).failed for result in results)


def rewrite_with(
    layer: ToolErrorLayer, messages: Sequence[Any], run: object | None = None
) -> list[Any] | None:
    """Apply the layer's form to a LangChain message list for one model call.

    Returns the new list, or ``None`` when nothing changed (the caller keeps its own
    list, byte for byte). Raises what the layer raises (:class:`toolerr.ToolLoopError`
    for loop action ``stop``) and whatever conversion raises; callers fail open.
    """
    return rewrite_and_ledger(layer, messages, run)[0]


def rewrite_and_ledger(
    layer: ToolErrorLayer, messages: Sequence[Any], run: object | None = None
) -> tuple[list[Any] | None, FailureLedger | None]:
    """:func:`rewrite_with`, and the failed-call ledger of the conversation when its
    decision step failed (``None`` otherwise): what a decoder should ban, including calls
    that the form removed from the model's view."""
    if not _decision_step_failed(layer, messages, run):
        return None, None
    restore_verdicts(layer, messages, run)
    converted = [neutral(message) for message in messages]
    result = layer.rewrite(converted, run=run)
    if not result.changed:
        return None, result.ledger
    return from_toolerr(result.messages, converted), result.ledger
