"""The call's arguments as evidence of where a rejected value came from.

A parser's or validator's message reads the same whether the bad value was the model's
argument or data the tool read: ``The string supplied did not seem to be a phone number``
for a number the model wrote and for a row of the CSV file it named; ``day is out of range
for month`` for a date argument and for an entry a calendar service returned. The text
cannot tell them apart; the call's arguments can. Where the model wrote no value that could
have been the one rejected (it gave only where to read: a path, a URL, a record's id; or
nothing), the value came from the data the tool read, which the model neither wrote nor can
judge: the failure is ``ambiguous`` (family ``tool_input``), not ``fixable``.

Only fixable verdicts that can be about a value's content change (:data:`CONTENT_FAMILIES`:
a parse error, a bad value or argument, a failed validation, a value out of range, an empty
value), and only towards ambiguous. The verdict stays where an argument merely *could* be the
bad value, where the message quotes one of the locators as the value it rejected (``invalid
literal for int() with base 10: 'abc'`` for ``{"event_id": "abc"}``), and where it speaks of
the call or of the place the model named (an argument, a parameter, a usage line, a
repository, a directory, a path). Arguments that are not JSON values change nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from ._types import Verdict

__all__ = ["CONTENT_FAMILIES", "by_arguments", "locators_only"]

CONTENT_FAMILIES = frozenset(
    {"syntax", "bad_value", "bad_arguments", "validation", "out_of_range", "empty_value", "suggestion"}
)
"""Families of the fixable verdicts that can say a value's content was wrong."""

# A message that speaks of the call itself (an unknown keyword, a missing argument, a usage
# line) or of the place the model named (not a repository, a directory, a path) is about
# what the model wrote whatever it passed: the verdict stays.
_ABOUT_THE_CALL = re.compile(
    r"\b(?:arg(?:ument)?s?|param(?:eter)?s?|kwargs?|keyword|positional|options?|flags?|usage|command"
    r"|required|missing|repositor(?:y|ies)|director(?:y|ies)|folder|path|url|uri|bucket)\b",
    re.IGNORECASE,
)

TOOL_INPUT_FAMILY = "tool_input"

# Argument names that say where the tool is to read, not what a value is: paths, addresses,
# a record's id. Matched on the name lowercased, as a whole or as its last ``_`` part.
_LOCATOR_NAMES = frozenset(
    {
        "path",
        "paths",
        "file",
        "files",
        "filename",
        "filenames",
        "filepath",
        "url",
        "urls",
        "uri",
        "uris",
        "href",
        "link",
        "src",
        "source",
        "dir",
        "directory",
        "folder",
        "location",
        "id",
        "ids",
        "uid",
        "uuid",
        "pk",
    }
)
_CAMEL_ID = re.compile(r"[a-z0-9](?:Id|Ids|ID|IDs|Path|Url|URL|Uri|File)$")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]{1,15}://\S+$")
_DATA_FILE = re.compile(
    r"^\S{0,4000}\.(?:csv|tsv|json|jsonl|ndjson|ya?ml|toml|xml|html?|ini|cfg|conf|txt|md|log|pdf|docx?|xlsx?"
    r"|xlsm|ods|odt|parquet|feather|avro|orc|arrow|db|sqlite3?|duckdb|ics|vcf|eml|mbox|zip|tar|gz|tgz|bz2"
    r"|xz|7z|png|jpe?g|gif|webp|bmp|tiff?|svg|mp3|wav|mp4|po|mo|pot|npy|npz|pkl|pickle|h5|hdf5|nc|rdf|ttl"
    r"|j2|jinja2?|tpl|sql|py|js|ts|ipynb|env|properties|plist|lock)$",
    re.IGNORECASE,
)
_PATHLIKE = re.compile(r"^(?:~?/|\./|\.\./|[A-Za-z]:\\)\S*$")
_QUOTED = re.compile(r"'([^'\n]{1,300})'|\"([^\"\n]{1,300})\"|`([^`\n]{1,300})`")
_MAX_LEAVES = 256


def _is_locator_name(name: str) -> bool:
    if _CAMEL_ID.search(name):
        return True
    lowered = name.lower()
    return lowered in _LOCATOR_NAMES or lowered.rsplit("_", 1)[-1] in _LOCATOR_NAMES


def _is_locator_value(value: str) -> bool:
    if len(value) > 4096 or not value or value != value.strip():
        return False
    return bool(_URL.match(value) or _PATHLIKE.match(value) or _DATA_FILE.match(value))


def _leaves(value: Any, name: str, depth: int = 0) -> Iterator[tuple[str, bool]]:
    """(the leaf as text, whether it is a locator) for each string and number in ``value``;
    a leaf under a locator's name is one (``{"ids": [3, 4]}``)."""
    if depth > 8:
        raise ValueError("arguments nested too deep")
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, str):
        yield value, _is_locator_name(name) or _is_locator_value(value)
    elif isinstance(value, (int, float)):
        yield repr(value), _is_locator_name(name)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _leaves(item, str(key), depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _leaves(item, name, depth + 1)
    else:
        raise ValueError(f"not a JSON value: {type(value).__name__}")


def _parsed(arguments: Any) -> Any:
    if isinstance(arguments, (str, bytes, bytearray)):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments  # the model's raw text: one value
    return arguments


def locators_only(arguments: Any) -> tuple[str, ...] | None:
    """The locators of ``arguments`` when the model wrote no other value (``()`` for no
    argument at all), else ``None``; ``None`` too for arguments that are not JSON values."""
    try:
        locators: list[str] = []
        for count, (leaf, locator) in enumerate(_leaves(_parsed(arguments), "")):
            if not locator or count >= _MAX_LEAVES:
                return None
            locators.append(leaf)
    except ValueError:
        return None
    return tuple(locators)


def _quotes_a_locator(texts: tuple[str, ...], locators: tuple[str, ...]) -> bool:
    """Does a message quote one of the locators as the value it rejected?"""
    for text in texts:
        for match in _QUOTED.finditer(text, 0, 8192):
            span = next(g for g in match.groups() if g is not None)
            for leaf in locators:
                if span == leaf or (
                    len(leaf) >= 3 and len(span) >= 3 and (span.endswith(leaf) or leaf.endswith(span))
                ):
                    return True
    return False


def by_arguments(verdict: Verdict, texts: tuple[str, ...], arguments: Any) -> Verdict:
    """``verdict`` read beside the call's ``arguments``: a fixable verdict about a value's
    content becomes ambiguous (``tool_input``) when the model wrote no value but locators,
    none of which the message quotes. ``texts``: the messages classification read."""
    if verdict.kind != "fixable" or verdict.family not in CONTENT_FAMILIES:
        return verdict
    locators = locators_only(arguments)
    if locators is None or _quotes_a_locator(texts, locators):
        return verdict
    if any(_ABOUT_THE_CALL.search(text, 0, 8192) for text in texts):
        return verdict
    return replace(verdict, kind="ambiguous", rule=None, family=TOOL_INPUT_FAMILY)
