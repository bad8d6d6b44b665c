"""toolerr for the Claude Agent SDK: failed tool calls of the Claude Code loop re-delivered.

::

    async with ToolErrorRecovery() as recovery:
        options = recovery.options(ClaudeAgentOptions(...))
        async for message in query(prompt="...", options=options): ...
"""

from __future__ import annotations

from ._recovery import DEFAULT_UPSTREAM, SESSION_HEADER, ToolErrorRecovery

__version__ = "0.1.0"

__all__ = ["DEFAULT_UPSTREAM", "SESSION_HEADER", "ToolErrorRecovery", "__version__"]
