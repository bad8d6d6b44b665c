"""toolerr for LangChain and LangGraph: detect, classify and re-deliver failed tool calls.

.. code-block:: python

    from toolerr_langchain import ToolErrorMiddleware

    agent = create_agent(model, tools, middleware=[ToolErrorMiddleware()])
"""

from ._messages import METADATA_KEY, from_toolerr, to_toolerr, verdict_of
from ._middleware import (
    ToolErrorMiddleware,
    default_error_content,
    handle_tool_errors,
    retry_on,
    rewrite_messages,
)

__all__ = [
    "METADATA_KEY",
    "ToolErrorMiddleware",
    "default_error_content",
    "from_toolerr",
    "handle_tool_errors",
    "retry_on",
    "rewrite_messages",
    "to_toolerr",
    "verdict_of",
]

__version__ = "0.1.0"
