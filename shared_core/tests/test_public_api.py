"""The public surface: __all__, no framework imported, py.typed shipped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import toolerr

FRAMEWORKS = (
    "langchain",
    "langchain_core",
    "langgraph",
    "agents",
    "mcp",
    "transformers",
    "torch",
    "openai",
    "httpx",
    "pydantic",
    "anthropic",
)


def test_all_names_exist_once() -> None:
    assert len(set(toolerr.__all__)) == len(toolerr.__all__)
    for name in toolerr.__all__:
        assert hasattr(toolerr, name), name
    for name in (
        "ToolErrorLayer",
        "Message",
        "ToolCall",
        "Policy",
        "StringBan",
        "FailureLedger",
        "inspect_result",
        "rewrite_openai_chat",
        "rewrite_anthropic",
        "rewrite_responses",
        "rewrite_wire",
        "WireRewrite",
        "ResultDelivery",
        "PolicyOptions",
        "POLICY_OPTIONS",
        "ConversationRun",
        "ConversionCache",
        "PROFILES",
        "Profile",
        "FormSpec",
        "resolve_forms",
        "LOOP_ACTIONS",
        "LRUCache",
        "SpecialTokens",
        "remove_special_tokens",
        "MEDIA_BLOCK_TYPES",
        "NoteParts",
    ):
        assert name in toolerr.__all__


def test_import_toolerr_pulls_in_no_agent_framework() -> None:
    code = (
        "import sys, toolerr, toolerr._cli, toolerr._demo;"
        f"print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in {FRAMEWORKS!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_py_typed_is_shipped() -> None:
    assert (Path(toolerr.__file__).parent / "py.typed").exists()
