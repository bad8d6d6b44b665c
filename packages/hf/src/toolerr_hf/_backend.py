"""LocalToolModel: tool calling on a local transformers model whose chat template has none.

Renders the neutral conversation (``list[toolerr.Message]``) with the tools in the
text format of :mod:`toolerr_hf._format`, generates (one conversation or a batch), and
parses the reply leniently. The policy decides the rest: with a ``layer`` the form
(C0-C4, abstract) is applied before rendering, and with ``ban`` the calls the core's
ledger says failed (from the conversation *before* the form removed them) are made
unreachable by :class:`FailedCallBan`. ``score_continuations`` gives teacher-forced
log-probabilities of candidate continuations, reusing the prompt's KV cache.
"""

from __future__ import annotations

import copy
import inspect
import logging
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import torch
from toolerr import PROFILES, DetectionRecord, FailureLedger, Message, ToolCall, ToolErrorLayer
from toolerr.adapters import (
    MEDIA_BLOCK_TYPES,
    FormSpec,
    SpecialTokens,
    content_text,
    fail_open,
    remove_special_tokens,
)
from transformers import LogitsProcessorList, StoppingCriteria, StoppingCriteriaList

from ._auto import resolve_form
from ._decoder_ban import FailedCallBan
from ._format import HermesFormat, InvalidCall, ParsedCall, ParsedOutput
from ._vocab import TokenStream, TokenTexts

logger = logging.getLogger("toolerr")

__all__ = ["Generation", "LocalToolModel"]

FinishReason = Literal["stop", "length", "tool_calls"]
ToolSpec = Mapping[str, Any]


def _new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:16]}"


@dataclass(frozen=True)
class Generation:
    """One reply of the local model, parsed."""

    text: str
    """The reply as the model wrote it (a forced call's prefill included)."""
    content: str
    """The prose outside the calls."""
    calls: tuple[ParsedCall, ...]
    invalid: tuple[InvalidCall, ...]
    call_ids: tuple[str, ...]
    finish_reason: FinishReason
    prompt: str
    prompt_tokens: int
    completion_tokens: int
    banned: frozenset[str] = frozenset()
    """The call strings the decoder ban held for this reply."""
    interventions: int = 0
    """Steps at which the ban changed the model's top choice."""
    records: tuple[DetectionRecord, ...] = ()
    """Detection records of the layer's rewrite (when a layer was given)."""
    seen: tuple[Message, ...] = field(default=(), repr=False)
    """The conversation the model saw (after the form)."""

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The calls as the core's neutral :class:`toolerr.ToolCall` (with their raw argument text)."""
        return tuple(
            ToolCall(id=call_id, name=call.name, arguments=call.arguments, raw_arguments=call.raw_arguments)
            for call, call_id in zip(self.calls, self.call_ids, strict=True)
        )

    def to_message(self) -> Message:
        """The reply as a neutral assistant message; ``meta["call_texts"]`` keeps each
        call's text exactly as written (what a later ban matches)."""
        return Message(
            role="assistant",
            content=self.content,
            tool_calls=self.tool_calls,
            meta={
                "call_texts": {cid: call.text for call, cid in zip(self.calls, self.call_ids, strict=True)}
            },
        )


class _StopAfterCall(StoppingCriteria):
    """Stops a row once a call it writes is closed (its end marker was generated)."""

    def __init__(self, texts: TokenTexts, end: str, prompt_length: int) -> None:
        self._texts = texts
        self._end = end
        self._prompt_length = prompt_length
        self._streams: list[TokenStream] = []
        self._tails: list[str] = []
        self._done: list[bool] = []

    def __call__(self, input_ids: torch.LongTensor, scores: Any, **kwargs: Any) -> torch.BoolTensor:
        batch = input_ids.shape[0]
        if not self._streams:
            self._streams = [TokenStream(self._texts) for _ in range(batch)]
            self._tails = [""] * batch
            self._done = [False] * batch
        if input_ids.shape[1] > self._prompt_length:
            for row, token in enumerate(input_ids[:, -1].tolist()):
                if self._done[row]:
                    continue
                buffer = self._tails[row] + self._streams[row].push(token)
                if self._end in buffer:
                    self._done[row] = True
                self._tails[row] = buffer[-len(self._end) :]
        return torch.tensor(self._done, dtype=torch.bool, device=input_ids.device)  # type: ignore[return-value]


class LocalToolModel:
    """A local model that calls tools in the ``<tool_call>`` text format.

    ``model``/``tokenizer``: a transformers causal LM and its tokenizer (``None``: the
    embedded default, loaded with :func:`toolerr_hf.load_default_model`).
    ``layer``: a :class:`toolerr.ToolErrorLayer` whose form is applied to every
    conversation before it is rendered (``None``: the conversation is shown as given).
    ``form``: instead of ``layer``, a layer with this form: a form, a per-kind mapping, a
    profile name (:data:`toolerr.PROFILES`) or ``"auto"`` (``small-local`` for a small model,
    ``study-c3`` otherwise: :func:`toolerr_hf.auto_form`; the choice is :attr:`profile`).
    ``ban``: make the exact strings of earlier failed calls unreachable while a call is
    written. ``stop_after_call``: end the reply when the first call is closed (small
    models tend to go on with made-up results). ``system_prompt``: prepended to the
    system turn. Extra ``generation_kwargs`` go to ``model.generate`` (``do_sample``,
    ``temperature`` ...); decoding is greedy by default.
    """

    def __init__(
        self,
        model: Any = None,
        tokenizer: Any = None,
        *,
        format: HermesFormat | None = None,
        layer: ToolErrorLayer | None = None,
        form: FormSpec | None = None,
        ban: bool = True,
        max_new_tokens: int = 256,
        stop_after_call: bool = True,
        system_prompt: str | None = None,
        call_id: Callable[[], str] = _new_call_id,
        **generation_kwargs: Any,
    ) -> None:
        if model is None or tokenizer is None:
            if model is not None or tokenizer is not None:
                raise ValueError("give both model and tokenizer, or neither (the embedded default)")
            from ._loading import load_default_model

            model, tokenizer = load_default_model()
        self.model = model
        self.tokenizer = tokenizer
        self.format = format or HermesFormat()
        self.profile: str | None = None
        """The profile ``form`` named or ``"auto"`` chose (``None``: none)."""
        if form is not None:
            if layer is not None:
                raise ValueError("give layer or form, not both")
            form = resolve_form(form, model)
            if isinstance(form, str) and form.strip().lower() in PROFILES:
                self.profile = form.strip().lower()
            layer = ToolErrorLayer(form=form)
        self.layer = layer
        self.ban = ban
        self.max_new_tokens = max_new_tokens
        self.stop_after_call = stop_after_call
        self.system_prompt = system_prompt
        self.call_id = call_id
        self.generation_kwargs = generation_kwargs
        self._replayer = ToolErrorLayer(form="c0") if layer is None else layer
        self.texts = TokenTexts.of(tokenizer)
        self.special_tokens = tokenizer_special_tokens(tokenizer)
        """This tokenizer's own special and added tokens: removed (beside the common model
        families' ones) from every message text this model's prompt shows, so that only
        the chat template writes control tokens. Kept for this model only."""

    def __repr__(self) -> str:
        name = getattr(getattr(self.model, "config", None), "_name_or_path", type(self.model).__name__)
        return f"LocalToolModel({name!r}, ban={self.ban}, layer={self.layer!r})"

    # -- rendering -------------------------------------------------------------------

    def chat_messages(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None
    ) -> list[dict[str, str]]:
        """The conversation as ``{"role", "content"}`` turns for the chat template: tools in
        the system turn, calls as ``<tool_call>`` blocks, results in user turns.

        Every text that comes from the conversation or the tools (results, calls with
        their names and arguments, prose, notes, tool schemas) is shown without special
        tokens (:meth:`clean`), so that none becomes a control token of the prompt; the
        format's markers and the template's tokens are added around it."""
        clean = self.clean
        turns: list[dict[str, str]] = []
        system_parts = [self.system_prompt] if self.system_prompt else []
        body = list(messages)
        while body and body[0].role == "system":
            system_parts.append(clean(prompt_text(body.pop(0).content)))
        if tools:
            system_parts.append(self.format.render_tools([self._clean_value(tool) for tool in tools]))
        if system_parts:
            turns.append({"role": "system", "content": "\n\n".join(part for part in system_parts if part)})
        pending_results: list[str] = []

        def flush() -> None:
            if pending_results:
                turns.append({"role": "user", "content": "\n".join(pending_results)})
                pending_results.clear()

        for message in body:
            if message.role == "tool":
                pending_results.append(self.format.render_result(clean(prompt_text(message.content))))
                continue
            flush()
            if message.role == "assistant":
                texts = dict(message.meta.get("call_texts") or {}) if message.meta else {}
                blocks = [
                    f"{self.format.start}\n{clean(self._call_text(call, texts))}\n{self.format.end}"
                    for call in message.tool_calls
                ]
                text = clean(prompt_text(message.content)).strip()
                turns.append({"role": "assistant", "content": "\n".join([text, *blocks] if text else blocks)})
            else:
                # A system message after the start is shown as a user turn: tool text never goes to system.
                turns.append(
                    {
                        "role": "user" if message.role == "system" else message.role,
                        "content": clean(prompt_text(message.content)),
                    }
                )
        flush()
        return turns

    def _call_text(self, call: ToolCall, texts: Mapping[str, Any]) -> str:
        """A call as shown between the markers: as the model wrote it, when known."""
        written = texts.get(call.id) if call.id is not None else None
        if isinstance(written, str):
            return written
        return self.format.call_text(call.name, call.arguments, raw_arguments=call.raw_arguments)

    def clean(self, text: str) -> str:
        """``text`` as the prompt shows it: without the special tokens of the common model
        families and of this tokenizer (:func:`toolerr.adapters.remove_special_tokens` with
        :attr:`special_tokens`), otherwise unchanged. Fails open (logged)."""
        with fail_open("removing special tokens", "the text is shown as is"):
            return remove_special_tokens(text, self.special_tokens)
        return text

    def _clean_value(self, value: Any) -> Any:
        """A tool schema with every string in it (keys too) :meth:`clean`-ed."""
        if isinstance(value, str):
            return self.clean(value)
        if isinstance(value, Mapping):
            return {self._clean_value(key): self._clean_value(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [self._clean_value(item) for item in value]
        return value

    def render(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] | None = None,
        *,
        tool_choice: str | None = "auto",
    ) -> str:
        """The prompt text: the chat template applied, the assistant turn opened, and the
        prefill of a forced call (``tool_choice="required"`` or a tool name)."""
        shown_tools = None if tool_choice == "none" else tools
        if shown_tools and tool_choice not in (None, "auto", "required", "any"):
            names = [str(_tool_name(tool)) for tool in shown_tools]
            if tool_choice not in names:
                raise ValueError(
                    f"tool_choice {tool_choice!r} names no given tool; expected 'auto', 'required', "
                    f"'none' or one of {', '.join(map(repr, names))}"
                )
        turns = self.chat_messages(messages, shown_tools)
        template = getattr(self.tokenizer, "chat_template", None)
        if template:
            prompt = str(
                self.tokenizer.apply_chat_template(turns, tokenize=False, add_generation_prompt=True)
            )
        else:
            prompt = "".join(f"<|im_start|>{t['role']}\n{t['content']}<|im_end|>\n" for t in turns)
            prompt += "<|im_start|>assistant\n"
        return prompt + (self.format.prefill(tool_choice) if shown_tools else "")

    # -- the ban ---------------------------------------------------------------------

    def ledger(self, messages: Sequence[Message]) -> FailureLedger:
        """The core's failed-call ledger of a conversation."""
        return self._replayer.replay(messages)[0]

    def banned_calls(self, messages: Sequence[Message], ledger: FailureLedger | None = None) -> list[str]:
        """The call strings to ban for the next reply: each failed call the ledger says a
        decoder should ban, rendered in this format, and as the model wrote it."""
        if ledger is None:
            ledger = self.ledger(messages)
        return self.format.banned_texts(messages, ledger)

    # -- generation ------------------------------------------------------------------

    def _prepare(
        self, messages: Sequence[Message], ban: bool, extra: Iterable[str]
    ) -> tuple[list[Message], list[str], tuple[DetectionRecord, ...]]:
        ledger: FailureLedger | None = None
        records: tuple[DetectionRecord, ...] = ()
        shown = list(messages)
        if self.layer is not None:
            rewrite = self.layer.rewrite(messages)
            shown = rewrite.messages
            ledger = rewrite.ledger
            records = rewrite.records
        banned: list[str] = []
        if ban:
            with fail_open("the ban", "could not build the ban, decoding without it"):
                banned = self.banned_calls(messages, ledger)
        if isinstance(extra, str):  # one call string, not its characters
            extra = (extra,)
        banned.extend(text.strip() for text in extra if text.strip())
        return shown, list(dict.fromkeys(banned)), records

    def generate(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] | None = None,
        *,
        tool_choice: str | None = "auto",
        banned: Iterable[str] = (),
        ban: bool | None = None,
        max_new_tokens: int | None = None,
        **generation_kwargs: Any,
    ) -> Generation:
        """One reply to ``messages``. ``banned``: more call strings to ban (beyond the ledger's)."""
        return self.generate_batch(
            [messages],
            tools,
            tool_choice=tool_choice,
            banned=[banned],
            ban=ban,
            max_new_tokens=max_new_tokens,
            **generation_kwargs,
        )[0]

    def generate_batch(
        self,
        conversations: Sequence[Sequence[Message]],
        tools: Sequence[ToolSpec] | None = None,
        *,
        tool_choice: str | None = "auto",
        banned: Sequence[Iterable[str]] | None = None,
        ban: bool | None = None,
        max_new_tokens: int | None = None,
        **generation_kwargs: Any,
    ) -> list[Generation]:
        """One reply per conversation, decoded as one left-padded batch (one ban per row)."""
        if not conversations:
            return []
        use_ban = self.ban if ban is None else ban
        extras = list(banned) if banned is not None else [() for _ in conversations]
        if len(extras) != len(conversations):
            raise ValueError("banned must hold one list of call strings per conversation")
        prepared = [self._prepare(c, use_ban, e) for c, e in zip(conversations, extras, strict=True)]
        prompts = [self.render(shown, tools, tool_choice=tool_choice) for shown, _, _ in prepared]
        prefill = self.format.prefill(tool_choice) if tools and tool_choice != "none" else ""
        tokenizer = self.tokenizer
        pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
        encoded = tokenizer(
            prompts, return_tensors="pt", padding=True, padding_side="left", add_special_tokens=False
        )
        device = getattr(self.model, "device", None)
        input_ids = encoded["input_ids"].to(device)
        attention_mask = encoded["attention_mask"].to(device)
        prompt_length = input_ids.shape[1]
        options: dict[str, Any] = {"do_sample": False, **self.generation_kwargs, **generation_kwargs}
        if options.get("num_return_sequences", 1) != 1:
            # the output rows would be taken as the next conversations' replies
            raise ValueError(
                "num_return_sequences must be 1: one reply per conversation "
                "(give the conversation several times for several replies)"
            )
        options.setdefault("pad_token_id", pad_id)
        # The caller's processors first; the ban has the last word.
        processors = LogitsProcessorList(list(options.pop("logits_processor", None) or ()))
        stopping = StoppingCriteriaList(list(options.pop("stopping_criteria", None) or ()))
        ban_processor: FailedCallBan | None = None
        if any(rows for _, rows, _ in prepared):
            ban_processor = FailedCallBan(
                tokenizer,
                start=self.format.start,
                end=self.format.end,
                rows=[rows for _, rows, _ in prepared],
            )
            processors.append(ban_processor)
        if self.stop_after_call:
            stopping.append(_StopAfterCall(self.texts, self.format.end, prompt_length))
        limit = max_new_tokens or self.max_new_tokens
        with torch.no_grad():
            output = self.model.generate(
                input_ids=input_ids,
                attention_mask=attention_mask,
                max_new_tokens=limit,
                logits_processor=processors,
                stopping_criteria=stopping,
                **options,
            )
        names = [str(_tool_name(tool)) for tool in tools or ()]
        results: list[Generation] = []
        eos = _eos_ids(self.model, tokenizer)
        for row, (shown, rows, records) in enumerate(prepared):
            generated = output[row, prompt_length:].tolist()
            length = next((i + 1 for i, token in enumerate(generated) if token in eos), len(generated))
            ended = length > 0 and generated[length - 1] in eos
            if not ended:
                while length and generated[length - 1] == pad_id:
                    length -= 1
            text = prefill + str(
                tokenizer.decode(
                    generated[:length], skip_special_tokens=True, clean_up_tokenization_spaces=False
                )
            )
            cut = not ended and length >= limit and not text.rstrip().endswith(self.format.end)
            parsed: ParsedOutput = ParsedOutput(text.strip(), text=text)
            with fail_open("parsing the reply", "it is returned as prose"):
                parsed = self.format.parse(text, names if tool_choice != "none" else None, complete=not cut)
            if rows:
                parsed = _without_cut_repeats(parsed, rows)
            finish: FinishReason = "tool_calls" if parsed.calls else "length" if cut else "stop"
            results.append(
                Generation(
                    text=text,
                    content=parsed.content,
                    calls=parsed.calls,
                    invalid=parsed.invalid,
                    call_ids=tuple(self.call_id() for _ in parsed.calls),
                    finish_reason=finish,
                    prompt=prompts[row],
                    prompt_tokens=int(attention_mask[row].sum()),
                    completion_tokens=length,
                    banned=frozenset(rows),
                    interventions=_row_interventions(ban_processor, row),
                    records=records,
                    seen=tuple(shown),
                )
            )
        return results

    # -- scoring ---------------------------------------------------------------------

    def score_continuations(
        self, prompt: str, candidates: Sequence[str], *, batch_size: int = 16
    ) -> list[float]:
        """Teacher-forced log-probability (nats, summed over tokens) of each candidate
        continuation of ``prompt``. The prompt is encoded once and its KV cache reused for
        every candidate; candidates are tokenized on their own (``add_special_tokens=False``)."""
        if not candidates:
            return []
        tokenizer = self.tokenizer
        device = getattr(self.model, "device", None)
        prompt_ids = tokenizer(prompt, return_tensors="pt", add_special_tokens=False)["input_ids"].to(device)
        if prompt_ids.shape[1] == 0:
            raise ValueError("the prompt must not be empty")
        pieces = [list(tokenizer(text, add_special_tokens=False)["input_ids"]) for text in candidates]
        scores: list[float] = []
        with torch.no_grad():
            head = self.model(input_ids=prompt_ids, use_cache=True)
            cache = head["cache"] if "cache" in head else head["past_key_values"]
            first = torch.log_softmax(head.logits[0, -1].float(), dim=-1)
            for begin in range(0, len(pieces), batch_size):
                chunk = pieces[begin : begin + batch_size]
                scores.extend(self._score_chunk(prompt_ids, cache, first, chunk))
        return scores

    def _score_chunk(
        self, prompt_ids: torch.Tensor, cache: Any, first: torch.Tensor, chunk: list[list[int]]
    ) -> list[float]:
        longest = max(len(ids) for ids in chunk)
        if longest <= 1:
            return [float(first[ids[0]]) if ids else 0.0 for ids in chunk]
        count = len(chunk)
        pad = self.tokenizer.pad_token_id or 0
        device = prompt_ids.device
        # Feed all but the last token of each candidate after the cached prompt.
        feed = torch.full((count, longest - 1), pad, dtype=torch.long, device=device)
        mask = torch.zeros((count, prompt_ids.shape[1] + longest - 1), dtype=torch.long, device=device)
        mask[:, : prompt_ids.shape[1]] = 1
        for row, ids in enumerate(chunk):
            if len(ids) > 1:
                feed[row, : len(ids) - 1] = torch.tensor(ids[:-1], device=device)
                mask[row, prompt_ids.shape[1] : prompt_ids.shape[1] + len(ids) - 1] = 1
        expanded = copy.deepcopy(cache)
        expanded.batch_repeat_interleave(count)
        cache_name = (
            "cache" if "cache" in inspect.signature(self.model.forward).parameters else "past_key_values"
        )
        logits = self.model(
            input_ids=feed, attention_mask=mask, use_cache=True, **{cache_name: expanded}
        ).logits
        logprobs = torch.log_softmax(logits.float(), dim=-1)
        out: list[float] = []
        for row, ids in enumerate(chunk):
            if not ids:
                out.append(0.0)
                continue
            total = float(first[ids[0]])
            for position in range(1, len(ids)):
                total += float(logprobs[row, position - 1, ids[position]])
            out.append(total)
        return out


def _without_cut_repeats(parsed: ParsedOutput, banned: Sequence[str]) -> ParsedOutput:
    """Calls whose text stops short of a banned call are not repaired into it: the ban left
    the model the prefix only (closing it is the one thing it could not do)."""
    kept: list[ParsedCall] = []
    invalid = list(parsed.invalid)
    for call in parsed.calls:
        if any(len(call.text) < len(text) and text.startswith(call.text) for text in banned):
            invalid.append(
                InvalidCall(call.text, "the call is an unfinished repeat of a failed call", call.name)
            )
        else:
            kept.append(call)
    if len(kept) == len(parsed.calls):
        return parsed
    return ParsedOutput(parsed.content, tuple(kept), tuple(invalid), parsed.text, parsed.extra)


def prompt_text(content: Any) -> str:
    """A message's content as a text model's prompt shows it: :func:`toolerr.adapters.content_text`,
    but a media block (an image, a sound, a file: ``toolerr``'s media block types) is named
    in brackets (``[image_url]``), not pasted as its payload (base64 a text model cannot read,
    which would fill its context)."""
    if not isinstance(content, (list, tuple)):
        return content_text(content)
    parts: list[str] = []
    for block in content:
        kind = block.get("type") if isinstance(block, Mapping) else None
        if isinstance(kind, str) and kind in MEDIA_BLOCK_TYPES and not isinstance(block.get("text"), str):
            parts.append(f"[{kind}]")
        else:
            parts.append(content_text([block]))
    return "\n".join(parts)


def _tool_name(tool: ToolSpec) -> Any:
    function = tool.get("function")
    if isinstance(function, Mapping):
        return function.get("name")
    return tool.get("name")


def tokenizer_special_tokens(tokenizer: Any) -> SpecialTokens:
    """A tokenizer's own special tokens and added tokens, as a :class:`toolerr.adapters.SpecialTokens`
    (for this tokenizer only: nothing is registered process-wide)."""
    tokens: set[str] = set()
    with fail_open("reading the tokenizer's special tokens", "the built-in ones still apply"):
        tokens.update(str(t) for t in getattr(tokenizer, "all_special_tokens", None) or ())
        decoder = getattr(tokenizer, "added_tokens_decoder", None) or {}
        tokens.update(str(getattr(added, "content", added)) for added in dict(decoder).values())
    name = getattr(tokenizer, "name_or_path", None) or type(tokenizer).__name__
    return SpecialTokens(tokens, source=f"tokenizer {name}")


def _eos_ids(model: Any, tokenizer: Any) -> set[int]:
    ids: set[int] = set()
    config = getattr(model, "generation_config", None)
    value = getattr(config, "eos_token_id", None)
    if isinstance(value, int):
        ids.add(value)
    elif isinstance(value, (list, tuple)):
        ids.update(int(v) for v in value)
    if tokenizer.eos_token_id is not None:
        ids.add(int(tokenizer.eos_token_id))
    return ids


def _row_interventions(processor: FailedCallBan | None, row: int) -> int:
    if processor is None:
        return 0
    return processor.row_interventions(row)
