"""Quarantine (issue 26, item 1): a long failed tool result is shown to the model, for the
model call only, as its primary error, its last lines and the saved file's path; the file
holds the whole result byte for byte. Real outputs: a failing ``python -m pytest`` run, a
deep traceback and ``gcc`` errors, each from a real subprocess."""

from __future__ import annotations

import logging
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import toolerr
from toolerr import Message, Policy, ToolCall, ToolErrorLayer
from toolerr._quarantine import DirectoryStore, default_result_dir, excerpt, primary_error
from toolerr.adapters import failure_of

SAVED = re.compile(r" is saved at (.+?)\]$", re.MULTILINE)


@pytest.fixture(scope="module")
def pytest_output(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The output of a real failing ``python -m pytest`` run of 120 tests (~2,200 lines)."""
    directory = tmp_path_factory.mktemp("failing")
    lines: list[str] = []
    for i in range(120):
        lines += [
            f"def check_{i}(value):",
            "    rows = list(range(25))",
            f"    assert value == {i} + 1, f'value {{value}} not in {{rows}}'",
            "",
            f"def test_{i}():",
            f"    check_{i}({i})",
            "",
        ]
    (directory / "test_failing.py").write_text("\n".join(lines))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "test_failing.py"],
        capture_output=True,
        text=True,
        cwd=directory,
        check=False,
        timeout=300,
    )
    assert run.returncode == 1
    return run.stdout


@pytest.fixture(scope="module")
def deep_traceback() -> str:
    """A real traceback of a deep mutual recursion that ends in a refused connection."""
    code = (
        "def down(n):\n    return up(n + 1) if n < 600 else connect()\n"
        "def connect():\n    raise ConnectionRefusedError(111, 'Connection refused')\n"
        "def up(n):\n    return down(n + 1)\n"
        "down(0)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60
    )
    assert run.returncode == 1
    return run.stderr


def conversation(text: str, *, is_error: bool | None = True, name: str = "run_tests") -> list[Message]:
    call = ToolCall("call_1", name, {"path": "tests"})
    return [
        Message("user", "Make the tests pass."),
        Message("assistant", "", tool_calls=(call,)),
        Message("tool", text, tool_call_id="call_1", name=name, is_error=is_error),
    ]


def tool_texts(messages: list[Message]) -> list[str]:
    return [m.text for m in messages if m.role == "tool"]


# -- the excerpt -----------------------------------------------------------------------


def test_primary_error_of_real_outputs(pytest_output: str, deep_traceback: str, tmp_path: Path) -> None:
    assert primary_error(pytest_output) == "AssertionError: value 0 not in " + str(list(range(25)))
    assert primary_error(deep_traceback) == "ConnectionRefusedError: [Errno 111] Connection refused"
    gcc = shutil.which("gcc")
    if gcc is not None:
        (tmp_path / "broken.c").write_text("int f(void) { return undefined_name + ; }\n")
        run = subprocess.run(
            [gcc, "-c", "broken.c"], capture_output=True, text=True, cwd=tmp_path, check=False
        )
        assert primary_error(run.stderr).startswith("broken.c:1:")
        assert "error:" in primary_error(run.stderr)
    assert primary_error("E       assert 1 == 2\nE        +  where 1 = f()") == "assert 1 == 2"
    assert primary_error("\n\n  first words\nsecond") == "first words"
    assert primary_error("  \n") == ""


def test_the_excerpt_keeps_the_error_the_last_lines_and_the_reference(pytest_output: str) -> None:
    shown = excerpt(pytest_output, "/data/r.txt", lines=15, limit=8000)
    lines = shown.splitlines()
    assert len(shown) <= 8000
    assert lines[0] == primary_error(pytest_output)
    assert lines[1].endswith(" is saved at /data/r.txt]")
    assert f"({len(pytest_output.splitlines()):,} lines, {len(pytest_output):,} characters)" in lines[1]
    assert lines[2:] == pytest_output.splitlines()[-15:]


def test_an_excerpt_of_very_long_lines_holds_to_the_limit() -> None:
    text = "\n".join(f"line {i} " + "x" * 5000 for i in range(40)) + "\nKeyError: 'missing'"
    shown = excerpt(text, "/r.txt", lines=15, limit=1000)
    assert len(shown) == 1000
    assert shown.startswith("[toolerr: ")  # the error is the last line: not said twice
    assert shown.endswith("x\nKeyError: 'missing'") and "/r.txt]" in shown
    other = excerpt(text + "\nexit status 1", "/r.txt", lines=15, limit=1000)
    assert len(other) == 1000 and other.startswith("KeyError: 'missing'\n[toolerr: ")


# -- the model call's rewrite ------------------------------------------------------------


def test_a_long_failure_is_shown_as_its_excerpt_and_saved_whole(pytest_output: str, tmp_path: Path) -> None:
    messages = conversation(pytest_output)
    layer = ToolErrorLayer(result_store=tmp_path)
    result = layer.rewrite(messages)
    assert result.changed
    [shown] = tool_texts(result.messages)
    assert len(shown) <= 8000 < len(pytest_output)
    assert shown.splitlines()[-15:] == pytest_output.splitlines()[-15:]
    assert shown.splitlines()[0].startswith("AssertionError: value 0")
    [saved] = tmp_path.iterdir()
    assert SAVED.search(shown).group(1) == str(saved)  # type: ignore[union-attr]
    assert saved.read_bytes() == pytest_output.encode()
    assert stat.S_IMODE(saved.stat().st_mode) & 0o077 == 0  # mkstemp: the user's alone
    assert messages[2].text == pytest_output  # the input (the framework's state) is untouched
    assert result.messages[:2] == messages[:2] and result.messages[0] is messages[0]


def test_the_same_result_is_one_file_and_other_results_another(
    pytest_output: str, deep_traceback: str, tmp_path: Path
) -> None:
    long_traceback = deep_traceback
    assert len(long_traceback) > 8000
    layer = ToolErrorLayer(result_store=tmp_path)
    first = tool_texts(layer.rewrite(conversation(pytest_output)).messages)
    again = tool_texts(ToolErrorLayer(result_store=tmp_path).rewrite(conversation(pytest_output)).messages)
    assert first == again and len(list(tmp_path.iterdir())) == 1
    layer.rewrite(conversation(long_traceback, name="run_script"))
    assert sorted(p.read_text() for p in tmp_path.iterdir()) == sorted([pytest_output, long_traceback])


def test_the_note_restates_the_excerpt(deep_traceback: str, tmp_path: Path) -> None:
    """C3: the runtime note restates the excerpt the model is shown, not the whole text
    (the adapter gave the exception object: a transient failure, which gets a note)."""
    messages = conversation(deep_traceback, name="run_script")
    messages[2] = Message(
        "tool",
        deep_traceback,
        tool_call_id="call_1",
        name="run_script",
        exception=ConnectionRefusedError(111, "Connection refused"),
    )
    result = ToolErrorLayer(result_store=tmp_path).rewrite(messages)
    [note] = [m.text for m in result.messages if m.role == "user" and "Note from the tool runtime" in m.text]
    [saved] = tmp_path.iterdir()
    assert "ConnectionRefusedError: [Errno 111] Connection refused" in note
    assert f"is saved at {saved}]" in note
    assert "cut by toolerr" not in note and note.count('File "<string>"') <= 15


def test_the_excerpt_applies_at_every_later_model_call(pytest_output: str, tmp_path: Path) -> None:
    """The long failure stays quarantined when a later step succeeded (the wire format's
    fast path rewrites once the layer quarantined a result)."""
    layer = ToolErrorLayer(result_store=tmp_path)
    later = [
        *conversation(pytest_output),
        Message("assistant", "", tool_calls=(ToolCall("call_2", "read_file", {"path": "a.py"}),)),
        Message("tool", "x = 1\n", tool_call_id="call_2", name="read_file"),
    ]
    assert not layer.may_quarantine()
    layer.rewrite(conversation(pytest_output))
    assert layer.may_quarantine()
    shown = tool_texts(layer.rewrite(later).messages)
    assert len(shown[0]) <= 8000 and shown[1] == "x = 1\n"
    wire = [
        {"role": "user", "content": "Make the tests pass."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "run_tests", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": f"Error: {pytest_output}"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c2", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c2", "content": "x = 1\n"},
    ]  # fmt: skip
    fresh = ToolErrorLayer(result_store=tmp_path)
    assert not toolerr.rewrite_wire("openai-chat", wire, layer=fresh).changed  # never saw it fail
    assert toolerr.rewrite_wire("openai-chat", wire[:3], layer=fresh).changed
    out = toolerr.rewrite_wire("openai-chat", wire, layer=fresh)
    assert out.changed and len(out.request[2]["content"]) <= 8000 and out.request[4] is wire[4]
    assert wire[2]["content"] == f"Error: {pytest_output}"


def test_a_short_failure_and_a_long_success_are_not_cut(pytest_output: str, tmp_path: Path) -> None:
    short = conversation("Error: HTTP 429 Too Many Requests\n" + "detail\n" * 900)
    assert len(short[2].text) < 8000
    assert tool_texts(ToolErrorLayer(result_store=tmp_path).rewrite(short).messages) == [short[2].text]
    success = conversation("def f():\n    return 1\n" * 2000, is_error=False, name="read_file")
    result = ToolErrorLayer(result_store=tmp_path).rewrite(success)
    assert not result.changed and result.messages[2] is success[2]
    assert list(tmp_path.iterdir()) == []
    cut = ToolErrorLayer(result_store=tmp_path, quarantine_successes=True).rewrite(success)
    assert cut.changed and len(cut.messages[2].text) <= 8000 and len(list(tmp_path.iterdir())) == 1


def test_quarantine_off_and_other_limits(pytest_output: str, tmp_path: Path) -> None:
    messages = conversation(pytest_output)
    for off in (ToolErrorLayer(Policy(quarantine_chars=None)), ToolErrorLayer(quarantine_chars=0)):
        assert tool_texts(off.rewrite(messages).messages) == [pytest_output]
    layer = ToolErrorLayer(result_store=tmp_path, quarantine_chars=2000, quarantine_lines=5)
    [shown] = tool_texts(layer.rewrite(messages).messages)
    assert len(shown) <= 2000 and shown.splitlines()[-5:] == pytest_output.splitlines()[-5:]
    assert shown.splitlines()[-6] != pytest_output.splitlines()[-6]


def test_content_blocks_keep_their_media(pytest_output: str, tmp_path: Path) -> None:
    image = {"type": "image", "source": {"type": "base64", "data": "AAAA"}}
    messages = conversation("")
    messages[2] = Message(
        "tool", [image, {"type": "text", "text": pytest_output}], tool_call_id="call_1", is_error=True
    )
    [tool] = [m for m in ToolErrorLayer(result_store=tmp_path).rewrite(messages).messages if m.role == "tool"]
    assert tool.content[0] is image and len(tool.content) == 2
    assert len(tool.content[1]["text"]) <= 8000


# -- stores ----------------------------------------------------------------------------------


class MemoryStore:
    def __init__(self) -> None:
        self.saved: dict[str, tuple[str, str | None, str | None]] = {}

    def save(self, text: str, *, tool: str | None, call_id: str | None) -> str:
        key = f"mem://{len(self.saved)}"
        self.saved[key] = (text, tool, call_id)
        return key


def test_an_object_store_gets_the_text_and_names_the_reference(pytest_output: str) -> None:
    store = MemoryStore()
    [shown] = tool_texts(ToolErrorLayer(result_store=store).rewrite(conversation(pytest_output)).messages)
    assert store.saved == {"mem://0": (pytest_output, "run_tests", "call_1")}
    assert " is saved at mem://0]" in shown


class BrokenStore:
    def save(self, text: str, *, tool: str | None, call_id: str | None) -> Any:
        raise OSError("disk full")


@pytest.mark.parametrize("store", ["broken", "returns_none", "path_is_a_file"])
def test_a_store_that_fails_shows_the_result_whole(
    store: str, pytest_output: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    spec: Any = BrokenStore()
    if store == "returns_none":
        spec = type("NoneStore", (), {"save": lambda self, text, **kw: None})()
    elif store == "path_is_a_file":
        spec = tmp_path / "file"
        spec.write_text("")
    result = ToolErrorLayer(result_store=spec).rewrite(conversation(pytest_output))
    assert result.error is None
    assert tool_texts(result.messages) == [pytest_output]
    assert any(r.levelno == logging.WARNING and "shown it whole" in r.getMessage() for r in caplog.records)


def test_the_default_directory_is_private(
    pytest_output: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    directory = default_result_dir()
    assert directory.parent == tmp_path and directory.name.startswith("toolerr-results-")
    [shown] = tool_texts(ToolErrorLayer().rewrite(conversation(pytest_output)).messages)
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert f" is saved at {directory}{os.sep}" in shown
    if sys.platform != "win32":  # a directory others can write to is not used
        directory.chmod(0o777)
        other = conversation(pytest_output + "\nmore")
        assert tool_texts(ToolErrorLayer().rewrite(other).messages) == [other[2].text]
        assert any("not a private directory" in (r.exc_text or "") for r in caplog.records)
    assert repr(DirectoryStore(tmp_path)) == f"DirectoryStore({str(tmp_path)!r})"


# -- policy and the kit ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"quarantine_chars": 100}, ValueError),
        ({"quarantine_chars": True}, ValueError),
        ({"quarantine_chars": "8000"}, ValueError),
        ({"quarantine_lines": 0}, ValueError),
        ({"quarantine_successes": "yes"}, ValueError),
        ({"result_store": 5}, TypeError),
    ],
)
def test_bad_options_are_refused_at_construction(options: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        ToolErrorLayer(**options)


def test_the_defaults() -> None:
    policy = Policy()
    assert (
        policy.quarantine_chars,
        policy.quarantine_lines,
        policy.result_store,
        policy.quarantine_successes,
    ) == (
        8000,
        15,
        None,
        False,
    )


def test_a_raised_exception_over_the_limit_is_kept_whole_by_the_kit(pytest_output: str) -> None:
    """An adapter shows a raised exception's text capped at ``max_error_chars``; over
    ``quarantine_chars`` it keeps it whole, for the rewrite to show its excerpt."""
    layer = ToolErrorLayer()
    assert failure_of(layer, RuntimeError(pytest_output)).text == f"RuntimeError: {pytest_output}".strip()
    capped = failure_of(layer, RuntimeError("y" * 3000)).text
    assert capped.endswith("more characters cut by toolerr]") and len(capped) < 2100
    off = ToolErrorLayer(quarantine_chars=0)
    assert failure_of(off, RuntimeError(pytest_output)).text.endswith("more characters cut by toolerr]")
