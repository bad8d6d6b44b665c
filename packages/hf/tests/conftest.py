"""Fixtures: a tiny randomly initialised model with a tokenizer built here (fast unit tests),
a scripted model on top of it, and the real default model (loaded once per session)."""

from __future__ import annotations

import json
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from collections.abc import Sequence
from typing import Any

import pytest
import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from toolerr._failopen import forget_causes
from transformers import LlamaConfig, LlamaForCausalLM, LogitsProcessor, PreTrainedTokenizerFast

CHATML = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

WEATHER_TOOLS = [
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
"""The one tool of the backend tests, as an OpenAI tool schema."""
WEATHER_CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}'

CORPUS = [
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris, FR"}}\n</tool_call>',
    '<tool_response>\n{"temperature": 18, "sky": "cloudy"}\n</tool_response>',
    "The weather in Paris is sunny. Error: city not found. Use the country code.",
    "You can call tools. Tools: To call a tool, write: When you have the answer, reply to the user.",
    "Zürich, 東京, naïve café — unicode text.",
]


def build_tokenizer() -> PreTrainedTokenizerFast:
    """A byte-level BPE tokenizer trained here on a few tool-call strings (ChatML specials)."""
    model = Tokenizer(models.BPE())
    model.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    model.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=420,
        special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    model.train_from_iterator(CORPUS * 10, trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=model, eos_token="<|im_end|>", pad_token="<|im_end|>", bos_token="<|im_start|>"
    )
    tokenizer.chat_template = CHATML
    return tokenizer


def build_sentencepiece_tokenizer() -> PreTrainedTokenizerFast:
    """A SentencePiece-style BPE (``▁`` for spaces, byte fallback) trained here."""
    model = Tokenizer(models.BPE(byte_fallback=True, unk_token=None))
    model.pre_tokenizer = pre_tokenizers.Metaspace()
    model.decoder = decoders.Sequence(
        [decoders.Replace("\u2581", " "), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)]
    )
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=["<s>", "</s>"], show_progress=False)
    model.train_from_iterator(CORPUS * 10, trainer)
    # Byte-fallback tokens are ordinary vocabulary entries, as in Llama / Mistral tokenizers.
    spec = json.loads(model.to_str())
    vocab = spec["model"]["vocab"]
    for byte in range(256):
        vocab.setdefault(f"<0x{byte:02X}>", len(vocab))
    model = Tokenizer.from_str(json.dumps(spec))
    return PreTrainedTokenizerFast(
        tokenizer_object=model, eos_token="</s>", bos_token="<s>", pad_token="</s>"
    )


@pytest.fixture(autouse=True)
def _log_every_cause() -> None:
    """toolerr logs a swallowed error once per cause: each test sees its own."""
    forget_causes()


@pytest.fixture(scope="session")
def tokenizer() -> PreTrainedTokenizerFast:
    return build_tokenizer()


@pytest.fixture(scope="session")
def tiny_model(tokenizer: PreTrainedTokenizerFast) -> LlamaForCausalLM:
    """A randomly initialised 2-layer Llama (deterministic seed)."""
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
    )
    return LlamaForCausalLM(config).eval()


class Script(LogitsProcessor):
    """A scripted model: while a row's generated tokens follow its target token sequence, the
    next target token gets a large bonus; once the row leaves the script (or ends it), the
    model decodes freely. Put it *before* the processor under test."""

    def __init__(self, targets: Sequence[Sequence[int] | None], bonus: float = 1e4) -> None:
        self.targets = [list(t) if t is not None else None for t in targets]
        self.bonus = bonus
        self.prompt_length: int | None = None

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if self.prompt_length is None:
            self.prompt_length = input_ids.shape[1]
        generated = input_ids[:, self.prompt_length :].tolist()
        out = scores.clone()
        for row, target in enumerate(self.targets):
            if target is None:
                continue
            done = generated[row]
            if len(done) < len(target) and done == target[: len(done)]:
                out[row, target[len(done)]] += self.bonus
        return out  # type: ignore[return-value]


class ScriptedTurns(LogitsProcessor):
    """A scripted model over several ``generate`` calls (agent turns): turn ``n`` follows
    ``turns[n]`` (token ids) like :class:`Script`; a turn with ``None`` decodes freely."""

    def __init__(self, turns: Sequence[Sequence[int] | None], bonus: float = 1e4) -> None:
        self.turns = [list(t) if t is not None else None for t in turns]
        self.bonus = bonus
        self.turn = -1
        self.prompt_length = 0
        self.last_length = -1

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        length = input_ids.shape[1]
        if length != self.last_length + 1:
            self.turn += 1
            self.prompt_length = length
        self.last_length = length
        if self.turn >= len(self.turns) or self.turns[self.turn] is None:
            return scores
        target = self.turns[self.turn]
        assert target is not None
        done = input_ids[0, self.prompt_length :].tolist()
        out = scores.clone()
        if len(done) < len(target) and done == target[: len(done)]:
            out[0, target[len(done)]] += self.bonus
        return out  # type: ignore[return-value]


def token_ids(tokenizer: Any, pieces: Sequence[str]) -> list[int]:
    """Token ids of ``pieces``, each of which must be exactly one token's text."""
    from toolerr_hf import TokenTexts

    texts = TokenTexts.of(tokenizer)
    lookup: dict[str, int] = {}
    for index, text in enumerate(texts.strings):
        if text and index not in texts.special:
            lookup.setdefault(text, index)
    return [lookup[piece] for piece in pieces]


def char_pieces(text: str) -> list[str]:
    return list(text)


@pytest.fixture(scope="session")
def real_model() -> tuple[Any, Any]:
    """The embedded default model, loaded once per test session."""
    from toolerr_hf import load_default_model

    return load_default_model()


def weather_tool(calls: list[str]) -> Any:
    """A LangChain ``get_weather`` tool that records each city it is called with and fails
    (a ``ToolException`` turned into an error result) while the city has no country code."""
    from langchain_core.tools import ToolException, tool

    @tool
    def get_weather(city: str) -> str:
        """Get the current weather for a city."""
        calls.append(city)
        if "," not in city:
            raise ToolException("Invalid arguments: city must be 'City, CC', e.g. 'Paris, FR'.")
        return "18 C, cloudy"

    get_weather.handle_tool_error = True
    return get_weather
