"""The relay alone (no CLI): what it forwards, where, and that it lives with the context."""

from __future__ import annotations

import asyncio
import gzip
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from claude_agent_sdk import ClaudeAgentOptions, HookMatcher
from shared_support import UNRECOVERABLE
from toolerr_claude_agent_sdk import DEFAULT_UPSTREAM, ToolErrorRecovery

pytestmark = [pytest.mark.enable_socket, pytest.mark.allow_hosts(["127.0.0.1"])]

FAILED = [
    {"role": "user", "content": "read it"},
    {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "t1", "name": "read_secret", "input": {"path": "/x"}}],
    },
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "t1",
                "is_error": True,
                "content": "PermissionError: [Errno 13] Permission denied: '/x'",
            }
        ],
    },
]


class Echo:
    """An upstream on 127.0.0.1 that records each request and answers a gzipped SSE body in
    two chunks."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, dict[str, str], bytes]] = []
        echo = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _record(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                echo.seen.append(
                    (self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                )
                data = gzip.compress(b'event: message_stop\ndata: {"type":"message_stop"}\n\n')
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-encoding", "gzip")
                self.send_header("x-upstream", "echo")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data[:10])
                self.wfile.flush()
                self.wfile.write(data[10:])

            do_POST = _record
            do_GET = _record

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def echo() -> Iterator[Echo]:
    server = Echo()
    yield server
    server.close()


def _base(options: ClaudeAgentOptions) -> str:
    return options.env["ANTHROPIC_BASE_URL"]


def test_a_request_with_no_failure_is_forwarded_byte_for_byte(echo: Echo) -> None:
    # not the compact form json.dumps would give: a re-serialised body would differ
    body = b'{"model": "m",  "messages": [{"role": "user", "content": "caf\\u00e9 1.0e0"}], "stream": true}'

    async def main() -> httpx.Response:
        async with ToolErrorRecovery() as recovery, httpx.AsyncClient() as client:
            base = _base(recovery.options(ClaudeAgentOptions(env={"ANTHROPIC_BASE_URL": echo.url})))
            return await client.post(
                f"{base}/v1/messages?beta=true",
                content=body,
                headers={
                    "x-api-key": "sk-ant-fake",
                    "anthropic-version": "2023-06-01",
                    "anthropic-beta": "b1",
                },
            )

    response = asyncio.run(main())
    method, path, headers, seen = echo.seen[-1]
    assert (method, path, seen) == ("POST", "/v1/messages?beta=true", body)
    assert (headers["x-api-key"], headers["anthropic-version"], headers["anthropic-beta"]) == (
        "sk-ant-fake",
        "2023-06-01",
        "b1",
    )
    # the answer streams back undecoded: the client sees the upstream's gzip and headers
    assert response.headers["content-encoding"] == "gzip" and response.headers["x-upstream"] == "echo"
    assert response.text == 'event: message_stop\ndata: {"type":"message_stop"}\n\n'


def test_a_failed_call_gets_the_note_and_other_fields_stay(echo: Echo) -> None:
    request = {
        "model": "m",
        "max_tokens": 5,
        "messages": FAILED,
        "stream": True,
        "metadata": {"user_id": "u"},
    }

    async def main() -> None:
        async with ToolErrorRecovery() as recovery, httpx.AsyncClient() as client:
            base = _base(recovery.options(ClaudeAgentOptions(env={"ANTHROPIC_BASE_URL": echo.url})))
            await client.post(f"{base}/v1/messages", content=json.dumps(request).encode())

    asyncio.run(main())
    sent = json.loads(echo.seen[-1][3])
    assert {k: v for k, v in sent.items() if k != "messages"} == {
        k: v for k, v in request.items() if k != "messages"
    }
    assert sent["messages"][:2] == FAILED[:2]
    result, note = sent["messages"][2]["content"]
    assert result == FAILED[2]["content"][0]
    assert note["text"].endswith(UNRECOVERABLE)


def test_other_paths_pass_untouched(echo: Echo) -> None:
    async def main() -> None:
        async with ToolErrorRecovery() as recovery, httpx.AsyncClient() as client:
            base = _base(
                recovery.options(ClaudeAgentOptions(env={"ANTHROPIC_BASE_URL": echo.url + "/prefix"}))
            )
            await client.get(f"{base}/v1/models?limit=2")
            await client.post(
                f"{base}/v1/messages/count_tokens", content=json.dumps({"messages": FAILED}).encode()
            )

    asyncio.run(main())
    assert echo.seen[0][:2] == ("GET", "/prefix/v1/models?limit=2")
    assert echo.seen[1][1] == "/prefix/v1/messages/count_tokens"
    assert json.loads(echo.seen[1][3]) == {"messages": FAILED}


def test_the_upstream_comes_from_the_options_then_the_process_then_anthropic(
    echo: Echo, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def main() -> None:
        async with ToolErrorRecovery() as recovery:
            monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
            default = _base(recovery.options(ClaudeAgentOptions()))
            own = _base(recovery.options(ClaudeAgentOptions(env={"ANTHROPIC_BASE_URL": echo.url})))
            monkeypatch.setenv("ANTHROPIC_BASE_URL", echo.url + "/env")
            process = _base(recovery.options(ClaudeAgentOptions()))
            routes = recovery._relay._routes
            token = {base: base.rsplit("/", 1)[1] for base in (default, own, process)}
            assert routes[token[default]] == DEFAULT_UPSTREAM
            assert routes[token[own]] == echo.url
            assert routes[token[process]] == echo.url + "/env"
            assert all(base.startswith(f"http://127.0.0.1:{recovery.port}/r/") for base in token)

    asyncio.run(main())


def test_the_relay_binds_loopback_only_on_a_free_port() -> None:
    """Each relay listens on 127.0.0.1 alone (no other interface), on a port the system
    chose: two at once get two ports."""

    async def main() -> list[tuple[int | None, list[Any]]]:
        async with ToolErrorRecovery() as one, ToolErrorRecovery() as two:
            bound = []
            for recovery in (one, two):
                server = recovery._relay._server
                assert server is not None
                bound.append((recovery.port, [s.getsockname() for s in server.sockets]))
            return bound

    (first, first_sockets), (second, second_sockets) = asyncio.run(main())
    assert first_sockets == [("127.0.0.1", first)] and second_sockets == [("127.0.0.1", second)]
    assert first != second


def test_the_relay_stops_with_the_context(echo: Echo) -> None:
    async def main() -> None:
        async with ToolErrorRecovery() as recovery:
            base = _base(recovery.options(ClaudeAgentOptions(env={"ANTHROPIC_BASE_URL": echo.url})))
        async with httpx.AsyncClient() as client:
            with pytest.raises(httpx.ConnectError):
                await client.get(f"{base}/v1/models")

    asyncio.run(main())


def test_options_is_a_copy_with_the_users_hooks_and_env_kept(echo: Echo) -> None:
    async def own(data: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        return {}

    original = ClaudeAgentOptions(
        env={"ANTHROPIC_BASE_URL": echo.url, "KEEP": "1"}, hooks={"PreToolUse": [HookMatcher(hooks=[own])]}
    )

    async def main() -> None:
        async with ToolErrorRecovery() as recovery:
            options = recovery.options(original)
            assert options is not original and original.env["ANTHROPIC_BASE_URL"] == echo.url
            assert options.env["KEEP"] == "1"
            assert options.hooks is not None and original.hooks is not None
            assert options.hooks["PreToolUse"][0].hooks == [own] and len(options.hooks["PreToolUse"]) == 2
            assert len(original.hooks["PreToolUse"]) == 1

    asyncio.run(main())


def test_options_outside_the_context_is_a_clear_error() -> None:
    with pytest.raises(RuntimeError, match="not started"):
        ToolErrorRecovery().options(ClaudeAgentOptions())


def test_an_unreachable_upstream_is_a_502_from_the_relay() -> None:
    async def main() -> httpx.Response:
        async with ToolErrorRecovery() as recovery, httpx.AsyncClient() as client:
            base = _base(
                recovery.options(ClaudeAgentOptions(env={"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}))
            )
            return await client.post(f"{base}/v1/messages", content=b"{}")

    response = asyncio.run(main())
    assert response.status_code == 502
    assert response.json()["error"]["type"] == "api_error"


def test_loop_action_stop_answers_the_request_with_the_reason(echo: Echo) -> None:
    repeat = [
        FAILED[1],
        {"role": "user", "content": [{**FAILED[2]["content"][0], "tool_use_id": "t2"}]},
    ]
    second = [*FAILED, {**repeat[0], "content": [{**FAILED[1]["content"][0], "id": "t2"}]}, repeat[1]]

    async def main() -> httpx.Response:
        async with ToolErrorRecovery(loop_action="stop") as recovery, httpx.AsyncClient() as client:
            base = _base(recovery.options(ClaudeAgentOptions(env={"ANTHROPIC_BASE_URL": echo.url})))
            return await client.post(f"{base}/v1/messages", content=json.dumps({"messages": second}).encode())

    response = asyncio.run(main())
    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith("toolerr stopped the run: ")
    assert echo.seen == []  # never forwarded


REMINDER = "<system-reminder>\n<total_tokens>14999985 tokens left</total_tokens>\n</system-reminder>"


@pytest.mark.parametrize("shape", ["string", "blocks"])
def test_the_clis_reminder_on_a_result_is_not_read_as_the_failure(echo: Echo, shape: str) -> None:
    """The CLI appends a ``<system-reminder>`` to the latest tool result (after a string; as
    a block after a newline): the note restates the tool's error without it, and the result
    reaches the model as the CLI sent it."""
    error = "PermissionError: [Errno 13] Permission denied: '/x'"
    content: Any = (
        f"{error}\n\n{REMINDER}"
        if shape == "string"
        else [{"type": "text", "text": f"{error}\n"}, {"type": "text", "text": REMINDER}]
    )
    result = {**FAILED[2]["content"][0], "content": content}
    messages = [*FAILED[:2], {"role": "user", "content": [result]}]

    async def main() -> None:
        async with ToolErrorRecovery() as recovery, httpx.AsyncClient() as client:
            base = _base(recovery.options(ClaudeAgentOptions(env={"ANTHROPIC_BASE_URL": echo.url})))
            await client.post(f"{base}/v1/messages", content=json.dumps({"messages": messages}).encode())

    asyncio.run(main())
    sent = json.loads(echo.seen[-1][3])
    shown, note = sent["messages"][2]["content"]
    assert shown == result
    assert note["text"].endswith(f"failed with: {error}\n\n{UNRECOVERABLE}")
    assert "system-reminder" not in note["text"]


def test_the_clis_reminder_stays_with_a_result_the_note_changes(echo: Echo) -> None:
    """Form C1 appends the guidance to the result: the CLI's reminder stays at its end."""
    error = "PermissionError: [Errno 13] Permission denied: '/x'"
    result = {**FAILED[2]["content"][0], "content": f"{error}\n\n{REMINDER}"}
    messages = [*FAILED[:2], {"role": "user", "content": [result]}]

    async def main() -> None:
        async with ToolErrorRecovery(form="c1") as recovery, httpx.AsyncClient() as client:
            base = _base(recovery.options(ClaudeAgentOptions(env={"ANTHROPIC_BASE_URL": echo.url})))
            await client.post(f"{base}/v1/messages", content=json.dumps({"messages": messages}).encode())

    asyncio.run(main())
    [shown] = json.loads(echo.seen[-1][3])["messages"][2]["content"]
    assert shown["content"] == f"{error}\n{UNRECOVERABLE}\n\n{REMINDER}"


def test_a_refused_request_sent_again_is_refused_without_a_second_decision(echo: Echo) -> None:
    """The CLI sends a request the relay refused again (re-serialised): it is refused with
    the same reason, and ``on_loop`` hears of the stop once."""
    repeat = [
        FAILED[1],
        {"role": "user", "content": [{**FAILED[2]["content"][0], "tool_use_id": "t2"}]},
    ]
    second = [*FAILED, {**repeat[0], "content": [{**FAILED[1]["content"][0], "id": "t2"}]}, repeat[1]]
    stops: list[Exception] = []

    async def main() -> list[httpx.Response]:
        recovery = ToolErrorRecovery(loop_action="stop", on_loop=stops.append)
        async with recovery, httpx.AsyncClient() as client:
            base = _base(recovery.options(ClaudeAgentOptions(env={"ANTHROPIC_BASE_URL": echo.url})))
            headers = {"x-claude-code-session-id": "s1"}
            return [
                await client.post(f"{base}/v1/messages", content=body, headers=headers)
                for body in (
                    json.dumps({"messages": second}).encode(),
                    json.dumps({"messages": second}, indent=1).encode(),
                )
            ]

    responses = asyncio.run(main())
    assert [r.status_code for r in responses] == [400, 400]
    assert responses[0].json() == responses[1].json()
    assert len(stops) == 1 and echo.seen == []
