"""A throwaway MariaDB server for the held-out corpus' modules (not a module of cases itself):
``mariadbd`` from the Debian package mariadb-server, initialised with
``mariadb-install-db`` in the module's temporary directory and started on a free 127.0.0.1
port."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ._common import free_port, wait_port

_SEARCH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/usr/bin", "/usr/local/sbin"])


def which(name: str) -> str | None:
    return shutil.which(name, path=_SEARCH)


def unavailable() -> str | None:
    """Why a server cannot be started here, ``None`` when it can."""
    for name in ("mariadbd", "mariadb-install-db"):
        if which(name) is None:
            return f"MariaDB's {name} is not installed (Debian package mariadb-server)"
    return None


@contextmanager
def server(tmp: Path, *extra: str) -> Iterator[tuple[int, Path]]:
    """(port, base directory) of a MariaDB server whose data directory is under ``tmp``;
    ``extra`` server options are added to the command line. Root connects without a
    password over TCP."""
    mariadbd, install = which("mariadbd"), which("mariadb-install-db")
    assert mariadbd is not None and install is not None
    base = tmp / "mariadb"
    data = base / "data"
    base.mkdir()
    (base / "tmp").mkdir()
    # a temporary directory of its own: bootstraps sharing /tmp can collide
    (base / "my.cnf").write_text(f"[mysqld]\ntmpdir={base / 'tmp'}\n")
    as_root = ["--user=root"] if os.geteuid() == 0 else []
    done = subprocess.run(
        [
            install,
            f"--defaults-file={base / 'my.cnf'}",
            f"--datadir={data}",
            "--auth-root-authentication-method=normal",
            "--skip-test-db",
            "--skip-name-resolve",
            *as_root,
        ],
        capture_output=True,
        timeout=180,
    )
    if done.returncode != 0:
        raise RuntimeError(f"mariadb-install-db failed: {done.stdout[-2000:]!r} {done.stderr[-2000:]!r}")
    port = free_port()
    proc = subprocess.Popen(
        [
            mariadbd,
            "--no-defaults",
            f"--datadir={data}",
            f"--port={port}",
            "--bind-address=127.0.0.1",
            f"--socket={base / 'sock'}",
            f"--pid-file={base / 'pid'}",
            f"--log-error={base / 'error.log'}",
            f"--tmpdir={base / 'tmp'}",
            "--skip-name-resolve",
            "--skip-log-bin",
            "--lc-messages=en_US",
            "--innodb-buffer-pool-size=32M",
            *extra,
            *as_root,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_port(port, timeout=60)
        yield port, base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
