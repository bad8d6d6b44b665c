from __future__ import annotations

import pytest
from oa_support import MODES


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    """Runner.run, Runner.run_sync and Runner.run_streamed."""
    return str(request.param)
