"""Real tools that raise real exceptions, and helpers to read what the model saw."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import tool

NOTE_PREFIX = "Note from the tool runtime: "

# DELIVERY.md section 1 and 3, byte-exact.
TRANSIENT = "This is a temporary failure. Retrying the same call is expected to succeed."
TRANSIENT_AFTER_2 = (
    "This is a temporary failure. Retrying the same call after 2 seconds is expected to succeed."
)
"""For the 429 of ``fetch(".../busy")``: its ``Retry-After: 2`` is said (issue 27, item 3)."""
FIXABLE = (
    "This call cannot succeed as written. The error says what to change; "
    "call the tool again with the corrected value."
)
UNRECOVERABLE = "This cannot be fixed by retrying or by changing the arguments. Tell the user what happened."
CHECK_FIRST = (
    "This may be a temporary failure, but the call may already have taken effect. "
    "Check whether it did before calling the tool again."
)

EXECUTED: list[tuple[str, dict[str, Any]]] = []
"""Every tool execution of the current test: (tool name, arguments)."""


def _response(url: str, status: int, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(status, headers=headers, request=httpx.Request("GET", url))


@tool
def fetch(url: str) -> str:
    """Fetch a web page."""
    EXECUTED.append(("fetch", {"url": url}))
    if url.endswith("/slow"):
        raise httpx.ReadTimeout("timed out", request=httpx.Request("GET", url))
    if url.endswith("/forbidden"):
        _response(url, 403).raise_for_status()
    if url.endswith("/busy"):
        _response(url, 429, {"Retry-After": "2"}).raise_for_status()
    if url.endswith("/down"):
        _response(url, 503).raise_for_status()
    if url.endswith("/gone"):
        _response(url, 404).raise_for_status()
    return f"<html>{url}</html>"


@tool
def write_file(path: str, text: str) -> str:
    """Write a text file."""
    EXECUTED.append(("write_file", {"path": path, "text": text}))
    raise PermissionError(13, "Permission denied", path)


@tool
def get_weather(city: str, days: int) -> str:
    """Weather forecast for a city."""
    EXECUTED.append(("get_weather", {"city": city, "days": days}))
    return f"{city}: sunny for {days} days"


@tool
def blocks() -> list[dict[str, Any]]:
    """Returns content blocks."""
    EXECUTED.append(("blocks", {}))
    return [{"type": "text", "text": "Error: this is the page title, not a failure"}]


@tool
def record() -> dict[str, Any]:
    """Returns a dict."""
    EXECUTED.append(("record", {}))
    return {"error": None, "rows": 3}


TOOLS = [fetch, write_file, get_weather]

FORBIDDEN_TEXT = (
    "Error: HTTPStatusError: Client error '403 Forbidden' for url 'https://api.example.com/forbidden'\n"
    "For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/403"
)


def ai(*calls: Any, content: str = "") -> AIMessage:
    return AIMessage(content=content, tool_calls=list(calls))


def shown(messages: Sequence[BaseMessage]) -> list[tuple[str, Any]]:
    """What a provider would be sent, as (type, content) pairs."""
    return [(message.type, message.content) for message in messages]


def holds_note(messages: Sequence[BaseMessage]) -> bool:
    return any(NOTE_PREFIX in str(message.content) for message in messages)


def note(name: str, arguments: str, error: str, guidance: str) -> str:
    """The runtime note of DELIVERY.md section 4, written out."""
    head = f"{NOTE_PREFIX}the last attempt called {name} with {arguments} and it failed with: {error}"
    return f"{head}\n\n{guidance}"
