from __future__ import annotations

import sys
from pathlib import Path

import pytest

# Helpers shared with the other packages' tests (a fresh clone has them at the repo root).
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests" / "_shared"))

import toolerr_openai_agents._recovery as recovery_module
from oa_support import MODES
from toolerr._failopen import forget_causes


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "sdk_error_detail: run with the adapter's own error_detail default (the SDK's)"
    )


@pytest.fixture(autouse=True)
def _full_error_detail(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests written before ``error_detail`` read the diagnosis the model is shown
    (``Type: message``): they run with ``error_detail="full"`` as the adapter's default.
    The adapter's own default (``"none"``, as the SDK hides exception text) is what the
    tests marked ``sdk_error_detail`` run with (test_error_detail.py)."""
    if request.node.get_closest_marker("sdk_error_detail") is None:
        monkeypatch.setattr(recovery_module, "SDK_ERROR_DETAIL", "full")


@pytest.fixture(autouse=True)
def _fresh_causes() -> None:
    """Each test sees toolerr's fail-open log records again (they are logged once per cause)."""
    forget_causes()


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    """Runner.run, Runner.run_sync and Runner.run_streamed."""
    return str(request.param)
