"""toolerr: detect, classify and re-deliver failed tool calls to LLM agents.

The framework-free core. Adapters (``toolerr_langchain``, ``toolerr_openai_agents``,
``toolerr_mcp``, ``toolerr_hf``) convert their framework's messages to the neutral
conversation (:class:`Message`, :class:`ToolCall`) and drive a :class:`ToolErrorLayer`.

"The contract" in docstrings is the behaviour contract, published with the project:
https://github.com/toolerr/toolerr/blob/main/docs/DELIVERY.md (its sections: Words,
Detection, Classification, Delivery forms, Repeats and loops, Decoder ban, Visibility
and safety, What was measured).
"""

from __future__ import annotations

from ._ban import BanCursor, PreparedVocabulary, StringBan
from ._classify import inspect_message, inspect_result
from ._detect import detect_failure
from ._forms import DecisionStep, ExchangeResult, find_decision_step, pair_results
from ._layer import (
    DetectionRecord,
    Rewrite,
    ToolErrorLayer,
    ToolLoopError,
    exception_text,
    records_of,
    rewrite,
)
from ._ledger import (
    FailedCall,
    FailureLedger,
    LoopDecision,
    RepeatReport,
    canonical_arguments,
    decide_loop,
    exact_arguments,
)
from ._policy import Policy, safety_from_annotations
from ._render import (
    GUIDANCE,
    GUIDANCE_CHECK_FIRST,
    NOTE_PREFIX,
    clean_text,
    format_arguments,
    guidance_for,
    render_abstract,
    render_note,
)
from ._types import (
    CLIENTS,
    FORMS,
    KINDS,
    Form,
    Kind,
    LoopAction,
    Message,
    Outcome,
    Role,
    ToolCall,
    ToolSafety,
    Verdict,
    content_text,
    parse_arguments,
)

__version__ = "0.1.0"

__all__ = [
    "CLIENTS",
    "FORMS",
    "GUIDANCE",
    "GUIDANCE_CHECK_FIRST",
    "KINDS",
    "NOTE_PREFIX",
    "BanCursor",
    "DecisionStep",
    "DetectionRecord",
    "ExchangeResult",
    "FailedCall",
    "FailureLedger",
    "Form",
    "Kind",
    "LoopAction",
    "LoopDecision",
    "Message",
    "Outcome",
    "Policy",
    "PreparedVocabulary",
    "RepeatReport",
    "Rewrite",
    "Role",
    "StringBan",
    "ToolCall",
    "ToolErrorLayer",
    "ToolLoopError",
    "ToolSafety",
    "Verdict",
    "__version__",
    "canonical_arguments",
    "clean_text",
    "content_text",
    "decide_loop",
    "detect_failure",
    "exact_arguments",
    "exception_text",
    "find_decision_step",
    "format_arguments",
    "guidance_for",
    "inspect_message",
    "inspect_result",
    "pair_results",
    "parse_arguments",
    "records_of",
    "render_abstract",
    "render_note",
    "rewrite",
    "safety_from_annotations",
]
