"""toolerr for locally decoded models (transformers).

* :class:`FailedCallBan`: a ``LogitsProcessor`` that makes earlier failed tool calls
  unreachable while the model writes a call (the contract's "Decoder ban");
  :func:`key_order_variants`: the strings it bans for one call (every key order).
* :func:`load_default_model`: the embedded SmolLM2-135M-Instruct (GGUF, no network);
  :func:`load_model` for any local model directory, GGUF file or hub id;
  :func:`load_named_model` for either, with a display name (what ``toolerr eval`` loads).
* :class:`LocalToolModel`: tool calling in the ``<tool_call>`` text format for models
  whose chat template has none; forms and ban as the policy says.
* :class:`ChatLocalModel`: that backend as a LangChain chat model (``toolerr-hf[langchain]``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._auto import SMALL_MODEL_IDS, SMALL_MODEL_PARAMETERS, auto_form, model_parameters
from ._backend import Generation, LocalToolModel
from ._decoder_ban import FailedCallBan, key_order_variants
from ._format import HermesFormat, InvalidCall, ParsedCall, ParsedOutput
from ._loading import (
    ModelNotFoundError,
    default_model_path,
    load_default_model,
    load_model,
    load_named_model,
)
from ._vocab import TokenTexts

if TYPE_CHECKING:
    from ._langchain import ChatLocalModel

__all__ = [
    "SMALL_MODEL_IDS",
    "SMALL_MODEL_PARAMETERS",
    "ChatLocalModel",
    "FailedCallBan",
    "Generation",
    "HermesFormat",
    "InvalidCall",
    "LocalToolModel",
    "ModelNotFoundError",
    "ParsedCall",
    "ParsedOutput",
    "TokenTexts",
    "auto_form",
    "default_model_path",
    "key_order_variants",
    "load_default_model",
    "load_model",
    "load_named_model",
    "model_parameters",
]

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name == "ChatLocalModel":
        from ._langchain import ChatLocalModel

        return ChatLocalModel
    raise AttributeError(f"module 'toolerr_hf' has no attribute {name!r}")
