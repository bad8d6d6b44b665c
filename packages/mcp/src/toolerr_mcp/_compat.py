"""The differences between the MCP Python SDK majors (1.x and 2.x), in one place.

1.x spells result fields in camelCase (``isError``, ``structuredContent``,
``nextCursor``), raises ``McpError(ErrorData)``, takes read timeouts as ``timedelta``
and registers low-level server handlers in ``Server.request_handlers``. 2.x spells them
in snake_case, raises ``MCPError(code, message)``, takes seconds as ``float`` and takes
``on_*`` handlers in the ``Server`` constructor. Everything else in this package goes
through the functions below; version-specific names are looked up at run time so the
package type-checks against either major.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from datetime import timedelta
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from mcp import types
from toolerr.adapters import ConversionCache, exception_text

__all__ = [
    "MCP_ERROR",
    "MCP_MAJOR",
    "CallToolResult",
    "ListToolsResult",
    "Tool",
    "error_code",
    "is_error",
    "make_mcp_error",
    "next_cursor",
    "paginated",
    "read_timeout",
    "result_with",
    "text_block",
]

MAX_PAGES = 100
"""The most pages of a tool listing read (a server whose cursors never end)."""

CallToolResult = types.CallToolResult
ListToolsResult = types.ListToolsResult
Tool = types.Tool


def _major() -> int:
    try:
        return int(version("mcp").split(".", 1)[0])
    except (PackageNotFoundError, ValueError):  # a vendored or odd install: probe the API instead
        return 2 if "is_error" in types.CallToolResult.model_fields else 1


MCP_MAJOR: int = _major()
"""The installed SDK's major version (1 or 2)."""

_exceptions = importlib.import_module("mcp.shared.exceptions")
MCP_ERROR: type[Exception] = getattr(_exceptions, "MCPError", None) or _exceptions.McpError
"""The exception a client raises for a JSON-RPC error response, a read timeout or a
closed connection (``MCPError`` in 2.x, ``McpError`` in 1.x)."""

_IS_ERROR = "is_error" if "is_error" in types.CallToolResult.model_fields else "isError"


def field(obj: Any, snake: str, camel: str) -> Any:
    """A field read by the name the object's model declares (``None`` when absent).

    The other spelling is never read from an SDK model: FastMCP, once imported, adds
    camelCase properties to mcp 2.x models that warn (``FastMCPDeprecationWarning``)."""
    fields = getattr(type(obj), "model_fields", None)
    if isinstance(fields, Mapping):
        if snake in fields:
            return getattr(obj, snake, None)
        if camel in fields:
            return getattr(obj, camel, None)
    value = getattr(obj, snake, None)
    return value if value is not None else getattr(obj, camel, None)


def is_error(result: Any) -> bool:
    """The result's error flag, whichever spelling the SDK uses."""
    return field(result, "is_error", "isError") is True


def structured_content(result: Any) -> Any:
    return field(result, "structured_content", "structuredContent")


def next_cursor(result: Any) -> str | None:
    cursor = field(result, "next_cursor", "nextCursor")
    return cursor if isinstance(cursor, str) and cursor else None


def paginated(cursor: str) -> Any:
    """Request parameters for the page after ``cursor``."""
    return types.PaginatedRequestParams(cursor=cursor)


def error_code(exc: BaseException) -> int | None:
    """The JSON-RPC error code of an SDK error, if it has one."""
    error = getattr(exc, "error", None)
    code = getattr(error, "code", None)
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def error_message(exc: BaseException) -> str:
    error = getattr(exc, "error", None)
    message = getattr(error, "message", None)
    if isinstance(message, str):
        return message
    text = exception_text(exc)  # ``Type: message``; ``Type`` when it is empty or __str__ raises
    prefix = f"{type(exc).__name__}: "
    return text[len(prefix) :] if text.startswith(prefix) else ""


def make_mcp_error(code: int, message: str) -> Exception:
    """An SDK error to raise from a server handler (sent as a JSON-RPC error response)."""
    if MCP_ERROR.__name__ == "MCPError":
        return MCP_ERROR(code, message)
    return MCP_ERROR(types.ErrorData(code=code, message=message))


def text_block(text: str) -> types.TextContent:
    return types.TextContent(type="text", text=text)


def error_result(text: str, meta: Mapping[str, Any] | None = None) -> types.CallToolResult:
    """A new failed ``CallToolResult`` holding one text block."""
    values: dict[str, Any] = {"content": [text_block(text)], _IS_ERROR: True}
    if meta is not None:
        values["_meta"] = dict(meta)
    return types.CallToolResult.model_validate(values)


def result_with(
    result: types.CallToolResult,
    *,
    append: Sequence[Any] = (),
    failed: bool | None = None,
    meta: Mapping[str, Any] | None = None,
    content: Sequence[Any] | None = None,
) -> types.CallToolResult:
    """A copy of ``result`` with blocks appended (to ``content`` when given, which replaces
    the result's own), the error flag set and ``_meta`` keys merged in. Everything else
    (structured content, extra fields) is kept."""
    update: dict[str, Any] = {}
    if content is not None:
        update["content"] = [*content, *append]
    elif append:
        update["content"] = [*result.content, *append]
    if failed is not None:
        update[_IS_ERROR] = failed
    if meta is not None:
        merged = dict(result.meta or {})
        merged.update(meta)
        update["meta"] = merged
    return result.model_copy(update=update)


def read_timeout(seconds: float | None) -> Any:
    """A read timeout as ``ClientSession.call_tool`` takes it (``timedelta`` in 1.x)."""
    if seconds is None:
        return None
    return timedelta(seconds=seconds) if MCP_MAJOR < 2 else float(seconds)


class ToolCaller:
    """The output-schema check of ``ClientSession.call_tool``, for the proxy (which relays
    the upstream's messages without a client session): the structured content of a
    successful result is checked against the tool's output schema with a validator
    compiled once per schema, raising the SDK's ``RuntimeError`` texts.
    """

    def __init__(self) -> None:
        self._tools: dict[str, Any] = {}
        self._validators = ConversionCache(256)  # one per listed tool object, while it is listed

    def learn_tools(self, tools: Sequence[Any]) -> None:
        self._tools = {tool.name: tool for tool in tools}

    def validate(self, name: str, result: Any) -> None:
        tool = self._tools.get(name)
        if tool is None or _output_schema(tool) is None:
            return
        content = structured_content(result)
        if content is None:
            raise RuntimeError(f"Tool {name} has an output schema but did not return structured content")
        validator = self._validators.get_object(tool, _validator)
        error = next(iter(validator.iter_errors(content)), None)
        if error is not None:
            raise RuntimeError(f"Invalid structured content returned by tool {name}: {error.message}")


def _output_schema(tool: Any) -> Any:
    return field(tool, "output_schema", "outputSchema")


def _validator(tool: Any) -> Any:
    """The JSON Schema validator of a tool's output schema (checked, compiled once)."""
    schema = _output_schema(tool)
    validators = importlib.import_module("jsonschema.validators")  # an SDK dependency
    registry = importlib.import_module("referencing").Registry()
    validator_class = validators.validator_for(schema)
    validator_class.check_schema(schema)
    return validator_class(schema, registry=registry)
