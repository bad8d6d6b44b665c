"""error_detail with the Agents SDK (issue 27, item 2): the SDK hides a tool's exception
from the model by default (its ``default_tool_error_function``), and so does the adapter
unless asked for more. These tests run with the adapter's own default (the other tests of
this package are written for ``error_detail="full"``: see conftest.py)."""

from __future__ import annotations

import json
import logging

import pytest
from agents import Agent
from agents.tool import default_tool_error_function
from oa_support import Tools, call, done, note, run_agent, scripted
from shared_support import UNRECOVERABLE
from toolerr import Policy
from toolerr_openai_agents import ToolErrorRecovery

pytestmark = pytest.mark.sdk_error_detail

SECRET_WORDS = ("zebra-quartz", "vault-7731")
CITY = "Oslo"


def _run(recovery: ToolErrorRecovery, mode: str = "run") -> tuple[list[list[dict]], list[dict]]:
    error = PermissionError(13, f"Permission denied: /srv/{SECRET_WORDS[0]}/{SECRET_WORDS[1]}")
    tools = Tools({CITY: error})
    model = scripted([call("get_weather", {"city": CITY}, "c1")], [done()])
    agent = Agent(name="weather", instructions="Answer.", model=model, tools=[tools.weather()])
    result = run_agent(mode, agent, f"Weather in {CITY}?", run_config=recovery.run_config())
    assert tools.executed == [("get_weather", {"city": CITY})]
    return [list(c.input) for c in model.calls], result.to_input_list()


def _output(items: list[dict]) -> str:
    (output,) = [item["output"] for item in items if item.get("type") == "function_call_output"]
    return str(output)


def test_the_sdk_itself_hides_the_exception() -> None:
    """What the adapter's default follows: the SDK's own failure text names nothing."""
    text = default_tool_error_function(None, PermissionError(13, "denied"))  # type: ignore[arg-type]
    assert "PermissionError" not in text and "denied" not in text


def test_the_default_follows_the_sdk_and_shows_the_guidance_only(mode: str) -> None:
    recovery = ToolErrorRecovery()
    assert recovery.policy.error_detail == "none"
    seen, history = _run(recovery, mode)
    decision = seen[1]
    assert _output(decision) == "Error: details withheld"
    assert decision[-1] == {
        "role": "user",
        "content": note("get_weather", f'city="{CITY}"', "details withheld", UNRECOVERABLE),
    }
    text = json.dumps(seen)
    assert "PermissionError" not in text and not any(word in text for word in SECRET_WORDS)
    assert _output(history) == "Error: details withheld"  # what toolerr wrote for the exception


def test_safe_adds_the_type_and_the_errno() -> None:
    seen, _ = _run(ToolErrorRecovery(error_detail="safe"))
    assert _output(seen[1]) == "Error: PermissionError (errno EACCES)"
    assert not any(word in json.dumps(seen) for word in SECRET_WORDS)


def test_full_restores_the_diagnosis() -> None:
    seen, _ = _run(ToolErrorRecovery(error_detail="full"))
    error = f"PermissionError: [Errno 13] Permission denied: /srv/{SECRET_WORDS[0]}/{SECRET_WORDS[1]}"
    assert _output(seen[1]) == error
    assert seen[1][-1]["content"] == note("get_weather", f'city="{CITY}"', error, UNRECOVERABLE)


def test_a_policy_given_keeps_its_own_error_detail() -> None:
    assert ToolErrorRecovery(Policy()).policy.error_detail == "full"
    assert ToolErrorRecovery(Policy(error_detail="safe")).policy.error_detail == "safe"
    assert ToolErrorRecovery(form="c1").policy.error_detail == "none"


def test_the_default_is_said_once_at_debug_not_per_call(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="toolerr")
    recovery = ToolErrorRecovery()
    said = [r for r in caplog.records if "error_detail='none'" in r.getMessage()]
    assert [r.levelno for r in said] == [logging.DEBUG]
    caplog.clear()
    _run(recovery)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
