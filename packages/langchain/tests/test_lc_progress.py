"""Progress probes on the real create_agent loop, in a real git repository: an agent that
rewrites a file with the same bytes and reruns a failing test (a real test run in a
subprocess) is stopped within three unchanged steps; one whose edits change the file is
not (its verbatim reruns are no repeat: the fingerprint changed)."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from toolerr import ToolLoopError
from toolerr_langchain import ToolErrorMiddleware
from toolerr_langchain.testing import ScriptedChatModel, tool_call

BUGGY = "def add(a, b):\n    return a - b\n"
TEST = (
    "import unittest\nfrom calc import add\n\n\n"
    "class T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 2), 4)\n"
)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=repo, check=True
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    _git(tmp_path, "init", "-q")
    (tmp_path / "calc.py").write_text(BUGGY)
    (tmp_path / "test_calc.py").write_text(TEST)
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "calc")
    return tmp_path


def _run(
    repo: Path, contents: list[str], *, steps: list[Any] | None = None, **policy: Any
) -> tuple[list[str], BaseException | None]:
    """A run of the real loop: per attempt, write ``contents[i]`` to calc.py, then run the
    test (the same arguments every time), or the model's tool calls ``steps``; what ran,
    and what the run raised."""
    ran: list[str] = []

    @tool
    def write_file(path: str, content: str) -> str:
        """Write a file."""
        ran.append("write_file")
        (repo / path).write_text(content)
        return f"wrote {len(content)} bytes"

    @tool
    def run_tests(target: str) -> str:
        """Run the tests; raises when they fail."""
        ran.append("run_tests")
        done = subprocess.run(
            [sys.executable, "-B", "-m", "unittest", "-q", target],
            cwd=repo,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
            timeout=60,
            check=False,
        )
        if done.returncode:
            raise RuntimeError(f"tests failed:\n{done.stderr[-2000:]}")
        return "all tests passed"

    script: list[Any] = [AIMessage("", tool_calls=[tool_call(name, **args)]) for name, args in steps or ()]
    for content in contents:
        script.append(AIMessage("", tool_calls=[tool_call("write_file", path="calc.py", content=content)]))
        script.append(AIMessage("", tool_calls=[tool_call("run_tests", target="test_calc")]))
    script.append("done")
    middleware = ToolErrorMiddleware(**{"progress": "git", "progress_cwd": repo, **policy})
    agent = create_agent(ScriptedChatModel(script=script), [write_file, run_tests], middleware=[middleware])
    try:
        agent.invoke({"messages": [HumanMessage("Make the test pass.")]})
    except Exception as error:  # the test reads what the run raised
        return ran, error
    return ran, None


def test_the_same_bytes_and_a_failing_test_stop_within_three_steps(repo: Path) -> None:
    stopped: list[ToolLoopError] = []
    ran, error = _run(repo, [BUGGY] * 3, loop_action="stop", on_loop=stopped.append)
    assert isinstance(error, ToolLoopError), error
    assert ran == ["write_file", "run_tests", "write_file"]  # three unchanged steps
    assert stopped == [error]
    assert [call.name for call in error.calls] == ran
    assert len(error.fingerprints) == 3 and len(set(error.fingerprints)) == 1


def test_edits_that_change_the_file_are_not_stopped(repo: Path) -> None:
    edits = [BUGGY.replace("-", "-" * n) for n in (2, 3, 4)]
    ran, error = _run(repo, edits, loop_action="stop")
    assert error is None, error
    assert ran == ["write_file", "run_tests"] * 3


def test_without_progress_the_verbatim_rerun_stops_even_after_an_edit(repo: Path) -> None:
    """The contrast: the reruns are verbatim repeats of a failed call when nothing probes."""
    edits = [BUGGY.replace("-", "-" * n) for n in (2, 3, 4)]
    ran, error = _run(repo, edits, loop_action="stop", progress=None)
    assert isinstance(error, ToolLoopError), error
    assert ran.count("run_tests") < 3


def test_a_reworded_rerun_is_stopped_by_the_stall(repo: Path) -> None:
    """The failing test is rerun with other arguments (no repeat of the failed call) after
    a rewrite of the same bytes: it runs, and the stall stops the run after it."""
    steps = [
        ("run_tests", {"target": "test_calc"}),
        ("write_file", {"path": "calc.py", "content": BUGGY}),
        ("run_tests", {"target": "test_calc.T"}),
    ]
    ran, error = _run(repo, [], steps=steps, loop_action="stop")
    assert isinstance(error, ToolLoopError), error
    assert ran == ["run_tests", "write_file", "run_tests"]
    assert error.decision.reason.startswith("The environment has not changed over the last 3 tool steps")
    assert [call.arguments for call in error.calls if call.name == "run_tests"] == [
        {"target": "test_calc"},
        {"target": "test_calc.T"},
    ]


def test_the_probe_runs_for_the_model_call_never_inside_a_tool_call(repo: Path) -> None:
    """A callable probe reads its callers: each probe is on the model-call hook's path, none
    on the tool-call hook's, once per tool step."""
    callers: list[set[str]] = []

    def probe() -> str:
        callers.append({frame.function for frame in inspect.stack()})
        return "same"

    ran, error = _run(repo, [BUGGY.replace("-", "+")], progress=probe)
    assert error is None, error
    assert ran == ["write_file", "run_tests"] and len(callers) == 2
    assert all("wrap_model_call" in names or "awrap_model_call" in names for names in callers)
    assert not any({"wrap_tool_call", "awrap_tool_call"} & names for names in callers)
