"""The public surface: __all__ (the user's API), toolerr.adapters (what adapters need), the
deprecation of the names that moved, no framework imported, py.typed shipped."""

from __future__ import annotations

import ast
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import toolerr
import toolerr.adapters

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


USER_API = [
    "FORMS",
    "KINDS",
    "LOOP_ACTIONS",
    "PROFILES",
    "DetectionRecord",
    "FailedCall",
    "FailureLedger",
    "Message",
    "Policy",
    "PolicyOptions",
    "Profile",
    "ProfileError",
    "ResultDelivery",
    "Rewrite",
    "StringBan",
    "ToolCall",
    "ToolErrorLayer",
    "ToolLoopError",
    "Verdict",
    "WireRewrite",
    "__version__",
    "inspect_message",
    "inspect_result",
    "load_profile",
    "rewrite",
    "rewrite_anthropic",
    "rewrite_openai_chat",
    "rewrite_responses",
    "rewrite_wire",
    "save_profile",
]

# What adapters need and users do not: in toolerr.adapters (they were in toolerr's
# __all__ before, and stay readable from toolerr for one release, with a warning).
ADAPTER_NAMES = [
    "CLIENTS",
    "GUIDANCE",
    "GUIDANCE_CHECK_FIRST",
    "MEDIA_BLOCK_TYPES",
    "NOTE_PREFIX",
    "POLICY_OPTIONS",
    "PROFILE_FORMAT",
    "WIRE_FORMATS",
    "BanCursor",
    "ConversationRun",
    "ConversionCache",
    "DecisionStep",
    "ExchangeResult",
    "Form",
    "FormSpec",
    "Kind",
    "LRUCache",
    "LoopAction",
    "LoopDecision",
    "NoteParts",
    "Outcome",
    "PreparedVocabulary",
    "ProfileSpec",
    "RepeatReport",
    "Role",
    "SpecialTokens",
    "ToolSafety",
    "anthropic_to_messages",
    "canonical_arguments",
    "clean_text",
    "content_text",
    "decide_loop",
    "detect_failure",
    "exact_arguments",
    "exception_text",
    "find_decision_step",
    "format_arguments",
    "guidance_for",
    "normalise_client",
    "openai_chat_to_messages",
    "pair_results",
    "parse_arguments",
    "records_of",
    "register_special_tokens",
    "remove_special_tokens",
    "render_abstract",
    "render_note",
    "resolve_forms",
    "responses_to_messages",
    "safety_from_annotations",
]

# The adapter kit: new in toolerr.adapters (never in toolerr).
KIT_NAMES = [
    "CLIENT_HEADER",
    "FORM_HEADER",
    "REPORT_HEADER",
    "CALL_BLOCK_TYPES",
    "Blocked",
    "Failure",
    "Layers",
    "RunSnapshot",
    "RunTrail",
    "TextVerdicts",
    "chat_raw_arguments",
    "decision_step_failed",
    "declared_safety",
    "fail_open",
    "failure_as",
    "failure_of",
    "framework_verdict",
    "gateway_policy",
    "guard_call",
    "invalid_call_verdict",
    "override_policy",
    "plain_failure_of",
    "report_header",
    "wire_report",
    "origin_of",
    "restore_objects",
    "rewrite_tail",
    "weak_origin",
    "without_call_blocks",
    "shown_failure",
    "acall_with_retries",
    "call_with_retries",
    "hidden_retries_of",
    "remember_hidden_retries",
    "same_objects",
    "appended_text",
    "CheckpointBackend",
    "SharedCheckpoints",
    "hinted_safety",
    "rewrite_objects",
    "tool_raised",
    "without_chat_calls",
    "acall_with_result_retries",
    "ResultFailure",
    "input_text_parts",
]


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
        "PROFILES",
        "Profile",
        "LOOP_ACTIONS",
    ):
        assert name in toolerr.__all__


def test_toolerr_all_is_the_users_api() -> None:
    assert sorted(toolerr.__all__) == sorted(USER_API)
    assert len(toolerr.__all__) <= 30


def test_adapters_all_is_what_adapters_need() -> None:
    assert sorted(toolerr.adapters.__all__) == sorted(ADAPTER_NAMES + KIT_NAMES)
    assert len(set(toolerr.adapters.__all__)) == len(toolerr.adapters.__all__)
    for name in toolerr.adapters.__all__:
        assert name in vars(toolerr.adapters), name
        assert name not in toolerr.__all__, name
        assert name not in vars(toolerr), name  # read through the deprecation path only


@pytest.mark.parametrize("name", ADAPTER_NAMES)
def test_a_moved_name_is_still_read_from_toolerr_with_a_warning(name: str) -> None:
    with pytest.warns(DeprecationWarning, match=rf"toolerr\.adapters\.{name}\b") as caught:
        value = getattr(toolerr, name)
    assert value is getattr(toolerr.adapters, name)
    assert len(caught) == 1
    assert caught[0].filename == __file__  # the warning points at the caller


def test_from_toolerr_import_a_moved_name_warns() -> None:
    with pytest.warns(DeprecationWarning, match=r"toolerr\.adapters\.LRUCache"):
        from toolerr import LRUCache
    assert LRUCache is toolerr.adapters.LRUCache


def test_an_unknown_name_is_an_attribute_error_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError, match="no_such_name"):
            toolerr.no_such_name  # noqa: B018


def test_no_code_in_the_repository_reads_a_moved_name_from_toolerr() -> None:
    root = Path(__file__).resolve().parents[2]
    if not (root / "packages").is_dir():
        pytest.skip("not run from the repository")
    moved = set(ADAPTER_NAMES)
    found = []
    for folder in ("shared_core", "packages", "benchmarks", "release_tests", "integration_tests", "tests"):
        for path in sorted((root / folder).rglob("*.py")):
            if ".nox" in path.parts or path == Path(__file__).resolve():
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module == "toolerr" and node.level == 0:
                    found += [f"{path}:{node.lineno} {a.name}" for a in node.names if a.name in moved]
                elif (
                    isinstance(node, ast.Attribute)
                    and isinstance(node.value, ast.Name)
                    and node.value.id == "toolerr"
                    and node.attr in moved
                ):
                    found.append(f"{path}:{node.lineno} toolerr.{node.attr}")
    assert found == []


def test_import_toolerr_pulls_in_no_agent_framework() -> None:
    code = (
        "import sys, toolerr, toolerr._cli, toolerr._demo;"
        f"print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in {FRAMEWORKS!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_py_typed_is_shipped() -> None:
    assert (Path(toolerr.__file__).parent / "py.typed").exists()
