"""The held-out live corpus (``libraries/``): each module regenerated through the real
library and compared with its committed JSONL."""

from __future__ import annotations

import generate
import libraries
import pytest

pytestmark = pytest.mark.filterwarnings(
    "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)


@pytest.mark.parametrize("name", libraries.module_names())
def test_module_regenerates_as_committed(name: str) -> None:
    module = libraries.load(name)
    why = libraries.unavailable(module)
    assert why is None, f"{name}: cannot generate here: {why}"
    cases = libraries.generate_module(name)
    assert cases, f"{name} generated no case"
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids)), f"{name}: duplicate ids"
    for c in cases:
        assert c.library == module.LIBRARY, c.id
        assert c.kind in ("transient", "fixable", "unrecoverable", "ambiguous"), c.id
        assert (c.outcome is not None) == (c.kind == "transient"), c.id
        assert isinstance(c.arguments, dict), f"{c.id}: the call's arguments are not recorded"
        if c.parameters is not None:  # the tool's declared schema: the arguments follow it
            assert c.parameters.get("type") == "object", c.id
            declared = c.parameters.get("properties")
            assert isinstance(declared, dict) and set(c.arguments) <= set(declared), c.id
    fresh = {c.id: libraries.record(c) for c in cases}
    committed = libraries.committed(name)
    assert set(fresh) == set(committed), (
        sorted(set(committed) - set(fresh)),
        sorted(set(fresh) - set(committed)),
    )
    changed = [i for i in fresh if fresh[i] != committed[i]]
    assert not changed, "\n".join(f"{i}:\n  now {fresh[i]}\n  was {committed[i]}" for i in changed[:5])


def test_case_ids_unique_across_modules() -> None:
    seen: dict[str, str] = {}
    for name in libraries.module_names():
        for cid in libraries.committed(name):
            assert cid not in seen, f"{cid} in {name} and {seen[cid]}"
            seen[cid] = name
    assert generate.CORPUS.exists()
