"""FailedCallBan beside another constraint on the same step: where the tokens the ban
blocks are the only ones a processor before it left, the ban must not leave the row with
no token at all (sampling would raise, beam scores would turn into NaN)."""

from __future__ import annotations

import logging
from typing import Any

import pytest
import torch
from test_ban import CALL, PROMPT, encode, generate
from toolerr_hf import FailedCallBan
from transformers import LogitsProcessor


class OnlyTheScript(LogitsProcessor):
    """A constrained decoder (a grammar, ``prefix_allowed_tokens_fn``): at each step only
    the script's next token is allowed; after it, only the end of the turn."""

    def __init__(self, target: list[int], end: int) -> None:
        self.target = target
        self.end = end
        self.prompt_length: int | None = None

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if self.prompt_length is None:
            self.prompt_length = input_ids.shape[1]
        step = input_ids.shape[1] - self.prompt_length
        out = torch.full_like(scores, float("-inf"))
        out[:, self.target[step] if step < len(self.target) else self.end] = 0.0
        return out  # type: ignore[return-value]


@pytest.mark.parametrize(
    "options", [{"do_sample": True}, {"num_beams": 2}, {}], ids=["sampled", "beams", "greedy"]
)
def test_the_ban_yields_where_it_would_leave_a_row_no_token(
    tokenizer: Any, tiny_model: Any, options: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="toolerr")
    target = encode(tokenizer, CALL)
    only = OnlyTheScript(target, tokenizer.eos_token_id)
    ban = FailedCallBan(tokenizer, [CALL])
    torch.manual_seed(0)
    out = generate(tiny_model, tokenizer, PROMPT + "<tool_call>\n", [only, ban], **options)
    # the other constraint wins: the step is decoded as if there were no ban, and said so
    assert out == CALL
    assert ban.interventions == 0
    warnings = [r for r in caplog.records if r.name == "toolerr" and r.levelno == logging.WARNING]
    assert warnings and "no token" in warnings[0].getMessage()


def test_a_row_that_had_no_token_before_the_ban_is_left_as_it_was(tokenizer: Any) -> None:
    ban = FailedCallBan(tokenizer, [CALL])
    call = encode(tokenizer, PROMPT + "<tool_call>\n" + CALL)
    scores = torch.full((1, len(tokenizer)), float("-inf"))
    out = ban(torch.tensor([call[:-1]]), scores)
    assert torch.equal(out, scores)  # nothing to yield: the ban did not empty it


def test_one_call_string_is_one_ban_not_its_characters(tokenizer: Any) -> None:
    assert FailedCallBan(tokenizer, CALL).banned() == FailedCallBan(tokenizer, [CALL]).banned()
    rows = FailedCallBan(tokenizer, rows=[CALL, ()])
    assert rows.banned(0) == frozenset({CALL[:-1]}) and rows.banned(1) == frozenset()
