"""The public names, the version and the commands this distribution gives the core's CLI."""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
from pathlib import Path

import toolerr_eval
import toolerr_eval.demo
import toolerr_hf


def test_all() -> None:
    assert sorted(toolerr_eval.__all__) == sorted(
        [
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
    )
    for name in toolerr_eval.__all__:
        assert getattr(toolerr_eval, name) is not None
    assert toolerr_eval.demo.__all__ == ["demo_arguments", "print_demo", "run_model_demo"]


def test_version_is_the_installed_metadata() -> None:
    assert toolerr_eval.__version__ == importlib.metadata.version("toolerr-eval")


def test_the_core_finds_demo_and_eval_through_the_entry_points() -> None:
    found = {
        ep.name: ep
        for ep in importlib.metadata.entry_points(group="toolerr.commands")
        if ep.dist is not None and ep.dist.name == "toolerr-eval"
    }
    assert sorted(found) == ["demo", "eval"]
    assert found["demo"].load() is toolerr_eval.demo.run_model_demo
    assert found["eval"].load() is toolerr_eval.main


def test_the_model_backend_no_longer_holds_the_evaluation() -> None:
    assert importlib.util.find_spec("toolerr_hf.evaluation") is None
    assert importlib.util.find_spec("toolerr_hf.demo") is None
    assert toolerr_hf.__file__ is not None


def test_only_public_names_of_the_model_backend_are_imported() -> None:
    """toolerr_eval uses toolerr_hf through its ``__all__``, never its private modules."""
    used: set[str] = set()
    for path in Path(toolerr_eval.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("toolerr_hf"):
                assert node.module == "toolerr_hf", (path.name, node.module)
                used.update(alias.name for alias in node.names)
            if isinstance(node, ast.Import):
                assert not [a.name for a in node.names if a.name.startswith("toolerr_hf.")], path.name
    assert used, "toolerr_eval imports nothing of toolerr_hf"
    assert used <= set(toolerr_hf.__all__), sorted(used - set(toolerr_hf.__all__))
