"""Greedy batched generation and teacher-forced scoring with a shared prompt prefix.

The prompts of one batch share a long prefix (the system turn with the tools, often the
request and more). It is encoded once; its KV cache is copied to every row, and each row
only encodes its own rest (left-padded *inside* the rest, so that the prefix stays
aligned). Prompts are rendered by the backend (:meth:`LocalToolModel.render`, the
``<tool_call>`` text format) and replies parsed by its lenient parser; the decoder ban is
the package's :class:`FailedCallBan`. The backend's own ``generate_batch`` encodes every
prompt whole, which costs about twice as much on a CPU: this module adds the prefix reuse.

Identical requests are decoded once (memoised), and a request with banned strings reuses
the unbanned reply of the same prompt when that reply contains none of their decisive
parts (what the ban makes unreachable, in any white space or key order): under greedy
decoding the ban cannot change a reply that never completes one.
"""

from __future__ import annotations

import copy
import inspect
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from toolerr import Message
from toolerr_hf import (
    FailedCallBan,
    HermesFormat,
    LocalToolModel,
    ParsedOutput,
    TokenTexts,
    key_order_variants,
)

from ._journal import Journal

logger = logging.getLogger("toolerr")

__all__ = ["Counters", "Engine", "Reply", "Request"]


@dataclass(frozen=True)
class Request:
    prompt: str
    banned: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    """Tool names (for the parser's bare-JSON rule)."""
    prefill: str = ""
    """The part of ``prompt`` that opens the reply (a forced call's start marker): the reply
    text is parsed with it."""
    label: tuple[str, ...] = field(default=(), compare=False)
    """Stage, scenario, kind, harness (and turn): a name for the journal's reader only."""


@dataclass(frozen=True)
class Reply:
    text: str
    parsed: ParsedOutput
    completion_tokens: int
    cut: bool
    interventions: int = 0
    reused: bool = False
    """The unbanned reply of the same prompt, reused (it completes no banned string)."""


@dataclass
class Counters:
    """Work done, for the report: token positions encoded vs. what whole prompts would need."""

    generations: int = 0
    memo_hits: int = 0
    ban_reused: int = 0
    prompt_positions: int = 0
    prompt_positions_naive: int = 0
    generated_tokens: int = 0
    resumed: int = 0
    """Replies and scorings taken from the journal of an interrupted run (``--resume``)."""
    score_positions: int = 0
    score_positions_naive: int = 0
    extra: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        def share(done: int, naive: int) -> float | None:
            return None if naive == 0 else 1.0 - done / naive

        return {
            "generations": self.generations,
            "memo_hits": self.memo_hits,
            "ban_reused": self.ban_reused,
            "generated_tokens": self.generated_tokens,
            "resumed": self.resumed,
            "prompt_positions": self.prompt_positions,
            "prompt_positions_naive": self.prompt_positions_naive,
            "prompt_positions_saved": share(self.prompt_positions, self.prompt_positions_naive),
            "score_positions": self.score_positions,
            "score_positions_naive": self.score_positions_naive,
            "score_positions_saved": share(self.score_positions, self.score_positions_naive),
        }


def _no_space(text: str) -> str:
    return "".join(text.split())


def _first_turn(prompt: str) -> str:
    """The prompt up to the end of its first turn (the system turn with the tools)."""
    for marker in ("<|im_end|>", "<|eot_id|>", "</s>", "<end_of_turn>"):
        found = prompt.find(marker)
        if found >= 0:
            return prompt[:found]
    return ""


def _common_prefix(rows: Sequence[Sequence[int]]) -> int:
    first = rows[0]
    length = min(len(r) for r in rows)
    for row in rows[1:]:
        i = 0
        limit = min(length, len(row))
        while i < limit and row[i] == first[i]:
            i += 1
        length = i
    return length


class Engine:
    """Greedy decoding and scoring on one model, for the evaluation."""

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        max_new_tokens: int = 48,
        batch_size: int = 16,
        prose_tokens: int | None = 24,
        format: HermesFormat | None = None,
        journal: Journal | None = None,
    ) -> None:
        self.model = model
        self.journal = journal
        """Where replies and scorings are written as they are computed, and read back from
        on ``--resume`` (``None``: nothing is written)."""
        self.tokenizer = tokenizer
        self.format = format or HermesFormat()
        self.backend = LocalToolModel(model, tokenizer, format=self.format, layer=None, ban=False)
        self.max_new_tokens = max_new_tokens
        self.batch_size = max(1, batch_size)
        self.prose_tokens = prose_tokens
        self.counters = Counters()
        self.texts = TokenTexts.of(tokenizer)
        self._memo: dict[tuple[str, tuple[str, ...]], Reply] = {}
        self._ids: dict[str, list[int]] = {}
        params = inspect.signature(model.forward).parameters
        self._cache_name = "cache" if "cache" in params else "past_key_values"
        pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
        self.pad_id = int(pad if pad is not None else 0)
        eos: set[int] = set()
        value = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
        if isinstance(value, int):
            eos.add(value)
        elif isinstance(value, (list, tuple)):
            eos.update(int(v) for v in value)
        if tokenizer.eos_token_id is not None:
            eos.add(int(tokenizer.eos_token_id))
        self.stop_ids = eos | set(self.texts.special)

    # -- rendering ---------------------------------------------------------------------

    def render(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]], tool_choice: str = "auto"
    ) -> str:
        return self.backend.render(messages, tools, tool_choice=tool_choice)

    def prefill(self, tool_choice: str) -> str:
        return self.format.prefill(tool_choice)

    def encode(self, text: str) -> list[int]:
        ids = self._ids.get(text)
        if ids is None:
            ids = list(self.tokenizer(text, add_special_tokens=False)["input_ids"])
            if len(self._ids) > 20000:
                self._ids.clear()
            self._ids[text] = ids
        return ids

    # -- the model --------------------------------------------------------------------

    def _forward(self, ids: torch.Tensor, mask: torch.Tensor, positions: torch.Tensor, cache: Any) -> Any:
        kwargs: dict[str, Any] = {self._cache_name: cache} if cache is not None else {}
        return self.model(
            input_ids=ids, attention_mask=mask, position_ids=positions, use_cache=True, **kwargs
        )

    @staticmethod
    def _cache_of(output: Any) -> Any:
        return output["cache"] if "cache" in output else output["past_key_values"]

    def _prefix(self, ids: list[int]) -> tuple[Any, torch.Tensor]:
        """The KV cache of a prefix (batch 1) and its last logits."""
        tensor = torch.tensor([ids], dtype=torch.long)
        mask = torch.ones_like(tensor)
        positions = torch.arange(len(ids)).unsqueeze(0)
        out = self._forward(tensor, mask, positions, None)
        return self._cache_of(out), out.logits[0, -1].float()

    # -- generation ---------------------------------------------------------------------

    def generate(
        self, requests: Sequence[Request], progress: Callable[[int], None] | None = None
    ) -> list[Reply]:
        """One greedy reply per request (decoded in batches; duplicates decoded once)."""
        # memo hits: requests answered without decoding because the same prompt and ban
        # were decoded before (an earlier call, or an earlier request of this call); a
        # banned request answered by its unbanned reply counts as ``ban_reused`` instead
        answered: set[tuple[str, tuple[str, ...]]] = set()
        hits = 0
        for request in requests:
            key0 = (request.prompt, request.banned)
            if key0 in self._memo or key0 in answered:
                hits += 1
            answered.add(key0)
        plain: dict[tuple[str, tuple[str, ...]], Request] = {}
        for request in requests:
            key: tuple[str, tuple[str, ...]] = (request.prompt, ())
            if key not in self._memo:
                plain.setdefault(
                    key, Request(request.prompt, (), request.tools, request.prefill, request.label)
                )
        self._run(list(plain.values()), progress)
        banned: dict[tuple[str, tuple[str, ...]], Request] = {}
        for request in requests:
            if not request.banned:
                continue
            key = (request.prompt, request.banned)
            if key in self._memo:
                continue
            base = self._memo[(request.prompt, ())]
            if self._may_complete(base.text, request.banned):
                banned.setdefault(key, request)
            else:
                self._memo[key] = Reply(
                    base.text, base.parsed, base.completion_tokens, base.cut, 0, reused=True
                )
                self.counters.ban_reused += 1
        self._run(list(banned.values()), progress)
        out = []
        for request in requests:
            out.append(self._memo[(request.prompt, request.banned)])
        self.counters.memo_hits += hits
        # the bar counts requests: what was decoded above (plain bases of banned requests
        # included) was counted by ``_run``; the balance is what no decoding answered
        rest = len(requests) - len(plain) - len(banned)
        if progress is not None and rest:
            progress(rest)
        return out

    def _may_complete(self, text: str, banned: Sequence[str]) -> bool:
        """Whether a reply may hold one of the banned calls as the ban matches them (modulo
        JSON white space and key order): checked with all white space removed from both
        sides, a superset of the ban's matches, so a reply is reused only when the ban
        cannot have changed it."""
        flat = _no_space(text)
        for call in banned:
            variants = key_order_variants(call.strip(), self.format.decisive_text(call))
            if any(_no_space(variant) in flat for variant in variants):
                return True
        return False

    def _run(self, requests: list[Request], progress: Callable[[int], None] | None) -> None:
        if not requests:
            return
        # Batches never mix system turns (the tools): their shared prefix stays long.
        groups: dict[str, list[int]] = {}
        for index in sorted(range(len(requests)), key=lambda i: requests[i].prompt):
            groups.setdefault(_first_turn(requests[index].prompt), []).append(index)
        chunks = [
            group[begin : begin + self.batch_size]
            for group in groups.values()
            for begin in range(0, len(group), self.batch_size)
        ]
        journal = self.journal
        for indices in chunks:
            chunk = [requests[i] for i in indices]
            replies = None if journal is None else self._from_journal(journal, chunk)
            if replies is None:
                replies = self._batch(chunk)
                if journal is not None:
                    journal.add_replies(
                        [
                            (
                                journal.reply_key(r.prompt, r.banned, r.tools, r.prefill),
                                r.label,
                                {
                                    "text": reply.text,
                                    "completion_tokens": reply.completion_tokens,
                                    "cut": reply.cut,
                                    "interventions": reply.interventions,
                                },
                            )
                            for r, reply in zip(chunk, replies, strict=True)
                        ]
                    )
            for request, reply in zip(chunk, replies, strict=True):
                self._memo[(request.prompt, request.banned)] = reply
            if progress is not None:
                progress(len(chunk))

    def _from_journal(self, journal: Journal, chunk: Sequence[Request]) -> list[Reply] | None:
        """The replies of a batch from the journal, if it holds them all (batches are written
        whole: a batch is decoded again unless every row is there)."""
        keys = [journal.reply_key(r.prompt, r.banned, r.tools, r.prefill) for r in chunk]
        found = [journal.replies.get(key) for key in keys]
        if any(entry is None for entry in found):
            return None
        replies = []
        for request, entry in zip(chunk, found, strict=True):
            assert entry is not None
            text = str(entry["text"])
            cut = bool(entry["cut"])
            replies.append(
                Reply(
                    text=text,
                    parsed=self.format.parse(text, request.tools or None, complete=not cut),
                    completion_tokens=int(entry["completion_tokens"]),
                    cut=cut,
                    interventions=int(entry["interventions"]),
                )
            )
        self.counters.resumed += len(replies)
        return replies

    def _batch(self, requests: Sequence[Request]) -> list[Reply]:
        rows = [self.encode(r.prompt) for r in requests]
        count = len(rows)
        shared = _common_prefix(rows)
        shared = min(shared, min(len(r) for r in rows) - 1)
        if shared < 1:
            raise ValueError("prompts must not be empty")
        with torch.inference_mode():
            cache, _ = self._prefix(rows[0][:shared])
            rests = [r[shared:] for r in rows]
            width = max(len(r) for r in rests)
            feed = torch.full((count, width), self.pad_id, dtype=torch.long)
            mask = torch.zeros((count, shared + width), dtype=torch.long)
            mask[:, :shared] = 1
            positions = torch.full((count, width), shared, dtype=torch.long)
            for row, rest in enumerate(rests):
                pad = width - len(rest)
                feed[row, pad:] = torch.tensor(rest)
                mask[row, shared + pad :] = 1
                positions[row, pad:] = torch.arange(shared, shared + len(rest))
            if count > 1:
                cache.batch_repeat_interleave(count)
            out = self._forward(feed, mask, positions, cache)
            cache = self._cache_of(out)
            logits = out.logits[:, -1].float()
            self.counters.prompt_positions += shared + sum(len(r) for r in rests)
            self.counters.prompt_positions_naive += sum(len(r) for r in rows)
            bans = [r.banned for r in requests]
            processor = (
                FailedCallBan(self.tokenizer, start=self.format.start, end=self.format.end, rows=bans)
                if any(bans)
                else None
            )
            prefix_ids = torch.tensor(rows[0][:shared], dtype=torch.long).unsqueeze(0).expand(count, -1)
            history = torch.cat([prefix_ids, feed], dim=1)
            last = positions[:, -1].clone()
            generated: list[list[int]] = [[] for _ in range(count)]
            done = [False] * count
            ended = [False] * count
            for _step in range(self.max_new_tokens):
                scores = logits
                if processor is not None:
                    scores = processor(history, scores)  # type: ignore[arg-type]
                if not torch.isfinite(logits).any(dim=-1).all():
                    raise FloatingPointError("the model produced non-finite logits")
                chosen = scores.argmax(dim=-1).tolist()
                step_ids = []
                for row, token in enumerate(chosen):
                    if done[row]:
                        step_ids.append(self.pad_id)
                        continue
                    step_ids.append(token)
                    if token in self.stop_ids:
                        done[row] = True
                        ended[row] = True
                        continue
                    generated[row].append(token)
                    tail = self.tokenizer.decode(generated[row][-12:], skip_special_tokens=False)
                    if self.format.end in tail:
                        done[row] = True
                        ended[row] = True
                    elif self.prose_tokens is not None and len(generated[row]) >= self.prose_tokens:
                        # No call begun after this many tokens: the action is decided (no call).
                        so_far = requests[row].prefill + self.tokenizer.decode(generated[row])
                        if "tool_call" not in so_far and not so_far.lstrip().startswith(("{", "`")):
                            done[row] = True
                            ended[row] = True
                if all(done):
                    break
                new = torch.tensor(step_ids, dtype=torch.long).unsqueeze(1)
                history = torch.cat([history, new], dim=1)
                mask = torch.cat([mask, torch.ones((count, 1), dtype=torch.long)], dim=1)
                last = last + 1
                out = self._forward(new, mask, last.unsqueeze(1), cache)
                cache = self._cache_of(out)
                logits = out.logits[:, -1].float()
        replies = []
        for row, request in enumerate(requests):
            text = request.prefill + str(
                self.tokenizer.decode(
                    generated[row], skip_special_tokens=True, clean_up_tokenization_spaces=False
                )
            )
            cut = not ended[row]
            parsed = self.format.parse(text, request.tools or None, complete=not cut)
            self.counters.generations += 1
            self.counters.generated_tokens += len(generated[row])
            replies.append(
                Reply(
                    text=text,
                    parsed=parsed,
                    completion_tokens=len(generated[row]),
                    cut=cut,
                    interventions=processor.row_interventions(row) if processor is not None else 0,
                )
            )
        return replies

    # -- scoring ------------------------------------------------------------------------

    def score(
        self,
        prompts: Sequence[str],
        candidates: Sequence[Sequence[str]],
        label: Sequence[str] = (),
    ) -> list[list[tuple[float, int]]]:
        """Teacher-forced ``(log-probability in nats, tokens)`` of each candidate continuation
        of each prompt. The prompts' common prefix is encoded once, each prompt's rest once,
        and the candidates of a prompt share its cache."""
        if not prompts:
            return []
        journal = self.journal
        key = "" if journal is None else journal.score_key(prompts, candidates)
        if journal is not None and key in journal.scores:
            self.counters.resumed += 1
            return [[(float(s), int(n)) for s, n in row] for row in journal.scores[key]]
        out = self._score(prompts, candidates)
        if journal is not None:
            journal.add_scores(key, label, out)
        return out

    def _score(
        self, prompts: Sequence[str], candidates: Sequence[Sequence[str]]
    ) -> list[list[tuple[float, int]]]:
        rows = [self.encode(p) for p in prompts]
        shared = min(_common_prefix(rows), min(len(r) for r in rows) - 1)
        out: list[list[tuple[float, int]]] = []
        with torch.inference_mode():
            prefix_cache, _ = self._prefix(rows[0][:shared])
            self.counters.score_positions += shared
            for row, texts in zip(rows, candidates, strict=True):
                cache = copy.deepcopy(prefix_cache)
                rest = row[shared:]
                feed = torch.tensor([rest], dtype=torch.long)
                mask = torch.ones((1, len(row)), dtype=torch.long)
                positions = torch.arange(shared, len(row)).unsqueeze(0)
                head = self._forward(feed, mask, positions, cache)
                cache = self._cache_of(head)
                first = torch.log_softmax(head.logits[0, -1].float(), dim=-1)
                pieces = [self.encode(t) for t in texts]
                self.counters.score_positions += len(rest) + sum(max(len(p) - 1, 0) for p in pieces)
                self.counters.score_positions_naive += sum(len(row) + len(p) - 1 for p in pieces)
                out.append(self._score_pieces(row, cache, first, pieces))
        return out

    def _score_pieces(
        self, row: list[int], cache: Any, first: torch.Tensor, pieces: list[list[int]]
    ) -> list[tuple[float, int]]:
        count = len(pieces)
        longest = max(len(p) for p in pieces)
        results: list[tuple[float, int]] = []
        if longest <= 1:
            return [(float(first[p[0]]) if p else 0.0, len(p)) for p in pieces]
        feed = torch.full((count, longest - 1), self.pad_id, dtype=torch.long)
        mask = torch.zeros((count, len(row) + longest - 1), dtype=torch.long)
        mask[:, : len(row)] = 1
        for index, ids in enumerate(pieces):
            if len(ids) > 1:
                feed[index, : len(ids) - 1] = torch.tensor(ids[:-1])
                mask[index, len(row) : len(row) + len(ids) - 1] = 1
        positions = torch.arange(len(row), len(row) + longest - 1).unsqueeze(0).expand(count, -1)
        expanded = copy.deepcopy(cache)
        if count > 1:
            expanded.batch_repeat_interleave(count)
        logits = self._forward(feed, mask, positions, expanded).logits
        logprobs = torch.log_softmax(logits.float(), dim=-1)
        for index, ids in enumerate(pieces):
            if not ids:
                results.append((0.0, 0))
                continue
            total = float(first[ids[0]])
            for position in range(1, len(ids)):
                total += float(logprobs[index, position - 1, ids[position]])
            if not total <= 0.0 or total != total:
                raise FloatingPointError(f"invalid log-probability {total}")
            results.append((total, len(ids)))
        return results
