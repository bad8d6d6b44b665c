from __future__ import annotations

import toolerr_pydantic_ai
from pydantic_ai.capabilities import AbstractCapability


def test_all() -> None:
    assert toolerr_pydantic_ai.__all__ == ["ToolErrors", "__version__"]
    for name in toolerr_pydantic_ai.__all__:
        assert hasattr(toolerr_pydantic_ai, name)


def test_is_a_capability_with_the_policy() -> None:
    capability = toolerr_pydantic_ai.ToolErrors(form="c1", loop_action="block", retry_budget=2)
    assert isinstance(capability, AbstractCapability)
    assert (capability.policy.form, capability.policy.loop_action, capability.policy.retry_budget) == (
        "c1",
        "block",
        2,
    )
    assert capability.policy.client == "generic"


def test_bad_options_are_refused() -> None:
    import pytest

    with pytest.raises(ValueError):
        toolerr_pydantic_ai.ToolErrors(form="c9")
