"""Each framework's failure texts regenerated through the framework's own agent loop and
compared with the committed ``data/<framework>.jsonl`` (ports, addresses, paths and line
numbers normalised). A framework whose package is not importable here is skipped.

Run one framework: ``TOOLERR_FRAMEWORK_TEXTS=1 pytest shared_core/tests/framework_texts -k
dspy`` in an environment that has it (``nox -s framework_texts`` installs each framework in
a virtualenv of its own). Rewrite a framework's
JSONL after a deliberate upgrade: ``python capture_<fw>.py --write``.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import _cases  # conftest.py puts this folder on sys.path
import pytest

HERE = Path(__file__).resolve().parent

CAPTURES = sorted(p.stem for p in HERE.glob("capture_*.py"))

pytestmark = pytest.mark.filterwarnings("ignore")


@pytest.mark.parametrize("module_name", CAPTURES, ids=[c.removeprefix("capture_") for c in CAPTURES])
def test_texts_regenerate_as_committed(module_name: str) -> None:
    module = importlib.import_module(module_name)
    for name in module.IMPORTS:
        try:
            importlib.import_module(name)
        except Exception as exc:
            pytest.skip(f"{module.FRAMEWORK}: {name} is not importable ({type(exc).__name__}: {exc})")
    fresh = module.collect()
    committed = _cases.committed(module.FRAMEWORK)
    assert [r["id"] for r in fresh] == [r["id"] for r in committed]
    for now, was in zip(fresh, committed):
        assert now["framework"] == was["framework"] == module.FRAMEWORK
        assert (now["exception"], now["kind"]) == (was["exception"], was["kind"]), now["id"]
        assert now["text"].strip(), f"{now['id']}: empty tool result"
        assert _cases.normalise(now["text"]) == _cases.normalise(was["text"]), (
            f"{now['id']} (framework {now['framework_version']}, committed from {was['framework_version']}):\n"
            f"  now {now['text']!r}\n  was {was['text']!r}"
        )


def test_every_framework_has_committed_texts() -> None:
    for module_name in CAPTURES:
        framework = module_name.removeprefix("capture_").replace("_", "-")
        rows = _cases.committed(framework)
        cases = [r["id"].rsplit(":", 1)[1] for r in rows]  # smolagents: one set per agent class
        assert cases and cases == [c.id for c in _cases.CASES] * (len(cases) // len(_cases.CASES)), framework
