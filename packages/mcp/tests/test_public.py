"""The public surface."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import toolerr_mcp


def test_all() -> None:
    assert sorted(toolerr_mcp.__all__) == [
        "META_KEY",
        "Proxy",
        "RecoveringSession",
        "TRANSPORT_ERRORS",
        "ToolErrorInterceptor",
        "ToolErrorServerMiddleware",
        "UpstreamError",
        "UpstreamLost",
        "UpstreamUnavailable",
    ]
    for name in toolerr_mcp.__all__:
        if name == "ToolErrorServerMiddleware" and importlib.util.find_spec("fastmcp") is None:
            continue  # the extra toolerr-mcp[fastmcp] (test_server_middleware.py)
        assert getattr(toolerr_mcp, name) is not None
    assert toolerr_mcp.META_KEY == "toolerr"


def test_typed() -> None:
    assert (Path(toolerr_mcp.__file__).parent / "py.typed").is_file()


def test_import_does_not_need_langchain() -> None:
    code = (
        "import sys, toolerr_mcp; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('langchain', 'langchain_core', "
        "'langchain_mcp_adapters', 'langgraph')]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
