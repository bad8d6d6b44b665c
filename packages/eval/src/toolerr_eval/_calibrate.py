"""``toolerr eval --calibrate``: a form per kind of failure, chosen on one split of the
scenarios and reported with intervals on the other, written as a profile file.

**Splits.** The suite is split in two halves per tool, by a permutation seeded with
``--seed`` (:func:`split_scenarios`): the *selection* split chooses, the *report* split
(never looked at while choosing) gives the figures with 95% bootstrap intervals.

**Where the measures come from.** Unrecoverable failures: the decision step with tool
choice auto (stopping needs the freedom not to call). Transient and fixable failures: the
decision step with tool choice auto when the model calls there (a call in at least
:data:`CALL_SHARE` of its replies to that kind on the selection split, every candidate
form together); otherwise the decision step with forced calls (tool choice required: the
reply opens with the call marker, so the measure is *which* call it writes), plus the
teacher-forced probe's repeat probability for fixable failures.

**The selection rule** (:data:`RULE`, :func:`choose_forms`). Per kind, the candidate forms
(c0, c1, c2, c3, c4, abstract) are compared on that kind's measures in order
(:data:`MEASURES`); at each measure only the forms with the best value stay; a measure
that some candidate lacks is skipped. What is left after the last measure is a tie,
broken toward the form of the measured profile that ``form="auto"`` gives the model
(``small-local`` for small models, :func:`toolerr_hf.auto_form`), then toward the order above.

- transient: retried rate (a repeat of the call: the right action), higher first;
- fixable: exact-repeat rate, lower first; then the failed arguments written again
  (``argument_repeat``), lower first; then the corrected call, higher first; then the
  probe's P(repeat) of the failed call, lower first;
- unrecoverable: stop in prose (an answer to the user, no fabricated tool result),
  higher first.
- ambiguous failures are not measured: they keep the measured profile's form.
"""

from __future__ import annotations

import datetime
import logging
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import IO, Any, Literal

import numpy as np
from toolerr import KINDS, PROFILES, Profile, save_profile

from ._engine import Engine
from ._measures import Bootstrap
from ._runs import run_decision
from ._scenarios import FAILURE_KINDS, Item, Scenario

logger = logging.getLogger("toolerr")

__all__ = [
    "CALIBRATION_FORMS",
    "CALL_SHARE",
    "MEASURES",
    "RULE",
    "Choice",
    "Measure",
    "calibrate_per_kind",
    "choose_forms",
    "kind_measures",
    "profile_of",
    "run_calibration",
    "split_scenarios",
    "write_calibration",
]

CALIBRATION_FORMS: tuple[str, ...] = ("c0", "c1", "c2", "c3", "c4", "abstract")
"""The forms ``--calibrate`` chooses among (what :class:`toolerr.ToolErrorLayer` offers)."""

CALL_SHARE = 0.5
"""The share of calls at the decision step (tool choice auto) from which a kind is
calibrated from the model's free decisions instead of forced calls."""


@dataclass(frozen=True)
class Measure:
    """One measure of the selection rule: a record field (or the probe), and which way is better."""

    name: str
    better: Literal["higher", "lower"]
    text: str


MEASURES: Mapping[str, tuple[Measure, ...]] = MappingProxyType(
    {
        "transient": (Measure("retried", "higher", "retried rate"),),
        "fixable": (
            Measure("exact_repeat", "lower", "exact-repeat rate"),
            Measure("argument_repeat", "lower", "failed arguments written again"),
            Measure("corrected", "higher", "corrected call"),
            Measure("probe_p_repeat", "lower", "probe P(repeat)"),
        ),
        "unrecoverable": (Measure("stop_in_prose", "higher", "stop in prose"),),
    }
)
"""The measures of each kind, in the order the rule compares them."""

RULE = (
    "Per kind, the forms c0, c1, c2, c3, c4 and abstract are compared on the kind's measures "
    "in order, on the selection split; at each measure only the forms with the best value "
    "stay (a measure some form lacks is skipped); a tie left after the last measure goes to "
    "the form of the measured profile for the model (form='auto'), then to the order above. "
    "transient: retried rate (higher); fixable: exact-repeat rate (lower), then failed "
    "arguments written again (lower), then corrected call (higher), then probe P(repeat) "
    "(lower); unrecoverable: stop in prose (higher), from the decision step with tool choice "
    "auto. Transient and fixable are measured at the decision step with tool choice auto "
    f"when the model calls in at least {CALL_SHARE:.0%} of those replies, else with forced "
    "calls (tool choice required) and the probe. Ambiguous failures keep the measured "
    "profile's form."
)
"""The selection rule in words (written into the profile file)."""

_EPSILON = 1e-9


def split_scenarios(scenarios: Sequence[Scenario], seed: int = 0) -> tuple[list[Scenario], list[Scenario]]:
    """Two halves of the suite, balanced per tool: (selection split, report split). The
    same seed gives the same halves."""
    rng = np.random.default_rng(seed)
    first: list[Scenario] = []
    second: list[Scenario] = []
    tools = list(dict.fromkeys(s.tool.name for s in scenarios))
    for tool in tools:
        group = [s for s in scenarios if s.tool.name == tool]
        order = rng.permutation(len(group)).tolist()
        half = (len(group) + 1) // 2
        first.extend(group[i] for i in sorted(order[:half]))
        second.extend(group[i] for i in sorted(order[half:]))
    return first, second


# -- the rule ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """The form chosen for one kind, and why."""

    kind: str
    form: str
    decided_by: str
    """The measure that left one form, or ``tie: <profile>`` / ``tie: order``."""
    stages: tuple[tuple[str, tuple[str, ...]], ...]
    """``(measure, forms still in)`` after each measure that was compared."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "form": self.form,
            "decided_by": self.decided_by,
            "stages": [{"measure": m, "forms": list(f)} for m, f in self.stages],
        }


def choose_forms(
    values: Mapping[str, Mapping[str, Mapping[str, float | None]]],
    prefer: Mapping[Any, str],
    *,
    forms: Sequence[str] = CALIBRATION_FORMS,
    measures: Mapping[str, Sequence[Measure]] = MEASURES,
    prefer_name: str = "profile",
) -> dict[str, Choice]:
    """The selection rule (module docstring) on measured values: ``values[kind][form][measure]``
    (``None`` or missing: not measured); ``prefer[kind]``: the measured profile's form.
    A kind without values is left out of the result."""
    out: dict[str, Choice] = {}
    for kind, kind_values in values.items():
        candidates = [f for f in forms if f in kind_values]
        if not candidates:
            continue
        stages: list[tuple[str, tuple[str, ...]]] = []
        decided_by = ""
        for measure in measures.get(kind, ()):
            got = [kind_values[f].get(measure.name) for f in candidates]
            if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in got):
                continue
            numbers = [float(v) for v in got if v is not None]
            best = max(numbers) if measure.better == "higher" else min(numbers)
            candidates = [f for f, v in zip(candidates, numbers, strict=True) if abs(v - best) <= _EPSILON]
            stages.append((measure.name, tuple(candidates)))
            if len(candidates) == 1:
                decided_by = measure.name
                break
        if len(candidates) == 1:
            form = candidates[0]
            decided_by = decided_by or "only candidate"
        elif prefer.get(kind) in candidates:
            form = prefer[kind]
            decided_by = f"tie: {prefer_name}"
        else:
            form = candidates[0]
            decided_by = "tie: order"
        out[kind] = Choice(kind, form, decided_by, tuple(stages))
    return out


# -- measures from records ----------------------------------------------------------------------


def _softmax_first(values: Sequence[float]) -> float:
    top = max(values)
    weights = [math.exp(v - top) for v in values]
    return weights[0] / sum(weights)


def _field(measure: str, record: Mapping[str, Any]) -> float:
    if measure == "retried":
        return float(record["canonical_repeat"])
    if measure == "corrected":
        return float(record["action"] == "corrected")
    if measure == "stop_in_prose":
        return float(record["action"] == "stop")
    return float(record[measure])


def kind_measures(
    kind: str,
    form: str,
    decision: Sequence[Mapping[str, Any]],
    probe: Sequence[Mapping[str, Any]],
    scenarios: set[str],
) -> dict[str, list[tuple[str, float]]]:
    """``(scenario, value)`` pairs of each measure of ``kind`` under ``form`` on ``scenarios``
    (decision records of that kind and harness; probe records of that context)."""
    rows = [r for r in decision if r["kind"] == kind and r["harness"] == form and r["scenario"] in scenarios]
    out: dict[str, list[tuple[str, float]]] = {}
    for measure in MEASURES[kind]:
        if measure.name == "probe_p_repeat":
            pairs = [
                (str(r["scenario"]), _softmax_first(r["logprobs"]))
                for r in probe
                if r["context"] == form and r["scenario"] in scenarios
            ]
            if pairs:
                out[measure.name] = pairs
            continue
        if rows:
            out[measure.name] = [(str(r["scenario"]), _field(measure.name, r)) for r in rows]
    if kind == "unrecoverable" and rows:  # shown beside the rule's measure, not used by it
        out["stop_or_echo"] = [(str(r["scenario"]), float(r["correct"])) for r in rows]
        out["exact_repeat"] = [(str(r["scenario"]), float(r["exact_repeat"])) for r in rows]
    return out


def _mean(pairs: Sequence[tuple[str, float]]) -> float | None:
    return sum(v for _, v in pairs) / len(pairs) if pairs else None


def _call_share(records: Sequence[Mapping[str, Any]], kind: str, scenarios: set[str]) -> float | None:
    rows = [
        r
        for r in records
        if r["kind"] == kind and r["harness"] in CALIBRATION_FORMS and r["scenario"] in scenarios
    ]
    return sum(not r["no_call"] for r in rows) / len(rows) if rows else None


def calibrate_per_kind(
    auto: Sequence[Mapping[str, Any]],
    forced: Sequence[Mapping[str, Any]],
    probe: Sequence[Mapping[str, Any]],
    selection: Sequence[Scenario],
    report: Sequence[Scenario],
    *,
    prefer: Profile,
    resamples: int = 1000,
    seed: int = 0,
    forms: Sequence[str] = CALIBRATION_FORMS,
) -> dict[str, Any]:
    """The per-kind choice on ``selection`` and its figures on ``report`` (the module
    docstring): ``auto``/``forced``: decision records with tool choice auto / required;
    ``probe``: the probe's records (fixable items). JSON-able."""
    chosen_ids = {s.id for s in selection}
    held_ids = {s.id for s in report}
    boot = Bootstrap([s.id for s in report], resamples=resamples, seed=seed)
    sources: dict[str, dict[str, Any]] = {}
    selected: dict[str, dict[str, dict[str, float | None]]] = {}
    per_kind: dict[str, Any] = {}
    for kind in FAILURE_KINDS:
        share = _call_share(auto, kind, chosen_ids)
        if kind == "unrecoverable":
            records, source = auto, "decision step, tool choice auto"
        elif forced and (share is None or share < CALL_SHARE):
            records, source = forced, "decision step, forced calls (tool choice required)"
        else:
            records, source = auto, "decision step, tool choice auto"
        use_probe = probe if kind == "fixable" and records is forced else ()
        if use_probe:
            source += ", and the probe"
        sources[kind] = {"source": source, "auto_call_share": share}
        kind_values: dict[str, dict[str, float | None]] = {}
        for form in forms:
            pairs = kind_measures(kind, form, records, use_probe, chosen_ids)
            if pairs:
                kind_values[form] = {name: _mean(values) for name, values in pairs.items()}
        if kind_values:
            selected[kind] = kind_values
        per_kind[kind] = {"records": records, "probe": use_probe}
    choices = choose_forms(selected, prefer.forms, forms=forms, prefer_name=prefer.name)
    measures: dict[str, Any] = {}
    for kind in FAILURE_KINDS:
        if kind not in choices:
            continue
        choice = choices[kind]
        records = per_kind[kind]["records"]
        use_probe = per_kind[kind]["probe"]
        held = {form: kind_measures(kind, form, records, use_probe, held_ids) for form in forms}
        report_cells = {
            form: {name: boot.interval(values).as_dict() for name, values in cells.items()}
            for form, cells in held.items()
            if cells
        }
        first = MEASURES[kind][0].name
        versus: dict[str, Any] = {}
        for other in dict.fromkeys(["c0", prefer.forms.get(kind, "c3")]):
            if other == choice.form or other not in held or first not in held[other]:
                continue
            versus[other] = boot.difference(held[choice.form].get(first, []), held[other][first]).as_dict()
        measures[kind] = {
            **sources[kind],
            "measures": [m.name for m in MEASURES[kind]],
            "chosen": choice.form,
            "decided_by": choice.decided_by,
            "stages": choice.as_dict()["stages"],
            "selection": selected[kind],
            "report": report_cells,
            "chosen_minus": {"measure": first, **versus},
        }
    forms_out: dict[str, str] = {kind: prefer.forms.get(kind, "c3") for kind in KINDS}
    forms_out.update({kind: c.form for kind, c in choices.items()})
    return {
        "rule": RULE,
        "prefer": prefer.name,
        "forms": forms_out,
        "splits": {
            "seed": seed,
            "selection": len(chosen_ids),
            "report": len(held_ids),
            "selection_ids": sorted(chosen_ids),
            "report_ids": sorted(held_ids),
        },
        "bootstrap": resamples,
        "measures": measures,
    }


# -- the profile file ---------------------------------------------------------------------------


def _short(model: str) -> str:
    base = os.path.basename(model.rstrip("/\\")) or model
    base = base.split(" (")[0]  # "SmolLM2-135M-Instruct (embedded default)"
    text = "".join(c if c.isalnum() or c in "._" else "-" for c in base.lower())
    while "--" in text:
        text = text.replace("--", "-")
    return text.strip("-.") or "model"


def profile_of(calibration: Mapping[str, Any], model: str, *, date: str | None = None) -> Profile:
    """The chosen forms as a :class:`toolerr.Profile` that :func:`toolerr.save_profile`
    writes and ``Policy(profile=path)`` loads, with the evidence in its details."""
    forms = dict(calibration["forms"])
    when = date or datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
    splits = calibration["splits"]
    parts = []
    for kind, cell in calibration["measures"].items():
        first = cell["measures"][0]
        held = cell["report"].get(cell["chosen"], {}).get(first, {})
        mean = held.get("mean")
        figure = (
            f"{100 * mean:.0f}% [{100 * held['low']:.0f}, {100 * held['high']:.0f}]"
            if mean is not None
            else "-"
        )
        parts.append(f"{kind} {cell['chosen']} ({first} {figure} held out; {cell['decided_by']})")
    evidence = (
        f"toolerr eval --calibrate on {model}, {when}: chosen on {splits['selection']} scenarios, "
        f"reported on {splits['report']} others (seed {splits['seed']}, 95% bootstrap intervals): "
        + "; ".join(parts)
        + ". Measured without the decoder ban."
    )
    details = {
        "model": model,
        "date": when,
        "rule": calibration["rule"],
        "prefer": calibration["prefer"],
        "splits": calibration["splits"],
        "bootstrap": calibration["bootstrap"],
        "measures": calibration["measures"],
    }
    return Profile(
        name=f"calibrated-{_short(model)}",
        forms=MappingProxyType(forms),
        evidence=evidence,
        ban=False,
        details=MappingProxyType(details),
    )


# -- the run ----------------------------------------------------------------------------------


def _failure_items(suite: Sequence[Scenario], kinds: Sequence[str]) -> list[Item]:
    return [Item(s, k) for s in suite for k in kinds]  # type: ignore[arg-type]


def _strip(records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [dict(r) for r in records if r["kind"] in FAILURE_KINDS and r["harness"] in CALIBRATION_FORMS]


def run_calibration(
    engine: Engine,
    suite: Sequence[Scenario],
    decision: Sequence[Mapping[str, Any]],
    probe: Sequence[Mapping[str, Any]],
    *,
    tool_choice: str,
    prefer: Profile,
    seed: int,
    resamples: int,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """The calibration of one run: the decision records it already has (with ``tool_choice``)
    and the probe's, plus the passes it needs (tool choice auto for unrecoverable failures
    when the run forced calls; forced calls for transient and fixable failures the model
    does not call on), then :func:`calibrate_per_kind`. The extra passes' records are in
    ``records`` (for ``--rescore``)."""
    selection, report = split_scenarios(suite, seed)
    chosen_ids = {s.id for s in selection}
    auto = _strip(decision) if tool_choice == "auto" else []
    forced = _strip(decision) if tool_choice == "required" else []
    extra: list[dict[str, Any]] = []
    if not auto:
        kinds = ["unrecoverable"] if forced else list(FAILURE_KINDS)
        logger.info("toolerr eval: calibration, decision step with tool choice auto (%s)", ", ".join(kinds))
        auto = run_decision(engine, _failure_items(suite, kinds), CALIBRATION_FORMS, progress)
        for record in auto:
            record["tool_choice"] = "auto"
        extra += auto
    if not forced:
        needed = [
            kind
            for kind in ("transient", "fixable")
            if (share := _call_share(auto, kind, chosen_ids)) is None or share < CALL_SHARE
        ]
        if needed:
            logger.info("toolerr eval: calibration, forced calls (%s)", ", ".join(needed))
            forced = run_decision(
                engine, _failure_items(suite, needed), CALIBRATION_FORMS, progress, tool_choice="required"
            )
            for record in forced:
                record["tool_choice"] = "required"
            extra += forced
    out = calibrate_per_kind(
        auto, forced, probe, selection, report, prefer=prefer, resamples=resamples, seed=seed
    )
    out["records"] = extra
    return out


def recalibrate(
    calibration: Mapping[str, Any],
    decision: Sequence[Mapping[str, Any]],
    tool_choice: str,
    probe: Sequence[Mapping[str, Any]],
    suite: Sequence[Scenario],
) -> dict[str, Any]:
    """:func:`calibrate_per_kind` again on stored (rescored) records: ``--rescore``."""
    extra = list(calibration.get("records") or [])
    stored = _strip(decision)
    auto = [r for r in extra if r.get("tool_choice") == "auto"] or (stored if tool_choice == "auto" else [])
    forced = [r for r in extra if r.get("tool_choice") == "required"] or (
        stored if tool_choice == "required" else []
    )
    splits = calibration["splits"]
    selection, report = split_scenarios(suite, splits["seed"])
    prefer = PROFILES.get(calibration["prefer"]) or PROFILES["study-c3"]
    out = calibrate_per_kind(
        auto,
        forced,
        probe,
        selection,
        report,
        prefer=prefer,
        resamples=calibration["bootstrap"],
        seed=splits["seed"],
    )
    out["records"] = extra
    return out


def write_calibration(calibration: Mapping[str, Any], out: IO[str]) -> None:
    """The per-kind choice and its held-out figures, as plain text."""
    splits = calibration["splits"]
    out.write(
        f"\nCalibration per kind (chosen on {splits['selection']} scenarios, reported on the other "
        f"{splits['report']}, seed {splits['seed']}; ties toward {calibration['prefer']}):\n"
    )
    if not splits["report"]:
        out.write("  (no report split: one scenario per tool; give --scenarios 2 or more)\n")
    for kind, cell in calibration["measures"].items():
        chosen = cell["chosen"]
        out.write(f"  {kind}: {chosen} (decided by {cell['decided_by']}; {cell['source']})\n")
        held = cell["report"].get(chosen, {})
        figures = []
        for name in [*cell["measures"], *(k for k in held if k not in cell["measures"])]:
            value = held.get(name)
            if not value or value.get("mean") is None:
                continue
            figures.append(
                f"{name} {100 * value['mean']:.0f}% [{100 * value['low']:.0f},{100 * value['high']:.0f}]"
            )
        out.write("    held out: " + ("; ".join(figures) or "-") + "\n")
        versus = {
            k: v for k, v in cell["chosen_minus"].items() if k != "measure" and v.get("mean") is not None
        }
        for other, diff in versus.items():
            out.write(
                f"    {cell['chosen_minus']['measure']} minus {other}: {diff['mean']:+.2f} "
                f"[{diff['low']:+.2f},{diff['high']:+.2f}]\n"
            )
    forms = ", ".join(f"{k}: {v}" for k, v in calibration["forms"].items())
    out.write(f"  profile: {forms}\n")
    if calibration.get("profile_path"):
        out.write(f"  wrote {calibration['profile_path']} (Policy(profile=...) loads it)\n")
    else:
        out.write("  (give --out DIR or --profile-out FILE to write it as a profile file)\n")


def write_profile_file(
    calibration: dict[str, Any], model: str, path: str, *, date: str | None = None
) -> Profile:
    """Write the calibration's profile to ``path``; ``calibration["profile_path"]`` notes it."""
    written = save_profile(profile_of(calibration, model, date=date), path)
    calibration["profile_path"] = path
    return written
