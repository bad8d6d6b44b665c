"""Tool results of unusual shapes through the real create_agent loop: content blocks
with media before the error text, calls without an id."""

from __future__ import annotations

from typing import Annotated

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from lc_support import TRANSIENT, ai, holds_note, note
from toolerr_langchain import ToolErrorMiddleware
from toolerr_langchain.testing import ScriptedChatModel, tool_call

ASK = "Open the page."
PIXELS = "iVBORw0KGgo" * 2000  # a screenshot, base64 (22 KB)
ERROR = "Error: ConnectError: [Errno 111] Connection refused"


@tool
def screenshot(url: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> ToolMessage:
    """Open a page and return a screenshot with the status line."""
    return ToolMessage(
        content=[
            {"type": "image", "base64": PIXELS, "mime_type": "image/png"},
            {"type": "text", "text": ERROR},
        ],
        tool_call_id=tool_call_id,
        name="screenshot",
        status="error",
    )


@pytest.mark.parametrize("form", ["c3", "c4"])
def test_an_image_before_the_error_text_does_not_hide_the_failure(form: str) -> None:
    """A failed result whose first block is an image (a browser tool's screenshot, then
    the error): classified from its text, and the note restates the text, not the pixels."""
    model = ScriptedChatModel(script=[ai(tool_call("screenshot", "c1", url="https://example.com")), "done"])
    agent = create_agent(
        model,
        [screenshot],
        middleware=[ToolErrorMiddleware(form=form, tool_safety={"screenshot": "read_only"})],
    )

    state = agent.invoke({"messages": [("user", ASK)]})

    last = model.calls[1][-1]
    assert isinstance(last, HumanMessage)
    assert last.content == note("screenshot", 'url="https://example.com"', ERROR, TRANSIENT)
    assert not holds_note(state["messages"])
