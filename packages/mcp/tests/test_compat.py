"""The SDK-difference layer and the neutral content toolerr reads."""

from __future__ import annotations

import pytest
from mcp import types
from pydantic import BaseModel, ValidationError
from toolerr_mcp import _compat as compat
from toolerr_mcp._recovery import describe_exception, neutral_content


def result(**fields: object) -> types.CallToolResult:
    return types.CallToolResult.model_validate(fields)


def test_is_error_reads_either_spelling() -> None:
    assert compat.is_error(result(content=[], isError=True))
    assert not compat.is_error(result(content=[]))
    assert not compat.is_error(object())


def test_result_with_keeps_everything_else() -> None:
    original = result(
        content=[{"type": "text", "text": "boom"}],
        structuredContent={"a": 1},
        isError=False,
        _meta={"trace": "t1"},
    )
    changed = compat.result_with(
        original, append=[compat.text_block("guidance")], failed=True, meta={"toolerr": {"kind": "fixable"}}
    )
    assert [block.text for block in changed.content] == ["boom", "guidance"]
    assert compat.is_error(changed)
    assert compat.structured_content(changed) == {"a": 1}
    assert changed.meta == {"trace": "t1", "toolerr": {"kind": "fixable"}}
    dumped = changed.model_dump(by_alias=True, mode="json", exclude_none=True)
    assert dumped["isError"] is True
    assert dumped["_meta"]["toolerr"] == {"kind": "fixable"}
    # the original is untouched
    assert len(original.content) == 1
    assert not compat.is_error(original)
    assert original.meta == {"trace": "t1"}


def test_error_result() -> None:
    made = compat.error_result("Error: x", meta={"k": 1})
    assert compat.is_error(made)
    assert made.content[0].text == "Error: x"
    assert made.meta == {"k": 1}


def test_mcp_error_and_code() -> None:
    error = compat.make_mcp_error(-32602, "Invalid params")
    assert isinstance(error, compat.MCP_ERROR)
    assert compat.error_code(error) == -32602
    assert describe_exception(error) == "MCP error -32602: Invalid params"
    assert compat.error_code(ValueError("x")) is None


def test_describe_exception() -> None:
    assert describe_exception(TimeoutError()) == "TimeoutError"
    assert describe_exception(OSError("pipe")) == "OSError: pipe"

    class Model(BaseModel):
        x: int

    with pytest.raises(ValidationError) as caught:
        Model.model_validate({"x": "no"})
    assert describe_exception(caught.value).startswith(
        "Error: the MCP server returned a result that is not valid:"
    )


def test_read_timeout_matches_the_sdk() -> None:
    assert compat.read_timeout(None) is None
    value = compat.read_timeout(1.5)
    seconds = value if isinstance(value, float) else value.total_seconds()
    assert seconds == 1.5
    assert isinstance(value, float) == (compat.MCP_MAJOR >= 2)


def test_neutral_content_reads_text_and_describes_the_rest() -> None:
    blocks = result(
        content=[
            {"type": "text", "text": "Error: boom"},
            {"type": "image", "data": "AAAA" * 1000, "mimeType": "image/png"},
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "inside"}},
            {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AAAA"}},
            {"type": "resource_link", "uri": "file:///c.txt", "name": "c"},
        ]
    ).content
    assert neutral_content(blocks) == [
        {"type": "text", "text": "Error: boom"},
        {"type": "image", "mime_type": "image/png"},
        {"type": "audio", "mime_type": "audio/wav"},
        {"type": "resource", "uri": "file:///a.txt", "text": "inside"},
        {"type": "resource", "uri": "file:///b.bin"},
        {"type": "resource_link", "uri": "file:///c.txt"},
    ]
    assert neutral_content(None) == []
