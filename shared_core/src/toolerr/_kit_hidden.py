"""The adapter kit, hidden retries counted after the fact: where the framework turns a
tool's last exception into a failed result of its own (pydantic-ai's ``ToolFailed``), the
verdict remembered for that result is remembered again with the hidden retries
(``auto_retry``) that came before it. Exported from :mod:`toolerr.adapters`."""

from __future__ import annotations

import dataclasses
from typing import Any

from ._kit import fail_open
from ._kit_retry import hidden_retries_of
from ._layer import ToolErrorLayer

__all__ = ["remember_hidden_retries"]


def remember_hidden_retries(
    layer: ToolErrorLayer,
    call_id: str | None,
    content: Any,
    error: BaseException,
    *,
    run: object | None = None,
) -> None:
    """Remember the verdict kept for a failed result again, with the hidden retries that
    came before the attempt that raised ``error`` (nothing without any, nor without a
    verdict kept). Fails open (logged).

    Args:
        layer: the layer the verdict was remembered in.
        call_id: the call the result answers.
        content: the result's content the verdict was remembered for.
        error: what the call's last attempt raised (:func:`hidden_retries_of` counts it).
        run: the run scope.
    """
    hidden = hidden_retries_of(error)
    if not hidden:
        return
    with fail_open("counting the hidden retries of a tool call", "ignored"):
        verdict = layer.recall(call_id, content, run=run)
        if verdict is not None:
            counted = dataclasses.replace(verdict, hidden_retries=hidden)
            layer.remember(call_id, counted, content=content, run=run)
