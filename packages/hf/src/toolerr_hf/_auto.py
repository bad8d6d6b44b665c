"""``form="auto"``: the delivery profile chosen by the loaded model.

Small local models get ``small-local`` (transient failures in C3, fixable and unrecoverable
ones in the abstract form: this project's measured best on SmolLM2-135M-Instruct,
``benchmarks/RESULTS_eval.md``, measured with the decoder ban on, the backend's default);
every other model gets ``study-c3`` (C3 for every kind, the study's aggregate best over
3-70B models). The profiles and their evidence are :data:`toolerr.PROFILES`.
"""

from __future__ import annotations

import logging
from typing import Any

from toolerr import PROFILES
from toolerr.adapters import FormSpec, fail_open

__all__ = ["SMALL_MODEL_IDS", "SMALL_MODEL_PARAMETERS", "auto_form", "model_parameters", "resolve_form"]

logger = logging.getLogger("toolerr")

SMALL_MODEL_PARAMETERS = 2_000_000_000
"""Models with fewer parameters than this get the ``small-local`` profile."""

SMALL_MODEL_IDS = ("smollm2",)
"""Model ids (lower-case parts of the name or path) that get ``small-local`` whatever their size."""

SMALL_PROFILE = "small-local"
DEFAULT_PROFILE = "study-c3"


def _model_of(model: Any) -> Any:
    """The transformers model inside a ChatLocalModel or LocalToolModel, or ``model`` itself."""
    backend = getattr(model, "backend", None)
    if backend is not None and hasattr(backend, "tokenizer"):
        model = backend
    inner = getattr(model, "model", None)
    if inner is not None and hasattr(model, "tokenizer") and hasattr(model, "format"):
        return inner
    return model


def model_parameters(model: Any) -> int | None:
    """The number of parameters of a transformers (or torch) model; ``None`` when unknown."""
    model = _model_of(model)
    counter = getattr(model, "num_parameters", None)
    with fail_open(f"counting the parameters of a {type(model).__name__}", "unknown", level=logging.DEBUG):
        if callable(counter):
            return int(counter())
        parameters = getattr(model, "parameters", None)
        if callable(parameters):
            return sum(int(p.numel()) for p in parameters())
    return None


def _model_name(model: Any) -> str:
    config = getattr(_model_of(model), "config", None)
    for attribute in ("_name_or_path", "name_or_path"):
        value = getattr(config, attribute, None)
        if isinstance(value, str) and value:
            return value
    return ""


def auto_form(model: Any, *, small_below: int | None = None) -> str:
    """The profile name ``form="auto"`` chooses for ``model`` (a transformers model, a
    :class:`toolerr_hf.LocalToolModel` or a :class:`toolerr_hf.ChatLocalModel`):
    ``small-local`` for a known small model id (SmolLM2) or under ``small_below``
    parameters (default :data:`SMALL_MODEL_PARAMETERS`), else ``study-c3``. Pass it to
    any adapter: ``ToolErrorMiddleware(form=auto_form(chat))``.
    """
    name = _model_name(model).lower()
    if any(part in name for part in SMALL_MODEL_IDS):
        return SMALL_PROFILE
    count = model_parameters(model)
    limit = SMALL_MODEL_PARAMETERS if small_below is None else small_below
    if count is not None and count < limit:
        return SMALL_PROFILE
    return DEFAULT_PROFILE


def resolve_form(form: FormSpec, model: Any) -> FormSpec:
    """``form`` with ``"auto"`` replaced by :func:`auto_form` of ``model``."""
    if isinstance(form, str) and form.strip().lower() == "auto":
        chosen = auto_form(model)
        logger.info("toolerr: form 'auto' chose profile %s for %s", chosen, _model_name(model) or "the model")
        assert chosen in PROFILES
        return chosen
    return form
