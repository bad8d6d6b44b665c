"""``toolerr eval`` as the core's command runs it: the plot extra checked before the run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from toolerr._cli import main as toolerr
from toolerr_eval import PLOT_INSTALL, main


def test_out_without_the_plot_extra_fails_before_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if it were not installed
    missing = tmp_path / "no-such-model"
    for run in (lambda argv: main(argv), lambda argv: toolerr(["eval", *argv])):
        assert run(["--model", str(missing), "--out", str(tmp_path / "out")]) == 2
        err = capsys.readouterr().err
        # the extra is named, and no model was looked for (that error would name the folder)
        assert PLOT_INSTALL in err and PLOT_INSTALL == "pip install 'toolerr-eval[plot]'"
        assert str(missing) not in err
    assert not (tmp_path / "out").exists()
