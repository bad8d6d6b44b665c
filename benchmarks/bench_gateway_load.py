"""Load test of the real LiteLLM proxy run as two instances sharing a real redis-server
(issue 29, item 3), beside the same two proxies with a do-nothing callback.

Everything on 127.0.0.1: a ``redis-server`` (LiteLLM's Redis cache, ``mode: default_off``:
no response is cached), an upstream process that answers at once and writes a digest of
every request's messages, and two pairs of LiteLLM proxy processes with the same config:
one pair with ``ToolErrorCallback(shared_state="auto")`` (which shares its replay
checkpoints through LiteLLM's Redis), one with ``ToolErrorCallback()`` (each instance its own
state), one with a callback that does nothing. ``--clients`` concurrent clients (asyncio,
one connection each), each one conversation that starts at ``--start`` exchanges and grows
by ``--grow`` exchanges per request (1 by default) for ``--requests`` requests; the requests of a conversation
alternate between the pair's two instances; half the requests fail at the decision step (a
429; two of every four, so that each instance sees failing and passing ones), and every
5th earlier result is a 429 too. Phases, one pair at a time: do-nothing, toolerr
(shared), toolerr (local), do-nothing, toolerr (shared) with Redis killed when half its
requests are answered.

Figures per phase: requests answered (and not), client-side latency p50 / p99 and
throughput; toolerr's added latency is its phase's figure minus the do-nothing phase's.
Checks: every request answered 200; the messages the upstream received for every request
of the toolerr phases are exactly what ``toolerr.rewrite_wire`` makes of that request alone
(one instance, cold), and for the do-nothing phases the request's own; after Redis is
killed, both instances logged the fail-open WARNING.

    python benchmarks/bench_gateway_load.py [--clients 200] [--start 450] [--requests 10] [--grow 1]

Needs ``redis-server`` on the PATH, and LiteLLM's proxy, ``httpx``, ``redis`` and
toolerr-litellm installed (the nox ``litellm`` environment has them).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "True")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "packages" / "litellm" / "tests"))

import conftest  # noqa: E402  (the tests' proxy launcher)

RATE = "Error: HTTP 429 Too Many Requests"
STORE_FAILED = "the shared checkpoint store failed"
TOOLERR_HOOK = """
from litellm.integrations.custom_logger import CustomLogger
from toolerr_litellm import ToolErrorCallback

handler = ToolErrorCallback(shared_state=SHARED)
recorder = CustomLogger()
"""
NOOP_HOOK = """
from litellm.integrations.custom_logger import CustomLogger


class Noop(CustomLogger):
    async def async_pre_call_hook(self, user_api_key_dict, cache, data, call_type):
        return data


handler = Noop()
recorder = Noop()
"""
UPSTREAM = """
import hashlib, json, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

out = open(sys.argv[1], "a", buffering=1)
lock = threading.Lock()
ANSWER = json.dumps({
    "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "gpt-test",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "done"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
        messages = body.get("messages") or []
        text = json.dumps(messages, sort_keys=True, ensure_ascii=False)
        line = {"conv": messages[0].get("content") if messages else None, "n": len(messages),
                "digest": hashlib.sha256(text.encode()).hexdigest()}
        with lock:
            out.write(json.dumps(line) + "\\n")
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(ANSWER)))
        self.end_headers()
        self.wfile.write(ANSWER)


class Server(ThreadingHTTPServer):
    request_queue_size = 1024  # 200 clients' connections at once through each proxy
    daemon_threads = True


server = Server(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
"""


def conversation(conv: int, exchanges: int) -> list[dict[str, Any]]:
    task = f"conversation {conv}: fix the failing test"
    messages: list[dict[str, Any]] = [{"role": "user", "content": task}]
    for turn in range(exchanges):
        call_id = f"call_{turn}"  # the same ids in every conversation
        arguments = json.dumps({"path": f"src/file_{(turn + conv) % 37}.py"})
        call = {"id": call_id, "type": "function", "function": {"name": "read_file", "arguments": arguments}}
        last = turn == exchanges - 1
        # the decision step fails on two consecutive requests of four, which go to the two
        # instances of the pair: each instance sees failing and passing ones
        failed = (exchanges + conv) % 4 < 2 if last else turn % 5 == 2
        result = RATE if failed else f"# conversation {conv}\n" + f"def f_{turn}():\n    return {turn}\n" * 6
        messages.append({"role": "assistant", "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": call_id, "content": result})
    return messages


def digest(messages: list[dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


async def phase(
    name: str, urls: tuple[str, str], args: argparse.Namespace, kill: subprocess.Popen[bytes] | None
) -> dict[str, Any]:
    import httpx

    latencies: list[float] = []
    errors: list[str] = []
    total = args.clients * args.requests
    killed_at: list[int] = []

    headers = {"authorization": f"Bearer {conftest.MASTER_KEY}", "content-type": "application/json"}

    async def client(conv: int) -> None:
        # a new connection per request: a kept-alive one idles while the other instance
        # answers (seconds under this load) and the proxy's server closes it after 5 s, so a
        # request sent as it closes is lost before the proxy reads it (httpx.ReadError)
        limits = httpx.Limits(max_keepalive_connections=0)
        async with httpx.AsyncClient(timeout=120, limits=limits) as http:
            for request in range(args.requests):
                body = {"model": "gpt-test", "messages": conversation(conv, args.start + request * args.grow)}
                url = urls[(conv + request) % 2]
                started = time.perf_counter()
                try:
                    answer = await http.post(
                        f"{url}/v1/chat/completions",
                        content=json.dumps(body).encode(),
                        headers=headers,
                    )
                    if answer.status_code != 200:
                        errors.append(f"{answer.status_code}: {answer.text[:200]}")
                except httpx.HTTPError as error:
                    errors.append(repr(error))
                latencies.append(time.perf_counter() - started)
                if kill is not None and not killed_at and len(latencies) >= total // 2:
                    killed_at.append(len(latencies))
                    kill.kill()

    started = time.perf_counter()
    await asyncio.gather(*(client(conv) for conv in range(args.clients)))
    wall = time.perf_counter() - started
    ordered = sorted(latencies)
    return {
        "phase": name,
        "requests": len(latencies),
        "failed": len(errors),
        "errors": errors[:3],
        "p50_ms": round(statistics.median(ordered) * 1000, 1),
        "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000, 1),
        "throughput_rps": round(len(latencies) / wall, 1),
        "redis_killed_after": killed_at[0] if killed_at else None,
    }


def expected_digests(args: argparse.Namespace, rewritten: bool) -> dict[tuple[str, int], str]:
    import toolerr

    expected: dict[tuple[str, int], str] = {}
    for conv in range(args.clients):
        for request in range(args.requests):
            messages = conversation(conv, args.start + request * args.grow)
            sent = toolerr.rewrite_wire("openai-chat", messages).request if rewritten else messages
            expected[(messages[0]["content"], len(sent))] = digest(sent)
    return expected


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--start", type=int, default=450, help="exchanges at a conversation's first request")
    parser.add_argument("--requests", type=int, default=10, help="requests per conversation and phase")
    parser.add_argument("--grow", type=int, default=1, help="exchanges a conversation grows by per request")
    args = parser.parse_args()
    server = shutil.which("redis-server")
    if server is None:
        sys.exit("needs redis-server on the PATH")
    base = Path(tempfile.mkdtemp(prefix="toolerr-load-"))
    port = conftest.free_port()
    redis_process = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(base)],
        stdout=subprocess.DEVNULL,
    )
    log = base / "upstream.jsonl"
    upstream = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(UPSTREAM), str(log)], stdout=subprocess.PIPE, text=True
    )
    assert upstream.stdout is not None
    upstream_url = f"http://127.0.0.1:{upstream.stdout.readline().strip()}"
    cache = {"type": "redis", "host": "127.0.0.1", "port": port, "mode": "default_off"}
    settings = {"cache": True, "cache_params": cache}
    pairs: dict[str, list[conftest.Proxy]] = {}
    try:
        hooks = {
            "toolerr": TOOLERR_HOOK.replace("SHARED", '"auto"'),
            "toolerr-local": TOOLERR_HOOK.replace("SHARED", "None"),
            "noop": NOOP_HOOK,
        }
        for name, hook in hooks.items():
            pairs[name] = [
                conftest.launch_proxy(base / f"{name}{i}", upstream_url, hook_source=hook, settings=settings)
                for i in (0, 1)
            ]
        for pair in pairs.values():
            for proxy in pair:
                conftest.wait_ready(proxy, timeout=300)
        print(json.dumps({"load": os.getloadavg(), **vars(args)}), flush=True)
        results = []
        phases = [("noop", None), ("toolerr", None), ("toolerr-local", None), ("noop", None)]
        for name, kill in [*phases, ("toolerr", redis_process)]:
            log.write_text("")
            urls = (pairs[name][0].url, pairs[name][1].url)
            result = asyncio.run(phase(name, urls, args, kill))
            received = [json.loads(line) for line in log.read_text().splitlines() if line]
            expected = expected_digests(args, rewritten=name.startswith("toolerr"))
            got = {(r["conv"], r["n"]): r["digest"] for r in received}
            result["upstream_requests"] = len(received)
            result["upstream_identical"] = sum(got.get(key) == value for key, value in expected.items())
            results.append(result)
            print(json.dumps(result), flush=True)
        logs = [proxy.log.read_text(errors="replace") for proxy in pairs["toolerr"]]
        print(json.dumps({"fail_open_logged": [STORE_FAILED in text for text in logs]}), flush=True)
    finally:
        for pair in pairs.values():
            for proxy in pair:
                conftest.stop(proxy)
        upstream.kill()
        redis_process.kill()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
