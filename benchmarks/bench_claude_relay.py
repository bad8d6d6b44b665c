"""Latency that toolerr_claude_agent_sdk's relay adds to one ``/v1/messages`` request.

A fake Anthropic upstream in its own process on 127.0.0.1 answers at once with a short SSE
stream. ``ToolErrorRecovery``'s relay runs in this process (its own event loop, in a
thread, as it runs beside the CLI); one client (``http.client``, keep-alive on both
paths) sends the same request alternately straight to the upstream and through the relay.
Requests as the Claude Code CLI sends them (compact JSON, ``stream: true``) at 10 and 100
turns (tool_use/tool_result pairs), without a failure (forwarded byte for byte) and with
a failure at the decision step (parsed, rewritten, re-serialised). Per run: the median
direct latency, the median through the relay, the median of the per-pair differences;
the figures are the medians over ``--runs`` runs.

    python benchmarks/bench_claude_relay.py [--runs 5] [--rounds 200]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import platform
import statistics
import subprocess
import sys
import threading
import time
from typing import Any
from urllib.parse import urlsplit

from claude_agent_sdk import ClaudeAgentOptions
from toolerr_claude_agent_sdk import ToolErrorRecovery

UPSTREAM = r"""
import json, socket, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
events = [
    {"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "model": "x",
     "content": [], "stop_reason": None, "usage": {"input_tokens": 1, "output_tokens": 1}}},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "done"}},
    {"type": "content_block_stop", "index": 0},
    {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 1}},
    {"type": "message_stop"},
]
BODY = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as real servers
    def do_POST(self):
        self.rfile.read(int(self.headers["content-length"]))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)
s = ThreadingHTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
"""


def request(turns: int, failed: bool) -> bytes:
    """A compact ``/v1/messages`` body of ``turns`` tool steps (the last one failed or not)."""
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": "Fix the tests."}]}
    ]
    for index in range(turns):
        use = {
            "type": "tool_use",
            "id": f"toolu_{index}",
            "name": "Read",
            "input": {"file_path": f"/w/f{index}.py"},
        }
        text = f"     1\tdef f{index}():\n     2\t    return {index}\n" * 8
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": f"toolu_{index}", "content": text}
        if failed and index == turns - 1:
            result = {
                **result,
                "content": "PermissionError: [Errno 13] Permission denied: '/w/x'",
                "is_error": True,
            }
        messages.append({"role": "assistant", "content": [{"type": "text", "text": "Reading."}, use]})
        messages.append({"role": "user", "content": [result]})
    body = {"model": "claude-sonnet-4-5", "max_tokens": 32000, "messages": messages, "stream": True}
    return json.dumps(body, separators=(",", ":")).encode()


def post(connection: http.client.HTTPConnection, path: str, body: bytes) -> float:
    headers = {
        "content-type": "application/json",
        "x-api-key": "sk-ant-fake",
        "anthropic-version": "2023-06-01",
    }
    start = time.perf_counter()
    connection.request("POST", path, body=body, headers=headers)
    response = connection.getresponse()
    response.read()
    elapsed = time.perf_counter() - start
    assert response.status == 200, response.status
    return elapsed


class RelayThread:
    """ToolErrorRecovery's relay serving in its own event loop."""

    def __init__(self, upstream: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.stop = asyncio.Event()
        self.base = ""
        self.thread = threading.Thread(
            target=self.loop.run_until_complete, args=(self._main(upstream),), daemon=True
        )
        self.thread.start()
        self.ready.wait()

    async def _main(self, upstream: str) -> None:
        self.stop = asyncio.Event()
        async with ToolErrorRecovery() as recovery:
            self.base = recovery.options(ClaudeAgentOptions(env={"ANTHROPIC_BASE_URL": upstream})).env[
                "ANTHROPIC_BASE_URL"
            ]
            self.ready.set()
            await self.stop.wait()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.stop.set)
        self.thread.join()


def one_run(
    direct: http.client.HTTPConnection,
    relayed: http.client.HTTPConnection,
    prefix: str,
    body: bytes,
    rounds: int,
) -> tuple[float, float, float]:
    for _ in range(10):  # warm-up
        post(direct, "/v1/messages?beta=true", body)
        post(relayed, f"{prefix}/v1/messages?beta=true", body)
    straight: list[float] = []
    through: list[float] = []
    for index in range(rounds):
        if index % 2:
            b = post(relayed, f"{prefix}/v1/messages?beta=true", body)
            a = post(direct, "/v1/messages?beta=true", body)
        else:
            a = post(direct, "/v1/messages?beta=true", body)
            b = post(relayed, f"{prefix}/v1/messages?beta=true", body)
        straight.append(a)
        through.append(b)
    return (
        statistics.median(straight),
        statistics.median(through),
        statistics.median(b - a for a, b in zip(straight, through, strict=True)),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    process = subprocess.Popen([sys.executable, "-c", UPSTREAM], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())
        relay = RelayThread(f"http://127.0.0.1:{port}")
        parts = urlsplit(relay.base)
        print(f"python {platform.python_version()}, {args.runs} runs x {args.rounds} request pairs")
        print("| turns | request | body | direct | through the relay | added (median of pairs) |")
        print("|---|---|---|---|---|---|")
        for turns in (10, 100):
            for failed in (False, True):
                body = request(turns, failed)
                results = []
                for _ in range(args.runs):
                    direct = http.client.HTTPConnection("127.0.0.1", port)
                    relayed = http.client.HTTPConnection("127.0.0.1", parts.port)
                    results.append(one_run(direct, relayed, parts.path, body, args.rounds))
                    direct.close()
                    relayed.close()
                a, b, d = (statistics.median(r[i] for r in results) for i in range(3))
                kind = (
                    "a failure at the decision step (rewritten)" if failed else "no failure (byte for byte)"
                )
                print(
                    f"| {turns} | {kind} | {len(body) / 1024:.0f} KiB | {a * 1e3:.2f} ms | {b * 1e3:.2f} ms "
                    f"| {d * 1e3:.2f} ms ({b / a:.2f}x) |"
                )
        relay.close()
    finally:
        process.terminate()
        process.wait()


if __name__ == "__main__":
    main()
