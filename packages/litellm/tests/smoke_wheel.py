"""toolerr-litellm as installed from the wheels (run by ``nox -s wheels`` in a fresh
virtualenv): the real ``litellm.acompletion`` with ``litellm.callbacks = [ToolErrorCallback()]``
against an upstream on 127.0.0.1 that records what it was sent; one failure delivered, a
success unchanged."""

import asyncio
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no fetch of the price list
import litellm
from toolerr_litellm import ToolErrorCallback

SENT: list[Any] = []  # the messages each request carried to the upstream
ANSWER = {
    "id": "x",
    "object": "chat.completion",
    "created": 0,
    "model": "gpt-test",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "done"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}


class Upstream(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        SENT.append(json.loads(self.rfile.read(int(self.headers["Content-Length"])))["messages"])
        body = json.dumps(ANSWER).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def conversation(result: str) -> list[dict[str, Any]]:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "read_file", "arguments": '{"path": "a"}'},
    }
    return [
        {"role": "user", "content": "read the file"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": result},
    ]


server = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
threading.Thread(target=server.serve_forever, daemon=True).start()
litellm.callbacks = [ToolErrorCallback()]
options = {"api_base": f"http://127.0.0.1:{server.server_port}/v1", "api_key": "sk-local", "num_retries": 0}


async def main() -> None:
    for result in ("Error: HTTP 429 Too Many Requests", "contents of a"):
        answer = await litellm.acompletion(model="openai/gpt-test", messages=conversation(result), **options)
        assert answer.choices[0].message.content == "done", answer


asyncio.run(main())
server.shutdown()

failed, ok = SENT
assert "Note from the tool runtime: the last attempt called read_file" in json.dumps(failed), failed
assert "Retrying the same call is expected to succeed" in json.dumps(failed), failed
assert "Note from the tool runtime" not in json.dumps(ok) and ok[-1]["content"] == "contents of a", ok
print("toolerr-litellm smoke: ok")
