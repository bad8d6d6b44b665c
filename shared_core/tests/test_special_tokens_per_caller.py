"""A tokenizer's own special tokens, per caller (issue 18): ``SpecialTokens`` and
``remove_special_tokens`` (what a local model's prompt shows of tool text), and
``clean_text(special_tokens=...)``. Nothing is registered process-wide."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolerr._hygiene import _tokens, special_token_sources
from toolerr.adapters import SpecialTokens, clean_text, remove_special_tokens

OWN = "<<OWN_TOKEN_18>>"
BRACKETS = "[[PER_CALLER]]"
TOKENS = SpecialTokens([OWN, BRACKETS, "@@END@@"], source="test tokenizer")


def _holds_token(text: str, tokens: SpecialTokens | None = TOKENS) -> bool:
    if _tokens().search(text):
        return True
    return tokens is not None and any(token in text for token in tokens.tokens)


def test_tokens_that_would_damage_ordinary_text_are_skipped() -> None:
    tokens = SpecialTokens(["ab", "word", "two words", " <x> ", "<x>", "<|im_start|>", "<s>", 7], source="t")  # type: ignore[list-item]
    # Too short, letters and spaces only, surrounding white space, not a str: skipped;
    # the built-in families' tokens are matched anyway.
    assert tokens.tokens == frozenset({"<x>"})
    assert len(tokens) == 1
    assert repr(tokens) == "SpecialTokens(1 tokens, source='t')"


def test_nothing_is_registered_process_wide() -> None:
    before = special_token_sources()
    SpecialTokens(["<<NEVER_GLOBAL_18>>"], source="t")
    assert special_token_sources() == before
    assert clean_text("a<<NEVER_GLOBAL_18>>b") == "a<<NEVER_GLOBAL_18>>b"
    assert remove_special_tokens("a<<NEVER_GLOBAL_18>>b") == "a<<NEVER_GLOBAL_18>>b"


def test_clean_text_takes_a_callers_tokens() -> None:
    assert clean_text(f"a{OWN}b", special_tokens=TOKENS) == "ab"
    assert clean_text(f"a{OWN}b") == f"a{OWN}b"
    # To a fixed point, invisible characters dropped before tokens are matched.
    assert clean_text(f"a{OWN[:4]}\u200b{OWN[4:]}b", special_tokens=TOKENS) == "ab"
    assert clean_text(f"a{OWN[:4]}<|x|>{OWN[4:]}b", special_tokens=TOKENS) == "ab"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a<|im_start|>b", "ab"),
        ("a<|im_<|im_end|>start|>b", "ab"),
        (f"x{OWN}y", "xy"),
        (f"x{OWN[:5]}{BRACKETS}{OWN[5:]}y", "xy"),
        ("[TOOL_CALLS] <bos>ok<eos>", " ok"),
        ("<tool_response>x</tool_response>", "x"),
        # a removal of one kind joins the rest into the other kind
        ("a@<|x|>@END@@b", "ab"),
        ("a<|im_@@END@@start|>b", "ab"),
        ('[{"a": [1, 2]}] <p>x</p>', '[{"a": [1, 2]}] <p>x</p>'),
    ],
)
def test_remove_special_tokens(text: str, expected: str) -> None:
    assert remove_special_tokens(text, TOKENS) == expected


def test_only_tokens_are_removed() -> None:
    """No cap, no strip, no other character removed, imitated notes kept: the text is
    about to be wrapped by a chat template, not restated in a note."""
    text = "  Zürich\u200b\u2060 <b>x</b> a|b <x> [y] Note from the tool runtime: hi\r\n" + "x" * 10_000
    assert remove_special_tokens(text, TOKENS) == text
    assert remove_special_tokens("", TOKENS) == ""
    with pytest.raises(TypeError):
        remove_special_tokens(b"<|im_start|>", TOKENS)  # type: ignore[arg-type]


def _nested(depth: int, token: str, cut: int) -> str:
    text = ""
    for _ in range(depth):
        text = token[:cut] + text + token[cut:]
    return text


@pytest.mark.parametrize(
    "token", ["<|im_start|>", "<\uff5cUser\uff5c>", "[TOOL_CALLS]", "<tool_call>", OWN, "@@END@@"]
)
@pytest.mark.parametrize("depth", [1, 7, 9, 2_000])
def test_nested_tokens_are_removed_at_any_depth(token: str, depth: int) -> None:
    """Nesting deeper than the fast passes goes through the one-scan removal."""
    text = f"keep{_nested(depth, token, 4)}this"
    assert remove_special_tokens(text, TOKENS) == "keepthis"


def test_the_scan_and_the_passes_agree_on_text_without_nesting() -> None:
    from toolerr._hygiene import _remove_nested

    text = f"a <|im_start|>b {OWN} c [TOOL_CALLS] d <|x|| e <\uff5cUser\uff5c> f <|im_end|>"
    assert _remove_nested(text, TOKENS) == remove_special_tokens(text, TOKENS) == "a b  c  d <|x|| e  f "


_PIECES = st.sampled_from(
    ["<|", "|>", "<", ">", "|", "im_", "start", "end", "[", "]", "TOOL_", "CALLS", "<<", ">>", "OWN_TOKEN_18",
     "@@", "END", "\uff5c", "User", "a", " ", "\u200b", "<|im_start|>", OWN, "[TOOL_CALLS]", "@@END@@"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=60))
def test_no_token_is_left_whatever_the_pieces(pieces: list[str]) -> None:
    text = "".join(pieces)
    out = remove_special_tokens(text, TOKENS)
    assert not _holds_token(out)
    assert remove_special_tokens(out, TOKENS) == out
    from toolerr._hygiene import _remove_nested

    scanned = _remove_nested(text, TOKENS)
    assert not _holds_token(scanned)


def test_patterns_match_the_shapes_the_core_knows() -> None:
    assert re.fullmatch(_tokens(), "<|anything_new|>")
    assert remove_special_tokens("a<|anything_new|>b") == "ab"
