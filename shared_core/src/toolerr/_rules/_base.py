"""The rule records (one per table kind), the kind and outcome literals and the limits
classification works within."""

from __future__ import annotations

from typing import Literal, NamedTuple

RuleKind = Literal["transient", "fixable", "unrecoverable"]
RuleOutcome = Literal["not_executed", "unknown_outcome"]

T: RuleKind = "transient"
F: RuleKind = "fixable"
U: RuleKind = "unrecoverable"
NE: RuleOutcome = "not_executed"
UO: RuleOutcome = "unknown_outcome"

# Classification looks at this many characters of the text (after leading white space).
WINDOW_CHARS = 4096
# JSON results longer than this are not parsed; only their first window is looked at.
MAX_JSON_CHARS = 1_000_000
# Shell-output rules look for their trailing lines in this many characters at the end.
TAIL_CHARS = 4096
# Exception chains (__cause__, __context__, .reason, args) are followed this deep.
MAX_CHAIN_DEPTH = 6


class Word(NamedTuple):
    """A text matched as a substring of the classified window."""

    text: str
    kind: RuleKind | None
    family: str
    outcome: RuleOutcome | None = None
    source: str = ""
    # Context guards, regular expressions tested on the same line around the match:
    unless_before: str | None = None  # the hit does not count if the text before ends with this
    only_before: str | None = None  # the hit counts only if the text before ends with this
    only_after: str | None = None  # the hit counts only if the text after starts with this
    trap: bool = False  # a quota trap: reported as ``trap:quota``, beats every other rule
    boundary: bool = False  # must not touch a letter, digit or ``_`` on either side
    decisive: bool = False  # kind-less: the failure stays ambiguous whatever else the text says


class CodeRule(NamedTuple):
    """What a structured code (HTTP status, gRPC, errno, JSON-RPC, SQLSTATE, AWS) means."""

    kind: RuleKind | None
    family: str
    outcome: RuleOutcome | None = None
    source: str = ""
    decisive: bool = False


class ExceptionRule(NamedTuple):
    """An exception class, found by name inside a known module prefix (``httpx``,
    ``requests``, ``google.api_core`` ...) anywhere in an exception's MRO."""

    prefix: str  # module prefix: the class's ``__module__`` equals it or starts with it + "."
    name: str  # the class's ``__qualname__``
    kind: RuleKind | None
    family: str
    outcome: RuleOutcome | None = None
    decisive: bool = False
    source: str = ""


class Marker(NamedTuple):
    """A text that announces a structured code; ``pattern`` is matched at the marker's
    start minus ``back`` characters and its group ``code`` is looked up in ``table``."""

    text: str
    table: Literal[
        "http",
        "grpc",
        "jsonrpc",
        "sqlstate",
        "errno_number",
        "winerror",
        "aws",
        "retry_after",
        "reply",
        "nats",
    ]
    pattern: str
    back: int = 0
    source: str = ""


class Template(NamedTuple):
    """A client's own text form of a failed tool call.

    ``start``: a regular expression matched at the first non-blank character; an optional
    group ``code`` is a JSON-RPC code. ``ends``: a literal the text (trailing blanks removed)
    must end with. ``contains``: a literal the first window must contain. ``error``: the text
    after the start match (and before ``ends``) carries the diagnosis, and classification
    reads only that part (None: the whole window is read). ``clients``: client names the
    template applies to (``*`` = every client). ``detects``: a match is a failure by itself.
    ``decisive``: the template alone decides the kind (``kind`` None: stays ambiguous) and no
    word of the text is read.
    """

    id: str
    clients: tuple[str, ...]
    start: str
    kind: RuleKind | None
    family: str | None
    decisive: bool
    detects: bool
    source: str
    error: bool = False
    ends: str | None = None
    contains: str | None = None


class ShellFormat(NamedTuple):
    """A coding agent's shell-command result. Inside it, text printed by the user's program
    is never read as error words: only the exit code (and the agent's own error line) decide.

    ``begins``: regex the text must match at its first non-blank character to be this format.
    ``exit``: regex with group ``code``; searched in ``region`` (``head``: the first
    ``head_chars`` characters before ``head_stop``; ``tail``: the last TAIL_CHARS characters; the
    last match counts) or ``last_line`` (matched against the last non-blank line).
    ``error_line``: regex with group ``error`` for the agent's own error line (last match in the
    tail); a value other than ``none_values`` is a failure.
    """

    id: str
    clients: tuple[str, ...]
    begins: str | None
    exit: str
    region: Literal["head", "tail", "last_line"]
    error_line: str | None
    source: str
    head_stop: str = "\nOutput:"
    head_chars: int = 1024
    any_client: bool = False  # also recognised (never detected) for other clients
