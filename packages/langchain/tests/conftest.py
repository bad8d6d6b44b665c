"""Every test starts with an empty record of tool executions and of logged causes."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from toolerr._failopen import forget_causes

# the adapters' shared test helpers (tests/_shared)
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests" / "_shared"))

from lc_support import EXECUTED


@pytest.fixture(autouse=True)
def _reset_executed() -> Iterator[None]:
    EXECUTED.clear()
    forget_causes()  # a cause is logged once: each test sees its own
    yield
    EXECUTED.clear()
