"""Helpers of the parser modules: a static HTTP server on 127.0.0.1 serving documents a tool
fetched from another service (a package index, a CRM, a scheduler) rather than wrote from
its arguments, and a fresh stack for the cases that hit the recursion limit."""

from __future__ import annotations

import threading
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from generate import _catch


@contextmanager
def documents(pages: dict[str, tuple[str, bytes]]) -> Iterator[int]:
    """Serve ``pages`` (path -> content type, body) with 200; other paths 404."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            page = pages.get(self.path)
            if page is None:
                self.send_error(404)
                return
            kind, body = page
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def get(port: int, path: str) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as response:
        return response.read().decode()


def catch_on_fresh_stack(fn: Callable[[], Any]) -> BaseException:
    """What ``fn`` raises, run in a new thread: its stack starts at the same depth whether
    the corpus is generated from the command line or under pytest, so a recursion limit is
    hit at the same place (and with the same message) each time."""
    caught: list[BaseException] = []
    thread = threading.Thread(target=lambda: caught.append(_catch(fn)))
    thread.start()
    thread.join()
    return caught[0]
