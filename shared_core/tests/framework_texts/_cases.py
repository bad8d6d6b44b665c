"""The failures every capture script's tool raises, and how a capture is written.

Each case is raised for real where the machine allows it: a 503 from an HTTP server on
127.0.0.1 read through ``httpx``, a connection refused by a closed port on 127.0.0.1, a
read that times out on a socket nobody answers. ``PermissionError`` is built as the OS
raises it (``errno.EACCES`` with the path): the tests run as root, where no file is
unreadable. Nothing leaves the machine.

A capture script imports this module, drives the framework's own agent loop with a
scripted model that calls the tool ``get_weather`` once per case, and records the text the
framework sends the model next as the tool result: :func:`write` or :func:`dump`.
"""

from __future__ import annotations

import errno
import json
import re
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import metadata
from pathlib import Path
from typing import Any, NamedTuple

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
TOOL = "get_weather"
TOOL_DOC = "Current weather for a city."


class Case(NamedTuple):
    id: str  # also the city argument the scripted model sends
    exception: str
    kind: str  # the label: what the raised exception means


CASES: tuple[Case, ...] = (
    Case("permission", "PermissionError", "unrecoverable"),
    Case("http503", "httpx.HTTPStatusError", "transient"),
    Case("refused", "ConnectionRefusedError", "transient"),
    Case("12345", "ValueError", "fixable"),
    Case("timeout", "TimeoutError", "transient"),
    Case("keyerror", "KeyError", "ambiguous"),
)
BY_CITY = {c.id: c for c in CASES}


class _Unavailable(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b'{"detail": "upstream weather service unavailable"}'
        self.send_response(503)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def _server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Unavailable)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _refused() -> None:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nobody listens there now
    socket.create_connection(("127.0.0.1", port), timeout=2).close()


def _timeout() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    try:
        with socket.create_connection(listener.getsockname(), timeout=0.2) as conn:
            conn.recv(1)  # the listener never answers: TimeoutError('timed out')
    finally:
        listener.close()


def raise_case(city: str) -> str:
    """The tool's body: raise the failure named by ``city``."""
    if city == "permission":
        raise PermissionError(errno.EACCES, "Permission denied", "/srv/weather/api_key.txt")
    if city == "http503":
        import httpx

        with _server() as base:
            httpx.get(f"{base}/v1/current", params={"q": "Paris"}, timeout=5).raise_for_status()
    if city == "refused":
        _refused()
    if city == "12345":
        raise ValueError("city must be a city name, got '12345'")
    if city == "timeout":
        _timeout()
    if city == "keyerror":
        report: dict[str, Any] = {"city": "Paris"}
        return str(report["forecast"])
    return f"Sunny in {city}"


async def araise_case(city: str) -> str:
    return raise_case(city)


def record(framework: str, dist: str, case: Case, text: str) -> dict[str, Any]:
    return {
        "id": f"{framework}:{case.id}",
        "framework": framework,
        "framework_version": metadata.version(dist),
        "exception": case.exception,
        "kind": case.kind,
        "text": text,
    }


def capture(framework: str, dist: str, run: Callable[[Case], str]) -> list[dict[str, Any]]:
    """One row per case: ``run(case)`` drives the loop and returns the tool-result text."""
    return [record(framework, dist, case, run(case)) for case in CASES]


# --- comparison ----------------------------------------------------------------------------

_NORMALISE = (
    (re.compile(r"127\.0\.0\.1:\d+"), "127.0.0.1:PORT"),
    (re.compile(r"localhost:\d+"), "localhost:PORT"),
    (re.compile(r"0x[0-9a-fA-F]{6,16}"), "0xADDR"),
    (re.compile(r"File \"[^\"\n]*?(/(?:site|dist)-packages/)"), r'File "SITE\1'),
    (re.compile(r"File \"[^\"\n]*/framework_texts/"), 'File "HERE/'),
    (re.compile(r"/(?:tmp|var/folders)/[^\s'\"]*"), "/TMP"),
    (re.compile(r"\d+(?:\.\d+)? ?(?:ms|seconds|s)\b"), "N s"),
    (re.compile(r"\bline \d+"), "line N"),
    (re.compile(r"\n\s*\^[\^~ ]*(?=\n)"), ""),  # traceback carets differ between versions
    (re.compile(r"call_[A-Za-z0-9_-]+"), "call_ID"),
)


def normalise(text: str) -> str:
    for pattern, repl in _NORMALISE:
        text = pattern.sub(repl, text)
    return text


def path(framework: str) -> Path:
    return DATA / f"{framework}.jsonl"


def write(framework: str, rows: list[dict[str, Any]]) -> None:
    DATA.mkdir(exist_ok=True)
    with path(framework).open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False, sort_keys=False) + "\n")


def committed(framework: str) -> list[dict[str, Any]]:
    with path(framework).open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main(framework: str, collect: Callable[[], list[dict[str, Any]]]) -> None:
    """``python capture_<fw>.py``: print the rows; ``--write``: write the JSONL."""
    rows = collect()
    if "--write" in sys.argv:
        write(framework, rows)
    for row in rows:
        print(json.dumps(row, ensure_ascii=False))
