"""toolerr: detect, classify and re-deliver failed tool calls to LLM agents.

The framework-free core. Adapters (``toolerr_langchain``, ``toolerr_openai_agents``,
``toolerr_mcp``, ``toolerr_hf``) convert their framework's messages to the neutral
conversation (:class:`Message`, :class:`ToolCall`) and drive a :class:`ToolErrorLayer`.

``__all__`` is the user's API. What adapters need besides it is in :mod:`toolerr.adapters`;
the names that moved there are still read from ``toolerr`` for one release, with a
``DeprecationWarning`` naming their new place.

"The contract" in docstrings is the behaviour contract, published with the project:
https://github.com/toolerr/toolerr/blob/main/docs/DELIVERY.md (its sections: Words,
Detection, Classification, Delivery forms, Repeats and loops, Decoder ban, Visibility
and safety, What was measured).
"""

from __future__ import annotations

import warnings as _warnings
from typing import Any as _Any

from . import _gateway, _kit, _kit_convert, _kit_trail, adapters
from ._ban import StringBan
from ._classify import inspect_message, inspect_result
from ._layer import ToolErrorLayer, rewrite
from ._ledger import FailedCall, FailureLedger
from ._loop import ToolLoopError
from ._policy import Policy, PolicyOptions
from ._profile_file import ProfileError, load_profile, save_profile
from ._profiles import PROFILES, Profile
from ._records import DetectionRecord, ResultDelivery, Rewrite
from ._types import FORMS, KINDS, LOOP_ACTIONS, Message, ToolCall, Verdict
from ._wire import (
    WireRewrite,
    rewrite_anthropic,
    rewrite_openai_chat,
    rewrite_responses,
    rewrite_wire,
)

__version__ = "0.1.0"

__all__ = [
    "FORMS",
    "KINDS",
    "LOOP_ACTIONS",
    "PROFILES",
    "DetectionRecord",
    "FailedCall",
    "FailureLedger",
    "Message",
    "Policy",
    "PolicyOptions",
    "Profile",
    "ProfileError",
    "ResultDelivery",
    "Rewrite",
    "StringBan",
    "ToolCall",
    "ToolErrorLayer",
    "ToolLoopError",
    "Verdict",
    "WireRewrite",
    "__version__",
    "inspect_message",
    "inspect_result",
    "load_profile",
    "rewrite",
    "rewrite_anthropic",
    "rewrite_openai_chat",
    "rewrite_responses",
    "rewrite_wire",
    "save_profile",
]

# the kit was never in toolerr: only the names that moved out of it warn
_MOVED = frozenset(adapters.__all__) - frozenset(
    (*_kit.__all__, *_kit_trail.__all__, *_kit_convert.__all__, *_gateway.__all__)
)


def __getattr__(name: str) -> _Any:
    """A name that moved to :mod:`toolerr.adapters`, read from ``toolerr``: the object, with
    a ``DeprecationWarning`` naming its new place (for one release)."""
    if name in _MOVED:
        _warnings.warn(
            f"toolerr.{name} moved to toolerr.adapters.{name}; reading it from toolerr is "
            "deprecated and stops working after the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(adapters, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
