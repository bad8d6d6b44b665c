"""Fixtures: the tiny model and its tokenizer of toolerr-hf's tests, taken from
packages/hf/tests/conftest.py (one definition for both packages' tests), and that model
saved to a folder (what ``--model`` loads)."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path
from typing import Any

import pytest

_PATH = Path(__file__).resolve().parents[2] / "hf" / "tests" / "conftest.py"
_SPEC = importlib.util.spec_from_file_location("toolerr_hf_test_fixtures", _PATH)
assert _SPEC is not None and _SPEC.loader is not None, _PATH
_FIXTURES = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_FIXTURES)

tokenizer = _FIXTURES.tokenizer
tiny_model = _FIXTURES.tiny_model
real_model = _FIXTURES.real_model


@pytest.fixture(scope="session")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory, tiny_model: Any, tokenizer: Any) -> Path:
    """The tiny model and its tokenizer saved to a folder, for ``toolerr eval --model``."""
    folder = tmp_path_factory.mktemp("tiny-model")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tiny_model.save_pretrained(folder)
        tokenizer.save_pretrained(folder)
    return folder
