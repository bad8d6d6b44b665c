"""The namespace for adapter authors: what an adapter needs from the core and a user does not.

``toolerr``'s own ``__all__`` is the user's API (the layer, the policy, the neutral
conversation, the records, the wire rewrites, profiles). An adapter (``toolerr_langchain``,
``toolerr_openai_agents``, ``toolerr_mcp``, ...) imports those from ``toolerr`` and
everything else it needs from here::

    from toolerr import Message, Policy, ToolErrorLayer
    from toolerr.adapters import ConversionCache, LRUCache, exception_text

The kit (``_kit``): the workflow every adapter shares, written once: ``fail_open`` (the
one way an adapter swallows its own error), ``failure_of`` (an exception to its shown text
and verdict), ``guard_call`` (the loop check before a tool runs, ``Blocked``),
``RunSnapshot`` (a run's latest conversation and its lazily built ledger) and ``Layers``
(the layer per policy and declared tool safety); ``call_with_retries`` and
``acall_with_retries`` (``_kit_retry``: ``auto_retry``'s hidden retries where an adapter runs
the tool; ``acall_with_result_retries``, ``_kit_caught``: where the framework turns the
tool's exception into a result, with ``ResultFailure`` for a failed result that has no
exception, an MCP ``isError`` result; ``remember_hidden_retries``, ``_kit_hidden``:
counted where the framework made the failed result); ``same_objects`` and ``appended_text``
(``_kit_changes``: what a rewrite changed of a framework's own parts). ``docs/ARCHITECTURE.md`` maps each
framework's hooks to them.

The other groups:

- the neutral conversation's parts and literal types (``Role``, ``Kind``, ``Form``, ...,
  ``content_text``, ``parse_arguments``, ``MEDIA_BLOCK_TYPES``, ``CLIENTS``);
- detection and the failure text (``detect_failure``, ``normalise_client``,
  ``exception_text``, ``records_of``);
- the policy's parts (``POLICY_OPTIONS``, ``FormSpec``, ``ProfileSpec``,
  ``resolve_forms``, ``safety_from_annotations``, ``PROFILE_FORMAT``);
- forms and the decision step (``find_decision_step``, ``DecisionStep``,
  ``pair_results``, ``ExchangeResult``);
- notes and text hygiene (``NOTE_PREFIX``, ``GUIDANCE``, ``GUIDANCE_CHECK_FIRST``,
  ``NoteParts``, ``guidance_for``, ``render_note``, ``render_abstract``,
  ``format_arguments``, ``clean_text``, the special-token registry);
- repeats and loops (``canonical_arguments``, ``exact_arguments``, ``RepeatReport``,
  ``LoopDecision``, ``decide_loop``);
- runs and caches (``ConversationRun``, ``ConversionCache``: by content or by object,
  ``LRUCache``);
- the wire formats' conversions (``WIRE_FORMATS``, ``openai_chat_to_messages``,
  ``anthropic_to_messages``, ``responses_to_messages``, ``input_text_parts``);
- the decoder side of the string ban (``BanCursor``, ``PreparedVocabulary``).

Each name here was also in ``toolerr`` before; reading it from ``toolerr`` still works
for one release and warns (``DeprecationWarning``) with its place here.
"""

from __future__ import annotations

from ._ban import BanCursor, PreparedVocabulary
from ._canonical import canonical_arguments, exact_arguments
from ._detect import detect_failure, normalise_client
from ._exceptions import exception_text
from ._forms import DecisionStep, ExchangeResult, find_decision_step, pair_results
from ._gateway import (
    CLIENT_HEADER,
    FORM_HEADER,
    REPORT_HEADER,
    gateway_policy,
    override_policy,
    report_header,
    wire_report,
)
from ._hygiene import SpecialTokens, clean_text, register_special_tokens, remove_special_tokens
from ._kit import (
    Blocked,
    Failure,
    Layers,
    RunSnapshot,
    TextVerdicts,
    decision_step_failed,
    declared_safety,
    fail_open,
    failure_as,
    failure_of,
    framework_verdict,
    guard_call,
    invalid_call_verdict,
    plain_failure_of,
    shown_failure,
)
from ._kit_caught import acall_with_result_retries
from ._kit_changes import appended_text, same_objects
from ._kit_convert import (
    CALL_BLOCK_TYPES,
    chat_raw_arguments,
    origin_of,
    restore_objects,
    rewrite_objects,
    rewrite_tail,
    weak_origin,
    without_call_blocks,
    without_chat_calls,
)
from ._kit_hidden import remember_hidden_retries
from ._kit_retry import ResultFailure, acall_with_retries, call_with_retries, hidden_retries_of, tool_raised
from ._kit_trail import RunTrail
from ._layer import records_of
from ._ledger import RepeatReport
from ._loop import LoopDecision, decide_loop
from ._lru import LRUCache
from ._notes import GUIDANCE, GUIDANCE_CHECK_FIRST, NOTE_PREFIX, NoteParts
from ._policy import (
    POLICY_OPTIONS,
    FormSpec,
    ProfileSpec,
    hinted_safety,
    resolve_forms,
    safety_from_annotations,
)
from ._profile_file import PROFILE_FORMAT
from ._render import format_arguments, guidance_for, render_abstract, render_note
from ._reuse import ConversionCache
from ._runs import ConversationRun
from ._shared_state import CheckpointBackend, SharedCheckpoints
from ._types import (
    CLIENTS,
    MEDIA_BLOCK_TYPES,
    Form,
    Kind,
    LoopAction,
    Outcome,
    Role,
    ToolSafety,
    content_text,
    parse_arguments,
)
from ._wire import WIRE_FORMATS
from ._wire_anthropic import anthropic_to_messages
from ._wire_chat import openai_chat_to_messages
from ._wire_responses import input_text_parts, responses_to_messages

__all__ = [
    "CALL_BLOCK_TYPES",
    "CLIENTS",
    "CLIENT_HEADER",
    "FORM_HEADER",
    "GUIDANCE",
    "GUIDANCE_CHECK_FIRST",
    "MEDIA_BLOCK_TYPES",
    "NOTE_PREFIX",
    "POLICY_OPTIONS",
    "PROFILE_FORMAT",
    "REPORT_HEADER",
    "WIRE_FORMATS",
    "BanCursor",
    "Blocked",
    "CheckpointBackend",
    "ConversationRun",
    "ConversionCache",
    "DecisionStep",
    "ExchangeResult",
    "Failure",
    "Form",
    "FormSpec",
    "Kind",
    "LRUCache",
    "Layers",
    "LoopAction",
    "LoopDecision",
    "NoteParts",
    "Outcome",
    "PreparedVocabulary",
    "ProfileSpec",
    "RepeatReport",
    "ResultFailure",
    "Role",
    "RunSnapshot",
    "RunTrail",
    "SharedCheckpoints",
    "SpecialTokens",
    "TextVerdicts",
    "ToolSafety",
    "acall_with_result_retries",
    "acall_with_retries",
    "anthropic_to_messages",
    "appended_text",
    "call_with_retries",
    "canonical_arguments",
    "chat_raw_arguments",
    "clean_text",
    "content_text",
    "decide_loop",
    "decision_step_failed",
    "declared_safety",
    "detect_failure",
    "exact_arguments",
    "exception_text",
    "fail_open",
    "failure_as",
    "failure_of",
    "find_decision_step",
    "format_arguments",
    "framework_verdict",
    "gateway_policy",
    "guard_call",
    "guidance_for",
    "hidden_retries_of",
    "hinted_safety",
    "input_text_parts",
    "invalid_call_verdict",
    "normalise_client",
    "openai_chat_to_messages",
    "origin_of",
    "override_policy",
    "pair_results",
    "parse_arguments",
    "plain_failure_of",
    "records_of",
    "register_special_tokens",
    "remember_hidden_retries",
    "remove_special_tokens",
    "render_abstract",
    "render_note",
    "report_header",
    "resolve_forms",
    "responses_to_messages",
    "restore_objects",
    "rewrite_objects",
    "rewrite_tail",
    "safety_from_annotations",
    "same_objects",
    "shown_failure",
    "tool_raised",
    "weak_origin",
    "wire_report",
    "without_call_blocks",
    "without_chat_calls",
]
