"""Forms per kind: Policy.form as a mapping from kind to form or a profile name, and the
rule for a decision step whose failures have different forms (DELIVERY.md section 4)."""

from __future__ import annotations

import dataclasses

import pytest
from toolerr import PROFILES, Message, Policy, ToolCall, ToolErrorLayer, rewrite
from toolerr.adapters import GUIDANCE, find_decision_step

SYSTEM = Message("system", "sys")
USER = Message("user", "task")
TRANSIENT = "Error: 503 Service Unavailable"
FIXABLE = (
    "Error: 2 validation errors for Forecast\nunit\n  Input should be 'celsius' or 'fahrenheit' [type=enum]"
)
UNRECOVERABLE = "Error: 403 Forbidden: token lacks scope 'weather:read'"
PER_KIND = {"transient": "c3", "fixable": "abstract", "unrecoverable": "abstract"}

WEATHER = ToolCall(id="a", name="get_weather", arguments={"city": "Paris", "days": 3})
FORECAST = ToolCall(id="b", name="get_forecast", arguments={"city": "Paris", "unit": "kelvin"})

TRANSIENT_NOTE = (
    'Note from the tool runtime: the last attempt called get_weather with city="Paris", days=3 '
    "and it failed with: Error: 503 Service Unavailable\n\n"
    "This is a temporary failure. Retrying the same call is expected to succeed."
)
FIXABLE_ABSTRACT = (
    "Note from the tool runtime: a call to get_forecast (arguments: city, unit) failed with a "
    "fixable error. Diagnosis: Error: 2 validation errors for Forecast\nunit\n  Input should be "
    "'celsius' or 'fahrenheit' [type=enum]\n\n"
    "This call cannot succeed as written. The error says what to change; call the tool again "
    "with the corrected value."
)


def mixed_step(*, trailing_user: bool = False) -> list[Message]:
    messages = [
        SYSTEM,
        USER,
        Message("assistant", "", tool_calls=(WEATHER, FORECAST)),
        Message("tool", TRANSIENT, tool_call_id="a", name="get_weather"),
        Message("tool", FIXABLE, tool_call_id="b", name="get_forecast"),
    ]
    if trailing_user:
        messages.append(Message("user", "go on"))
    return messages


def test_a_mixed_step_keeps_the_transient_call_and_removes_the_fixable_one_byte_exact() -> None:
    messages = mixed_step()
    result = ToolErrorLayer(form=PER_KIND).rewrite(messages)
    out = result.messages
    assert out[:2] == messages[:2] and out[0] is messages[0] and out[1] is messages[1]
    assert out[2] == Message("assistant", "", tool_calls=(WEATHER,))  # the fixable call removed
    assert out[3] is messages[3]  # the transient exchange kept as it was
    assert out[4] == Message("user", TRANSIENT_NOTE + "\n\n" + FIXABLE_ABSTRACT)
    assert len(out) == 5
    assert [(r.tool, r.kind, r.form, r.changed) for r in result.records] == [
        ("get_weather", "transient", "c3", True),
        ("get_forecast", "fixable", "abstract", True),
    ]
    assert GUIDANCE["fixable"] in out[4].content and "kelvin" not in out[4].content
    again = ToolErrorLayer(form=PER_KIND).rewrite(out)
    assert again.messages == out and not again.changed  # idempotent


def test_the_profile_name_and_the_mapping_give_the_same_bytes() -> None:
    messages = mixed_step()
    expected = rewrite(messages, PER_KIND)
    assert rewrite(messages, "small-local") == expected
    assert ToolErrorLayer(profile="small-local").rewrite(messages).messages == expected
    assert ToolErrorLayer(Policy(profile="small-local")).rewrite(messages).messages == expected


def test_c1_for_one_kind_appends_only_to_that_kinds_result() -> None:
    messages = mixed_step()
    out = rewrite(messages, {"transient": "c3", "fixable": "c1"})
    assert out[2] is messages[2] and out[3] is messages[3]
    assert out[4] == Message(
        "tool", FIXABLE + "\n" + GUIDANCE["fixable"], tool_call_id="b", name="get_forecast"
    )
    assert out[5] == Message("user", TRANSIENT_NOTE)  # C3 placement: after the exchange
    assert len(out) == 6
    assert rewrite(out, {"transient": "c3", "fixable": "c1"}) == out


def test_c0_for_one_kind_leaves_it_and_delivers_the_other() -> None:
    messages = mixed_step()
    out = rewrite(messages, {"transient": "c0", "fixable": "c4"})
    assert out[:2] == messages[:2]
    assert out[2] == Message("assistant", "", tool_calls=(WEATHER,))
    assert out[3] is messages[3]
    assert out[4] == Message(
        "user",
        'Note from the tool runtime: the last attempt called get_forecast with city="Paris", '
        f'unit="kelvin" and it failed with: {FIXABLE}\n\n{GUIDANCE["fixable"]}',
    )
    assert TRANSIENT_NOTE not in out[4].content and len(out) == 5


def test_removal_placement_follows_c2_only_when_every_removed_failure_is_c2() -> None:
    messages = mixed_step(trailing_user=True)
    c2 = rewrite(messages, {"transient": "c3", "fixable": "c2"})
    assert [m.role for m in c2] == ["system", "user", "assistant", "tool", "user"]
    assert c2[4].content.startswith("go on\n\n" + TRANSIENT_NOTE + "\n\n")
    c4 = rewrite(messages, {"transient": "c3", "fixable": "c4"})
    assert [m.role for m in c4] == ["system", "user", "assistant", "tool", "user", "user"]
    assert c4[4] is messages[5] and c4[5].content.startswith(TRANSIENT_NOTE + "\n\n")


def test_every_failure_removed_drops_an_empty_assistant_message() -> None:
    messages = mixed_step()
    out = rewrite(messages, {"transient": "abstract", "fixable": "c4"})
    assert [m.role for m in out] == ["system", "user", "user"]
    assert find_decision_step(out) is None
    assert rewrite(out, {"transient": "abstract", "fixable": "c4"}) == out


def test_a_transient_failure_past_its_budget_gets_the_unrecoverable_form() -> None:
    call = ToolCall(id=None, name="get_weather", arguments={"city": "Paris", "days": 3})
    messages = [SYSTEM, USER]
    for index in range(3):
        step = dataclasses.replace(call, id=f"t{index}")
        messages += [
            Message("assistant", "", tool_calls=(step,)),
            Message("tool", TRANSIENT, tool_call_id=f"t{index}", name="get_weather"),
        ]
    result = ToolErrorLayer(form={"transient": "c3", "unrecoverable": "c4"}, retry_budget=1).rewrite(messages)
    assert [(r.kind, r.form) for r in result.records] == [("unrecoverable", "c4")]
    assert result.messages[-1].role == "user" and all(m.tool_call_id != "t2" for m in result.messages)


def test_deliver_result_applies_the_form_of_the_results_kind() -> None:
    layer = ToolErrorLayer(form={"transient": "c1", "fixable": "abstract"})
    transient = layer.deliver_result("get_weather", {"city": "Paris"}, TRANSIENT, call_id="x", run="r")
    assert transient.changed and transient.content == TRANSIENT + "\n" + GUIDANCE["transient"]
    assert transient.record is not None and transient.record.form == "c1"
    fixable = layer.deliver_result("get_forecast", {"unit": "kelvin"}, FIXABLE, call_id="y", run="r")
    assert not fixable.changed and fixable.content == FIXABLE
    assert fixable.record is not None and fixable.record.form == "abstract"
    assert fixable.note is not None and "kelvin" not in fixable.note


def test_policy_form_normalises_and_survives_replace() -> None:
    policy = Policy(form={"Transient": "C3", "fixable": "abstract", "unrecoverable": "abstract"})
    assert policy.form == {
        "transient": "c3",
        "fixable": "abstract",
        "unrecoverable": "abstract",
        "ambiguous": "c3",
    }
    assert dict(policy.forms) == dict(policy.form)  # type: ignore[arg-type]
    assert Policy(form="small-local").form == policy.form == PROFILES["small-local"].forms
    assert Policy(form={"default": "c4"}).form == "c4"  # one form for every kind is that form
    assert Policy(form={"fixable": "c1"}).form_for("transient") == "c3"  # missing: the default form
    assert Policy(form="study-c3").form == "c3"
    assert dataclasses.replace(policy, retry_budget=1).form == policy.form
    assert dataclasses.replace(policy, form="c1").form == "c1"
    assert Policy.coerce(policy, profile="study-c3").form == "c3"
    assert ToolErrorLayer(policy, form="c2").policy.form == "c2"


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ("c9", "unknown form 'c9'; expected one of c0 (detect and record only), c1 (guidance appended"),
        ({"fixable": "c9"}, "unknown form 'c9' for kind 'fixable'; expected one of c0 (detect and record"),
        ({"fixabel": "c1"}, "unknown kind 'fixabel' in form mapping; expected kinds transient, fixable"),
        ({"fixable": 3}, "unknown form 3 for kind 'fixable'"),
        (3, "form must be a form name, a profile name or a mapping from kind to form, got int"),
    ],
)
def test_a_bad_form_is_a_clear_error_naming_the_forms(form: object, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        Policy(form=form)  # type: ignore[arg-type]
    assert str(caught.value).startswith(message)
    if isinstance(form, str):
        assert "abstract (exchange removed, the failure described without its arguments)" in str(caught.value)
        assert "small-local" in str(caught.value)


def test_profiles_carry_their_evidence() -> None:
    assert set(PROFILES) >= {"study-c3", "small-local"}
    small = PROFILES["small-local"]
    assert dict(small.forms) == {
        "transient": "c3",
        "fixable": "abstract",
        "unrecoverable": "abstract",
        "ambiguous": "c3",
    }
    assert small.ban and "RESULTS_eval.md" in small.evidence and "77-87%" in small.evidence
    assert "Same Error, Different Recovery" in PROFILES["study-c3"].evidence
    assert not PROFILES["study-c3"].ban
