"""Gateway processes sharing replay checkpoints through a real redis-server (issue 29, item 2).

A gateway run as several processes: a conversation's request that lands on a process that
has not seen the conversation is that process's first sight of it. Without a shared store
it replays the whole conversation; with one (``SharedCheckpoints.redis``, what
``ToolErrorCallback`` uses when LiteLLM has a Redis cache) it continues from the checkpoint
the other process kept. Each figure is the hook's own time (``ToolErrorCallback.rewrite``)
on a request parsed afresh, every request failing at the decision step (the 429 of
``bench_gateway_scale``; converted and rewritten: the worst case), for ``--convs``
conversations at each size:

- ``shared first sight``: process B, fresh, serves request 4 of each conversation after
  process A served requests 0 and 2 of it, both with the store;
- ``cold first sight``: process B without a store (today's cost on another process);
- ``one process, warm``: process A serves requests 0, 2 and 4 (request 4 timed), without
  a store and with one (what writing the checkpoints costs);

CPU of the serving thread (``time.thread_time``) and of the whole process (``process_time``,
which counts the store's own thread: the encoding and the writes, waited for after each
request), median over the conversations, then the median of ``--runs`` runs (each role a
process of its own, the runs alternated).

    python benchmarks/bench_gateway_shared.py [--sizes 100 1000] [--convs 24] [--runs 3]

Needs ``redis-server`` on the PATH and the ``redis`` package; LiteLLM and toolerr-litellm
installed (the nox ``litellm`` environment has them).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "True")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_gateway_scale import body


def role(port: int, size: int, convs: int, requests: list[int], store: bool) -> dict[str, Any]:
    """One process: serve ``requests`` of every even conversation (those fail at the
    decision step on even requests) and time the last one."""
    import redis
    from toolerr.adapters import SharedCheckpoints
    from toolerr_litellm import ToolErrorCallback

    shared = SharedCheckpoints.redis(redis.Redis(port=port)) if store else None
    handler = ToolErrorCallback(shared_state=shared)
    base = max((size - 2) // 2 - 1, 0)
    thread, process, wall = [], [], []
    for conv in range(0, 2 * convs, 2):
        for request in requests:
            data = json.loads(body(conv, base, request))
            data["metadata"] = {}
            started, cpu, proc = time.perf_counter(), time.thread_time(), time.process_time()
            _, result = handler.rewrite(data, "acompletion")
            thread_cpu = time.thread_time() - cpu
            if shared is not None:
                shared.flush()
            assert result is not None and result.changed
            if request == requests[-1]:
                thread.append(thread_cpu)
                process.append(time.process_time() - proc)
                wall.append(time.perf_counter() - started)
    stats = dict(shared.stats) if shared is not None else None
    return {
        "thread_ms": statistics.median(thread) * 1000,
        "process_ms": statistics.median(process) * 1000,
        "wall_ms": statistics.median(wall) * 1000,
        "store": stats,
        "messages": len(json.loads(body(0, base, requests[-1]))["messages"]),
    }


def run_role(port: int, size: int, convs: int, requests: list[int], store: bool) -> dict[str, Any]:
    command = [sys.executable, __file__, "--role", str(port), str(size), str(convs), str(int(store))]
    command += ["--requests", *map(str, requests)]
    out = subprocess.run(command, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--convs", type=int, default=24)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--role", type=int, nargs=4, metavar=("PORT", "SIZE", "CONVS", "STORE"))
    parser.add_argument("--requests", type=int, nargs="+", default=[0, 2, 4])
    args = parser.parse_args()
    if args.role is not None:
        port, size, convs, store = args.role
        print(json.dumps(role(port, size, convs, args.requests, bool(store))), flush=True)
        return
    server = shutil.which("redis-server")
    if server is None:
        sys.exit("needs redis-server on the PATH")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    directory = tempfile.mkdtemp()
    redis_process = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", directory],
        stdout=subprocess.DEVNULL,
    )
    import redis

    client = redis.Redis(port=port)
    for _ in range(100):
        try:
            client.ping()
            break
        except redis.exceptions.ConnectionError:
            time.sleep(0.05)
    print(json.dumps({"load": os.getloadavg(), "convs": args.convs, "runs": args.runs}), flush=True)
    try:
        for size in args.sizes:
            rows: dict[str, list[dict[str, Any]]] = {}
            for _ in range(args.runs):
                client.flushall()
                run_role(port, size, args.convs, [0, 2], True)
                cases = [
                    ("shared first sight", [4], True),
                    ("cold first sight", [4], False),
                    ("one process, warm", [0, 2, 4], False),
                    ("one process, warm, writing", [0, 2, 4], True),
                ]
                for name, requests, store in cases:
                    if name.endswith("writing"):
                        client.flushall()
                    rows.setdefault(name, []).append(run_role(port, size, args.convs, requests, store))
            for name, runs in rows.items():
                line = {
                    "messages": runs[0]["messages"],
                    "case": name,
                    **{
                        key: round(statistics.median(r[key] for r in runs), 2)
                        for key in ("thread_ms", "process_ms", "wall_ms")
                    },
                    "store": runs[-1]["store"],
                }
                print(json.dumps(line), flush=True)
    finally:
        redis_process.kill()
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
