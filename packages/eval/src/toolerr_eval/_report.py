"""Summaries with intervals, the terminal table, the JSON file and the PNG plot."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any

from ._harnesses import LABELS, PROGRESS_HARNESSES
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
                for field in (
                    "correct",
                    "strict_correct",
                    "exact_repeat",
                    "canonical_repeat",
                    "argument_repeat",
                    "no_call",
                )
                if all(field in r for r in rows)
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
                "calls": boot.interval(pairs(rows, "calls")).as_dict(),
            }
            if harness in PROGRESS_HARNESSES:  # the turns whose view held a stall note
                cells["all"]["stall_notes"] = boot.interval(pairs(rows, "stall_notes")).as_dict()
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
        width = max(14, *(len(h) + 1 for h in episodes))
        stalls = any("stall_notes" in cells.get("all", {}) for cells in episodes.values())
        header = (
            f"{'harness':<{width}}"
            + "".join(f"{'done ' + k[:10]:>17}" for k in FAILURE)
            + f"{'repeat fixable':>17}{'loops':>16}{'futile calls':>18}"
            + (f"{'stall notes':>22}" if stalls else "")
        )
        out.write(header + "\n" + "-" * len(header) + "\n")
        for harness, cells in episodes.items():
            line = f"{harness:<{width}}" + "".join(
                f"{_cell(cells.get(k, {}).get('completed')):>17}" for k in FAILURE
            )
            line += f"{_cell(cells.get('fixable', {}).get('any_exact_repeat')):>17}"
            line += f"{_cell(cells.get('all', {}).get('loop')):>16}"
            futile = cells.get("unrecoverable", {}).get("futile_calls")
            line += f"{_cell(futile, percent=False):>18}"
            if stalls:
                line += f"{_cell(cells.get('all', {}).get('stall_notes'), percent=False):>22}"
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
    if calibrate and "best" in calibrate:
        out.write(
            f"\nCalibration: best single form on the selection split: {calibrate['best']} "
            f"(score {100 * calibrate['selection_scores'][calibrate['best']]:.0f}%)\n"
            f"  on the report split: correct {_cell(calibrate['report']['best_correct'])} % "
            f"vs C0 {_cell(calibrate['report']['c0_correct'])} %; "
            f"difference {_cell(calibrate['report']['difference'], False)}\n"
        )
    if calibrate and calibrate.get("per_kind"):
        from ._calibrate import write_calibration

        write_calibration(calibrate["per_kind"], out)
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


def _interval_bars(
    axis: Any,
    names: Sequence[str],
    cells: Sequence[Mapping[str, Any] | None],
    *,
    offset: float = 0.0,
    width: float = 0.6,
    scale: float = 100.0,
    **style: Any,
) -> None:
    """Bars of interval means with their 95% interval as error bars (missing cells: 0)."""
    means, lows, highs = [], [], []
    for cell in cells:
        mean = (cell or {}).get("mean")
        if mean is None or cell is None:
            means.append(0.0)
            lows.append(0.0)
            highs.append(0.0)
            continue
        means.append(scale * mean)
        lows.append(max(scale * (mean - cell["low"]), 0.0))
        highs.append(max(scale * (cell["high"] - mean), 0.0))
    xs = [i + offset for i in range(len(names))]
    axis.bar(xs, means, width, yerr=[lows, highs], capsize=2, **style)


def _names_axis(axis: Any, names: Sequence[str], ylabel: str, title: str, top: float | None = 105) -> None:
    axis.set_xticks(range(len(names)))
    axis.set_xticklabels(names, rotation=40, ha="right")
    axis.set_ylabel(ylabel)
    if top is not None:
        axis.set_ylim(0, top)
    axis.set_title(title)


def write_plot(results: Mapping[str, Any], path: str) -> None:
    """One panel per part that was run: the decision step's correct-action rate per kind
    and its exact-repeat rate (with intervals), the episodes' completion and loops, and
    the probe's repeat probability per context."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels: list[Callable[[Any], None]] = []
    decision = results.get("decision", {}).get("summary")
    choice = results["config"].get("tool_choice", "auto")
    if decision:
        harnesses = list(decision)
        kinds = [
            k for k in ("transient", "fixable", "unrecoverable", "control") if k in results["config"]["kinds"]
        ]

        def correct(axis: Any) -> None:
            width = 0.8 / max(len(kinds), 1)
            for index, kind in enumerate(kinds):
                cells = [decision[h].get(kind, {}).get("correct") for h in harnesses]
                offset = (index - (len(kinds) - 1) / 2) * width
                _interval_bars(axis, harnesses, cells, offset=offset, width=width, label=kind)
            _names_axis(
                axis,
                harnesses,
                "correct next action, % (95% CI)",
                f"Decision step (tool choice {choice}): correct next action",
            )
            axis.legend(fontsize=8)

        def repeats(axis: Any) -> None:
            exact = [decision[h].get("fixable", {}).get("exact_repeat") for h in harnesses]
            rewritten = [decision[h].get("fixable", {}).get("argument_repeat") for h in harnesses]
            _interval_bars(
                axis, harnesses, exact, offset=-0.2, width=0.4, color="tab:red", label="exact call"
            )
            _interval_bars(
                axis, harnesses, rewritten, offset=0.2, width=0.4, color="tab:pink", label="failed arguments"
            )
            _names_axis(
                axis,
                harnesses,
                "fixable failures repeated, % (95% CI)",
                "Decision step: the failed call written again",
            )
            axis.legend(fontsize=8)

        panels += [correct, repeats]
    episodes = results.get("episodes", {}).get("summary")
    if episodes:
        names = list(episodes)
        episode_choice = results["config"].get("episode_tool_choice", "auto")
        present = [k for k in FAILURE if any(k in episodes[h] for h in names)]

        def completion(axis: Any) -> None:
            series: list[tuple[str, list[Any], dict[str, Any]]] = [
                (f"done {k}", [episodes[h].get(k, {}).get("completed") for h in names], {}) for k in present
            ]
            series.append(
                ("loop", [episodes[h].get("all", {}).get("loop") for h in names], {"color": "black"})
            )
            width = 0.8 / len(series)
            for index, (label, cells, style) in enumerate(series):
                offset = (index - (len(series) - 1) / 2) * width
                _interval_bars(axis, names, cells, offset=offset, width=width, label=label, **style)
            _names_axis(
                axis,
                names,
                "% of episodes (95% CI)",
                f"Episodes (up to {results['config']['turns']} turns, tool choice {episode_choice})",
            )
            axis.legend(fontsize=8)

        panels.append(completion)
    probe = results.get("probe", {}).get("summary", {}).get("contexts")
    if probe:
        contexts = list(probe)

        def probability(axis: Any) -> None:
            _interval_bars(axis, contexts, [probe[c]["p_repeat"] for c in contexts], color="tab:purple")
            _names_axis(
                axis,
                contexts,
                "P(failed call) in the candidate set, % (95% CI)",
                "Teacher-forced probe: repeat probability of the failed call",
            )

        panels.append(probability)
    if not panels:
        return
    columns = 2 if len(panels) > 1 else 1
    rows = (len(panels) + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(8 * columns, 5.2 * rows), squeeze=False)
    flat = [axis for row in axes for axis in row]
    for panel, axis in zip(panels, flat, strict=False):
        panel(axis)
    for axis in flat[len(panels) :]:
        axis.set_visible(False)
    fig.suptitle(f"toolerr eval: {results['config']['model']}", fontsize=11)
    fig.tight_layout()
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fig.savefig(path, dpi=100)
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
    header += f"{'exact rep fix':>16}{'arg rep fix':>16}{'exact rep unrec':>16}"
    if "control" in kinds:
        header += f"{'control repeat':>16}"
    out.write(header + "\n" + "-" * len(header) + "\n")
    for harness, cells in decision.items():
        line = f"{harness:<14}" + "".join(f"{_cell(cells.get(k, {}).get('correct')):>16}" for k in columns)
        if "unrecoverable" in columns:
            line += f"{_cell(cells.get('unrecoverable', {}).get('strict_correct')):>16}"
        line += f"{_cell(cells.get('fixable', {}).get('exact_repeat')):>16}"
        line += f"{_cell(cells.get('fixable', {}).get('argument_repeat')):>16}"
        line += f"{_cell(cells.get('unrecoverable', {}).get('exact_repeat')):>16}"
        if "control" in kinds:
            line += f"{_cell(cells.get('control', {}).get('canonical_repeat')):>16}"
        out.write(line + "\n")
