"""The public names."""

from __future__ import annotations

import toolerr_hf


def test_all() -> None:
    assert sorted(toolerr_hf.__all__) == [
        "ChatLocalModel",
        "FailedCallBan",
        "Generation",
        "HermesFormat",
        "InvalidCall",
        "LocalToolModel",
        "ModelNotFoundError",
        "ParsedCall",
        "ParsedOutput",
        "SMALL_MODEL_IDS",
        "SMALL_MODEL_PARAMETERS",
        "TokenTexts",
        "auto_form",
        "default_model_path",
        "key_order_variants",
        "load_default_model",
        "load_model",
        "load_named_model",
        "model_parameters",
    ]
    for name in toolerr_hf.__all__:
        assert getattr(toolerr_hf, name) is not None


def test_failed_call_ban_is_a_logits_processor() -> None:
    from transformers import LogitsProcessor

    assert issubclass(toolerr_hf.FailedCallBan, LogitsProcessor)
    assert issubclass(toolerr_hf.ModelNotFoundError, FileNotFoundError)
