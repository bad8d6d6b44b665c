"""A misbehaving stdio MCP server, written without the SDK so it can send bad bytes.

Tools: ``bytes`` (a result whose text is not UTF-8), ``noise`` (a line that is not JSON,
then the result), ``invalid`` (a result that is not a CallToolResult), ``schema`` (structured
content that does not match the tool's output schema) ``extended`` (a failure with
fields of its own) and ``surrogate`` (a failure whose text holds a lone surrogate) and ``ask`` (an input-required
answer of the multi-round-trip protocol) and ``flaky`` (a 503 twice, then a success
with a field of its own).
"""

from __future__ import annotations

import json
import sys

TOOLS: list[dict[str, object]] = [
    {"name": name, "inputSchema": {"type": "object"}}
    for name in ("bytes", "noise", "invalid", "extended", "surrogate", "ask", "flaky")
]
EXTENDED = {
    "content": [{"type": "text", "text": "Error: 503 Service Unavailable", "x-vendor": "kept"}],
    "isError": True,
    "x-trace": {"id": "abc"},
    "_meta": {"vendor": 1},
}
RECOVERED = {"content": [{"type": "text", "text": "sunny"}], "x-trace": {"id": "third"}}
"""What ``flaky`` answers at its third call."""
INPUT_REQUIRED = {
    "resultType": "input_required",
    "inputRequests": {
        "confirm": {
            "method": "elicitation/create",
            "params": {"message": "Delete it?", "requestedSchema": {"type": "object", "properties": {}}},
        }
    },
    "requestState": "state-1",
}
TOOLS.append(
    {
        "name": "schema",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
    }
)


def send(out: object, message: dict[str, object]) -> None:
    write(json.dumps(message).encode())


def write(data: bytes) -> None:
    sys.stdout.buffer.write(data + b"\n")
    sys.stdout.buffer.flush()


def main() -> None:
    flaky_calls = 0
    for line in sys.stdin.buffer:
        try:
            request = json.loads(line)
        except ValueError:
            continue
        method = request.get("method")
        if "id" not in request:
            continue  # a notification
        rid = request["id"]
        if method == "initialize":
            version = request.get("params", {}).get("protocolVersion", "2025-06-18")
            result: dict[str, object] = {
                "protocolVersion": version,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "raw", "version": "0"},
            }
            send(None, {"jsonrpc": "2.0", "id": rid, "result": result})
        elif method == "tools/list":
            send(None, {"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}})
        elif method == "tools/call":
            name = request.get("params", {}).get("name")
            if name == "bytes":
                body = json.dumps(
                    {"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "@@"}]}}
                ).encode()
                write(body.replace(b"@@", b"caf\xe9 \xff\xfe ok"))
            elif name == "noise":
                write(b"this line is not JSON-RPC")
                content = [{"type": "text", "text": "after the noise"}]
                send(None, {"jsonrpc": "2.0", "id": rid, "result": {"content": content}})
            elif name == "extended":  # a failure with fields the SDK's models do not know
                send(None, {"jsonrpc": "2.0", "id": rid, "result": EXTENDED})
            elif name == "surrogate":  # json.dumps escapes it: "\\ud800"
                text = {"type": "text", "text": "Error: 503 Service Unavailable \ud800"}
                send(None, {"jsonrpc": "2.0", "id": rid, "result": {"content": [text], "isError": True}})
            elif name == "flaky":  # 503 twice, then a success
                flaky_calls += 1
                answer = EXTENDED if flaky_calls <= 2 else RECOVERED
                send(None, {"jsonrpc": "2.0", "id": rid, "result": answer})
            elif name == "ask":  # a multi-round-trip answer: input required, not a result yet
                send(None, {"jsonrpc": "2.0", "id": rid, "result": INPUT_REQUIRED})
            elif name == "schema":
                result = {"content": [{"type": "text", "text": "n is x"}], "structuredContent": {"n": "x"}}
                send(None, {"jsonrpc": "2.0", "id": rid, "result": result})
            elif name == "invalid":
                send(
                    None,
                    {"jsonrpc": "2.0", "id": rid, "result": {"content": "not a list", "isError": "maybe"}},
                )
            else:
                error = {"code": -32602, "message": f"Unknown tool: {name}"}
                send(None, {"jsonrpc": "2.0", "id": rid, "error": error})
        elif method == "ping":
            send(None, {"jsonrpc": "2.0", "id": rid, "result": {}})
        else:
            send(
                None, {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}}
            )


if __name__ == "__main__":
    main()
