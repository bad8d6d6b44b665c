"""Wire formats: the request bodies a gateway or a raw SDK user holds, as plain JSON dicts.

Three shapes, each converted to the neutral conversation and back:

- OpenAI Chat Completions ``messages`` (assistant ``tool_calls``, ``tool`` messages,
  content as text or parts; the legacy assistant ``function_call`` and its ``function``
  message, read as a call without id and its result);
- Anthropic Messages ``messages`` (``tool_use`` blocks in assistant turns, ``tool_result``
  blocks with ``is_error`` in user turns; one user turn holds several results);
- OpenAI Responses ``input`` items (``function_call`` / ``function_call_output`` and the
  built-in ``custom_tool_call``, ``local_shell_call``, ``shell_call``,
  ``apply_patch_call`` items with their outputs).

A one-call rewrite (:func:`rewrite_openai_chat`, :func:`rewrite_anthropic`,
:func:`rewrite_responses`) applies a :class:`~toolerr.ToolErrorLayer` to one request:

- passthrough is the very same object: when nothing failed at the decision step (checked
  on the request's tail, without converting the rest) or nothing changed;
- a rewritten request stays valid for its API: every call keeps its result (forms C2, C4
  and abstract remove a failed call with its result), Anthropic turns still alternate
  (a note joins the user turn after the ``tool_result`` blocks as a text block);
- dicts that did not change are the same objects in the new list;
- the ledger is rebuilt from the request itself: nothing is kept across requests for
  correctness.

SDK objects in a request (pydantic models: a response's message or output items, an
Anthropic response's content blocks, appended as the SDKs return them) are read as the
dicts they dump to; those that do not change go on as they are.

Stdlib only; the input is never modified. Fails open: an internal error returns the
request unchanged and logs on logger ``toolerr``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._detect import normalise_client
from ._forms import find_decision_step
from ._layer import ToolErrorLayer
from ._loop import ToolLoopError
from ._records import DetectionRecord
from ._types import Form, Message
from ._wire_anthropic import anthropic_in, anthropic_out
from ._wire_base import Converted, assistant_tail
from ._wire_chat import chat_in, chat_out
from ._wire_responses import responses_in, responses_out, responses_tail
from ._wire_resume import resumed_rewrite

logger = logging.getLogger("toolerr")

WIRE_FORMATS: tuple[str, ...] = ("openai-chat", "anthropic", "responses")


@dataclass(frozen=True)
class WireRewrite:
    """The result of rewriting one request body.

    ``request``: the messages (or Responses input) to send: the very input object when
    ``changed`` is false. ``records``: one per failure at the decision step.
    ``error``: set when toolerr failed internally and let the request pass unchanged.
    """

    request: Any
    changed: bool
    records: tuple[DetectionRecord, ...] = ()
    error: str | None = None


_Converter = Callable[[Sequence[Any], str, int], Converted]
_Back = Callable[[Sequence[Any], Converted, Sequence[Message]], list[Any]]
_FORMATS: dict[str, tuple[_Converter, _Back, Callable[[Sequence[Any]], int]]] = {
    "openai-chat": (chat_in, chat_out, assistant_tail),
    "anthropic": (anthropic_in, anthropic_out, assistant_tail),
    "responses": (responses_in, responses_out, responses_tail),
}


def rewrite_wire(
    wire: str,
    request: Any,
    *,
    layer: ToolErrorLayer | None = None,
    client: str | None = None,
    run: object | None = None,
    **options: Any,
) -> WireRewrite:
    """Rewrite one request body of format ``wire`` (``openai-chat``, ``anthropic`` or
    ``responses``): the messages list (or Responses ``input``).

    ``layer``: the :class:`~toolerr.ToolErrorLayer` to apply (its policy decides the form);
    else one is made from ``options`` (``form``, ``retry_budget``, ``loop_action`` ...).
    ``client``: whose templates produced the tool results (``codex``, ``qwen-code`` ...;
    a User-Agent string works too), ``generic`` by default. ``run``: the run scope whose
    remembered verdicts apply (:meth:`ToolErrorLayer.remember` with the same ``run``; a
    relay that knows the session passes its id), the shared scope by default. Never raises but
    :class:`~toolerr.ToolLoopError` (loop action ``stop``) and errors in the arguments.
    """
    if wire not in _FORMATS:
        raise ValueError(f"unknown wire format {wire!r}; expected one of {', '.join(WIRE_FORMATS)}")
    if layer is None:
        layer = ToolErrorLayer(**options)
    elif options:
        raise TypeError("give either a layer or policy options, not both")
    name = normalise_client(client if client is not None else layer.policy.client)
    if not isinstance(request, list) or not request:
        return WireRewrite(request, False)
    try:
        return _rewrite(wire, request, layer, name, run=run)
    except ToolLoopError:
        raise
    except Exception as exc:
        logger.warning("toolerr: %s rewrite failed; the request passes unchanged", wire, exc_info=True)
        return WireRewrite(request, False, (), f"{type(exc).__name__}: {exc}")


def _rewrite(
    wire: str,
    request: list[Any],
    layer: ToolErrorLayer,
    name: str,
    plain: bool = False,
    *,
    run: object | None = None,
) -> WireRewrite:
    convert, back, tail = _FORMATS[wire]
    start = tail(request)
    recent_items = request[start:]
    # SDK objects in the request (``plain``: none) are read as the dicts they stand for:
    # for the fast path, those of the tail only (a long run's earlier messages not again).
    if not plain and _has_objects(recent_items if start < len(request) else request, wire):
        start, recent_items = _plain_tail(request, wire, tail)
    if start >= len(request) - 1:
        return WireRewrite(request, False)
    # Fast path: nothing failed at the decision step -> the same object, unconverted.
    recent = convert(recent_items, name, start).messages
    step = find_decision_step(recent)
    if (
        (
            step is None
            or not any(
                r.duplicate_of is None and layer.inspect(r.message, run=run).failed for r in step.results
            )
        )
        and not layer.may_quarantine()
        and not layer.wants_whole(recent, len(request), run=run)
    ):
        return WireRewrite(request, False)
    if not plain:
        view = _plain_view(request, wire)
        if view is not None:
            viewed = _rewrite(wire, view[0], layer, name, plain=True, run=run)
            if not viewed.changed:
                return WireRewrite(request, False, viewed.records, viewed.error)
            originals = view[1]
            out = [originals.get(id(item), item) for item in viewed.request]
            return WireRewrite(out, True, viewed.records)
    resume = None
    if wire == "openai-chat":  # a checkpoint found by content: only the tail converted
        try:
            resumed, resume = resumed_rewrite(layer, request, name, run, start)
        except ToolLoopError:
            raise
        except Exception:
            logger.warning(
                "toolerr: resuming by content failed; the request is converted whole", exc_info=True
            )
            resumed, resume = None, None
        if resumed is not None:
            done, sent = resumed
            if sent is None:
                return WireRewrite(request, False, done.records, done.error)
            return WireRewrite(sent, True, done.records)
    conv = convert(request, name, 0)
    if resume is not None:
        result = layer._guarded_rewrite(conv.messages, run, resume)
    else:
        result = layer.rewrite(conv.messages, run=run)
    if result.error is not None:
        return WireRewrite(request, False, result.records, result.error)
    if not result.changed:
        return WireRewrite(request, False, result.records)
    return WireRewrite(back(request, conv, result.messages), True, result.records)


def _has_objects(items: Sequence[Any], wire: str) -> bool:
    """Whether items (or an Anthropic turn's blocks) are other than dicts."""
    for item in items:
        if type(item) is not dict:
            return True
        if wire == "anthropic":
            content = item.get("content")
            if type(content) is list and any(type(block) is not dict for block in content):
                return True
    return False


def _dumped(value: Any) -> Any:
    """A pydantic model (an SDK's message, output item or content block) as its JSON dict."""
    if isinstance(value, Mapping):
        return value
    dump = getattr(value, "model_dump", None)
    if not callable(dump):
        return value
    plain = dump(mode="json", exclude_none=True)
    return plain if isinstance(plain, Mapping) else value


def _plain_tail(request: list[Any], wire: str, tail: Callable[[Sequence[Any]], int]) -> tuple[int, list[Any]]:
    """Where the tail of the request's plain view starts, and that tail: the objects of
    as many last items dumped as it takes to find it."""
    size = 16
    while True:
        begin = max(len(request) - size, 0)
        view = _plain_view(request[begin:], wire)
        items = view[0] if view is not None else request[begin:]
        start = tail(items)
        if begin == 0 or 0 < start < len(items):
            return begin + start, items[start:]
        size *= 4


def _plain_view(request: list[Any], wire: str) -> tuple[list[Any], dict[int, Any]] | None:
    """The request with the SDK objects callers append as they got them
    (``messages.append(response.choices[0].message)``, ``input += response.output``,
    Anthropic's ``{"role": "assistant", "content": response.content}``) as dicts, and the
    original of each dict made, by identity; ``None`` when it holds none."""
    view: list[Any] = []
    originals: dict[int, Any] = {}
    for item in request:
        plain = _dumped(item)
        content = plain.get("content") if wire == "anthropic" and isinstance(plain, Mapping) else None
        if isinstance(content, list) and any(type(block) is not dict for block in content):
            plain = {**plain, "content": [_dumped(block) for block in content]}
        if plain is not item:
            originals[id(plain)] = item
        view.append(plain)
    return (view, originals) if originals else None


def rewrite_openai_chat(
    messages: Any, form: Form | str | None = None, *, client: str | None = None, **options: Any
) -> Any:
    """OpenAI Chat Completions ``messages`` with toolerr's delivery applied (C3 by default):
    ``client.chat.completions.create(messages=toolerr.rewrite_openai_chat(messages), ...)``.
    The very same list when nothing failed."""
    return rewrite_wire("openai-chat", messages, client=client, form=form, **options).request


def rewrite_anthropic(
    messages: Any, form: Form | str | None = None, *, client: str | None = None, **options: Any
) -> Any:
    """Anthropic Messages ``messages`` with toolerr's delivery applied (C3 by default):
    ``client.messages.create(messages=toolerr.rewrite_anthropic(messages), ...)``."""
    return rewrite_wire("anthropic", messages, client=client, form=form, **options).request


def rewrite_responses(
    input: Any, form: Form | str | None = None, *, client: str | None = None, **options: Any
) -> Any:
    """OpenAI Responses ``input`` items with toolerr's delivery applied (C3 by default):
    ``client.responses.create(input=toolerr.rewrite_responses(items), ...)``. A string
    input passes as it is."""
    return rewrite_wire("responses", input, client=client, form=form, **options).request
