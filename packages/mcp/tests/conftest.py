from __future__ import annotations

import pytest
from toolerr._failopen import forget_causes


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _fresh_causes() -> None:
    """fail_open logs once per cause: each test sees its own log records."""
    forget_causes()
