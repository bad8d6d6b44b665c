"""The run of ``toolerr eval`` on a loaded model: :func:`evaluate` (decision step, episodes,
probe, calibration, as the arguments ask, journalled for ``--resume``), :func:`rescore`
(the stored replies of a results dict scored again) and :func:`calibrate` (the one form
with the best mean correct-action rate). The command line is in :mod:`toolerr_eval._cli`.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from toolerr import PROFILES
from toolerr_hf import HermesFormat, auto_form

from ._calibrate import CALIBRATION_FORMS, recalibrate, run_calibration, split_scenarios
from ._engine import Engine
from ._harnesses import EPISODE_HARNESSES, HARNESSES, LABELS
from ._journal import Journal, ResumeError
from ._measures import (
    Bootstrap,
    classify,
    is_correct,
    is_strict_correct,
    pairs,
    rewrites_failed_arguments,
    select,
)
from ._report import summarise_decision, summarise_episodes, summarise_probe
from ._runs import GREEDY_CONTEXTS, run_decision, run_episodes, run_probe
from ._scenarios import FAILURE_KINDS, ITEM_KINDS, Item, Scenario, build_suite

logger = logging.getLogger("toolerr")

PROBE_HARNESSES: tuple[str, ...] = ("c0", "c1", "c2", "c3", "c4", "abstract", "instruction", "reflect")
"""Contexts of the probe (the ban harnesses act at the decoder, not on the context; clean
restart is the ``before`` context)."""


def _list(value: str) -> list[str]:
    return [v.strip() for v in value.replace(",", " ").split() if v.strip()]


def calibrate(
    records: Sequence[dict[str, Any]],
    selection: Sequence[Scenario],
    report: Sequence[Scenario],
    boot: Bootstrap,
    forms: Sequence[str] = CALIBRATION_FORMS,
) -> dict[str, Any]:
    """The form with the best mean correct-action rate over the failure kinds (macro
    average, so recovery and stopping weigh the same) on ``selection``; ties go to fewer
    exact repeats, then to the order of ``forms``. Reported with intervals on ``report``."""
    chosen = {s.id for s in selection}
    held = {s.id for s in report}
    scores: dict[str, float] = {}
    repeats: dict[str, float] = {}
    for form in forms:
        per_kind = []
        for kind in FAILURE_KINDS:
            rows = [
                r for r in records if r["harness"] == form and r["kind"] == kind and r["scenario"] in chosen
            ]
            if rows:
                per_kind.append(sum(r["correct"] for r in rows) / len(rows))
        rows = [
            r
            for r in records
            if r["harness"] == form and r["kind"] in FAILURE_KINDS and r["scenario"] in chosen
        ]
        if per_kind:
            scores[form] = sum(per_kind) / len(per_kind)
            repeats[form] = sum(r["exact_repeat"] for r in rows) / max(len(rows), 1)
    if not scores:
        raise ValueError("calibration needs decision-step records of at least one form")
    best = min(scores, key=lambda f: (-round(scores[f], 9), repeats[f], list(forms).index(f)))

    def held_rows(form: str) -> list[dict[str, Any]]:
        return [
            r
            for r in records
            if r["harness"] == form and r["kind"] in FAILURE_KINDS and r["scenario"] in held
        ]

    per_kind_report = {
        kind: boot.interval(pairs(select(held_rows(best), kind=kind), "correct")).as_dict()
        for kind in FAILURE_KINDS
    }
    return {
        "forms": list(forms),
        "selection_split": sorted(chosen),
        "report_split": sorted(held),
        "selection_scores": scores,
        "selection_exact_repeats": repeats,
        "best": best,
        "report": {
            "best_correct": boot.interval(pairs(held_rows(best), "correct")).as_dict(),
            "c0_correct": boot.interval(pairs(held_rows("c0"), "correct")).as_dict(),
            "difference": boot.difference(
                pairs(held_rows(best), "correct"), pairs(held_rows("c0"), "correct")
            ).as_dict(),
            "best_per_kind": per_kind_report,
        },
    }


class _Progress:
    def __init__(self, total: int, enabled: bool) -> None:
        self.bar: Any = None
        if enabled and total > 0:
            try:
                from tqdm import tqdm  # type: ignore[import-untyped,unused-ignore]

                self.bar = tqdm(
                    total=total, desc="toolerr eval", unit="gen", file=sys.stderr, dynamic_ncols=True
                )
            except ImportError:  # pragma: no cover - tqdm is optional
                self.bar = None
        self.done = 0
        self.total = total
        self.enabled = enabled

    def __call__(self, count: int) -> None:
        self.done += count
        if self.bar is not None:
            if self.done > (self.bar.total or 0):  # a pass that was not planned (--calibrate's forced calls)
                self.bar.total = self.done
            self.bar.update(count)
        elif self.enabled:
            sys.stderr.write(f"\rtoolerr eval: {self.done} steps")
            sys.stderr.flush()

    def stage(self, name: str) -> None:
        if self.bar is not None:
            self.bar.set_description(f"toolerr eval: {name}")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _validate(values: Sequence[str] | None, allowed: Sequence[str], what: str) -> list[str]:
    if not values:
        return list(allowed)
    flat = [v for value in values for v in _list(value)]
    unknown = [v for v in flat if v not in allowed]
    if unknown:
        raise SystemExit(f"toolerr eval: unknown {what} {', '.join(unknown)}; expected {', '.join(allowed)}")
    return list(dict.fromkeys(flat))


def evaluate(
    args: argparse.Namespace,
    model: Any,
    tokenizer: Any,
    *,
    model_name: str = "model",
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Run what ``args`` asks for on a loaded model; the results as one JSON-able dict."""
    started = time.monotonic()
    harnesses = _validate(args.harness, HARNESSES, "harness")
    kinds = _validate(args.kinds, ITEM_KINDS, "kind")
    if args.calibrate:
        harnesses = list(dict.fromkeys([*harnesses, *CALIBRATION_FORMS])) if args.harness else harnesses
        kinds = list(dict.fromkeys([*kinds, *FAILURE_KINDS]))
    per_tool = max(1, min(10, args.scenarios))
    suite = build_suite(per_tool)
    items = [Item(s, k) for s in suite for k in kinds]  # type: ignore[arg-type]
    episode_count = per_tool if args.episodes is None else max(0, min(10, args.episodes))
    episode_harnesses = (
        _validate(args.episode_harness, EPISODE_HARNESSES, "episode harness")
        if args.episode_harness
        else harnesses
    )
    probe_count = per_tool if args.probe is None else max(0, min(10, args.probe))
    probe_harnesses = (
        _validate(args.probe_harness, HARNESSES, "harness") if args.probe_harness else list(PROBE_HARNESSES)
    )
    engine = Engine(
        model,
        tokenizer,
        max_new_tokens=args.max_new_tokens,
        batch_size=args.batch_size,
        prose_tokens=args.prose_tokens or None,
    )
    boot = Bootstrap([s.id for s in suite], resamples=args.bootstrap, seed=args.seed)
    episode_suite = build_suite(episode_count) if episode_count else []
    episode_choice = args.episode_tool_choice or args.tool_choice
    episode_items = [
        Item(s, k)
        for s in episode_suite
        for k in kinds
        if k in FAILURE_KINDS and not (episode_choice == "required" and k == "unrecoverable")
    ]
    probe_suite = build_suite(probe_count) if probe_count else []
    if args.no_decision:
        items = []
    greedy = [c for c in GREEDY_CONTEXTS if c in ("before", "neutral", "success") or c in probe_harnesses]
    total = (
        len(items) * len(harnesses)
        + len(episode_items) * len(episode_harnesses) * args.turns
        + len(probe_suite) * (1 + len(greedy))  # scoring, then greedy decoding at the action slot
    )
    bar = _Progress(total, progress is None and not args.no_progress)
    tick = progress or bar
    results: dict[str, Any] = {
        "config": {
            "model": model_name,
            "harnesses": harnesses,
            "kinds": kinds,
            "scenarios_per_tool": per_tool,
            "scenarios": len(suite),
            "episode_scenarios_per_tool": episode_count,
            "episode_harnesses": episode_harnesses if episode_items else [],
            "turns": args.turns,
            "probe_scenarios_per_tool": probe_count,
            "probe_contexts": ["before", "neutral", "success", *probe_harnesses] if probe_suite else [],
            "seed": args.seed,
            "bootstrap": args.bootstrap,
            "max_new_tokens": args.max_new_tokens,
            "batch_size": args.batch_size,
            "decoding": "greedy",
            "tool_choice": args.tool_choice,
            "episode_tool_choice": episode_choice,
            "prose_tokens": args.prose_tokens,
            "labels": {h: LABELS[h] for h in EPISODE_HARNESSES},
        }
    }
    journal = _journal(args, results["config"])
    engine.journal = journal
    try:
        _measure(
            args,
            engine,
            results,
            items,
            harnesses,
            kinds,
            boot,
            suite,
            bar,
            tick,
            started,
            episode_items,
            episode_harnesses,
            episode_choice,
            probe_suite,
            probe_harnesses,
        )
    finally:
        if journal is not None:
            journal.close()
    return results


def _journal(args: argparse.Namespace, config: dict[str, Any]) -> Journal | None:
    """The run's journal (``--out``/progress.jsonl or ``--journal``), or None."""
    path = getattr(args, "journal", None)
    out = getattr(args, "out", None)
    if path is None and out:
        path = os.path.join(out, "progress.jsonl")
    resume = bool(getattr(args, "resume", False))
    if path is None:
        if resume:
            raise ResumeError("--resume needs the journal of the run: give --out DIR or --journal FILE")
        return None
    if resume and not os.path.exists(path):
        raise ResumeError(f"nothing to resume: {path} does not exist")
    options = {**config, "calibrate": bool(args.calibrate), "no_decision": bool(args.no_decision)}
    return Journal(path, options, resume=resume)


def _measure(
    args: argparse.Namespace,
    engine: Engine,
    results: dict[str, Any],
    items: list[Item],
    harnesses: list[str],
    kinds: list[str],
    boot: Bootstrap,
    suite: list[Scenario],
    bar: _Progress,
    tick: Callable[[int], None],
    started: float,
    episode_items: list[Item],
    episode_harnesses: list[str],
    episode_choice: str,
    probe_suite: list[Scenario],
    probe_harnesses: list[str],
) -> None:
    logger.info("toolerr eval: decision step, %d items x %d harnesses", len(items), len(harnesses))
    bar.stage("decision step")
    decision = run_decision(engine, items, harnesses, tick, tool_choice=args.tool_choice) if items else []
    if decision:
        results["decision"] = {
            "summary": summarise_decision(decision, harnesses, kinds, boot),
            "records": decision,
            "seconds": time.monotonic() - started,
        }
    if args.calibrate and decision:
        selection, report = split_scenarios(suite, args.seed)
        results["calibrate"] = calibrate(decision, selection, report, boot)
    probe: list[dict[str, Any]] = []
    if episode_items and episode_harnesses:
        mark = time.monotonic()
        bar.stage("episodes")
        episodes = run_episodes(
            engine,
            episode_items,
            episode_harnesses,
            turns=args.turns,
            progress=tick,
            tool_choice=episode_choice,
        )
        results["episodes"] = {
            "summary": summarise_episodes(episodes, episode_harnesses, boot),
            "records": episodes,
            "seconds": time.monotonic() - mark,
        }
    if probe_suite:
        mark = time.monotonic()
        bar.stage("probe")
        probe = run_probe(engine, probe_suite, probe_harnesses, tick)
        results["probe"] = {
            "summary": summarise_probe(probe, boot),
            "records": probe,
            "seconds": time.monotonic() - mark,
        }
    if args.calibrate:
        mark = time.monotonic()
        bar.stage("calibration")
        per_kind = run_calibration(
            engine,
            suite,
            decision,
            probe,
            tool_choice=args.tool_choice,
            prefer=PROFILES[auto_form(engine.model)],
            seed=args.seed,
            resamples=args.bootstrap,
            progress=tick,
        )
        per_kind["seconds"] = time.monotonic() - mark
        results.setdefault("calibrate", {})["per_kind"] = per_kind
    bar.close()
    results["cost"] = {"wall_seconds": time.monotonic() - started, "engine": engine.counters.as_dict()}


def rescore(results: dict[str, Any]) -> dict[str, Any]:
    """Score the stored replies of a results dict again with the current scorer, and
    recompute the summaries (decision step, calibration, the probe's greedy repeats)."""
    fmt = HermesFormat()
    config = results["config"]
    suite = {s.id: s for s in build_suite()}
    scenario_ids = [s.id for s in build_suite(config["scenarios_per_tool"])]
    boot = Bootstrap(scenario_ids, resamples=config["bootstrap"], seed=config["seed"])
    decision = results.get("decision")
    per_kind = results.get("calibrate", {}).get("per_kind")

    def score(record: dict[str, Any]) -> None:
        item = Item(suite[record["scenario"]], record["kind"])
        parsed = fmt.parse(record["text"], [item.scenario.tool.name], complete=not record["cut"])
        action = classify(parsed, item, fmt)
        record["action"] = action
        record["correct"] = is_correct(item.kind, action)
        record["strict_correct"] = is_strict_correct(item.kind, action)
        record["exact_repeat"] = action == "exact_repeat"
        record["canonical_repeat"] = action in ("exact_repeat", "canonical_repeat")
        record["no_call"] = action in ("stop", "echo")
        record["argument_repeat"] = rewrites_failed_arguments(record["text"], item)

    for record in (per_kind or {}).get("records", []):
        score(record)
    if decision:
        for record in decision["records"]:
            score(record)
        records = decision["records"]
        decision["summary"] = summarise_decision(records, config["harnesses"], config["kinds"], boot)
        if "calibrate" in results:
            selection, report = split_scenarios([suite[i] for i in scenario_ids], config["seed"])
            results["calibrate"] = calibrate(records, selection, report, boot)
    probe = results.get("probe")
    if probe:
        probe_ids = list(dict.fromkeys(r["scenario"] for r in probe["records"]))
        probe_boot = Bootstrap(probe_ids, resamples=config["bootstrap"], seed=config["seed"])
        for record in probe["records"]:
            if "greedy_text" not in record:
                continue
            item = Item(suite[record["scenario"]], "fixable")
            parsed = fmt.parse(record["greedy_text"], [item.scenario.tool.name], complete=False)
            action = classify(parsed, item, fmt)
            record["greedy_action"] = action
            record["greedy_exact_repeat"] = action == "exact_repeat"
        probe["summary"] = summarise_probe(probe["records"], probe_boot)
    if per_kind is not None:
        results["calibrate"]["per_kind"] = recalibrate(
            per_kind,
            decision["records"] if decision else [],
            config.get("tool_choice", "auto"),
            probe["records"] if probe else [],
            [suite[i] for i in scenario_ids],
        )
    results.setdefault("rescored", True)
    return results
