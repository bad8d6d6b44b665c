"""Helpers shared by the held-out corpus' modules (not a module of cases itself)."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import servers
from generate import _catch

T, F, U, A = "transient", "fixable", "unrecoverable", "ambiguous"
NE, UO = "not_executed", "unknown_outcome"

catch = _catch
free_port = servers.refused_port


def wait_port(port: int, timeout: float = 10.0) -> None:
    """Until something accepts connections on 127.0.0.1:``port``."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def once_served(
    attempt: Callable[[], Any],
    full: type[BaseException] | tuple[type[BaseException], ...],
    timeout: float = 10.0,
) -> Any:
    """``attempt()``'s value once a server that was at its connection limit has seen the
    client's connections close (a server counts a closed connection until it notices: on a
    slow machine it still refuses the next one for a while), retrying on ``full``."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return attempt()
        except full:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


@contextmanager
def process(args: list[str], port: int, **kwargs: Any) -> Iterator[subprocess.Popen[bytes]]:
    """A server process listening on ``port``, stopped (and reaped) on exit."""
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kwargs)
    try:
        wait_port(port)
        yield proc
    finally:
        proc.kill()
        proc.wait(timeout=10)


@contextmanager
def raw_server(handle: Callable[[socket.socket], None]) -> Iterator[int]:
    """A loopback TCP server calling ``handle`` on each accepted socket (then closing it)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.2)
    stop = threading.Event()
    threads: list[threading.Thread] = []

    def serve_one(conn: socket.socket) -> None:
        try:
            handle(conn)
        except OSError:
            pass
        finally:
            conn.close()

    def loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            t = threading.Thread(target=serve_one, args=(conn,), daemon=True)
            t.start()
            threads.append(t)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        listener.close()
