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

from ._calibrate import (
    CALIBRATION_FORMS,
    MEASURES,
    RULE,
    calibrate_per_kind,
    choose_forms,
    profile_of,
    run_calibration,
    split_scenarios,
)
from ._cli import build_parser, main
from ._engine import Engine
from ._evaluate import calibrate, evaluate, rescore
from ._harnesses import HARNESSES, LABELS, build_view
from ._journal import Journal, ResumeError
from ._measures import Bootstrap, classify, is_correct
from ._runs import runtime_result
from ._scenarios import ITEM_KINDS, Item, Scenario, build_suite, error_text

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
