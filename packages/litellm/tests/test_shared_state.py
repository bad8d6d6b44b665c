"""Two LiteLLM proxy processes (a gateway scaled out) sharing toolerr's replay checkpoints
through a real ``redis-server``, configured as LiteLLM's own Redis cache: one
conversation's requests alternate between them; what the upstream receives is what one
instance alone sends; Redis killed mid-run loses nothing and is logged (issue 29)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
import redis
import toolerr
from conftest import HOOK_FILE, HOST, MASTER_KEY, Proxy, Upstream, free_port, launch_proxy, stop, wait_ready

REDIS = shutil.which("redis-server")
# CI installs redis-server (.ci/run): there a missing one fails the test instead of skipping it
pytestmark = pytest.mark.skipif(
    REDIS is None and not os.environ.get("CI"), reason="needs redis-server (Debian: apt install redis-server)"
)

RATE = "Error: HTTP 429 Too Many Requests"
STORE_FAILED = "the shared checkpoint store failed"
# The tests' hook, whose handler also logs the shared store's counts after each request
# (LiteLLM loads each configured callback from its own copy of the module: the handler
# itself must log them).
SHARED_HOOK = (
    HOOK_FILE
    + """

class CountingHandler(ToolErrorCallback):
    async def async_pre_call_hook(self, user_api_key_dict, cache, data, call_type):
        data = await super().async_pre_call_hook(user_api_key_dict, cache, data, call_type)
        store = self.shared_state
        if store is not None:
            store.flush()
        with open(os.environ["TOOLERR_TEST_LOG"], "a") as out:
            out.write(json.dumps({"stats": dict(store.stats) if store is not None else None}) + "\\n")
        return data


handler = CountingHandler(shared_state="auto")
"""
)


@contextlib.contextmanager
def redis_server(directory: Path) -> Iterator[tuple[subprocess.Popen[bytes], Any]]:
    """A redis-server on a free loopback port, keeping nothing on disk, and a client."""
    assert REDIS is not None, "redis-server is not on the PATH"
    port = free_port()
    command = [REDIS, "--port", str(port), "--bind", HOST, "--save", "", "--appendonly", "no"]
    process = subprocess.Popen([*command, "--dir", str(directory)], stdout=subprocess.DEVNULL)
    client = redis.Redis(host=HOST, port=port, socket_timeout=2)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise
                time.sleep(0.05)
        yield process, client
    finally:
        process.kill()
        process.wait(timeout=10)


def conversation(turns: int, conv: str = "a") -> list[dict[str, Any]]:
    """A coding agent's conversation of ``turns`` exchanges; every 5th result and the
    last one (the decision step) a 429."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": f"Fix the failing test ({conv})."}]
    for turn in range(turns):
        call_id = f"call_{turn}"  # the same ids in every conversation, as agents number them
        arguments = json.dumps({"path": f"src/file_{turn % 7}.py"})
        call = {"id": call_id, "type": "function", "function": {"name": "read_file", "arguments": arguments}}
        failed = turn % 5 == 2 or turn == turns - 1
        result = RATE if failed else f"# {conv}\n" + f"def f_{turn}():\n    return {turn}\n" * 4
        messages.append({"role": "assistant", "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": call_id, "content": result})
    return messages


@pytest.fixture
def gateway(
    upstream: Upstream, tmp_path: Path
) -> Iterator[tuple[Proxy, Proxy, subprocess.Popen[bytes], Any]]:
    with redis_server(tmp_path) as (process, client):
        port = client.connection_pool.connection_kwargs["port"]
        cache = {"type": "redis", "host": HOST, "port": port, "mode": "default_off"}
        settings = {"cache": True, "cache_params": cache}
        started = [
            launch_proxy(tmp_path / name, upstream.url, settings=settings, hook_source=SHARED_HOOK)
            for name in ("a", "b")
        ]
        try:
            for proxy in started:
                wait_ready(proxy)
            yield started[0], started[1], process, client
        finally:
            for proxy in started:
                stop(proxy)


def send(proxy: Proxy, messages: list[dict[str, Any]]) -> str | None:
    client = openai.OpenAI(base_url=f"{proxy.url}/v1", api_key=MASTER_KEY, max_retries=0, timeout=60)
    answer = client.chat.completions.create(model="gpt-test", messages=messages)  # type: ignore[arg-type]
    return answer.choices[0].message.content


def store_stats(proxy: Proxy, requests: int) -> dict[str, int]:
    """The shared store's counts in ``proxy`` after its ``requests``-th request (logged
    after the answer, so waited for)."""
    deadline = time.monotonic() + 10
    while True:
        logged = [entry["stats"] for entry in proxy.logged() if "stats" in entry]
        if len(logged) >= requests or time.monotonic() > deadline:
            assert len(logged) >= requests, logged
            stats = logged[requests - 1]
            assert stats is not None, "the proxy found no Redis in LiteLLM's cache"
            return dict(stats)
        time.sleep(0.05)


def test_two_instances_share_checkpoints_and_answer_as_one(
    gateway: tuple[Proxy, Proxy, subprocess.Popen[bytes], Any], upstream: Upstream
) -> None:
    a, b, redis_process, client = gateway
    upstream.clear()
    start = 150  # checkpoints of 128 calls and more are shared (shorter ones replay faster)
    for request in range(8):  # alternating: a, b, a, b ...
        messages = conversation(start + request)
        assert send((a, b)[request % 2], messages) == "done"
        # one instance alone (any instance, warm or cold) sends exactly this
        expected = toolerr.rewrite_wire("openai-chat", messages)
        assert expected.changed
        assert upstream.last().json["messages"] == expected.request
    keys = list(client.scan_iter("toolerr:v1:cp:*"))
    assert keys, "no checkpoint was written to LiteLLM's Redis"
    assert all(0 < client.ttl(key) <= 3600 for key in keys)
    # b's first request found the checkpoint a kept for the same conversation; later
    # requests continued from each instance's own (in-process) checkpoints
    first_a, first_b, last_b = store_stats(a, 1), store_stats(b, 1), store_stats(b, 4)
    assert (first_a["reads"], first_a["hits"]) == (1, 0)
    assert (first_b["reads"], first_b["hits"]) == (1, 1)
    assert (last_b["reads"], last_b["hits"], last_b["failures"]) == (1, 1, 0)
    # a's first sight wrote its checkpoints; its later failing steps resumed by content in
    # the process (toolerr._wire_resume) and neither read nor wrote the store
    assert store_stats(a, 4)["writes"] == 1

    redis_process.kill()  # Redis gone mid-run: in-process state only, nothing lost
    redis_process.wait(timeout=10)
    for request in range(8, 14):
        messages = conversation(start + request)
        assert send((a, b)[request % 2], messages) == "done"
        assert upstream.last().json["messages"] == toolerr.rewrite_wire("openai-chat", messages).request
    # a new conversation's first sight (it looks the store up) on each instance
    for proxy in (a, b):
        messages = conversation(start, conv=f"new-{proxy.url}")
        assert send(proxy, messages) == "done"
        assert upstream.last().json["messages"] == toolerr.rewrite_wire("openai-chat", messages).request
    for proxy in (a, b):
        log = proxy.log.read_text(errors="replace")
        assert STORE_FAILED in log, log[-3000:]
        assert "Traceback" not in log.split(STORE_FAILED, 1)[1][:2000]
