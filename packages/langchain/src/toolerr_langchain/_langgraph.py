"""For LangGraph users who build their own graph: a ``handle_tool_errors`` callable for
``ToolNode`` and a plain function that rewrites a message list before a model call.

.. code-block:: python

    from langgraph.prebuilt import ToolNode
    from toolerr_langchain import handle_tool_errors, rewrite_messages

    tool_node = ToolNode(tools, handle_tool_errors=handle_tool_errors)

    def call_model(state):
        return {"messages": [model.invoke(rewrite_messages(state["messages"]))]}

The rewritten list goes to the model only; return the model's answer to the state, never
the rewritten list.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from langgraph.prebuilt.tool_node import ToolInvocationError
from toolerr import DetectionRecord, Policy, ToolErrorLayer, ToolLoopError

from ._messages import CLIENT, TEXT_VERDICTS, graph_run, rewrite_with
from ._middleware import default_error_content

if TYPE_CHECKING:
    from toolerr import PolicyOptions
    from typing_extensions import Unpack

logger = logging.getLogger("toolerr")

_CLASSIFIER = ToolErrorLayer(client=CLIENT)


def handle_tool_errors(e: Exception) -> str:
    """``ToolNode(tools, handle_tool_errors=handle_tool_errors)``: every exception a tool
    raises becomes an error ``ToolMessage`` instead of ending the run.

    The text is LangChain's own for argument validation errors and
    ``Error: {ExceptionType}: {message}`` otherwise. The exception is classified here, and
    :func:`rewrite_messages` (or a :class:`ToolErrorMiddleware`'s ``rewrite``) uses that
    classification for the error message with exactly this text, in the same graph run
    only (one ``invoke``/``stream`` of the graph, by its ``RunControl``; by the configured
    ``thread_id`` on a LangGraph without one): another run, whatever its call ids and
    texts, never sees it. Outside a graph run nothing is kept. When two exceptions of one
    run give the same text with different classifications, neither is used and the text
    is classified on its own.
    """
    content = e.message if isinstance(e, ToolInvocationError) else default_error_content(e)
    try:
        run = graph_run()
        if run is not None:
            TEXT_VERDICTS.put(run, content, _CLASSIFIER.inspect_exception(e, text=content))
    except Exception:  # fail open: the error result goes out unclassified
        logger.warning("toolerr: classifying a ToolNode exception failed", exc_info=True)
    return content


def rewrite_messages(
    messages: Sequence[Any],
    *,
    layer: ToolErrorLayer | None = None,
    policy: Policy | None = None,
    on_record: Callable[[DetectionRecord], None] | None = None,
    **options: Unpack[PolicyOptions],
) -> list[Any]:
    """The LangChain messages for one model call with the toolerr form applied (C3 by
    default).

    Pass the conversation as it is in the graph state; give the result to the model and
    keep the state as it was. Unchanged messages are the very same objects; when there is
    no failure at the decision step the result is a plain copy of the input. Pass a
    ``layer`` (e.g. ``ToolErrorMiddleware().layer``) to keep classifications learned from
    exceptions across calls, or the policy fields for a one-off layer. Fails open: on an
    internal error the messages pass unchanged and the error is logged on logger
    ``toolerr``. Raises :class:`toolerr.ToolLoopError` only with loop action ``stop``, and
    ``ValueError`` for an invalid policy.
    """
    if layer is None:
        layer = ToolErrorLayer(policy, on_record=on_record, client=CLIENT, **options)
    try:
        rewritten = rewrite_with(layer, messages)
    except ToolLoopError:
        raise
    except Exception:  # fail open
        logger.warning("toolerr: rewriting the messages failed; they pass unchanged", exc_info=True)
        return list(messages)
    return list(messages) if rewritten is None else rewritten
