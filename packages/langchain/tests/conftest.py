"""Every test starts with an empty record of tool executions."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from lc_support import EXECUTED


@pytest.fixture(autouse=True)
def _reset_executed() -> Iterator[None]:
    EXECUTED.clear()
    yield
    EXECUTED.clear()
