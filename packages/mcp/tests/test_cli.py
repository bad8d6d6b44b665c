"""The ``toolerr-mcp`` command line (the proxy itself is tested end to end in test_proxy)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from toolerr_mcp._cli import build_parser, main


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolerr_mcp", *args], capture_output=True, text=True, timeout=60, check=False
    )


def test_help_documents_the_configuration() -> None:
    done = run("proxy", "--help")
    assert done.returncode == 0
    assert '"command": "toolerr-mcp"' in done.stdout
    assert "--loop-action" in done.stdout


def test_version() -> None:
    done = run("--version")
    assert done.returncode == 0
    assert done.stdout.startswith("toolerr-mcp ")


def test_needs_an_upstream_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["proxy"])
    assert exited.value.code == 2
    assert "give the upstream server's command after '--'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args",
    [
        ["proxy", "--form", "c3", "--", "server"],
        ["proxy", "--tool-safety", "search=maybe", "--", "server"],
        ["proxy", "--loop-action", "ignore", "--", "server"],
        ["proxy", "--retry-budget", "-1", "--", "server"],
    ],
)
def test_bad_options_are_refused(args: list[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(args)
    assert exited.value.code == 2


def test_options_are_parsed() -> None:
    args = build_parser().parse_args(
        [
            "proxy",
            "--form",
            "c0",
            "--tool-safety",
            "a=read_only",
            "--env",
            "K=V=W",
            "--",
            "cmd",
            "--flag",
            "x",
        ]
    )
    assert args.form == "c0"
    assert args.tool_safety == [("a", "read_only")]
    assert args.env == [("K", "V=W")]
    assert args.upstream == ["--", "cmd", "--flag", "x"]
