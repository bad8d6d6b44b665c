"""``toolerr eval``: measure on your own model what toolerr changes, and pick the delivery.

A deterministic scenario suite (six read-only tools, ten scenarios each, a transient, a
fixable and an unrecoverable failure plus a no-failure control), the harnesses of the
two studies side by side, and three measurements: the next action at the decision step,
episodes of up to five turns with simulated tools, and a teacher-forced probe of the
failed call's probability. 95% bootstrap intervals over scenarios; the same seed gives
the same numbers. ``main(argv)`` is the command line (``toolerr eval ...``); the core's
``toolerr`` command finds it, and :func:`toolerr_eval.demo.run_model_demo` (``toolerr
demo``), through the ``toolerr.commands`` entry points of this distribution.
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from toolerr import PROFILES

from ._calibrate import (
    CALIBRATION_FORMS,
    MEASURES,
    RULE,
    calibrate_per_kind,
    choose_forms,
    profile_of,
    recalibrate,
    run_calibration,
    split_scenarios,
    write_profile_file,
)
from ._engine import Engine
from ._harnesses import HARNESSES, LABELS, build_view
from ._journal import Journal, ResumeError
from ._measures import Bootstrap, classify, is_correct, pairs, rewrites_failed_arguments, select
from ._report import (
    summarise_decision,
    summarise_episodes,
    summarise_probe,
    write_json,
    write_plot,
    write_table,
)
from ._runs import GREEDY_CONTEXTS, run_decision, run_episodes, run_probe, runtime_result
from ._scenarios import FAILURE_KINDS, ITEM_KINDS, Item, Scenario, build_suite, error_text

logger = logging.getLogger("toolerr")

PLOT_INSTALL = "pip install 'toolerr-eval[plot]'"
"""The plotting extra that ``--out`` needs."""

__version__ = "0.1.0"

__all__ = [
    "CALIBRATION_FORMS",
    "HARNESSES",
    "ITEM_KINDS",
    "LABELS",
    "MEASURES",
    "RULE",
    "Bootstrap",
    "Engine",
    "Item",
    "Journal",
    "ResumeError",
    "Scenario",
    "build_parser",
    "build_suite",
    "build_view",
    "calibrate",
    "calibrate_per_kind",
    "choose_forms",
    "classify",
    "error_text",
    "evaluate",
    "is_correct",
    "main",
    "profile_of",
    "rescore",
    "run_calibration",
    "runtime_result",
    "split_scenarios",
]

PROBE_HARNESSES: tuple[str, ...] = ("c0", "c1", "c2", "c3", "c4", "abstract", "instruction", "reflect")
"""Contexts of the probe (the ban harnesses act at the decoder, not on the context; clean
restart is the ``before`` context)."""


def _list(value: str) -> list[str]:
    return [v.strip() for v in value.replace(",", " ").split() if v.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toolerr eval",
        description="Evaluate the delivery of failed tool calls on a local model (greedy decoding).",
    )
    parser.add_argument(
        "--model", help="local model directory or GGUF file (default: the embedded SmolLM2-135M-Instruct)"
    )
    parser.add_argument(
        "--harness", nargs="+", metavar="H", help=f"harnesses (default all): {' '.join(HARNESSES)}"
    )
    parser.add_argument(
        "--kinds", nargs="+", metavar="K", help=f"kinds (default all): {' '.join(ITEM_KINDS)}"
    )
    parser.add_argument(
        "--scenarios", type=int, default=10, metavar="N", help="scenarios per tool (1-10, default 10)"
    )
    parser.add_argument(
        "--episodes",
        type=int,
        default=None,
        metavar="N",
        help="scenarios per tool for the episodes (default: --scenarios; 0: no episodes)",
    )
    parser.add_argument(
        "--episode-harness", nargs="+", metavar="H", help="harnesses for the episodes (default: --harness)"
    )
    parser.add_argument("--turns", type=int, default=5, help="model turns per episode (default 5)")
    parser.add_argument(
        "--probe",
        type=int,
        default=None,
        metavar="N",
        help="scenarios per tool for the teacher-forced probe (default: --scenarios; 0: no probe)",
    )
    parser.add_argument(
        "--probe-harness",
        nargs="+",
        metavar="H",
        help="probe contexts (default: the forms, instruction, reflect)",
    )
    parser.add_argument(
        "--tool-choice",
        choices=("auto", "required"),
        default="auto",
        help="required: every reply at the decision step opens with the call marker "
        "(measures which call; stopping cannot be measured)",
    )
    parser.add_argument(
        "--episode-tool-choice",
        choices=("auto", "required"),
        default=None,
        help="tool choice in the episodes (default: --tool-choice); required: every turn opens with "
        "the call marker and an episode ends at its first successful call (transient and fixable "
        "items only: repeats, loops, completion)",
    )
    parser.add_argument(
        "--no-decision", action="store_true", help="skip the decision step (probe or episodes only)"
    )
    parser.add_argument(
        "--prose-tokens",
        type=int,
        default=24,
        help="end a reply that has begun no call after this many tokens (0: never)",
    )
    parser.add_argument(
        "--rescore",
        metavar="JSON",
        help="score the replies of an earlier results.json again (no model run); tables, and with "
        "--out its JSON and plot",
    )
    parser.add_argument(
        "--calibrate",
        action="store_true",
        help="pick the form per kind of failure on one split of the scenarios and report it with "
        "intervals on the other (from the decision step where the model calls, else from forced "
        "calls and the probe); writes the chosen profile to OUT/profile.json (or --profile-out)",
    )
    parser.add_argument(
        "--profile-out",
        metavar="FILE",
        help="with --calibrate: write the chosen profile (JSON, what Policy(profile=FILE) loads) here",
    )
    parser.add_argument(
        "--out",
        help="folder for results.json and results.png, and progress.jsonl: every reply and scoring "
        "as it is computed (flushed after each batch), what --resume continues from",
    )
    parser.add_argument(
        "--journal",
        metavar="FILE",
        help="write the progress journal here instead of OUT/progress.jsonl",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue an interrupted run from its journal (OUT/progress.jsonl or --journal): "
        "what it holds is not decoded again, and the results are those of an uninterrupted run; "
        "refused if the journal was written with other options (give the same ones)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and the calibration split")
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples (default 1000)")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--max-new-tokens", type=int, default=80)
    parser.add_argument(
        "--threads", type=int, default=None, help="torch CPU threads (1 is fastest on a busy machine)"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


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
        _validate(args.episode_harness, HARNESSES, "harness") if args.episode_harness else harnesses
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
            "labels": {h: LABELS[h] for h in HARNESSES},
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
        from toolerr_hf._auto import auto_form

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


def main(argv: Sequence[str] | None = None) -> int:
    """``toolerr eval [--model PATH] [--harness ...] [--kinds ...] [--scenarios N] [--out DIR]``
    (``--calibrate``, ``--help`` for the rest); the exit status."""
    parser = build_parser()
    arguments = list(argv) if argv is not None else sys.argv[1:]
    if arguments[:1] == ["--"]:  # ``toolerr eval -- --scenarios 3``: the separator is not an option
        arguments = arguments[1:]
    args = parser.parse_args(arguments)
    if args.out and importlib.util.find_spec("matplotlib") is None:  # fail before the run, not after it
        sys.stderr.write(f"toolerr eval: --out writes a plot, which needs the plot extra: {PLOT_INSTALL}\n")
        return 2
    if args.rescore:
        return _rescore_command(args)
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    from toolerr_hf._loading import ModelNotFoundError, load_named_model

    started = time.monotonic()
    try:
        model, tokenizer, name = load_named_model(args.model)
    except (ModelNotFoundError, OSError, ValueError) as exc:
        sys.stderr.write(f"toolerr eval: cannot load the model: {exc}\n")
        return 2
    load_seconds = time.monotonic() - started
    try:
        results = evaluate(args, model, tokenizer, model_name=name)
    except ResumeError as exc:
        sys.stderr.write(f"toolerr eval: cannot resume: {exc}\n")
        return 2
    results["cost"]["load_seconds"] = load_seconds
    results["config"]["argv"] = arguments
    per_kind = results.get("calibrate", {}).get("per_kind")
    profile_path = args.profile_out or (os.path.join(args.out, "profile.json") if args.out else None)
    if per_kind is not None and profile_path:
        write_profile_file(per_kind, name, profile_path)
    write_table(results, sys.stdout)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        write_json(results, os.path.join(args.out, "results.json"))
        write_plot(results, os.path.join(args.out, "results.png"))
        sys.stdout.write(f"\nwrote {os.path.join(args.out, 'results.json')} and results.png\n")
    sys.stdout.flush()
    return 0


def rescore(results: dict[str, Any]) -> dict[str, Any]:
    """Score the stored replies of a results dict again with the current scorer, and
    recompute the summaries (decision step, calibration, the probe's greedy repeats)."""
    from toolerr_hf._format import HermesFormat

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
        record["strict_correct"] = _strict(item.kind, action)
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


def _strict(kind: str, action: Any) -> bool:
    from ._measures import is_strict_correct

    return is_strict_correct(kind, action)  # type: ignore[arg-type]


def _rescore_command(args: argparse.Namespace) -> int:
    import json

    try:
        with open(args.rescore, encoding="utf-8") as handle:
            results = json.load(handle)
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"toolerr eval: cannot read {args.rescore}: {exc}\n")
        return 2
    rescore(results)
    write_table(results, sys.stdout)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        write_json(results, os.path.join(args.out, "results.json"))
        write_plot(results, os.path.join(args.out, "results.png"))
    return 0
