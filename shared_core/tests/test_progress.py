"""Progress: the environment's fingerprint after each tool step (real git, real test
runs in subprocesses), stalls, fingerprint epochs, same-result repeats, ``on_loop``."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolerr import Message, Policy, ToolCall, ToolErrorLayer, ToolLoopError, rewrite_wire
from toolerr._failopen import forget_causes
from toolerr._progress import SAME_RESULT_NOTE, STALL_NOTE, git_fingerprint

BUGGY = "def add(a, b):\n    return a - b\n"
TEST = (
    "import unittest\nfrom calc import add\n\n\n"
    "class T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 2), 4)\n"
)
STALL = STALL_NOTE.format(steps=3)
STALL_START = STALL


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A real git repository whose one test fails."""
    _git(tmp_path, "init", "-q")
    (tmp_path / "calc.py").write_text(BUGGY)
    (tmp_path / "test_calc.py").write_text(TEST)
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "calc")
    return tmp_path


def write_file(repo: Path, path: str, content: str) -> tuple[str, bool]:
    (repo / path).write_text(content)
    return f"wrote {len(content)} bytes to {path}", False


def run_tests(repo: Path, **args: Any) -> tuple[str, bool]:
    """A real test run (the unittest module in a subprocess); no byte code written."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-B", "-m", "unittest", "-q", "test_calc"],
        cwd=repo,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    return done.stdout + done.stderr, done.returncode != 0


TOOLS = {"write_file": write_file, "run_tests": run_tests}


class Agent:
    """A scripted agent: each step the adapter's guard, the tool, then the next model call."""

    def __init__(self, layer: ToolErrorLayer, repo: Path, prompt: str = "Fix the failing test.") -> None:
        self.layer, self.repo = layer, repo
        self.messages: list[Message] = [Message("user", prompt)]
        self.ran: list[str] = []
        self.shown: list[Message] = []

    def steps(self, *steps: tuple[str, dict[str, Any]]) -> None:
        for name, args in steps:
            self.step(name, **args)

    def step(self, name: str, **args: Any) -> list[Message]:
        call = ToolCall(f"call_{len(self.messages)}", name, args)
        decision = self.layer.check_call(name, args, messages=self.messages)
        self.messages.append(Message("assistant", "", tool_calls=(call,)))
        if decision.action == "block":
            content, failed = self.layer.blocked_result(call.id, decision), True
        else:
            self.ran.append(name)
            content, failed = TOOLS[name](self.repo, **args)
        self.messages.append(Message("tool", content, tool_call_id=call.id, name=name, is_error=failed))
        self.shown = self.layer.rewrite(self.messages).messages
        return self.shown


def _notes(messages: list[Message]) -> str:
    return "\n".join(str(m.content) for m in messages if m.role == "user")


# -- the git probe --------------------------------------------------------------------


def test_git_fingerprint_sees_head_index_worktree_and_untracked_bytes(repo: Path) -> None:
    first = git_fingerprint(repo)
    assert git_fingerprint(repo) == first
    (repo / "calc.py").write_text(BUGGY)  # the same bytes: no change
    assert git_fingerprint(repo) == first
    (repo / "calc.py").write_text(BUGGY.replace("-", "+"))
    edited = git_fingerprint(repo)
    assert edited != first
    _git(repo, "add", "calc.py")
    staged = git_fingerprint(repo)
    assert staged not in (first, edited)
    _git(repo, "commit", "-q", "-m", "fix")
    committed = git_fingerprint(repo)
    assert committed not in (first, edited, staged)
    (repo / "notes.txt").write_text("one")
    untracked = git_fingerprint(repo)
    (repo / "notes.txt").write_text("two")  # the same name in `git status`, other bytes
    assert len({committed, untracked, git_fingerprint(repo)}) == 3


def test_git_fingerprint_outside_a_repository_raises(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError):
        git_fingerprint(tmp_path)


# -- stalls in a real repository ------------------------------------------------------


@pytest.mark.parametrize(
    "runs",
    [
        [{}, {}, {}],  # verbatim
        [{"path": "."}, {"path": "./"}, {"verbose": False, "path": "."}],  # reworded
    ],
    ids=["verbatim", "reworded"],
)
def test_same_bytes_and_a_failing_test_are_stopped_within_three_steps(repo: Path, runs: list[Any]) -> None:
    seen: list[ToolLoopError] = []
    layer = ToolErrorLayer(progress="git", progress_cwd=repo, loop_action="stop", on_loop=seen.append)
    agent = Agent(layer, repo)
    write = ("write_file", {"path": "calc.py", "content": BUGGY})
    with pytest.raises(ToolLoopError) as caught:
        agent.steps(write, ("run_tests", runs[0]), write, ("run_tests", runs[1]))
    error = caught.value
    assert seen == [error]  # on_loop got the very error, before it was raised
    assert len(agent.messages) - 1 <= 2 * 3  # stopped within three unchanged steps
    assert error.decision.reason == STALL_START
    assert [call.name for call in error.calls] == ["write_file", "run_tests", "write_file"]
    assert len(error.fingerprints) == 3 and len(set(error.fingerprints)) == 1
    assert error.fingerprints[0] == git_fingerprint(repo)
    assert (repo / "calc.py").read_text() == BUGGY  # nothing was rolled back


def test_edits_that_change_the_file_are_not_stopped(repo: Path) -> None:
    """A test rerun verbatim after each edit is no repeat: the fingerprint changed."""
    layer = ToolErrorLayer(progress="git", progress_cwd=repo, loop_action="stop")
    agent = Agent(layer, repo)
    for attempt in range(4):
        agent.step("write_file", path="calc.py", content=BUGGY.replace("-", "-" * (attempt + 2)))
        agent.step("run_tests")
    assert agent.ran == ["write_file", "run_tests"] * 4
    assert STALL not in _notes(agent.shown)


def test_without_progress_the_verbatim_rerun_after_an_edit_still_stops(repo: Path) -> None:
    """The contrast: without probes the repeated failing run is a verbatim repeat."""
    agent = Agent(ToolErrorLayer(loop_action="stop"), repo)
    edits = [("write_file", {"path": "calc.py", "content": BUGGY.replace("-", "-" * n)}) for n in (2, 3, 4)]
    with pytest.raises(ToolLoopError):
        agent.steps(edits[0], ("run_tests", {}), edits[1], ("run_tests", {}), edits[2], ("run_tests", {}))


def test_note_names_the_stall_without_the_calls(repo: Path) -> None:
    layer = ToolErrorLayer(progress="git", progress_cwd=repo)
    agent = Agent(layer, repo)
    agent.step("write_file", path="calc.py", content=BUGGY)
    agent.step("run_tests", path="tests/unit")
    assert STALL not in _notes(agent.shown)
    shown = agent.step("write_file", path="calc.py", content=BUGGY)  # a success step: its own note
    notes = _notes(shown)
    assert f"Note from the tool runtime: {STALL_START}" in notes
    assert "tests/unit" not in notes and "return a - b" not in notes
    assert agent.messages[-1].content.startswith("wrote")  # the history is not changed
    shown = agent.step("run_tests", path="tests/unit")  # a failure step: in the C3 note's turn
    user = [m for m in shown if m.role == "user"][-1]
    assert "run_tests was already called" in user.content and STALL_START in user.content


def test_block_keeps_the_next_call_from_running(repo: Path) -> None:
    layer = ToolErrorLayer(progress="git", progress_cwd=repo, loop_action="block")
    agent = Agent(layer, repo)
    agent.step("run_tests")
    agent.step("write_file", path="calc.py", content=BUGGY)
    agent.step("run_tests", path=".")
    assert STALL_START in _notes(agent.shown)
    agent.step("write_file", path="calc.py", content=BUGGY.replace("-", "+"))
    assert agent.ran == ["run_tests", "write_file", "run_tests"]  # not executed
    assert agent.messages[-1].content.startswith("Error: this call was not executed. " + STALL_START)


def test_a_failing_probe_counts_as_unknown_never_as_unchanged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    forget_causes()
    layer = ToolErrorLayer(progress="git", progress_cwd=tmp_path, loop_action="stop", same_result_repeats=0)
    agent = Agent(layer, tmp_path)
    (tmp_path / "test_calc.py").write_text(TEST)
    with caplog.at_level(logging.WARNING, logger="toolerr"):
        for _ in range(3):
            agent.step("write_file", path="calc.py", content=BUGGY)
            agent.step("run_tests", path=str(_))
    assert any("probing the environment for progress" in r.getMessage() for r in caplog.records)
    assert agent.ran == ["write_file", "run_tests"] * 3


def test_a_probe_is_taken_once_per_step() -> None:
    calls: list[int] = []

    def probe() -> str:
        calls.append(1)
        return "same"

    layer = ToolErrorLayer(progress=probe, loop_action="note")
    messages = [Message("user", "go")]
    for number in range(2):
        call = ToolCall(f"c{number}", "fetch", {"n": number})
        messages += [
            Message("assistant", "", tool_calls=(call,)),
            Message("tool", "Error: HTTP 404", tool_call_id=call.id, name="fetch"),
        ]
        layer.rewrite(messages)
        layer.rewrite(list(messages))  # the same step again (a retry of the model call)
    assert len(calls) == 2


def test_a_probe_that_raises_or_returns_none_is_unknown(caplog: pytest.LogCaptureFixture) -> None:
    forget_causes()
    values: list[Any] = [ValueError("down"), None, "x", "x"]

    def probe() -> Any:
        value = values.pop(0)
        if isinstance(value, Exception):
            raise value
        return value

    layer = ToolErrorLayer(progress=probe)
    messages = [Message("user", "go")]
    with caplog.at_level(logging.WARNING, logger="toolerr"):
        for number in range(4):
            call = ToolCall(f"c{number}", "fetch", {"n": number})
            messages += [
                Message("assistant", "", tool_calls=(call,)),
                Message("tool", "Error: HTTP 404", tool_call_id=call.id, name="fetch"),
            ]
            shown = layer.rewrite(messages).messages  # two unknown steps, two equal: no stall
            assert STALL not in _notes(shown)
    assert sum("probing the environment" in r.getMessage() for r in caplog.records) == 2
    values[:] = ["x"]
    call = ToolCall("c9", "fetch", {"n": 9})
    messages += [
        Message("assistant", "", tool_calls=(call,)),
        Message("tool", "Error: HTTP 404", tool_call_id=call.id, name="fetch"),
    ]
    assert STALL in _notes(layer.rewrite(messages).messages)  # three equal now


def test_a_slow_callable_probe_is_unknown(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A callable past the probes' time limit cannot be stopped: its answer is not used
    (logged, WARNING) and its step counts as unknown, never as unchanged."""
    import time

    from toolerr import _progress

    forget_causes()
    monkeypatch.setattr(_progress, "GIT_PROBE_TIMEOUT", 0.05)
    slow = [True, False, False, False]

    def probe() -> str:
        if slow.pop(0):
            time.sleep(0.2)
        return "the same tree"

    layer = ToolErrorLayer(progress=probe)
    messages = [Message("user", "go")]
    with caplog.at_level(logging.WARNING, logger="toolerr"):
        for number in range(4):
            call = ToolCall(f"c{number}", "fetch", {"n": number})
            messages += [
                Message("assistant", "", tool_calls=(call,)),
                Message("tool", "Error: HTTP 404", tool_call_id=call.id, name="fetch"),
            ]
            shown = _notes(layer.rewrite(messages).messages)
            assert (STALL in shown) == (number == 3)  # the slow first step is unknown
    slow_records = [r for r in caplog.records if "the progress probe took" in r.getMessage()]
    assert len(slow_records) == 1 and slow_records[0].levelno == logging.WARNING


def test_on_loop_that_raises_does_not_change_the_stop(caplog: pytest.LogCaptureFixture) -> None:
    forget_causes()

    def on_loop(error: ToolLoopError) -> None:
        raise RuntimeError("rollback failed")

    layer = ToolErrorLayer(progress=lambda: b"same", loop_action="stop", on_loop=on_loop)
    messages = [Message("user", "go")]
    for number in range(2):
        layer.rewrite(_fetched(messages, number, "Error: HTTP 404"))
    with caplog.at_level(logging.WARNING, logger="toolerr"), pytest.raises(ToolLoopError) as caught:
        layer.rewrite(_fetched(messages, 2, "Error: HTTP 404"))
    assert caught.value.decision.reason == STALL
    assert caught.value.fingerprints[0] == caught.value.fingerprints[-1]
    assert any("on_loop callback" in r.getMessage() for r in caplog.records)


def _fetched(messages: list[Message], number: int, text: str, call_id: str | None = None) -> list[Message]:
    call = ToolCall(call_id or f"c{number}", "fetch", {"n": number})
    messages += [
        Message("assistant", "", tool_calls=(call,)),
        Message("tool", text, tool_call_id=call.id, name="fetch"),
    ]
    return messages


def test_runs_sharing_a_layer_keep_their_own_history() -> None:
    """Two runs interleaved on one layer, the same call ids: each run's history is its own
    (run a's third unchanged step stops it; run b, two steps in, goes on)."""
    layer = ToolErrorLayer(progress=lambda: "same", loop_action="stop")
    runs = {name: [Message("user", f"task {name}")] for name in "ab"}
    for number in range(2):
        for name, messages in runs.items():
            layer.rewrite(_fetched(messages, number, f"Error: HTTP 404 ({name})", "c0"))
    with pytest.raises(ToolLoopError):
        layer.rewrite(_fetched(runs["a"], 9, "Error: HTTP 404 (a)", "c0"))
    assert layer.rewrite(runs["b"]).messages  # b's own two steps: no stall


@pytest.mark.parametrize("scoped", [False, True])
def test_runs_with_the_same_prompt_and_ids_keep_their_own_fingerprints(scoped: bool) -> None:
    """Two runs on one layer with the same system prompt, call ids and error texts at the
    same positions, different tasks: run a's environment never changes (it stalls), run
    b's changes at every step (it must never get a's stall), in the shared scope (a
    gateway) and in run scopes of their own."""
    environment = {"a": 0, "b": 0}
    current = ["a"]
    layer = ToolErrorLayer(progress=lambda: f"{current[0]}:{environment[current[0]]}", loop_action="note")
    runs = {name: object() for name in "ab"}
    conversations = {
        name: [Message("system", "You are an agent."), Message("user", f"task {name}")] for name in "ab"
    }
    shown: dict[str, list[Message]] = {}
    for number in range(4):
        for name in "ba":
            current[0] = name
            environment["b"] += name == "b"
            call = ToolCall(f"call_{number}", "fetch", {"n": number})
            conversations[name] += [
                Message("assistant", "", tool_calls=(call,)),
                Message("tool", "Error: HTTP 404", tool_call_id=call.id, name="fetch"),
            ]
            shown[name] = layer.rewrite(conversations[name], run=runs[name] if scoped else None).messages
    assert STALL in _notes(shown["a"])
    assert STALL not in _notes(shown["b"])


# -- same results ---------------------------------------------------------------------


def _searches(results: list[str], **options: Any) -> list[list[Message]]:
    layer = ToolErrorLayer(**options)
    messages = [Message("user", "Find the page.")]
    shown = []
    for number, text in enumerate(results):
        call = ToolCall(
            f"s{number}", "search", {"q": "toolerr", "page": 1} if number % 2 else {"page": 1, "q": "toolerr"}
        )
        messages += [
            Message("assistant", "", tool_calls=(call,)),
            Message("tool", text, tool_call_id=call.id, name="search"),
        ]
        shown.append(layer.rewrite(messages).messages)
    return shown


SAME = "Note from the tool runtime: " + SAME_RESULT_NOTE.format(name="search", count=3)


def test_three_identical_successful_results_get_a_note() -> None:
    shown = _searches(["No results.", "No results.", "No results."])
    assert "returned the same result" not in _notes(shown[1])
    notes = _notes(shown[2])
    assert SAME in notes
    assert "toolerr" not in notes  # the arguments are not quoted


def test_three_different_results_get_no_note() -> None:
    shown = _searches(["No results.", "1 result: a", "2 results: a, b"])
    assert all("returned the same result" not in _notes(s) for s in shown)


def test_same_result_repeats_zero_turns_it_off() -> None:
    shown = _searches(["No results."] * 4, same_result_repeats=0)
    assert all("returned the same result" not in _notes(s) for s in shown)


def test_same_results_with_stop_raise() -> None:
    with pytest.raises(ToolLoopError) as caught:
        _searches(["No results."] * 3, loop_action="stop")
    assert len(caught.value.calls) == 3


def test_a_changed_fingerprint_starts_a_new_count() -> None:
    prints = iter(["a", "b", "c", "d"])
    shown = _searches(["No results."] * 3, progress=lambda: next(prints))
    assert "returned the same result" not in _notes(shown[2])


# -- options --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"progress": "svn"},
        {"progress_window": 1},
        {"same_result_repeats": 1},
        {"same_result_repeats": -1},
        {"on_loop": "print"},
        {"progress": "git", "progress_cwd": "/nonexistent/dir"},
    ],
)
def test_bad_options_are_refused_at_construction(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        Policy(**options)


def test_progress_cwd_defaults_to_the_working_directory() -> None:
    assert Policy(progress="git").progress_cwd == os.getcwd()
    assert Policy().progress is None and Policy().same_result_repeats == 3


def test_form_c0_adds_no_progress_note() -> None:
    shown = _searches(["No results."] * 3, form="c0")
    assert all("returned the same result" not in _notes(s) for s in shown)


def test_a_changed_environment_does_not_lift_the_idempotency_guard() -> None:
    """A write that timed out and changed the environment (it took effect) starts a new
    epoch; the identical resend is still not executed: the change is the very sign that
    the first call may have worked."""
    state = ["before"]
    layer = ToolErrorLayer(progress=lambda: state[0], loop_action="note")
    read = ToolCall("c0", "get_balance", {})
    messages = [
        Message("user", "pay the invoice"),
        Message("assistant", "", tool_calls=(read,)),
        Message("tool", "balance: 100", tool_call_id="c0", name="get_balance"),
    ]
    layer.rewrite(messages)  # the probe after the first step: "before"
    pay = ToolCall("c1", "transfer_money", {"to": "acme", "amount": 10})
    timeout = "ReadTimeout: the read operation timed out"
    messages += [
        Message("assistant", "", tool_calls=(pay,)),
        Message("tool", timeout, tool_call_id="c1", name="transfer_money", is_error=True),
    ]
    state[0] = "after"  # the payment went through before the read timed out
    layer.rewrite(messages)
    decision = layer.check_call("transfer_money", {"to": "acme", "amount": 10}, messages=messages)
    assert decision.action == "block"
    assert "check whether it did" in decision.reason
    other = layer.check_call("transfer_money", {"to": "acme", "amount": 11}, messages=messages)
    assert other.action == "allow"


@pytest.mark.parametrize("wire", ["anthropic", "openai-chat"])
def test_the_wire_rewrite_watches_progress_on_a_step_without_failure(wire: str) -> None:
    """A relay's wire rewrite reaches the progress checks at a model call whose decision
    step did not fail (its fast path used to return the request unchanged): the third
    identical result gets the same-result note."""
    layer = ToolErrorLayer()
    request: list[dict[str, Any]] = [{"role": "user", "content": "Find the page."}]
    rewritten = []
    for number in range(3):
        call = f"s{number}"
        if wire == "anthropic":
            use = {"type": "tool_use", "id": call, "name": "search", "input": {"q": "toolerr"}}
            result = {"type": "tool_result", "tool_use_id": call, "content": "No results."}
            request += [{"role": "assistant", "content": [use]}, {"role": "user", "content": [result]}]
        else:
            function = {"name": "search", "arguments": '{"q": "toolerr"}'}
            request += [
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"id": call, "type": "function", "function": function}],
                },
                {"role": "tool", "tool_call_id": call, "content": "No results."},
            ]
        rewritten.append(rewrite_wire(wire, list(request), layer=layer))
    assert [r.changed for r in rewritten] == [False, False, True]
    assert SAME in json.dumps(rewritten[2].request[-1])


# --- the same-result check without probes pairs only the steps that can count ------------

_IDS = st.sampled_from(["c1", "c2", "c3", None])
_TEXTS = st.sampled_from(["same", "other", "Error: 503 Service Unavailable"])


@st.composite
def _conversations(draw: st.DrawFn) -> list[Message]:
    """Steps with colliding, missing and orphan call ids, duplicate results, user turns."""
    messages = [Message("user", "go")]
    for _ in range(draw(st.integers(1, 9))):
        calls = tuple(
            ToolCall(draw(_IDS) or "c0", draw(st.sampled_from(["read", "search"])), {"q": draw(_TEXTS)})
            for _ in range(draw(st.integers(0, 3)))
        )
        messages.append(Message("assistant", "", tool_calls=calls))
        for _ in range(draw(st.integers(0, 4))):
            if draw(st.booleans()) and draw(st.booleans()):
                messages.append(Message("user", draw(_TEXTS)))
            else:
                messages.append(Message("tool", draw(_TEXTS), tool_call_id=draw(_IDS)))
    return messages


@settings(max_examples=400, deadline=None)
@given(_conversations(), st.integers(2, 4))
def test_the_lean_same_result_check_equals_the_full_pairing(messages: list[Message], repeats: int) -> None:
    """Without probes, ``assess`` pairs only the steps whose results share a text with the
    decision step's: its answer (decision, calls, number of steps) is the full pairing's."""
    layer = ToolErrorLayer(same_result_repeats=repeats)
    progress = layer._progress
    assert progress is not None and not progress.probing
    lean = layer._assess(messages, None, probe=False)
    inspect = layer.inspect
    if progress._repeated_texts(messages) is None:
        assert lean is None
        return
    steps = progress._steps(messages)
    if not steps:
        assert lean is None
        return
    decision, calls = progress._same_result(steps, inspect)
    assert lean is not None
    assert lean.history == (None,) * len(steps)
    assert (lean.decision, lean.calls) == (decision, calls)


# -- audit of issue 26: rewordings, cycles, slow probes, the tool path, the README recipe --


def test_a_reworded_rerun_is_stopped_by_the_stall_within_three_steps(repo: Path) -> None:
    """The rerun of the failing test is reworded (no verbatim or canonical repeat) and
    runs: the stall stops the run after it, the third unchanged step."""
    layer = ToolErrorLayer(progress="git", progress_cwd=repo, loop_action="stop")
    agent = Agent(layer, repo)
    with pytest.raises(ToolLoopError) as caught:
        agent.steps(
            ("run_tests", {"path": "."}),
            ("write_file", {"path": "calc.py", "content": BUGGY}),
            ("run_tests", {"path": "./", "verbose": False}),
        )
    assert agent.ran == ["run_tests", "write_file", "run_tests"]  # the reworded rerun ran
    assert caught.value.decision.reason == STALL
    assert [call.arguments for call in caught.value.calls if call.name == "run_tests"] == [
        {"path": "."},
        {"path": "./", "verbose": False},
    ]


@pytest.mark.parametrize(
    "prints",
    [["x", "x", "x"], ["a", "b", "b"], ["a", "b", "c"]],
    ids=["unchanged", "changed-after-the-first-call", "changed-after-each-call"],
)
def test_a_changed_fingerprint_between_the_calls_of_a_cycle_is_no_cycle(prints: list[str]) -> None:
    """``search`` fails, ``book`` succeeds, ``search`` fails again: ``book`` next closes
    the cycle ``search, book``, unless the environment changed between the calls (the
    fingerprint after each step is ``prints``)."""
    values = iter(prints)
    layer = ToolErrorLayer(progress=lambda: next(values))
    messages = [Message("user", "Book a flight.")]
    for number, (name, text) in enumerate(
        [("search", "Error: HTTP 404 Not Found"), ("book", "booked"), ("search", "Error: HTTP 404 Not Found")]
    ):
        call = ToolCall(f"c{number}", name, {"to": "PAR"})
        messages += [
            Message("assistant", "", tool_calls=(call,)),
            Message("tool", text, tool_call_id=call.id, name=name),
        ]
        layer.rewrite(messages)
    decision = layer.check_call("book", {"to": "PAR"}, messages=messages)
    if len(set(prints)) > 1:
        assert decision.action == "allow"
    else:
        assert decision.action == "note"
        assert decision.reason == "The last calls repeat a cycle (search, book) that keeps failing."


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script stands in for git")
def test_a_slow_git_probe_fails_open_with_a_warning(
    repo: Path,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A ``git`` that answers after its time is up: each probe ends at its timeout, is
    logged (WARNING) and counts as unknown, so three unchanged steps are no stall."""
    import shutil
    import time

    from toolerr import _progress

    real = shutil.which("git")
    assert real is not None
    bin_dir = tmp_path_factory.mktemp("slow-git")
    (bin_dir / "git").write_text(f'#!/bin/sh\nsleep 2\nexec "{real}" "$@"\n')
    (bin_dir / "git").chmod(0o755)
    forget_causes()
    layer = ToolErrorLayer(progress="git", progress_cwd=repo, loop_action="stop")
    agent = Agent(layer, repo)
    agent.step("run_tests")  # the repository's fixture needed the real git: the slow one now
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    real_fingerprint = _progress.git_fingerprint
    monkeypatch.setattr(_progress, "git_fingerprint", lambda cwd: real_fingerprint(cwd, timeout=0.3))
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="toolerr"):
        agent.step("write_file", path="calc.py", content=BUGGY)
        agent.step("run_tests", path=".")
    assert time.monotonic() - started < 4  # two probes cut at 0.3 s (without: 5 commands x 2 s each)
    assert agent.ran == ["run_tests", "write_file", "run_tests"]  # no stall: the steps are unknown
    warnings = [r for r in caplog.records if "probing the environment for progress" in r.getMessage()]
    assert warnings and all(r.levelno == logging.WARNING for r in warnings)
    assert any("TimeoutExpired" in (r.exc_text or r.getMessage()) for r in warnings)


def test_the_probe_never_runs_on_a_tool_calls_path() -> None:
    """What an adapter calls around a tool's own call (the guard, the single-result
    delivery, the failure of a raised exception, the blocked result) never probes; the
    model call's rewrite does, once per step."""
    from toolerr.adapters import failure_of, guard_call

    probes: list[int] = []
    layer = ToolErrorLayer(progress=lambda: probes.append(1) or "same", loop_action="block")
    messages = _fetched([Message("user", "go")], 0, "Error: HTTP 404 Not Found")
    guard_call(layer, "fetch", {"n": 0}, "c1", messages=messages)
    decision = layer.check_call("fetch", {"n": 0}, messages=messages)
    layer.blocked_result("c1", decision)
    layer.deliver_result("fetch", {"n": 1}, "Error: HTTP 404 Not Found", call_id="c2", run="r")
    failure_of(layer, RuntimeError("boom"), tool="fetch")
    assert probes == []
    layer.rewrite(messages)
    layer.rewrite(messages)
    assert probes == [1]


def test_the_readme_recipe_stashes_the_work_and_keeps_it(repo: Path) -> None:
    """The README's ``on_loop`` recipe (``git stash push --include-untracked``) on a real
    stall: the working tree goes back to HEAD, and ``git stash apply`` brings the agent's
    edit and its new file back."""
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    command = ["git", "stash", "push", "--include-untracked", "-m", "toolerr-loop"]
    assert f"{json.dumps(command)}, cwd=repo, check=False" in readme

    def keep_the_work(error: ToolLoopError) -> None:
        subprocess.run(command, cwd=repo, check=False, capture_output=True)

    edited = BUGGY.replace("a - b", "a - b  # tried")
    layer = ToolErrorLayer(progress="git", progress_cwd=repo, loop_action="stop", on_loop=keep_the_work)
    agent = Agent(layer, repo)
    agent.step("write_file", path="helper.py", content="HELP = 1\n")  # new, untracked
    agent.step("write_file", path="calc.py", content=edited)
    with pytest.raises(ToolLoopError):
        agent.steps(
            ("run_tests", {}), ("write_file", {"path": "calc.py", "content": edited}), ("run_tests", {})
        )
    assert (repo / "calc.py").read_text() == BUGGY and not (repo / "helper.py").exists()
    assert "toolerr-loop" in _git(repo, "stash", "list")
    _git(repo, "stash", "apply")
    assert (repo / "calc.py").read_text() == edited
    assert (repo / "helper.py").read_text() == "HELP = 1\n"


def test_unchanged_steps_without_a_failure_are_no_stall() -> None:
    """Three (and more) unchanged steps that all succeeded: no stall (reading is progress
    the environment does not show); a failure among the last three makes one."""
    layer = ToolErrorLayer(progress=lambda: "same", loop_action="stop", same_result_repeats=0)
    messages = [Message("user", "Read the docs.")]
    for number in range(4):
        layer.rewrite(_fetched(messages, number, f"page {number}"))
    with pytest.raises(ToolLoopError):
        layer.rewrite(_fetched(messages, 4, "Error: HTTP 404 Not Found"))


def test_same_results_with_block_keep_the_next_call_from_running() -> None:
    """Loop action ``block``: after the third identical result the next call is answered
    with the same-result reason instead of running; after three different ones it runs."""
    for results, blocked in ((["No results."] * 3, True), (["a", "b", "c"], False)):
        layer = ToolErrorLayer(loop_action="block")
        messages = [Message("user", "Find the page.")]
        for number, text in enumerate(results):
            call = ToolCall(f"s{number}", "search", {"q": "toolerr"})
            messages += [
                Message("assistant", "", tool_calls=(call,)),
                Message("tool", text, tool_call_id=call.id, name="search"),
            ]
            layer.rewrite(messages)
        decision = layer.check_call("search", {"q": "toolerr"}, messages=messages)
        assert (decision.action == "block") is blocked
        if blocked:
            assert decision.reason == SAME_RESULT_NOTE.format(name="search", count=3)
            assert layer.blocked_result("s9", decision).startswith("Error: this call was not executed. ")


@pytest.mark.parametrize("form", ["c2", "c4", "abstract"])
def test_a_same_result_note_beside_a_removing_forms_note_is_written_once(form: str) -> None:
    """Found by the fuzz test: a removing form's note went into the last user turn (a list
    of blocks) and the same-result note became a user message of its own after it; a
    second rewrite of that output put the note in the first turn too (two notes). The note
    goes into a user turn as a block, once (C4 and abstract keep their own note turn), and
    a second rewrite changes nothing."""
    messages = [Message("system", "sys"), Message("user", "task")]
    for step in range(3):
        calls = (ToolCall(f"c{step}_0", "get_weather", {}), ToolCall(f"c{step}_1", "get_weather", {}))
        messages += [
            Message("assistant", "", tool_calls=calls),
            Message("tool", "Error: 503 Service Unavailable", tool_call_id=f"c{step}_0"),
            Message("tool", "", tool_call_id=f"c{step}_1"),
        ]
    messages.append(Message("user", [{"type": "text", "text": "ok"}]))
    layer = ToolErrorLayer(form=form)
    once = layer.rewrite(messages).messages
    note = "Note from the tool runtime: " + SAME_RESULT_NOTE.format(name="get_weather", count=3)
    assert sum(_notes([m]).count(note) for m in once) == 1
    assert [m.role for m in once].count("user") == [m.role for m in messages].count("user") + (form != "c2")
    assert layer.rewrite(once).messages == once
    assert ToolErrorLayer(form=form).rewrite(once).messages == once
