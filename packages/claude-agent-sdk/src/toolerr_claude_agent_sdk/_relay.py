"""The local relay: a small HTTP/1.1 server on 127.0.0.1 in front of an Anthropic upstream.

Each ``POST .../v1/messages`` body gets toolerr's Anthropic wire rewrite (a function the
relay is given); every other request, and every request with nothing to change, is
forwarded byte for byte. Answers stream back undecoded, chunk by chunk.

A route is a path prefix (``/r/<token>``) that names one upstream base URL, so that one
relay serves options with different upstreams.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import socket
from collections.abc import Callable, Mapping

import httpx
from toolerr.adapters import fail_open

logger = logging.getLogger("toolerr")

_HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "transfer-encoding",
        "te",
        "trailer",
        "upgrade",
        "content-length",
        "host",
    }
)
_MAX_HEAD = 64 * 1024

Rewrite = Callable[[bytes, Mapping[str, str]], bytes]
"""``(body, headers) -> body`` for one ``/v1/messages`` request (the same bytes: unchanged)."""


class _BadRequest(Exception):
    pass


class Refusal(Exception):
    """Raised by a rewrite to answer the request itself, with an Anthropic error body
    (``invalid_request_error``), instead of forwarding it."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Relay:
    """An asyncio HTTP relay bound to 127.0.0.1 on a free port.

    Args:
        rewrite: applied to the body of each ``POST .../v1/messages`` request.
        timeout: the upstream read timeout in seconds (``None``: none).
    """

    def __init__(self, rewrite: Rewrite, *, timeout: float | None = 600.0) -> None:
        self._rewrite = rewrite
        self._timeout = timeout
        self._routes: dict[str, str] = {}
        self._server: asyncio.Server | None = None
        self._client: httpx.AsyncClient | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.port: int | None = None

    async def start(self) -> None:
        """Bind 127.0.0.1 on a free port and serve."""
        # TCP_NODELAY: the request's head and body go out in separate writes; with Nagle's
        # algorithm the body would wait for the upstream's delayed ACK (~40 ms a request).
        transport = httpx.AsyncHTTPTransport(socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)])
        self._client = httpx.AsyncClient(
            transport=transport,
            timeout=httpx.Timeout(self._timeout, connect=30.0),
            follow_redirects=False,
            trust_env=False,
        )
        self._server = await asyncio.start_server(self._serve, host="127.0.0.1", port=0)
        self.port = int(self._server.sockets[0].getsockname()[1])

    async def stop(self) -> None:
        """Stop serving, end open connections and close the upstream client."""
        if self._server is not None:
            self._server.close()
            for task in list(self._tasks):
                task.cancel()
            with contextlib.suppress(Exception):
                await asyncio.gather(*self._tasks, return_exceptions=True)
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def route(self, upstream: str) -> str:
        """The base URL (``http://127.0.0.1:<port>/r/<token>``) that relays to ``upstream``."""
        if self.port is None:
            raise RuntimeError("the relay is not started")
        upstream = upstream.rstrip("/")
        token = next((key for key, known in self._routes.items() if known == upstream), None)
        if token is None:
            token = secrets.token_hex(8)
            self._routes[token] = upstream
        return f"http://127.0.0.1:{self.port}/r/{token}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            with fail_open("the Claude relay", "the connection is closed"):
                while await self._one(reader, writer):
                    pass
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError, _BadRequest):
            pass
        finally:
            if task is not None:
                self._tasks.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Serve one request; whether the connection stays open."""
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as exc:
            if exc.partial:
                raise
            return False
        except asyncio.LimitOverrunError as exc:
            raise _BadRequest from exc
        if len(head) > _MAX_HEAD:
            raise _BadRequest
        lines = head.decode("latin-1").split("\r\n")
        try:
            method, target, version = lines[0].split(" ", 2)
        except ValueError as exc:
            raise _BadRequest from exc
        headers: list[tuple[str, str]] = []
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                headers.append((name.strip(), value.strip()))
        lower = {name.lower(): value for name, value in headers}
        body = await _read_body(reader, lower)
        keep = lower.get("connection", "").lower() != "close" and version == "HTTP/1.1"
        path, _, query = target.partition("?")
        parts = path.split("/", 3)  # "", "r", token, rest
        upstream = self._routes.get(parts[2]) if len(parts) >= 3 and parts[1] == "r" else None
        if upstream is None:
            error = {
                "type": "error",
                "error": {"type": "not_found_error", "message": "toolerr relay: unknown route"},
            }
            await _answer(writer, 404, json.dumps(error).encode())
            return keep
        rest = "/" + (parts[3] if len(parts) > 3 else "")
        if method == "POST" and rest.rstrip("/").endswith("/v1/messages"):
            try:
                body = self._rewrite(body, lower)
            except Refusal as refusal:
                error = {
                    "type": "error",
                    "error": {"type": "invalid_request_error", "message": refusal.message},
                }
                await _answer(writer, refusal.status, json.dumps(error).encode())
                return keep
        url = upstream + rest + (f"?{query}" if query else "")
        forward = [(n, v) for n, v in headers if n.lower() not in _HOP_BY_HOP]
        assert self._client is not None
        try:
            request = self._client.build_request(method, url, headers=forward, content=body)
            response = await self._client.send(request, stream=True)
        except httpx.HTTPError as exc:
            logger.warning(
                "toolerr: the Claude relay could not reach the upstream %s: %s", upstream, type(exc).__name__
            )
            message = f"toolerr relay: the upstream could not be reached ({type(exc).__name__})"
            error = {"type": "error", "error": {"type": "api_error", "message": message}}
            await _answer(writer, 502, json.dumps(error).encode())
            return keep
        try:
            out = [f"HTTP/1.1 {response.status_code} {response.reason_phrase}\r\n".encode("latin-1")]
            for name, value in response.headers.multi_items():
                if name.lower() not in _HOP_BY_HOP:
                    out.append(f"{name}: {value}\r\n".encode(response.headers.encoding))
            out.append(b"transfer-encoding: chunked\r\n")
            if not keep:
                out.append(b"connection: close\r\n")
            out.append(b"\r\n")
            writer.write(b"".join(out))
            async for chunk in response.aiter_raw():
                if chunk:
                    writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    await writer.drain()
            writer.write(b"0\r\n\r\n")
            await writer.drain()
        finally:
            await response.aclose()
        return keep


async def _read_body(reader: asyncio.StreamReader, headers: Mapping[str, str]) -> bytes:
    if "chunked" in headers.get("transfer-encoding", "").lower():
        parts: list[bytes] = []
        while True:
            size_line = await reader.readuntil(b"\r\n")
            size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
            if size == 0:
                while (await reader.readuntil(b"\r\n")) != b"\r\n":  # trailers
                    pass
                return b"".join(parts)
            parts.append(await reader.readexactly(size))
            await reader.readexactly(2)
    length = headers.get("content-length")
    if length is None:
        return b""
    try:
        count = int(length)
    except ValueError as exc:
        raise _BadRequest from exc
    return await reader.readexactly(count) if count > 0 else b""


async def _answer(writer: asyncio.StreamWriter, status: int, body: bytes) -> None:
    reason = {400: "Bad Request", 404: "Not Found", 502: "Bad Gateway"}.get(status, "Error")
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n\r\n"
    )
    writer.write(head.encode() + body)
    await writer.drain()
