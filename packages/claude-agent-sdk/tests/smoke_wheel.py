"""toolerr-claude-agent-sdk as installed from the wheels (run by ``nox -s wheels`` in a fresh
virtualenv): ToolErrorRecovery's relay on 127.0.0.1 in front of an upstream that records what
it was sent; one failure delivered, a success forwarded byte for byte."""

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
from claude_agent_sdk import ClaudeAgentOptions
from toolerr_claude_agent_sdk import ToolErrorRecovery

SENT: list[bytes] = []
ANSWER = b'event: message_stop\ndata: {"type":"message_stop"}\n\n'


class Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        SENT.append(self.rfile.read(int(self.headers["Content-Length"])))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(ANSWER)))
        self.end_headers()
        self.wfile.write(ANSWER)

    def log_message(self, *args: Any) -> None:
        pass


def conversation(result: str, is_error: bool) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "read the file"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"path": "a"}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": result, "is_error": is_error}
            ],
        },
    ]


async def main(upstream: str) -> None:
    async with ToolErrorRecovery() as recovery, httpx.AsyncClient() as client:
        base = recovery.options(ClaudeAgentOptions(env={"ANTHROPIC_BASE_URL": upstream})).env[
            "ANTHROPIC_BASE_URL"
        ]
        failed = {
            "model": "m",
            "messages": conversation("PermissionError: [Errno 13] Permission denied: 'a'", True),
        }
        answer = await client.post(f"{base}/v1/messages?beta=true", content=json.dumps(failed).encode())
        assert answer.content == ANSWER
        clean = json.dumps({"model": "m", "messages": conversation("hello", False)}, indent=1).encode()
        await client.post(f"{base}/v1/messages?beta=true", content=clean)
    assert SENT[1] == clean, "a request without a failure is forwarded byte for byte"
    note = json.loads(SENT[0])["messages"][-1]["content"][-1]
    assert note["type"] == "text" and note["text"].startswith("Note from the tool runtime: "), note
    assert "cannot be fixed by retrying" in note["text"], note


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    asyncio.run(main(f"http://127.0.0.1:{server.server_address[1]}"))
    server.shutdown()
    print("toolerr-claude-agent-sdk wheel smoke: ok")
