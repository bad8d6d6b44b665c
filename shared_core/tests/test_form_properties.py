"""Property-based invariants of the forms (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolerr import FORMS, Message, ToolCall, ToolErrorLayer
from toolerr.adapters import content_text

RESULTS = [
    "Error: 503 Service Unavailable",
    "Error: 403 Forbidden",
    "TypeError: f() got an unexpected keyword argument 'x'",
    "Error: 404 Not Found",
    "Error executing tool f",
    "ok: 42",
    "Found 2 results about Timeout errors",
    '{"error": null, "result": 1}',
    '{"error": "Rate limit exceeded"}',
]

names = st.sampled_from(["get_weather", "search", "book", "export"])
arguments = st.dictionaries(
    st.sampled_from(["a", "b", "city"]), st.one_of(st.integers(-5, 5), st.text(max_size=6)), max_size=3
)
results = st.one_of(st.sampled_from(RESULTS), st.text(max_size=40))


@st.composite
def exchanges(draw: st.DrawFn, index: int) -> list[Message]:
    n = draw(st.integers(1, 3))
    calls = tuple(ToolCall(id=f"c{index}_{i}", name=draw(names), arguments=draw(arguments)) for i in range(n))
    out = [Message("assistant", draw(st.sampled_from(["", "Let me check."])), tool_calls=calls)]
    for call in calls:
        out.append(Message("tool", draw(results), tool_call_id=call.id, name=call.name))
    if draw(st.booleans()):
        out.append(Message("user", draw(st.sampled_from(["go on", "thanks"]))))
    return out


@st.composite
def conversations(draw: st.DrawFn) -> list[Message]:
    messages = [Message("system", "sys"), Message("user", "task")]
    for index in range(draw(st.integers(0, 4))):
        messages += draw(exchanges(index))
    return messages


def _pairs(messages: list[Message]) -> tuple[set[str | None], set[str | None]]:
    calls = {c.id for m in messages for c in m.tool_calls}
    results = {m.tool_call_id for m in messages if m.role == "tool"}
    return calls, results


common = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@common
@given(conversations(), st.sampled_from(FORMS))
def test_every_result_stays_paired_with_its_call(messages: list[Message], form: str) -> None:
    out = ToolErrorLayer(form=form).rewrite(messages).messages
    calls, results = _pairs(out)
    assert calls == results


@common
@given(conversations(), st.sampled_from(FORMS))
def test_idempotent(messages: list[Message], form: str) -> None:
    layer = ToolErrorLayer(form=form)
    once = layer.rewrite(messages).messages
    assert layer.rewrite(once).messages == once


@common
@given(conversations(), st.sampled_from(FORMS))
def test_unchanged_when_nothing_failed_at_the_decision_step(messages: list[Message], form: str) -> None:
    # same_result_repeats=0: a successful call repeating its result gets a note (issue 26)
    result = ToolErrorLayer(form=form, same_result_repeats=0).rewrite(messages)
    if not any(r.kind in ("transient", "fixable", "unrecoverable") or r.loop for r in result.records):
        assert result.messages == messages
        assert all(a is b for a, b in zip(result.messages, messages))
        assert not result.changed


@common
@given(conversations(), st.sampled_from(["c0", "c1", "c3"]))
def test_history_keeping_forms_lose_no_message(messages: list[Message], form: str) -> None:
    before = [content_text(m.content) for m in messages]
    out = ToolErrorLayer(form=form).rewrite(messages).messages
    after = [content_text(m.content) for m in out]
    # every original message is still there, in order, as a prefix of its rewritten text
    position = 0
    for text in before:
        while position < len(after) and not after[position].startswith(text):
            position += 1
        assert position < len(after), text
        position += 1
    assert len(out) >= len(messages)
    assert [m.role for m in out if m.role != "user"] == [m.role for m in messages if m.role != "user"]


@common
@given(conversations(), st.sampled_from(FORMS))
def test_the_input_is_never_modified(messages: list[Message], form: str) -> None:
    snapshot = list(messages)
    copies = [Message(m.role, m.content, m.tool_calls, m.tool_call_id, m.name) for m in messages]
    ToolErrorLayer(form=form).rewrite(messages)
    assert messages == snapshot == copies


# -- forms per kind (a mapping from kind to form) ------------------------------------

form_mappings = st.dictionaries(
    st.sampled_from(["transient", "fixable", "unrecoverable", "ambiguous", "default"]),
    st.sampled_from(FORMS),
    max_size=5,
)


@common
@given(conversations(), form_mappings)
def test_per_kind_every_result_stays_paired_with_its_call(
    messages: list[Message], forms: dict[str, str]
) -> None:
    out = ToolErrorLayer(form=forms).rewrite(messages).messages
    calls, results = _pairs(out)
    assert calls == results


@common
@given(conversations(), form_mappings)
def test_per_kind_idempotent(messages: list[Message], forms: dict[str, str]) -> None:
    layer = ToolErrorLayer(form=forms)
    once = layer.rewrite(messages).messages
    assert layer.rewrite(once).messages == once


@common
@given(conversations(), form_mappings)
def test_per_kind_unchanged_when_nothing_failed(messages: list[Message], forms: dict[str, str]) -> None:
    # same_result_repeats=0: a successful call repeating its result gets a note (issue 26)
    result = ToolErrorLayer(form=forms, same_result_repeats=0).rewrite(messages)
    if not any(r.kind in ("transient", "fixable", "unrecoverable") or r.loop for r in result.records):
        assert result.messages == messages
        assert all(a is b for a, b in zip(result.messages, messages))
        assert not result.changed


@common
@given(conversations(), form_mappings)
def test_per_kind_records_name_each_failures_own_form(messages: list[Message], forms: dict[str, str]) -> None:
    layer = ToolErrorLayer(form=forms)
    for record in layer.rewrite(messages).records:
        expected = forms.get(record.kind or "ambiguous", forms.get("default", "c3"))
        assert record.form == expected == layer.policy.form_for(record.kind)


@common
@given(conversations(), st.sampled_from(FORMS))
def test_a_mapping_giving_every_kind_one_form_is_that_form(messages: list[Message], form: str) -> None:
    forms = dict.fromkeys(("transient", "fixable", "unrecoverable", "ambiguous"), form)
    assert ToolErrorLayer(form=forms).policy.form == form
    mapped = ToolErrorLayer(form={"default": form}).rewrite(messages)
    single = ToolErrorLayer(form=form).rewrite(messages)
    assert mapped.messages == single.messages and mapped.records == single.records
