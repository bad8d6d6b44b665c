"""LangChain messages <-> the neutral toolerr conversation, and verdicts kept on messages.

Conversion is cached by message identity (:func:`neutral`); unchanged messages map back to
their very LangChain objects, changed ones to copies of them (ids and metadata survive).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
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
from toolerr.adapters import (
    ConversionCache,
    Role,
    TextVerdicts,
    chat_raw_arguments,
    invalid_call_verdict,
    restore_objects,
    rewrite_objects,
    weak_origin,
    without_call_blocks,
    without_chat_calls,
)
from toolerr.adapters import origin_of as origin_of  # the kit's, read where conversions are

CLIENT = "langchain"
"""The client name toolerr uses for LangChain / LangGraph templates."""

METADATA_KEY = "toolerr"
"""Key under ``ToolMessage.response_metadata`` where the classification of a failed call is kept."""

_UNKNOWN_TOOL = "unknown"
"""LangChain's own name for an invalid tool call without a name (``_invalid_tool_call_message``)."""

_UNSET: Any = object()

INVALID_CALL_VERDICT = invalid_call_verdict(CLIENT)
"""The failed result of a call LangChain marked invalid (``AIMessage.invalid_tool_calls``)."""

TEXT_VERDICTS = TextVerdicts()
"""Verdicts :func:`toolerr_langchain.handle_tool_errors` learned, by graph run and result text."""

CLASSIFIER = ToolErrorLayer(client=CLIENT)
"""Classifies the exceptions of ``handle_tool_errors`` and ``retry_on`` (the default policy)."""


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
    """The run scope of the LangGraph invocation the caller runs in, for verdicts kept by
    result text (:data:`TEXT_VERDICTS`): the invocation's ``RunControl`` (one per
    ``invoke``/``stream``, shared by its subgraphs and nodes), else the configured
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


# -- LangChain -> neutral --------------------------------------------------------------


def _assistant(message: AIMessage, origin: Any) -> Message:
    # A call without id (``"id": None``) is answered by a ToolMessage with ``tool_call_id=""``
    # (it must be a string): that is its id here too, so the two pair.
    raw = chat_raw_arguments(message.additional_kwargs.get("tool_calls")) if message.additional_kwargs else {}
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

    Tool messages get ``client="langchain"`` and ``is_error = status == "error"``; a
    failed one carries the verdict kept on it (:func:`verdict_of`). A message of a type
    toolerr has no role for is carried as an opaque system message: the forms never
    change it.
    """
    return _convert(message, message)


def _convert(message: Any, origin: Any) -> Message:
    if isinstance(message, ToolMessage):
        failed = message.status == "error"
        return Message(
            role="tool",
            content=message.content,
            tool_call_id=message.tool_call_id,
            name=message.name,
            is_error=failed,
            client=CLIENT,
            origin=origin,
            verdict=verdict_of(message) if failed else None,
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


def _weakly(message: Any) -> Message:
    return _convert(message, weak_origin(message))


def _unchanged(message: Any, converted: Message) -> bool:
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


_CONVERSIONS = ConversionCache()


def neutral(message: Any) -> Message:
    """:func:`to_toolerr` through the conversion cache, by message identity (``origin`` is
    a weak reference: read it with :func:`origin_of`)."""
    return _CONVERSIONS.get_object(message, _weakly, _unchanged)


def conversation(messages: Sequence[Any], convert: Callable[[Any], Message] | None = None) -> list[Message]:
    """The neutral conversation of a LangChain message list (``convert``: :func:`neutral`).

    An error result that keeps no verdict of its own takes the one learned by
    :func:`toolerr_langchain.handle_tool_errors` for its text in this graph run, else, when
    it answers a call LangChain marked invalid, :data:`INVALID_CALL_VERDICT`."""
    convert = convert or neutral
    out: list[Message] = []
    invalid: frozenset[str] = frozenset()
    run: Any = _UNSET
    for message in messages:
        converted = convert(message)
        if isinstance(message, AIMessage):
            invalid = frozenset(i for call in message.invalid_tool_calls if (i := call.get("id")))
        elif converted.verdict is None and converted.is_error and isinstance(message, ToolMessage):
            verdict = None
            if isinstance(message.content, str):
                run = graph_run() if run is _UNSET else run
                verdict = TEXT_VERDICTS.get(run, message.content)
            if verdict is None and message.tool_call_id in invalid:
                verdict = INVALID_CALL_VERDICT
            if verdict is not None:
                converted = dataclasses.replace(converted, verdict=verdict)
        out.append(converted)
    return out


# -- neutral -> LangChain --------------------------------------------------------------


def _rebuilt_assistant(original: AIMessage, converted: Message, kept: Sequence[ToolCall]) -> AIMessage:
    """``original`` with only the ``kept`` calls (of its neutral form ``converted``): the
    parsed calls, the invalid calls, the provider's raw calls and call content blocks all
    agree, so no result is left without its call or a call without its result."""
    position = {id(call): index for index, call in enumerate(converted.tool_calls)}
    chosen = [position[id(call)] for call in kept if id(call) in position]
    count = len(original.tool_calls)  # the parsed calls come first, then the invalid ones
    valid = [original.tool_calls[index] for index in chosen if index < count]
    invalid = [original.invalid_tool_calls[index - count] for index in chosen if index >= count]
    kept_ids = {call.get("id") for call in (*valid, *invalid)}
    update: dict[str, Any] = {"tool_calls": valid, "invalid_tool_calls": invalid}
    additional = without_chat_calls(original.additional_kwargs, kept_ids)
    if additional is not None:
        update["additional_kwargs"] = additional
    if isinstance(original.content, list):
        update["content"] = without_call_blocks(original.content, kept_ids)
    return original.model_copy(update=update)


def _new_message(message: Message) -> BaseMessage:
    if message.role in ("user", "system"):
        return (HumanMessage if message.role == "user" else SystemMessage)(content=message.content)
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
    return restore_objects(messages, converted, _rebuilt)


def _rebuilt(message: Message, before: Message | None, origin: Any) -> Any:
    calls_changed = before is not None and before.tool_calls != message.tool_calls
    if isinstance(origin, AIMessage) and message.role == "assistant" and calls_changed:
        return _rebuilt_assistant(origin, before, message.tool_calls)  # type: ignore[arg-type]
    if isinstance(origin, BaseMessage):
        return origin.model_copy(update={"content": message.content})
    return _new_message(message)


def rewrite_and_ledger(
    layer: ToolErrorLayer, messages: Sequence[Any], run: object | None = None
) -> tuple[list[Any] | None, FailureLedger | None]:
    """:func:`toolerr.adapters.rewrite_objects` for a LangChain message list: the new list
    (``None`` when nothing changed) and the failed-call ledger when the decision step
    failed. Raises what conversion raises: callers fail open."""
    return rewrite_objects(layer, messages, _role, conversation, from_toolerr, run=run)


def _role(message: Any) -> str:
    """``assistant`` or not, read from the type (no conversion: the tail is converted once)."""
    if isinstance(message, AIMessage):
        return "assistant"
    is_chat = isinstance(message, ChatMessage)
    return "assistant" if is_chat and _CHAT_ROLES.get(message.role) == "assistant" else "other"
