"""The real LiteLLM proxy with ToolErrorCallback, driven by the real openai and anthropic
SDKs: what the upstream received, byte for byte, per wire format, kind and form."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import openai
import pytest
import toolerr
from conftest import MASTER_KEY, Proxy, Upstream

RATE = "Error: HTTP 429 Too Many Requests"
DENIED = "Error: EACCES: permission denied, open '/etc/shadow'"
SUGGEST = "Error: File not found: /src/mian.py. Did you mean /src/main.py?"
CODEX_EXIT = "Exit code: 1\nWall time: 0.2 seconds\nOutput:\ncat: /etc/shadow: Permission denied\n"
QWEN_EXIT = (
    "Command: cat /etc/shadow\nDirectory: (root)\nOutput: cat: /etc/shadow: Permission denied\n"
    "Error: (none)\nExit Code: 1\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 4242"
)


def chat_client(proxy: Proxy, **headers: str) -> openai.OpenAI:
    return openai.OpenAI(
        base_url=f"{proxy.url}/v1", api_key=MASTER_KEY, max_retries=0, default_headers=headers
    )


def chat_messages(result: str = RATE) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "read the file"},
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "/etc/shadow"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": result},
    ]


def upstream_messages(upstream: Upstream) -> Any:
    return upstream.last().json["messages"]


CASES = [
    (RATE, "transient", "http:429"),
    (DENIED, "unrecoverable", None),
    (SUGGEST, "fixable", None),
]


@pytest.mark.parametrize("form", toolerr.FORMS)
@pytest.mark.parametrize(("result", "kind", "rule"), CASES)
def test_chat_each_kind_and_form(
    proxy: Proxy, upstream: Upstream, form: str, result: str, kind: str, rule: str | None
) -> None:
    messages = chat_messages(result)
    raw = chat_client(proxy, **{"x-toolerr-form": form}).chat.completions.with_raw_response.create(
        model="gpt-test",
        messages=messages,  # type: ignore[arg-type]
    )
    assert raw.parse().choices[0].message.content == "done"
    expected = toolerr.rewrite_wire("openai-chat", messages, form=form)
    received = upstream.last()
    assert received.path == "/v1/chat/completions"
    assert received.json["messages"] == expected.request
    if expected.changed:
        assert expected.records[0].kind == kind
        # the note's text, byte for byte, in the upstream's request body
        text = expected.request[-1]["content"]
        assert json.dumps(text)[1:-1].encode() in received.body
    header = json.loads(raw.headers["x-toolerr"])
    assert header == [
        {
            "position": 2,
            "tool": "read_file",
            "kind": kind,
            "rule": header[0]["rule"],
            "form": form,
            "changed": form != "c0",
        }
    ]
    if rule is not None:
        assert header[0]["rule"] == rule


def test_chat_c3_bytes(proxy: Proxy, upstream: Upstream) -> None:
    chat_client(proxy).chat.completions.create(model="gpt-test", messages=chat_messages())  # type: ignore[arg-type]
    assert upstream_messages(upstream) == [
        *chat_messages(),
        {
            "role": "user",
            "content": 'Note from the tool runtime: the last attempt called read_file with path="/etc/shadow" '
            "and it failed with: Error: HTTP 429 Too Many Requests\n\nThis is a temporary failure. "
            "Retrying the same call is expected to succeed.",
        },
    ]


def test_chat_passthrough(proxy: Proxy, upstream: Upstream) -> None:
    messages = chat_messages("root:x:0:0")
    raw = chat_client(proxy).chat.completions.with_raw_response.create(model="gpt-test", messages=messages)  # type: ignore[arg-type]
    assert upstream_messages(upstream) == messages
    assert "x-toolerr" not in raw.headers


def test_chat_streaming_unaffected(proxy: Proxy, upstream: Upstream) -> None:
    stream = chat_client(proxy).chat.completions.create(
        model="gpt-test", messages=chat_messages(), stream=True
    )  # type: ignore[arg-type]
    text = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
    assert text == "done"
    assert upstream_messages(upstream) == toolerr.rewrite_openai_chat(chat_messages())
    assert upstream.last().json["stream"] is True


def test_model_group_form_and_metadata_logged(proxy: Proxy, upstream: Upstream) -> None:
    raw = chat_client(proxy).chat.completions.with_raw_response.create(
        model="gpt-c1", messages=chat_messages()
    )  # type: ignore[arg-type]
    assert upstream_messages(upstream)[2]["content"] == (
        f"{RATE}\nThis is a temporary failure. Retrying the same call is expected to succeed."
    )
    assert json.loads(raw.headers["x-toolerr"])[0]["form"] == "c1"
    # per request, the body's metadata wins over the model group
    chat_client(proxy).chat.completions.create(
        model="gpt-c1",
        messages=chat_messages(),
        extra_body={"metadata": {"toolerr": {"form": "c0"}}},  # type: ignore[arg-type]
    )
    assert upstream_messages(upstream) == chat_messages()
    logged = [entry["toolerr"] for entry in proxy.logged()]
    assert any(e["form"] == "c1" and e["records"][0]["kind"] == "transient" and e["changed"] for e in logged)


def test_bad_request_options_fail_open(proxy: Proxy, upstream: Upstream) -> None:
    chat_client(proxy, **{"x-toolerr-form": "c9"}).chat.completions.create(
        model="gpt-test", messages=chat_messages()
    )  # type: ignore[arg-type]
    assert upstream_messages(upstream) == toolerr.rewrite_openai_chat(chat_messages())


def test_codex_shell_result_by_model_group_and_user_agent(proxy: Proxy, upstream: Upstream) -> None:
    """A Codex `Exit code: 1` shell result (Responses function_call_output): read with
    Codex's templates (model group or User-Agent), generic templates see nothing."""
    items: list[dict[str, Any]] = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "show /etc/shadow"}]},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {
            "type": "function_call",
            "call_id": "call_9",
            "name": "shell",
            "arguments": '{"command":["cat","/etc/shadow"]}',
        },
        {"type": "function_call_output", "call_id": "call_9", "output": CODEX_EXIT},
    ]
    responses = chat_client(proxy).responses.with_raw_response.create(model="codex-test", input=items)  # type: ignore[arg-type]
    assert responses.parse().output_text == "done"
    received = upstream.last()
    assert received.path == "/v1/responses"
    assert received.json["input"] == items  # a shell exit code alone is ambiguous: unchanged
    assert json.loads(responses.headers["x-toolerr"]) == [
        {"position": 2, "tool": "shell", "kind": "ambiguous", "rule": None, "form": "c3", "changed": False}
    ]
    ua = chat_client(proxy, **{"user-agent": "codex_cli_rs/0.50.0 (Ubuntu 24.4.0; x86_64)"})
    assert "x-toolerr" in ua.responses.with_raw_response.create(model="gpt-test", input=items).headers  # type: ignore[arg-type]
    generic = chat_client(proxy).responses.with_raw_response.create(model="gpt-test", input=items)  # type: ignore[arg-type]
    assert "x-toolerr" not in generic.headers


def test_responses_rewritten(proxy: Proxy, upstream: Upstream) -> None:
    items: list[dict[str, Any]] = [
        {"role": "user", "content": "read it"},
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "read_file",
            "arguments": '{"path": "/etc/shadow"}',
        },
        {"type": "function_call_output", "call_id": "call_1", "output": RATE},
    ]
    chat_client(proxy).responses.create(model="gpt-test", input=items)  # type: ignore[arg-type]
    assert upstream.last().json["input"] == toolerr.rewrite_responses(items)
    assert upstream.last().json["input"][-1]["content"][0]["type"] == "input_text"


def test_qwen_code_shell_result(proxy: Proxy, upstream: Upstream) -> None:
    messages = chat_messages(QWEN_EXIT)
    ua = chat_client(proxy, **{"user-agent": "QwenCode/0.2.1 (linux; x64)"})
    raw = ua.chat.completions.with_raw_response.create(model="gpt-test", messages=messages)  # type: ignore[arg-type]
    assert upstream_messages(upstream) == messages
    assert json.loads(raw.headers["x-toolerr"])[0]["kind"] == "ambiguous"


def anthropic_client(proxy: Proxy, **headers: str) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=proxy.url, api_key=MASTER_KEY, max_retries=0, default_headers=headers)


def claude_code_turns(content: str = DENIED) -> list[dict[str, Any]]:
    """A Claude Code request's shape: a Bash tool_use, its tool_result with is_error."""
    return [
        {"role": "user", "content": [{"type": "text", "text": "print /etc/shadow"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "I'll read it."},
                {
                    "type": "tool_use",
                    "id": "toolu_01",
                    "name": "Bash",
                    "input": {"command": "cat /etc/shadow", "description": "Print shadow"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01", "content": content, "is_error": True}
            ],
        },
    ]


def test_anthropic_claude_code_tool_result(proxy: Proxy, upstream: Upstream) -> None:
    turns = claude_code_turns("cat: /etc/shadow: Permission denied")
    client = anthropic_client(proxy, **{"user-agent": "claude-cli/2.0.14 (external, cli)"})
    raw = client.messages.with_raw_response.create(model="claude-test", max_tokens=64, messages=turns)  # type: ignore[arg-type]
    assert raw.parse().content[0].text == "done"  # type: ignore[union-attr]
    received = upstream.last()
    assert received.path.endswith("/v1/messages")
    expected = toolerr.rewrite_anthropic(turns)
    assert received.json["messages"] == expected
    last = received.json["messages"][-1]
    assert [b["type"] for b in last["content"]] == ["tool_result", "text"]  # the note joins the user turn
    assert last["content"][1]["text"].startswith("Note from the tool runtime: the last attempt called Bash")
    roles = [m["role"] for m in received.json["messages"]]
    assert roles == ["user", "assistant", "user"]
    assert json.loads(raw.headers["x-toolerr"])[0]["kind"] == "unrecoverable"


def test_anthropic_passthrough_and_streaming(proxy: Proxy, upstream: Upstream) -> None:
    turns = claude_code_turns()
    turns[-1]["content"][0] = {"type": "tool_result", "tool_use_id": "toolu_01", "content": "root:x:0:0"}
    anthropic_client(proxy).messages.create(model="claude-test", max_tokens=64, messages=turns)  # type: ignore[arg-type]
    assert upstream.last().json["messages"] == turns


def test_two_workers_one_conversation(proxies: tuple[Proxy, Proxy], upstream: Upstream) -> None:
    """A conversation whose turns alternate between two proxy processes: each request is
    rewritten from itself, the same as on one process (repeats counted from the request)."""
    upstream.clear()
    first, second = proxies
    messages = chat_messages()
    seen: list[Any] = []
    for turn in range(4):
        proxy = (first, second)[turn % 2]
        chat_client(proxy).chat.completions.create(model="gpt-test", messages=messages)  # type: ignore[arg-type]
        seen.append(upstream.last().json["messages"])
        call = {
            "id": f"call_{turn + 2}",
            "type": "function",
            "function": {"name": "read_file", "arguments": '{"path": "/etc/shadow"}'},
        }
        messages = [
            *messages,
            {"role": "assistant", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call["id"], "content": RATE},
        ]
    single = []
    messages = chat_messages()
    for turn in range(4):
        chat_client(first).chat.completions.create(model="gpt-test", messages=messages)  # type: ignore[arg-type]
        single.append(upstream.last().json["messages"])
        call = {
            "id": f"call_{turn + 2}",
            "type": "function",
            "function": {"name": "read_file", "arguments": '{"path": "/etc/shadow"}'},
        }
        messages = [
            *messages,
            {"role": "assistant", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call["id"], "content": RATE},
        ]
    assert seen == single
    assert seen[-1][-1]["content"] != seen[0][-1]["content"]  # the retry budget counted across turns
