"""ToolErrorLayer.rewrite per model call of a growing conversation (the replay's share).

A coding-agent conversation (one ``read_file`` tool, ~600-character results, every 9th
result a 429, so every call is in the ledger: the replay's worst case) grows by one exchange
per model call, whose result failed (converted, replayed, C3 applied). The layer replayed
the conversation one exchange shorter at the previous call, as in a running agent. Figure:
the median CPU time of the thread per call (time other processes of a busy machine take
the core is not counted), over 30 calls, at about 100, 1,000 and 3,000 messages.

    python benchmarks/bench_replay.py          # toolerr from the path (PYTHONPATH=TREE/shared_core/src)
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

import toolerr
from toolerr import Message, ToolCall, ToolErrorLayer

SIZES = (50, 500, 1500)  # exchanges before the first timed call


def exchange(number: int, failed: bool) -> list[Message]:
    call = ToolCall(f"call_{number}", "read_file", {"path": f"src/file_{number % 37}.py"})
    text = "Error: HTTP 429 Too Many Requests" if failed else f"def f_{number}():\n    return {number}\n" * 20
    result = Message("tool", text, tool_call_id=call.id, name="read_file")
    return [Message("assistant", "", tool_calls=(call,)), result]


def per_call(exchanges: int, calls: int = 30) -> tuple[int, float]:
    layer = ToolErrorLayer(form="c3")
    messages = [Message("system", "You are a coding agent."), Message("user", "Fix the failing test.")]
    for number in range(exchanges):
        messages += exchange(number, number % 9 == 4)
    layer.rewrite(messages)  # the previous model call
    cpu = []
    for number in range(exchanges, exchanges + calls):
        messages = [*messages, *exchange(number, True)]  # the same objects, one exchange more
        start = time.thread_time()
        layer.rewrite(messages)
        cpu.append(time.thread_time() - start)
    return len(messages), statistics.median(cpu)


def main() -> None:
    rows = []
    for exchanges in SIZES:
        size, cpu = per_call(exchanges)
        rows.append({"messages": size, "rewrite_cpu_ms": round(cpu * 1000, 3)})
    print(json.dumps({"toolerr": str(Path(toolerr.__file__).parent), "rows": rows}))


if __name__ == "__main__":
    main()
