"""The adapter kit, what a rewrite changed of a framework's own parts: whether a rebuilt
list holds the very objects it was built from (then the original container is kept), and
the text a form appended after a part's own text. Exported from :mod:`toolerr.adapters`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["appended_text", "same_objects"]


def same_objects(items: Sequence[Any], original: Sequence[Any]) -> bool:
    """Whether ``items`` are the very objects of ``original``, in its order (by identity:
    an adapter then keeps the framework's own container instead of a copy).

    Args:
        items: the objects rebuilt for a rewritten message.
        original: the framework's own.

    Returns:
        ``True`` when both have the same length and each item is its original.
    """
    return len(items) == len(original) and all(a is b for a, b in zip(items, original, strict=True))


def appended_text(before: str, after: str) -> str | None:
    """What a form appended after a part's own text (C1's guidance, a note added to a user
    turn), for an adapter that keeps the part and adds only that.

    Args:
        before: the part's text as the core was given it.
        after: the rewritten message's text.

    Returns:
        The text after ``before`` (``""``: nothing was appended); ``None`` when ``after``
        does not start with ``before`` (the text was replaced).
    """
    return after[len(before) :] if after.startswith(before) else None
