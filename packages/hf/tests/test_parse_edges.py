"""What a model may write that the parser must survive: it reports an unreadable call as
invalid (the reply goes on to the agent) and never raises into the user's loop; a call it
returns has arguments that are JSON (the next turn renders them, a framework runs them)."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from toolerr_hf import HermesFormat

FORMAT = HermesFormat()


@pytest.mark.parametrize(
    "body",
    [
        "[" * 1500,  # a small model that loops on one bracket token
        '{"name": "f", "arguments": ' + '{"a": ' * 1500,
        '{"name": "f", "arguments": {"n": ' + "9" * 5000 + "}}",  # past int's digit limit
    ],
    ids=["brackets", "objects", "digits"],
)
@pytest.mark.parametrize("complete", [True, False])
def test_a_call_the_decoder_cannot_read_is_invalid_not_an_exception(
    body: str, complete: bool, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="toolerr")
    text = f"Checking.\n<tool_call>\n{body}\n</tool_call>"
    out = FORMAT.parse(text, ["f"], complete=complete)
    assert out.calls == () and out.content == "Checking." and out.text == text
    (bad,) = out.invalid
    assert bad.text == body.strip() and bad.error
    # the same as a whole reply without markers (the bare-JSON path)
    assert FORMAT.parse(body, ["f"]).calls == ()
    assert caplog.records == []


def test_brackets_inside_a_string_before_the_arguments_are_text() -> None:
    body = json.dumps({"name": "f", "note": "args: " + "[" * 1500, "arguments": {"q": 1}})
    (call,) = FORMAT.parse(f"<tool_call>\n{body}\n</tool_call>").calls
    assert call.arguments == {"q": 1} and call.raw_arguments == '{"q": 1}'


@pytest.mark.parametrize(
    ("literal", "expected"),
    [
        ("{'name': 'f', 'arguments': {'at': (1, 2)}}", {"at": [1, 2]}),
        ("{'name': 'f', 'arguments': {1: 'one'}}", {"1": "one"}),
        ("{'name': 'f', 'arguments': {'b': b'raw'}}", None),
        ("{'name': 'f', 'arguments': {(1, 2): 3}}", None),
        ("{'name': 'f', 'arguments': {'z': 1j}}", None),
        ("{'name': 'f', 'arguments': {'s': {1, 2}}}", None),
    ],
)
def test_python_literal_arguments_are_taken_only_as_json(literal: str, expected: Any) -> None:
    out = FORMAT.parse(f"<tool_call>\n{literal}\n</tool_call>")
    if expected is None:
        assert out.calls == ()
        (bad,) = out.invalid
        assert "JSON" in bad.error
        return
    (call,) = out.calls
    assert call.arguments == expected
    # what the next turn shows and a framework passes on
    assert json.loads(json.dumps(call.arguments)) == expected
    assert FORMAT.call_text(call.name, call.arguments).startswith('{"name": "f", "arguments": ')
