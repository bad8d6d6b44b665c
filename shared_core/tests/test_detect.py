"""Detection: is it a failure, and which rule says so?"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolerr import inspect_result
from toolerr._detect import coerce_flag, normalise_client
from toolerr.adapters import detect_failure

# --- evidence sources and their detection ids ---------------------------------------------


@pytest.mark.parametrize(
    ("content", "kwargs", "detection"),
    [
        ("all good", {"exception": ValueError("x")}, "exception"),
        ("all good", {"is_error": True}, "flag:is_error"),
        ('{"content": [{"type": "text", "text": "x"}], "isError": true}', {}, "flag:mcp-iserror"),
        ({"content": [], "is_error": True}, {}, "flag:mcp-iserror"),
        ('{"query": "q", "success": false}', {}, "cline:success-false"),
        ('{"error": {"type": "tool.execution", "message": "boom"}}', {}, "opencode:tool-execution"),
        ("Error: boom", {}, "generic:start"),
        ("  \n\tERROR: boom", {}, "generic:start"),
        ("error: pathspec 'x' did not match", {}, "generic:start"),
        ("Traceback (most recent call last):\n  File 'x'\nValueError: x", {}, "generic:start"),
        ("ValueError: bad", {}, "generic:start"),
        ("ConnectionResetError(104, 'reset')", {}, "generic:start"),
        ("httpx.ReadTimeout: timed out", {}, "generic:start"),
        ("socket.timeout: timed out", {}, "generic:start"),
        ("HTTP Error 500: Internal Server Error", {}, "generic:start"),
        ("HTTP 429", {}, "generic:start"),
        ("404 Client Error: Not Found for url: http://x", {}, "generic:start"),
        ("Server error '503 Service Unavailable' for url 'http://x'", {}, "generic:start"),
        ("MCP error -32602: bad", {}, "mcp:error"),
        (
            "An error occurred (Throttling) when calling the Describe operation: Rate exceeded",
            {},
            "generic:start",
        ),
        ("psycopg.errors.SerializationFailure: could not serialize", {}, "generic:exception"),
        ('{"error": "boom"}', {}, "generic:json-error"),
        ('{"error": {"message": "boom"}}', {}, "generic:json-error"),
        ('{"error": true, "message": "boom"}', {}, "generic:json-error"),
        ({"error": "boom"}, {}, "generic:json-error"),
        (
            "Error invoking tool 'x' with kwargs {} with error:\n boom\n Please fix the error and try again.",
            {},
            "langchain:tool-invocation",
        ),
        ("Error: x is not a valid tool, try one of [y].", {"client": "langchain"}, "langchain:invalid-tool"),
        (
            "Error: ValueError('x')\n Please fix your mistakes.",
            {"client": "langchain"},
            "langchain:tool-error",
        ),
        ("An error occurred while running the tool. Please try again.", {}, "openai-agents:tool-error"),
        ("Tool 'x' not found.", {"client": "openai-agents"}, "openai-agents:tool-not-found"),
        (
            "Tool execution was not approved.",
            {"client": "openai-agents"},
            "openai-agents:approval-rejected",
        ),
        ("Error executing tool x: boom", {"client": "mcp"}, "mcp:tool-error"),
        ("Error executing tool x", {"client": "mcp"}, "mcp:tool-error-withheld"),
        ("Unknown tool: x", {"client": "mcp"}, "mcp:unknown-tool"),
        ("File not found: /x", {"client": "qwen-code"}, "qwen-code:not-found"),
        (
            "Command: ls\nStdout: (empty)\nError: (none)\nExit Code: 2",
            {"client": "qwen-code"},
            "qwen-code:exit",
        ),
        ("Process exited with code 1", {"client": "codex"}, "codex:exit"),
        (
            "Exit code: 127\nWall time: 0 seconds\nOutput:\nsh: nope: not found",
            {"client": "codex"},
            "codex:exit",
        ),
        (
            '{"output": "x", "metadata": {"exit_code": 1, "duration_seconds": 0.1}}',
            {"client": "codex"},
            "codex:exit",
        ),
        ("command timed out after 1000 milliseconds", {"client": "codex"}, "codex:timeout"),
        ("apply_patch verification failed: x", {"client": "codex"}, "codex:patch"),
        ("File not found: /x", {"client": "kilo-code"}, "kilo-code:not-found"),
        ("Unknown: FileSystem.readFile (/x): ENOENT", {"client": "kilo-code"}, "kilo-code:fs"),
        ("oldString not found in content", {"client": "kilo-code"}, "kilo-code:usage"),
        ("output\nExited with code 3", {"client": "opencode"}, "opencode:exit"),
        (
            "The tool execution failed with the following error:\n<error>\nx\n</error>",
            {"client": "cline"},
            "cline:tool-error",
        ),
    ],
)
def test_detection_rule(content: Any, kwargs: dict[str, Any], detection: str) -> None:
    assert detect_failure(content, **kwargs) == (True, detection)
    verdict = inspect_result(content, **kwargs)
    assert verdict.failed and verdict.detection == detection


@pytest.mark.parametrize(
    ("content", "kwargs"),
    [
        ("Temperature in Paris: 12C, light rain", {}),
        ("Found 2 results: 'Handling Timeout errors in Python', 'Permission denied FAQ'", {}),
        ("The report lists a 503 outage and a 403 on Tuesday.", {}),
        ("0 failed, 14 passed in 1.3s", {}),
        ("Log:\nError: disk almost full", {}),
        ('{"error": null, "result": "ok"}', {}),
        ('{"error": false}', {}),
        ('{"error": ""}', {}),
        ('{"error": "   "}', {}),
        ('{"error": []}', {}),
        ('{"error": 0}', {}),
        ('{"errors": [], "count": 0}', {}),
        ('{"errors": [{"message": "lint: unused import"}]}', {}),
        ('{"success": false, "query": "x"} trailing', {}),
        ({"error": None}, {}),
        ({"content": [{"type": "text", "text": "fine"}], "isError": False}, {}),
        ("[1, 2, 3]", {}),
        ("", {}),
        (None, {}),
        (0, {}),
        (3.5, {}),
        (True, {}),
        ([], {}),
        ({}, {}),
        ("timeout: 30", {}),
        ("Timeout: 30s", {}),
        ("Error: (none)", {}),
        ("error: null", {}),
        ("Unknown tool: x", {}),  # the MCP template is only trusted for MCP
        ("Tool 'x' not found.", {}),  # the OpenAI Agents template only for that client
        ("Process exited with code 1", {}),  # Codex rule only for Codex
        ("Deleted 3 files", {"is_error": False}),
        (
            "Command: ls\nStdout: Error: printed by the program\nError: (none)\nExit Code: 0",
            {"client": "qwen-code"},
        ),
        ("Exit code: 0\nWall time: 0.1 seconds\nOutput:\nError: printed by the program", {"client": "codex"}),
        (
            "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\nTraceback (most recent",
            {"client": "codex"},
        ),
        ("Error: printed by the program\nExited with code 0", {"client": "opencode"}),
        ('{"output": "Error: x", "metadata": {"exit_code": 0}}', {"client": "codex"}),
    ],
)
def test_not_a_failure(content: Any, kwargs: dict[str, Any]) -> None:
    assert detect_failure(content, **kwargs) == (False, None)
    assert inspect_result(content, **kwargs).failed is False


def test_explicit_false_flag_is_weak_evidence() -> None:
    assert detect_failure("Error: 503 Service Unavailable", is_error=False) == (True, "generic:start")
    assert detect_failure("all fine", is_error=False) == (False, None)


def test_error_words_in_the_middle_are_not_a_failure() -> None:
    assert not inspect_result("Summary: Traceback (most recent call last): shown above").failed
    assert not inspect_result("Results:\nTypeError: explained in chapter 3").failed


def test_content_blocks_and_bytes() -> None:
    blocks = [{"type": "text", "text": "Error executing tool x: Connection refused"}]
    assert detect_failure(blocks, client="mcp") == (True, "mcp:tool-error")
    assert detect_failure(b"Error: ETIMEDOUT") == (True, "generic:start")
    assert detect_failure(bytearray(b"fine")) == (False, None)


IMAGE = {"type": "image", "data": "iVBORw0KGgo" * 1000, "mimeType": "image/png"}


@pytest.mark.parametrize(
    ("content", "kwargs"),
    [
        ([IMAGE, {"type": "text", "text": "Error: ECONNREFUSED"}], {}),
        ([{"type": "input_image", "image_url": "data:," + "A" * 9000}, "Error: ECONNREFUSED"], {}),
        ([IMAGE, {"type": "text", "text": "ECONNREFUSED"}], {"is_error": True}),
        ({"content": [IMAGE, {"type": "text", "text": "ECONNREFUSED"}], "isError": True}, {}),
    ],
)
def test_media_before_the_error_text_is_not_read_as_text(content: Any, kwargs: dict[str, Any]) -> None:
    """An image block first (a screenshot, then the error): the error text is still read."""
    verdict = inspect_result(content, **kwargs)
    assert (verdict.failed, verdict.kind) == (True, "transient")


def test_a_document_block_is_read_as_text() -> None:
    """An Anthropic ``document`` block may hold the text itself (a plain-text source): it is
    not media, so a flagged result whose error is in it is classified from it."""
    document = {
        "type": "document",
        "source": {"type": "text", "media_type": "text/plain", "data": "Error: ECONNREFUSED"},
    }
    verdict = inspect_result([IMAGE, document], is_error=True)
    assert (verdict.failed, verdict.kind) == (True, "transient")


def test_call_tool_result_like_object() -> None:
    class Block:
        text = "Error: 401 Unauthorized"

    class Result:
        content = (Block(),)
        isError = True

    verdict = inspect_result(Result())
    assert verdict.failed and verdict.detection == "flag:mcp-iserror"
    assert verdict.kind == "unrecoverable"


# --- clients and flags -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (None, "generic"),
        ("generic", "generic"),
        ("LangChain", "langchain"),
        ("langgraph", "langchain"),
        ("openai_agents", "openai-agents"),
        ("MCP", "mcp"),
        ("QwenCode/0.1.2 (linux)", "qwen-code"),
        ("qwen", "qwen-code"),
        ("codex", "codex"),
        ("Kilo-Code/4.1", "kilo-code"),
        ("opencode/0.3", "opencode"),
        ("cline", "cline"),
        ("something-else", "generic"),
        ("", "generic"),
    ],
)
def test_client_names(name: str | None, expected: str) -> None:
    assert normalise_client(name) == expected


def test_unknown_client_is_generic_not_an_error() -> None:
    assert detect_failure("Error: x", client="no-such-client") == (True, "generic:start")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        (True, True),
        (False, False),
        (1, True),
        (0, False),
        ("true", True),
        ("False", False),
        ("?", None),
    ],
)
def test_is_error_coercion(value: Any, expected: bool | None) -> None:
    assert coerce_flag(value) is expected


def test_is_error_coerced_in_api() -> None:
    assert detect_failure("fine", is_error=1) == (True, "flag:is_error")  # type: ignore[arg-type]
    assert detect_failure("fine", is_error="true") == (True, "flag:is_error")  # type: ignore[arg-type]


def test_programming_errors_raise_type_error() -> None:
    with pytest.raises(TypeError):
        detect_failure("x", client=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        detect_failure("x", exception="not an exception")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        inspect_result("x", tool=3)  # type: ignore[arg-type]


# --- robustness and cost -------------------------------------------------------------------------


def test_lone_surrogates_and_odd_text() -> None:
    assert detect_failure("Error: \ud800") == (True, "generic:start")
    assert inspect_result("Error: \udfff\x00\u202e").failed
    assert inspect_result('{"error": "\\ud800"}').failed


def test_huge_result_is_cheap() -> None:
    huge = "Error: 403 Forbidden " + "x" * 10_000_000
    start = time.perf_counter()
    verdict = inspect_result(huge)
    assert time.perf_counter() - start < 0.5
    assert verdict.failed and verdict.kind == "unrecoverable"


def test_huge_json_is_not_parsed_but_still_detected() -> None:
    body = '{"error": "Service Unavailable", "data": "' + "y" * 2_000_000 + '"}'
    start = time.perf_counter()
    verdict = inspect_result(body)
    assert time.perf_counter() - start < 0.5
    assert verdict.failed and verdict.detection == "generic:json-error"
    flagged = '{"content": [{"type": "text", "text": "' + "z" * 2_000_000 + '"}], "isError": true}'
    assert detect_failure(flagged) == (True, "flag:mcp-iserror")


def test_huge_normal_result_is_cheap() -> None:
    huge = "row," * 2_500_000
    start = time.perf_counter()
    assert not inspect_result(huge).failed
    assert time.perf_counter() - start < 0.5


def test_deeply_nested_json_never_raises() -> None:
    deep = "{" + '"a":{' * 100_000 + "}" * 100_001
    assert detect_failure(deep) == (False, None)
    nested: Any = "Error: x"
    for _ in range(5000):
        nested = [nested]
    assert isinstance(detect_failure(nested), tuple)


def test_hostile_objects_never_raise() -> None:
    class Hostile:
        def __getattr__(self, name: str) -> Any:
            raise RuntimeError(name)

        def __repr__(self) -> str:
            raise RuntimeError("repr")

    class HostileMapping(dict):  # type: ignore[type-arg]
        def get(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("get")

    assert detect_failure(Hostile()) == (False, None)
    assert detect_failure(HostileMapping(error="x")) == (False, None)
    assert detect_failure(Hostile(), is_error=True) == (True, "flag:is_error")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(
    value=json_values,
    flag=st.sampled_from([None, True, False]),
    client=st.sampled_from([None, "mcp", "codex", "qwen-code", "opencode", "cline", "langchain", "x"]),
)
def test_random_json_values_never_raise(value: Any, flag: bool | None, client: str | None) -> None:
    verdict = inspect_result(value, is_error=flag, client=client)
    assert verdict.failed in (True, False)
    text = json.dumps(value)
    assert inspect_result(text, is_error=flag, client=client).failed in (True, False)


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(),
    prefix=st.sampled_from(
        [
            "",
            "Error: ",
            "{",
            "Traceback (most recent call last):\n",
            "Command: ",
            "Exit code: 1\n",
            "MCP error -32602: ",
            '{"error": "',
        ]
    ),
)
def test_random_text_never_raises(text: str, prefix: str) -> None:
    verdict = inspect_result(prefix + text)
    if verdict.failed:
        assert verdict.kind in ("transient", "fixable", "unrecoverable", "ambiguous")
    else:
        assert verdict.kind is None


def test_every_template_is_keyed_by_its_first_characters() -> None:
    # A template that cannot be keyed is tried on every text (the smolagents and ADK
    # templates were, until their optional group and escaped brace were read).
    from toolerr._detect import _TEMPLATES, _first_chars

    _, anywhere = _TEMPLATES["generic"]  # what every client's texts are tried against
    assert not anywhere, [t.template.id for t in anywhere]
    assert _first_chars(r"(?:Call id: \S+\n)?Error:\n") == {"C", "E"}
    assert _first_chars(r"\{\s*\"a\"") == {"{"}
    assert _first_chars(r"(?:a|b)?c") is None
