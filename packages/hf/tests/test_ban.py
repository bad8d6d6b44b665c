"""FailedCallBan on a tiny random model with a tokenizer built in the test."""

from __future__ import annotations

import itertools
import json
import logging
import math
from typing import Any

import pytest
import torch
from conftest import Script, token_ids
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolerr import FailureLedger, Verdict
from toolerr._json_text import canonical_json_text
from toolerr_hf import FailedCallBan, TokenTexts
from transformers import LogitsProcessorList

CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
OTHER = '{"name": "get_weather", "arguments": {"city": "Paris, FR"}}'
DECISIVE = CALL[:-1]
"""What the ban makes unreachable: the call up to the end of its arguments (the same call
with more keys after them runs with the failed arguments too)."""
CANONICAL = canonical_json_text(DECISIVE)[0]
PROMPT = "<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n"


def encode(tokenizer: Any, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def blocked_after(processor: FailedCallBan, ids: list[int], vocab: int) -> set[int]:
    """Token ids the processor gives -inf after the sequence ``ids`` (a fresh decode)."""
    processor.reset()
    scores = torch.zeros((1, vocab))
    out = processor(torch.tensor([ids]), scores)
    return set(torch.nonzero(torch.isinf(out[0])).flatten().tolist())


def generate(
    model: Any, tokenizer: Any, prompt: str, processors: list[Any], n: int = 40, **kwargs: Any
) -> str:
    ids = torch.tensor([encode(tokenizer, prompt)])
    with torch.no_grad():
        out = model.generate(
            ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=n,
            logits_processor=LogitsProcessorList(processors),
            do_sample=kwargs.pop("do_sample", False),
            pad_token_id=tokenizer.pad_token_id,
            **kwargs,
        )
    return str(tokenizer.decode(out[0, ids.shape[1] :], skip_special_tokens=True))


def segmentation(text: str, cuts: list[int], texts: TokenTexts) -> list[str]:
    """Split ``text`` at ``cuts``; pieces that are not one token are split into characters."""
    lookup = {s for i, s in enumerate(texts.strings) if s and i not in texts.special}
    bounds = sorted({c for c in cuts if 0 < c < len(text)} | {0, len(text)})
    pieces: list[str] = []
    for a, b in itertools.pairwise(bounds):
        piece = text[a:b]
        pieces.extend([piece] if piece in lookup else list(piece))
    return pieces


# -- the rule at each step -------------------------------------------------------------


def test_only_the_completing_token_is_blocked(tokenizer: Any) -> None:
    ban = FailedCallBan(tokenizer, [CALL])
    prompt = encode(tokenizer, PROMPT + "<tool_call>\n")
    vocab = len(tokenizer)
    call = encode(tokenizer, DECISIVE)
    texts = TokenTexts.of(tokenizer)
    for k in range(len(call)):
        blocked = blocked_after(ban, prompt + call[:k], vocab)
        written = texts.text(call[:k])
        # Exactly the tokens whose text would reach the end of the call's arguments are
        # blocked, modulo JSON white space outside strings (" }" completes it as "}" does).
        head = canonical_json_text(written)[0]
        expected = {
            i
            for i, s in enumerate(texts.strings)
            if s
            and i not in texts.special
            and len(head) < len(CANONICAL)
            and canonical_json_text(written + s)[0].startswith(CANONICAL)
        }
        assert blocked == expected, (k, written)
    assert call[-1] in blocked_after(ban, prompt + call[:-1], vocab)
    assert ban.banned() == frozenset({DECISIVE})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cuts=st.lists(st.integers(min_value=1, max_value=len(DECISIVE) - 1), max_size=30))
def test_any_tokenisation_is_blocked_at_its_last_token(tokenizer: Any, cuts: list[int]) -> None:
    texts = TokenTexts.of(tokenizer)
    pieces = segmentation(DECISIVE, cuts, texts)
    ids = token_ids(tokenizer, pieces)
    assert texts.text(ids) == DECISIVE
    ban = FailedCallBan(tokenizer, [CALL])
    prompt = encode(tokenizer, PROMPT + "<tool_call>\n")
    for k in range(len(ids)):
        blocked = blocked_after(ban, prompt + ids[:k], len(tokenizer))
        assert (ids[k] in blocked) == (k == len(ids) - 1), (pieces, k)


def test_prose_is_never_blocked(tokenizer: Any) -> None:
    ban = FailedCallBan(tokenizer, [CALL])
    call = encode(tokenizer, CALL)
    for prefix in (PROMPT, PROMPT + "Here is the call: ", PROMPT + "<tool_call>\nx\n</tool_call>\nAgain: "):
        ids = encode(tokenizer, prefix)
        assert blocked_after(ban, ids + call[:-1], len(tokenizer)) == set()


def test_an_open_call_at_the_end_of_the_prompt_counts_as_being_written(tokenizer: Any) -> None:
    ban = FailedCallBan(tokenizer, [CALL])
    call = encode(tokenizer, CALL)
    for opening in ("<tool_call>", "<tool_call>\n", "<tool_call> \n  "):
        prompt = encode(tokenizer, PROMPT + opening)
        assert ban(torch.tensor([prompt]), torch.zeros((1, len(tokenizer)))) is not None
        assert ban.in_call == [True]
        assert call[-1] in blocked_after(ban, prompt + call[:-1], len(tokenizer))


def test_a_closed_call_in_the_prompt_is_history(tokenizer: Any) -> None:
    ban = FailedCallBan(tokenizer, [CALL])
    history = PROMPT + f"<tool_call>\n{CALL[:-1]}"  # unfinished call in an earlier turn ...
    prompt = encode(
        tokenizer, history + "<|im_end|>\n<|im_start|>user\nagain<|im_end|>\n<|im_start|>assistant\n"
    )
    ban(torch.tensor([prompt]), torch.zeros((1, len(tokenizer))))
    assert ban.in_call == [False]  # ... is closed by the special tokens of the turn change
    ban = FailedCallBan(tokenizer, [CALL])
    ban(
        torch.tensor([encode(tokenizer, PROMPT + f"<tool_call>\n{CALL}\n</tool_call>\n")]),
        torch.zeros((1, len(tokenizer))),
    )
    assert ban.in_call == [False]


def test_the_end_marker_and_special_tokens_close_the_call(tokenizer: Any) -> None:
    ban = FailedCallBan(tokenizer, [CALL])
    call = encode(tokenizer, CALL)
    after_end = encode(tokenizer, PROMPT + "<tool_call>\n{}\n</tool_call>\n")
    assert blocked_after(ban, after_end + call[:-1], len(tokenizer)) == set()
    after_eos = [*encode(tokenizer, PROMPT + "<tool_call>\n"), tokenizer.eos_token_id]
    assert blocked_after(ban, after_eos + call[:-1], len(tokenizer)) == set()


def test_white_space_around_the_call_is_not_part_of_it(tokenizer: Any) -> None:
    ban = FailedCallBan(tokenizer, [f"\n  {CALL}\n"])
    assert ban.banned() == frozenset({DECISIVE})
    call = encode(tokenizer, CALL)
    prompt = encode(tokenizer, PROMPT + "<tool_call>")
    for lead in ("", " ", "\n", "\n\n  "):
        ids = prompt + encode(tokenizer, lead) + call[:-1]
        assert call[-1] in blocked_after(ban, ids, len(tokenizer)), repr(lead)


def test_custom_markers(tokenizer: Any) -> None:
    ban = FailedCallBan(tokenizer, [CALL], start="[CALL]", end="[/CALL]")
    call = encode(tokenizer, CALL)
    assert call[-1] in blocked_after(ban, encode(tokenizer, PROMPT + "[CALL]") + call[:-1], len(tokenizer))
    assert blocked_after(ban, encode(tokenizer, PROMPT + "<tool_call>") + call[:-1], len(tokenizer)) == set()
    with pytest.raises(ValueError, match="markers"):
        FailedCallBan(tokenizer, [CALL], start="")


def test_non_ascii_arguments(tokenizer: Any) -> None:
    call = '{"name": "get_weather", "arguments": {"city": "東京"}}'
    ban = FailedCallBan(tokenizer, [call])
    ids = encode(tokenizer, call)
    texts = TokenTexts.of(tokenizer)
    assert texts.text(ids) == call
    prompt = encode(tokenizer, PROMPT + "<tool_call>\n")
    assert ids[-1] in blocked_after(ban, prompt + ids[:-1], len(tokenizer))
    for k in range(len(ids) - 1):
        assert ids[k] not in blocked_after(ban, prompt + ids[:k], len(tokenizer))


# -- generation ------------------------------------------------------------------------


def test_greedy_generation_cannot_write_the_banned_call(tokenizer: Any, tiny_model: Any) -> None:
    target = encode(tokenizer, CALL + "\n</tool_call>")
    prompt = PROMPT + "<tool_call>\n"
    free = generate(tiny_model, tokenizer, prompt, [Script([target])])
    assert free.startswith(CALL)
    ban = FailedCallBan(tokenizer, [CALL])
    banned = generate(tiny_model, tokenizer, prompt, [Script([target]), ban])
    assert CALL not in banned
    call = encode(tokenizer, CALL)
    assert banned.startswith(TokenTexts.of(tokenizer).text(call[:-1]))  # it diverges only at the last token
    assert ban.interventions == 1


def test_the_same_arguments_with_more_keys_after_them_are_blocked(tokenizer: Any, tiny_model: Any) -> None:
    """A small model that meets the ban on the closing brace goes on with extra keys
    (``}, "parameters": ...}``): the parser would run that call with the failed arguments, so
    the ban stops it where the arguments end."""
    from toolerr_hf import HermesFormat

    extended = DECISIVE + ', "parameters": {"city": "Paris"}}'
    target = encode(tokenizer, extended + "\n</tool_call>")
    prompt = PROMPT + "<tool_call>\n"
    free = generate(tiny_model, tokenizer, prompt, [Script([target])], n=len(target))
    assert free.startswith(extended)
    parsed = HermesFormat().parse("<tool_call>\n" + free, ["get_weather"])
    assert [(c.name, c.arguments) for c in parsed.calls] == [
        ("get_weather", {"city": "Paris"})
    ]  # it would run
    ban = FailedCallBan(tokenizer, [CALL])
    banned = generate(tiny_model, tokenizer, prompt, [Script([target]), ban], n=len(target))
    assert DECISIVE not in banned
    assert ban.interventions == 1


def test_character_by_character_tokenisation_is_blocked(tokenizer: Any, tiny_model: Any) -> None:
    target = token_ids(tokenizer, list(CALL)) + encode(tokenizer, "\n</tool_call>")
    prompt = PROMPT + "<tool_call>\n"
    assert generate(tiny_model, tokenizer, prompt, [Script([target])], n=len(target)).startswith(CALL)
    banned = generate(
        tiny_model, tokenizer, prompt, [Script([target]), FailedCallBan(tokenizer, [CALL])], n=len(target)
    )
    assert CALL not in banned


def test_sampled_generation_cannot_write_the_banned_call(tokenizer: Any, tiny_model: Any) -> None:
    target = encode(tokenizer, CALL)
    prompt = PROMPT + "<tool_call>\n"
    for seed in range(5):
        torch.manual_seed(seed)
        free = generate(
            tiny_model, tokenizer, prompt, [Script([target], bonus=30.0)], do_sample=True, top_k=0
        )
        assert free.startswith(CALL)
        torch.manual_seed(seed)
        ban = FailedCallBan(tokenizer, [CALL])
        out = generate(
            tiny_model, tokenizer, prompt, [Script([target], bonus=30.0), ban], do_sample=True, top_k=0
        )
        assert CALL not in out


def test_prose_with_the_banned_text_is_generated_unchanged(tokenizer: Any, tiny_model: Any) -> None:
    target = encode(tokenizer, "Calling " + CALL + " now.")
    free = generate(tiny_model, tokenizer, PROMPT, [Script([target])], n=len(target))
    ban = FailedCallBan(tokenizer, [CALL])
    assert generate(tiny_model, tokenizer, PROMPT, [Script([target]), ban], n=len(target)) == free
    assert CALL in free
    assert ban.blocked_steps == 0


def test_batches_have_one_ban_per_row(tokenizer: Any, tiny_model: Any) -> None:
    prompts = [PROMPT + "<tool_call>\n", "<|im_start|>user\nhi<|im_end|>\n" + PROMPT + "<tool_call>\n"]
    encoded = tokenizer(
        prompts, return_tensors="pt", padding=True, padding_side="left", add_special_tokens=False
    )
    targets = [encode(tokenizer, CALL), encode(tokenizer, OTHER)]
    ban = FailedCallBan(tokenizer, rows=[[CALL], [CALL]])
    ban.ban(OTHER, row=0)
    with torch.no_grad():
        out = tiny_model.generate(
            **encoded,
            max_new_tokens=30,
            do_sample=False,
            logits_processor=LogitsProcessorList([Script(targets), ban]),
            pad_token_id=tokenizer.pad_token_id,
        )
    texts = tokenizer.batch_decode(out[:, encoded["input_ids"].shape[1] :], skip_special_tokens=True)
    assert CALL not in texts[0]
    assert texts[1].startswith(OTHER)  # row 1 did not ban OTHER
    assert ban.banned(0) == frozenset({DECISIVE, OTHER[:-1]})
    assert ban.banned(1) == frozenset({DECISIVE})
    assert ban.row_interventions(0) == 1
    assert ban.row_interventions(1) == 0


def test_expanded_rows_share_their_prompts_bans(tokenizer: Any, tiny_model: Any) -> None:
    ids = torch.tensor([encode(tokenizer, PROMPT + "<tool_call>\n")])
    ban = FailedCallBan(tokenizer, rows=[[CALL]])
    target = encode(tokenizer, CALL)
    with torch.no_grad():
        out = tiny_model.generate(
            ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=25,
            do_sample=True,
            num_return_sequences=3,
            logits_processor=LogitsProcessorList([Script([target] * 3), ban]),
            pad_token_id=tokenizer.pad_token_id,
        )
    for row in tokenizer.batch_decode(out[:, ids.shape[1] :], skip_special_tokens=True):
        assert CALL not in row
    with pytest.raises(ValueError, match="rows"):
        FailedCallBan(tokenizer, rows=[[CALL], [CALL]])(
            torch.tensor([[1, 2, 3]] * 3), torch.zeros((3, len(tokenizer)))
        )


def test_reordered_rows_are_followed_again(tokenizer: Any) -> None:
    """Beam search reorders rows between steps; each row's state follows its own text."""
    ban = FailedCallBan(tokenizer, [CALL])
    call = encode(tokenizer, CALL)
    in_call = encode(tokenizer, PROMPT + "<tool_call>\n") + call[:-2]
    prose = encode(tokenizer, PROMPT + "Hello ") + call[:-2]
    width = max(len(in_call), len(prose))
    pad = tokenizer.pad_token_id
    rows = [[pad] * (width - len(r)) + r for r in (in_call, prose)]
    vocab = len(tokenizer)
    ban(torch.tensor(rows), torch.zeros((2, vocab)))
    assert ban.in_call == [True, False]
    swapped = [rows[1] + [call[-2]], rows[0] + [call[-2]]]  # rows swapped, one more token each
    out = ban(torch.tensor(swapped), torch.zeros((2, vocab)))
    assert ban.in_call == [False, True]
    assert torch.isinf(out[1, call[-1]])
    assert not torch.isinf(out[0]).any()


def test_bans_added_while_a_call_is_written_apply_at_once(tokenizer: Any) -> None:
    ban = FailedCallBan(tokenizer)
    call = encode(tokenizer, CALL)
    ids = encode(tokenizer, PROMPT + "<tool_call>\n") + call[:-1]
    vocab = len(tokenizer)
    assert not torch.isinf(ban(torch.tensor([ids]), torch.zeros((1, vocab)))).any()
    ban.ban(CALL)
    out = ban(torch.tensor([[*ids, call[-1]]]), torch.zeros((1, vocab)))  # next step: overshoot
    assert ban.partial_calls == [CALL]
    assert not torch.isinf(out).any()  # the call is complete: nothing left to block
    ban.reset()
    assert torch.isinf(ban(torch.tensor([ids]), torch.zeros((1, vocab)))[0, call[-1]])


def test_fed_by_the_core_ledger(tokenizer: Any) -> None:
    ledger = FailureLedger()
    fixable = Verdict(failed=True, kind="fixable", rule="words:fixable:Invalid arguments")
    transient = Verdict(failed=True, kind="transient", rule="http:503", outcome="not_executed")
    ledger.record("get_weather", {"city": "Paris"}, fixable, raw='{"city": "Paris"}', call_id="a")
    ledger.record("get_time", {"tz": "CET"}, transient, raw='{"tz": "CET"}', call_id="b")
    ban = FailedCallBan.from_ledger(tokenizer, ledger)
    assert ban.banned() == frozenset({DECISIVE})  # a transient failure within its budget is not banned
    per_row = FailedCallBan.from_ledger(tokenizer, [ledger, FailureLedger()])
    assert per_row.banned(0) == frozenset({DECISIVE})
    assert per_row.banned(1) == frozenset()
    assert ban.ban_call("f", {"x": 1}) == '{"name": "f", "arguments": {"x": 1}}'


def test_fails_open(
    tokenizer: Any, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    ban = FailedCallBan(tokenizer, [CALL])

    def broken(*args: Any) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(ban, "_step", broken)
    scores = torch.randn((1, len(tokenizer)))
    with caplog.at_level(logging.WARNING, logger="toolerr"):
        out = ban(torch.tensor([[1, 2, 3]]), scores)
    assert out is scores
    assert "FailedCallBan failed" in caplog.text


def test_bad_arguments(tokenizer: Any) -> None:
    ban = FailedCallBan(tokenizer)
    with pytest.raises(ValueError, match="empty"):
        ban.ban("  ")
    with pytest.raises(IndexError, match="rows"):
        ban.ban(CALL, row=0)
    assert "banned=0" in repr(ban)


# -- modulo JSON white space and key order ---------------------------------------------------

TWO_KEYS = '{"name": "get_weather", "arguments": {"city": "Paris", "units": "C"}}'


def runs_with(text: str, arguments: dict[str, Any]) -> bool:
    """Whether the Hermes parser would run ``get_weather(**arguments)`` from generated text."""
    from toolerr_hf import HermesFormat

    parsed = HermesFormat().parse("<tool_call>\n" + text, ["get_weather"])
    return any((c.name, c.arguments) == ("get_weather", arguments) for c in parsed.calls)


@pytest.mark.parametrize(
    "variant",
    [
        '{"name": "get_weather", "arguments": {"city": "Paris" }}',
        '{"name":"get_weather","arguments":{"city":"Paris"}}',
        '{ "name" : "get_weather" ,\n  "arguments" : {\n    "city" : "Paris"\n  }\n}',
        '{"name": "get_weather", "arguments": {"city": "Paris"}\t}',
        '{"arguments": {"city": "Paris"}, "name": "get_weather"}',
        '{"arguments": {"city":"Paris"},"name": "get_weather", "x": 1}',
    ],
)
def test_white_space_and_key_order_variants_are_unreachable(
    tokenizer: Any, tiny_model: Any, variant: str
) -> None:
    target = encode(tokenizer, variant + "\n</tool_call>")
    prompt = PROMPT + "<tool_call>\n"
    free = generate(tiny_model, tokenizer, prompt, [Script([target])], n=len(target))
    assert free.startswith(variant)
    assert runs_with(free, {"city": "Paris"})  # without the ban this call would run again
    ban = FailedCallBan(tokenizer, [CALL])
    banned = generate(tiny_model, tokenizer, prompt, [Script([target]), ban], n=len(target))
    assert not runs_with(banned, {"city": "Paris"}), banned
    assert ban.interventions >= 1


@pytest.mark.parametrize(
    "variant",
    [
        '{"name": "get_weather", "arguments": {"units": "C", "city": "Paris"}}',
        '{"name": "get_weather", "arguments": { "units":"C" , "city":"Paris" }}',
        '{"arguments": {"units": "C", "city": "Paris"}, "name": "get_weather"}',
        '{"name": "get_weather", "arguments": {"city": "Paris", "units": "C"}}',
    ],
)
def test_argument_key_orders_are_unreachable(tokenizer: Any, tiny_model: Any, variant: str) -> None:
    target = encode(tokenizer, variant + "\n</tool_call>")
    prompt = PROMPT + "<tool_call>\n"
    arguments = {"city": "Paris", "units": "C"}
    assert runs_with(generate(tiny_model, tokenizer, prompt, [Script([target])], n=len(target)), arguments)
    ban = FailedCallBan(tokenizer, [TWO_KEYS])
    assert ban.banned() == frozenset({TWO_KEYS[:-1]})
    banned = generate(tiny_model, tokenizer, prompt, [Script([target]), ban], n=len(target))
    assert not runs_with(banned, arguments), banned


@pytest.mark.parametrize(
    "permitted",
    [
        OTHER,
        '{"name": "get_weather", "arguments": {"city": "Paris "}}',  # white space in a string counts
        '{"name": "get_weather", "arguments": {"city": " Paris"}}',
        '{"name": "get_weather", "arguments": {"city": "Paris", "units": "C"}}',  # more arguments
        '{"name": "get_weather", "arguments": {"city": "Par\\"is"}}',
    ],
)
def test_a_different_call_stays_reachable(tokenizer: Any, tiny_model: Any, permitted: str) -> None:
    target = encode(tokenizer, permitted + "\n</tool_call>")
    prompt = PROMPT + "<tool_call>\n"
    ban = FailedCallBan(tokenizer, [CALL])
    out = generate(tiny_model, tokenizer, prompt, [Script([target]), ban], n=len(target))
    assert out.startswith(permitted)
    assert ban.interventions == 0


def test_strings_holding_braces_quotes_and_white_space(tokenizer: Any, tiny_model: Any) -> None:
    failed = '{"name": "get_weather", "arguments": {"city": "a \\"}, {\\" b"}}'
    ban = FailedCallBan(tokenizer, [failed])
    prompt = PROMPT + "<tool_call>\n"
    value = json.loads(failed)["arguments"]
    for variant in (failed, '{"name":"get_weather", "arguments":{ "city":"a \\"}, {\\" b" }}'):
        target = encode(tokenizer, variant + "\n</tool_call>")
        assert runs_with(generate(tiny_model, tokenizer, prompt, [Script([target])], n=len(target)), value)
        ban.reset()
        out = generate(tiny_model, tokenizer, prompt, [Script([target]), ban], n=len(target))
        assert not runs_with(out, value), out
    # The same text with the white space inside the string collapsed is another value.
    other = '{"name": "get_weather", "arguments": {"city": "a\\"},{\\"b"}}'
    target = encode(tokenizer, other + "\n</tool_call>")
    ban.reset()
    out = generate(tiny_model, tokenizer, prompt, [Script([target]), ban], n=len(target))
    assert out.startswith(other)


def test_prose_with_the_call_in_it_is_not_touched(tokenizer: Any) -> None:
    ban = FailedCallBan(tokenizer, [CALL])
    variant = encode(tokenizer, '{"name": "get_weather", "arguments": {"city": "Paris" }}')
    for prefix in (PROMPT, PROMPT + "I would call: ", PROMPT + "<tool_call>\n{}\n</tool_call>\nOr: "):
        assert blocked_after(ban, encode(tokenizer, prefix) + variant[:-1], len(tokenizer)) == set()


def test_key_order_cap() -> None:
    from toolerr_hf._decoder_ban import MAX_KEY_ORDER_KEYS, key_order_variants

    def call(k: int) -> str:
        return json.dumps({"name": "f", "arguments": {f"k{i}": i for i in range(k)}})

    text = call(MAX_KEY_ORDER_KEYS)
    variants = key_order_variants(text, text[:-1])
    assert len(variants) == 2 * math.factorial(MAX_KEY_ORDER_KEYS)
    assert canonical_json_text(text[:-1])[0] in variants
    many = call(MAX_KEY_ORDER_KEYS + 1)
    assert key_order_variants(many, many[:-1]) == [canonical_json_text(many[:-1])[0]]
    assert key_order_variants("not json", "not json") == ["notjson"]
