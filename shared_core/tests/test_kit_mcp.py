"""The kit's additions for toolerr-mcp: failure_as (a failure whose text the protocol fixes)."""

from __future__ import annotations

from toolerr import ToolErrorLayer
from toolerr.adapters import failure_as


class RPCError(Exception):
    """A JSON-RPC error as an SDK raises it."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def test_failure_as_keeps_the_protocols_text_and_classifies_once_from_the_object() -> None:
    layer = ToolErrorLayer(max_error_chars=100)
    error = ConnectionRefusedError(111, "Connection refused")
    text = "Error: toolerr-mcp proxy: the upstream MCP server could not be started  " + "x" * 120
    failure = failure_as(layer, error, text, tool="search")
    assert failure.text == text  # as the protocol renders it: not cleaned nor capped
    assert failure.verdict == layer.inspect_exception(error, text=text, tool="search")
    assert failure.verdict.failed and failure.verdict.kind == "transient"


def test_failure_as_reads_the_given_text() -> None:
    layer = ToolErrorLayer()
    failure = failure_as(layer, RPCError(-32602, "Invalid params"), "MCP error -32602: Invalid params")
    assert failure.text == "MCP error -32602: Invalid params"
    assert failure.verdict.failed and failure.verdict.kind == "fixable"
