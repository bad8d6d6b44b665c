"""Summaries with intervals, the terminal table, the JSON file and the PNG plot."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from typing import IO, Any

from ._harnesses import LABELS
from ._measures import Bootstrap, pairs, select

__all__ = [
    "summarise_decision",
    "summarise_episodes",
    "summarise_probe",
    "write_json",
    "write_plot",
    "write_table",
]

FAILURE = ("transient", "fixable", "unrecoverable")


def summarise_decision(
    records: Sequence[Mapping[str, Any]], harnesses: Sequence[str], kinds: Sequence[str], boot: Bootstrap
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for harness in harnesses:
        cells: dict[str, Any] = {}
        for kind in kinds:
            rows = select(records, harness=harness, kind=kind)
            if not rows:
                continue
            cells[kind] = {
                field: boot.interval(pairs(rows, field)).as_dict()
                for field in ("correct", "strict_correct", "exact_repeat", "canonical_repeat", "no_call")
            }
            cells[kind]["actions"] = _count(r["action"] for r in rows)
        wrong = [r for r in records if r["harness"] == harness and r["kind"] in ("fixable", "unrecoverable")]
        if wrong:
            cells["fixable+unrecoverable"] = {
                "exact_repeat": boot.interval(pairs(wrong, "exact_repeat")).as_dict(),
                "canonical_repeat": boot.interval(pairs(wrong, "canonical_repeat")).as_dict(),
            }
        failures = [r for r in records if r["harness"] == harness and r["kind"] in FAILURE]
        if failures:
            cells["all_failures"] = {"correct": boot.interval(pairs(failures, "correct")).as_dict()}
        out[harness] = cells
    return out


def _count(values: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return counts


def summarise_episodes(
    records: Sequence[Mapping[str, Any]], harnesses: Sequence[str], boot: Bootstrap
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for harness in harnesses:
        cells: dict[str, Any] = {}
        for kind in FAILURE:
            rows = select(records, harness=harness, kind=kind)
            if not rows:
                continue
            cells[kind] = {
                "completed": boot.interval(pairs(rows, "completed")).as_dict(),
                "loop": boot.interval(pairs(rows, "loop")).as_dict(),
                "any_exact_repeat": boot.interval(pairs(rows, "any_exact_repeat")).as_dict(),
                "calls": boot.interval(pairs(rows, "calls")).as_dict(),
                "n": len(rows),
            }
            if kind == "unrecoverable":
                cells[kind]["futile_calls"] = boot.interval(pairs(rows, "calls")).as_dict()
        rows = [r for r in records if r["harness"] == harness]
        if rows:
            cells["all"] = {
                "completed": boot.interval(pairs(rows, "completed")).as_dict(),
                "loop": boot.interval(pairs(rows, "loop")).as_dict(),
                "tokens": boot.interval(pairs(rows, "tokens")).as_dict(),
            }
        out[harness] = cells
    return out


def _softmax_first(values: Sequence[float]) -> float:
    top = max(values)
    weights = [math.exp(v - top) for v in values]
    return weights[0] / sum(weights)


def summarise_probe(records: Sequence[Mapping[str, Any]], boot: Bootstrap) -> dict[str, Any]:
    """Corrective gain (total and per action token), normalised repeat probability over the
    candidate set, and greedy exact repeat before (clean context) and after (C0)."""
    by: dict[tuple[str, str], Mapping[str, Any]] = {(r["scenario"], r["context"]): r for r in records}
    contexts = list(dict.fromkeys(r["context"] for r in records))
    scenarios = list(dict.fromkeys(r["scenario"] for r in records))
    out: dict[str, Any] = {"contexts": {}}
    for context in contexts:
        prob = []
        prob_correct = []
        gain = []
        per_token = []
        gap = []
        for sid in scenarios:
            row = by.get((sid, context))
            base = by.get((sid, "before"))
            if row is None or base is None:
                continue
            lps = row["logprobs"]
            prob.append((sid, _softmax_first(lps)))
            prob_correct.append((sid, _softmax_first([lps[1], lps[0], *lps[2:]])))
            delta = lps[0] - base["logprobs"][0]
            gain.append((sid, -delta))
            per_token.append((sid, -delta / max(row["tokens"][0], 1)))
            gap.append((sid, (lps[1] - lps[0]) - (base["logprobs"][1] - base["logprobs"][0])))
        out["contexts"][context] = {
            "p_repeat": boot.interval(prob).as_dict(),
            "p_correct": boot.interval(prob_correct).as_dict(),
            "corrective_gain": boot.interval(gain).as_dict(),
            "corrective_gain_per_token": boot.interval(per_token).as_dict(),
            "correct_minus_failed_gap_change": boot.interval(gap).as_dict(),
        }
    gains = {c: out["contexts"][c]["corrective_gain"]["mean"] for c in contexts}
    base_gain = gains.get("c0")
    if base_gain:
        if "neutral" in gains and gains["neutral"] is not None:
            out["surface_form_share"] = gains["neutral"] / base_gain
        if "abstract" in gains and gains["abstract"] is not None:
            out["abstract_removes"] = 1 - gains["abstract"] / base_gain
    for context in contexts:
        rows = [r for r in records if r["context"] == context and "greedy_exact_repeat" in r]
        if rows:
            out["contexts"][context]["greedy_exact_repeat"] = boot.interval(
                pairs(rows, "greedy_exact_repeat")
            ).as_dict()
    return out


# -- output ---------------------------------------------------------------------------------


def _cell(value: Mapping[str, Any] | None, percent: bool = True) -> str:
    if not value or value.get("mean") is None:
        return "-"
    if percent:
        return f"{100 * value['mean']:.0f} [{100 * value['low']:.0f},{100 * value['high']:.0f}]"
    return f"{value['mean']:+.2f} [{value['low']:+.2f},{value['high']:+.2f}]"


def write_table(results: Mapping[str, Any], out: IO[str]) -> None:
    """The plain-text tables: decision step, then episodes and probe when they were run."""
    decision = results.get("decision", {}).get("summary", {})
    kinds = results["config"]["kinds"]
    if decision:
        _decision_table(decision, kinds, results["config"].get("tool_choice", "auto"), out)
    episodes = results.get("episodes", {}).get("summary")
    if episodes:
        choice = results["config"].get("episode_tool_choice", "auto")
        out.write(
            f"\nEpisodes (up to {results['config']['turns']} turns, tool choice {choice}): % completed; "
            "% of fixable episodes that repeat the failed call exactly; % with a loop; "
            "futile calls after an unrecoverable failure (mean)\n"
        )
        header = (
            f"{'harness':<14}"
            + "".join(f"{'done ' + k[:10]:>17}" for k in FAILURE)
            + f"{'repeat fixable':>17}{'loops':>16}{'futile calls':>18}"
        )
        out.write(header + "\n" + "-" * len(header) + "\n")
        for harness, cells in episodes.items():
            line = f"{harness:<14}" + "".join(
                f"{_cell(cells.get(k, {}).get('completed')):>17}" for k in FAILURE
            )
            line += f"{_cell(cells.get('fixable', {}).get('any_exact_repeat')):>17}"
            line += f"{_cell(cells.get('all', {}).get('loop')):>16}"
            futile = cells.get("unrecoverable", {}).get("futile_calls")
            line += f"{_cell(futile, percent=False):>18}"
            out.write(line + "\n")
    probe = results.get("probe", {}).get("summary")
    if probe:
        out.write(
            "\nTeacher-forced probe (fixable items): P(repeat) over {failed, correct, 2 wrong}; "
            "corrective gain = -(change in log p(failed call)) vs. before the call\n"
        )
        header = (
            f"{'context':<14}{'P(repeat) %':>16}{'P(correct) %':>16}{'gain (nats)':>22}"
            f"{'gain/token':>20}{'greedy repeat %':>17}"
        )
        out.write(header + "\n" + "-" * len(header) + "\n")
        for context, cells in probe["contexts"].items():
            out.write(
                f"{context:<14}{_cell(cells['p_repeat']):>16}{_cell(cells['p_correct']):>16}"
                f"{_cell(cells['corrective_gain'], False):>22}"
                f"{_cell(cells['corrective_gain_per_token'], False):>20}"
                f"{_cell(cells.get('greedy_exact_repeat')):>17}\n"
            )
        if "surface_form_share" in probe:
            share = 100 * probe["surface_form_share"]
            out.write(f"share of the gain reached with a neutral result (surface form): {share:.0f}%\n")
        if "abstract_removes" in probe:
            removed = 100 * probe["abstract_removes"]
            out.write(f"share of the inversion removed by the abstract description: {removed:.0f}%\n")
    calibrate = results.get("calibrate")
    if calibrate:
        out.write(
            f"\nCalibration: best form on the selection split: {calibrate['best']} "
            f"(score {100 * calibrate['selection_scores'][calibrate['best']]:.0f}%)\n"
            f"  on the report split: correct {_cell(calibrate['report']['best_correct'])} % "
            f"vs C0 {_cell(calibrate['report']['c0_correct'])} %; "
            f"difference {_cell(calibrate['report']['difference'], False)}\n"
        )
    cost = results.get("cost")
    if cost:
        out.write(
            f"\nwall time {cost['wall_seconds']:.0f} s; generations {cost['engine']['generations']}; "
            "prompt positions saved by the shared prefix "
            f"{100 * (cost['engine']['prompt_positions_saved'] or 0):.0f}%"
        )
        if cost["engine"].get("score_positions_saved") is not None:
            out.write(f"; probe positions saved {100 * cost['engine']['score_positions_saved']:.0f}%")
        out.write("\n")


def write_json(results: Mapping[str, Any], path: str) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(results, handle, indent=1, ensure_ascii=False)


def write_plot(results: Mapping[str, Any], path: str) -> None:
    """Correct-action rate per harness and kind (with intervals), and exact-repeat rate."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    decision = results["decision"]["summary"]
    harnesses = list(decision)
    kinds = [
        k for k in ("transient", "fixable", "unrecoverable", "control") if k in results["config"]["kinds"]
    ]
    fig, (left, right) = plt.subplots(1, 2, figsize=(15, 5.5), gridspec_kw={"width_ratios": [3, 2]})
    width = 0.8 / max(len(kinds), 1)
    for k_index, kind in enumerate(kinds):
        means, lows, highs = [], [], []
        for harness in harnesses:
            cell = decision[harness].get(kind, {}).get("correct") or {}
            mean = cell.get("mean")
            means.append(100 * mean if mean is not None else 0.0)
            lows.append(100 * (mean - cell["low"]) if mean is not None else 0.0)
            highs.append(100 * (cell["high"] - mean) if mean is not None else 0.0)
        xs = [i + (k_index - (len(kinds) - 1) / 2) * width for i in range(len(harnesses))]
        left.bar(xs, means, width, yerr=[lows, highs], capsize=2, label=kind)
    left.set_xticks(range(len(harnesses)))
    left.set_xticklabels(harnesses, rotation=40, ha="right")
    left.set_ylabel("correct next action, % (95% CI)")
    left.set_ylim(0, 105)
    left.set_title("Decision step: correct next action")
    left.legend(fontsize=8)
    means, lows, highs = [], [], []
    for harness in harnesses:
        cell = decision[harness].get("fixable+unrecoverable", {}).get("exact_repeat") or {}
        mean = cell.get("mean")
        means.append(100 * mean if mean is not None else 0.0)
        lows.append(100 * (mean - cell["low"]) if mean is not None else 0.0)
        highs.append(100 * (cell["high"] - mean) if mean is not None else 0.0)
    right.bar(range(len(harnesses)), means, 0.6, yerr=[lows, highs], capsize=2, color="tab:red")
    right.set_xticks(range(len(harnesses)))
    right.set_xticklabels(harnesses, rotation=40, ha="right")
    right.set_ylabel("exact repeat of the failed call, % (95% CI)")
    right.set_title("Exact repeats (fixable + unrecoverable)")
    fig.suptitle(f"toolerr eval: {results['config']['model']}", fontsize=10)
    fig.tight_layout()
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def labels() -> Mapping[str, str]:
    return LABELS


def _decision_table(
    decision: Mapping[str, Any], kinds: Sequence[str], tool_choice: str, out: IO[str]
) -> None:
    columns = [k for k in ("transient", "fixable", "unrecoverable") if k in kinds]
    out.write(
        f"\nDecision step (tool choice {tool_choice}): % correct next action [95% CI]; "
        "exact repeats of the failed call\n"
    )
    header = f"{'harness':<14}" + "".join(f"{k[:13]:>16}" for k in columns)
    if "unrecoverable" in columns:
        header += f"{'stop in prose':>16}"
    header += f"{'exact rep fix':>16}{'exact rep unrec':>16}"
    if "control" in kinds:
        header += f"{'control repeat':>16}"
    out.write(header + "\n" + "-" * len(header) + "\n")
    for harness, cells in decision.items():
        line = f"{harness:<14}" + "".join(f"{_cell(cells.get(k, {}).get('correct')):>16}" for k in columns)
        if "unrecoverable" in columns:
            line += f"{_cell(cells.get('unrecoverable', {}).get('strict_correct')):>16}"
        line += f"{_cell(cells.get('fixable', {}).get('exact_repeat')):>16}"
        line += f"{_cell(cells.get('unrecoverable', {}).get('exact_repeat')):>16}"
        if "control" in kinds:
            line += f"{_cell(cells.get('control', {}).get('canonical_repeat')):>16}"
        out.write(line + "\n")
