"""Helpers for the file-format modules (``openpyxl_``, ``pypdf_``): the operating system's own
refusals, raised the same way whether the generator runs as root or not (not a module of
cases itself)."""

from __future__ import annotations

import os
import resource
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from generate import _catch

NOBODY = 65534


@contextmanager
def unprivileged() -> Iterator[None]:
    """Run as an ordinary user: as root, the effective uid is ``nobody`` for the block (root's
    real uid gets it back), so that a file mode or a private directory refuses as it does for
    any user; otherwise nothing changes."""
    if os.geteuid() != 0:
        yield
        return
    os.seteuid(NOBODY)
    try:
        yield
    finally:
        os.seteuid(0)


def denied(fn: Callable[[], Any]) -> BaseException:
    """``fn``'s exception, run as an ordinary user."""
    with unprivileged():
        return _catch(fn)


def read_only_dir(path: Path) -> Path:
    """A directory an ordinary user may list but not write into (``0o555``), its parents
    searchable (the generator's temporary directory is ``0o700``)."""
    path.mkdir()
    for parent in [path.parent, *path.parent.parents]:
        if str(parent).startswith("/tmp/") and parent.stat().st_uid == os.geteuid():
            parent.chmod(parent.stat().st_mode | 0o011)
    path.chmod(0o555)
    return path


@contextmanager
def file_size_limit(limit: int) -> Iterator[None]:
    """``RLIMIT_FSIZE`` at ``limit`` bytes for the block (a quota on the size of the files this
    process writes): writes past it fail with EFBIG ``File too large`` (SIGXFSZ ignored)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)
