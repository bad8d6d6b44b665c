"""`toolerr classify` as a filter in a pipeline: bytes that are not UTF-8, a reader that
goes away (``| head -1``), Ctrl-C, a co-process that reads each answer before it writes
the next line, input nested too deeply to decode; the exit statuses ``--help`` documents."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from toolerr._cli import EVAL_INSTALL, classify_line

COMMAND = [sys.executable, "-m", "toolerr", "classify"]


def _strict_utf8() -> dict[str, str]:
    # a UTF-8 locale other than C.UTF-8 (en_US.UTF-8, macOS): standard streams are strict
    return {**os.environ, "PYTHONIOENCODING": "utf-8"}


def test_bytes_that_are_not_utf8_come_back_as_they_came_and_no_line_is_lost() -> None:
    raw = (
        b'{"id": "r\xff1", "content": "Error: 503 Service Unavailable \xfe"}\n{"id": "r2", "content": "ok"}\n'
    )
    run = subprocess.run(COMMAND, input=raw, capture_output=True, env=_strict_utf8(), check=False)
    assert run.returncode == 0 and b"Traceback" not in run.stderr, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(b'{"id": "r\xff1", "failed": true, "kind": "transient"')
    assert json.loads(lines[1])["id"] == "r2"
    text = subprocess.run(
        [*COMMAND, "--text", os.fsdecode(b"Error: 503 Service Unavailable \xff")],
        capture_output=True,
        env=_strict_utf8(),
        check=False,
    )
    assert text.returncode == 0 and json.loads(text.stdout)["kind"] == "transient", text.stderr


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path: Path) -> None:
    source = tmp_path / "many.jsonl"
    source.write_text('{"content": "Error: 503 Service Unavailable"}\n' * 200_000, encoding="utf-8")
    with (tmp_path / "err").open("wb") as err:
        proc = subprocess.Popen([*COMMAND, str(source)], stdout=subprocess.PIPE, stderr=err)
        assert proc.stdout is not None
        assert json.loads(proc.stdout.readline())["kind"] == "transient"
        proc.stdout.close()  # `| head -1`
        code = proc.wait(timeout=60)
    assert (tmp_path / "err").read_bytes() == b""  # no BrokenPipeError traceback
    assert code == 141


def _sigint_as_in_a_terminal() -> None:
    # a child of a background job inherits SIGINT ignored; a command typed in a terminal does not
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_a_co_process_gets_each_answer_before_the_next_line_and_ctrl_c_ends_it_quietly() -> None:
    proc = subprocess.Popen(
        COMMAND,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_sigint_as_in_a_terminal,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        for text, kind in (
            ("Error: 503 Service Unavailable", "transient"),
            ("Error: 403 Forbidden", "unrecoverable"),
        ):
            proc.stdin.write(json.dumps({"content": text}).encode() + b"\n")
            proc.stdin.flush()
            assert json.loads(proc.stdout.readline())["kind"] == kind  # answered while stdin stays open
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=60)
        err = proc.stderr.read()
    finally:
        proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()
    assert code == 130 and b"Traceback" not in err and b"KeyboardInterrupt" not in err, err


def test_the_exit_statuses_are_in_the_help() -> None:
    run = subprocess.run([*COMMAND, "--help"], capture_output=True, text=True, check=False)
    assert run.returncode == 0
    statuses = " ".join(run.stdout.split()).split("Exit status:", 1)[1]
    for status in ("0:", "2:", "130:", "141:"):
        assert status in statuses


def test_json_nested_too_deeply_is_bad_input_not_an_internal_error(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="toolerr")
    assert classify_line("[" * 100_000) == {"error": "invalid JSON: nested too deeply"}
    assert classify_line('{"content": ' + "[" * 100_000) == {"error": "invalid JSON: nested too deeply"}
    assert caplog.records == []


@pytest.mark.parametrize(
    ("module", "attribute", "why"),
    [
        ("def eval_main(argv):\n    return 3\n", "renamed_main", "AttributeError"),  # another release
        ("def eval_main(argv:\n", "eval_main", "SyntaxError"),
        ("raise RuntimeError('no CUDA here')\n", "eval_main", "RuntimeError: no CUDA here"),
    ],
    ids=["missing", "syntax", "raises"],
)
def test_a_declared_command_that_cannot_be_loaded_says_so_without_a_traceback(
    tmp_path: Path, module: str, attribute: str, why: str
) -> None:
    from test_cli_install import _distribution, _with_path

    env = _with_path(_distribution(tmp_path, f"eval = toolerr_test_commands:{attribute}\n", module=module))
    run = subprocess.run([sys.executable, "-m", "toolerr", "eval"], capture_output=True, text=True, env=env)
    assert run.returncode == 2 and run.stdout == ""
    assert "toolerr eval: cannot load it" in run.stderr and why in run.stderr
    assert "Traceback" not in run.stderr and EVAL_INSTALL in run.stderr


def test_a_file_that_starts_with_a_byte_order_mark_is_read_from_its_first_line(tmp_path: Path) -> None:
    # what Windows PowerShell 5 (Out-File -Encoding utf8) and Notepad write
    source = tmp_path / "in.jsonl"
    source.write_bytes(
        b'\xef\xbb\xbf{"content": "Error: 503 Service Unavailable"}\r\n{"content": "\xef\xbb\xbfok"}\r\n'
    )
    for args, stdin in (([str(source)], None), (["-"], source.read_bytes())):
        run = subprocess.run([*COMMAND, *args], input=stdin, capture_output=True, check=False)
        first, second = (json.loads(line) for line in run.stdout.splitlines())
        assert first["kind"] == "transient"
        assert second["failed"] is False  # a mark inside a later line is content, left as is
