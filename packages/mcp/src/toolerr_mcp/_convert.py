"""MCP objects and what the layer reads: a result's content blocks as neutral content, a
failed call's exception as the text its result carries."""

from __future__ import annotations

from typing import Any

import anyio
from pydantic import ValidationError

from . import _compat

CONNECTION_CLOSED = -32000
"""The SDK's JSON-RPC error code for a connection that ended."""

_STREAM_ERRORS = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream)


def evidence(exc: BaseException) -> BaseException:
    """mcp 1.x raises anyio's stream errors where 2.x raises its ``CONNECTION_CLOSED``
    error: the same evidence, as the 2.x error (the original as its cause)."""
    if not isinstance(exc, _STREAM_ERRORS):
        return exc
    closed = _compat.make_mcp_error(CONNECTION_CLOSED, f"Connection closed ({type(exc).__name__})")
    closed.__cause__ = exc
    return closed


def describe_exception(exc: BaseException) -> str:
    """The text a failed call's result carries for an exception: ``MCP error -32602: ...``
    for a JSON-RPC error (the form the TypeScript SDK uses), ``Name: message`` otherwise."""
    given = getattr(exc, "tool_result_text", None)
    if isinstance(given, str) and given:
        return given
    code = _compat.error_code(exc)
    message = _compat.error_message(exc).strip()
    if code is not None:
        return f"MCP error {code}: {message}" if message else f"MCP error {code}"
    if isinstance(exc, ValidationError):
        return f"Error: the MCP server returned a result that is not valid: {message}"
    name = type(exc).__name__
    return f"{name}: {message}" if message else name


def neutral_content(content: Any, *, resource_text: bool = True) -> list[dict[str, Any]]:
    """MCP content blocks as the neutral content toolerr reads: text as text; images,
    audio and binary resources as a short description (their data is not error text).
    ``resource_text``: whether an embedded text resource's text is read too (only for a
    result the server flagged as an error: in a success it is the data the tool returned,
    a file or a log, not an error message)."""
    blocks: list[dict[str, Any]] = []
    for block in content or ():
        kind = getattr(block, "type", None)
        text = getattr(block, "text", None)
        if kind == "text" and isinstance(text, str):
            blocks.append({"type": "text", "text": text})
            continue
        resource = getattr(block, "resource", None)
        if resource is not None:
            entry: dict[str, Any] = {"type": "resource", "uri": str(getattr(resource, "uri", ""))}
            data = getattr(resource, "text", None)
            if resource_text and isinstance(data, str):
                entry["text"] = data
            blocks.append(entry)
            continue
        entry = {"type": str(kind or type(block).__name__)}
        mime = _compat.field(block, "mime_type", "mimeType")
        if isinstance(mime, str):
            entry["mime_type"] = mime
        uri = getattr(block, "uri", None)
        if uri is not None:
            entry["uri"] = str(uri)
        blocks.append(entry)
    return blocks
