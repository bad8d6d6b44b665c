"""A tool's declared parameters as a JSON-schema dict, for the core's classification of its
failures (``parameters=``): read once per tool, so the same dict object reaches the core at
every call (the core caches its reading of a schema by the dict's identity)."""

from __future__ import annotations

import threading
import weakref
from typing import Any

from toolerr.adapters import fail_open

_MAX_TOOLS = 512
"""Tools whose converted schema is kept; the cache starts over past it."""

_lock = threading.Lock()
_by_tool: dict[int, tuple[weakref.ref[Any], object, dict[str, Any] | None]] = {}
"""``id(tool)`` -> (the tool, weakly; its ``args_schema`` then; the JSON schema)."""


def declared_parameters(tool: Any) -> dict[str, Any] | None:
    """The JSON schema of ``tool``'s parameters, as the model is given them.

    A ``BaseTool`` whose ``args_schema`` is a JSON-schema dict (an MCP tool of
    langchain-mcp-adapters, a tool declared by a dict) gives that very dict. A pydantic
    ``args_schema`` (``@tool``, ``StructuredTool``) gives the JSON schema of its
    ``tool_call_schema`` (injected arguments left out), converted once per tool and kept
    while the tool lives and its ``args_schema`` is the same object.

    Returns:
        The schema, or ``None``: no tool (an unknown tool's call), none to read. Never
        raises: an error reading it is logged once per cause on logger ``toolerr`` (the
        tool is then classified without it).
    """
    if tool is None:
        return None
    with fail_open("reading the tool's declared parameters", "the failure is classified without them"):
        source = getattr(tool, "args_schema", None)
        if isinstance(source, dict):
            return source
        key = id(tool)
        entry = _by_tool.get(key)
        if entry is not None and entry[0]() is tool and entry[1] is source:
            return entry[2]
        reference = weakref.ref(tool)  # before the conversion: a tool without weakrefs is read each time
        schema: dict[str, Any] | None = None
        try:
            schema = _json_schema(tool)
        finally:  # a schema that cannot be converted is not tried again for this tool
            with _lock:
                if len(_by_tool) >= _MAX_TOOLS:
                    _by_tool.clear()
                _by_tool[key] = (reference, source, schema)
        return schema
    return None


def _json_schema(tool: Any) -> dict[str, Any] | None:
    model = tool.tool_call_schema
    if isinstance(model, dict):
        return model
    dump = getattr(model, "model_json_schema", None) or getattr(model, "schema", None)  # pydantic 2, 1
    schema = dump() if callable(dump) else None
    return schema if isinstance(schema, dict) else None
