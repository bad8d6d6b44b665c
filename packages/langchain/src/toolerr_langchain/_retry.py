"""``retry_on``: a predicate for LangChain's own ``ToolRetryMiddleware`` that retries only
what toolerr's core classifies as turned away.

.. code-block:: python

    from langchain.agents.middleware import ToolRetryMiddleware
    from toolerr_langchain import ToolErrorMiddleware, retry_on

    agent = create_agent(
        model,
        tools,
        middleware=[ToolErrorMiddleware(), ToolRetryMiddleware(retry_on=retry_on)],
    )

The classification is the core's (:meth:`toolerr.ToolErrorLayer.inspect_exception`, from
the exception object); this module holds no rule of its own.
"""

from __future__ import annotations

from toolerr.adapters import fail_open

from ._messages import CLASSIFIER

__all__ = ["retry_on"]


def retry_on(exc: Exception) -> bool:
    """Whether ``ToolRetryMiddleware`` should run a failed tool call again: ``True`` only
    for a transient failure the other side turned away before doing anything (HTTP 429 and
    503, a refused connection, a DNS failure: the core's outcome ``not_executed``), so a
    retry cannot do the work twice. ``False`` for a permanent failure (a
    ``PermissionError``, a 404, a bad argument), for a failure whose outcome is unknown
    (a read timeout, a 500 or 502: the call may have taken effect) and for anything the
    core cannot classify; the exception then reaches the next middleware (put
    ``ToolErrorMiddleware`` before ``ToolRetryMiddleware`` in ``middleware=[...]``, so that
    it turns the exception into an error result for the model).

    Fails closed: an internal error of toolerr's gives ``False`` (no retry; a WARNING on
    logger ``toolerr``), never a duplicate call.

    Args:
        exc: The exception the tool raised (what ``ToolRetryMiddleware`` passes).

    Returns:
        Whether to retry.
    """
    with fail_open("classifying an exception for ToolRetryMiddleware", "it is not retried"):
        verdict = CLASSIFIER.inspect_exception(exc)
        return verdict.kind == "transient" and verdict.outcome == "not_executed"
    return False
