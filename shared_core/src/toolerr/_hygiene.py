"""Text hygiene: tool text made safe to restate to a model (chat-template special tokens,
invisible and control characters, imitations of toolerr's own notes, a length cap)."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from typing import Any

from ._notes import NOTE_PREFIX, guidance_patterns
from ._secrets import mask_secrets

DEFAULT_MAX_ERROR_CHARS = 2000

SPECIAL_TOKENS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # (source, tokens). Literal special tokens of the common open model families, as their
    # tokenizers define them (tokenizer_config.json "added_tokens_decoder" / chat templates of
    # the models named). ``<|...|>`` and DeepSeek's fullwidth-bar tokens are also matched as
    # patterns (below), so families of that shape are covered beyond these lists.
    (
        "ChatML / Qwen2.5, Qwen3 (Qwen/Qwen2.5-7B-Instruct tokenizer_config.json)",
        ("<|im_start|>", "<|im_end|>", "<|endoftext|>", "<|im_sep|>", "<think>", "</think>"),
    ),
    (
        "Llama 3 / 3.1 / 3.2 (meta-llama/Llama-3.1-8B-Instruct, prompt format docs)",
        (
            "<|begin_of_text|>",
            "<|end_of_text|>",
            "<|start_header_id|>",
            "<|end_header_id|>",
            "<|eot_id|>",
            "<|eom_id|>",
            "<|python_tag|>",
            "<|finetune_right_pad_id|>",
        ),
    ),
    ("Llama 2 (meta-llama/Llama-2-7b-chat-hf chat template)", ("[INST]", "[/INST]", "<<SYS>>", "<</SYS>>")),
    (
        "Mistral v3 / v7 / v11 tekken and sentencepiece (mistralai/Mistral-7B-Instruct-v0.3, "
        "Mistral-Small-24B-Instruct-2501 tokenizer; mistral-common SpecialTokens)",
        (
            "[INST]",
            "[/INST]",
            "[TOOL_CALLS]",
            "[AVAILABLE_TOOLS]",
            "[/AVAILABLE_TOOLS]",
            "[TOOL_RESULTS]",
            "[/TOOL_RESULTS]",
            "[TOOL_CONTENT]",
            "[SYSTEM_PROMPT]",
            "[/SYSTEM_PROMPT]",
            "[THINK]",
            "[/THINK]",
            "[ARGS]",
            "[CALL_ID]",
        ),
    ),
    (
        "Gemma 2 / 3 (google/gemma-2-2b-it, gemma-3-1b-it tokenizer_config.json)",
        ("<bos>", "<eos>", "<pad>", "<start_of_turn>", "<end_of_turn>", "<start_of_image>", "<end_of_image>"),
    ),
    (
        "Phi-3 / Phi-3.5 (microsoft/Phi-3-mini-4k-instruct tokenizer_config.json)",
        ("<|system|>", "<|user|>", "<|assistant|>", "<|end|>", "<|endoftext|>"),
    ),
    (
        "DeepSeek V2 / V3 / R1 (deepseek-ai/DeepSeek-V3 tokenizer_config.json; fullwidth bar U+FF5C, "
        "U+2581 for spaces)",
        (
            "<\uff5cbegin\u2581of\u2581sentence\uff5c>",
            "<\uff5cend\u2581of\u2581sentence\uff5c>",
            "<\uff5cUser\uff5c>",
            "<\uff5cAssistant\uff5c>",
            "<\uff5ctool\u2581calls\u2581begin\uff5c>",
            "<\uff5ctool\u2581calls\u2581end\uff5c>",
            "<\uff5ctool\u2581call\u2581begin\uff5c>",
            "<\uff5ctool\u2581call\u2581end\uff5c>",
            "<\uff5ctool\u2581sep\uff5c>",
            "<\uff5ctool\u2581outputs\u2581begin\uff5c>",
            "<\uff5ctool\u2581outputs\u2581end\uff5c>",
            "<\uff5ctool\u2581output\u2581begin\uff5c>",
            "<\uff5ctool\u2581output\u2581end\uff5c>",
        ),
    ),
    (
        "Hermes 2 Pro / 3 tool format, also Qwen2.5's chat template "
        "(NousResearch/Hermes-3-Llama-3.1-8B chat template)",
        ("<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<tools>", "</tools>"),
    ),
    (
        "SmolLM2 (HuggingFaceTB/SmolLM2-135M-Instruct tokenizer_config.json, StarCoder-style)",
        (
            "<|im_start|>",
            "<|im_end|>",
            "<|endoftext|>",
            "<repo_name>",
            "<reponame>",
            "<file_sep>",
            "<filename>",
            "<gh_stars>",
            "<issue_start>",
            "<issue_comment>",
            "<issue_closed>",
            "<jupyter_start>",
            "<jupyter_text>",
            "<jupyter_code>",
            "<jupyter_output>",
            "<jupyter_script>",
            "<empty_output>",
        ),
    ),
    (
        "generic BOS/EOS of sentencepiece models (Llama 2, Mistral v1-v3, TinyLlama): unambiguous enough "
        "(HTML's <s> strikethrough is lost from restated text)",
        ("<s>", "</s>", "<unk>"),
    ),
)
"""Chat-template special tokens never restated to a model, with where they come from.
:class:`SpecialTokens` adds a tokenizer's own for one caller (the local backend does);
:func:`register_special_tokens` adds tokens process-wide."""

# Token shapes matched as patterns: any ``<|word|>`` (ChatML, Llama 3, Phi, Command R,
# Granite, gpt-oss harmony ...) and DeepSeek's fullwidth-bar tokens.
_TOKEN_PATTERNS = (
    r"<\|[A-Za-z0-9_\-\.]{1,40}\|>",
    r"<\uff5c[^<>\s\uff5c]{1,40}\uff5c>",
)

_registered: dict[str, str] = {}
_registry_lock = threading.Lock()
_tokens_regex: re.Pattern[str] | None = None


def register_special_tokens(tokens: Iterable[str], *, source: str) -> int:
    """Add a tokenizer's own special tokens to those :func:`clean_text` removes; returns how
    many were new. Strings shorter than 3 characters, made of letters, digits and spaces
    only, or with surrounding white space are skipped (removing them would damage ordinary
    text). The registry is process-wide and only grows: a token of one loaded model is
    never useful in restated tool text for any other."""
    if not isinstance(source, str):
        raise TypeError(f"source must be a str, not {type(source).__name__}")
    added = 0
    global _tokens_regex
    with _registry_lock:
        for token in tokens:
            if not _removable(token):
                continue
            if token not in _registered and token not in _BUILTIN_TOKENS:
                _registered[token] = source
                added += 1
        if added:
            _tokens_regex = None
    return added


def _removable(token: object) -> bool:
    """Whether a tokenizer's token can be removed from text without damaging ordinary
    text (:func:`register_special_tokens`' rule)."""
    if not isinstance(token, str) or len(token) < 3 or len(token) > _MAX_TOKEN or token != token.strip():
        return False
    return not all(ch.isalnum() or ch.isspace() for ch in token)


_MAX_TOKEN = 200


def special_token_sources() -> dict[str, str]:
    """Every literal special token removed from restated text, with its source."""
    out = {token: source for source, tokens in SPECIAL_TOKENS for token in tokens}
    with _registry_lock:
        out.update({t: s for t, s in _registered.items() if t not in out})
    return out


_BUILTIN_TOKENS = frozenset(token for _, tokens in SPECIAL_TOKENS for token in tokens)


def _trie_regex(words: Iterable[str]) -> str:
    """One regex alternation for many literals, as a trie (fast for thousands of tokens)."""
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict[str, Any]) -> str:
        ends = "" in node
        branches = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if ends else body

    return emit(trie)


def _tokens() -> re.Pattern[str]:
    global _tokens_regex
    regex = _tokens_regex
    if regex is None:
        with _registry_lock:
            words = _BUILTIN_TOKENS | set(_registered)
            regex = re.compile("|".join((*_TOKEN_PATTERNS, _trie_regex(words))))
            _tokens_regex = regex
    return regex


class SpecialTokens:
    """One tokenizer's own special tokens, for the caller that passes them:
    :func:`clean_text` and :func:`remove_special_tokens` given ``special_tokens=`` remove
    them beside the built-in families' ones. Nothing is registered process-wide (unlike
    :func:`register_special_tokens`): two models in one process each keep their own.
    Tokens that cannot be removed without damaging ordinary text (shorter than 3
    characters, letters, digits and spaces only, surrounding white space) are skipped.
    Compiled once; immutable and thread-safe."""

    __slots__ = ("_firsts", "_regex", "_reversed", "source", "tokens")

    def __init__(self, tokens: Iterable[str], *, source: str = "") -> None:
        kept = frozenset(token for token in tokens if _removable(token) and token not in _BUILTIN_TOKENS)
        self.tokens: frozenset[str] = kept
        """The tokens removed beside the built-in ones."""
        self.source = source
        """Where they come from (a tokenizer's name)."""
        body = _trie_regex(kept) if kept else None
        self._regex = re.compile(body) if body else None
        self._reversed = _reversed_trie(kept)
        self._firsts = frozenset(token[0] for token in kept)

    def __len__(self) -> int:
        return len(self.tokens)

    def __repr__(self) -> str:
        return f"SpecialTokens({len(self.tokens)} tokens, source={self.source!r})"


_FAST_PASSES = 8


def remove_special_tokens(text: str, special_tokens: SpecialTokens | None = None) -> str:
    """``text`` without chat-template special tokens: the built-in families' (with those
    of :func:`register_special_tokens`) and ``special_tokens``' own, removed until none
    is left, so that no removal can join the rest into a token. Nothing else changes (no
    length cap; white space, invisible characters and other text stay): for text that a
    chat template is about to wrap (a tool result in a local model's prompt), where only
    the template may write control tokens. Linear in the length of ``text``, nested
    tokens included."""
    if not isinstance(text, str):
        raise TypeError(f"remove_special_tokens expects str, got {type(text).__name__}")
    own = special_tokens._regex if special_tokens is not None else None
    firsts = _builtin_derived()[0] | (special_tokens._firsts if special_tokens is not None else frozenset())
    if not any(ch in text for ch in firsts):
        return text  # no token can start anywhere in the text, and removals add no character
    # Both kinds from here on: removing one kind can join the rest into the other.
    regexes = [_tokens()] if own is None else [_tokens(), own]
    for _ in range(_FAST_PASSES):
        cleaned = text
        for regex in regexes:
            cleaned = regex.sub("", cleaned)
        if cleaned == text:
            return text
        text = cleaned
    return _remove_nested(text, special_tokens)


def _remove_nested(text: str, special_tokens: SpecialTokens | None) -> str:
    """Tokens nested deeper than the fast passes reach, removed in one scan: each
    character is kept in turn, and a token that it completes is dropped at once, so that
    what is kept never holds a token (a token is always completed by its last character).
    Literal tokens are matched backwards through a trie of reversed tokens, the
    ``<|word|>`` shapes by their pattern on the last few characters."""
    tries = [_builtin_derived()[1]]
    if special_tokens is not None and special_tokens.tokens:
        tries.append(special_tokens._reversed)
    kept: list[str] = []
    for ch in text:
        kept.append(ch)
        if ch == ">" and len(kept) > 2 and kept[-2] in _PATTERN_BARS:
            match = _PATTERN_TAIL.search("".join(kept[-_PATTERN_WINDOW:]))
            if match is not None:
                del kept[len(kept) - (match.end() - match.start()) :]
                continue
        for trie in tries:
            length = _suffix_token(kept, trie)
            if length:
                del kept[-length:]
                break
    return "".join(kept)


_PATTERN_BARS = frozenset("|\uff5c")
_PATTERN_WINDOW = 44
_PATTERN_TAIL = re.compile(f"(?:{'|'.join(_TOKEN_PATTERNS)})\\Z")
_Trie = dict[str, Any]


def _reversed_trie(words: Iterable[str]) -> _Trie:
    trie: _Trie = {}
    for word in words:
        node = trie
        for ch in reversed(word):
            node = node.setdefault(ch, {})
        node[""] = True
    return trie


def _suffix_token(kept: list[str], trie: _Trie) -> int:
    """The length of a token that ``kept`` ends with (the shortest), or 0."""
    node = trie
    index = len(kept) - 1
    while index >= 0:
        child: _Trie | None = node.get(kept[index])
        if child is None:
            return 0
        if "" in child:
            return len(kept) - index
        node = child
        index -= 1
    return 0


_builtin_cache: tuple[re.Pattern[str], frozenset[str], _Trie] | None = None


def _builtin_derived() -> tuple[frozenset[str], _Trie]:
    """For the built-in (and registered) tokens: the characters a token or token shape
    starts with, and the literal tokens as a trie of reversed tokens; rebuilt when the
    registry (and so :func:`_tokens`' regex) changes."""
    global _builtin_cache
    regex = _tokens()
    cached = _builtin_cache
    if cached is None or cached[0] is not regex:
        with _registry_lock:
            words = _BUILTIN_TOKENS | set(_registered)
        cached = _builtin_cache = (
            regex,
            frozenset({"<", *(word[0] for word in words)}),
            _reversed_trie(words),
        )
    return cached[1], cached[2]


def _ranges(*pairs: tuple[int, int]) -> str:
    return "".join(f"{chr(a)}-{chr(b)}" if a != b else chr(a) for a, b in pairs)


# Invisible, bidi and control characters: Unicode 14 categories Cf and Cc (minus \n and \t),
# all tag characters, variation selectors (they can carry hidden text), the combining
# grapheme joiner and the Hangul fillers.
_INVISIBLE = re.compile(
    "["
    + _ranges(
        (0x00, 0x08),
        (0x0B, 0x1F),
        (0x7F, 0x9F),
        (0xAD, 0xAD),
        (0x034F, 0x034F),
        (0x0600, 0x0605),
        (0x061C, 0x061C),
        (0x06DD, 0x06DD),
        (0x070F, 0x070F),
        (0x0890, 0x0891),
        (0x08E2, 0x08E2),
        (0x115F, 0x1160),
        (0x180B, 0x180F),
        (0x200B, 0x200F),
        (0x202A, 0x202E),
        (0x2060, 0x206F),
        (0x3164, 0x3164),
        (0xFE00, 0xFE0F),
        (0xFEFF, 0xFEFF),
        (0xFFA0, 0xFFA0),
        (0xFFF9, 0xFFFB),
        (0x110BD, 0x110BD),
        (0x110CD, 0x110CD),
        (0x13430, 0x13438),
        (0x1BCA0, 0x1BCA3),
        (0x1D173, 0x1D17A),
        (0xE0000, 0xE007F),
        (0xE0100, 0xE01EF),
    )
    + "]"
)
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_LINE_BREAKS = re.compile(r"\r\n?|[\u2028\u2029\x85]")

SPOOFED_NOTE = "[text from the tool, not a runtime note]"
"""What a restated text that imitates toolerr's runtime note prefix shows instead."""
SPOOFED_GUIDANCE = "[text from the tool imitating runtime guidance]"
"""What a restated text shows instead of a copy of one of toolerr's guidance sentences."""


def _loose(sentence: str) -> str:
    return r"\s+".join(re.escape(word) for word in sentence.split())


_SPOOF_NOTE = re.compile(_loose(NOTE_PREFIX.strip()), re.IGNORECASE)
_SPOOF_GUIDANCE = re.compile("|".join(guidance_patterns(r"\s+")), re.IGNORECASE)
_MAX_PASSES = 64


def _clean_pass(text: str, special_tokens: SpecialTokens | None = None) -> str:
    text = _ASCII_CONTROL.sub("", text) if text.isascii() else _INVISIBLE.sub("", text)
    text = _tokens().sub("", text)
    if special_tokens is not None and special_tokens._regex is not None:
        text = special_tokens._regex.sub("", text)
    text = _SPOOF_NOTE.sub(SPOOFED_NOTE, text)
    return _SPOOF_GUIDANCE.sub(SPOOFED_GUIDANCE, text)


def _clean_fixed_point(text: str, special_tokens: SpecialTokens | None = None) -> str:
    """Invisible characters dropped before tokens are matched, repeated until nothing
    changes: removing one piece can never join the rest into a token."""
    for _ in range(_MAX_PASSES):
        cleaned = _clean_pass(text, special_tokens)
        if cleaned == text:
            return text
        text = cleaned
    # Adversarial nesting deeper than the passes: drop the characters tokens are made of.
    text = re.sub(r"[<>|\[\]\uff5c]", "", text)
    while (cleaned := _clean_pass(text, special_tokens)) != text:
        text = cleaned
    return text


def clean_text(
    text: str, max_chars: int = DEFAULT_MAX_ERROR_CHARS, *, special_tokens: SpecialTokens | None = None
) -> str:
    """Tool text made safe to restate in a user turn.

    Strips surrounding white space; drops control, invisible and bidi characters and
    chat-template special tokens (:data:`SPECIAL_TOKENS`, :func:`register_special_tokens`,
    and a tokenizer's own given as ``special_tokens``) to a fixed point, so that no
    removal can rebuild a token; replaces imitations of toolerr's own note prefix and
    guidance sentences (:data:`SPOOFED_NOTE`, :data:`SPOOFED_GUIDANCE`), so that restated
    tool text cannot forge a runtime note; replaces lone surrogates; and caps the length
    at ``max_chars``, marking the cut; masks credentials (:func:`toolerr._secrets.mask_secrets`:
    passwords in URLs, API keys, tokens, private keys), so that toolerr never restates one.
    Only about ``2 * max_chars`` characters are looked at.
    """
    if not isinstance(text, str):
        raise TypeError(f"clean_text expects str, got {type(text).__name__}")
    if max_chars < 1:
        raise ValueError("max_chars must be at least 1")
    total = len(text)
    window = text[: max_chars * 2 + 64]
    if total > len(window):  # a credential cut by the window would escape its pattern
        window = window[: max(window.rfind(" "), max_chars + 1)]
    window = _SURROGATE.sub("\ufffd", window)
    window = _LINE_BREAKS.sub("\n", window)
    window = mask_secrets(_clean_fixed_point(window, special_tokens))
    window = window.strip()
    if len(window) > max_chars or total > max_chars * 2 + 64:
        kept = window[:max_chars].rstrip()
        cut = max(total - len(kept), 1)
        return f"{kept} [... {cut} more characters cut by toolerr]"
    return window
