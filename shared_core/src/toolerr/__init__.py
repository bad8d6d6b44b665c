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

from . import adapters as adapters
from ._ban import BanCursor, PreparedVocabulary, StringBan
from ._canonical import canonical_arguments, exact_arguments
from ._classify import inspect_message, inspect_result
from ._detect import detect_failure, normalise_client
from ._forms import DecisionStep, ExchangeResult, find_decision_step, pair_results
from ._hygiene import SpecialTokens, clean_text, register_special_tokens, remove_special_tokens
from ._layer import (
    ToolErrorLayer,
    exception_text,
    records_of,
    rewrite,
)
from ._ledger import FailedCall, FailureLedger, RepeatReport
from ._loop import LoopDecision, ToolLoopError, decide_loop
from ._lru import LRUCache
from ._notes import GUIDANCE, GUIDANCE_CHECK_FIRST, NOTE_PREFIX, NoteParts
from ._policy import (
    POLICY_OPTIONS,
    FormSpec,
    Policy,
    PolicyOptions,
    ProfileSpec,
    resolve_forms,
    safety_from_annotations,
)
from ._profile_file import PROFILE_FORMAT, ProfileError, load_profile, save_profile
from ._profiles import PROFILES, Profile
from ._records import DetectionRecord, ResultDelivery, Rewrite
from ._render import format_arguments, guidance_for, render_abstract, render_note
from ._reuse import ConversionCache
from ._runs import ConversationRun
from ._types import (
    CLIENTS,
    FORMS,
    KINDS,
    LOOP_ACTIONS,
    MEDIA_BLOCK_TYPES,
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
from ._wire import (
    WIRE_FORMATS,
    WireRewrite,
    rewrite_anthropic,
    rewrite_openai_chat,
    rewrite_responses,
    rewrite_wire,
)
from ._wire_anthropic import anthropic_to_messages
from ._wire_chat import openai_chat_to_messages
from ._wire_responses import responses_to_messages

__version__ = "0.1.0"

__all__ = [
    "CLIENTS",
    "FORMS",
    "GUIDANCE",
    "GUIDANCE_CHECK_FIRST",
    "KINDS",
    "LOOP_ACTIONS",
    "MEDIA_BLOCK_TYPES",
    "NOTE_PREFIX",
    "POLICY_OPTIONS",
    "PROFILES",
    "PROFILE_FORMAT",
    "WIRE_FORMATS",
    "BanCursor",
    "ConversationRun",
    "ConversionCache",
    "DecisionStep",
    "DetectionRecord",
    "ExchangeResult",
    "FailedCall",
    "FailureLedger",
    "Form",
    "FormSpec",
    "Kind",
    "LRUCache",
    "LoopAction",
    "LoopDecision",
    "Message",
    "NoteParts",
    "Outcome",
    "Policy",
    "PolicyOptions",
    "PreparedVocabulary",
    "Profile",
    "ProfileError",
    "ProfileSpec",
    "RepeatReport",
    "ResultDelivery",
    "Rewrite",
    "Role",
    "SpecialTokens",
    "StringBan",
    "ToolCall",
    "ToolErrorLayer",
    "ToolLoopError",
    "ToolSafety",
    "Verdict",
    "WireRewrite",
    "__version__",
    "anthropic_to_messages",
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
    "load_profile",
    "normalise_client",
    "openai_chat_to_messages",
    "pair_results",
    "parse_arguments",
    "records_of",
    "register_special_tokens",
    "remove_special_tokens",
    "render_abstract",
    "render_note",
    "resolve_forms",
    "responses_to_messages",
    "rewrite",
    "rewrite_anthropic",
    "rewrite_openai_chat",
    "rewrite_responses",
    "rewrite_wire",
    "safety_from_annotations",
    "save_profile",
]
