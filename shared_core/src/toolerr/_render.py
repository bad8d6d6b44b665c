"""Guidance sentences, the runtime note, the abstract description and text hygiene.

Every string the model will read from toolerr is built here. The guidance sentences and
the note template are byte-exact (the contract's "Delivery forms").
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from ._types import Kind, Verdict

GUIDANCE: Mapping[str, str] = {
    "transient": "This is a temporary failure. Retrying the same call is expected to succeed.",
    "fixable": (
        "This call cannot succeed as written. The error says what to change; "
        "call the tool again with the corrected value."
    ),
    "unrecoverable": (
        "This cannot be fixed by retrying or by changing the arguments. Tell the user what happened."
    ),
}
"""Guidance per kind (ambiguous has none). Byte-exact: the contract's "Words"."""

GUIDANCE_CHECK_FIRST = (
    "This may be a temporary failure, but the call may already have taken effect. "
    "Check whether it did before calling the tool again."
)
"""For a transient failure with an unknown outcome on a tool not known to be read-only or
idempotent: never invite a duplicate write (the contract's "Classification", retry safety)."""

NOTE_PREFIX = "Note from the tool runtime: "
NOTE_TEMPLATE = NOTE_PREFIX + "the last attempt called {name} with {arguments} and it failed with: {error}"
DEFAULT_MAX_ERROR_CHARS = 2000

# Chat-template special tokens of the common model families; never restated to a model.
_SPECIAL_TOKENS = re.compile(
    r"<\|[A-Za-z0-9_\-\.]{1,40}\|>"  # ChatML, Llama 3, Phi, Qwen: <|im_start|>, <|eot_id|> ...
    r"|<\uff5c[^<>\n]{1,40}\uff5c>"  # DeepSeek full-width bars
    r"|</?s>|\[/?INST\]|<</?SYS>>"  # Llama 2 / Mistral
    r"|<start_of_turn>|<end_of_turn>"  # Gemma
    r"|</?tool_call>|</?tool_response>"  # tool-call markers of the local text format
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufeff\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def clean_text(text: str, max_chars: int = DEFAULT_MAX_ERROR_CHARS) -> str:
    """Tool text made safe to restate in a user turn.

    Strips surrounding white space, drops control and bidi characters and chat-template
    special tokens, replaces lone surrogates, and caps the length at ``max_chars``,
    marking the cut. Linear in the input; only about ``2 * max_chars`` characters are
    looked at.
    """
    if not isinstance(text, str):
        raise TypeError(f"clean_text expects str, got {type(text).__name__}")
    if max_chars < 1:
        raise ValueError("max_chars must be at least 1")
    total = len(text)
    window = text[: max_chars * 2 + 64]
    window = _SURROGATE.sub("\ufffd", window)
    window = window.replace("\r\n", "\n").replace("\r", "\n")
    window = _SPECIAL_TOKENS.sub("", window)
    window = _CONTROL.sub("", window)
    window = window.strip()
    if len(window) > max_chars or total > max_chars * 2 + 64:
        kept = window[:max_chars].rstrip()
        cut = max(total - len(kept), 1)
        return f"{kept} [... {cut} more characters cut by toolerr]"
    return window


def format_arguments(arguments: Any, raw: str | None = None) -> str:
    """``key=value`` pairs joined by ``", "``, each value JSON-encoded.

    ``{"city": "Paris", "days": 3}`` -> ``city="Paris", days=3``. Arguments that are not
    an object (a raw string that did not parse, a list) are shown as the model wrote them.
    """
    if isinstance(arguments, Mapping):
        return ", ".join(f"{key}={_json(value)}" for key, value in arguments.items())
    if isinstance(arguments, str):
        return arguments
    if arguments is None:
        return raw if raw is not None else ""
    return _json(arguments)


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return json.dumps(repr(value), ensure_ascii=False)


def guidance_for(kind: Kind | None, verdict: Verdict | None = None, *, retry_safe: bool = True) -> str | None:
    """The guidance sentence for a kind, or ``None`` (ambiguous, no failure).

    A transient failure with an unknown outcome gets the retry sentence only when
    ``retry_safe`` (the tool is read-only or idempotent); otherwise it is told to check.
    """
    if kind is None or kind == "ambiguous":
        return None
    if (
        kind == "transient"
        and verdict is not None
        and verdict.outcome == "unknown_outcome"
        and not retry_safe
    ):
        return GUIDANCE_CHECK_FIRST
    return GUIDANCE[kind]


def render_note(
    name: str,
    arguments: Any,
    error: str,
    guidance: str,
    *,
    raw: str | None = None,
    max_chars: int = DEFAULT_MAX_ERROR_CHARS,
) -> str:
    """The runtime note of the contract's "Delivery forms", byte-exact."""
    body = NOTE_TEMPLATE.format(
        name=clean_text(name, 200) or "a tool",
        arguments=clean_text(format_arguments(arguments, raw), max_chars)
        if arguments or raw
        else "no arguments",
        error=clean_text(error, max_chars),
    )
    return f"{body}\n\n{guidance}"


_LANGCHAIN_KWARGS = re.compile(r"^Error invoking tool '[^'\n]*' with kwargs \{.*?\} with error:\n ?", re.S)
_TRAILERS = ("\n Please fix the error and try again.", "\n Please fix your mistakes.")


def diagnosis_text(error: str, arguments: Any, raw: str | None = None, max_chars: int = 400) -> str:
    """The error text with the failed call's argument string withheld.

    Client wrappers that restate the call (LangChain's ``with kwargs {...}``) and the
    trailing instructions are dropped; any verbatim rendering of the arguments (the raw
    text, the JSON, the ``key=value`` form, the Python ``repr``) is replaced by
    ``<arguments withheld>``. Argument *values* named by the error stay: they are the
    diagnosis (``unknown unit 'kelvins'``).
    """
    text = error.strip()
    text = _LANGCHAIN_KWARGS.sub("", text[: max_chars * 4])
    for trailer in _TRAILERS:
        if text.endswith(trailer.strip()) and trailer.strip() in text:
            text = text[: text.rfind(trailer.strip())].rstrip()
    for form in _argument_renderings(arguments, raw):
        if len(form) >= 8 and form in text:
            text = text.replace(form, "<arguments withheld>")
    return clean_text(text, max_chars) if text else ""


def _argument_renderings(arguments: Any, raw: str | None) -> list[str]:
    forms: list[str] = []
    if raw:
        forms.append(raw.strip())
    if arguments is not None:
        for render in (
            lambda a: json.dumps(a, ensure_ascii=False),
            lambda a: json.dumps(a),
            repr,
            format_arguments,
        ):
            try:
                forms.append(render(arguments))
            except Exception:  # noqa: BLE001 - odd argument objects: skip that rendering
                continue
    return sorted({f for f in forms if f}, key=len, reverse=True)


def argument_names(arguments: Any) -> str:
    """The names of the arguments, never their values: ``city, days``."""
    if isinstance(arguments, Mapping) and arguments:
        return ", ".join(str(key) for key in arguments)
    if arguments in (None, {}, "", []):
        return "none"
    return "arguments that are not valid JSON"


def render_abstract(
    name: str,
    arguments: Any,
    kind: Kind,
    error: str,
    guidance: str,
    *,
    raw: str | None = None,
    max_chars: int = DEFAULT_MAX_ERROR_CHARS,
) -> str:
    """The runtime description of the abstract form: tool name, kind and diagnosis, never
    the failed argument string (Feedback That Backfires: the surface form of the failed
    call is what gets copied)."""
    diagnosis = diagnosis_text(error, arguments, raw, max_chars=min(max_chars, 400))
    line = (
        f"{NOTE_PREFIX}a call to {clean_text(name, 200) or 'a tool'} "
        f"(arguments: {clean_text(argument_names(arguments), 400)}) "
        f"failed with {_article(kind)} {kind} error."
    )
    if diagnosis:
        line += f" Diagnosis: {diagnosis}"
    return f"{line}\n\n{guidance}"


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def render_loop_note(reason: str, guidance: str | None) -> str:
    """A note that names a loop without the verbatim call."""
    text = f"{NOTE_PREFIX}{clean_text(reason, 600)}"
    return f"{text}\n\n{guidance}" if guidance else text


def has_note(text: str) -> bool:
    """Whether a text already holds a toolerr runtime note (forms are idempotent)."""
    return NOTE_PREFIX in text
