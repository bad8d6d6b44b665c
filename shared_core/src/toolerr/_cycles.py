"""Cycle detection over a run's recent calls (the contract's "Repeats and loops"): the call
sequence ends with a period of 2 to ``max_cycle_len`` calls repeated twice (``A B A B``,
``A B C A B C``) that contains a failing call.

The :class:`~toolerr._ledger.FailureLedger` keeps the recent calls and asks here about a
call that is about to run.
"""

from __future__ import annotations

from collections.abc import Sequence

Signature = tuple[str, str]
"""A call as ``(tool name, canonical arguments)``."""

__all__ = ["Signature", "find_cycle"]


def _primitive(pattern: list[Signature]) -> bool:
    """A period that is not itself a repetition of a shorter one (``A A`` is period 1)."""
    p = len(pattern)
    return all(pattern != pattern[:d] * (p // d) for d in range(1, p) if p % d == 0)


def find_cycle(
    recent: Sequence[tuple[str, str, bool]], max_cycle_len: int, candidate: Signature
) -> tuple[str, ...] | None:
    """The repeating period as signatures ``name(canonical)`` when ``recent`` (each recorded
    call as ``(name, canonical, failed-for-cycles)``, oldest first) followed by ``candidate``
    ends with it repeated twice and it holds a failing call; else ``None``."""
    n = len(recent)
    for period in range(2, max_cycle_len + 1):
        size = 2 * period - 1
        if n < size:
            break
        window = [recent[i - size] for i in range(size)]
        calls: list[Signature] = [(w[0], w[1]) for w in window]
        calls.append(candidate)
        pattern = calls[period:]
        if calls[:period] != pattern or not _primitive(pattern):
            continue
        # each position's latest recorded status; the candidate's position from the first round
        failing = window[period - 1][2] or any(window[period + i][2] for i in range(period - 1))
        if failing:
            return tuple(f"{call_name}({canon})" for call_name, canon in pattern)
    return None
