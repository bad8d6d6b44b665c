"""Cost of removing special tokens from the tool text a local model's prompt shows (issue 18).

Times ``toolerr.adapters.remove_special_tokens`` (the built-in families' tokens and a tokenizer's
own, as ``LocalToolModel`` passes them) on tool results of several sizes and shapes:
plain text, HTML-like text (many ``>``), text holding tokens, and adversarially nested
tokens (which go through the one-scan fallback). Then ``LocalToolModel.chat_messages``
of a 40-message conversation with cleaning and with cleaning turned off (``clean``
replaced by the identity), interleaved; the figure is the ratio of the medians.

Usage::

    python benchmarks/bench_special_tokens.py          # needs toolerr-hf (tokenizers, transformers)
    python benchmarks/bench_special_tokens.py --quick
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

from toolerr import Message, ToolCall
from toolerr.adapters import SpecialTokens, remove_special_tokens


def _median_us(fn: Callable[[], object], repeats: int, inner: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        times.append((time.perf_counter() - start) / inner)
    return statistics.median(times) * 1e6


def _nested(depth: int, token: str, cut: int) -> str:
    text = ""
    for _ in range(depth):
        text = token[:cut] + text + token[cut:]
    return text


def _tokenizer() -> Any:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    model = Tokenizer(models.BPE())
    model.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<<OWN>>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    model.train_from_iterator(["the weather in Paris is sunny", '{"city": "Paris"}'] * 10, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=model, eos_token="<|im_end|>", pad_token="<|im_end|>")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    repeats = 3 if args.quick else 9
    own = SpecialTokens(["<<OWN>>", "[[OWN_END]]"], source="bench")
    page = "<div><p>The weather in <b>Paris</b> is sunny.</p></div>\n"
    cases = {
        "plain 2,000 chars": ("The weather in Paris is sunny. " * 70)[:2000],
        "plain 100,000 chars": ("The weather in Paris is sunny. " * 3300)[:100_000],
        "HTML 100,000 chars": (page * 2000)[:100_000],
        "2,000 chars, 20 tokens": ("x" * 90 + "<|im_start|>" + "<<OWN>>") * 20,
        "nested 60,000 chars (fallback)": _nested(5000, "<|im_start|>", 5),
    }
    print(f"remove_special_tokens, median of {repeats}:")
    print("| tool result | us per call | ns per char |")
    print("|---|---:|---:|")
    for name, text in cases.items():
        inner = max(1, 200_000 // max(len(text), 1))
        us = _median_us(lambda text=text: remove_special_tokens(text, own), repeats, inner)
        print(f"| {name} | {us:,.1f} | {us * 1000 / len(text):.1f} |")

    import torch
    from toolerr_hf import LocalToolModel
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer = _tokenizer()
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=1,
    )  # fmt: skip
    lm = LocalToolModel(LlamaForCausalLM(config).eval(), tokenizer)
    messages = [Message("user", "What is the weather in 20 cities?")]
    for n in range(20):
        call = ToolCall(f"call_{n}", "get_weather", {"city": f"City {n}"})
        messages.append(Message("assistant", "", tool_calls=(call,)))
        error = f"Error: 503 Service Unavailable for City {n}. " * 20
        messages.append(Message("tool", error, tool_call_id=call.id))
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
    plain = LocalToolModel.__new__(LocalToolModel)
    plain.__dict__.update(lm.__dict__)
    plain.clean = lambda text: text  # type: ignore[method-assign]
    on, off = [], []
    for _ in range(repeats):
        off.append(_median_us(lambda: plain.chat_messages(messages, tools), 1, 200))
        on.append(_median_us(lambda: lm.chat_messages(messages, tools), 1, 200))
        off.append(_median_us(lambda: plain.chat_messages(messages, tools), 1, 200))
    print(
        f"\nchat_messages, 41 messages (20 failed results of 1,000 chars), interleaved, medians of "
        f"{repeats}: cleaning on {statistics.median(on):,.0f} us, off {statistics.median(off):,.0f} us, "
        f"ratio {statistics.median(on) / statistics.median(off):.2f}"
    )


if __name__ == "__main__":
    main()
