"""The neutral conversation every adapter converts to and from.

A conversation is a ``list[Message]``. Roles are ``system``, ``user``, ``assistant`` and
``tool``. An assistant message may carry tool calls; a ``tool`` message is the result of
one call (``tool_call_id``) and may carry an explicit error flag, the exception the tool
raised and the name of the client that produced its text.

Messages are frozen: the rewriting functions return new lists in which every message
that did not change is the very same object as in the input, so an adapter can map it
back to its framework's original object by identity.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from ._failopen import log_swallowed

Role = Literal["system", "user", "assistant", "tool"]
Kind = Literal["transient", "fixable", "unrecoverable", "ambiguous"]
Outcome = Literal["not_executed", "unknown_outcome"]
Form = Literal["c0", "c1", "c2", "c3", "c4", "abstract"]
LoopAction = Literal["note", "block", "stop"]
ToolSafety = Literal["read_only", "idempotent", "unsafe"]

KINDS: tuple[Kind, ...] = get_args(Kind)
FORMS: tuple[Form, ...] = get_args(Form)
LOOP_ACTIONS: tuple[LoopAction, ...] = get_args(LoopAction)
CLIENTS: tuple[str, ...] = (
    "generic",
    "langchain",
    "openai-agents",
    "mcp",
    "qwen-code",
    "codex",
    "kilo-code",
    "opencode",
    "cline",
)


def parse_arguments(raw: Any) -> Any:
    """Arguments as the model wrote them -> parsed JSON, or the raw string if it does not parse.

    Non-string values (already parsed dicts, ``None``) are returned as they are.
    """
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return raw


@dataclass(frozen=True)
class ToolCall:
    """One call the assistant asked for.

    ``arguments`` is the parsed JSON value (usually a dict) or, when the model's argument
    text did not parse, that raw string. ``raw_arguments`` keeps the text exactly as the
    model wrote it when the framework has it (it is what a decoder ban must match).
    """

    id: str | None
    name: str
    arguments: Any = field(default_factory=dict)
    raw_arguments: str | None = None

    @classmethod
    def from_raw(cls, id: str | None, name: str, raw_arguments: str) -> ToolCall:
        """Build a call from the argument text a model wrote (parsed when it is JSON)."""
        return cls(id=id, name=name, arguments=parse_arguments(raw_arguments), raw_arguments=raw_arguments)


@dataclass(frozen=True)
class Message:
    """One message of the neutral conversation.

    ``content`` is a string, a list of content blocks (dicts with ``type`` and, for text,
    ``text``) or any JSON value. For ``tool`` messages: ``tool_call_id`` pairs the result
    with its call, ``name`` is the tool's name when known, ``is_error`` is the explicit flag
    a framework set (``None`` when it has none), ``exception`` the exception object the
    tool raised, ``client`` the client whose templates produced the text (``generic`` when
    unknown). ``origin`` is free for adapters (the framework object this came from).
    ``verdict``: the classification the adapter already holds for this result (kept on
    the framework's message, learned from its exception object); the layer takes it as it
    is, before any verdict remembered for the call and before detection.
    """

    role: Role
    content: Any = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    is_error: bool | None = None
    exception: BaseException | None = field(default=None, compare=False, repr=False)
    client: str | None = None
    origin: Any = field(default=None, compare=False, repr=False)
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False, hash=False)
    verdict: Verdict | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.role not in ("system", "user", "assistant", "tool"):
            raise ValueError(f"unknown role {self.role!r}; expected system, user, assistant or tool")
        calls: Any = self.tool_calls
        if not isinstance(calls, tuple):  # a list given by the caller: keep the message hashable
            object.__setattr__(self, "tool_calls", tuple(calls))

    @property
    def text(self) -> str:
        """The content as text (see :func:`content_text`)."""
        return content_text(self.content)


def content_text(content: Any) -> str:
    """Text of a content value: a string as is; the text of text blocks joined by newlines;
    any other JSON value JSON-encoded. Never raises."""
    return _content_text(content, media=True)


MEDIA_BLOCK_TYPES = frozenset(
    {
        "image",
        "image_url",
        "input_image",
        "output_image",
        "audio",
        "input_audio",
        "video",
        "file",
        "input_file",
    }
)
"""Content block types that carry media (pixels, sound, a file), not text."""


def result_text(content: Any) -> str:
    """The text of a tool result as read for detection and restated in a note:
    :func:`content_text` without the media blocks (:data:`MEDIA_BLOCK_TYPES` with no text),
    so that an image before the error text neither pushes the text out of the part that
    is read nor puts its payload in the note. Never raises."""
    return _content_text(content, media=False)


def _is_media(kind: Any) -> bool:
    return isinstance(kind, str) and kind in MEDIA_BLOCK_TYPES


def _content_text(content: Any, *, media: bool) -> str:
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    if isinstance(content, (list, tuple)):
        parts: list[str] = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, Mapping):
                text = block.get("text")
                if isinstance(text, str):
                    parts.append(text)
                elif block.get("type") in ("text", "input_text", "output_text") and text is not None:
                    parts.append(str(text))
                elif media or not _is_media(block.get("type")):
                    parts.append(_dump(block))
            else:
                parts.append(_dump(block))
        return "\n".join(parts)
    if isinstance(content, bytes):
        return content.decode("utf-8", errors="replace")
    return _dump(content)


def _dump(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=repr)
    except Exception:  # noqa: BLE001 - cycles, huge or hostile values (a default=repr that raises)
        try:
            return repr(value)
        except Exception:  # noqa: BLE001 - a broken __repr__ must not break detection
            log_swallowed("a content value's __repr__", logging.DEBUG)
            return f"<{type(value).__name__}>"


@dataclass(frozen=True)
class Verdict:
    """What detection and classification say about one tool result.

    ``failed``: the result says the call did not do what was asked. ``kind``: one of
    :data:`KINDS` for a failure, ``None`` otherwise. ``detection``: the id of the rule that
    detected the failure (``exception``, ``flag:is_error``, ``langchain:tool-error``,
    ``generic:start:Error:`` ...). ``rule``: the id of the classification rule that decided
    the kind (``http:429``, ``errno:EACCES``, ``exception:httpx.ReadTimeout``,
    ``words:unrecoverable:Forbidden`` ...), ``None`` when the kind is ambiguous for want of
    any rule. ``outcome``: for transient failures, whether the request was turned away
    (``not_executed``) or its effect is unknown (``unknown_outcome``). ``family``: a short
    stable name of the error family (``http.429``, ``rate_limit``, ``unknown_tool`` ...)
    used by the ledger to spot repeats with reworded arguments. ``retry_after``: seconds,
    when the error says. ``status``: the HTTP status (or JSON-RPC / gRPC code) found, if any.
    """

    failed: bool
    kind: Kind | None = None
    rule: str | None = None
    detection: str | None = None
    outcome: Outcome | None = None
    family: str | None = None
    retry_after: float | None = None
    status: int | str | None = None
    hidden_retries: int = field(default=0, compare=False, repr=False)
    """Attempts of this call that failed before it, re-run hidden by ``auto_retry``
    (in :meth:`to_dict` only when not 0)."""

    @property
    def actionable(self) -> bool:
        """A failure whose kind is known (not ambiguous): it gets guidance."""
        return self.failed and self.kind in ("transient", "fixable", "unrecoverable")

    def to_dict(self) -> dict[str, Any]:
        """The verdict as a JSON-able dict, one key per field: the one serialised shape
        that the CLI's JSON Lines, LangChain's ``response_metadata["toolerr"]`` and MCP's
        ``_meta["toolerr"]`` carry (:meth:`DetectionRecord.to_dict` adds to it)."""
        return {
            "failed": self.failed,
            "kind": self.kind,
            "rule": self.rule,
            "detection": self.detection,
            "outcome": self.outcome,
            "family": self.family,
            "retry_after": self.retry_after,
            "status": self.status,
            **({"hidden_retries": self.hidden_retries} if self.hidden_retries else {}),
        }

    @classmethod
    def from_dict(cls, data: Any) -> Verdict:
        """The verdict :meth:`to_dict` (or :meth:`DetectionRecord.to_dict`) wrote; other
        keys are ignored. Raises :class:`ValueError` when ``data`` is not one."""
        if not isinstance(data, Mapping) or not isinstance(data.get("failed"), bool):
            raise ValueError("not a toolerr verdict: expected a mapping with a boolean 'failed'")
        kind = data.get("kind")
        if kind is not None and kind not in KINDS:
            raise ValueError(f"unknown kind {kind!r}")
        outcome = data.get("outcome")
        if outcome not in (None, "not_executed", "unknown_outcome"):
            raise ValueError(f"unknown outcome {outcome!r}")
        retry_after = data.get("retry_after")
        status = data.get("status")
        return cls(
            failed=data["failed"],
            kind=kind,
            rule=_str_or_none(data.get("rule")),
            detection=_str_or_none(data.get("detection")),
            outcome=outcome,
            family=_str_or_none(data.get("family")),
            retry_after=float(retry_after)
            if isinstance(retry_after, (int, float)) and not isinstance(retry_after, bool)
            else None,
            status=status if isinstance(status, (int, str)) and not isinstance(status, bool) else None,
            hidden_retries=hidden if isinstance(hidden := data.get("hidden_retries"), int) else 0,
        )


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


NOT_FAILED = Verdict(failed=False)
