"""toolerr for pydantic-ai: ``Agent(model, tools=[...], capabilities=[ToolErrors()])``."""

from __future__ import annotations

from ._capability import ToolErrors

__version__ = "0.1.0"

__all__ = ["ToolErrors", "__version__"]
