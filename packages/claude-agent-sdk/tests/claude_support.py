"""Test support: a fake Anthropic upstream on 127.0.0.1 (Messages API over SSE, scripted
tool_use turns, every request recorded), a real HTTP server that answers 503, and the
bundled Claude Code CLI's real loop run against them offline."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
from claude_agent_sdk import ClaudeAgentOptions, create_sdk_mcp_server, query, tool

MODEL = "claude-sonnet-4-5"


@dataclass(frozen=True)
class Use:
    """A scripted ``tool_use`` block."""

    id: str
    name: str
    input: dict[str, Any]


Turn = Sequence[Use] | str
"""One scripted assistant turn: tool_use blocks, or a final text."""


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class FakeUpstream:
    """A fake ``/v1/messages``: the script is chosen by a marker in the first user message
    and the turn by the number of assistant turns in the request; or, for a path under a
    route (``/run/<key>/...``: a base URL per run, :attr:`routes`), the turn by the number
    of the route's model calls before it (a request toolerr rewrote may hold fewer turns)."""

    scripts: dict[str, list[Turn]] = field(default_factory=dict)
    routes: dict[str, list[Turn]] = field(default_factory=dict)
    requests: list[Recorded] = field(default_factory=list)

    def __post_init__(self) -> None:
        upstream = self
        self._lock = threading.Lock()
        self._served: dict[str, int] = {}

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def setup(self) -> None:
                super().setup()
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length)
                with upstream._lock:
                    upstream.requests.append(
                        Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                    )
                upstream._answer(self, body)

            def do_GET(self) -> None:
                self._plain(404, b"{}")

            def _plain(self, status: int, data: bytes) -> None:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def loop_requests(self, marker: str) -> list[Recorded]:
        """The recorded main-loop requests (with tools) of the run whose prompt holds ``marker``."""
        return [
            r for r in self.requests if r.path.startswith("/v1/messages") and _marker_of(r.json, [marker])
        ]

    def _turn(self, request: Any, path: str) -> Turn:
        if "tools" not in request:
            return "ok"
        parts = path.split("/", 3)
        if len(parts) > 3 and parts[1] == "run" and parts[2] in self.routes:
            with self._lock:
                index = self._served.get(parts[2], 0)
                self._served[parts[2]] = index + 1
            turns = self.routes[parts[2]]
        else:
            marker = _marker_of(request, list(self.scripts))
            if marker is None:
                return "ok"
            turns = self.scripts[marker]
            index = sum(1 for m in request.get("messages", []) if m.get("role") == "assistant")
        return turns[index] if index < len(turns) else "done"

    def _answer(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        request = json.loads(body)
        turn = self._turn(request, handler.path)
        events = _events(turn)
        if request.get("stream"):
            data = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
            kind = "text/event-stream"
        else:
            data = json.dumps(_message(turn)).encode()
            kind = "application/json"
        handler.send_response(200)
        handler.send_header("content-type", kind)
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)


def _first_user_text(request: Any) -> str:
    for message in request.get("messages", []):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            return " ".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


def _marker_of(request: Any, markers: list[str]) -> str | None:
    text = _first_user_text(request)
    return next((m for m in markers if m in text), None)


_ids = iter(range(1, 1 << 30))


def _message(turn: Turn) -> dict[str, Any]:
    if isinstance(turn, str):
        content: list[dict[str, Any]] = [{"type": "text", "text": turn}]
        stop = "end_turn"
    else:
        content = [{"type": "tool_use", "id": u.id, "name": u.name, "input": u.input} for u in turn]
        stop = "tool_use"
    return {
        "id": f"msg_fake_{next(_ids)}",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def _events(turn: Turn) -> list[dict[str, Any]]:
    message = _message(turn)
    start = {**message, "content": [], "stop_reason": None}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            events.append(
                {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}
            )
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            events.append(
                {"type": "content_block_start", "index": index, "content_block": {**block, "input": {}}}
            )
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events.append({"type": "content_block_delta", "index": index, "delta": delta})
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": 5},
        }
    )
    events.append({"type": "message_stop"})
    return events


class Status503:
    """A real HTTP server on 127.0.0.1 that answers every GET with 503."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                data = b"upstream busy"
                self.send_response(503)
                self.send_header("content-type", "text/plain")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/status"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def kit_tools(status_url: str, executed: list[str] | None = None) -> list[Any]:
    """The SDK MCP tools of the tests: ``fetch_status`` (a real GET, raises for its status),
    ``read_secret`` (raises ``PermissionError``) and ``add`` (succeeds); each call's tool
    name is appended to ``executed``."""
    ran = executed if executed is not None else []

    @tool("fetch_status", "GET the status page", {"page": str})
    async def fetch_status(args: dict[str, Any]) -> dict[str, Any]:
        ran.append("fetch_status")
        async with httpx.AsyncClient(trust_env=False) as client:
            response = await client.get(status_url)
            response.raise_for_status()
        return {"content": [{"type": "text", "text": response.text}]}

    @tool("read_secret", "Read the secret file", {"path": str})
    async def read_secret(args: dict[str, Any]) -> dict[str, Any]:
        ran.append("read_secret")
        raise PermissionError(13, "Permission denied", args["path"])

    @tool("add", "Add two numbers", {"a": int, "b": int})
    async def add(args: dict[str, Any]) -> dict[str, Any]:
        ran.append("add")
        return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}

    return [fetch_status, read_secret, add]


def base_options(upstream: str, config_dir: Path, workdir: Path, tools: Sequence[Any]) -> ClaudeAgentOptions:
    """Options for an offline run of the bundled CLI against ``upstream``."""
    server = create_sdk_mcp_server("kit", tools=list(tools))
    return ClaudeAgentOptions(
        model=MODEL,
        cwd=str(workdir),
        mcp_servers={"kit": server},
        allowed_tools=["Read", "mcp__kit__fetch_status", "mcp__kit__read_secret", "mcp__kit__add"],
        permission_mode="dontAsk",
        max_turns=8,
        setting_sources=[],
        env={
            "ANTHROPIC_BASE_URL": upstream,
            "ANTHROPIC_API_KEY": "sk-ant-fake",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "ENABLE_TOOL_SEARCH": "false",
            "CLAUDE_CONFIG_DIR": str(config_dir),
        },
    )


async def run(prompt: str, options: ClaudeAgentOptions) -> list[Any]:
    """The messages of one real run of the CLI."""
    return [message async for message in query(prompt=prompt, options=options)]


def transcripts(config_dir: Path) -> list[Path]:
    """The CLI's own session transcripts (JSONL) under its config directory."""
    return sorted(config_dir.rglob("*.jsonl"))
