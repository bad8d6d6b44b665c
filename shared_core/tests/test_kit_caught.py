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
from toolerr import ToolErrorLayer, Verdict
from toolerr.adapters import (
    ResultFailure,
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


def test_a_failed_result_without_an_exception_is_rerun_by_its_verdict(no_sleeping: list[float]) -> None:
    """A result the adapter classified (an MCP ``isError`` result): its verdict decides as it
    stands, the text is not classified again; the hidden retries are kept with the last one."""
    turned_away = Verdict(
        failed=True, kind="transient", rule="http:503", outcome="not_executed", retry_after=2.0
    )
    unknown = dataclasses.replace(turned_away, rule="words:transient:timed out", outcome="unknown_outcome")
    denied = Verdict(failed=True, kind="unrecoverable", rule="http:403")
    for verdict, runs, waits in ((turned_away, 3, [2.0, 2.0]), (unknown, 1, []), (denied, 1, [])):
        failures = [ResultFailure(verdict) for _ in range(3)]
        no_sleeping.clear()
        call, given = invoker(*(Result("ok, no error words", failure) for failure in failures))
        assert run(ToolErrorLayer(auto_retry=2), call) is given[-1]
        assert (len(given), no_sleeping) == (runs, waits)
        assert hidden_retries_of(failures[runs - 1]) == runs - 1
    call, given = invoker(Result("", ResultFailure(unknown)), Result("paid"))
    assert run(ToolErrorLayer(auto_retry=2, tool_safety={"pay": "idempotent"}), call) == Result("paid")
    assert len(given) == 2
