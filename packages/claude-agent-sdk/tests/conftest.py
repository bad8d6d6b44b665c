from __future__ import annotations

import sys
from pathlib import Path

import pytest
from toolerr._failopen import forget_causes

sys.path.insert(0, str(Path(__file__).parent))

# Helpers shared with the other packages' tests (a fresh clone has them at the repo root).
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests" / "_shared"))


@pytest.fixture(autouse=True)
def _log_every_cause() -> None:
    """toolerr logs a swallowed error once per cause: each test sees its own."""
    forget_causes()
