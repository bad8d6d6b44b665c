"""toolerr for Strands Agents: ``Agent(model=..., tools=[...], plugins=[ToolErrorPlugin()])``."""

from __future__ import annotations

from ._plugin import ToolErrorPlugin

__all__ = ["ToolErrorPlugin"]

__version__ = "0.1.0"
