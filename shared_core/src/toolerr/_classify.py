"""Classification: which kind of failure, which rule, and what a retry would do.

Decided from the exception object (type and attributes) and from the first 4 KB of the text,
in priority order unrecoverable, transient, fixable; anything else is ambiguous
(the contract's "Classification"). Structure beats words: HTTP status codes, gRPC codes, errno names,
JSON-RPC codes, SQLSTATE and AWS error codes are read where the text announces them, never
as any number in prose. Quota traps (a 429 whose text says the quota or credits are gone)
are unrecoverable.

All words, code names and markers of :mod:`toolerr._rules` are found in one pass over the
window: one regular expression in which every entry is anchored on a rare character it
contains (so that the regex engine's first-character test skips most positions of an ordinary
text), the rest of the entry matched through a trie and its beginning checked by a
look-behind. The anchors are chosen when the module is imported, from the rule data; the
machinery is :mod:`toolerr._scanner`.

Verdicts for short string results are cached (bounded LRU): a conversation is re-inspected on
every model call, and the same results come back again and again.
"""

from __future__ import annotations

import errno as _errno
import re
from collections.abc import Iterable
from dataclasses import replace
from functools import lru_cache
from typing import Any, NamedTuple

from . import _rules as R
from ._arguments import CONTENT_FAMILIES, TOOL_INPUT_FAMILY, by_arguments, declared_references, named_by_model
from ._detect import Detection, analyse
from ._exception_names import lookup_name
from ._exceptions import ExceptionFacts, Link, parse_retry_after, read_exception
from ._failopen import log_swallowed, safe_getattr
from ._render import is_c1_suffix, strip_c1_suffix
from ._scanner import Entry as _Entry
from ._scanner import Marker as _Marker
from ._scanner import Scanner, anchor_set, position_cost
from ._types import NOT_FAILED, Kind, Message, Outcome, Verdict, content_text

__all__ = ["inspect_message", "inspect_result"]


class _Hit(NamedTuple):
    kind: R.RuleKind | None
    rule: str | None
    family: str | None
    outcome: R.RuleOutcome | None = None
    decisive: bool = False


# --- the one-pass scanner (:mod:`toolerr._scanner`) ---------------------------------------


def _entries() -> list[_Entry]:
    raw: list[tuple[str, str, R.Word | None, str, _Marker | None, bool]] = []
    for word in R.WORDS:
        raw.append((word.text, "word", word, "", None, word.boundary))
    for name in R.ERRNO:
        raw.append((name, "errno", None, name, None, name not in R.ERRNO_SUBSTRING))
    for name in R.GRPC_WORDS:
        raw.append((name, "grpc", None, name, None, False))
    for code in R.JSONRPC_WORDS:
        raw.append((str(code), "jsonrpc", None, str(code), None, False))
    for spec in R.MARKERS:
        raw.append((spec.text, "marker", None, "", _Marker(spec, re.compile(spec.pattern)), False))
    # Floor errno and gRPC names that are also plain words: the structured rule wins.
    structured = {text for text, source, *_ in raw if source in ("errno", "grpc", "jsonrpc")}
    raw = [item for item in raw if not (item[1] == "word" and item[0] in structured)]
    anchors = anchor_set([item[0] for item in raw])
    out: list[_Entry] = []
    for text, source, entry_word, name, marker, boundary in raw:
        anchor = min(
            (i for i, ch in enumerate(text) if ch in anchors), key=lambda i: (position_cost(text, i), i)
        )
        out.append(_Entry(text, anchor, source, entry_word, name, marker, boundary))
    return out


_SCANNER = Scanner(_entries())
_START_STATUS = re.compile(R.START_STATUS)
_EXCEPTION_NAME = re.compile(R.EXCEPTION_NAME)
_ERROR_PREFIX = re.compile(R.ERROR_PREFIX)
_REPLY_PHRASE = re.compile(R.REPLY_PHRASE)
_FILE_INPUT = re.compile(R.FILE_INPUT)
_LINE_START_NAME = re.compile(
    r"^(?P<name>(?:[A-Za-z_]\w{0,80}\.){0,8}[A-Za-z_]\w{0,120})(?=[:(]|$)", re.MULTILINE
)
_GUARDS: dict[str, re.Pattern[str]] = {}
for _w in R.WORDS:
    for _g in (_w.unless_before, _w.only_before, _w.only_after):
        if _g is not None and _g not in _GUARDS:
            _GUARDS[_g] = re.compile(_g)
_WORD_CHAR = re.compile(r"\w")
_GUARD_SPAN = 320


# --- evidence ----------------------------------------------------------------------------


class _Evidence:
    """Everything the texts say, gathered before the kind is decided."""

    __slots__ = (
        "decisive",
        "exception_name",
        "families",
        "http",
        "other_status",
        "outcomes",
        "retry_after",
        "status",
        "structure",
        "traps",
        "words",
    )

    def __init__(self) -> None:
        self.traps: list[_Hit] = []
        self.structure: list[_Hit] = []  # codes and exception names
        self.words: list[_Hit] = []
        # The HTTP status and its reason phrases: the fallback, read only where nothing more
        # specific (a code, an exception name, a word of the message) gives a kind.
        self.status: list[_Hit] = []
        self.families: list[str] = []  # from rules that decide no kind
        self.outcomes: list[R.RuleOutcome] = []  # hints and transient hits
        self.decisive: _Hit | None = None  # a rule that keeps the failure ambiguous
        self.exception_name: str | None = None  # an unknown exception name printed in the text
        self.http: int | None = None
        self.other_status: int | str | None = None
        self.retry_after: float | None = None

    def add_code(self, rule: R.CodeRule, rule_id: str, *, status: bool = False) -> None:
        if rule.kind is None:
            self.families.append(rule.family)
        else:
            hit = _CODE_HITS.get(rule_id)
            if hit is None:
                hit = _CODE_HITS[rule_id] = _Hit(rule.kind, rule_id, rule.family, rule.outcome, rule.decisive)
            (self.status if status else self.structure).append(hit)
        if rule.outcome is not None:
            self.outcomes.append(rule.outcome)


_CODE_HITS: dict[str, _Hit] = {}
_WORD_HITS: dict[R.Word, _Hit] = {
    word: _Hit(
        word.kind,
        f"trap:{word.family}" if word.trap else f"words:{word.kind}:{word.text}",
        word.family,
        word.outcome,
    )
    for word in R.WORDS
    if word.kind is not None
}


def _line_context(text: str, start: int, end: int) -> tuple[str, str]:
    lo = max(0, start - _GUARD_SPAN)
    nl = text.rfind("\n", lo, start)
    before = text[(nl + 1 if nl >= 0 else lo) : start]
    hi = min(len(text), end + _GUARD_SPAN)
    nl = text.find("\n", end, hi)
    after = text[end : nl if nl >= 0 else hi]
    return before, after


def _word_counts(word: R.Word, text: str, start: int) -> bool:
    end = start + len(word.text)
    if word.boundary and (
        (start > 0 and _WORD_CHAR.match(text, start - 1)) or (end < len(text) and _WORD_CHAR.match(text, end))
    ):
        return False
    if word.unless_before is None and word.only_before is None and word.only_after is None:
        return True
    before, after = _line_context(text, start, end)
    if word.unless_before is not None and _GUARDS[word.unless_before].search(before):
        return False
    if word.only_before is not None and not _GUARDS[word.only_before].search(before):
        return False
    return not (word.only_after is not None and not _GUARDS[word.only_after].match(after))


def _bounded(text: str, start: int, end: int) -> bool:
    return not (
        (start > 0 and _WORD_CHAR.match(text, start - 1)) or (end < len(text) and _WORD_CHAR.match(text, end))
    )


def _http(ev: _Evidence, code: int) -> None:
    if code < 400:
        return
    if ev.http is None:
        ev.http = code
    rule = R.HTTP_STATUS.get(code)
    if rule is None:
        ev.families.append(f"http.{code}")
        return
    ev.add_code(rule, f"http:{code}", status=True)


def _reply(ev: _Evidence, code: int) -> None:
    rule = R.REPLY_CODES.get(code)
    if rule is not None:
        ev.add_code(rule, f"reply:{code}")
    else:
        ev.families.append(f"reply.{code}")


def _grpc(ev: _Evidence, name: str) -> None:
    name = R.GRPC_ALIASES.get(name, name)
    rule = R.GRPC_STATUS.get(name)
    if rule is None:
        return
    if ev.other_status is None:
        ev.other_status = name
    ev.add_code(rule, f"grpc:{name}")


def _jsonrpc(ev: _Evidence, code: int) -> None:
    rule = R.JSONRPC.get(code)
    if ev.other_status is None:
        ev.other_status = code
    if rule is not None:
        ev.add_code(rule, f"jsonrpc:{code}")


def _errno_name(ev: _Evidence, name: str) -> None:
    rule = R.ERRNO.get(name)
    if rule is not None:
        ev.add_code(rule, f"errno:{name}")


def _sqlstate(ev: _Evidence, code: str) -> None:
    code = code.upper()
    rule = R.SQLSTATE.get(code) or R.SQLSTATE_CLASSES.get(code[:2])
    if rule is not None:
        ev.add_code(rule, f"sqlstate:{code}")


def _aws(ev: _Evidence, code: str) -> None:
    rule = R.AWS_ERROR_CODES.get(code)
    if rule is not None:
        ev.add_code(rule, f"aws:{code}")
    else:
        ev.families.append(f"aws.{code}")


def _marker(ev: _Evidence, marker: _Marker, text: str, start: int) -> None:
    spec = marker.spec
    pos = start - spec.back
    if pos < 0:
        return
    m = marker.regex.match(text, pos)
    if m is None:
        return
    code = m.group("code")
    table = spec.table
    if table == "http":
        _http(ev, int(code))
    elif table == "grpc":
        _grpc(ev, code)
    elif table == "jsonrpc":
        _jsonrpc(ev, int(code))
    elif table == "sqlstate":
        _sqlstate(ev, code)
    elif table == "errno_number":
        name = _errno.errorcode.get(int(code))
        if name is not None:
            _errno_name(ev, name)
    elif table == "winerror":
        name = R.WINERROR.get(int(code))
        if name is not None:
            _errno_name(ev, name)
    elif table == "aws":
        _aws(ev, code)
    elif table == "reply":
        _reply(ev, int(code))
    elif table == "nats":
        rule = R.NATS_JETSTREAM.get(int(code))
        if rule is not None:
            if rule.kind is None:
                ev.families.append(rule.family)
                if ev.decisive is None:
                    ev.decisive = _Hit(None, None, rule.family, None, True)
            else:
                ev.add_code(rule, f"nats:{code}")
    elif table == "retry_after" and ev.retry_after is None:
        groups = m.groupdict()
        unit = (groups.get("unit") or "").lower()
        scale = 0.001 if groups.get("ms") else R.RETRY_UNITS.get(unit, 1.0)
        seconds = parse_retry_after(code, scale)
        extra = groups.get("code2")
        if seconds is not None and extra:
            seconds += float(extra)
        ev.retry_after = seconds


_EXCEPTION_SUFFIXES = ("Error", "Exception", "Timeout", "Failure", "Expired", "Denied", "Exceeded")


def _exception_name(ev: _Evidence, name: str, *, last: bool) -> None:
    rule = _lookup_name(name)
    if rule is None:
        short = name.rpartition(".")[2]
        if last and ev.exception_name is None and short.endswith(_EXCEPTION_SUFFIXES):
            ev.exception_name = short
        return
    if rule.kind is None:
        ev.families.append(rule.family)
        if rule.decisive and last:
            ev.decisive = _Hit(None, None, rule.family, None, True)
        if rule.outcome is not None:
            ev.outcomes.append(rule.outcome)
        return
    ev.structure.append(_exception_hit(name, rule))
    if rule.outcome is not None:
        ev.outcomes.append(rule.outcome)


# The same names come back in text after text (``TypeError``, ``httpx.ReadTimeout``).
_lookup_name = lru_cache(maxsize=4096)(lookup_name)


@lru_cache(maxsize=4096)
def _exception_hit(name: str, rule: R.ExceptionRule) -> _Hit:
    return _Hit(rule.kind, f"exception:{name}", rule.family, rule.outcome)


_ECHOES = tuple((key, re.compile(pattern)) for key, pattern in R.ECHO_PATTERNS)


def _echo_spans(text: str) -> list[tuple[int, int]]:
    """Spans of ``text`` that repeat the caller's input (pydantic ``input_value=...``): words
    there are the model's own arguments, not a diagnosis."""
    spans: list[tuple[int, int]] = []
    for key, regex in _ECHOES:
        if key in text:
            spans.extend(m.span() for m in regex.finditer(text))
    return spans


def _scan(ev: _Evidence, text: str, *, names: bool = True) -> None:
    """Add the evidence found in ``text`` (at most one window long)."""
    if not text:
        return
    if names:
        if text.startswith(R.TRACEBACK_START):
            _traceback_names(ev, text)
        else:
            pos = 0
            if text[0] in "Ee":
                pm = _ERROR_PREFIX.match(text)
                if pm is not None:
                    pos = pm.end()
            if text[pos : pos + 1].isdigit() or text.startswith("HTTP", pos):
                m = _START_STATUS.match(text)
                if m is not None:
                    code = int(m.group("code"))
                    if _REPLY_PHRASE.match(text, m.end("code")) and "HTTP" not in text[: m.start("code")]:
                        _reply(ev, code)  # an SMTP or FTP reply line, not an HTTP status
                    else:
                        _http(ev, code)
            nm = _EXCEPTION_NAME.match(text, pos)
            if nm is not None:
                _exception_name(ev, nm.group("name"), last=True)
    echoes = _echo_spans(text)
    guarded: dict[int, int] | None = None
    for start, entry in _SCANNER.hits(text):
        if echoes and any(lo <= start < hi for lo, hi in echoes):
            continue
        source = entry.source
        if source == "word":
            word = entry.word
            if word is None:
                continue
            if word.only_before is not None or word.unless_before is not None or word.only_after is not None:
                # a guard reads the line around each hit: a text that repeats one word
                # hundreds of times is read for its first _GUARDED_HITS
                if guarded is None:
                    guarded = {}
                seen = guarded.get(id(word), 0)
                if seen >= _GUARDED_HITS:
                    continue
                guarded[id(word)] = seen + 1
            if not _word_counts(word, text, start):
                continue
            if word.kind is None:
                ev.families.append(word.family)
                if word.outcome is not None:
                    ev.outcomes.append(word.outcome)
                if word.decisive and ev.decisive is None:
                    ev.decisive = _Hit(None, None, word.family, None, True)
            elif word.trap:
                ev.traps.append(_WORD_HITS[word])
            elif word.text in R.STATUS_PHRASES:
                ev.status.append(_WORD_HITS[word])
            else:
                ev.words.append(_WORD_HITS[word])
                if word.outcome is not None:
                    ev.outcomes.append(word.outcome)
        elif source == "marker":
            if entry.marker is not None:
                _marker(ev, entry.marker, text, start)
        elif entry.boundary and not _bounded(text, start, start + len(entry.text)):
            continue
        elif source == "errno":
            _errno_name(ev, entry.name)
        elif source == "grpc":
            _grpc(ev, entry.name)
        elif source == "jsonrpc":
            _jsonrpc(ev, int(entry.name))


_GUARDED_HITS = 16


def _traceback_names(ev: _Evidence, text: str) -> None:
    """Exception names at the start of the unindented lines of a Python trace (the last
    one is the exception that was raised)."""
    names = [m.group("name") for m in _LINE_START_NAME.finditer(text)]
    names = [n for n in names if n not in ("Traceback", "During", "The")]
    for i, name in enumerate(names):
        _exception_name(ev, name, last=i == len(names) - 1)


def traceback_view(text: str) -> str:
    """The lines of a Python trace that are not frames or source lines."""
    lines = [
        line
        for line in text.split("\n")
        if line and not line[0].isspace() and line.rstrip() not in R.TRACEBACK_SKIP_LINES
    ]
    return "\n".join(lines)


# --- exceptions ----------------------------------------------------------------------------


def _specific(link: Link) -> tuple[R.CodeRule, str] | None:
    """The most specific code an exception carries (an API error code of its body, an AWS
    error code, a rate-limit header): it beats the class and the HTTP status class."""
    for code in link.vendor:
        return R.VENDOR_ERROR_CODES[code], f"code:{code}"
    if link.aws_code is not None:
        aws = R.AWS_ERROR_CODES.get(link.aws_code)
        if aws is not None:
            return aws, f"aws:{link.aws_code}"
    if link.rate_limited and link.status in (403, 429):
        return R.RATE_LIMIT_RULE, "header:x-ratelimit-remaining"
    for code_rule, code_id in link.protocol:
        return code_rule, code_id
    return None


def _link_hits(link: Link) -> list[_Hit]:
    """What one exception says by its class and attributes, strongest first."""
    hits: list[_Hit] = []
    specific = _specific(link)
    if specific is not None:
        code_rule, code_id = specific
        if code_rule.kind is None:
            if code_rule.decisive:
                return [_Hit(None, None, code_rule.family, None, True)]
        else:
            hits.append(_Hit(code_rule.kind, code_id, code_rule.family, code_rule.outcome))
    rule = link.rule
    if rule is not None and rule.kind is None and rule.decisive:
        # a class that names the condition (RepositoryNotFoundError, IdempotencyError) says
        # more than the status it came with (a 401 for a repository that is not shown)
        return [*hits, _Hit(None, None, rule.family, None, True)]
    if rule is not None and rule.kind is not None:
        hits.append(_Hit(rule.kind, f"exception:{link.rule_class}", rule.family, rule.outcome))
    ev = _Evidence()
    if link.aws_code is not None:
        _aws(ev, link.aws_code)
        hits.extend(ev.structure)
        ev.structure.clear()
    if link.status is not None:
        # AWS answers 400 for many conditions that are not the caller's mistake: with an
        # error code the table does not know, a 400 is not read as "fixable".
        aws_unknown = link.aws_code is not None and link.aws_code not in R.AWS_ERROR_CODES
        status_rule = R.HTTP_STATUS.get(link.status)
        if not (aws_unknown and status_rule is not None and status_rule.kind == "fixable"):
            _http(ev, link.status)
            hits.extend(ev.status)
    if link.grpc is not None:
        _grpc(ev, link.grpc)
    if link.sqlstate is not None:
        _sqlstate(ev, link.sqlstate)
    if link.errno_name is not None:
        _errno_name(ev, link.errno_name)
    if link.jsonrpc is not None:
        _jsonrpc(ev, link.jsonrpc)
    hits.extend(ev.structure)
    return hits


def _status_level(link: Link, top: _Hit) -> bool:
    """Whether the exception's strongest hit says no more than its HTTP status: no specific
    code, and a class that is absent or only names the status (``PermissionDeniedError`` for
    403, ``InternalServerError`` for 500)."""
    if link.status is None or _specific(link) is not None:
        return False
    if link.grpc is not None or link.sqlstate is not None or link.errno_name is not None:
        return False
    status_rule = R.HTTP_STATUS.get(link.status)
    if status_rule is None or status_rule.kind is None:
        return False
    rule = link.rule
    return rule is None or rule.kind is None or (rule.kind == status_rule.kind and top.kind == rule.kind)


def _said(link: Link) -> _Evidence:
    """What the exception's own message and response body say, its class name left out."""
    said = _Evidence()
    message = link.message
    prefix = link.qualname + ": "
    if message.startswith(prefix):
        message = message[len(prefix) :]
    elif message == link.qualname:
        message = ""
    _scan(said, message, names=False)
    if link.body:
        _scan(said, link.body, names=False)
    return said


def _link_outcomes(link: Link) -> Iterable[R.RuleOutcome]:
    for hit in _link_hits(link):
        if hit.outcome is not None:
            yield hit.outcome
    if link.rule is not None and link.rule.kind is None and link.rule.outcome is not None:
        yield link.rule.outcome


# --- the verdict ---------------------------------------------------------------------------


_RANK: dict[str | None, int] = {"unrecoverable": 0, "transient": 1, "fixable": 2}


def _ranked(groups: Iterable[list[_Hit]], worst: int = 3) -> _Hit | None:
    """The highest-priority hit (unrecoverable, transient, fixable) of ``groups`` ranked
    better than ``worst``; within a kind, the first group, then the first found."""
    best: _Hit | None = None
    best_rank = worst
    for hits in groups:
        for hit in hits:
            rank = _RANK.get(hit.kind, 3)
            if rank < best_rank:
                best, best_rank = hit, rank
    return best


def _best(ev: _Evidence) -> _Hit | None:
    """The kind from the most specific evidence. A code or word that says unrecoverable or
    transient (a rate limit in a 403's body, out of memory in a 503's) beats the HTTP status
    class; the status beats a fixable word (a 401 whose message says "did not match"); a
    fixable word decides where there is no status. Within each, the priority order
    unrecoverable, transient, fixable, structure before words."""
    strong = _ranked((ev.structure, ev.words), worst=2)
    status = _ranked((ev.status,))
    if strong is not None:
        # the same kind from a code of the status and from a word: the code is the rule
        return status if status is not None and status.kind == strong.kind and strong in ev.words else strong
    if status is not None:
        return status
    return _ranked((ev.structure, ev.words))


def _final_outcome(outcomes: list[R.RuleOutcome]) -> Outcome:
    if "unknown_outcome" in outcomes or "not_executed" not in outcomes:
        return "unknown_outcome"
    return "not_executed"


def _status(facts: ExceptionFacts | None, ev: _Evidence) -> int | str | None:
    if facts is not None:
        for link in facts.links:
            if link.status is not None:
                return link.status
    if ev.http is not None:
        return ev.http
    if facts is not None:
        for link in facts.links:
            if link.grpc is not None:
                return link.grpc
            if link.jsonrpc is not None:
                return link.jsonrpc
    return ev.other_status


def _verdict(
    det: Detection,
    hit: _Hit | None,
    facts: ExceptionFacts | None,
    ev: _Evidence,
    family: str | None = None,
) -> Verdict:
    kind: Kind = "ambiguous" if hit is None or hit.kind is None else hit.kind
    outcome: Outcome | None = None
    chain = [o for link in facts.links[1:] for o in _link_outcomes(link)] if facts is not None else []
    if kind == "transient":
        if chain:
            # The cause decides: an SDK's APIConnectionError raised from a refused connect
            # was turned away; one raised from a read timeout has an unknown outcome.
            outcome = _final_outcome(chain)
        elif hit is not None and hit.outcome is not None:
            outcome = hit.outcome
        else:
            outcomes = list(ev.outcomes)
            if facts is not None:
                for link in facts.links:
                    outcomes.extend(_link_outcomes(link))
            outcome = _final_outcome(outcomes)
    if kind == "ambiguous":
        fam = family
        if fam is None and hit is not None:
            fam = hit.family
        if fam is None and facts is not None and facts.links:
            top = facts.links[0]
            fam = top.rule.family if top.rule is not None else None
        if fam is None and det.template is not None:
            fam = det.template.family
        if fam is None and ev.families:
            fam = ev.families[0]
        if fam is None and facts is not None and facts.links:
            fam = facts.links[0].qualname
        if fam is None:
            fam = ev.exception_name
        rule = None
    else:
        assert hit is not None
        fam = hit.family
        rule = hit.rule
    # A text's verdict is built from strings and numbers only: one shared object per distinct
    # verdict (an exception's may carry its class's own name: a new one every time).
    make = Verdict if facts is not None else _shared_verdict
    return make(True, kind, rule, det.detection, outcome, fam, _retry_after(facts, ev), _status(facts, ev))


# Verdicts are frozen and few distinct ones occur: reusing them spares the dataclass's
# ``__init__``, most of the cost of a verdict. ``typed``: 1 and 1.0 stay apart.
_shared_verdict = lru_cache(maxsize=1024, typed=True)(Verdict)


def _retry_after(facts: ExceptionFacts | None, ev: _Evidence) -> float | None:
    """The delay the failure states: the exception's (a header, an attribute), else its text's."""
    retry_after = facts.retry_after if facts is not None else None
    return retry_after if retry_after is not None else ev.retry_after


def _group_members(exception: BaseException | None) -> tuple[BaseException, ...]:
    """The members of an ``ExceptionGroup`` (asyncio TaskGroup, anyio), at most 16."""
    if exception is None:
        return ()
    # by name: the builtin (3.11+) and the ``exceptiongroup`` backport
    if not any(getattr(c, "__name__", "") == "BaseExceptionGroup" for c in type(exception).__mro__):
        return ()
    members = safe_getattr(exception, "exceptions")
    if not isinstance(members, tuple):
        return ()
    return tuple(m for m in members[:16] if isinstance(m, BaseException))


def _classify_group(det: Detection, members: tuple[BaseException, ...], depth: int) -> Verdict | None:
    """A group decided from its members: the highest-priority kind among them (unrecoverable,
    transient, fixable); a transient group's outcome is unknown if any member's is."""
    verdicts = [_classify(det, m, depth + 1) for m in members]
    best: Verdict | None = None
    for verdict in verdicts:
        rank = _RANK.get(verdict.kind, 3)
        if rank < 3 and (best is None or rank < _RANK.get(best.kind, 3)):
            best = verdict
    if best is None:
        return None
    if best.kind == "transient":
        outcomes = [v.outcome for v in verdicts if v.kind == "transient"]
        outcome: Outcome = "unknown_outcome" if "unknown_outcome" in outcomes else "not_executed"
        best = replace(best, outcome=outcome)
    return replace(best, detection=det.detection)


def _classify(det: Detection, exception: BaseException | None, depth: int = 0) -> Verdict:
    members = _group_members(exception) if exception is not None and depth < 3 else ()
    if members:
        grouped = _classify_group(det, members, depth)
        if grouped is not None:
            return grouped
    ev = _Evidence()
    facts = read_exception(exception) if exception is not None else None
    # Quota traps in the exception's own messages and response bodies beat everything.
    if facts is not None:
        body_ev = _Evidence()
        for link in facts.links:
            _scan(ev, link.message, names=False)
            if link.body:
                _scan(body_ev, link.body, names=False)
        if ev.traps:
            return _verdict(det, ev.traps[0], facts, ev)
        if body_ev.traps:
            return _verdict(det, body_ev.traps[0], facts, ev)
        top_link = facts.links[0]
        top_hits = _link_hits(top_link)
        if top_hits:
            top = top_hits[0]
            if top.kind is None and top.decisive:
                return _verdict(det, None, facts, ev, family=top.family)
            if top.kind is not None:
                _scan_view(det, ev)
                if ev.traps:
                    return _verdict(det, ev.traps[0], facts, ev)
                if _status_level(top_link, top):
                    said = _said(top_link)
                    if said.decisive is not None:
                        return _verdict(det, None, facts, said, family=said.decisive.family)
                    strong = _ranked((said.structure, said.words), worst=2)
                    if strong is not None and strong.kind != top.kind:
                        return _verdict(det, strong, facts, said)
                    coded = _code_over_status(
                        top_link.status, top.kind, top_link.codes, _said_texts(top_link)
                    )
                    if coded is not None:  # a kind-less code (a conflict) is ambiguous
                        return _verdict(det, coded, facts, said)
                elif top.kind == "fixable":
                    # a parser's or validator's class: what its message says of the state
                    # (a refused unsafe tag, a limit) ranks above it
                    said = _said(top_link)
                    if said.decisive is not None:  # "already exists" in a statement's error
                        return _verdict(det, None, facts, said, family=said.decisive.family)
                    strong = _ranked((said.structure, said.words), worst=2)
                    if strong is not None:
                        return _verdict(det, strong, facts, ev)
                    if top.family == "syntax" and _FILE_INPUT.search(top_link.message):
                        # the parser read a file, not the model's argument
                        return _verdict(det, None, facts, ev, family="file_input")
                return _verdict(det, top, facts, ev)

    template = det.template
    if template is not None and template.decisive:
        if template.kind is None:
            return _verdict(det, None, facts, ev, family=template.family)
        return _verdict(det, _Hit(template.kind, f"template:{template.id}", template.family), facts, ev)
    if det.shell is not None and det.shell_failed_exit and facts is None:
        return _verdict(det, None, facts, ev, family="exit_code")

    _scan_view(det, ev)
    if det.template_code is not None:
        _jsonrpc(ev, det.template_code)
    if ev.traps:
        return _verdict(det, ev.traps[0], facts, ev)
    if ev.decisive is not None:
        return _verdict(det, None, facts, ev, family=ev.decisive.family)
    hit = _best(ev)
    if hit is not None and ev.http is not None and hit in ev.status:
        view = det.view if det.view is not None else det.window
        hit = _code_over_status(ev.http, hit.kind, (), (view,)) or hit
    if hit is not None:
        return _verdict(det, hit, facts, ev)
    if template is not None and template.kind is not None:
        return _verdict(det, _Hit(template.kind, f"template:{template.id}", template.family), facts, ev)
    if facts is not None:
        for link in facts.links[1:]:
            for hit in _link_hits(link):
                if hit.kind is not None:
                    return _verdict(det, hit, facts, ev)
    named = _named(det, facts, ev)
    if named is not None:
        return _verdict(det, named, facts, ev)  # kind-less: ambiguous, with its family
    if facts is not None:
        for link in facts.links[1:]:
            for hit in _link_hits(link):
                if hit.kind is not None:
                    return _verdict(det, hit, facts, ev)
    if det.shell is not None:
        return _verdict(det, None, facts, ev, family="exit_code")
    if _retry_after(facts, ev) is not None:
        # the service said when to come back ("Retry in 35 seconds", Retry-After): turned away
        return _verdict(det, _RETRY_AFTER_HIT, facts, ev)
    prior = _value_prior(det, facts, ev)
    if prior is not None:
        return _verdict(det, prior, facts, ev)  # kind-less: ambiguous, with its family
    return _verdict(det, None, facts, ev)


# A parser's report of where in its input it stopped ("line 3, column 7", "at position 12",
# "(char 40)", "at end of document", a caret under the text): the input was malformed.
_PARSE_POSITION = re.compile(
    r"\b(?:[Ll]ine:? \d+,? (?:[Cc]ol(?:umn)?:? ?\d+|column \d+)"
    r"|at (?:position|offset|column|index|char(?:acter)?) \d+"
    r"|\(char \d+\)"
    r"|at end of (?:the )?(?:document|input|string|data|template|expression|file|stream)"
    r"|(?:unexpected|premature) end of (?:the )?(?:document|input|string|data|template|expression|stream))"
    r"|\n[ \t]*\^[ \t]*(?:\n|$)"  # one caret: Python's own traces underline with runs
)
# One of these is in every match of _PARSE_POSITION: a quicker search that rules most texts out.
_PARSE_POSITION_HINT = re.compile(r"ine|at |\(char |end of|\^")
# JSON that is not JSON from its first character: an error page or an empty body as often as
# a wrong argument (``response.json()`` on HTML), so this one position decides nothing.
_NOT_JSON_AT_ALL = "Expecting value: line 1 column 1 (char 0)"
_VALUE_HIT = _Hit("fixable", "class:value", "bad_value")
_RETRY_AFTER_HIT = _Hit("transient", "retry_after", "rate_limit", "not_executed")
_PARSE_HIT = _Hit("fixable", "parse:position", "syntax")
_FILE_HIT = _Hit(None, None, "file_input")


def _value_prior(det: Detection, facts: ExceptionFacts | None, ev: _Evidence) -> _Hit | None:
    """Where no rule decided: a parser's position in its input, or Python's own meaning of
    ``ValueError``, ``TypeError`` and ``OverflowError`` (a value passed that is wrong), read as
    fixable, unless the message names a file the tool read (then ambiguous)."""
    texts: list[str] = []
    value_class = False
    if facts is not None:
        for link in facts.links:
            texts.append(link.message)
            if link.builtin in R.VALUE_CLASSES and not any(m in link.message for m in R.TOOL_BUG_MESSAGES):
                value_class = True
    view = det.view if det.view is not None else det.window
    view = view[: R.WINDOW_CHARS]
    texts.append(view)
    if not value_class and not any(m in view for m in R.TOOL_BUG_MESSAGES):
        if view.startswith(R.TRACEBACK_START):
            # a Python trace: the exception raised is the last one, not one handled on the way
            value_class = ev.exception_name in _TEXT_VALUE_CLASSES
        else:
            value_class = _TEXT_CLASS_NAME.search(view) is not None and _TEXT_CLASS.search(view) is not None
    position = any(_PARSE_POSITION_HINT.search(t) and _PARSE_POSITION.search(t) for t in texts)
    if any(_NOT_JSON_AT_ALL in t or "codec can't" in t for t in texts):
        return None  # not JSON from the first character; bytes in the wrong encoding (a file's)
    if not (value_class or position):
        return None
    if any(_FILE_INPUT.search(t) for t in texts):
        return _FILE_HIT
    return _PARSE_HIT if position else _VALUE_HIT


_TEXT_VALUE_CLASSES = frozenset({*R.VALUE_CLASSES, "JSONDecodeError"})
# "ValueError: ..." / "ValueError('...')" / "json.decoder.JSONDecodeError: ..." in a text
_TEXT_CLASS = re.compile(
    r"(?:^|[\s:(])(?:[A-Za-z_][\w.]{0,80}\.)?(?:" + "|".join(sorted(_TEXT_VALUE_CLASSES)) + r")(?=[:(]|$)",
    re.MULTILINE,
)
_TEXT_CLASS_NAME = re.compile("|".join(sorted(_TEXT_VALUE_CLASSES)))  # in every match of _TEXT_CLASS


_NAME_TOKEN = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")
_QUOTED_CODE = re.compile(r"""['"](?:error|code|reason|type)['"]\s*:\s*['"]([A-Za-z][A-Za-z_.]{2,80})['"]""")
_NAME_TAILS = frozenset({"error", "exception", "exc", "fault"})
# An API error code a message or body names by its key (``'errorCode': 'DUPLICATE_VALUE'``,
# ``Error code: feature_not_enabled``, ``code: XMinioAdminBucketQuotaExceeded``).
_BODY_CODE = re.compile(
    r"""(?:['"](?:error_?[Cc]ode|errorCode|code|reason)['"]\s*:\s*['"]|\b[Ee]rror [Cc]ode: |\bcode: )"""
    r"""([A-Za-z][A-Za-z0-9_.]{2,80})"""
)
_CODE_SHAPE = re.compile(r"_|[a-z][A-Z]|^[A-Z]{4,}$")


def _said_texts(link: Link) -> tuple[str, ...]:
    return (link.message, link.body) if link.body else (link.message,)


def _code_over_status(
    status: int | None, status_kind: str | None, codes: Iterable[str], texts: Iterable[str]
) -> _Hit | None:
    """A code of the body that names a state (``feature_not_enabled``, ``DUPLICATE_VALUE``,
    ``UNABLE_TO_LOCK_ROW``) over the HTTP status class it came with: the first code whose words
    say anything decides, and only a kind other than the status's and other than fixable (the
    status beats a fixable word). A 429 is itself specific and keeps its kind."""
    if status is None or status == 429 or status < 400:
        return None
    names = list(codes)
    for text in texts:
        if "ode" in text or "reason" in text:
            names.extend(m.group(1) for m in _BODY_CODE.finditer(text, 0, R.WINDOW_CHARS))
    for name in names[:16]:
        if not _CODE_SHAPE.search(name):
            continue
        hit = name_hit(name)
        if hit is None:
            continue
        if hit.kind == "fixable" or hit.kind == status_kind or _says_fixable(name):
            return None  # INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST: the status's reading holds
        return hit
    return None


def _says_fixable(name: str) -> bool:
    """Does any word of ``name`` read as the caller's mistake (``INVALID_`` of a code whose
    first phrase says otherwise)?"""
    joined = _name_words(name)
    return joined is not None and any(
        f" {phrase} " in joined
        for kind, _, _, phrases in R.NAME_PHRASES
        if kind == "fixable"
        for phrase in phrases
    )


@lru_cache(maxsize=4096)
def _name_words(name: str) -> str | None:
    """``name``'s words, lower-case, space-separated and padded (``" sending paused "`` of
    ``SendingPausedException``), its class-name tail dropped; ``None`` when none is left."""
    tokens = [t.lower() for t in _NAME_TOKEN.findall(name)]
    while tokens and tokens[-1] in _NAME_TAILS:
        tokens.pop()
    return f" {' '.join(tokens)} " if tokens else None


@lru_cache(maxsize=4096)
def name_hit(name: str) -> _Hit | None:
    """What an error code or exception name says by its words (``SendingPausedException``,
    ``invalid_blocks_format``, ``MailFromDomainNotVerified``): the fallback where no rule
    knows the name (:data:`toolerr._rules.NAME_PHRASES`)."""
    if name.startswith("_"):
        return None  # a library's private class (grpc's _InactiveRpcError) names no condition
    joined = _name_words(name)
    if joined is None:
        return None
    for kind, family, outcome, phrases in R.NAME_PHRASES:
        for phrase in phrases:
            if f" {phrase} " in joined:
                return _Hit(kind, f"name:{phrase.replace(' ', '_')}" if kind else None, family, outcome)
    return None


def _named(det: Detection, facts: ExceptionFacts | None, ev: _Evidence) -> _Hit | None:
    """The fallback where no rule decided: the words of the error codes and exception names
    that no table knows, the most specific first (a body's code, then the classes)."""
    spoke = ev.http is not None or any(not f.startswith("aws.") for f in ev.families)
    if spoke or (facts is not None and any(k.status for k in facts.links)):
        return None  # a status or a known family already said what can be said
    names: list[str] = []
    if facts is not None:
        for link in facts.links:
            names.extend(link.codes)
        names.extend(link.qualname for link in facts.links if link.rule is None)
    view = det.view if det.view is not None else det.window
    if ("rror" in view or "code" in view or "reason" in view or "type" in view) and (
        "'" in view or '"' in view
    ):
        names.extend(m.group(1) for m in _QUOTED_CODE.finditer(view, 0, 4096))
    names.extend(f[4:] for f in ev.families if f.startswith("aws."))
    if ev.exception_name is not None:
        names.append(ev.exception_name)
    for name in names[:16]:
        hit = name_hit(name)
        if hit is not None:
            return hit
    return None


def _scan_view(det: Detection, ev: _Evidence) -> None:
    view = det.view if det.view is not None else det.window
    if view.startswith(R.TRACEBACK_START):
        _traceback_names(ev, view)
        _scan(ev, traceback_view(view), names=False)
    else:
        _scan(ev, view)


# --- public functions ------------------------------------------------------------------------

_CACHE_MAX_CHARS = 2 * R.WINDOW_CHARS


@lru_cache(maxsize=1024)
def _inspect_text(content: str, flag: bool | None, client: str | None) -> Verdict:
    det = analyse(content, is_error=flag, exception=None, client=client)
    if not det.failed:
        return NOT_FAILED
    return _classify_safely(det, None)


def _classify_safely(det: Detection, exception: BaseException | None) -> Verdict:
    """Fail open (the contract's "Visibility and safety"): an internal error while classifying a detected
    failure leaves it ambiguous, which changes nothing in the conversation."""
    try:
        return _classify(det, exception)
    except Exception:  # noqa: BLE001
        log_swallowed("classification")
        return Verdict(failed=True, kind="ambiguous", detection=det.detection)


def inspect_result(
    content: Any,
    *,
    is_error: bool | None = None,
    exception: BaseException | None = None,
    client: str | None = None,
    tool: str | None = None,
    arguments: Any = None,
    parameters: Any = None,
) -> Verdict:
    """Detect and classify one tool result.

    ``content``: the result (a string, a list of content blocks or any JSON value);
    ``is_error``: the framework's explicit flag (``False`` is weak evidence: frameworks
    default it); ``exception``: the exception the tool raised, when the adapter has it;
    ``client``: the client whose templates produced the text (``generic`` when unknown);
    ``tool``: the tool's name (informational); ``arguments``: the arguments of the call this
    result answers (parsed JSON or its text), when known: where the model wrote no value but
    where to read (a path, a URL, an id), a rejected value came from the data the tool read
    (:mod:`toolerr._arguments`); ``parameters``: the tool's declared JSON schema of its
    parameters, when known: the arguments it describes as references to stored data (the name
    of a saved query, a record's id) count as where to read. Never raises on any content.
    """
    if tool is not None and not isinstance(tool, str):
        raise TypeError(f"tool must be a str or None, not {type(tool).__name__}")
    content = _original_content(content)
    if exception is None and type(content) is str and len(content) <= _CACHE_MAX_CHARS:
        flag = is_error if is_error is None or type(is_error) is bool else None
        if flag is is_error:
            if client is not None and not isinstance(client, str):
                raise TypeError(f"client must be a str or None, not {type(client).__name__}")
            verdict = _inspect_text(content, flag, client)
            if arguments is None:
                return verdict
            return _with_arguments(verdict, content, None, arguments, parameters)
    det = analyse(content, is_error=is_error, exception=exception, client=client)
    if not det.failed:
        return NOT_FAILED
    verdict = _classify_safely(det, exception)
    if arguments is None:
        return verdict
    return _with_arguments(verdict, content, exception, arguments, parameters)


def _with_arguments(
    verdict: Verdict, content: Any, exception: BaseException | None, arguments: Any, parameters: Any = None
) -> Verdict:
    """``verdict`` read beside the call's arguments and the tool's declared parameters
    (:mod:`toolerr._arguments`); fails open."""
    if verdict.kind != "fixable" and verdict.kind != "ambiguous":
        return verdict
    try:
        texts = _texts_read(content, exception)
        references = _references(parameters) if _reads_references(verdict) else frozenset()
        if verdict.kind == "ambiguous":
            return named_by_model(verdict, texts, exception, arguments, references)
        return by_arguments(verdict, texts, arguments, references)
    except Exception:  # noqa: BLE001
        log_swallowed("classification by the call's arguments")
        return verdict


def _reads_references(verdict: Verdict) -> bool:
    """Can the tool's declared references change ``verdict``? (A content failure read as
    the model's, or a lookup that found nothing.)"""
    if verdict.kind == "fixable":
        return verdict.family in CONTENT_FAMILIES
    return verdict.family != TOOL_INPUT_FAMILY


def _references(parameters: Any) -> frozenset[str]:
    """:func:`declared_references` of a schema; none (and a WARNING) where reading it fails:
    the arguments are still read."""
    try:
        return declared_references(parameters)
    except Exception:  # noqa: BLE001
        log_swallowed("reading the tool's declared parameters")
        return frozenset()


def _texts_read(content: Any, exception: BaseException | None) -> tuple[str, ...]:
    """The messages a rejected value may be quoted in: the result's text, the exception's."""
    texts = [content_text(content)[: 2 * R.WINDOW_CHARS]]
    seen: set[int] = set()
    while exception is not None and id(exception) not in seen and len(seen) < 4:
        seen.add(id(exception))
        try:
            texts.append(str(exception)[: 2 * R.WINDOW_CHARS])
        except Exception:  # noqa: BLE001 - a __str__ that raises says nothing
            pass
        exception = exception.__cause__ or exception.__context__
    return tuple(texts)


def _original_content(content: Any) -> Any:
    """The content before form C1 appended its sentence (a text block, or a line of text):
    a rewritten result is classified as its original, so C1 never rewrites it twice."""
    if type(content) is str:
        return strip_c1_suffix(content)
    if type(content) is list and len(content) > 1:
        last = content[-1]
        if (
            type(last) is dict
            and last.get("type") == "text"
            and isinstance(last.get("text"), str)
            and is_c1_suffix(last["text"])
        ):
            return content[:-1]
    return content


def inspect_message(message: Message, arguments: Any = None, parameters: Any = None) -> Verdict:
    """:func:`inspect_result` for a neutral ``tool`` message; ``arguments``: its call's;
    ``parameters``: its tool's declared JSON schema."""
    return inspect_result(
        message.content,
        is_error=message.is_error,
        exception=message.exception,
        client=message.client,
        tool=message.name,
        arguments=arguments,
        parameters=parameters,
    )
