"""Scoring the live corpus per path, against its labels and against the published word lists.

Paths: ``exception`` (what the LangChain, Agents SDK and MCP session adapters have:
``ToolErrorLayer.inspect_exception``), ``framework`` (each framework's tool-message text,
no flag: what a proxy or ``toolerr classify`` sees), ``flagged`` (``Type: message`` with an
error flag: an MCP ``isError`` result), ``unflagged`` (the same text, no flag: detection
from the text alone).

Per case and path: *correct* when the kind equals the label (for a label ``ambiguous``: a
detected failure left ambiguous); *wrong* when a kind with guidance differs from the label;
*none* otherwise (not detected, or ambiguous where the label has guidance).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from generate import Case, evidence, framework_texts
from toolerr import ToolErrorLayer, Verdict, inspect_result
from toolerr.adapters import exception_text

PATHS = ("exception", "framework", "flagged", "unflagged")
FRAMEWORKS = ("langchain", "openai-agents", "mcp")

# DELIVERY.md section 3: the published word lists (floor and "wider"), substrings, in
# priority order unrecoverable, transient, fixable.
BASELINE: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "unrecoverable",
        (
            "EACCES",
            "EPERM",
            "ermission denied",
            "Access is denied",
            "ead-only",
            "Unable to write",
            "Forbidden",
            "Unauthorized",
            "PERMISSION_DENIED",
            "UNAUTHENTICATED",
            "ccess denied",
            "ot authorized to",
            "ncorrect API key",
            "nvalid API key",
        ),
    ),
    (
        "transient",
        (
            "ECONNRESET",
            "ECONNREFUSED",
            "ETIMEDOUT",
            "EAI_AGAIN",
            "Too Many Requests",
            "ate limit",
            "Service Unavailable",
            "Gateway Timeout",
            "emporarily unavailable",
            "timed out",
            "TimeoutError",
            "ReadTimeout",
            "ConnectTimeout",
            "WriteTimeout",
            "PoolTimeout",
            "socket.timeout",
            "Request Timeout",
            "DEADLINE_EXCEEDED",
            "UNAVAILABLE",
            "RESOURCE_EXHAUSTED",
            "onnection reset",
            "onnection refused",
            "onnection aborted",
            "Bad Gateway",
            "Internal Server Error",
            "socket hang up",
            "fetch failed",
            "Max retries exceeded",
        ),
    ),
    (
        "fixable",
        (
            "must not be empty",
            "cannot be empty",
            "has not been read",
            "No replacement performed",
            "Invalid insert_line",
            "was omitted",
            "did not match",
            "not unique",
            "verification failed",
            "Invalid arguments",
            "Invalid parameters",
            "unexpected keyword argument",
            "required positional argument",
            "positional arguments but",
            "nvalid params",
            "INVALID_ARGUMENT",
            "Bad Request",
            "Unprocessable",
            "validation error",
            "is a required property",
            "is not of type",
            "dditional properties are not allowed",
            "is not a valid tool",
            "nknown tool",
            "ethod not found",
            "-32601",
            "-32602",
        ),
    ),
)
_STAYS_AMBIGUOUS = ("ommand timed out", "ommand timeout", "xecution timed out", "not available")


def baseline_kind(text: str) -> str:
    window = text[:4096]
    if any(w in window for w in _STAYS_AMBIGUOUS):
        return "ambiguous"
    for kind, words in BASELINE:
        if any(w in window for w in words):
            return kind
    return "ambiguous"


@dataclass
class Result:
    case: Case
    path: str
    verdict: Verdict
    text: str
    framework: str = ""

    @property
    def score(self) -> str:
        return score(self.case.kind, self.verdict.kind if self.verdict.failed else None)


def score(label: str, kind: str | None) -> str:
    if kind == label:
        return "correct"
    if kind in ("transient", "fixable", "unrecoverable"):
        return "wrong"
    return "none"


def results(
    cases: Iterable[Case], *, with_arguments: bool = False, with_parameters: bool = False
) -> list[Result]:
    """Every case through every path; ``with_arguments``: each path also given the call's
    arguments the case records (what an adapter or a gateway holds beside the result);
    ``with_parameters``: and the tool's declared parameters, where the case records them."""
    layer = ToolErrorLayer()
    out: list[Result] = []
    for case in cases:
        args = case.arguments if with_arguments else None
        schema = case.parameters if with_parameters else None
        text = exception_text(case.exc)
        verdict = layer.inspect_exception(case.exc, tool=case.tool, arguments=args, parameters=schema)
        out.append(Result(case, "exception", verdict, text))
        for fw, fw_text in framework_texts(case).items():
            fw_verdict = inspect_result(fw_text, client=fw, arguments=args, parameters=schema)
            out.append(Result(case, "framework", fw_verdict, fw_text, fw))
        flagged = inspect_result(text, is_error=True, arguments=args, parameters=schema)
        out.append(Result(case, "flagged", flagged, text))
        out.append(Result(case, "unflagged", inspect_result(text, arguments=args, parameters=schema), text))
    return out


@dataclass
class Tally:
    n: int = 0
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    base: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    outcome_right: int = 0
    outcome_n: int = 0
    unsafe_outcome: int = 0  # said not_executed where the effect is unknown

    def add(self, r: Result) -> None:
        self.n += 1
        self.counts[r.score] += 1
        detected = r.path != "unflagged" or r.verdict.failed
        self.base[score(r.case.kind, baseline_kind(r.text) if detected else None)] += 1
        if r.case.kind == "transient" and r.verdict.kind == "transient":
            self.outcome_n += 1
            self.outcome_right += r.verdict.outcome == r.case.outcome
            self.unsafe_outcome += r.verdict.outcome == "not_executed" and r.case.outcome == "unknown_outcome"

    def pct(self, key: str, base: bool = False) -> float:
        table = self.base if base else self.counts
        return 100.0 * table[key] / self.n if self.n else 0.0


def carries_cause(r: Result) -> bool:
    """Whether this path's input carries the case's cause (see ``generate.evidence``)."""
    ev = evidence(r.case)
    return ev == "both" or (ev == "exception" and r.path == "exception")


def tally(rs: Iterable[Result]) -> dict[tuple[str, str], Tally]:
    """(path, library or '*') -> Tally; (path, '+') counts only cases whose input carries the cause."""
    out: dict[tuple[str, str], Tally] = defaultdict(Tally)
    for r in rs:
        out[(r.path, "*")].add(r)
        out[(r.path, r.case.library)].add(r)
        if carries_cause(r):
            out[(r.path, "+")].add(r)
    return out


def report(rs: list[Result]) -> str:
    t = tally(rs)
    lines = [
        "| path | cases | correct | wrong | none | baseline correct | baseline wrong | outcome right | said not_executed, was unknown |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for path, scope in [(p, s) for s in ("*", "+") for p in PATHS]:
        x = t[(path, scope)]
        name = path if scope == "*" else f"{path}, where the input carries the cause"
        lines.append(
            f"| {name} | {x.n} | {x.pct('correct'):.1f}% | {x.pct('wrong'):.1f}% | {x.pct('none'):.1f}% | "
            f"{x.pct('correct', True):.1f}% | {x.pct('wrong', True):.1f}% | {x.outcome_right}/{x.outcome_n} | {x.unsafe_outcome} |"
        )
    libraries = sorted({lib for _, lib in t if lib not in ("*", "+")})
    lines += [
        "",
        "| library | cases | "
        + " | ".join(f"{p} correct / wrong" for p in PATHS)
        + " | baseline (exception text) correct / wrong |",
    ]
    lines.append("|---|---|" + "---|" * (len(PATHS) + 1))
    for lib in libraries:
        cells = [f"{t[(p, lib)].pct('correct'):.0f}% / {t[(p, lib)].pct('wrong'):.0f}%" for p in PATHS]
        b = t[("flagged", lib)]
        lines.append(
            f"| {lib} | {t[('exception', lib)].n} | "
            + " | ".join(cells)
            + f" | {b.pct('correct', True):.0f}% / {b.pct('wrong', True):.0f}% |"
        )
    return "\n".join(lines)


def misses(
    rs: list[Result], paths: tuple[str, ...] = ("exception", "framework", "flagged")
) -> list[dict[str, Any]]:
    out = []
    for r in rs:
        if r.path in paths and r.score != "correct":
            out.append(
                {
                    "id": r.case.id,
                    "path": r.path + (f":{r.framework}" if r.framework else ""),
                    "label": r.case.kind,
                    "got": r.verdict.kind if r.verdict.failed else "not detected",
                    "rule": r.verdict.rule,
                    "score": r.score,
                    "text": r.text[:160],
                }
            )
    return out


# What differs between two cases' texts without telling their causes apart: the opaque
# route of the scenario and the length of its body.
_NOT_CAUSE = (
    (re.compile(r"/s/c[0-9a-f]{10}"), "/s/ROUTE"),
    (re.compile(r"'Content-Length': '\d+'"), "'Content-Length': 'N'"),
)


def _cause_free(text: str) -> str:
    for pattern, repl in _NOT_CAUSE:
        text = pattern.sub(repl, text)
    return text


def twins(rs: list[Result]) -> dict[int, set[str]]:
    """For each result (by ``id``): the labels of every case whose input on the same path
    (and framework) is the same text; more than one label: no text rule can be right for all."""
    labels: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for r in rs:
        labels[(r.path, r.framework, _cause_free(r.text))].add(r.case.kind)
    return {id(r): labels[(r.path, r.framework, _cause_free(r.text))] for r in rs}
