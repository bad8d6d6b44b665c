"""The command line of ``toolerr eval``: :func:`build_parser` and :func:`main` (what the
``toolerr.commands`` entry point ``eval`` of this distribution names)."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from collections.abc import Sequence

from toolerr_hf import ModelNotFoundError, load_named_model

from ._calibrate import write_profile_file
from ._evaluate import evaluate, rescore
from ._harnesses import HARNESSES, PROGRESS_HARNESSES
from ._journal import ResumeError
from ._report import write_json, write_plot, write_table
from ._scenarios import ITEM_KINDS


def build_parser() -> argparse.ArgumentParser:
    """The arguments of ``toolerr eval`` (what :func:`main` parses and :func:`evaluate` reads)."""
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
        "--episode-harness",
        nargs="+",
        metavar="H",
        help="harnesses for the episodes (default: --harness); also the episode-only progress harnesses "
        f"{' '.join(PROGRESS_HARNESSES)} (toolerr's progress probe on the simulated runtime, stall note)",
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


def main(argv: Sequence[str] | None = None) -> int:
    """``toolerr eval [--model PATH] [--harness ...] [--kinds ...] [--scenarios N] [--out DIR]``
    (``--calibrate``, ``--help`` for the rest); the exit status."""
    from . import PLOT_INSTALL  # the package's constant (the package imports this module)

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


def _rescore_command(args: argparse.Namespace) -> int:
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
