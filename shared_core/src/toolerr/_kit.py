"""The adapter kit: the workflow every framework adapter shares, written once.

An adapter maps its framework's hooks to these calls (``docs/ARCHITECTURE.md`` has the
recipe):

- :class:`fail_open`: the one way an adapter swallows its own error (a WARNING on logger
  ``toolerr``, once per cause; :class:`~toolerr.ToolLoopError` always leaves);
- :func:`failure_of`: a tool's exception to the text the model is shown and its verdict,
  rendered once and classified once, from the object (:func:`failure_as` where a protocol
  fixes the text, :func:`plain_failure_of` where the result carries no error flag);
- :func:`guard_call`: before a tool runs, the loop check, the runtime answer for a
  blocked repeat and its remembered verdict;
- :class:`RunSnapshot`: the conversation of a run's latest model call, its run scope and
  the failed-call ledger built from it on first use (thread- and task-safe);
  :class:`~toolerr._kit_trail.RunTrail` follows a run's snapshots where the hook sees
  only the conversation;
- :class:`Layers`: the layer for a policy and the tool safety a request's own tools
  declare (:func:`declared_safety`), derived from the adapter's layer and kept (bounded);
- :func:`framework_verdict`: the verdict of a framework's own failure signal, owned by the
  core (an adapter builds no ``Verdict`` and names no rule).

Beside it: ``_kit_trail`` (:class:`RunTrail`), ``_kit_convert`` (a framework's objects
behind neutral messages and the rewrite of its own list) and ``_gateway`` (a gateway's
per-request policy and report). :mod:`toolerr.adapters` exports them all.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from types import TracebackType
from typing import Any, cast

from ._detail import result_text as detail_result
from ._exceptions import exception_text
from ._failopen import log_swallowed
from ._hygiene import clean_text
from ._layer import ToolErrorLayer
from ._ledger import FailureLedger
from ._loop import LoopDecision, ToolLoopError, blocked_verdict
from ._lru import LRUCache
from ._policy import Policy
from ._types import Message, ToolSafety, Verdict

__all__ = [
    "Blocked",
    "Failure",
    "Layers",
    "RunSnapshot",
    "TextVerdicts",
    "decision_step_failed",
    "declared_safety",
    "fail_open",
    "failure_as",
    "failure_of",
    "framework_verdict",
    "guard_call",
    "invalid_call_verdict",
    "plain_failure_of",
    "shown_failure",
]


class fail_open:
    """Run a block; an exception of toolerr's own is logged and swallowed, so that the
    user's agent goes on as without toolerr::

        with fail_open("rewriting the model request") as guard:
            return rewritten(request)
        return request  # reached only when the block failed (``guard.failed``)

    The log line is a WARNING on logger ``toolerr`` with the traceback, once per cause
    (``toolerr: {where} failed ({Type}); {then}``). :class:`~toolerr.ToolLoopError` (loop
    action ``stop``), exceptions that are not ``Exception`` (cancellation, exit) and the
    ``reraise`` types leave unchanged. ``level=logging.DEBUG`` where the error is a foreign
    object's own (reading a model's or a tokenizer's optional attributes), not toolerr's.
    """

    __slots__ = ("error", "level", "reraise", "then", "where")

    def __init__(
        self,
        where: str,
        then: str = "it passes unchanged",
        *,
        reraise: tuple[type[BaseException], ...] = (),
        level: int = logging.WARNING,
    ) -> None:
        self.where = where
        self.then = then
        self.reraise = reraise
        self.level = level
        self.error: BaseException | None = None
        """The exception swallowed (``None``: the block ran to its end or returned)."""

    @property
    def failed(self) -> bool:
        return self.error is not None

    def __enter__(self) -> fail_open:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> bool:
        if error is None or not isinstance(error, Exception):
            return False
        if isinstance(error, (ToolLoopError, *self.reraise)):
            return False
        self.error = error
        log_swallowed(self.where, self.level, then=self.then, exc=error)
        return True


@dataclasses.dataclass(frozen=True, slots=True)
class Failure:
    """A tool's exception as the model is shown it, and its classification."""

    text: str
    """``Type: message``, cleaned and capped at the policy's ``max_error_chars`` (kept whole
    when it is over ``quarantine_chars``: each model call's rewrite shows its excerpt)."""
    verdict: Verdict
    """Classified from the exception object (the strongest evidence) and that text."""


def failure_of(
    layer: ToolErrorLayer,
    error: BaseException,
    *,
    tool: str | None = None,
    arguments: Any = None,
    parameters: Any = None,
) -> Failure:
    """The shown text and the verdict of a tool's exception: rendered once
    (:func:`~toolerr.adapters.exception_text`), classified once, from the object and
    ``arguments``, the call's when the adapter has them, and ``parameters``, the tool's declared
    JSON schema when it has that (see :func:`toolerr.inspect_result`).
    Raises what classification raises: call it inside :class:`fail_open`."""
    text = exception_text(error)
    verdict = layer.inspect_exception(error, text=text, tool=tool, arguments=arguments, parameters=parameters)
    if layer.policy.error_detail != "full":
        return Failure(shown_failure(layer, error, verdict), verdict)
    return Failure(_shown(layer, text), verdict)


def _shown(layer: ToolErrorLayer, text: str) -> str:
    """An exception's text as the tool result: cleaned and capped at ``max_error_chars``;
    cleaned and whole when it is over ``quarantine_chars`` (the framework keeps it whole,
    each model call shows its excerpt: the error, the last lines, the saved file)."""
    quarantine = layer.policy.quarantine_chars
    if quarantine and len(text) > quarantine:
        return clean_text(text, len(text))
    return clean_text(text, layer.policy.max_error_chars)


def plain_failure_of(
    layer: ToolErrorLayer,
    error: BaseException,
    *,
    tool: str | None = None,
    arguments: Any = None,
    parameters: Any = None,
) -> Failure:
    """:func:`failure_of` for a framework that shows the model a failure as a plain tool
    result (no error flag): ``Error: `` goes before a ``Type: message`` that detection
    alone does not read as a failure (``Boom: the upstream said no``), so the model, and a
    later model call without the exception object, still see one. Capped with the prefix."""
    text = exception_text(error)
    verdict = layer.inspect_exception(error, text=text, tool=tool, arguments=arguments, parameters=parameters)
    if layer.policy.error_detail != "full":
        return Failure(shown_failure(layer, error, verdict), verdict)
    if not layer.inspect(Message(role="tool", content=text, client=layer.policy.client)).failed:
        text = f"Error: {text}"
    return Failure(_shown(layer, text), verdict)


def failure_as(
    layer: ToolErrorLayer,
    error: BaseException,
    text: str,
    *,
    tool: str | None = None,
    arguments: Any = None,
    parameters: Any = None,
) -> Failure:
    """:func:`failure_of` for a protocol that fixes how a failed call is shown (MCP's
    ``MCP error -32602: Invalid params``, a proxy's own ``Error: ...``): ``text`` is kept
    as the protocol renders it (not cleaned nor capped: it stands where the tool's own
    result would, as the server's error text does) and the verdict is classified once,
    from the object and that text. Raises what classification raises: call it inside
    :class:`fail_open`."""
    verdict = layer.inspect_exception(error, text=text, tool=tool, arguments=arguments, parameters=parameters)
    if layer.policy.error_detail != "full":
        return Failure(shown_failure(layer, error, verdict), verdict)
    return Failure(text, verdict)


@dataclasses.dataclass(frozen=True, slots=True)
class Blocked:
    """The runtime answer for a repeat of a failed call that the policy keeps from running."""

    text: str
    """``Error: this call was not executed. ...`` (never quotes the call's arguments)."""
    verdict: Verdict
    """The failure it repeats, remembered for the answer in the run scope."""
    decision: LoopDecision


def guard_call(
    layer: ToolErrorLayer,
    name: str,
    arguments: Any,
    call_id: str | None,
    *,
    raw: str | None = None,
    ledger: FailureLedger | Callable[[], FailureLedger | None] | None = None,
    messages: Sequence[Message] | None = None,
    run: object | None = None,
    shown: Callable[[str], Any] | None = None,
) -> Blocked | None:
    """Before a tool call runs: ``None`` to run it, or the :class:`Blocked` answer that
    replaces it (loop action ``block``, or the idempotency guard: an identical resend of
    a call whose outcome is unknown). Raises :class:`~toolerr.ToolLoopError` for loop
    action ``stop``; with loop action ``note`` and the guard off nothing is checked.

    The run's earlier calls come from ``ledger`` (or a function that builds it: it is only
    called when there is something to check), else ``messages`` (the conversation so far),
    else the ledger :meth:`~toolerr.ToolErrorLayer.deliver_result` keeps for ``run``. The
    answer's verdict is remembered in ``run`` for its text and, when the framework shows
    the model another content for it (a JSON payload), for ``shown(text)`` too. Fails open:
    an internal error lets the call run (logged).
    """
    if not layer.policy.checks_calls:
        return None
    with fail_open(f"checking a call to {name!r} for repeats", "the call runs"):
        snapshot = getattr(ledger, "__self__", None)
        guard_only = layer.policy.loop_action == "note" and isinstance(snapshot, RunSnapshot)
        if guard_only and not cast("RunSnapshot", snapshot).latest_is_unknown_outcome(name):
            return None  # only the idempotency guard could answer, and it cannot: no replay
        given = ledger() if callable(ledger) else ledger
        if given is None and ledger is not None:
            return None  # no conversation yet: nothing to repeat
        decision = layer.check_call(name, arguments, raw=raw, messages=messages, ledger=given, run=run)
        if decision.action != "block":
            return None
        text = layer.blocked_result(call_id, decision, run=run)
        verdict = layer.recall(call_id, text, run=run)
        if verdict is None:  # no call id: the verdict blocked_result would keep
            verdict = blocked_verdict(decision)
        if shown is not None and call_id is not None:
            layer.remember(call_id, verdict, shown(text), run=run)
        return Blocked(text, verdict, decision)
    return None


class RunSnapshot:
    """The neutral conversation of one run's latest model call, its run scope, and the
    failed-call ledger built from it on first use (once, under a lock: the tools of one
    step may check it from several threads or tasks at once).

    A placement that checks a tool call against the conversation (a tool guardrail, a
    before-tool callback) keeps the snapshot its model-input hook made for the run (in a
    ``ContextVar``, the framework's per-run object, or :class:`Layers`' owner's map).
    """

    __slots__ = ("__weakref__", "_ledger", "_lock", "layer", "messages", "run")

    def __init__(self, layer: ToolErrorLayer, messages: Sequence[Message], run: object | None = None) -> None:
        self.layer = layer
        self.messages = messages
        self.run = run
        self._ledger: FailureLedger | None = None
        self._lock = threading.Lock()

    def latest_is_unknown_outcome(self, name: str) -> bool:
        """Whether the conversation's latest tool result is a failure of ``name`` (or of an
        unnamed tool) whose outcome is unknown: the only case the idempotency guard answers
        (the latest result is the latest call the ledger records). Cheap: one result is
        classified, nothing replayed."""
        for message in reversed(self.messages):
            if message.role == "tool":
                if message.name not in (name, None):
                    return False
                return self.layer.inspect(message, run=self.run).outcome == "unknown_outcome"
        return False

    def ledger(self) -> FailureLedger:
        """The failed-call ledger of the conversation (built once)."""
        with self._lock:
            if self._ledger is None:
                self._ledger = self.layer.replay(self.messages, run=self.run)[0]
            return self._ledger


class Layers:
    """The layers of one adapter: its own, and one per (policy, declared tool safety),
    derived from it and kept (the latest ``size``). A derived layer has the adapter's
    ``on_record``; a declared safety never overrides the user's explicit ``tool_safety``,
    and is never merged into the adapter's policy (agents that share the adapter may each
    have a tool of one name)."""

    __slots__ = ("_kept", "_lock", "layer")

    def __init__(self, layer: ToolErrorLayer, size: int = 64) -> None:
        self.layer = layer
        self._kept: LRUCache[Hashable, tuple[Policy, Any, ToolErrorLayer]] = LRUCache(size)
        self._lock = threading.Lock()

    def get(
        self, policy: Policy | None = None, safety: Mapping[str, ToolSafety] | None = None
    ) -> ToolErrorLayer:
        """The layer for ``policy`` (default: the adapter layer's) with ``safety``."""
        base = self.layer
        if (policy is None or policy is base.policy) and not safety:
            return base
        chosen = base.policy if policy is None else policy
        key = (repr(chosen), frozenset(safety.items()) if safety else None)
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None and kept[0] is base.policy and kept[1] is base.on_record:
                return kept[2]
            derived = chosen.with_tool_safety(dict(safety)) if safety else chosen
            layer = ToolErrorLayer(derived, on_record=base.on_record)
            layer.shared_checkpoints = base.shared_checkpoints
            self._kept.put(key, (base.policy, base.on_record, layer))
            return layer

    def for_tools(
        self, tools: Iterable[Any], declared: Callable[[Any], ToolSafety | None] | None = None
    ) -> ToolErrorLayer:
        """The adapter's layer with the safety a request's own ``tools`` declare in their
        ``metadata`` (``declared``, default :func:`declared_safety`; a tool without a
        ``str`` ``name`` declares nothing)."""
        read = declared_safety if declared is None else declared
        safety = {
            tool.name: kind
            for tool in tools
            if isinstance(getattr(tool, "name", None), str)
            and (kind := read(getattr(tool, "metadata", None))) is not None
        }
        return self.get(safety=safety)


_FRAMEWORK_VERDICTS: dict[tuple[str, str], Verdict] = {
    # a tool, a tool hook or an argument validator raised ``ModelRetry``: its author asks
    # the model to correct the call, whatever the message's words
    ("pydantic-ai", "ModelRetry"): Verdict(
        failed=True, kind="fixable", rule="pydantic-ai:ModelRetry", detection="exception"
    ),
}


def framework_verdict(framework: str, signal: str) -> Verdict:
    """The verdict of a failure that a framework's own signal declares, owned by the core
    (rule ``{framework}:{signal}``), for an adapter that holds the signal and not an
    exception the core could classify: ``("pydantic-ai", "ModelRetry")`` (fixable).

    Args:
        framework: the adapter's framework (``pydantic-ai``).
        signal: the framework's name for the signal (``ModelRetry``).

    Returns:
        The verdict (one shared, frozen object). Raises ``KeyError`` for a signal the
        core does not know.
    """
    return _FRAMEWORK_VERDICTS[framework, signal]


def declared_safety(metadata: Any) -> ToolSafety | None:
    """The retry safety a tool's own metadata declares, for an adapter whose framework
    gives tools a metadata mapping: the ``toolerr_safety`` key (``read_only``,
    ``idempotent``, ``unsafe``), else MCP-style hints under ``annotations``
    (:func:`~toolerr.adapters.safety_from_annotations`).

    Args:
        metadata: the tool's metadata (anything that is not a mapping declares nothing).

    Returns:
        The declared safety, or ``None``.
    """
    from ._policy import safety_from_annotations

    if not isinstance(metadata, Mapping):
        return None
    declared = metadata.get("toolerr_safety")
    if declared in ("read_only", "idempotent", "unsafe"):
        return declared  # type: ignore[no-any-return]
    return safety_from_annotations(metadata.get("annotations"))


# -- verdicts kept by result text, and of calls a framework marked invalid ---------------------

_AMBIGUOUS = object()
"""A text learned with two different verdicts in one run: no verdict is given for it."""


class TextVerdicts:
    """Verdicts learned from exceptions where no call id is at hand (an error handler
    that sees only the exception, such as LangGraph's ``ToolNode(handle_tool_errors=...)``),
    kept per run scope and by the exact result text they produced.

    A verdict is only given back in the run it was learned in, for a result whose text
    equals the one it was learned for; a text that two exceptions of one run produced with
    different verdicts gives none (which result is whose cannot be told). Bounded (the
    latest ``size`` texts of all runs); a text is kept as its length and hash, not itself
    (an error text may be megabytes); thread-safe. A run scope is an object (held while
    its entries are kept and compared by identity, so that its id cannot be reused
    meanwhile) or a tuple key (compared by value)."""

    __slots__ = ("_items", "_lock")

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


def invalid_call_verdict(client: str) -> Verdict:
    """The verdict of the error result a framework gives a call that it marked invalid
    itself (the model's argument text did not parse, e.g. it was truncated: LangChain's
    ``AIMessage.invalid_tool_calls``): structural evidence, like an exception object, for
    a text the core's templates need not know. Fixable, family ``malformed_arguments``;
    rule ``{client}:invalid-tool-call``."""
    return Verdict(
        failed=True,
        kind="fixable",
        rule=f"{client}:invalid-tool-call",
        detection=f"{client}:invalid_tool_calls",
        family="malformed_arguments",
    )


def decision_step_failed(
    layer: ToolErrorLayer, messages: Sequence[Message], *, run: object | None = None
) -> bool:
    """Whether a result of the conversation's decision step failed (for ``run``'s
    remembered verdicts): only then can :meth:`~toolerr.ToolErrorLayer.rewrite` change
    the conversation. It needs only the messages from the last assistant message on: an
    adapter that gives just those converts no more of a long run for a step without
    failure (the common case), and the whole conversation only when it holds one."""
    start = len(messages)
    while start and messages[start - 1].role != "assistant":
        start -= 1
    if not start:
        return False  # no assistant message: no decision step
    seen: set[str | None] = set()
    for message in messages[start:]:  # its results; a second one for a call id is a duplicate
        if message.role != "tool" or (message.tool_call_id in seen and message.tool_call_id is not None):
            continue
        seen.add(message.tool_call_id)
        if layer.inspect(message, run=run).failed:
            return True
    return False


# -- what the model is shown of a failure (``error_detail``) -----------------------------------


def shown_failure(
    layer: ToolErrorLayer, error: BaseException | None, verdict: Verdict | None = None, *, text: str = ""
) -> str:
    """The failed result's text under the policy's ``error_detail``, for a tool's exception
    (``error``) or for an error text the tool returned (``error=None`` and ``text``):
    ``full`` gives ``Error: {Type}: {message}`` (:func:`exception_text`) or ``text``,
    ``safe`` ``Error: {Type} (HTTP status 503, ...)`` and ``none`` ``Error: details
    withheld`` (:mod:`toolerr._detail`). :func:`failure_of`, :func:`plain_failure_of` and
    :func:`failure_as` give this text for ``safe`` and ``none``; an adapter that writes its
    own text for ``full``, or shows a result the tool wrote, calls this for the other two.

    Args:
        layer: The adapter's layer (its policy decides).
        error: The exception the tool raised, or ``None``.
        verdict: The failure's verdict, when classified already (its status, rule and
            Retry-After).
        text: The error text the tool returned (a ``Type: message`` start gives the type).

    Returns:
        The text the model is shown, capped at ``max_error_chars``.
    """
    detail = layer.policy.error_detail
    cap = layer.policy.max_error_chars
    if detail == "full":
        return clean_text(f"Error: {exception_text(error)}" if error is not None else text, cap)
    return clean_text(detail_result(detail, verdict, error, text), cap)
