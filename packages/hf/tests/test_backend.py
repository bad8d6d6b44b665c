"""LocalToolModel on the tiny model, driven by a scripted model: render, generate, parse, ban, score."""

from __future__ import annotations

import logging
from typing import Any

import pytest
import torch
from conftest import WEATHER_CALL as CALL
from conftest import WEATHER_TOOLS as TOOLS
from conftest import Script
from toolerr import Message, ToolCall, ToolErrorLayer, ToolLoopError
from toolerr_hf import Generation, LocalToolModel

FIXED = '{"name": "get_weather", "arguments": {"city": "Paris, FR"}}'
FIXABLE = "Error: Invalid arguments: city must be 'City, CC', e.g. 'Paris, FR'."


def ids_of(tokenizer: Any, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


@pytest.fixture
def backend(tiny_model: Any, tokenizer: Any) -> LocalToolModel:
    counter = iter(range(1000))
    return LocalToolModel(tiny_model, tokenizer, max_new_tokens=40, call_id=lambda: f"call_{next(counter)}")


def failed_conversation(result: str = FIXABLE, call_text: str | None = None) -> list[Message]:
    call = ToolCall(
        id="c1", name="get_weather", arguments={"city": "Paris"}, raw_arguments='{"city": "Paris"}'
    )
    meta = {"call_texts": {"c1": call_text}} if call_text else {}
    return [
        Message(role="system", content="Be brief."),
        Message(role="user", content="Weather in Paris?"),
        Message(role="assistant", content="", tool_calls=(call,), meta=meta),
        Message(role="tool", content=result, tool_call_id="c1", name="get_weather"),
    ]


def test_chat_messages_render_tools_calls_and_results(backend: LocalToolModel) -> None:
    call = ToolCall(id="a", name="get_weather", arguments={"city": "Rome"})
    turns = backend.chat_messages(
        [
            Message(role="system", content="Be brief."),
            Message(role="user", content="Rome and Oslo?"),
            Message(
                role="assistant",
                content="Checking.",
                tool_calls=(call, ToolCall(id="b", name="get_weather", arguments={"city": "Oslo"})),
            ),
            Message(role="tool", content="18 C", tool_call_id="a"),
            Message(role="tool", content="Error: Forbidden", tool_call_id="b"),
            Message(role="system", content="late system text"),
        ],
        TOOLS,
    )
    assert [t["role"] for t in turns] == ["system", "user", "assistant", "user", "user"]
    assert turns[0]["content"].startswith("Be brief.\n\nYou can call tools. Tools:\n")
    assert turns[2]["content"] == (
        'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n</tool_call>\n'
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'
    )
    assert (
        turns[3]["content"]
        == "<tool_response>\n18 C\n</tool_response>\n<tool_response>\nError: Forbidden\n</tool_response>"
    )
    assert turns[4] == {"role": "user", "content": "late system text"}  # tool-side text never goes to system


def test_render_prefills_a_forced_call(backend: LocalToolModel) -> None:
    conversation = [Message(role="user", content="hi")]
    assert backend.render(conversation, TOOLS, tool_choice="required").endswith(
        "<|im_start|>assistant\n<tool_call>\n"
    )
    assert backend.render(conversation, TOOLS, tool_choice="get_weather").endswith(
        '<|im_start|>assistant\n<tool_call>\n{"name": "get_weather", "arguments": '
    )
    assert backend.render(conversation, TOOLS).endswith("<|im_start|>assistant\n")
    none = backend.render(conversation, TOOLS, tool_choice="none")
    assert "You can call tools" not in none


def test_generate_parses_the_call_and_stops_after_it(backend: LocalToolModel, tokenizer: Any) -> None:
    script = Script([ids_of(tokenizer, CALL + "\n</tool_call>\nThe weather is sunny and more made-up text")])
    out = backend.generate(
        [Message(role="user", content="Weather in Paris?")],
        TOOLS,
        tool_choice="required",
        logits_processor=[script],
    )
    assert out.text == f"<tool_call>\n{CALL}\n</tool_call>"
    assert out.finish_reason == "tool_calls"
    assert [(c.name, c.arguments, c.text) for c in out.calls] == [("get_weather", {"city": "Paris"}, CALL)]
    assert out.call_ids == ("call_0",)
    assert out.tool_calls == (
        ToolCall(
            id="call_0", name="get_weather", arguments={"city": "Paris"}, raw_arguments='{"city": "Paris"}'
        ),
    )
    message = out.to_message()
    assert message.role == "assistant" and message.meta["call_texts"] == {"call_0": CALL}
    assert out.banned == frozenset() and out.interventions == 0
    assert out.completion_tokens == len(ids_of(tokenizer, CALL + "\n</tool_call>"))


def test_prose_reply(backend: LocalToolModel, tokenizer: Any) -> None:
    script = Script([[*ids_of(tokenizer, "The weather is sunny."), tokenizer.eos_token_id]])
    out = backend.generate([Message(role="user", content="Weather?")], TOOLS, logits_processor=[script])
    assert out.content == "The weather is sunny."
    assert out.calls == ()
    assert out.finish_reason == "stop"


def test_a_call_cut_at_the_limit_is_invalid(backend: LocalToolModel, tokenizer: Any) -> None:
    script = Script([ids_of(tokenizer, CALL)])
    out = backend.generate(
        [Message(role="user", content="Weather?")],
        TOOLS,
        tool_choice="required",
        logits_processor=[script],
        max_new_tokens=5,
    )
    assert out.finish_reason == "length"
    assert out.calls == ()
    assert out.invalid[0].error == "the call was cut off at the token limit"


def test_the_failed_call_is_banned_from_the_ledger(backend: LocalToolModel, tokenizer: Any) -> None:
    target = ids_of(tokenizer, CALL + "\n</tool_call>")
    conversation = failed_conversation()
    free = backend.generate(
        conversation, TOOLS, tool_choice="required", ban=False, logits_processor=[Script([target])]
    )
    assert free.calls[0].text == CALL  # the scripted model repeats the failed call ...
    out = backend.generate(conversation, TOOLS, tool_choice="required", logits_processor=[Script([target])])
    assert out.banned == frozenset({CALL})  # ... the ledger (fixable failure) bans it ...
    assert CALL not in out.text  # ... and it cannot be written again
    assert out.interventions == 1


def test_a_call_as_the_model_wrote_it_is_banned_too(backend: LocalToolModel, tokenizer: Any) -> None:
    written = '{"name":"get_weather","arguments":{"city":"Paris"}}'
    conversation = failed_conversation(call_text=written)
    assert set(backend.banned_calls(conversation)) == {CALL, written}
    prompt = backend.render(conversation, TOOLS)
    assert f"<tool_call>\n{written}\n</tool_call>" in prompt  # history shows what the model wrote
    out = backend.generate(
        conversation, TOOLS, tool_choice="required", logits_processor=[Script([ids_of(tokenizer, written)])]
    )
    assert written not in out.text


def test_transient_failures_within_the_budget_are_not_banned(backend: LocalToolModel) -> None:
    conversation = failed_conversation("Error: 503 Service Unavailable")
    assert backend.banned_calls(conversation) == []


def test_abstract_form_hides_the_call_and_the_ban_still_holds_it(tiny_model: Any, tokenizer: Any) -> None:
    backend = LocalToolModel(tiny_model, tokenizer, layer=ToolErrorLayer(form="abstract"), max_new_tokens=30)
    conversation = failed_conversation()
    out = backend.generate(
        conversation, TOOLS, tool_choice="required", logits_processor=[Script([ids_of(tokenizer, CALL)])]
    )
    assert '"Paris"' not in out.prompt  # the failed argument string is withheld from the model ...
    assert "Note from the tool runtime: a call to get_weather" in out.prompt
    assert out.banned == frozenset({CALL})  # ... and banned at the decoder
    assert CALL not in out.text
    assert [r.form for r in out.records] == ["abstract"] and out.records[0].changed
    assert all(m.role != "tool" for m in out.seen)


def test_c3_form_adds_the_runtime_note(tiny_model: Any, tokenizer: Any) -> None:
    backend = LocalToolModel(
        tiny_model, tokenizer, layer=ToolErrorLayer(form="c3"), ban=False, max_new_tokens=5
    )
    out = backend.generate(failed_conversation(), TOOLS)
    assert 'Note from the tool runtime: the last attempt called get_weather with city="Paris"' in out.prompt
    assert out.banned == frozenset()


def test_loop_stop_propagates(tiny_model: Any, tokenizer: Any) -> None:
    backend = LocalToolModel(
        tiny_model, tokenizer, layer=ToolErrorLayer(loop_action="stop"), max_new_tokens=5
    )
    conversation = failed_conversation()
    repeat = ToolCall(
        id="c2", name="get_weather", arguments={"city": "Paris"}, raw_arguments='{"city": "Paris"}'
    )
    conversation += [
        Message(role="assistant", content="", tool_calls=(repeat,)),
        Message(role="tool", content=FIXABLE, tool_call_id="c2", name="get_weather"),
    ]
    with pytest.raises(ToolLoopError):
        backend.generate(conversation, TOOLS)


def test_ban_failure_fails_open(
    backend: LocalToolModel, tokenizer: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: Any, **kwargs: Any) -> list[str]:
        raise RuntimeError("boom")

    monkeypatch.setattr(backend, "banned_calls", broken)
    with caplog.at_level(logging.WARNING, logger="toolerr"):
        out = backend.generate(
            failed_conversation(),
            TOOLS,
            tool_choice="required",
            logits_processor=[Script([ids_of(tokenizer, CALL + "</tool_call>")])],
        )
    assert out.calls[0].text == CALL
    assert "could not build the ban" in caplog.text


def test_batch_generation_with_one_ledger_per_row(backend: LocalToolModel, tokenizer: Any) -> None:
    failed = failed_conversation()
    fresh = [Message(role="user", content="Weather in Paris, please?")]
    target = ids_of(tokenizer, CALL + "\n</tool_call>")
    outs = backend.generate_batch(
        [failed, fresh, failed], TOOLS, tool_choice="required", logits_processor=[Script([target] * 3)]
    )
    assert [o.banned for o in outs] == [frozenset({CALL}), frozenset(), frozenset({CALL})]
    assert CALL not in outs[0].text and CALL not in outs[2].text
    assert outs[1].calls[0].text == CALL
    assert outs[0].text == outs[2].text
    extra = backend.generate_batch(
        [fresh, fresh],
        TOOLS,
        tool_choice="required",
        banned=[[CALL], []],
        logits_processor=[Script([target] * 2)],
    )
    assert CALL not in extra[0].text and extra[1].calls[0].text == CALL
    with pytest.raises(ValueError, match="one list"):
        backend.generate_batch([fresh], TOOLS, banned=[[], []])
    assert backend.generate_batch([], TOOLS) == []


def test_score_continuations_match_a_full_forward_pass(
    backend: LocalToolModel, tiny_model: Any, tokenizer: Any
) -> None:
    prompt = backend.render(failed_conversation(), TOOLS, tool_choice="required")
    candidates = [CALL, FIXED, "x", ""]
    scores = backend.score_continuations(prompt, candidates)
    prompt_ids = ids_of(tokenizer, prompt)
    for candidate, score in zip(candidates, scores, strict=True):
        ids = ids_of(tokenizer, candidate)
        with torch.no_grad():
            logits = tiny_model(torch.tensor([prompt_ids + ids])).logits[0]
        logprobs = torch.log_softmax(logits.float(), dim=-1)
        expected = sum(float(logprobs[len(prompt_ids) - 1 + i, t]) for i, t in enumerate(ids))
        assert score == pytest.approx(expected, abs=1e-4)
    assert backend.score_continuations(prompt, candidates, batch_size=1) == pytest.approx(scores, abs=1e-4)
    assert backend.score_continuations(prompt, []) == []


def test_generation_is_a_frozen_record(backend: LocalToolModel) -> None:
    out = backend.generate([Message(role="user", content="hi")], None, max_new_tokens=3)
    assert isinstance(out, Generation)
    assert out.calls == () and out.prompt.endswith("<|im_start|>assistant\n")
    assert "LocalToolModel(" in repr(backend)
    with pytest.raises(ValueError, match="both"):
        LocalToolModel(model=object())
