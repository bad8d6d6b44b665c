"""FailedCallBan: the decoder-level remedy (the contract's "Decoder ban") as a transformers LogitsProcessor.

While the model writes a tool call (after the start marker, before the end marker), the
exact strings of earlier failed calls are made unreachable: the token that would complete
one is given ``-inf``, whatever tokens led there. Prose, and text before the prompt's last
open call, are never touched. The string logic is the core's :class:`toolerr.StringBan`; this
module only follows the generated text row by row.

What counts as the same call. Matching ignores JSON white space outside strings (the core's
``ignore_json_whitespace``: ``{"city": "Paris" }`` is ``{"city":"Paris"}``; white space
inside strings is kept) and the order of the keys: every order of the arguments' top-level
keys, with ``name`` before or after ``arguments``, is banned as its own string, for calls
with at most :data:`MAX_KEY_ORDER_KEYS` argument keys (5: 2 x 120 strings; a call with more
keys is banned in its own key order only). The order of keys inside nested objects is
matched as written.
"""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import Iterable, Sequence
from typing import Any

import torch
from toolerr import FailedCall, FailureLedger, StringBan
from toolerr._json_text import canonical_json_text
from toolerr.adapters import BanCursor, fail_open
from transformers import LogitsProcessor

from ._format import HermesFormat
from ._vocab import TokenStream, TokenTexts

logger = logging.getLogger("toolerr")

__all__ = ["FailedCallBan"]

MAX_KEY_ORDER_KEYS = 5
"""Calls with at most this many argument keys are banned in every key order (k! orders)."""


def _members(obj: str) -> list[str] | None:
    """The top-level ``key:value`` members of a canonical JSON object text ``{...}``."""
    if len(obj) < 2 or obj[0] != "{" or obj[-1] != "}":
        return None
    inner = obj[1:-1]
    if not inner:
        return []
    members: list[str] = []
    depth = 0
    in_string = escape = False
    begin = 0
    for index, ch in enumerate(inner):
        if in_string:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        elif ch == "," and depth == 0:
            members.append(inner[begin:index])
            begin = index + 1
    members.append(inner[begin:])
    return members


def _value(member: str) -> tuple[str, str]:
    """``(key, value)`` texts of a canonical member ``"key":value``."""
    key_end = 1
    escape = False
    while key_end < len(member):
        ch = member[key_end]
        if escape:
            escape = False
        elif ch == "\\":
            escape = True
        elif ch == '"':
            break
        key_end += 1
    return member[: key_end + 1], member[key_end + 2 :]


def key_order_variants(call_text: str, decisive: str) -> list[str]:
    """The canonical strings to ban for one call: its decisive text in every key order.

    ``call_text`` is the whole call (``{"name": ..., "arguments": {...}}``), ``decisive``
    its decisive text. A call that is not a JSON object with exactly ``name`` and an
    ``arguments`` object, or with more than :data:`MAX_KEY_ORDER_KEYS` argument keys,
    gives its decisive text only."""
    fallback = [canonical_json_text(decisive)[0]]
    try:
        data = json.loads(call_text)
    except ValueError:
        return fallback
    if not isinstance(data, dict) or set(data) != {"name", "arguments"}:
        return fallback
    if not isinstance(data["arguments"], dict) or len(data["arguments"]) > MAX_KEY_ORDER_KEYS:
        return fallback
    outer = _members(canonical_json_text(call_text.strip())[0])
    if outer is None or len(outer) != 2:
        return fallback
    parts = dict(_value(member) for member in outer)
    name, arguments = parts.get('"name"'), parts.get('"arguments"')
    inner = None if arguments is None else _members(arguments)
    if name is None or inner is None or len(inner) != len(data["arguments"]):
        return fallback
    variants = dict.fromkeys(fallback)
    for order in itertools.permutations(inner):
        body = "{" + ",".join(order) + "}"
        variants.setdefault(f'{{"name":{name},"arguments":{body}', None)
        variants.setdefault(f'{{"arguments":{body},"name":{name}', None)
    return list(variants)


class _RowsMismatch(ValueError):
    """The batch does not fit the per-row bans (a usage error, raised)."""


class _Row:
    """The decoding state of one batch row."""

    __slots__ = ("ban", "cursor", "in_call", "started", "stream", "tail")

    def __init__(self, ban: StringBan, texts: TokenTexts) -> None:
        self.ban = ban
        self.cursor: BanCursor = ban.cursor()
        self.stream = TokenStream(texts)
        self.in_call = False
        self.started = False
        self.tail = ""


class FailedCallBan(LogitsProcessor):
    """Make earlier failed tool calls unreachable while the model writes a call.

    ``banned``: call strings exactly as the model writes them between ``start`` and
    ``end`` (white space around them is not part of the call), banned in every row.
    ``rows``: per-row banned strings for a batch (one failed-call ledger per row); with
    ``num_return_sequences`` or beams each prompt's expanded rows share its bans.

    A call counts as being written from the text after ``start`` until ``end``;
    special tokens (end of turn) close it. A call left open at the end of the prompt
    (a prompt that ends with ``start``, or with ``start`` and part of a call) is being
    written from the first generated token. Use one instance per ``generate`` call, or
    :meth:`reset` it between calls.

    ``blocked_steps`` counts the (row, step) pairs where some token was blocked,
    ``interventions`` those where the model's top-scoring token was blocked (the ban
    changed the greedy choice).
    """

    def __init__(
        self,
        tokenizer: Any,
        banned: Iterable[str] = (),
        start: str = "<tool_call>",
        end: str = "</tool_call>",
        *,
        rows: Sequence[Iterable[str]] | None = None,
    ) -> None:
        if not start or not end:
            raise ValueError("start and end markers must not be empty")
        self.texts = TokenTexts.of(tokenizer)
        self.start = start
        self.end = end
        self.format = HermesFormat(start, end)
        self._pad = (
            getattr(tokenizer, "pad_token_id", None) if not isinstance(tokenizer, TokenTexts) else None
        )
        self._shared = StringBan(self.texts.prepared, ignore_json_whitespace=True)
        self._shared_texts: set[str] = set()
        self._per_row: list[StringBan] | None = None
        self._row_texts: list[set[str]] = []
        if rows is not None:
            self._per_row = [StringBan(self.texts.prepared, ignore_json_whitespace=True) for _ in rows]
            self._row_texts = [set() for _ in rows]
        self._rows: list[_Row] | None = None
        self._length = 0
        self._weights: torch.Tensor | None = None
        self._fingerprints: torch.Tensor | None = None
        self.blocked_steps = 0
        self.interventions = 0
        self._row_interventions: dict[int, int] = {}
        for text in (banned,) if isinstance(banned, str) else banned:  # one call, not its characters
            self.ban(text)
        for index, row_banned in enumerate(rows or ()):
            for text in (row_banned,) if isinstance(row_banned, str) else row_banned:
                self.ban(text, row=index)

    def __repr__(self) -> str:
        rows = "" if self._per_row is None else f", rows={len(self._per_row)}"
        count = len(self._shared_texts)
        return f"FailedCallBan(banned={count}{rows}, start={self.start!r}, end={self.end!r})"

    # -- bans ------------------------------------------------------------------------

    @classmethod
    def from_ledger(
        cls,
        tokenizer: Any,
        ledger: FailureLedger | Sequence[FailureLedger],
        start: str = "<tool_call>",
        end: str = "</tool_call>",
    ) -> FailedCallBan:
        """A ban fed by the core's failed-call ledger (or one ledger per batch row)."""
        if isinstance(ledger, FailureLedger):
            processor = cls(tokenizer, start=start, end=end)
            processor.ban_failed(ledger)
            return processor
        processor = cls(tokenizer, start=start, end=end, rows=[() for _ in ledger])
        for index, row_ledger in enumerate(ledger):
            processor.ban_failed(row_ledger, row=index)
        return processor

    def ban(self, text: str, row: int | None = None) -> None:
        """Ban one call string (all rows, or one row of the batch).

        What becomes unreachable is the call's decisive part
        (:meth:`HermesFormat.decisive_text`): the string up to the end of its arguments, so
        that the model cannot write the same call and go on with extra keys after them),
        modulo JSON white space outside strings and key order (module docstring)."""
        text = text.strip()
        if not text:
            raise ValueError("cannot ban an empty call")
        per_row = self._per_row
        if row is not None and (per_row is None or not 0 <= row < len(per_row)):
            raise IndexError(f"row {row} out of range: give rows=[...] (one list of bans per batch row)")
        decisive = self.format.decisive_text(text)
        variants = key_order_variants(text, decisive)
        if row is None:
            targets = [self._shared, *(per_row or ())]
            self._shared_texts.add(decisive)
            for texts in self._row_texts:
                texts.add(decisive)
        else:
            assert per_row is not None
            targets = [per_row[row]]
            self._row_texts[row].add(decisive)
        for target in targets:
            for variant in variants:
                target.ban(variant)

    def ban_call(
        self, name: str, arguments: Any = None, *, raw_arguments: str | None = None, row: int | None = None
    ) -> str:
        """Ban a call given by tool name and arguments, rendered in this format; the string."""
        text = self.format.call_text(name, arguments, raw_arguments=raw_arguments)
        self.ban(text, row=row)
        return text

    def ban_failed(
        self, failed: FailureLedger | FailedCall | Iterable[FailedCall], row: int | None = None
    ) -> list[str]:
        """Ban what the core's ledger says a decoder should ban (``FailureLedger.banned_calls``):
        each failed call's exact argument text, rendered as a call of this format."""
        if isinstance(failed, FailureLedger):
            calls: Iterable[FailedCall] = failed.banned_calls()
        elif isinstance(failed, FailedCall):
            calls = (failed,)
        else:
            calls = failed
        return [self.ban_call(call.name, raw_arguments=call.exact, row=row) for call in calls]

    def banned(self, row: int | None = None) -> frozenset[str]:
        """The calls made unreachable (of every row, or those of one row): each banned
        call's decisive part as given (its white space variants and key orders are
        unreachable too)."""
        if row is None or self._per_row is None:
            return frozenset(self._shared_texts)
        return frozenset(self._row_texts[row])

    def row_interventions(self, row: int) -> int:
        """Steps at which the ban changed the top choice of one batch row."""
        return self._row_interventions.get(row, 0)

    def reset(self) -> None:
        """Forget the decoding state (the bans stay): the next call starts a new generation."""
        self._rows = None
        self._length = 0
        self._fingerprints = None

    # -- decoding --------------------------------------------------------------------

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        with fail_open("FailedCallBan", "this step is decoded without the ban", reraise=(_RowsMismatch,)):
            blocked = self._step(input_ids)
            return scores if not blocked else self._apply(scores, blocked)
        self._rows = None
        return scores

    def _apply(self, scores: torch.FloatTensor, blocked: list[tuple[int, list[int]]]) -> torch.FloatTensor:
        rows: list[int] = []
        tokens: list[int] = []
        width = scores.shape[-1]
        for row, ids in blocked:
            for token in ids:
                if token < width:
                    rows.append(row)
                    tokens.append(token)
        out = scores.clone()
        device = scores.device
        out[torch.tensor(rows, device=device), torch.tensor(tokens, device=device)] = float("-inf")
        # Where the blocked tokens were all that a processor before the ban (a grammar) left,
        # the row would have no token at all (sampling raises, beam scores turn into NaN):
        # the other constraint wins, the row is decoded without the ban this step.
        touched = sorted({row for row, _ in blocked})
        index = torch.tensor(touched, device=device)
        alive = (out[index] > float("-inf")).any(dim=-1) | ~(scores[index] > float("-inf")).any(dim=-1)
        emptied = {row for row, ok in zip(touched, alive.tolist(), strict=True) if not ok}
        for row in emptied:
            out[row] = scores[row]
            logger.warning(
                "toolerr: FailedCallBan would leave row %d no token (a processor before it allowed "
                "only the banned ones); this step of the row is decoded without the ban",
                row,
            )
        for row, ids in blocked:
            if row in emptied:
                continue
            self.blocked_steps += 1
            top = int(scores[row].argmax())
            if top in ids:
                self.interventions += 1
                self._row_interventions[row] = self._row_interventions.get(row, 0) + 1
        return out  # type: ignore[return-value]

    def _ban_for(self, index: int, batch: int) -> StringBan:
        per_row = self._per_row
        if per_row is None:
            return self._shared
        count = len(per_row)
        if batch == count:
            return per_row[index]
        if count and batch % count == 0:
            return per_row[index // (batch // count)]
        raise _RowsMismatch(f"FailedCallBan has bans for {count} rows but the batch has {batch} rows")

    def _fingerprint(self, input_ids: torch.Tensor) -> torch.Tensor:
        """A hash of each row's whole sequence (one vectorised op): tells rows apart when
        beam search reorders them or a new generation reuses this processor."""
        length = input_ids.shape[1]
        weights = self._weights
        if weights is None or weights.shape[0] < length or weights.device != input_ids.device:
            generator = torch.Generator().manual_seed(0x70_01_E2)
            size = max(length * 2, 1024)
            # Weights below 2**24 and ids below 2**21: no int64 overflow up to 2**18 positions.
            weights = torch.randint(1, 2**24, (size,), generator=generator, dtype=torch.int64)
            weights = self._weights = weights.to(input_ids.device)
        return (input_ids.to(torch.int64) * weights[:length]).sum(dim=1)

    def _step(self, input_ids: torch.Tensor) -> list[tuple[int, list[int]]]:
        batch, length = input_ids.shape
        rows = self._rows
        fingerprints = self._fingerprint(input_ids)
        if rows is None or len(rows) != batch or length != self._length + 1 or self._fingerprints is None:
            rows = self._rows = [_Row(self._ban_for(i, batch), self.texts) for i in range(batch)]
            for index, row in enumerate(rows):
                self._rebuild(row, input_ids[index].tolist())
        else:
            assert self._weights is not None
            previous = fingerprints - input_ids[:, -1].to(torch.int64) * self._weights[length - 1]
            same = (previous == self._fingerprints).tolist()
            for index, token in enumerate(input_ids[:, -1].tolist()):
                row = rows[index]
                if same[index]:
                    self._push(row, token)
                else:  # rows were reordered (beam search): follow the row's text again
                    self._rebuild(row, input_ids[index].tolist())
        self._fingerprints = fingerprints
        self._length = length
        blocked: list[tuple[int, list[int]]] = []
        for index, row in enumerate(rows):
            if row.in_call:
                ids = row.cursor.blocked_tokens()
                if ids:
                    blocked.append((index, ids))
        return blocked

    def _rebuild(self, row: _Row, ids: list[int]) -> None:
        """Follow a whole row from its last special token (text before it cannot be an open call)."""
        special = self.texts.special
        begin = 0
        for position in range(len(ids) - 1, -1, -1):
            if ids[position] in special:
                begin = position + 1
                break
        else:
            while begin < len(ids) and ids[begin] == self._pad:
                begin += 1
        row.in_call = False
        row.started = False
        row.tail = ""
        row.stream.reset()
        row.cursor.reset()
        for token in ids[begin:]:
            self._push(row, token)

    def _push(self, row: _Row, token: int) -> None:
        if token in self.texts.special:
            row.in_call = False
            row.tail = ""
            row.stream.reset()
            return
        text = row.stream.push(token)
        if text:
            self._feed(row, text)

    def _feed(self, row: _Row, text: str) -> None:
        start, end = self.start, self.end
        while text:
            if not row.in_call:
                buffer = row.tail + text
                found = buffer.find(start)
                if found < 0:
                    row.tail = buffer[1 - len(start) :] if len(start) > 1 else ""
                    return
                row.in_call = True
                row.started = False
                row.tail = ""
                row.cursor.reset()
                text = buffer[found + len(start) :]
                continue
            buffer = row.tail + text
            found = buffer.find(end)
            piece = text if found < 0 else text[: max(0, found - len(row.tail))]
            if not row.started:
                piece = piece.lstrip()
                row.started = bool(piece)
            if piece:
                row.cursor.feed(piece)
            if found < 0:
                row.tail = buffer[1 - len(end) :] if len(end) > 1 else ""
                return
            row.in_call = False
            row.tail = ""
            text = buffer[found + len(end) :]

    @property
    def in_call(self) -> list[bool]:
        """Per row: whether the model is writing a call now."""
        return [row.in_call for row in self._rows or ()]

    @property
    def partial_calls(self) -> list[str | None]:
        """Per row: the call text written so far (``None`` outside a call)."""
        return [row.cursor.partial if row.in_call else None for row in self._rows or ()]
