"""Hidden retries (``auto_retry``, ``max_wait``; issue 27 item 4): the kit's
``call_with_retries`` and ``acall_with_retries`` with real exceptions and an injected
sleep (nothing sleeps here)."""

from __future__ import annotations

import asyncio
import email.message
import urllib.error
from collections.abc import Callable

import pytest
from toolerr import DetectionRecord, Policy, ToolErrorLayer, Verdict
from toolerr._kit_retry import BACKOFF_BASE
from toolerr.adapters import acall_with_retries, call_with_retries, hidden_retries_of


def http_error(status: int, reason: str, retry_after: str | None = None) -> urllib.error.HTTPError:
    headers = email.message.Message()
    if retry_after is not None:
        headers["Retry-After"] = retry_after
    return urllib.error.HTTPError("http://127.0.0.1:8080/pay", status, reason, headers, None)


def failing(*errors: BaseException, result: str = "ok") -> tuple[Callable[[], str], list[int]]:
    """A call that raises ``errors`` in turn, then returns ``result``; and its attempts."""
    pending = list(errors)
    attempts: list[int] = []

    def call() -> str:
        attempts.append(1)
        if pending:
            raise pending.pop(0)
        return result

    return call, attempts


def unavailable() -> urllib.error.HTTPError:
    return http_error(503, "Service Unavailable")


def test_auto_retry_zero_runs_the_call_once() -> None:
    waits: list[float] = []
    call, attempts = failing(unavailable())
    with pytest.raises(urllib.error.HTTPError):
        call_with_retries(ToolErrorLayer(), "pay", call, sleep=waits.append)
    assert (len(attempts), waits) == (1, [])


def test_a_turned_away_call_is_rerun_with_backoff() -> None:
    waits: list[float] = []
    call, attempts = failing(unavailable(), unavailable())
    assert call_with_retries(ToolErrorLayer(auto_retry=2), "pay", call, sleep=waits.append) == "ok"
    assert len(attempts) == 3
    assert len(waits) == 2
    assert BACKOFF_BASE / 2 <= waits[0] <= BACKOFF_BASE
    assert BACKOFF_BASE <= waits[1] <= 2 * BACKOFF_BASE


def test_backoff_is_capped_at_max_wait() -> None:
    waits: list[float] = []
    call, _ = failing(*(unavailable() for _ in range(6)))
    call_with_retries(ToolErrorLayer(auto_retry=6, max_wait=1), "pay", call, sleep=waits.append)
    assert len(waits) == 6 and max(waits) <= 1


@pytest.mark.parametrize("error", [ConnectionRefusedError(111, "Connection refused"), http_error(429, "x")])
def test_other_turned_away_failures_are_rerun(error: BaseException) -> None:
    call, attempts = failing(error)
    assert call_with_retries(ToolErrorLayer(auto_retry=1), "pay", call, sleep=lambda _: None) == "ok"
    assert len(attempts) == 2


def test_retry_after_is_honoured_up_to_max_wait() -> None:
    waits: list[float] = []
    call, attempts = failing(http_error(429, "Too Many Requests", "7"))
    call_with_retries(ToolErrorLayer(auto_retry=1), "pay", call, sleep=waits.append)
    assert (len(attempts), waits) == (2, [7.0])
    call, attempts = failing(http_error(429, "Too Many Requests", "45"))
    with pytest.raises(urllib.error.HTTPError) as raised:
        call_with_retries(ToolErrorLayer(auto_retry=1), "pay", call, sleep=waits.append)
    assert (len(attempts), waits) == (1, [7.0])  # 45 s > max_wait 30: the model is told
    assert hidden_retries_of(raised.value) == 0
    call, attempts = failing(http_error(429, "Too Many Requests", "45"))
    call_with_retries(ToolErrorLayer(auto_retry=1, max_wait=60), "pay", call, sleep=waits.append)
    assert waits[-1] == 45.0


def test_an_unknown_outcome_is_rerun_only_for_a_declared_tool() -> None:
    call, attempts = failing(TimeoutError("timed out"))
    with pytest.raises(TimeoutError):
        call_with_retries(ToolErrorLayer(auto_retry=2), "pay", call, sleep=lambda _: None)
    assert len(attempts) == 1
    for safety in ("read_only", "idempotent"):
        layer = ToolErrorLayer(auto_retry=2, tool_safety={"pay": safety})  # type: ignore[dict-item]
        call, attempts = failing(TimeoutError("timed out"))
        assert call_with_retries(layer, "pay", call, sleep=lambda _: None) == "ok"
        assert len(attempts) == 2


@pytest.mark.parametrize(
    "error",
    [PermissionError(13, "Permission denied"), ValueError("amount must be positive"), http_error(404, "x")],
)
def test_a_permanent_or_fixable_failure_is_never_rerun(error: BaseException) -> None:
    call, attempts = failing(error)
    with pytest.raises(type(error)):
        call_with_retries(ToolErrorLayer(auto_retry=3), "pay", call, sleep=lambda _: None)
    assert len(attempts) == 1


def test_never_rerun_a_frameworks_own_signal() -> None:
    class Interrupt(ConnectionRefusedError):
        pass

    call, attempts = failing(Interrupt(111, "Connection refused"))
    with pytest.raises(Interrupt):
        call_with_retries(ToolErrorLayer(auto_retry=3), "pay", call, sleep=lambda _: None, never=(Interrupt,))
    assert len(attempts) == 1


def test_the_last_failure_counts_its_hidden_retries_in_verdict_record_and_ledger() -> None:
    layer = ToolErrorLayer(auto_retry=2)
    errors = [unavailable() for _ in range(3)]
    call, _ = failing(*errors)
    with pytest.raises(urllib.error.HTTPError) as raised:
        call_with_retries(layer, "pay", call, sleep=lambda _: None)
    assert raised.value is errors[-1]
    assert [hidden_retries_of(e) for e in errors] == [0, 0, 2]
    verdict = layer.inspect_exception(raised.value, tool="pay")
    assert verdict.hidden_retries == 2 and verdict == Verdict(**{**verdict.__dict__, "hidden_retries": 0})
    assert verdict.to_dict()["hidden_retries"] == 2
    assert Verdict.from_dict(verdict.to_dict()).hidden_retries == 2
    run = object()
    delivery = layer.deliver_result(
        "pay",
        {"amount": 5},
        str(raised.value),
        exception=raised.value,
        call_id="c1",
        run=run,
        verdict=verdict,
    )
    assert delivery.record is not None
    assert delivery.record.hidden_retries == 2
    data = delivery.record.to_dict()
    assert data["hidden_retries"] == 2 and DetectionRecord.from_dict(data).hidden_retries == 2
    assert delivery.report is not None
    # the run's ledger counts the three attempts
    ledger = layer._runs.get(run).run_ledger(layer.policy.retry_budget)  # type: ignore[union-attr]
    assert [(f.name, f.count) for f in ledger.failures] == [("pay", 3)]


class Wrapped(RuntimeError):
    """A framework's wrapper around what its tool raised."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__("tool failed")
        self.cause = cause


def test_hidden_retries_are_kept_with_the_cause_behind_a_wrapper() -> None:
    layer = ToolErrorLayer(auto_retry=2)
    causes = [unavailable() for _ in range(3)]
    call, _ = failing(*(Wrapped(c) for c in causes))

    def unwrap(error: BaseException) -> BaseException | None:
        return error.cause if isinstance(error, Wrapped) else None

    with pytest.raises(Wrapped) as raised:
        call_with_retries(layer, "pay", call, sleep=lambda _: None, unwrap=unwrap)
    assert (hidden_retries_of(raised.value), [hidden_retries_of(c) for c in causes]) == (2, [0, 0, 2])
    # classifying the tool's own exception (what adapters do) carries them
    assert layer.inspect_exception(raised.value.cause, tool="pay").hidden_retries == 2


def test_a_record_without_hidden_retries_has_no_such_key() -> None:
    delivery = ToolErrorLayer().deliver_result("pay", {}, "Error: HTTP 503 Service Unavailable", call_id="a")
    assert delivery.record is not None
    assert "hidden_retries" not in delivery.record.to_dict()
    assert "hidden_retries" not in delivery.verdict.to_dict()


def test_the_async_twin() -> None:
    waits: list[float] = []

    async def asleep(seconds: float) -> None:
        waits.append(seconds)

    errors = [unavailable(), unavailable()]

    async def call() -> str:
        if errors:
            raise errors.pop(0)
        return "ok"

    layer = ToolErrorLayer(auto_retry=2)
    assert asyncio.run(acall_with_retries(layer, "pay", call, sleep=asleep)) == "ok"
    assert len(waits) == 2
    timeouts = [TimeoutError("timed out")]

    async def timing_out() -> str:
        raise timeouts[0]

    with pytest.raises(TimeoutError):
        asyncio.run(acall_with_retries(layer, "pay", timing_out, sleep=asleep))
    assert len(waits) == 2


def test_a_failure_of_toolerr_itself_gives_the_failure_to_the_model(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    layer = ToolErrorLayer(auto_retry=2)

    def broken(*args: object, **kwargs: object) -> Verdict:
        raise RuntimeError("classifier broke")

    monkeypatch.setattr(layer, "inspect_exception", broken)
    call, attempts = failing(unavailable())
    with pytest.raises(urllib.error.HTTPError):
        call_with_retries(layer, "pay", call, sleep=lambda _: None)
    assert len(attempts) == 1
    assert any("hidden retry" in r.getMessage() for r in caplog.records if r.levelname == "WARNING")


@pytest.mark.parametrize(
    ("option", "value"), [("auto_retry", -1), ("auto_retry", True), ("max_wait", -1), ("max_wait", "30")]
)
def test_bad_options_are_refused_at_construction(option: str, value: object) -> None:
    with pytest.raises(ValueError, match=option):
        Policy(**{option: value})  # type: ignore[arg-type]


def test_defaults() -> None:
    policy = Policy()
    assert (policy.auto_retry, policy.max_wait, policy.idempotency_guard) == (0, 30.0, True)


@pytest.mark.parametrize(
    "make", [lambda: ConnectionRefusedError(111, "Connection refused"), lambda: TimeoutError("timed out")]
)
def test_a_builtin_exception_keeps_its_hidden_retries(make: Callable[[], BaseException]) -> None:
    """Built-in exceptions cannot be referred to weakly: their count is kept all the same
    (a read timeout of a tool declared idempotent, a refused connection), in the verdict."""
    layer = ToolErrorLayer(auto_retry=2, tool_safety={"pay": "idempotent"})
    errors = [make() for _ in range(3)]
    call, attempts = failing(*errors)
    with pytest.raises(type(errors[0])) as raised:
        call_with_retries(layer, "pay", call, sleep=lambda _: None)
    assert len(attempts) == 3 and raised.value is errors[-1]
    assert [hidden_retries_of(e) for e in errors] == [0, 0, 2]
    assert layer.inspect_exception(raised.value, tool="pay").hidden_retries == 2
