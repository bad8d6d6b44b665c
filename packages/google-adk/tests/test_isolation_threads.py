"""Invocations in threads sharing one ToolErrorPlugin never see each other's failures
(issue 18, part 1; ``test_runs.py`` has the asyncio tasks and the sequential sessions).

Every invocation's model numbers its calls ``call_0``, with the same session id, and
every failed call's result has the same text, ``UpstreamError: upstream said no``, from
exceptions that classify differently (HTTP 503: transient; 401: unrecoverable); other
invocations' calls succeed. The invocations wait for each other before their model
calls, so that every exception is classified before any model request is built. Each
invocation's model requests, and the calls it executes, must be exactly what it gets
alone.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from adk_support import dump, make_runner, run
from google.adk.agents.callback_context import CallbackContext
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins.base_plugin import BasePlugin
from test_forms import QUESTION
from toolerr.adapters import GUIDANCE, NOTE_PREFIX
from toolerr_google_adk import ToolErrorPlugin


class UpstreamError(Exception):
    """An HTTP client's error: the status is on the exception, not in its text."""

    def __init__(self, message: str, status_code: int) -> None:
        super().__init__(message)
        self.status_code = status_code


STATUS = {"Paris": 503, "Oslo": 401}
CITIES = ["Paris", "Oslo", "Rome"]  # transient, unrecoverable, a success


class _Gate(BasePlugin):
    """Holds each invocation before a model call that follows a tool result, until every
    invocation is there (``None``: no waiting)."""

    def __init__(self, barrier: threading.Barrier | None) -> None:
        super().__init__("gate")
        self.barrier = barrier

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        last = llm_request.contents[-1] if llm_request.contents else None
        if (
            self.barrier is not None
            and last is not None
            and any(p.function_response for p in last.parts or ())
        ):
            self.barrier.wait(timeout=30)
        return None


def _invoke(plugin: ToolErrorPlugin, city: str, barrier: threading.Barrier | None = None) -> tuple[Any, ...]:
    calls: list[str] = []

    def get_weather(city: str) -> dict[str, Any]:
        """The weather in a city."""
        calls.append(city)
        if city in STATUS:
            raise UpstreamError("upstream said no", STATUS[city])
        return {"city": city, "temperature_c": 12}

    runner, model = make_runner(
        [[("get_weather", {"city": city})], "done"], [get_weather], [_Gate(barrier), plugin], ids=True
    )
    asyncio.run(run(runner, QUESTION, session_id="s"))
    return [dump(request) for request in model.requests], calls


@pytest.mark.parametrize("options", [{}, {"form": "c1"}])
def test_invocations_in_threads_share_one_plugin(options: dict[str, Any]) -> None:
    alone = {city: _invoke(ToolErrorPlugin(**options), city) for city in CITIES}
    assert GUIDANCE["transient"] in repr(alone["Paris"][0])
    assert GUIDANCE["unrecoverable"] in repr(alone["Oslo"][0])
    assert NOTE_PREFIX not in repr(alone["Rome"][0])
    shared = ToolErrorPlugin(**options)
    cities = CITIES * 2
    barrier = threading.Barrier(len(cities))
    results: dict[int, tuple[Any, ...]] = {}
    errors: list[BaseException] = []

    def go(n: int) -> None:
        try:
            results[n] = _invoke(shared, cities[n], barrier)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=go, args=(n,)) for n in range(len(cities))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    for n, city in enumerate(cities):
        assert results[n] == alone[city], city
