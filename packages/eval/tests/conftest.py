"""Fixtures: the tiny model and its tokenizer of toolerr-hf's tests, taken from
packages/hf/tests/conftest.py (one definition for both packages' tests)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "hf" / "tests" / "conftest.py"
_SPEC = importlib.util.spec_from_file_location("toolerr_hf_test_fixtures", _PATH)
assert _SPEC is not None and _SPEC.loader is not None, _PATH
_FIXTURES = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_FIXTURES)

tokenizer = _FIXTURES.tokenizer
tiny_model = _FIXTURES.tiny_model
real_model = _FIXTURES.real_model
