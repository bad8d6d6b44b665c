"""Requests of many runs through one ToolErrorCallback never see each other's failures
(issue 18, part 1).

A gateway serves every user with one callback. Each run here numbers its calls
``call_0``, ``call_1`` and calls the same tool with the same arguments; some runs' calls
fail, the others' succeed. Every request the upstream receives for a run must be exactly
what it receives when that run is sent alone: through the SDK hook in concurrent asyncio
tasks, through ``rewrite_kwargs`` in threads, and through the real proxy process with
concurrent clients.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from typing import Any

import litellm
import openai
import pytest
from conftest import MASTER_KEY, Proxy, Upstream
from toolerr_litellm import ToolErrorCallback

DENIED = "Error: EACCES: permission denied, open '/etc/shadow'"
CONTENTS = "root:x:0:0:root:/root:/bin/bash"
CALL = {"name": "read_file", "arguments": '{"path": "/etc/shadow"}'}


def _steps(run: int, failing: bool) -> list[list[dict[str, Any]]]:
    """The requests of one run: after its first call, after its repeat, after an answer
    to the user. Only the first user message tells the runs apart."""
    result = DENIED if failing else CONTENTS
    messages: list[dict[str, Any]] = [{"role": "user", "content": f"run {run}: read /etc/shadow"}]
    steps = []
    for n in range(2):
        messages = [
            *messages,
            {
                "role": "assistant",
                "tool_calls": [{"id": f"call_{n}", "type": "function", "function": dict(CALL)}],
            },
            {"role": "tool", "tool_call_id": f"call_{n}", "content": result},
        ]
        steps.append(messages)
    steps.append([*messages, {"role": "assistant", "content": "done"}, {"role": "user", "content": "again?"}])
    return steps


RUNS = {run: _steps(run, failing=run % 2 == 0) for run in range(6)}
OPTIONS = [{}, {"loop_action": "block"}, {"form": "c1"}, {"form": "abstract", "loop_action": "block"}]


def _by_run(upstream: Upstream) -> dict[int, list[Any]]:
    """The upstream's requests, per run, in the order each run sent them."""
    out: dict[int, list[Any]] = {}
    for received in upstream.posts():
        messages = received.json["messages"]
        run = int(str(messages[0]["content"]).split(":")[0].removeprefix("run "))
        out.setdefault(run, []).append(messages)
    return out


@pytest.fixture
def install() -> Iterator[Callable[[ToolErrorCallback], None]]:
    saved = list(litellm.callbacks)

    def use(callback: ToolErrorCallback) -> None:
        litellm.callbacks = [callback]

    try:
        yield use
    finally:
        litellm.callbacks = saved


def _sdk(upstream: Upstream) -> dict[str, Any]:
    return {"api_base": f"{upstream.url}/v1", "api_key": "sk-up", "num_retries": 0}


async def _arun(run: int, upstream: Upstream) -> None:
    for messages in RUNS[run]:
        await litellm.acompletion(model="openai/gpt-test", messages=messages, **_sdk(upstream))


def _alone_sdk(
    options: dict[str, Any], upstream: Upstream, install: Callable[[ToolErrorCallback], None]
) -> dict[int, list[Any]]:
    upstream.clear()
    for run in RUNS:
        install(ToolErrorCallback(**options))
        asyncio.run(_arun(run, upstream))
    alone = _by_run(upstream)
    upstream.clear()
    return alone


@pytest.mark.parametrize("options", OPTIONS)
def test_sdk_runs_in_concurrent_asyncio_tasks(
    options: dict[str, Any], upstream: Upstream, install: Callable[[ToolErrorCallback], None]
) -> None:
    alone = _alone_sdk(options, upstream, install)
    # The failing runs' requests were changed, the others' went as they were.
    assert alone[0] != RUNS[0] and alone[1] == RUNS[1]
    install(ToolErrorCallback(**options))

    async def main() -> None:
        await asyncio.gather(*(_arun(run, upstream) for run in RUNS))

    asyncio.run(main())
    assert _by_run(upstream) == alone


@pytest.mark.parametrize("options", OPTIONS)
def test_sdk_runs_in_threads_through_rewrite_kwargs(
    options: dict[str, Any], upstream: Upstream, install: Callable[[ToolErrorCallback], None]
) -> None:
    alone = _alone_sdk(options, upstream, install)
    install(ToolErrorCallback())  # the sync call runs no rewriting hook; rewrite_kwargs does
    shared = ToolErrorCallback(**options)
    barrier = threading.Barrier(len(RUNS))
    errors: list[BaseException] = []

    def go(run: int) -> None:
        try:
            barrier.wait(timeout=30)
            for messages in RUNS[run]:
                kwargs = {"model": "openai/gpt-test", "messages": messages, **_sdk(upstream)}
                litellm.completion(**shared.rewrite_kwargs(kwargs))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=go, args=(run,)) for run in RUNS]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert _by_run(upstream) == alone


def test_the_proxy_with_concurrent_clients(proxy: Proxy, upstream: Upstream) -> None:
    """The real proxy process (one callback for every client): clients in threads, each
    sending its run's requests, see what each run alone sees."""

    def send(run: int) -> None:
        client = openai.OpenAI(base_url=f"{proxy.url}/v1", api_key=MASTER_KEY, max_retries=0)
        for messages in RUNS[run]:
            client.chat.completions.create(model="gpt-test", messages=messages)  # type: ignore[arg-type]

    upstream.clear()
    for run in RUNS:
        send(run)
    alone = _by_run(upstream)
    assert alone[0] != RUNS[0] and alone[1] == RUNS[1]
    upstream.clear()
    barrier = threading.Barrier(len(RUNS))
    errors: list[BaseException] = []

    def go(run: int) -> None:
        try:
            barrier.wait(timeout=30)
            send(run)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=go, args=(run,)) for run in RUNS]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert _by_run(upstream) == alone
