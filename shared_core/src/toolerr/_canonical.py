"""Canonical and exact forms of a call's arguments (the contract's "Repeats and loops").

:func:`canonical_arguments` makes trivially different spellings of the same arguments equal
(key order, white space, quoting, number formats, JSON or a Python literal);
:func:`exact_arguments` is the surface form the model wrote. The ledger
(:mod:`toolerr._ledger`) keys its failures by both.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
import logging
import math
import re
from collections.abc import Mapping
from decimal import Decimal
from itertools import islice
from typing import Any

from ._failopen import log_swallowed

__all__ = ["canonical_arguments", "exact_arguments"]

_MAX_CANONICAL = 4096
"""Longest canonical text kept as is; longer ones keep a prefix and a SHA-256 of the whole."""
_CANONICAL_PREFIX = 3000
_MAX_DEPTH = 64
_MAX_NODES = 20_000
"""Values visited per call; beyond it the rest is summarised (bounded work on huge inputs)."""
_MAX_INT_BITS = 12_000
"""Integers longer than this (about 3,600 digits) are hashed rather than printed."""
_MAX_LITERAL = 20_000
"""Longest raw text tried as a Python literal (``{'a': 'x'}``)."""
_MAX_REPR = 200


class _Text:
    """A raw argument text that is neither JSON nor a Python literal."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _norm_space(text: str) -> str:
    return " ".join(text.split())


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _int_text(value: int) -> str:
    if value.bit_length() > _MAX_INT_BITS:
        size = (value.bit_length() + 8) // 8
        digest = hashlib.sha256(value.to_bytes(size, "big", signed=True)).hexdigest()
        return f"#int:{digest}"
    return str(value)


def _float_text(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value.is_integer():
        return _int_text(int(value))
    return repr(value)


def _decimal_text(value: Decimal) -> str:
    if value.is_nan():
        return "NaN"
    if value.is_infinite():
        return "-Infinity" if value.is_signed() else "Infinity"
    if value.adjusted() > 3000:
        return "#dec:" + str(value.normalize())
    if value == value.to_integral_value():
        return _int_text(int(value))
    return _float_text(float(value))


def _safe_repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not break the ledger
        log_swallowed("an argument's __repr__", logging.DEBUG)
        return f"<{type(value).__name__}>"
    return _norm_space(text[: _MAX_REPR * 4])[:_MAX_REPR]


def _key_text(key: Any) -> str:
    """A dict key as JSON would write it (so a JSON round trip keeps it), white space normalised."""
    if isinstance(key, str):
        return _norm_space(key)
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return _int_text(key)
    if isinstance(key, float):
        if math.isnan(key):
            return "NaN"
        if math.isinf(key):
            return "Infinity" if key > 0 else "-Infinity"
        return repr(key)
    if isinstance(key, (bytes, bytearray)):
        return _norm_space(bytes(key).decode("utf-8", "replace"))
    return "#key:" + _safe_repr(key)


def _str_json(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


class _Canonicaliser:
    __slots__ = ("budget", "path")

    def __init__(self) -> None:
        self.budget = _MAX_NODES
        self.path: set[int] = set()

    def emit(self, value: Any, depth: int) -> str:
        self.budget -= 1
        if self.budget < 0:
            return "#more"
        if value is None:
            return "null"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int):
            return _int_text(value)
        if isinstance(value, float):
            return _float_text(value)
        if isinstance(value, str):
            return _str_json(_norm_space(value))
        if isinstance(value, _Text):
            return _str_json(_norm_space(value.text))
        if isinstance(value, Decimal):
            return _decimal_text(value)
        if isinstance(value, (bytes, bytearray, memoryview)):
            return _str_json(_norm_space(bytes(value).decode("utf-8", "replace")))
        if isinstance(value, Mapping):
            return self._container(value, depth, self._mapping)
        if isinstance(value, (list, tuple)):
            return self._container(value, depth, self._sequence)
        if isinstance(value, (set, frozenset)):
            return self._container(value, depth, self._set)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            fields = {f.name: getattr(value, f.name, None) for f in dataclasses.fields(value)}
            return self._container(value, depth, lambda _v, d: self._mapping(fields, d))
        return "#obj:" + _str_json(f"{type(value).__name__}:{_safe_repr(value)}")

    def _container(self, value: Any, depth: int, body: Any) -> str:
        key = id(value)
        if key in self.path:
            return "#cycle"
        if depth >= _MAX_DEPTH:
            return "#deep"
        self.path.add(key)
        try:
            text: str = body(value, depth + 1)
        finally:
            self.path.discard(key)
        return text

    def _room(self) -> int:
        return max(self.budget, 0) + 1

    def _mapping(self, value: Mapping[Any, Any], depth: int) -> str:
        pairs = [(_key_text(k), self.emit(v, depth)) for k, v in islice(value.items(), self._room())]
        pairs.sort()
        more = f",#len:{len(value)}" if len(pairs) < len(value) else ""
        return "{" + ",".join(f"{_str_json(k)}:{v}" for k, v in pairs) + more + "}"

    def _sequence(self, value: list[Any] | tuple[Any, ...], depth: int) -> str:
        items = [self.emit(v, depth) for v in islice(value, self._room())]
        if len(items) < len(value):
            items.append(f"#len:{len(value)}")
        return "[" + ",".join(items) + "]"

    def _set(self, value: set[Any] | frozenset[Any], depth: int) -> str:
        items = sorted(self.emit(v, depth) for v in islice(value, self._room()))
        return "[" + ",".join(items) + "]"


_MISSING: Any = object()
_STR_ESCAPES = frozenset("\n\r\\'\"abfnrtv01234567xNuU")
_BYTES_ESCAPES = frozenset("\n\r\\'\"abfnrtv01234567x")
# Python number literals as ``ast.literal_eval`` reads them: hex, octal and binary, digit
# separators, exponents and imaginary parts.
_NUMBER = re.compile(
    r"0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?[jJ]?"
)


def _literal_source(text: str) -> str | None:
    """``text`` made safe for :func:`ast.literal_eval`, or ``None`` when it is not worth trying.

    The parser warns (``SyntaxWarning``/``DeprecationWarning``) on invalid escape sequences
    and on numbers glued to names; suppressing warnings is process-wide and not thread-safe,
    so instead invalid escapes get their backslash doubled (the value Python gives them) and
    glued numbers, raw strings and f-strings make the text count as plain text.
    """
    if len(text) > _MAX_LITERAL or text[0] not in "{[(" or text[-1] not in "}])":
        return None
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "'\"":
            j = i
            while j > 0 and text[j - 1].isalpha():
                j -= 1
            prefix = text[j:i].lower()
            if "r" in prefix or "f" in prefix:
                return None
            valid = _BYTES_ESCAPES if "b" in prefix else _STR_ESCAPES
            quote = text[i : i + 3] if text[i : i + 3] in ("'''", '"""') else c
            out.append(quote)
            i += len(quote)
            while i < n and not text.startswith(quote, i):
                ch = text[i]
                if ch == "\\" and i + 1 < n:
                    nxt = text[i + 1]
                    if nxt in valid:
                        out.append(text[i : i + 2])
                    else:
                        out.append("\\\\" + nxt)
                    i += 2
                    continue
                out.append(ch)
                i += 1
            if i >= n:
                return None
            out.append(quote)
            i += len(quote)
            continue
        if (c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit())) and (
            i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")
        ):
            match = _NUMBER.match(text, i)
            end = match.end() if match else i + 1
            if end < n and (text[end].isalnum() or text[end] == "_"):
                return None
            out.append(text[i:end])
            i = end
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _parse_top(arguments: Any) -> Any:
    """The top-level arguments as a value: raw text parsed as JSON, else as a Python literal."""
    if arguments is None:
        return {}
    if isinstance(arguments, (bytes, bytearray)):
        arguments = bytes(arguments).decode("utf-8", "replace")
    if not isinstance(arguments, str):
        return arguments
    text = arguments.strip()
    if not text:
        return {}
    value = _MISSING
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        source = _literal_source(text)
        if source is not None:
            try:
                value = ast.literal_eval(source)
            except Exception:  # noqa: BLE001 - any parser failure means "not a literal"
                value = _MISSING
    if value is _MISSING:
        return _Text(text)
    if value is None:
        return {}
    return value


def canonical_arguments(arguments: Any) -> str:
    """A canonical text of a call's arguments: trivially different spellings compare equal.

    Dict keys sorted (recursively); numbers normalised (``1.0`` and ``1e0`` are ``1``; a
    string ``"1"`` stays a string); strings with white space normalised (stripped, runs
    of white space made one space); a top-level string is the raw argument text and is
    parsed first, as JSON, else as a Python literal (``{'a': 'x'}`` equals ``{"a": "x"}``),
    else normalised as text; ``None``, ``""`` and ``{}`` are equal; tuples are lists and
    sets sorted lists. Never raises: cycles, NaN, huge numbers and arbitrary objects are
    handled with bounded work; a text over 4 KB keeps a prefix and a SHA-256 of the whole.
    """
    try:
        text = _Canonicaliser().emit(_parse_top(arguments), 0)
    except Exception:  # noqa: BLE001 - never raises: an unrepresentable value equals nothing else
        log_swallowed("canonical form of a call's arguments")
        text = f"#unrepresentable:{type(arguments).__name__}:{id(arguments)}"
    if len(text) > _MAX_CANONICAL:
        text = f"{text[:_CANONICAL_PREFIX]}…#sha256:{_sha(text)}"
    return text


def exact_arguments(arguments: Any, raw: str | None = None) -> str:
    """The exact surface form of a call's arguments: ``raw`` (the text the model wrote)
    when given; else a string argument as it is (it is the unparsed raw text); else
    ``json.dumps(arguments, ensure_ascii=False)`` (dicts in their order). Never raises."""
    if raw is not None:
        return raw if isinstance(raw, str) else _safe_repr(raw)
    if isinstance(arguments, str):
        return arguments
    try:
        return json.dumps(arguments, ensure_ascii=False)
    except Exception:  # noqa: BLE001 - odd arguments (cycles, objects, broken mappings) must not raise
        pass
    try:
        return json.dumps(arguments, ensure_ascii=False, default=_safe_repr)
    except Exception:  # noqa: BLE001
        return _safe_repr(arguments)
