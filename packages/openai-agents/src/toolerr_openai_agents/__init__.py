"""toolerr for the OpenAI Agents SDK.

from toolerr_openai_agents import ToolErrorRecovery
result = await Runner.run(agent, "...", run_config=ToolErrorRecovery().run_config())
"""

from ._recovery import ToolErrorRecovery

__all__ = ["ToolErrorRecovery"]

__version__ = "0.1.0"
