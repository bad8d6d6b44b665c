from __future__ import annotations

import asyncio
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from toolerr._failopen import forget_causes

# Helpers shared with the other packages' tests (a fresh clone has them at the repo root).
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests" / "_shared"))


@pytest.fixture(autouse=True)
def _close_event_loops() -> Iterator[None]:
    """``Agent.run_sync`` runs on the thread's current event loop, creating one when there is
    none, and leaves it open; ``asyncio.run`` in another test then drops it unclosed. Each test
    starts on a fresh loop and every loop it leaves behind is closed."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    yield
    loops = [loop]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            loops.append(asyncio.get_event_loop_policy().get_event_loop())
        except RuntimeError:  # asyncio.run() left no loop set
            pass
    for each in loops:
        if not each.is_closed():
            each.close()
    asyncio.set_event_loop(None)


@pytest.fixture(autouse=True)
def _fresh_causes() -> None:
    """toolerr logs a swallowed error once per cause: each test sees its own again."""
    forget_causes()
