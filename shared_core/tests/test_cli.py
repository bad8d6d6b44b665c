"""`toolerr classify` and `toolerr demo` through the real console entry point."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from toolerr._cli import main
from toolerr.adapters import GUIDANCE


def run_cli(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "toolerr._cli", *args], input=stdin, capture_output=True, check=False
    )


def test_classify_jsonl_contract_one_line_out_per_line_in() -> None:
    lines = [
        {"id": "a", "content": "Error: 429 Too Many Requests"},
        {"content": [{"type": "text", "text": "Error: 403 Forbidden"}]},
        {"content": {"error": {"message": "bad", "code": "INVALID_ARGUMENT"}}},
        {"content": "Temperature in Paris: 12C"},
        {
            "content": "Unknown tool: get_wether",
            "is_error": True,
            "client": "mcp",
            "tool": "x",
            "arguments": {"a": 1},
        },
    ]
    raw = (
        "\n".join(json.dumps(x) for x in lines).encode()
        + b"\nnot json\n[1,2]\n"
        + b'{"content": "x", "client": "nope"}\n'
    )
    proc = run_cli("classify", "-", stdin=raw)
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert len(out) == 8
    assert out[0]["id"] == "a" and out[0]["failed"] is True and out[0]["kind"] == "transient"
    assert out[0]["guidance"] == GUIDANCE["transient"] and out[0]["rule"]
    assert out[1]["kind"] == "unrecoverable" and out[1]["guidance"] == GUIDANCE["unrecoverable"]
    assert out[2]["kind"] == "fixable"
    assert out[3] == {**out[3], "failed": False, "kind": None, "guidance": None}
    assert out[4]["kind"] == "fixable"
    assert "error" in out[5] and "invalid JSON" in out[5]["error"]
    assert "error" in out[6] and "error" in out[7]


def test_classify_file_and_text(tmp_path: pytest.TempPathFactory) -> None:
    path = tmp_path / "in.jsonl"  # type: ignore[operator]
    path.write_bytes(
        b'{"content": "Error: ECONNREFUSED 127.0.0.1:5432"}\n{"content": "\xff\xfe bad bytes"}\n'
    )
    proc = run_cli("classify", str(path))
    out = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert len(out) == 2 and out[0]["kind"] == "transient"
    proc = run_cli("classify", "--text", "PermissionError: [Errno 13] Permission denied: '/etc/shadow'")
    assert json.loads(proc.stdout)["kind"] == "unrecoverable"
    proc = run_cli("classify", str(path) + ".missing")
    assert proc.returncode == 2 and b"cannot read" in proc.stderr


def test_demo_quick_walkthrough(capsys: pytest.CaptureFixture[str], tmp_path: pytest.TempPathFactory) -> None:
    assert main(["demo", "--quick", "--out", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "Note from the tool runtime" in text
    summary = json.loads((tmp_path / "demo.json").read_text())  # type: ignore[operator]
    kinds = {e["label"]: e["kind"] for e in summary["examples"]}
    assert kinds == {
        "transient": "transient",
        "fixable": "fixable",
        "unrecoverable": "unrecoverable",
        "ambiguous": "ambiguous",
        "no failure": None,
    }
    assert summary["loop"]["third_call"] == "block"


def test_eval_options_are_handed_over_without_a_separator() -> None:
    proc = run_cli("eval", "--help")
    # without the evaluation installed the command says what to install; with it,
    # the options reach it (never an argparse "unrecognized arguments" error)
    assert b"unrecognized arguments" not in proc.stderr
    if proc.returncode == 2:
        assert b"pip install toolerr-eval" in proc.stderr
    else:
        assert proc.returncode == 0 and b"--scenarios" in proc.stdout
