"""Byte for byte: the input the model got at the decision step, for each kind and form,
through the real Runner (run, run_sync, run_streamed) with real tools raising real
exceptions; and the run's own history never holds a note."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agents import Agent
from oa_support import Tools, call, done, note, run_agent, scripted
from shared_support import CASES, UNRECOVERABLE
from toolerr import DetectionRecord
from toolerr.adapters import render_abstract
from toolerr_openai_agents import ToolErrorRecovery

USER = {"content": "Weather in {city}?", "role": "user"}


def _expected(kind: str, form: str) -> list[dict[str, Any]]:
    city, _, error, guidance = CASES[kind]
    user = {"content": f"Weather in {city}?", "role": "user"}
    arguments = json.dumps({"city": city}, separators=(",", ":"))
    fc = {"arguments": arguments, "call_id": "c1", "name": "get_weather", "type": "function_call", "id": "c1"}
    output = f"{error}\n{guidance}" if form == "c1" and guidance else error
    fco = {"call_id": "c1", "output": output, "type": "function_call_output"}
    if guidance is None or form in ("c0", "c1"):
        return [user, fc, fco]
    text = note("get_weather", f'city="{city}"', error, guidance)
    if form == "c2":
        return [{"content": f"Weather in {city}?\n\n{text}", "role": "user"}]
    if form == "c3":
        return [user, fc, fco, {"role": "user", "content": text}]
    if form == "c4":
        return [user, {"role": "user", "content": text}]
    assert form == "abstract"
    # The contract fixes the abstract form's content, not its wording: the core renders it.
    abstract = render_abstract("get_weather", {"city": city}, kind, error, guidance, raw=arguments)  # type: ignore[arg-type]
    assert arguments not in abstract  # the failed argument string is withheld
    assert not city or city not in abstract
    assert abstract.endswith("\n\n" + guidance)
    return [user, {"role": "user", "content": abstract}]


@pytest.mark.parametrize("form", ["c0", "c1", "c2", "c3", "c4", "abstract"])
@pytest.mark.parametrize("kind", list(CASES))
def test_decision_step_input_is_exact(mode: str, kind: str, form: str) -> None:
    city, exception, _, guidance = CASES[kind]
    tools = Tools({city: exception})
    model = scripted([call("get_weather", {"city": city}, "c1")], [done()])
    records: list[DetectionRecord] = []
    recovery = ToolErrorRecovery(form=form, on_record=records.append)
    agent = Agent(
        name="weather", instructions="Answer with the weather.", model=model, tools=[tools.weather()]
    )

    result = run_agent(mode, agent, f"Weather in {city}?", run_config=recovery.run_config())

    assert tools.executed == [("get_weather", {"city": city})]
    first, decision = (c.input for c in model.calls)
    assert first == [{"content": f"Weather in {city}?", "role": "user"}]
    assert decision == _expected(kind, form)
    assert model.calls[1].system_instructions == "Answer with the weather."
    # The run's own history is the SDK's, with no runtime note and no C1 guidance in it.
    history = result.to_input_list()
    assert "Note from the tool runtime" not in json.dumps(history)
    assert history[:3] == _expected(kind, "c0")
    # Detection is always on and recorded.
    assert [(r.tool, r.call_id, r.kind, r.form) for r in records] == [("get_weather", "c1", kind, form)]
    assert records[0].changed is (guidance is not None and form != "c0")


@pytest.mark.parametrize("kind", list(CASES))
def test_a_form_per_kind_delivers_each_kind_in_its_own_form(mode: str, kind: str) -> None:
    city, exception, _, _ = CASES[kind]
    form = "c1" if kind == "fixable" else "c3"
    tools = Tools({city: exception})
    model = scripted([call("get_weather", {"city": city}, "c1")], [done()])
    records: list[DetectionRecord] = []
    recovery = ToolErrorRecovery(form={"fixable": "c1", "default": "c3"}, on_record=records.append)
    agent = Agent(
        name="weather", instructions="Answer with the weather.", model=model, tools=[tools.weather()]
    )

    result = run_agent(mode, agent, f"Weather in {city}?", run_config=recovery.run_config())

    assert [c.input for c in model.calls][1] == _expected(kind, form)
    assert result.to_input_list()[:3] == _expected(kind, "c0")
    assert [(r.kind, r.form) for r in records] == [(kind, form)]


def test_the_default_is_c3_and_sdk_text_is_replaced(mode: str) -> None:
    tools = Tools({"Oslo": PermissionError(13, "Permission denied")})
    model = scripted([call("get_weather", {"city": "Oslo"}, "c1")], [done()])
    agent = Agent(name="weather", model=model, tools=[tools.weather()])

    run_agent(mode, agent, "Weather in Oslo?", run_config=ToolErrorRecovery().run_config())

    decision = model.calls[1].input
    assert "An error occurred while running the tool" not in json.dumps(decision)
    assert decision[-1] == {
        "role": "user",
        "content": note(
            "get_weather", 'city="Oslo"', "PermissionError: [Errno 13] Permission denied", UNRECOVERABLE
        ),
    }


def test_a_failure_is_rewritten_only_at_its_decision_step() -> None:
    tools = Tools({"Oslo": PermissionError(13, "Permission denied")})
    model = scripted(
        [call("get_weather", {"city": "Oslo"}, "c1")],
        [call("get_weather", {"city": "Bergen"}, "c2")],
        [done()],
    )
    agent = Agent(name="weather", model=model, tools=[tools.weather()])

    result = run_agent("run", agent, "Weather in Oslo?", run_config=ToolErrorRecovery().run_config())

    second, third = model.calls[1].input, model.calls[2].input
    assert second[-1]["role"] == "user"
    assert second[-1]["content"].startswith("Note from the tool runtime")
    # The next call shows the failure as the SDK keeps it: no note, same items as the history.
    assert third == result.to_input_list()[: len(third)]
    assert "Note from the tool runtime" not in json.dumps(third)


def test_parallel_calls_stay_paired_when_one_fails(mode: str) -> None:
    tools = Tools({"Oslo": PermissionError(13, "Permission denied")})
    model = scripted(
        [call("get_weather", {"city": "Oslo"}, "c1"), call("get_weather", {"city": "Bergen"}, "c2")],
        [done()],
    )
    agent = Agent(name="weather", model=model, tools=[tools.weather()])

    run_agent(mode, agent, "Weather?", run_config=ToolErrorRecovery(form="c4").run_config())

    decision = model.calls[1].input
    kinds = [(item.get("type"), item.get("call_id")) for item in decision]
    # The failed call and its result are removed together; the good pair stays.
    assert kinds == [(None, None), ("function_call", "c2"), ("function_call_output", "c2"), (None, None)]
    assert decision[2]["output"] == "Bergen: 18 C, cloudy"
    assert decision[3]["content"].startswith(
        "Note from the tool runtime: the last attempt called get_weather"
    )
