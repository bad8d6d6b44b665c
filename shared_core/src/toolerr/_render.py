"""The notes toolerr writes for a failure: the guidance for its kind, the runtime note,
the abstract description and the loop note.

Every string the model will read from toolerr is built here, from the words of
:mod:`toolerr._notes` and tool text cleaned by :mod:`toolerr._hygiene`.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Mapping
from typing import Any

from ._failopen import log_swallowed
from ._hygiene import DEFAULT_MAX_ERROR_CHARS, clean_text
from ._notes import GUIDANCE, GUIDANCE_CHECK_FIRST, GUIDANCE_RETRY_AFTER, NOTE_PREFIX, NOTE_TEMPLATE
from ._notes import is_c1_suffix as is_c1_suffix  # read by _classify from here
from ._notes import strip_c1_suffix as strip_c1_suffix
from ._types import Kind, Verdict


def format_arguments(arguments: Any, raw: str | None = None) -> str:
    """``key=value`` pairs joined by ``", "``, each value JSON-encoded.

    ``{"city": "Paris", "days": 3}`` -> ``city="Paris", days=3``. Arguments that are not
    an object (a raw string that did not parse, a list) are shown as the model wrote them.
    """
    if isinstance(arguments, Mapping):
        return ", ".join(f"{key}={_json(value)}" for key, value in arguments.items())
    if raw is not None:  # not an object: the model's own text (a JSON string keeps its quotes)
        return raw
    if isinstance(arguments, str):
        return arguments
    if arguments is None:
        return ""
    return _json(arguments)


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        try:
            return json.dumps(repr(value), ensure_ascii=False)
        except Exception:  # noqa: BLE001 - a broken __repr__
            log_swallowed("an argument's __repr__", logging.DEBUG)
            return json.dumps(f"<{type(value).__name__}>")


def guidance_for(kind: Kind | None, verdict: Verdict | None = None, *, retry_safe: bool = True) -> str | None:
    """The guidance sentence for a kind, or ``None`` (ambiguous, no failure).

    A transient failure with an unknown outcome gets the retry sentence only when
    ``retry_safe`` (the tool is read-only or idempotent); otherwise it is told to check.
    A transient failure that carries a wait (``verdict.retry_after`` seconds) is told to
    retry after it, rounded up to whole seconds.
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
    if kind == "transient" and verdict is not None and verdict.retry_after and verdict.retry_after > 0:
        return GUIDANCE_RETRY_AFTER.format(seconds=math.ceil(verdict.retry_after))
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
    # none, {} and an empty object written as text ("{}") all show as "no arguments"
    shown = clean_text(format_arguments(arguments, raw), max_chars)
    body = NOTE_TEMPLATE.format(
        name=clean_text(name, 200) or "a tool",
        arguments=shown or "no arguments",
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
                log_swallowed("rendering a call's arguments", logging.DEBUG)
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
