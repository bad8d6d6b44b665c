"""Test data shared by the adapters' tests (``tests/_shared`` is put on ``sys.path`` by each
package's ``tests/conftest.py``).

The guidance sentences of DELIVERY.md section 1, byte-exact, written out here so the tests
do not take them from the code under test; and one real exception per kind, with the text
the model sees for it; the path of the stdio MCP server they start.
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable
from pathlib import Path

MCP_FILES_SERVER = Path(__file__).with_name("mcp_files_server.py")
"""A stdio MCP server script (mcp 2.x): ``read_file``, ``fetch`` and ``book`` fail as real
servers do; start it with ``sys.executable``."""

TRANSIENT = "This is a temporary failure. Retrying the same call is expected to succeed."
FIXABLE = (
    "This call cannot succeed as written. The error says what to change; "
    "call the tool again with the corrected value."
)
UNRECOVERABLE = "This cannot be fixed by retrying or by changing the arguments. Tell the user what happened."

# kind -> (city, exception the tool raises, the error text the model sees, guidance)
CASES: dict[str, tuple[str, BaseException, str, str | None]] = {
    "transient": (
        "Paris",
        ConnectionRefusedError(111, "Connection refused"),
        "ConnectionRefusedError: [Errno 111] Connection refused",
        TRANSIENT,
    ),
    "fixable": ("", ValueError("city must not be empty"), "ValueError: city must not be empty", FIXABLE),
    "unrecoverable": (
        "Oslo",
        PermissionError(13, "Permission denied"),
        "PermissionError: [Errno 13] Permission denied",
        UNRECOVERABLE,
    ),
    "ambiguous": (
        "Lima",
        FileNotFoundError(2, "No such file or directory"),
        "FileNotFoundError: [Errno 2] No such file or directory",
        None,
    ),
}


def bytes_kept_after_runs(one_run: Callable[[int], None], runs: int = 8) -> int:
    """Bytes still allocated after ``runs`` more calls of ``one_run(n)`` (n = 1..runs) than
    before them, after one call first (the framework's own first-use allocations) and a
    collection: what finished runs keep alive."""
    one_run(0)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for n in range(1, runs + 1):
            one_run(n)
        gc.collect()
        return int(tracemalloc.get_traced_memory()[0] - before)
    finally:
        tracemalloc.stop()
