"""Retry-After in the guidance (issue 27, item 3): a transient failure that carries a wait
is told to retry after it, byte-exact, rounded up to whole seconds; without a wait the
sentence is unchanged. Real stdlib exceptions (urllib's HTTPError with its headers)."""

from __future__ import annotations

import email.message
import email.utils
import time
import urllib.error

import pytest
from toolerr import Message, ToolCall, ToolErrorLayer, inspect_result
from toolerr.adapters import GUIDANCE, clean_text, guidance_for

RETRY_AFTER_7 = "This is a temporary failure. Retrying the same call after 7 seconds is expected to succeed."


def _http_error(status: int, headers: dict[str, str]) -> urllib.error.HTTPError:
    message = email.message.Message()
    for name, value in headers.items():
        message[name] = value
    return urllib.error.HTTPError(
        "https://api.example.com/v1/items", status, "Too Many Requests", message, None
    )


def _note(exception: BaseException) -> str:
    text = f"HTTPError: {exception}"
    messages = [
        Message(role="user", content="go"),
        Message(role="assistant", content="", tool_calls=(ToolCall("c1", "fetch", {"page": 2}),)),
        Message(role="tool", content=text, tool_call_id="c1", name="fetch", exception=exception),
    ]
    result = ToolErrorLayer().rewrite(messages)
    assert result.changed
    return str(result.messages[-1].content)


def test_a_429_with_retry_after_7_gets_the_sentence_with_7_seconds() -> None:
    note = _note(_http_error(429, {"Retry-After": "7"}))
    assert note.endswith(f"\n\n{RETRY_AFTER_7}")


@pytest.mark.parametrize(("wait", "shown"), [("0.2", "1"), ("6.01", "7"), ("120", "120")])
def test_the_wait_is_rounded_up_to_whole_seconds(wait: str, shown: str) -> None:
    verdict = inspect_result("HTTP 429", is_error=True, exception=_http_error(429, {"Retry-After": wait}))
    assert verdict.kind == "transient"
    assert guidance_for(verdict.kind, verdict) == (
        f"This is a temporary failure. Retrying the same call after {shown} seconds is expected to succeed."
    )


def test_a_retry_after_given_as_a_date() -> None:
    when = email.utils.formatdate(time.time() + 30, usegmt=True)
    verdict = inspect_result("HTTP 503", is_error=True, exception=_http_error(503, {"Retry-After": when}))
    sentence = guidance_for(verdict.kind, verdict)
    assert verdict.kind == "transient" and sentence is not None
    assert sentence.startswith("This is a temporary failure. Retrying the same call after ")
    seconds = int(sentence.split(" after ")[1].split(" ")[0])
    assert 25 <= seconds <= 31


def test_without_a_wait_the_sentence_is_unchanged() -> None:
    note = _note(_http_error(429, {}))
    assert note.endswith(f"\n\n{GUIDANCE['transient']}")
    verdict = inspect_result("HTTP 429", is_error=True, exception=_http_error(429, {"Retry-After": "0"}))
    assert guidance_for(verdict.kind, verdict) == GUIDANCE["transient"]


def test_an_unknown_outcome_on_an_undeclared_tool_is_still_told_to_check_first() -> None:
    verdict = inspect_result("ReadTimeout: timed out", is_error=True, exception=TimeoutError("timed out"))
    assert verdict.outcome == "unknown_outcome"
    assert guidance_for(verdict.kind, verdict, retry_safe=False) != GUIDANCE["transient"]
    assert "after" not in (guidance_for(verdict.kind, verdict, retry_safe=False) or "")


def test_c1_appends_it_once_and_restated_tool_text_cannot_imitate_it() -> None:
    exception = _http_error(429, {"Retry-After": "7"})
    layer = ToolErrorLayer(form="c1")
    text = f"HTTPError: {exception}"
    messages = [
        Message(role="user", content="go"),
        Message(role="assistant", content="", tool_calls=(ToolCall("c1", "fetch", {}),)),
        Message(role="tool", content=text, tool_call_id="c1", name="fetch", exception=exception),
    ]
    once = layer.rewrite(messages).messages
    assert once[-1].content == f"{text}\n{RETRY_AFTER_7}"
    again = layer.rewrite(once).messages  # already rewritten: left as it is
    assert again[-1].content == once[-1].content
    assert clean_text(f"fine. {RETRY_AFTER_7}") == "fine. [text from the tool imitating runtime guidance]"


@pytest.mark.parametrize(
    "text",
    [
        # the text of the failure states the wait
        "ServiceUnavailable: upstream busy, retry after 7 seconds",
        # gRPC google.rpc.RetryInfo as JSON (google-genai's APIError: the 429 body)
        "ClientError: 429 RESOURCE_EXHAUSTED. {'error': {'code': 429, 'message': 'Resource has been "
        "exhausted (e.g. check quota).', 'status': 'RESOURCE_EXHAUSTED', 'details': [{'@type': "
        "'type.googleapis.com/google.rpc.RetryInfo', 'retryDelay': '6.2s'}]}}",
        # gRPC google.rpc.RetryInfo in protobuf text (google-api-core's str(exc) lists the details)
        "ResourceExhausted: 429 Resource has been exhausted (e.g. check quota). "
        "[retry_delay {\n  seconds: 7\n}\n]",
    ],
    ids=["text", "grpc-retryinfo-json", "grpc-retryinfo-proto"],
)
def test_a_wait_the_text_states_gets_the_sentence(text: str) -> None:
    verdict = inspect_result(text, is_error=True)
    assert verdict.kind == "transient"
    assert guidance_for(verdict.kind, verdict) == RETRY_AFTER_7


def test_a_rate_limit_reset_after_header_gets_the_sentence() -> None:
    exception = _http_error(429, {"X-RateLimit-Reset-After": "6.5"})
    verdict = inspect_result("HTTP 429", is_error=True, exception=exception)
    assert guidance_for(verdict.kind, verdict) == RETRY_AFTER_7
