"""``remember_hidden_retries``: the verdict remembered for a failed result the framework
made of a tool's last exception, remembered again with the hidden retries before it."""

from __future__ import annotations

import email.message
import logging
import urllib.error

import pytest
from toolerr import ToolErrorLayer, Verdict
from toolerr.adapters import call_with_retries, failure_of, remember_hidden_retries


def unavailable() -> urllib.error.HTTPError:
    headers = email.message.Message()
    return urllib.error.HTTPError("http://127.0.0.1:8080/pay", 503, "Service Unavailable", headers, None)


def last_error(layer: ToolErrorLayer, attempts: int) -> BaseException:
    """What the last of ``attempts`` failing attempts raised (``auto_retry`` re-ran it)."""
    pending = [unavailable() for _ in range(attempts)]

    def call() -> None:
        raise pending.pop(0)

    with pytest.raises(urllib.error.HTTPError) as raised:
        call_with_retries(layer, "pay", call, sleep=lambda _: None)
    return raised.value


def test_the_remembered_verdict_counts_the_hidden_retries() -> None:
    layer, run = ToolErrorLayer(auto_retry=2), object()
    error = last_error(layer, 3)
    verdict = Verdict(failed=True, kind="transient", rule="http:503")
    layer.remember("c1", verdict, content="Error: the payment failed", run=run)

    remember_hidden_retries(layer, "c1", "Error: the payment failed", error, run=run)

    counted = layer.recall("c1", "Error: the payment failed", run=run)
    assert counted is not None and counted.hidden_retries == 2
    assert counted == Verdict(failed=True, kind="transient", rule="http:503", hidden_retries=2)
    assert layer.recall("c1", "Error: the payment failed", run=object()) is None  # its run only


def test_nothing_without_hidden_retries_or_a_verdict(caplog: pytest.LogCaptureFixture) -> None:
    layer, run = ToolErrorLayer(auto_retry=2), object()
    once = last_error(ToolErrorLayer(), 1)  # auto_retry 0: no hidden retry
    verdict = failure_of(layer, once, tool="pay").verdict
    layer.remember("c1", verdict, content="shown", run=run)
    remember_hidden_retries(layer, "c1", "shown", once, run=run)
    assert layer.recall("c1", "shown", run=run) is verdict  # unchanged

    with caplog.at_level(logging.WARNING, logger="toolerr"):
        remember_hidden_retries(layer, "c2", "other", last_error(layer, 3), run=run)
    assert layer.recall("c2", "other", run=run) is None  # no verdict kept: none is made
    assert not caplog.records


def test_fails_open(caplog: pytest.LogCaptureFixture) -> None:
    class Broken(ToolErrorLayer):
        def recall(self, *args: object, **kwargs: object) -> None:
            raise RuntimeError("boom")

    layer = Broken(auto_retry=2)
    with caplog.at_level(logging.WARNING, logger="toolerr"):
        remember_hidden_retries(layer, "c1", "shown", last_error(layer, 3))
    assert "counting the hidden retries of a tool call failed" in caplog.text
