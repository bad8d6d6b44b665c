"""Benchmark of toolerr_hf on the embedded default model (SmolLM2-135M-Instruct, CPU).

Measured:

* model load time (``load_default_model``: GGUF de-quantisation included) and the peak
  resident memory of the process after the load;
* decoding overhead of ``FailedCallBan``: greedy decoding of exactly 64 new tokens of a
  forced tool call (the call is being written for its first ~18 tokens, prose after it),
  with 1, 100 and 1,000 banned call strings (the first banned one is the call the model
  writes greedily, so the ban intervenes; the others share its prefix
  ``{"name": "get_weather", "arguments": {"city": "``). Reported as the median of paired
  wall-time ratios (each variant run right after a plain ``generate``, ``--repeats`` pairs),
  and from the processor's own time per step (timed inside generate), which hardly depends
  on machine load: ``1 + steps * time per step / plain time``;
* the same bans through transformers' ``NoBadWordsLogitsProcessor`` (each string's token
  ids from ``tokenizer(text)``): its overhead, and whether it blocks (a) the call the model
  writes greedily, (b) the same call reached by another tokenisation (``arguments": {"city": "``
  written one character per token, then free greedy decoding); also with the model's own
  greedy token ids. ``FailedCallBan`` is checked the same way.

Usage::

    python benchmarks/bench_hf.py               # writes benchmarks/out/bench_hf.json
    python benchmarks/bench_hf.py --repeats 2   # quicker
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import toolerr_hf
import torch
import transformers
from toolerr import Message
from toolerr_hf import FailedCallBan, LocalToolModel, TokenTexts
from transformers import LogitsProcessor, LogitsProcessorList, NoBadWordsLogitsProcessor

OUT = Path(__file__).resolve().parent / "out" / "bench_hf.json"
NEW_TOKENS = 64
BANNED_SIZES = (1, 100, 1_000)
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]


class Timed(LogitsProcessor):
    """Wraps a processor and adds up the time spent in it."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.calls = 0

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        start = time.perf_counter()
        out = self.inner(input_ids, scores)
        self.seconds += time.perf_counter() - start
        self.calls += 1
        return out  # type: ignore[no-any-return]


class Force(LogitsProcessor):
    """Forces the first generated tokens to a given sequence, then decodes freely."""

    def __init__(self, tokens: list[int]) -> None:
        self.tokens = tokens
        self.prompt_length: int | None = None

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if self.prompt_length is None:
            self.prompt_length = input_ids.shape[1]
        step = input_ids.shape[1] - self.prompt_length
        if step < len(self.tokens):
            out = scores.clone()
            out[:, self.tokens[step]] += 1e4
            return out  # type: ignore[return-value]
        return scores


def peak_rss_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def banned_strings(call: str, count: int) -> list[str]:
    prefix = '{"name": "get_weather", "arguments": {"city": "'
    return [call] + [f'{prefix}City number {i}, Country {i % 97}"}}}}' for i in range(count - 1)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)

    rss_before = peak_rss_mb()
    start = time.perf_counter()
    model, tokenizer = toolerr_hf.load_default_model()
    load_seconds = time.perf_counter() - start
    rss_after_load = peak_rss_mb()

    start = time.perf_counter()
    texts = TokenTexts.of(tokenizer)
    _ = texts.prepared
    vocab_seconds = time.perf_counter() - start

    backend = LocalToolModel(model, tokenizer)
    prompt = backend.render(
        [Message(role="user", content="What is the weather in Paris?")], TOOLS, tool_choice="required"
    )
    input_ids = tokenizer(prompt, return_tensors="pt", add_special_tokens=False)["input_ids"]
    mask = torch.ones_like(input_ids)

    def generate(processors: list[Any], new_tokens: int = NEW_TOKENS) -> tuple[float, list[int]]:
        with torch.no_grad():
            begin = time.perf_counter()
            out = model.generate(
                input_ids,
                attention_mask=mask,
                max_new_tokens=new_tokens,
                min_new_tokens=new_tokens,
                do_sample=False,
                logits_processor=LogitsProcessorList(processors),
                pad_token_id=tokenizer.pad_token_id,
            )
            seconds = time.perf_counter() - begin
        return seconds, out[0, input_ids.shape[1] :].tolist()

    generate([], 4)  # warm-up
    _, greedy_ids = generate([], 24)
    greedy_text = texts.text(greedy_ids)
    call = greedy_text.split("</tool_call>")[0].strip()

    # -- overhead -----------------------------------------------------------------------
    # Each variant runs right after its own plain run (paired ratios: robust to slow drifts
    # of machine load); the processor's own time is measured inside generate.
    build: dict[str, dict[str, float]] = {}
    makers: dict[str, Any] = {}
    for count in BANNED_SIZES:
        strings = banned_strings(call, count)
        begin = time.perf_counter()
        FailedCallBan(tokenizer, strings)
        ban_build = time.perf_counter() - begin
        bad_ids = [list(tokenizer(s, add_special_tokens=False)["input_ids"]) for s in strings]
        begin = time.perf_counter()
        NoBadWordsLogitsProcessor(bad_ids, eos_token_id=tokenizer.eos_token_id)
        bad_build = time.perf_counter() - begin
        build[str(count)] = {"failed_call_ban_s": ban_build, "no_bad_words_s": bad_build}
        makers[f"ban_{count}"] = lambda s=strings: FailedCallBan(tokenizer, s)
        makers[f"nobad_{count}"] = lambda ids=bad_ids: NoBadWordsLogitsProcessor(
            ids, eos_token_id=tokenizer.eos_token_id
        )

    plains: list[float] = []
    ratios: dict[str, list[float]] = {name: [] for name in makers}
    inside: dict[str, list[float]] = {name: [] for name in makers}
    interventions: dict[str, int] = {}
    for _ in range(args.repeats):
        for name, make in makers.items():
            plain_seconds, _ = generate([])
            plains.append(plain_seconds)
            timed = Timed(make())
            seconds, ids = generate([timed])
            assert len(ids) == NEW_TOKENS
            ratios[name].append(seconds / plain_seconds)
            inside[name].append(timed.seconds / max(timed.calls, 1))
            if isinstance(timed.inner, FailedCallBan):
                interventions[name] = timed.inner.interventions
            print(f"{name}: {seconds:.2f} s / plain {plain_seconds:.2f} s", file=sys.stderr, flush=True)

    plain = statistics.median(plains)
    overhead: dict[str, Any] = {}
    for name in makers:
        step_us = statistics.median(inside[name]) * 1e6
        overhead[name] = {
            "ratio_wall_paired_median": statistics.median(ratios[name]),
            "ratio_wall_paired_all": ratios[name],
            "processor_us_per_step": step_us,
            "ratio_from_processor_time": 1 + step_us * 1e-6 * NEW_TOKENS / plain,
        }

    # -- blocking -----------------------------------------------------------------------
    # The call with '"arguments": {"city": "' written one character per token.
    single = {s: i for i, s in reversed(list(enumerate(texts.strings))) if s and i not in texts.special}
    head, chars, word = (
        '{"name": "get_weather", "',
        'arguments": {"city": "',
        call[len('{"name": "get_weather", "arguments": {"city": "') : -3],
    )
    other = [*tokenizer(head, add_special_tokens=False)["input_ids"], *(single[c] for c in chars)]
    other += tokenizer(word, add_special_tokens=False)["input_ids"]

    def writes_call(processors: list[Any], force: list[int] | None) -> bool:
        chain = ([Force(force)] if force else []) + processors
        _, ids = generate(chain, (len(force) if force else 0) + 20)
        return call in texts.text(ids)

    bad_ids = [list(tokenizer(call, add_special_tokens=False)["input_ids"])]
    own_length = next(k for k in range(1, len(greedy_ids) + 1) if call in texts.text(greedy_ids[:k]))
    own_ids = [greedy_ids[:own_length]]
    blocking = {
        "canonical_ids_equal_greedy_ids": bad_ids[0] == greedy_ids[: len(bad_ids[0])],
        "greedy_ids": greedy_ids[: len(bad_ids[0]) + 1],
        "tokenizer_ids": bad_ids[0],
        "unconstrained_writes_call": {
            "greedy": writes_call([], None),
            "other_tokenisation": writes_call([], other),
        },
        "failed_call_ban_blocks": {
            "greedy": not writes_call([FailedCallBan(tokenizer, [call])], None),
            "other_tokenisation": not writes_call([FailedCallBan(tokenizer, [call])], other),
        },
        "no_bad_words_with_the_models_own_greedy_ids_blocks": {
            "greedy": not writes_call(
                [NoBadWordsLogitsProcessor(own_ids, eos_token_id=tokenizer.eos_token_id)], None
            ),
            "other_tokenisation": not writes_call(
                [NoBadWordsLogitsProcessor(own_ids, eos_token_id=tokenizer.eos_token_id)], other
            ),
        },
        "no_bad_words_blocks": {
            "greedy": not writes_call(
                [NoBadWordsLogitsProcessor(bad_ids, eos_token_id=tokenizer.eos_token_id)], None
            ),
            "other_tokenisation": not writes_call(
                [NoBadWordsLogitsProcessor(bad_ids, eos_token_id=tokenizer.eos_token_id)], other
            ),
        },
    }

    result = {
        "model": "SmolLM2-135M-Instruct (GGUF Q4_1 de-quantised to float32)",
        "parameters": model.num_parameters(),
        "load": {
            "seconds": load_seconds,
            "peak_rss_mb_before": rss_before,
            "peak_rss_mb_after_load": rss_after_load,
            "token_texts_and_prepared_vocabulary_s": vocab_seconds,
        },
        "decoding": {
            "new_tokens": NEW_TOKENS,
            "repeats": args.repeats,
            "plain_median_s": plain,
            "plain_all_s": plains,
            "plain_ms_per_token": plain / NEW_TOKENS * 1e3,
            "greedy_call": call,
            "overhead": overhead,
            "interventions": interventions,
            "construction": build,
        },
        "blocking": blocking,
        "peak_rss_mb_end": peak_rss_mb(),
        "environment": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "torch_threads": torch.get_num_threads(),
            "cpus": os.cpu_count(),
            "load_average": os.getloadavg(),
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
