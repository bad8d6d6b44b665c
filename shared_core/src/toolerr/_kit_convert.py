"""The adapter kit, conversions: a framework's objects behind neutral messages, the
rewrite of a framework's own list (only the tail converted unless its decision step
failed), and what OpenAI-chat-style calls carry. Exported from :mod:`toolerr.adapters`."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from ._kit import decision_step_failed
from ._layer import ToolErrorLayer
from ._ledger import FailureLedger
from ._records import Rewrite
from ._types import Message

__all__ = [
    "CALL_BLOCK_TYPES",
    "chat_raw_arguments",
    "origin_of",
    "restore_objects",
    "rewrite_objects",
    "rewrite_tail",
    "weak_origin",
    "without_call_blocks",
    "without_chat_calls",
]


def weak_origin(obj: Any) -> Any:
    """``obj`` as a neutral message's ``origin``: a weak reference where it takes one (a
    cached conversion then keeps the framework's object alive no longer than its owner),
    else the object itself. Read it back with :func:`origin_of`."""
    try:
        return weakref.ref(obj)
    except TypeError:  # not weakly referable
        return obj


def origin_of(message: Message) -> Any:
    """The framework object a neutral message came from (``None`` for a new message or a
    collected one), through a :func:`weak_origin` reference."""
    origin = message.origin
    return origin() if isinstance(origin, weakref.ref) else origin


def rewrite_tail(
    layer: ToolErrorLayer,
    items: Sequence[Any],
    role_of: Callable[[Any], str],
    convert: Callable[[Sequence[Any]], list[Message]],
    *,
    run: object | None = None,
) -> tuple[list[Message], Rewrite] | None:
    """Apply the layer's form to a framework's message list for one model call, converting
    no more of it than needed: the items from the last assistant message on first, and the
    rest only when a result of the decision step failed (a step without failure, the
    common case, costs the same in a long run) or once the layer quarantined a long result
    (:meth:`~toolerr.ToolErrorLayer.may_quarantine`: it is shown as its excerpt at every
    model call). Raises what conversion raises.

    Args:
        layer: the layer whose form applies.
        items: the framework's messages, oldest first.
        role_of: the neutral role of one item (called from the end, until ``assistant``).
        convert: a run of consecutive items as neutral messages.
        run: the run scope of the verdicts the layer remembers.

    Returns:
        ``None`` when the decision step holds no failure (nothing can change), else the
        neutral list the rewrite was given and the :class:`~toolerr.Rewrite` (map its
        messages back with :func:`restore_objects`).
    """
    start = len(items)
    while start and role_of(items[start - 1]) != "assistant":
        start -= 1
    tail = convert(items[start - 1 :] if start else ())
    if (
        not decision_step_failed(layer, tail, run=run)
        and not layer.may_quarantine()
        and not layer.wants_whole(tail, len(items), run=run)
    ):
        return None
    converted = convert(items[: start - 1]) + tail
    return converted, layer.rewrite(converted, run=run)


def rewrite_objects(
    layer: ToolErrorLayer,
    items: Sequence[Any],
    role_of: Callable[[Any], str],
    convert: Callable[[Sequence[Any]], list[Message]],
    restore: Callable[[list[Message], list[Message]], list[Any]],
    *,
    run: object | None = None,
) -> tuple[list[Any] | None, FailureLedger | None]:
    """:func:`rewrite_tail` mapped back to the framework's objects, for one model call.
    Raises what conversion raises: call it inside :class:`~toolerr.adapters.fail_open`.

    Args:
        layer, items, role_of, convert, run: as :func:`rewrite_tail`.
        restore: the framework's objects for the rewrite's messages and the neutral list
            it was given (:func:`restore_objects` with the adapter's ``rebuild``).

    Returns:
        The new list (``None`` when nothing changed: the caller keeps its own) and the
        failed-call ledger when the decision step failed (what a decoder should ban,
        including calls the form removed from the model's view).
    """
    rewritten = rewrite_tail(layer, items, role_of, convert, run=run)
    if rewritten is None:
        return None, None
    converted, result = rewritten
    if not result.changed:
        return None, result.ledger
    return restore(result.messages, converted), result.ledger


def restore_objects(
    rewritten: Sequence[Message],
    given: Sequence[Message],
    rebuild: Callable[[Message, Message | None, Any], Any],
) -> list[Any]:
    """The framework's objects for a rewritten neutral list: a message of ``given`` (by
    identity: the rewrite left it unchanged) becomes its :func:`origin_of` again; any other
    is ``rebuild(message, before, origin)``.

    Args:
        rewritten: the rewrite's messages.
        given: the neutral list the rewrite was given.
        rebuild: builds the object for a changed or new message: ``before`` is the given
            message of the same origin and ``origin`` its framework object (both ``None``
            for a new message).

    Returns:
        A new list, in the order of ``rewritten``.
    """
    unchanged = {id(message): message for message in given}
    before: dict[int, Message] = {}
    for message in given:
        origin = origin_of(message)
        if origin is not None:
            before[id(origin)] = message
    out: list[Any] = []
    for message in rewritten:
        origin = origin_of(message)
        if unchanged.get(id(message)) is message:
            out.append(origin)
        else:
            out.append(rebuild(message, None if origin is None else before.get(id(origin)), origin))
    return out


# -- a provider's tool calls as frameworks keep them ----------------------------------------

CALL_BLOCK_TYPES = frozenset(
    {"tool_use", "tool_call", "invalid_tool_call", "function_call", "server_tool_call"}
)
"""Content block types that restate a tool call inside an assistant message's content
(Anthropic's ``tool_use``, Responses' ``function_call``, LangChain's standard blocks)."""


def chat_raw_arguments(wire_calls: Any) -> dict[str, str]:
    """The argument text the model wrote, by call id, from a provider's OpenAI-chat-style
    ``tool_calls`` list as a framework keeps it beside its parsed calls (LangChain's
    ``additional_kwargs["tool_calls"]``).

    Args:
        wire_calls: ``[{"id": ..., "function": {"arguments": "..."}}, ...]``; entries of
            another shape (and anything that is not a list) give nothing.

    Returns:
        Call id -> argument text.
    """
    raw: dict[str, str] = {}
    for entry in wire_calls if isinstance(wire_calls, list) else ():
        function = entry.get("function") if isinstance(entry, Mapping) else None
        call_id = entry.get("id") if isinstance(entry, Mapping) else None
        arguments = function.get("arguments") if isinstance(function, Mapping) else None
        if isinstance(call_id, str) and isinstance(arguments, str):
            raw[call_id] = arguments
    return raw


def without_call_blocks(blocks: Sequence[Any], kept_ids: Collection[Any]) -> list[Any]:
    """An assistant message's content blocks without those that restate a tool call
    (:data:`CALL_BLOCK_TYPES`) whose id (``id``, else ``call_id``) is not kept: after a form
    removed calls, no block still shows one.

    Args:
        blocks: the content blocks (other blocks and non-mappings are kept).
        kept_ids: the ids of the calls the message keeps.

    Returns:
        A new list.
    """
    return [
        block
        for block in blocks
        if not (
            isinstance(block, Mapping)
            and block.get("type") in CALL_BLOCK_TYPES
            and (block.get("id") or block.get("call_id")) not in kept_ids
        )
    ]


def without_chat_calls(fields: Mapping[str, Any], kept_ids: Collection[Any]) -> dict[str, Any] | None:
    """A copy of a message's provider fields whose OpenAI-chat-style ``tool_calls`` list
    (see :func:`chat_raw_arguments`) keeps only the calls of ``kept_ids``, so that no raw
    call is left without its parsed one (LangChain's ``additional_kwargs``).

    Args:
        fields: the provider fields; entries of ``tool_calls`` that are not mappings are kept.
        kept_ids: the ids of the calls the message keeps.

    Returns:
        The new fields, without ``tool_calls`` when none is left; ``None`` when ``fields``
        holds no ``tool_calls`` list (nothing to change).
    """
    wire_calls = fields.get("tool_calls")
    if not isinstance(wire_calls, list):
        return None
    remaining = [c for c in wire_calls if not isinstance(c, Mapping) or c.get("id") in kept_ids]
    changed = dict(fields)
    if remaining:
        changed["tool_calls"] = remaining
    else:
        del changed["tool_calls"]
    return changed
