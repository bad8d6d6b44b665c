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


# -- rate-limit reset headers (read for a 429, or a 403 that a remaining-0 header makes a
# rate limit, where no Retry-After is given) ----------------------------------------------


def _wait(status: int, headers: dict[str, str]) -> float | None:
    verdict = inspect_result(f"HTTP {status}", is_error=True, exception=_http_error(status, headers))
    assert verdict.kind == "transient"
    return verdict.retry_after


def test_openai_reset_headers_give_the_wait_of_the_limit_that_is_used_up() -> None:
    headers = {
        "x-ratelimit-remaining-requests": "0",
        "x-ratelimit-reset-requests": "6m0s",
        "x-ratelimit-remaining-tokens": "1200",
        "x-ratelimit-reset-tokens": "20ms",
    }
    assert _wait(429, headers) == 360.0
    headers["x-ratelimit-remaining-requests"] = "3"  # none says 0: the latest reset of those named
    assert _wait(429, headers) == 360.0
    verdict = inspect_result("HTTP 429", is_error=True, exception=_http_error(429, headers))
    assert guidance_for(verdict.kind, verdict) == (
        "This is a temporary failure. Retrying the same call after 360 seconds is expected to succeed."
    )


def test_anthropic_reset_headers_are_dates() -> None:
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 30))
    wait = _wait(429, {"anthropic-ratelimit-tokens-remaining": "0", "anthropic-ratelimit-tokens-reset": when})
    assert wait is not None and 25 <= wait <= 31


def test_githubs_403_with_remaining_0_waits_for_its_unix_reset_time() -> None:
    reset = str(int(time.time()) + 60)
    wait = _wait(403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset})
    assert wait is not None and 55 <= wait <= 61


def test_the_ietf_draft_header_is_seconds() -> None:
    assert _wait(429, {"ratelimit-reset": "12", "ratelimit-remaining": "0"}) == 12.0


def test_retry_after_wins_over_a_reset_header() -> None:
    assert _wait(429, {"Retry-After": "7", "x-ratelimit-reset-requests": "10m"}) == 7.0


def test_reset_headers_of_a_response_that_is_no_rate_limit_give_no_wait() -> None:
    """Services send the reset headers on every response: a 503, or a 403 whose limit is
    not used up, is not told to wait for them."""
    assert _wait(503, {"x-ratelimit-reset-requests": "6m0s", "ratelimit-reset": "12"}) is None
    verdict = inspect_result(
        "HTTP 403",
        is_error=True,
        exception=_http_error(403, {"x-ratelimit-remaining": "4999", "x-ratelimit-reset": "1900000000"}),
    )
    assert verdict.kind == "unrecoverable" and verdict.retry_after is None


@pytest.mark.parametrize(
    ("value", "form", "seconds"),
    [
        ("1h2m3.5s", "duration", 3723.5),
        ("20ms", "duration", 0.02),
        ("6m0s", "duration", 360.0),
        ("soon", "duration", None),
        ("6m later", "duration", None),
        ("12", "seconds", 12.0),
        ("-4", "seconds", 0.0),
        ("nan", "seconds", None),
        ("2020-01-01T00:00:00Z", "date", 0.0),
        ("not a date", "date", None),
        ("30", "seconds_or_epoch", 30.0),
    ],
)
def test_reset_values_are_read_by_their_form(value: str, form: str, seconds: float | None) -> None:
    from toolerr._exceptions import parse_reset

    assert parse_reset(value, form) == seconds


@pytest.mark.enable_socket  # the core suite runs with sockets disabled: this one serves 127.0.0.1
def test_a_live_429_from_a_local_server_with_openai_headers() -> None:
    """urllib against a real 127.0.0.1 server answering as OpenAI does when the requests
    limit is used up (no Retry-After)."""
    import http.server
    import threading
    import urllib.request

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b'{"error": {"message": "Rate limit reached for requests", "type": "requests"}}'
            self.send_response(429)
            self.send_header("x-ratelimit-remaining-requests", "0")
            self.send_header("x-ratelimit-reset-requests", "1m30s")
            self.send_header("x-ratelimit-remaining-tokens", "39000")
            self.send_header("x-ratelimit-reset-tokens", "150ms")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(f"http://127.0.0.1:{server.server_address[1]}/v1/chat", timeout=5)
        verdict = inspect_result(f"HTTPError: {caught.value}", is_error=True, exception=caught.value)
        caught.value.close()
    finally:
        server.shutdown()
        server.server_close()
    assert verdict.kind == "transient" and verdict.retry_after == 90.0
    assert guidance_for(verdict.kind, verdict) == (
        "This is a temporary failure. Retrying the same call after 90 seconds is expected to succeed."
    )
