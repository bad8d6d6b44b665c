"""The cost of a progress probe per tool step, beside a model-call rewrite.

    python benchmarks/bench_progress.py [--rounds N]

The built-in ``"git"`` probe (four ``git`` subprocesses and the untracked files' bytes) on
a small repository (5 files) and on one of about 1,000 files (one file edited, one
untracked), interleaved with a rewrite of a 200-message conversation with a failure at
its decision step (form C3, a new layer each time: a cold replay) and with the same
rewrite with ``progress="git"`` (one probe: each layer sees the step for the first time).
Medians of ``--rounds`` runs. Writes benchmarks/out/progress.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolerr import Message, ToolCall, ToolErrorLayer
from toolerr._progress import git_fingerprint


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=b", "-c", "user.email=b@example.org", *args], cwd=repo, check=True
    )


def make_repo(root: Path, files: int) -> Path:
    """A repository of ``files`` files in folders of 50, committed; one edited, one new."""
    root.mkdir()
    _git(root, "init", "-q")
    for n in range(files):
        folder = root / f"pkg{n // 50}"
        folder.mkdir(exist_ok=True)
        (folder / f"mod{n}.py").write_text(f"def f{n}(x):\n    return x + {n}\n" * 20)
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "init")
    (root / "pkg0" / "mod0.py").write_text("def f0(x):\n    return x - 1\n")
    (root / "scratch.txt").write_text("notes\n")
    return root


def conversation(size: int = 200) -> list[Message]:
    messages = [Message("user", "Fix the failing test.")]
    n = 0
    while len(messages) < size - 2:
        call = ToolCall(f"c{n}", "read_file", {"path": f"pkg0/mod{n}.py"})
        messages += [
            Message("assistant", "", tool_calls=(call,)),
            Message("tool", f"def f{n}(x):\n    return x + {n}\n", tool_call_id=call.id, name="read_file"),
        ]
        n += 1
    call = ToolCall("last", "run_tests", {"target": "tests"})
    messages += [
        Message("assistant", "", tool_calls=(call,)),
        Message(
            "tool",
            "TypeError: run_tests() got an unexpected keyword argument 'target'",
            tool_call_id="last",
            name="run_tests",
            is_error=True,
        ),
    ]
    return messages


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        small = make_repo(Path(tmp) / "small", 5)
        large = make_repo(Path(tmp) / "large", 1000)
        messages = conversation()
        succeeded = messages[:-2]  # the decision step a success (the common case)
        variants: dict[str, Callable[[], Any]] = {
            "rewrite (200 messages, C3, cold)": lambda: ToolErrorLayer().rewrite(messages),
            "rewrite, same_result_repeats=0 (no same-result check)": lambda: ToolErrorLayer(
                same_result_repeats=0
            ).rewrite(messages),
            "rewrite, decision step a success (198 messages)": lambda: ToolErrorLayer().rewrite(succeeded),
            "the same, same_result_repeats=0": lambda: ToolErrorLayer(same_result_repeats=0).rewrite(
                succeeded
            ),
            "git probe, 5 files": lambda: git_fingerprint(small),
            "git probe, ~1,000 files": lambda: git_fingerprint(large),
            "rewrite with progress='git', ~1,000 files (one probe)": lambda: ToolErrorLayer(
                progress="git", progress_cwd=large
            ).rewrite(messages),
        }
        for fn in variants.values():  # warm the file system cache and imports
            fn()
        times: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(args.rounds):
            for name, fn in variants.items():  # interleaved
                times[name].append(timed(fn))
    medians = {name: statistics.median(values) for name, values in times.items()}
    base = medians["rewrite (200 messages, C3, cold)"]
    rows = [
        {"measure": name, "median_ms": round(value, 3), "ratio_to_rewrite": round(value / base, 1)}
        for name, value in medians.items()
    ]
    assert ToolErrorLayer().rewrite(messages).changed  # the decision step's failure is noted
    for row in rows:
        print(f"{row['measure']:<58} {row['median_ms']:>9.3f} ms  x{row['ratio_to_rewrite']}")
    out = Path(__file__).parent / "out" / "progress.json"
    out.parent.mkdir(exist_ok=True)
    git = subprocess.run(["git", "--version"], capture_output=True, text=True, check=False).stdout.strip()
    out.write_text(
        json.dumps(
            {"rounds": args.rounds, "python": platform.python_version(), "git": git, "rows": rows}, indent=2
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
