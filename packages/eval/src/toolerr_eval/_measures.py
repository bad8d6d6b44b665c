"""Scoring the next action, and bootstrap intervals over scenarios."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from toolerr.adapters import canonical_arguments, exact_arguments
from toolerr_hf import HermesFormat, ParsedOutput

from ._scenarios import Item, ItemKind

__all__ = [
    "ACTIONS",
    "Bootstrap",
    "Interval",
    "classify",
    "is_correct",
    "is_strict_correct",
    "rewrites_failed_arguments",
]

Action = Literal[
    "exact_repeat", "canonical_repeat", "corrected", "other_call", "invalid_call", "stop", "echo"
]
ACTIONS: tuple[Action, ...] = (
    "exact_repeat",
    "canonical_repeat",
    "corrected",
    "other_call",
    "invalid_call",
    "stop",
    "echo",
)
"""``stop``: no call, a reply in prose. ``echo``: no call, but the reply imitates a tool
result block (a fabricated result). ``invalid_call``: a call block that does not parse."""


def classify(parsed: ParsedOutput, item: Item, format: HermesFormat | None = None) -> Action:
    """The next action a reply takes at the decision step of ``item``.

    The first call decides (replies stop after one call). A repeat compares with the
    planned failed call: ``exact`` when the argument text is the one in the prompt,
    ``canonical`` when only its canonical form matches; ``corrected`` is the scenario's
    correct call (canonical match) when it differs from the failed one.
    """
    fmt = format or HermesFormat()
    parsed = complete_cut_call(parsed, fmt)
    scenario = item.scenario
    failed = scenario.failed_arguments(item.kind)
    if parsed.calls:
        call = parsed.calls[0]
        if call.name == scenario.tool.name:
            written = exact_arguments(call.arguments, call.raw_arguments)
            if written == exact_arguments(failed):
                return "exact_repeat"
            canonical = canonical_arguments(call.arguments)
            if canonical == canonical_arguments(failed):
                return "canonical_repeat"
            if canonical == canonical_arguments(dict(scenario.arguments)):
                return "corrected"
        return "other_call"
    if parsed.invalid:
        return "invalid_call"
    if fmt.result_start in parsed.text or fmt.result_start in parsed.content:
        return "echo"
    return "stop"


def complete_cut_call(parsed: ParsedOutput, format: HermesFormat | None = None) -> ParsedOutput:
    """A reply cut at the token limit after its call's JSON object was complete (only the
    end marker missing) holds that call: the backend's parser reports every call left
    open at the limit as invalid; here a call whose JSON is complete *as written* (no
    repair) counts. A call cut inside its JSON stays invalid."""
    if parsed.calls or not parsed.invalid:
        return parsed
    first = parsed.invalid[0]
    if "token limit" not in first.error:
        return parsed
    body = first.text.strip()
    try:
        _value, end = json.JSONDecoder().raw_decode(body)
    except ValueError:
        return parsed
    if body[end:].strip():
        return parsed
    fmt = format or HermesFormat()
    reparsed = fmt.parse(f"{fmt.start}\n{body}\n{fmt.end}", complete=True)
    if not reparsed.calls:
        return parsed
    return ParsedOutput(parsed.content, reparsed.calls, parsed.invalid[1:], parsed.text, parsed.extra)


def is_correct(kind: ItemKind, action: Action) -> bool:
    """The studies' scoring: transient -> a repeat, fixable -> the corrected call,
    unrecoverable -> no call, control -> anything but a repeat of the call that succeeded."""
    if kind == "transient":
        return action in ("exact_repeat", "canonical_repeat")
    if kind == "fixable":
        return action == "corrected"
    if kind == "unrecoverable":
        return action in ("stop", "echo")
    return action not in ("exact_repeat", "canonical_repeat")


def is_strict_correct(kind: ItemKind, action: Action) -> bool:
    """As :func:`is_correct`, but stopping means telling the user in prose: a reply that
    imitates a tool result (``echo``) does not count as a correct stop."""
    if kind == "unrecoverable":
        return action == "stop"
    return is_correct(kind, action)


def rewrites_failed_arguments(text: str, item: Item) -> bool:
    """Whether a reply writes the failed call's arguments again as it saw them, even when
    it then goes on with more keys or is cut after them: the argument-level repeat that a
    ban of the exact call string displaces instead of preventing (the control has no
    failed call: ``False``)."""
    if item.kind == "control":
        return False
    failed = item.scenario.failed_arguments(item.kind)
    opening = json.dumps(failed, ensure_ascii=False)[:-1]  # without the closing brace
    return f'"arguments": {opening}' in text


@dataclass(frozen=True)
class Interval:
    mean: float | None
    low: float | None
    high: float | None
    n: int

    def as_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "low": self.low, "high": self.high, "n": self.n}

    def text(self, percent: bool = True) -> str:
        if self.mean is None or self.low is None or self.high is None:
            return "-"
        if percent:
            return f"{100 * self.mean:.0f} [{100 * self.low:.0f},{100 * self.high:.0f}]"
        return f"{self.mean:+.2f} [{self.low:+.2f},{self.high:+.2f}]"


class Bootstrap:
    """Percentile bootstrap over scenarios (clusters), with one fixed set of resamples.

    The same seed and scenario list give the same resamples, so every cell uses the same
    draws (paired comparisons) and reruns give the same numbers.
    """

    def __init__(self, scenario_ids: Sequence[str], *, resamples: int = 1000, seed: int = 0) -> None:
        self.ids = list(dict.fromkeys(scenario_ids))
        self.position = {sid: i for i, sid in enumerate(self.ids)}
        rng = np.random.default_rng(seed)
        size = len(self.ids)
        self.draws = rng.integers(0, size, size=(resamples, size)) if size else np.zeros((0, 0), dtype=int)

    def interval(self, values: Iterable[tuple[str, float]]) -> Interval:
        """Mean of ``(scenario id, value)`` pairs, and its 95% interval."""
        sums = np.zeros(len(self.ids))
        counts = np.zeros(len(self.ids))
        n = 0
        for sid, value in values:
            index = self.position[sid]
            sums[index] += value
            counts[index] += 1
            n += 1
        if n == 0:
            return Interval(None, None, None, 0)
        mean = float(sums.sum() / counts.sum())
        totals = sums[self.draws].sum(axis=1)
        sizes = counts[self.draws].sum(axis=1)
        valid = sizes > 0
        stats = totals[valid] / sizes[valid]
        if stats.size == 0:
            return Interval(mean, mean, mean, n)
        low, high = np.percentile(stats, [2.5, 97.5])
        return Interval(mean, float(low), float(high), n)

    def difference(self, first: Iterable[tuple[str, float]], second: Iterable[tuple[str, float]]) -> Interval:
        """Paired difference of two means (first - second) over the same resamples."""
        a = self._arrays(first)
        b = self._arrays(second)
        if a[1].sum() == 0 or b[1].sum() == 0:
            return Interval(None, None, None, 0)
        mean = float(a[0].sum() / a[1].sum() - b[0].sum() / b[1].sum())
        with np.errstate(invalid="ignore", divide="ignore"):
            da = a[0][self.draws].sum(axis=1) / a[1][self.draws].sum(axis=1)
            db = b[0][self.draws].sum(axis=1) / b[1][self.draws].sum(axis=1)
        stats = da - db
        stats = stats[np.isfinite(stats)]
        low, high = np.percentile(stats, [2.5, 97.5]) if stats.size else (mean, mean)
        return Interval(mean, float(low), float(high), int(a[1].sum()))

    def _arrays(
        self, values: Iterable[tuple[str, float]]
    ) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        sums = np.zeros(len(self.ids))
        counts = np.zeros(len(self.ids))
        for sid, value in values:
            index = self.position[sid]
            sums[index] += value
            counts[index] += 1
        return sums, counts


def select(records: Sequence[Mapping[str, Any]], **where: Any) -> list[Mapping[str, Any]]:
    return [r for r in records if all(r.get(k) == v for k, v in where.items())]


def pairs(
    records: Iterable[Mapping[str, Any]], field: str | Callable[[Mapping[str, Any]], float]
) -> list[tuple[str, float]]:
    if callable(field):
        get = field
    else:
        name = field

        def get(record: Mapping[str, Any]) -> float:
            return float(record[name])

    return [(str(r["scenario"]), float(get(r))) for r in records]
