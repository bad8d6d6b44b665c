"""The kit's hidden retries where the framework catches the tool's exception itself
(``_kit_caught``): a failed result is re-run as ``auto_retry`` allows, the last attempt's
result is given back, and a verdict classified before the retries ended counts them."""

from __future__ import annotations

import asyncio
import dataclasses
import email.message
import urllib.error
from collections.abc import Awaitable, Callable

import pytest
from toolerr import ToolErrorLayer
from toolerr.adapters import (
    acall_with_result_retries,
    hidden_retries_of,
)


@dataclasses.dataclass
class Result:
    """A framework's result of one attempt: its text and the exception behind it."""

    text: str
    error: BaseException | None = None


def unavailable() -> urllib.error.HTTPError:
    return urllib.error.HTTPError(
        "http://127.0.0.1:8080/pay", 503, "Service Unavailable", email.message.Message(), None
    )


def invoker(*results: Result) -> tuple[Callable[[], Awaitable[Result]], list[Result]]:
    """A framework's invoker that gives ``results`` in turn (the last one again after)."""
    given: list[Result] = []

    async def call() -> Result:
        given.append(results[min(len(given), len(results) - 1)])
        return given[-1]

    return call, given


@pytest.fixture(autouse=True)
def no_sleeping(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    waits: list[float] = []

    async def wait(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr("toolerr._kit_retry._asleep", wait)
    return waits


def run(layer: ToolErrorLayer, call: Callable[[], Awaitable[Result]]) -> Result:
    return asyncio.run(acall_with_result_retries(layer, "pay", call, lambda result: result.error))


def test_a_turned_away_result_is_rerun_until_it_succeeds(no_sleeping: list[float]) -> None:
    call, given = invoker(Result("Error: 503", unavailable()), Result("paid"))
    assert run(ToolErrorLayer(auto_retry=2), call) == Result("paid")
    assert len(given) == 2 and len(no_sleeping) == 1


def test_the_last_failed_result_is_given_back_with_its_hidden_retries() -> None:
    errors = [unavailable() for _ in range(3)]
    call, given = invoker(*(Result(f"Error: 503 ({i})", error) for i, error in enumerate(errors)))
    last = run(ToolErrorLayer(auto_retry=2), call)
    assert last is given[-1] and last.text == "Error: 503 (2)" and len(given) == 3
    assert [hidden_retries_of(e) for e in errors] == [0, 0, 2]


def test_without_auto_retry_or_for_a_permanent_failure_the_call_runs_once() -> None:
    failed = Result("Error: denied", PermissionError(13, "Permission denied"))
    for layer, result in (
        (ToolErrorLayer(), Result("Error: 503", unavailable())),
        (ToolErrorLayer(auto_retry=3), failed),
    ):
        call, given = invoker(result, Result("paid"))
        assert run(layer, call) is result and len(given) == 1


def test_what_the_call_raises_itself_leaves_unretried() -> None:
    attempts: list[int] = []

    async def call() -> Result:
        attempts.append(1)
        raise unavailable()  # the framework's own error, not a failed result

    with pytest.raises(urllib.error.HTTPError):
        run(ToolErrorLayer(auto_retry=3), call)
    assert attempts == [1]
