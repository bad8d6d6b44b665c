from __future__ import annotations

import sys
from pathlib import Path

import pytest

# Helpers shared with the other packages' tests (a fresh clone has them at the repo root).
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests" / "_shared"))

from oa_support import MODES
from toolerr._failopen import forget_causes


@pytest.fixture(autouse=True)
def _fresh_causes() -> None:
    """Each test sees toolerr's fail-open log records again (they are logged once per cause)."""
    forget_causes()


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    """Runner.run, Runner.run_sync and Runner.run_streamed."""
    return str(request.param)
