"""An SDK-free stdio MCP server that uses the protocol's other directions: it asks the
client for sampling and roots, sends progress and logging notifications, advertises every
server capability and instructions, and has a note store for the read-write-read case.

Tools: ``client_capabilities`` (what the client's initialize offered), ``progress`` (two
progress notifications, then the result), ``sample`` (a sampling/createMessage request to
the client; its text), ``roots`` (a roots/list request; the URIs), ``read_note`` (fails
while the note is missing: an ambiguous "No such file" error), ``write_note``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

CAPABILITIES: dict[str, Any] = {
    "tools": {"listChanged": True},
    "logging": {},
    "completions": {},
    "resources": {"subscribe": True, "listChanged": True},
    "prompts": {"listChanged": True},
}
INSTRUCTIONS = "Protocol test server: call progress, sample or roots."
TOOLS = [
    {"name": name, "inputSchema": {"type": "object"}}
    for name in ("client_capabilities", "progress", "sample", "roots", "read_note", "write_note")
]


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def text(rid: Any, value: str, error: bool = False) -> None:
    result: dict[str, Any] = {"content": [{"type": "text", "text": value}]}
    if error:
        result["isError"] = True
    send({"jsonrpc": "2.0", "id": rid, "result": result})


def ask(method: str, params: dict[str, Any], lines: Any) -> Any:
    """A request to the client; its answer (the next message with this id)."""
    send({"jsonrpc": "2.0", "id": "srv-1", "method": method, "params": params})
    for line in lines:
        message = json.loads(line)
        if message.get("id") == "srv-1" and "method" not in message:
            return message.get("result")
    return None


def main() -> None:
    client_caps: Any = None
    note: str | None = None
    lines = iter(sys.stdin)
    for line in lines:
        request = json.loads(line)
        method = request.get("method")
        if "id" not in request:
            continue
        rid = request["id"]
        params = request.get("params") or {}
        if method == "initialize":
            client_caps = params.get("capabilities")
            result = {
                "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": CAPABILITIES,
                "serverInfo": {"name": "protocol", "version": "1"},
                "instructions": INSTRUCTIONS,
            }
            send({"jsonrpc": "2.0", "id": rid, "result": result})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}})
        elif method == "tools/call":
            name = params.get("name")
            token = (params.get("_meta") or {}).get("progressToken")
            if name == "client_capabilities":
                text(rid, json.dumps(client_caps, sort_keys=True))
            elif name == "progress":
                for step in (1, 2):
                    progress = {"progressToken": token, "progress": step, "total": 2}
                    send({"jsonrpc": "2.0", "method": "notifications/progress", "params": progress})
                log = {"level": "info", "data": "progress done"}
                send({"jsonrpc": "2.0", "method": "notifications/message", "params": log})
                text(rid, "done")
            elif name == "sample":
                message = {"role": "user", "content": {"type": "text", "text": "hi"}}
                answer = ask("sampling/createMessage", {"messages": [message], "maxTokens": 5}, lines)
                text(rid, "sampled: " + str(((answer or {}).get("content") or {}).get("text")))
            elif name == "roots":
                answer = ask("roots/list", {}, lines)
                text(rid, "roots: " + ",".join(r["uri"] for r in (answer or {}).get("roots", [])))
            elif name == "read_note":
                if note is None:
                    text(rid, "Error: note.txt: No such file or directory", error=True)
                else:
                    text(rid, note)
            elif name == "write_note":
                note = str((params.get("arguments") or {}).get("text"))
                text(rid, "written")
            else:
                send(
                    {
                        "jsonrpc": "2.0",
                        "id": rid,
                        "error": {"code": -32602, "message": f"Unknown tool: {name}"},
                    }
                )
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": rid, "result": {}})
        else:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})


if __name__ == "__main__":
    main()
