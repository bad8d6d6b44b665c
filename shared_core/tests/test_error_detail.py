"""error_detail (issue 27, item 2): what the model is shown of a failure.

``full`` is the error text as before; ``safe`` the exception type and the safe structured
fields (HTTP status, error code, errno, Retry-After), none of the message's words; ``none``
the guidance alone. It governs the note (every form) and the failed result toolerr writes
(the kit's ``failure_of`` family) or shows (a rewrite).
"""

from __future__ import annotations

import email.message
import urllib.error
from typing import Any

import pytest
from toolerr import Message, Policy, ToolCall, ToolErrorLayer
from toolerr.adapters import failure_as, failure_of, plain_failure_of, shown_failure

WORDS = ("zebra-quartz", "vault-7731")
TRANSIENT_7 = "This is a temporary failure. Retrying the same call after 7 seconds is expected to succeed."
UNRECOVERABLE = "This cannot be fixed by retrying or by changing the arguments. Tell the user what happened."
PREFIX = "Note from the tool runtime: "


def http_error(status: int = 503, retry_after: str | None = "7") -> urllib.error.HTTPError:
    headers = email.message.Message()
    if retry_after is not None:
        headers["Retry-After"] = retry_after
    return urllib.error.HTTPError(
        "https://api.example.test/v1", status, f"upstream {WORDS[0]} {WORDS[1]} is down", headers, None
    )


class RateLimited(Exception):
    """An SDK-style error: status and a parsed JSON body as attributes."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.status_code = 429
        self.body = {"error": {"code": "rate_limit_exceeded", "message": message}}


def conversation(content: Any, exception: BaseException | None = None) -> list[Message]:
    return [
        Message("user", "Fetch it."),
        Message("assistant", "", tool_calls=(ToolCall("c0", "fetch", {"url": "https://x.test"}),)),
        Message("tool", content, tool_call_id="c0", name="fetch", exception=exception),
    ]


def shown(messages: list[Message]) -> str:
    return "\n".join(repr(m.content) for m in messages)


# -- the policy field ------------------------------------------------------------------------


def test_the_default_is_full_and_a_bad_value_is_refused_at_construction() -> None:
    assert Policy().error_detail == "full"
    assert Policy.coerce(error_detail="safe").error_detail == "safe"
    assert Policy.coerce(Policy(form="c1"), error_detail="none").error_detail == "none"
    with pytest.raises(ValueError, match="error_detail 'partial'; expected full, safe or none"):
        Policy(error_detail="partial")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="error_detail"):
        ToolErrorLayer(error_detail="FULL")  # type: ignore[arg-type]


def test_full_is_byte_identical_to_the_default() -> None:
    error = http_error()
    text = f"HTTPError: {error}"
    for form in ("c1", "c3", "c4", "abstract"):
        default = ToolErrorLayer(form=form).rewrite(conversation(text, error))
        full = ToolErrorLayer(form=form, error_detail="full").rewrite(conversation(text, error))
        assert [m.content for m in full.messages] == [m.content for m in default.messages]
        assert WORDS[0] in shown(full.messages)


# -- safe --------------------------------------------------------------------------------------


def test_safe_shows_the_type_the_status_and_the_wait_in_the_result_and_the_note() -> None:
    error = http_error()
    out = ToolErrorLayer(error_detail="safe").rewrite(conversation(f"HTTPError: {error}", error))
    assert out.changed
    summary = "HTTPError (HTTP status 503, Retry-After 7 seconds)"
    assert [m.content for m in out.messages[2:]] == [
        f"Error: {summary}",
        f'{PREFIX}the last attempt called fetch with url="https://x.test" and it failed with: {summary}'
        f"\n\n{TRANSIENT_7}",
    ]
    assert not any(word in shown(out.messages) for word in WORDS)
    [record] = out.records
    assert record.changed and record.kind == "transient"


def test_safe_reads_errno_and_error_codes_from_the_exception() -> None:
    refused = ConnectionRefusedError(111, f"Connection refused to {WORDS[0]}")
    out = ToolErrorLayer(error_detail="safe").rewrite(
        conversation(f"ConnectionRefusedError: {refused}", refused)
    )
    assert out.messages[2].content == "Error: ConnectionRefusedError (errno ECONNREFUSED)"
    limited = RateLimited(f"quota of {WORDS[1]} used up")
    out = ToolErrorLayer(error_detail="safe").rewrite(conversation(f"RateLimited: {limited}", limited))
    assert out.messages[2].content == "Error: RateLimited (HTTP status 429, error code rate_limit_exceeded)"
    assert not any(word in shown(out.messages) for word in WORDS)


def test_safe_on_a_text_the_tool_returned_keeps_only_the_status_and_the_wait() -> None:
    """No exception object: the type comes from a ``Type: message`` start (none here), the
    fields from the verdict of the text; the history (the input) keeps the tool's words."""
    text = f"HTTP 429 Too Many Requests: the quota of {WORDS[0]} is used up. Retry after 30 seconds."
    given = conversation(text)
    out = ToolErrorLayer(error_detail="safe").rewrite(given)
    assert out.messages[2].content == "Error: an error (HTTP status 429, Retry-After 30 seconds)"
    assert not any(word in shown(out.messages) for word in WORDS)
    assert given[2].content == text  # the input is never modified


def test_the_type_is_read_from_a_type_message_text() -> None:
    text = f"Error: PermissionError: [Errno 13] Permission denied: '/srv/{WORDS[0]}'"
    out = ToolErrorLayer(error_detail="safe").rewrite(conversation(text))
    assert out.messages[2].content.startswith("Error: PermissionError")
    assert WORDS[0] not in shown(out.messages)
    assert out.messages[3].content.endswith(UNRECOVERABLE)


def test_a_result_toolerr_already_wrote_is_shown_as_it_is() -> None:
    """The text ``failure_of`` wrote (kept in the framework's history) is its own summary:
    the rewrite leaves that message object as it is, and the note restates it exactly."""
    error = http_error()
    layer = ToolErrorLayer(error_detail="safe")
    text = failure_of(layer, error).text
    given = conversation(text)  # the history has lost the exception object
    out = layer.rewrite(given)
    assert out.messages[2] is given[2]
    assert out.messages[3].content.endswith(f"failed with: {text.removeprefix('Error: ')}\n\n{TRANSIENT_7}")


def test_content_blocks_become_one_text_block() -> None:
    blocks = [{"type": "text", "text": f"Error: ValueError: bad {WORDS[0]}"}]
    out = ToolErrorLayer(error_detail="safe", form="c1").rewrite(conversation(blocks, ValueError(WORDS[0])))
    content = out.messages[2].content
    assert isinstance(content, list) and content[0] == {"type": "text", "text": "Error: ValueError"}
    assert WORDS[0] not in shown(out.messages)


def test_an_exception_whose_str_raises_is_still_summarised() -> None:
    class Hostile(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no")

    layer = ToolErrorLayer(error_detail="safe")
    assert failure_of(layer, Hostile()).text == "Error: Hostile"


# -- none --------------------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["c3", "c4", "abstract"])
def test_none_shows_the_guidance_only(form: str) -> None:
    error = PermissionError(13, f"Permission denied: /srv/{WORDS[0]}")
    out = ToolErrorLayer(error_detail="none", form=form).rewrite(
        conversation(f"PermissionError: {error}", error)
    )
    text = shown(out.messages)
    assert "PermissionError" not in text and WORDS[0] not in text
    last = out.messages[-1].content
    assert last.endswith(f"\n\n{UNRECOVERABLE}")
    if form == "abstract":
        assert "Diagnosis" not in last
    else:
        assert "and it failed with: details withheld\n\n" in last
    if form == "c3":
        assert out.messages[2].content == "Error: details withheld"


# -- the kit: the failed result an adapter writes --------------------------------------------


def test_the_kit_writes_the_result_text_under_the_policy() -> None:
    error = http_error()
    for detail, expected in (
        ("safe", "Error: HTTPError (HTTP status 503, Retry-After 7 seconds)"),
        ("none", "Error: details withheld"),
    ):
        layer = ToolErrorLayer(error_detail=detail)  # type: ignore[arg-type]
        for failure in (
            failure_of(layer, error),
            plain_failure_of(layer, error),
            failure_as(layer, error, f"MCP error -32603: {error}"),
        ):
            assert failure.text == expected
            assert failure.verdict.kind == "transient" and failure.verdict.status == 503
        assert shown_failure(layer, error) == expected
    full = ToolErrorLayer()
    assert failure_of(full, error).text == f"HTTPError: {error}"
    assert failure_as(full, error, "as the protocol says").text == "as the protocol says"
    assert shown_failure(full, error) == f"Error: HTTPError: {error}"


def test_deliver_result_notes_follow_error_detail() -> None:
    error = http_error()
    layer = ToolErrorLayer(error_detail="safe")
    delivery = layer.deliver_result(
        "fetch", {"url": "u"}, f"HTTPError: {error}", exception=error, call_id="a"
    )
    assert delivery.note is not None and WORDS[0] not in delivery.note
    assert "HTTPError (HTTP status 503, Retry-After 7 seconds)" in delivery.note


def test_a_loop_note_restates_no_message() -> None:
    """A repeat's loop note names the tool and the kind, never the error text: the same
    under every error_detail."""
    error = PermissionError(13, f"denied {WORDS[0]}")
    text = f"PermissionError: {error}"
    messages = [
        *conversation(text, error),
        Message("assistant", "", tool_calls=(ToolCall("c1", "fetch", {"url": "https://x.test"}),)),
        Message("tool", text, tool_call_id="c1", name="fetch", exception=error),
    ]
    out = ToolErrorLayer(error_detail="safe").rewrite(messages)
    assert out.messages[-1].content.startswith(f"{PREFIX}fetch was already called with these arguments")
    assert WORDS[0] not in out.messages[-1].content
    assert out.messages[-2].content == "Error: PermissionError (errno EACCES)"
    # an earlier step's result is shown as the history keeps it (toolerr's adapters wrote
    # it safe already when the tool raised): the rewrite acts on the decision step
    assert out.messages[2] is messages[2]


@pytest.mark.parametrize("detail", ["safe", "none"])
def test_a_result_that_holds_its_summary_and_the_c1_guidance_is_left_as_it_is(detail: str) -> None:
    """C1 written into the history by a tool-time placement (the Agents SDK's failure
    function): the rewrite changes nothing, and the record says so."""
    error = PermissionError(13, f"denied {WORDS[0]}")
    layer = ToolErrorLayer(error_detail=detail, form="c1")  # type: ignore[arg-type]
    text = f"{failure_of(layer, error).text}\n{UNRECOVERABLE}"
    given = conversation(text)
    out = layer.rewrite(given)
    assert out.messages[2] is given[2] and not out.changed
    assert [r.changed for r in out.records] == [False]
