"""The exact text of every token of a tokenizer, and incremental decoding of a token stream.

The core's string ban works on strings: it needs each token id's text in isolation, and
the text a decoded stream adds token by token. ``tokenizer.decode([i])`` is not that (it
drops leading spaces on SentencePiece models, turns partial UTF-8 into U+FFFD and cleans
up spaces), so the bytes of each token are recovered from the tokenizer's model:

* byte-level BPE (GPT-2, Llama 3, Qwen, SmolLM): each character of the token string maps
  to one byte through the GPT-2 byte table;
* SentencePiece-style (``▁`` for a space, ``<0x0A>`` byte fallback);
* anything else: ``decode([i])``.

The first strategy whose per-token bytes, concatenated, give back sample texts (tool-call
JSON, prose, non-ASCII) exactly is used. Special tokens (``<|im_end|>`` ...) have no
text: they end whatever was being written.
"""

from __future__ import annotations

import codecs
import logging
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from toolerr.adapters import PreparedVocabulary

logger = logging.getLogger("toolerr")

__all__ = ["TokenStream", "TokenTexts"]

_SAMPLES = (
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n</tool_call>',
    "The weather in Zürich is 18 °C; in 東京 it rains. Done!",
    '{"path": "src/app.py", "old": "x = 1\\n", "flag": true, "n": -2.5e3}',
)


def _byte_table() -> dict[str, int]:
    """GPT-2's map from the printable stand-in characters back to bytes."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    codes = printable[:]
    extra = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            codes.append(256 + extra)
            extra += 1
    return {chr(code): byte for byte, code in zip(printable, codes, strict=True)}


_BYTE_TABLE = _byte_table()


def _byte_level(token: str) -> bytes | None:
    try:
        return bytes(_BYTE_TABLE[char] for char in token)
    except KeyError:
        return None


def _sentencepiece(token: str) -> bytes | None:
    if len(token) == 6 and token.startswith("<0x") and token.endswith(">"):
        try:
            return bytes([int(token[3:5], 16)])
        except ValueError:
            return None
    return token.replace("\u2581", " ").encode("utf-8")


def _special_ids(tokenizer: Any) -> set[int]:
    ids: set[int] = set()
    try:
        ids.update(int(i) for i in tokenizer.all_special_ids)
    except (AttributeError, TypeError, ValueError):
        pass
    decoder = getattr(tokenizer, "added_tokens_decoder", None) or {}
    for index, added in dict(decoder).items():
        if getattr(added, "special", False):
            ids.add(int(index))
    return ids


class TokenTexts:
    """Per-token bytes of one tokenizer; build once with :meth:`of` (cached per tokenizer)."""

    __slots__ = ("__weakref__", "_prepared", "_prepared_lock", "pieces", "special", "strategy", "strings")

    _cache: ClassVar[weakref.WeakKeyDictionary[Any, TokenTexts]] = weakref.WeakKeyDictionary()
    _cache_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(
        self, pieces: Sequence[bytes], special: set[int] | frozenset[int], strategy: str = "given"
    ) -> None:
        self.pieces: list[bytes] = list(pieces)
        self.special: frozenset[int] = frozenset(i for i in special if 0 <= i < len(self.pieces))
        self.strategy = strategy
        self.strings: list[str] = [
            "" if i in self.special else piece.decode("utf-8", "replace")
            for i, piece in enumerate(self.pieces)
        ]
        self._prepared: PreparedVocabulary | None = None
        self._prepared_lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.pieces)

    def __repr__(self) -> str:
        return f"TokenTexts(size={len(self.pieces)}, strategy={self.strategy!r}, special={len(self.special)})"

    @property
    def prepared(self) -> PreparedVocabulary:
        """The vocabulary as the core's :class:`toolerr.adapters.PreparedVocabulary` (built once)."""
        prepared = self._prepared
        if prepared is None:
            with self._prepared_lock:
                prepared = self._prepared
                if prepared is None:
                    prepared = self._prepared = PreparedVocabulary(self.strings)
        return prepared

    def text(self, ids: Sequence[int]) -> str:
        """The text of a token sequence (special tokens contribute nothing)."""
        stream = TokenStream(self)
        return "".join(stream.push(int(i)) for i in ids) + stream.flush()

    @classmethod
    def of(cls, tokenizer: Any) -> TokenTexts:
        """The token texts of ``tokenizer`` (computed once per tokenizer object)."""
        if isinstance(tokenizer, TokenTexts):
            return tokenizer
        with cls._cache_lock:
            try:
                cached = cls._cache.get(tokenizer)
            except TypeError:  # not weak-referenceable or not hashable
                cached = None
        if cached is not None:
            return cached
        texts = cls.from_tokenizer(tokenizer)
        with cls._cache_lock:
            try:
                cls._cache[tokenizer] = texts
            except TypeError:
                pass
        return texts

    @classmethod
    def from_tokenizer(cls, tokenizer: Any) -> TokenTexts:
        """Recover each token's bytes; the strategy is checked on sample texts."""
        size = len(tokenizer)
        special = _special_ids(tokenizer)
        tokens: list[str | None] = list(tokenizer.convert_ids_to_tokens(list(range(size))))
        added: dict[int, str] = {}
        for index, token in dict(getattr(tokenizer, "added_tokens_decoder", None) or {}).items():
            content = getattr(token, "content", token)
            if isinstance(content, str):
                added[int(index)] = content

        def decode_one(index: int) -> bytes:
            return str(
                tokenizer.decode([index], skip_special_tokens=False, clean_up_tokenization_spaces=False)
            ).encode("utf-8")

        def build(convert: Callable[[str], bytes | None] | None) -> list[bytes]:
            pieces: list[bytes] = []
            for index, token in enumerate(tokens):
                if index in special:
                    pieces.append(b"")
                elif index in added:
                    pieces.append(added[index].encode("utf-8"))
                elif token is None:
                    pieces.append(b"")
                elif convert is None:
                    pieces.append(decode_one(index))
                else:
                    piece = convert(token)
                    pieces.append(decode_one(index) if piece is None else piece)
            return pieces

        strategies: list[tuple[str, Callable[[str], bytes | None] | None]] = [
            ("byte-level", _byte_level),
            ("sentencepiece", _sentencepiece),
            ("decode", None),
        ]
        for name, convert in strategies:
            pieces = build(convert)
            if _round_trips(tokenizer, pieces):
                return cls(pieces, special, name)
        logger.warning(
            "toolerr: could not recover exact token texts from %s; the ban matches decode([id]) texts",
            type(tokenizer).__name__,
        )
        return cls(build(None), special, "decode-unverified")


def _round_trips(tokenizer: Any, pieces: list[bytes]) -> bool:
    for sample in _SAMPLES:
        ids = tokenizer.encode(sample, add_special_tokens=False)
        joined = b"".join(pieces[i] for i in ids if 0 <= i < len(pieces)).decode("utf-8", "replace")
        # SentencePiece adds a space before the first word; the decoder drops it again.
        if joined != sample and joined != " " + sample:
            return False
    return True


class TokenStream:
    """Incremental decoding of one row: the text each new token adds (complete characters)."""

    __slots__ = ("_decoder", "_texts")

    def __init__(self, texts: TokenTexts) -> None:
        self._texts = texts
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def push(self, token: int) -> str:
        """The text ``token`` adds; ``""`` for a special token or a partial character."""
        pieces = self._texts.pieces
        if token < 0 or token >= len(pieces):
            return ""
        return str(self._decoder.decode(pieces[token]))

    def flush(self) -> str:
        """Bytes of an unfinished character, as U+FFFD (end of the stream)."""
        return str(self._decoder.decode(b"", final=True))

    def reset(self) -> None:
        self._decoder.reset()
