"""Quarantine: the lengths of failed tool results, and what the rewrite costs with it.

1. The distribution of the lengths (characters) of failed tool results: every error text
   of the project's corpora (``shared_core/tests/real_errors/live_corpus.jsonl``, the
   library corpora ``real_errors/libraries/data/*.jsonl``: the exception's ``str`` and each
   client's text; ``framework_texts/data/*.jsonl``), and real long outputs generated here:
   ``python -m pytest`` on generated modules with 1, 10 and 200 failing tests, the
   traceback of a deep mutual recursion (``python -c`` in a subprocess) and ``gcc`` on a C file
   with 200 errors (skipped without a ``gcc``). With the share of the corpus texts the
   default ``quarantine_chars`` leaves whole.
2. The cost: the thread CPU time of ``ToolErrorLayer.rewrite`` on a 1,000-message
   conversation whose decision step failed and that holds one long failure (the 200-test
   pytest output), quarantine on (the default) and off (``quarantine_chars=0``): medians
   of 30 calls each, after a warm-up, and their ratio.

    python benchmarks/bench_quarantine.py      # toolerr from the path (PYTHONPATH=TREE/shared_core/src)
"""

from __future__ import annotations

import glob
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import toolerr
from toolerr import Message, Policy, ToolCall, ToolErrorLayer

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "shared_core" / "tests"


def corpus_lengths() -> list[int]:
    """Lengths of every failed tool result text of the corpora."""
    lengths: list[int] = []
    files = [TESTS / "real_errors" / "live_corpus.jsonl"]
    files += [
        Path(p) for p in sorted(glob.glob(str(TESTS / "real_errors" / "libraries" / "data" / "*.jsonl")))
    ]
    for path in files:
        for line in path.read_text().splitlines():
            record = json.loads(line)
            if isinstance(record.get("str"), str):
                lengths.append(len(record["str"]))
            lengths += [len(text) for text in (record.get("texts") or {}).values() if isinstance(text, str)]
    for path in sorted(glob.glob(str(TESTS / "framework_texts" / "data" / "*.jsonl"))):
        for line in Path(path).read_text().splitlines():
            lengths.append(len(json.loads(line).get("text", "")))
    return lengths


def pytest_output(directory: Path, failing: int) -> str:
    """The output of a real ``python -m pytest`` on a module with ``failing`` failing tests."""
    lines = []
    for i in range(failing):
        lines += [
            f"def check_{i}(value):",
            "    table = {'rows': list(range(30))}",
            f"    assert value == {i} + 1, f'value {{value}} does not match {{table}}'",
            "",
            f"def test_{i}():",
            f"    check_{i}({i})",
            "",
        ]
    module = directory / f"test_generated_{failing}.py"
    module.write_text("\n".join(lines))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", str(module)],
        capture_output=True,
        text=True,
        cwd=directory,
        check=False,
    )
    return run.stdout + run.stderr


def recursion_output() -> str:
    """A deep recursion through two functions (Python folds only a line repeated as is)."""
    code = "def down(n):\n    return up(n + 1) + 1\ndef up(n):\n    return down(n + 1) + 1\ndown(0)\n"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    return run.stderr


def gcc_output(directory: Path) -> str | None:
    gcc = shutil.which("gcc")
    if gcc is None:
        return None
    source = directory / "broken.c"
    source.write_text("".join(f"int f{i}(void) {{ return undefined_{i} + ; }}\n" for i in range(200)))
    run = subprocess.run(
        [gcc, "-c", str(source), "-o", str(directory / "broken.o")],
        capture_output=True,
        text=True,
        check=False,
    )
    return run.stderr


def percentile(values: list[int], share: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def conversation(long_failure: str) -> list[Message]:
    """About 1,000 messages: a coding agent's exchanges, the long failure early on, and a
    decision step that failed."""
    messages = [Message("system", "You are a coding agent."), Message("user", "Fix the failing tests.")]
    for number in range(499):
        call = ToolCall(f"call_{number}", "read_file", {"path": f"src/file_{number % 37}.py"})
        if number == 10:
            call = ToolCall(f"call_{number}", "run_tests", {})
            text = long_failure
        elif number == 498 or number % 9 == 4:
            text = "Error: HTTP 429 Too Many Requests"
        else:
            text = f"def f_{number}():\n    return {number}\n" * 20
        messages += [
            Message("assistant", "", tool_calls=(call,)),
            Message("tool", text, tool_call_id=call.id, name=call.name, is_error=number == 10 or None),
        ]
    return messages


def rewrite_cpu(layer: ToolErrorLayer, messages: list[Message], calls: int = 30) -> float:
    layer.rewrite(messages)  # warm-up: the replay checkpoint, the saved file
    times = []
    for _ in range(calls):
        start = time.thread_time()
        layer.rewrite(list(messages))
        times.append(time.thread_time() - start)
    return statistics.median(times)


def main() -> None:
    default = Policy().quarantine_chars
    assert default
    lengths = corpus_lengths()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        generated = {
            "pytest, 1 failing test": pytest_output(directory, 1),
            "pytest, 10 failing tests": pytest_output(directory, 10),
            "pytest, 200 failing tests": pytest_output(directory, 200),
            "deep recursion traceback": recursion_output(),
        }
        gcc = gcc_output(directory)
        if gcc is not None:
            generated["gcc, 200 errors"] = gcc
        long_failure = generated["pytest, 200 failing tests"]
        messages = conversation(long_failure)
        on = ToolErrorLayer(result_store=directory / "results")
        off = ToolErrorLayer(quarantine_chars=0)
        shown = on.rewrite(messages).messages
        shown_chars = sum(len(m.text) for m in shown)
        whole_chars = sum(len(m.text) for m in off.rewrite(messages).messages)
        rounds = [(rewrite_cpu(on, messages), rewrite_cpu(off, messages)) for _ in range(3)]
    on_ms = statistics.median(r[0] for r in rounds) * 1000
    off_ms = statistics.median(r[1] for r in rounds) * 1000
    report = {
        "toolerr": str(Path(toolerr.__file__).parent),
        "default_quarantine_chars": default,
        "corpus": {
            "texts": len(lengths),
            "p50": percentile(lengths, 0.50),
            "p90": percentile(lengths, 0.90),
            "p99": percentile(lengths, 0.99),
            "max": max(lengths),
            "share_left_whole": round(sum(n <= default for n in lengths) / len(lengths), 4),
        },
        "generated": {
            name: {"chars": len(text), "lines": len(text.splitlines()), "cut": len(text) > default}
            for name, text in generated.items()
        },
        "rewrite_1000_messages": {
            "messages": len(messages),
            "chars_shown_on": shown_chars,
            "chars_shown_off": whole_chars,
            "cpu_ms_on": round(on_ms, 3),
            "cpu_ms_off": round(off_ms, 3),
            "ratio_on_off": round(on_ms / off_ms, 2),
        },
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
