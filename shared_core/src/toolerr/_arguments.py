"""The call's arguments as evidence of where a rejected value came from.

A parser's or validator's message reads the same whether the bad value was the model's
argument or data the tool read: ``The string supplied did not seem to be a phone number``
for a number the model wrote and for a row of the CSV file it named; ``day is out of range
for month`` for a date argument and for an entry a calendar service returned. The text
cannot tell them apart; the call's arguments can. Where the model wrote no value that could
have been the one rejected (it gave only where to read: a path, a URL, a record's id), the
value came from the data the tool read, which the model neither wrote nor can judge: the
failure is ``ambiguous`` (family ``tool_input``), not ``fixable``. A call with no arguments
at all is left as it is (an unknown tool, a missing argument: about the call).

Only fixable verdicts that can be about a value's content change (:data:`CONTENT_FAMILIES`:
a parse error, a bad value or argument, a failed validation, a value out of range, an empty
value; not a "did you mean", which corrects the locator itself), and only towards
ambiguous. The verdict stays where an argument merely *could* be the bad value, where the
message quotes one of the locators as the value it rejected (``invalid literal for int()
with base 10: 'abc'`` for ``{"event_id": "abc"}``), and where it speaks of the call or of
the place the model named (an argument, a parameter, a usage line, a repository, a
directory, a path). Arguments that are not JSON values change nothing.

The tool's declared parameters (its JSON schema, which every adapter and the gateway hold
beside the call) say what the values alone cannot: which arguments point at stored data.
``{"name": "churn_by_plan"}`` is a value by its shape, and a reference when the schema
describes ``name`` as "Name of a saved query" (:func:`declared_references`). A parameter the
schema declares a reference counts as a locator here; the schema never adds a fixable
verdict.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from ._types import Verdict, parse_arguments

__all__ = ["CONTENT_FAMILIES", "by_arguments", "declared_references", "locators_only", "named_by_model"]

CONTENT_FAMILIES = frozenset(
    {"syntax", "bad_value", "bad_arguments", "validation", "out_of_range", "empty_value"}
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
# a store's bucket, collection or database, a record's id (not "key", "table" or "sheet":
# as often the value itself). Matched on the name lowercased, whole or its last ``_`` part.
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
        "bucket",
        "container",
        "collection",
        "database",
        "db",
        "prefix",
        "service",
        "endpoint",
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
_NO_REFERENCES: frozenset[str] = frozenset()

# --- the tool's declared parameters -------------------------------------------------------

# JSON Schema formats of a value that points somewhere (an address, a path, a record's uuid).
_REFERENCE_FORMATS = frozenset(
    {"uri", "uri-reference", "iri", "iri-reference", "url", "uuid", "path", "file-path", "json-pointer"}
)
# A description that names a thing to be made, not one to be found: never a reference.
_CREATES = re.compile(
    r"\bnew\b|\bto (?:be )?(?:create|created|write|written|add|insert|send|post|publish|save|upload|store)\b"
    r"|\b(?:will|to) generate\b",
    re.IGNORECASE,
)
# What a description is about is its head: the words before the first preposition, verb
# marker or punctuation ("Name" of "Name of a saved query", "Drive file id", "The SQL query"
# of "The SQL query to execute. Use double-quoted identifiers"); words further on describe
# the use ("to apply to the file") and say nothing of what the value is.
_HEAD_END = re.compile(
    r"[.,;:()\[\]{}\n]|\s(?:of|for|to|in|on|from|with|by|that|which|where|when|if|as|or|and|e\.g)\b",
    re.IGNORECASE,
)
_HEAD_WORDS = 5
# An identifier is a reference by itself ("Ticket id", "The ID of the channel", "SHA of the commit").
_IDENTIFIES = re.compile(r"\b(?:id|ids|identifiers?|uuids?|guids?|gids?|uids?|slug|sha)\b", re.IGNORECASE)
# A stored thing named in the head ("Existing model name", "Stored template to render").
_STORED = re.compile(r"\b(?:saved|stored|existing|registered|cached|uploaded|installed)\b", re.IGNORECASE)
# A name, key, path or title is one when the first sentence says the thing exists already
# ("Name of a saved query", "Key of the cached value", "Path of the file to import"); not
# "to use" or "to query" ("Name of the column to use for sorting": a schema's vocabulary).
_NAMES = re.compile(r"\b(?:names?|keys?|paths?|urls?|uris?|filenames?|titles?|refs?)\b", re.IGNORECASE)
_EXISTS = re.compile(
    r"\b(?:saved|stored|existing|registered|configured|cached|uploaded|installed|known)\b"
    r"|\bto (?:read|load|open|fetch|get|look ?up|retrieve|download|import|run|execute|render"
    r"|inspect|check ?out|restore|update|edit|modify|delete|remove|move|copy|archive|close|merge"
    r"|cancel|rename)\b",
    re.IGNORECASE,
)
_MAX_PROPERTIES = 256


def _head(description: str) -> str:
    """The head noun phrase of a description: its first words, up to the first preposition,
    verb marker or punctuation (at most five words)."""
    start = description[:120]  # five words of a description fit in it
    end = _HEAD_END.search(start)
    head = start[: end.start()] if end is not None else start
    return " ".join(head.split()[:_HEAD_WORDS])


_SENTENCE_END = re.compile(r"[.;\n]\s")


def _first_sentence(description: str) -> str:
    end = _SENTENCE_END.search(description)
    return description[: end.start()] if end is not None else description


def _declares_reference(schema: Mapping[Any, Any]) -> bool:
    description = schema.get("description")
    description = description[:300] if isinstance(description, str) else ""
    if _CREATES.search(description):
        return False
    form = schema.get("format")
    if isinstance(form, str) and form in _REFERENCE_FORMATS:
        return True
    head = _head(description)
    if _IDENTIFIES.search(head) or _STORED.search(head):
        return True
    return bool(_NAMES.search(head) and _EXISTS.search(_first_sentence(description)))


# The last schemas read, by identity (an adapter hands the same tool's schema on every call):
# id -> (the schema, its references). A schema changed in place keeps its first reading.
_READ: dict[int, tuple[object, frozenset[str]]] = {}
_READ_MAX = 128


def declared_references(parameters: Any) -> frozenset[str]:
    """The names of the parameters a tool's JSON schema declares as references to stored data:
    a ``format`` that addresses something (``uri``, ``uuid``, ``path``), or a description
    whose head (its first words, before a preposition or a verb) is an identifier ("Ticket
    id", "The ID of the channel") or a stored thing ("Existing model name"), or a name, key,
    path or title whose first sentence says the thing exists already ("Name of a saved
    query", "Path of the file to import"); never one to be made ("Name for the new branch",
    "URL for the new webhook"), never an ``enum``, never a value described by its use ("The
    SQL query to execute", "A unified diff patch to apply to the file"). Reads the first 300
    characters of each description. Anything that is not a schema object: none. A schema is
    read once per object (the last 128 kept): one changed in place keeps its first reading."""
    if not isinstance(parameters, Mapping):
        return _NO_REFERENCES
    known = _READ.get(id(parameters))
    if known is not None and known[0] is parameters:
        return known[1]
    found = _read_references(parameters)
    if len(_READ) >= _READ_MAX:
        _READ.clear()
    _READ[id(parameters)] = (parameters, found)
    return found


def _read_references(parameters: Mapping[Any, Any]) -> frozenset[str]:
    properties = parameters.get("properties")
    if not isinstance(properties, Mapping) or len(properties) > _MAX_PROPERTIES:
        return _NO_REFERENCES
    found = [
        name
        for name, schema in properties.items()
        if isinstance(name, str)
        and isinstance(schema, Mapping)
        and "enum" not in schema
        and _declares_reference(schema)
    ]
    return frozenset(found)


def _quoted_spans(text: str, end: int) -> Iterator[str]:
    """What ``text`` quotes (in single, double or back quotes) in its first ``end`` characters."""
    for match in _QUOTED.finditer(text, 0, end):
        yield next(g for g in match.groups() if g is not None)


def _is_locator_name(name: str) -> bool:
    if _CAMEL_ID.search(name):
        return True
    lowered = name.lower()
    return lowered in _LOCATOR_NAMES or lowered.rsplit("_", 1)[-1] in _LOCATOR_NAMES


def _is_locator_value(value: str) -> bool:
    if len(value) > 4096 or not value or value != value.strip():
        return False
    return bool(_URL.match(value) or _PATHLIKE.match(value) or _DATA_FILE.match(value))


def _leaves(
    value: Any, name: str, depth: int = 0, references: frozenset[str] = _NO_REFERENCES
) -> Iterator[tuple[str, bool]]:
    """(the leaf as text, whether it is a locator) for each string and number in ``value``;
    a leaf under a locator's name is one (``{"ids": [3, 4]}``), and so is a leaf of a top-level
    argument the tool's schema declares a reference (``references``)."""
    if depth > 8:
        raise ValueError("arguments nested too deep")
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, str):
        yield value, _is_locator_name(name) or _is_locator_value(value) or name in references
    elif isinstance(value, (int, float)):
        yield repr(value), _is_locator_name(name) or name in references
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _leaves(item, str(key), depth + 1, references if depth == 0 else _NO_REFERENCES)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _leaves(item, name, depth + 1, references)
    else:
        raise ValueError(f"not a JSON value: {type(value).__name__}")


def _all_leaves(arguments: Any, references: frozenset[str] = _NO_REFERENCES) -> list[tuple[str, bool]] | None:
    """:func:`_leaves` of the arguments (the model's JSON text parsed, as the ledger parses
    it; raw text that does not parse is one value), ``None`` when they are not JSON values."""
    if isinstance(arguments, (bytes, bytearray)):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return None  # neither JSON nor text
    try:
        return list(_leaves(parse_arguments(arguments), "", 0, references))
    except ValueError:
        return None


def locators_only(arguments: Any) -> tuple[str, ...] | None:
    """The locators of ``arguments`` when the model wrote no other value (``()`` for no
    argument at all), else ``None``; ``None`` too for arguments that are not JSON values."""
    return _locators(_all_leaves(arguments))


def _locators(leaves: list[tuple[str, bool]] | None) -> tuple[str, ...] | None:
    if leaves is None or len(leaves) > _MAX_LEAVES or not all(locator for _, locator in leaves):
        return None
    return tuple(leaf for leaf, _ in leaves)


def _quotes_a_locator(texts: tuple[str, ...], locators: tuple[str, ...]) -> bool:
    """Does a message quote one of the locators as the value it rejected?"""
    for text in texts:
        for span in _quoted_spans(text, 8192):
            for leaf in locators:
                if span == leaf or (
                    len(leaf) >= 3 and len(span) >= 3 and (span.endswith(leaf) or leaf.endswith(span))
                ):
                    return True
    return False


def by_arguments(
    verdict: Verdict, texts: tuple[str, ...], arguments: Any, references: frozenset[str] = _NO_REFERENCES
) -> Verdict:
    """``verdict`` read beside the call's ``arguments``: a fixable verdict about a value's
    content becomes ambiguous (``tool_input``) when the model wrote no value but locators,
    none of which the message quotes (no argument at all: an unknown tool's or a missing
    argument's error, about the call). ``texts``: the messages classification read;
    ``references``: the arguments the tool's schema declares references
    (:func:`declared_references`)."""
    if verdict.kind != "fixable" or verdict.family not in CONTENT_FAMILIES:
        return verdict
    if references:  # the schema only ever adds locators: what the values alone say stands
        alone = by_arguments(verdict, texts, arguments)
        if alone.kind == "ambiguous":
            return alone
    leaves = _all_leaves(arguments, references)
    locators = _locators(leaves)
    if (
        locators is None
        and leaves
        and len(leaves) <= _MAX_LEAVES
        and (_parsed_beyond(texts, leaves) or _validated_elsewhere(texts, leaves))
    ):
        return replace(verdict, kind="ambiguous", rule=None, family=TOOL_INPUT_FAMILY)
    if not locators or _quotes_a_locator(texts, locators):
        return verdict  # a value the model wrote may be it; no argument at all: about the call
    if any(_ABOUT_THE_CALL.search(text, 0, 8192) for text in texts[:2]):  # not the causes'
        return verdict
    return replace(verdict, kind="ambiguous", rule=None, family=TOOL_INPUT_FAMILY)


# A parser's position in its input: a character offset, or a line and a column.
_POSITION = re.compile(
    r"\(char (\d{1,9})\)|\bat (?:position|offset|char(?:acter)?) (\d{1,9})"
    r"|\b[Ll]ine:? (\d{1,9}),? [Cc]ol(?:umn)?:? ?(\d{1,9})"
)


def _parsed_beyond(texts: tuple[str, ...], leaves: list[tuple[str, bool]]) -> bool:
    """Does the parser report a position that no string the model wrote reaches (``(char
    40)`` when no argument is longer than 40 characters, ``line 2`` when none has two lines)?
    Then it parsed something else: a file or a response the tool read. ``leaves``: the
    arguments' (:func:`_all_leaves`), at least one."""
    for text in texts[:2]:
        for span in _quoted_spans(text, 4096):
            if len(span) >= 2 and any(span in leaf for leaf, _ in leaves):
                return False  # it quotes what the model wrote ('YYYY' of a format it gave)
    longest = max(len(leaf) for leaf, _ in leaves)
    most_lines = max(leaf.count("\n") + 1 for leaf, _ in leaves)
    found = False
    for text in texts[:2]:
        if not ("char" in text or "at " in text or "ine" in text):
            continue
        for match in _POSITION.finditer(text, 0, 4096):
            offset = match.group(1) or match.group(2)
            if offset is not None:
                if int(offset) <= longest:
                    return False
            else:
                line, column = int(match.group(3)), int(match.group(4))
                if line <= most_lines and (line > 1 or column <= longest + 1):
                    return False
            found = True
    return found


# pydantic's report of the value it rejected: ``input_value='pending', input_type=str``.
_INPUT_VALUE = re.compile(
    r"input_value=(?:'([^'\n]{0,300})'|\"([^\"\n]{0,300})\"|(-?\d[\d.eE+-]{0,40}))[,\]]"
)


def _validated_elsewhere(texts: tuple[str, ...], leaves: list[tuple[str, bool]]) -> bool:
    """Does a validator name, as the values it rejected, only values the model did not write
    (pydantic's ``input_value='pending'`` in the SDK's model of a response, where the model
    gave a task's id)? A value the model wrote, or one made from it, keeps the verdict."""
    found = False
    for text in texts[:2]:
        if "input_value=" not in text:
            continue
        for match in _INPUT_VALUE.finditer(text, 0, 8192):
            value = next(g for g in match.groups() if g is not None)
            if not value or any(value in leaf or leaf in value for leaf, _ in leaves if leaf):
                return False
            found = True
    return found


# --- a name the model wrote that does not exist ---------------------------------------------

_LOOKUP_CLASSES = frozenset({"KeyError", "IndexError", "LookupError"})
_ZERO_CLASSES = frozenset({"ZeroDivisionError", "DivisionByZero", "DivisionUndefined"})
_TEXT_LOOKUP = re.compile(
    r"^(?:Error: )?(?:[A-Za-z_][\w.]{0,80}\.)?(KeyError|IndexError|LookupError|ZeroDivisionError)\b"
)
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?![\w.])")


def _classes(exception: BaseException | None, texts: tuple[str, ...]) -> set[str]:
    """The builtin lookup and division classes the failure is (by the MRO, else the text)."""
    if exception is not None:
        return {cls.__name__ for cls in type(exception).__mro__} & (_LOOKUP_CLASSES | _ZERO_CLASSES)
    match = _TEXT_LOOKUP.match(texts[0]) if texts else None
    return {match.group(1)} if match else set()


def _named_values(texts: tuple[str, ...], exception: BaseException | None) -> tuple[list[str], list[int]]:
    """The names (quoted, or a KeyError's key) and the numbers the messages give."""
    names: list[str] = []
    if isinstance(exception, KeyError) and exception.args and isinstance(exception.args[0], (str, int)):
        names.append(str(exception.args[0]))
    numbers: list[int] = []
    for text in texts:
        names.extend(_quoted_spans(text, 4096))
        numbers.extend(int(n) for n in _NUMBER.findall(text[:4096]) if len(n) < 19)
    return [n for n in names if len(n.strip()) >= 2], numbers


def _model_named(
    texts: tuple[str, ...], exception: BaseException | None, arguments: Any, references: frozenset[str]
) -> bool:
    """Does the message name, as the one it could not find, a value the model wrote (not one
    the tool's schema declares a reference: a stored thing that is not there)?"""
    leaves = _all_leaves(arguments)
    if leaves is None:
        return False
    if references:
        declared = _all_leaves(arguments, references)
        if declared is None:
            return False
        leaves = [leaf for leaf, (_, locator) in zip(leaves, declared, strict=True) if not locator or leaf[1]]
    names, numbers = _named_values(texts, exception)
    strings = [leaf for leaf, _ in leaves if not _is_number(leaf)]
    for name in names:
        for leaf in strings:
            if len(leaf) >= 2 and (name == leaf or leaf in name or _token_in(name, leaf)):
                return True
    wanted = {int(leaf) for leaf, _ in leaves if _is_number(leaf) and leaf.lstrip("-").isdigit()}
    return any(n in wanted and (n < 0 or n >= 2) for n in numbers)


# A missing *resource* (a file, a ref, a record, a template: "not found", "no such", a path,
# a key the tool holds as bytes) stays ambiguous, as the contract says of missing resources:
# the name may be right and the thing gone. A name in a vocabulary or a schema the model
# wrote (a unit, a locale, a column, a document's key) is the model's to fix.
_RESOURCE_WORDS = re.compile(r"not found|no such|missing", re.IGNORECASE)


def _a_resource(texts: tuple[str, ...], exception: BaseException | None) -> bool:
    if any(_RESOURCE_WORDS.search(text, 0, 4096) for text in texts):
        return True
    if isinstance(exception, KeyError) and exception.args and isinstance(exception.args[0], (bytes, tuple)):
        return True
    return any(
        "/" in match.group(0) or match.group(0).startswith("b'")
        for text in texts
        for match in _KEY_SHAPE.finditer(text, 0, 4096)
    )


_KEY_SHAPE = re.compile(r"b?'[^'\n]{1,300}'")


def _is_number(leaf: str) -> bool:
    try:
        float(leaf)
    except ValueError:
        return False
    return True


def _token_in(name: str, leaf: str) -> bool:
    """``name`` is a whole word of ``leaf`` (``'meterz'`` in ``"5 meterz"``)."""
    return re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", leaf) is not None


def _zero_given(arguments: Any) -> bool:
    leaves = _all_leaves(arguments)
    return leaves is not None and any(_is_number(leaf) and float(leaf) == 0 for leaf, _ in leaves)


def named_by_model(
    verdict: Verdict,
    texts: tuple[str, ...],
    exception: BaseException | None,
    arguments: Any,
    references: frozenset[str] = _NO_REFERENCES,
) -> Verdict:
    """An ambiguous ``KeyError`` / ``IndexError`` / ``LookupError`` (a lookup that found
    nothing: a tool's bug as often as a wrong name) whose message names a value the model
    wrote (``KeyError: 'revnue'`` for ``{"column": "revnue"}``, ``index 10 is out of
    bounds`` for ``{"index": 10}``) is the model's to fix, unless the tool's schema declares
    that argument a reference (``references``: a saved report's name that is not there is a
    missing resource); so is a division by a zero the model gave. Any other verdict is
    returned as it is."""
    if verdict.kind != "ambiguous" or verdict.family == TOOL_INPUT_FAMILY:
        return verdict
    classes = _classes(exception, texts)
    if not classes:
        return verdict
    if (
        classes & _LOOKUP_CLASSES
        and not _a_resource(texts, exception)
        and _model_named(texts, exception, arguments, references)
    ):
        return replace(verdict, kind="fixable", rule="arguments:named", family="not_found_named")
    if classes & _ZERO_CLASSES and _zero_given(arguments):
        return replace(verdict, kind="fixable", rule="arguments:zero", family="bad_value")
    return verdict
