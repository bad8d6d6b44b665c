"""The public surface: names, typing marker, and the superset of LangChain's own
ToolErrorMiddleware."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
import toolerr_langchain
from langchain.agents import create_agent
from langchain.agents import middleware as langchain_middleware
from langchain.agents.middleware import AgentMiddleware
from lc_support import TOOLS, ai
from toolerr_langchain import ToolErrorMiddleware
from toolerr_langchain.testing import ScriptedChatModel, tool_call

LangChainToolErrorMiddleware: Any = getattr(langchain_middleware, "ToolErrorMiddleware", None)
needs_langchain_tool_error_middleware = pytest.mark.skipif(
    LangChainToolErrorMiddleware is None, reason="this langchain has no ToolErrorMiddleware of its own"
)


def test_all() -> None:
    assert sorted(toolerr_langchain.__all__) == [
        "METADATA_KEY",
        "ToolErrorMiddleware",
        "default_error_content",
        "from_toolerr",
        "handle_tool_errors",
        "retry_on",
        "rewrite_messages",
        "to_toolerr",
        "verdict_of",
    ]
    for name in toolerr_langchain.__all__:
        assert getattr(toolerr_langchain, name) is not None


def test_typed() -> None:
    assert (Path(toolerr_langchain.__file__).parent / "py.typed").is_file()


def test_an_agent_middleware_with_the_policy_options() -> None:
    assert issubclass(ToolErrorMiddleware, AgentMiddleware)
    ours = inspect.signature(ToolErrorMiddleware.__init__).parameters
    for option in ("on_error", "aon_error", "tools", "policy", "on_record"):
        assert option in ours
    # the policy options are toolerr.PolicyOptions, typed once in the core
    assert ours["options"].kind is inspect.Parameter.VAR_KEYWORD
    assert "PolicyOptions" in str(ours["options"].annotation)
    middleware = ToolErrorMiddleware(
        form="c1", retry_budget=1, loop_action="block", tool_safety={"t": "read_only"}, max_error_chars=100
    )
    policy = middleware.layer.policy
    assert (policy.form, policy.retry_budget, policy.loop_action, policy.max_error_chars) == (
        "c1",
        1,
        "block",
        100,
    )
    assert dict(policy.tool_safety) == {"t": "read_only"}


@needs_langchain_tool_error_middleware
def test_superset_of_langchain_tool_error_middleware() -> None:
    ours = inspect.signature(ToolErrorMiddleware.__init__).parameters
    theirs = inspect.signature(LangChainToolErrorMiddleware.__init__).parameters
    for name, parameter in theirs.items():
        assert name in ours
        assert ours[name].kind == parameter.kind


@needs_langchain_tool_error_middleware
def test_stacks_with_langchain_tool_error_middleware() -> None:
    """Distinct names: both can be in one agent. LangChain's (outer) never sees an
    exception, since ours (inner) turned it into a result."""
    outer = LangChainToolErrorMiddleware(lambda exc, request: "outer handled it")
    model = ScriptedChatModel(script=[ai(tool_call("write_file", "c1", path="/p", text="x")), "done"])
    agent = create_agent(model, TOOLS, middleware=[outer, ToolErrorMiddleware()])
    state = agent.invoke({"messages": [("user", "go")]})
    assert state["messages"][2].content.startswith("Error: PermissionError: ")


def test_invalid_policy_is_refused_at_construction() -> None:
    with pytest.raises(ValueError, match="form"):
        ToolErrorMiddleware(form="c9")
    with pytest.raises(ValueError, match="loop_action"):
        ToolErrorMiddleware(loop_action="explode")  # type: ignore[arg-type]
