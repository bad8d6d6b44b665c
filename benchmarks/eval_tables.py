"""Markdown tables for RESULTS_eval.md from the JSON that ``toolerr eval --out DIR`` writes.

Usage::

    python benchmarks/eval_tables.py benchmarks/out/eval/full/results.json [more results.json ...]
    python benchmarks/eval_tables.py --headline AUTO.json REQUIRED.json [RERUN.json ...]

Each file gives the tables of what it holds: the decision step (tool choice auto or
required), calibration, the episodes and the probe. Figures are percentages with their 95%
bootstrap interval over scenarios, as the evaluation computed them.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any

FAILURE = ("transient", "fixable", "unrecoverable")


def cell(interval: Mapping[str, Any] | None, percent: bool = True, digits: int = 0) -> str:
    if not interval or interval.get("mean") is None:
        return "-"
    scale = 100 if percent else 1
    mean, low, high = (scale * interval[k] for k in ("mean", "low", "high"))
    if low == high == mean:
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def decision_table(results: Mapping[str, Any]) -> str:
    summary = results["decision"]["summary"]
    kinds = results["config"]["kinds"]
    choice = results["config"].get("tool_choice", "auto")
    records = results["decision"]["records"]
    head = ["harness"]
    if "transient" in kinds:
        head.append("transient: repeat (correct)")
    if "fixable" in kinds:
        head += ["fixable: corrected call", "fixable: exact repeat", "fixable: failed arguments again"]
    if "unrecoverable" in kinds:
        head += ["unrecoverable: no call", "unrecoverable: stop in prose", "unrecoverable: exact repeat"]
    if choice == "auto":
        head.append("tool call written (failure items)")
        head.append("fabricated tool result (failure items)")
    if "control" in kinds:
        head.append("control: repeat")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for harness, cells in summary.items():
        row = [harness]
        if "transient" in kinds:
            row.append(cell(cells.get("transient", {}).get("correct")))
        if "fixable" in kinds:
            fixable = cells.get("fixable", {})
            row += [
                cell(fixable.get("correct")),
                cell(fixable.get("exact_repeat")),
                cell(fixable.get("argument_repeat")),
            ]
        if "unrecoverable" in kinds:
            unrecoverable = cells.get("unrecoverable", {})
            row += [
                cell(unrecoverable.get("correct")),
                cell(unrecoverable.get("strict_correct")),
                cell(unrecoverable.get("exact_repeat")),
            ]
        if choice == "auto":
            failures = [r for r in records if r["harness"] == harness and r["kind"] in FAILURE]
            called = sum(r["action"] not in ("stop", "echo") for r in failures)
            echoed = sum(r["action"] == "echo" for r in failures)
            row.append(f"{called} of {len(failures)}")
            row.append(f"{100 * echoed / max(len(failures), 1):.0f}%")
        if "control" in kinds:
            row.append(cell(cells.get("control", {}).get("canonical_repeat")))
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def episodes_table(results: Mapping[str, Any]) -> str:
    summary = results["episodes"]["summary"]
    present = [k for k in FAILURE if any(k in cells for cells in summary.values())]
    head = ["harness", *(f"{k}: completed" for k in present)]
    if "fixable" in present:
        head.append("fixable: failed call repeated exactly")
    head += ["loop (any kind)", "calls per episode"]
    if "unrecoverable" in present:
        head.append("futile calls after an unrecoverable failure")
    stalls = any("stall_notes" in cells.get("all", {}) for cells in summary.values())
    if stalls:  # progress harnesses: the turns whose view held the stall note
        head += ["stall notes per episode", "episodes given a stall note"]
    records = results["episodes"].get("records", [])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for harness, cells in summary.items():
        row = [harness, *(cell(cells.get(k, {}).get("completed")) for k in present)]
        if "fixable" in present:
            row.append(cell(cells.get("fixable", {}).get("any_exact_repeat")))
        row.append(cell(cells.get("all", {}).get("loop")))
        calls = [c.get("calls") for k, c in cells.items() if k in present]
        mean = sum(c["mean"] for c in calls if c) / max(len([c for c in calls if c]), 1)
        row.append(f"{mean:.2f}")
        if "unrecoverable" in present:
            row.append(cell(cells.get("unrecoverable", {}).get("futile_calls"), percent=False, digits=2))
        if stalls:
            row.append(cell(cells.get("all", {}).get("stall_notes"), percent=False, digits=2))
            mine = [r for r in records if r["harness"] == harness]
            noted = sum(bool(r.get("stall_notes")) for r in mine)
            row.append(f"{noted} of {len(mine)}" if "stall_notes" in cells.get("all", {}) else "-")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def progress_table(results: Mapping[str, Any]) -> str:
    """Each progress harness against its baseline, episode by episode (the same scenario and
    kind): the paired difference (progress - baseline) with its 95% bootstrap interval over
    the episodes' scenarios (toolerr_eval.Bootstrap, 1,000 resamples, seed 0), and how many
    episodes changed each way."""
    from toolerr_eval import Bootstrap

    records = results["episodes"]["records"]
    harnesses = results["config"]["episode_harnesses"]
    measures = (
        ("transient", "completed", "transient: completed"),
        ("fixable", "completed", "fixable: completed"),
        ("fixable", "any_exact_repeat", "fixable: failed call repeated exactly"),
        (None, "loop", "loop (any kind)"),
        (None, "calls", "calls per episode"),
    )
    head = ["progress harness - baseline", *(label for _, _, label in measures)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for harness in harnesses:
        base = harness.removesuffix("+progress")
        if base == harness or base not in harnesses:
            continue
        mine = {(r["scenario"], r["kind"]): r for r in records if r["harness"] == harness}
        theirs = {(r["scenario"], r["kind"]): r for r in records if r["harness"] == base}
        keys = sorted(mine.keys() & theirs.keys())
        boot = Bootstrap([k[0] for k in keys], resamples=1000, seed=0)
        row = [f"{harness} - {base}"]
        for kind, field, _ in measures:
            chosen = [k for k in keys if kind is None or k[1] == kind]
            a = [(k[0], float(mine[k][field])) for k in chosen]
            b = [(k[0], float(theirs[k][field])) for k in chosen]
            diff = boot.difference(a, b).as_dict()
            up = sum(x > y for (_, x), (_, y) in zip(a, b, strict=True))
            down = sum(x < y for (_, x), (_, y) in zip(a, b, strict=True))
            percent = field != "calls"
            text = cell(diff, percent=percent, digits=0 if percent else 2)
            row.append(f"{text} (up {up}, down {down} of {len(chosen)})")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def probe_table(results: Mapping[str, Any]) -> str:
    probe = results["probe"]["summary"]
    head = [
        "context",
        "P(repeat)",
        "P(correct)",
        "corrective gain (nats)",
        "per action token",
        "greedy exact repeat",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for context, cells in probe["contexts"].items():
        lines.append(
            "| "
            + " | ".join(
                [
                    context,
                    cell(cells["p_repeat"]),
                    cell(cells["p_correct"]),
                    cell(cells["corrective_gain"], percent=False, digits=2),
                    cell(cells["corrective_gain_per_token"], percent=False, digits=2),
                    cell(cells.get("greedy_exact_repeat")),
                ]
            )
            + " |"
        )
    extra = {k: v for k, v in probe.items() if k != "contexts"}
    return "\n".join(lines) + "\n\n" + json.dumps(extra, indent=1)


def calibration_text(results: Mapping[str, Any]) -> str:
    calibrate = results["calibrate"]
    scores = ", ".join(f"{form} {100 * score:.1f}%" for form, score in calibrate["selection_scores"].items())
    return (
        f"selection split {len(calibrate['selection_split'])} scenarios, report split "
        f"{len(calibrate['report_split'])}; selection scores: {scores}; best: {calibrate['best']}; "
        f"report: {json.dumps(calibrate['report'])}"
    )


def headline(auto: Mapping[str, Any], required: Mapping[str, Any]) -> str:
    """One row per harness, the figures that tell the harnesses apart on this model: the
    strict stop and fabricated results (tool choice auto), which call it writes when it
    must call, the loops of the required-call episodes, and the probe's repeat probability."""
    decision = auto["decision"]["summary"]
    forced = required["decision"]["summary"]
    episodes = required.get("episodes", {}).get("summary", {})
    probe = auto.get("probe", {}).get("summary", {}).get("contexts", {})
    records = auto["decision"]["records"]
    head = [
        "harness",
        "auto: unrecoverable, stop in prose",
        "auto: fabricated tool result",
        "forced: transient retried",
        "forced: fixable corrected",
        "forced: fixable exact repeat",
        "forced: failed arguments again",
        "episodes (forced): fixable completed",
        "episodes (forced): loop",
        "probe: P(repeat)",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for harness, cells in decision.items():
        failures = [r for r in records if r["harness"] == harness and r["kind"] in FAILURE]
        echoed = sum(r["action"] == "echo" for r in failures) / max(len(failures), 1)
        other = forced.get(harness, {})
        row = [
            harness,
            cell(cells.get("unrecoverable", {}).get("strict_correct")),
            f"{100 * echoed:.0f}%",
            cell(other.get("transient", {}).get("correct")),
            cell(other.get("fixable", {}).get("correct")),
            cell(other.get("fixable", {}).get("exact_repeat")),
            cell(other.get("fixable", {}).get("argument_repeat")),
            cell(episodes.get(harness, {}).get("fixable", {}).get("completed")),
            cell(episodes.get(harness, {}).get("all", {}).get("loop")),
            cell(probe.get(harness, {}).get("p_repeat")),
        ]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def main(paths: list[str]) -> None:
    if paths[:1] == ["--headline"]:
        with open(paths[1], encoding="utf-8") as a, open(paths[2], encoding="utf-8") as b:
            auto, required = json.load(a), json.load(b)
        for extra in paths[3:]:  # later runs of some harnesses replace their rows
            with open(extra, encoding="utf-8") as handle:
                more = json.load(handle)
            required["decision"]["summary"].update(more["decision"]["summary"])
            if "episodes" in more:
                required.setdefault("episodes", {"summary": {}})["summary"].update(
                    more["episodes"]["summary"]
                )
        print(headline(auto, required))
        return
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            results = json.load(handle)
        config = results["config"]
        print(f"## {path}\n")
        print(f"argv: {' '.join(config.get('argv', []))}\n")
        cost = results.get("cost", {})
        print(f"cost: {json.dumps(cost)}\n")
        if "decision" in results:
            print(decision_table(results) + "\n")
        if "calibrate" in results:
            print(calibration_text(results) + "\n")
        if "episodes" in results:
            print(episodes_table(results) + "\n")
            if any(h.endswith("+progress") for h in config.get("episode_harnesses", [])):
                print(progress_table(results) + "\n")
        if "probe" in results:
            print(probe_table(results) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
