"""Rule data for detection and classification of tool results, one module per table.

Data only: every entry notes where its text form comes from. The matching code in
``_detect``, ``_classify`` and ``_exceptions`` compiles these tables once at import; adding
an entry here never needs a change there.

Layout (one module per table; this package re-exports every name)

- ``_base``: the record types (``Word``, ``CodeRule``, ``ExceptionRule``, ``Marker``, ``Template``,
  ``ShellFormat``), the kind and outcome literals, the limits (window, JSON size, chain depth).
- ``detection``: client names, generic start texts, JSON result keys.
- ``templates``: the clients' own failure templates and shell-command formats.
- ``words``: ``WORDS``. Exception class names printed in a text take their kind, family and
  outcome from the class's rule in ``exceptions`` (written once there).
- ``codes``: HTTP status, gRPC (one table; the number, Go-name and bare-word views are derived
  from it), errno, JSON-RPC, SQLSTATE, AWS and vendor error codes.
- ``markers``: texts that announce a code, and the shapes of status lines and traces.
- ``exceptions``: exception classes by module prefix and name, and the attributes read.

Conventions

- A *kind* of ``None`` means the entry names an error family (and, for transient entries, a
  retry outcome) but decides no kind: the failure stays ambiguous unless another rule fires.
- ``decisive=True`` on a kind-less entry stops the search: the failure stays ambiguous even if
  words elsewhere in the text would fire (a ``KeyError('Forbidden')`` is a bug in the tool, not
  a permission problem).
- Outcome, for transient entries: ``not_executed`` (the request was turned away), ``unknown_outcome``
  (it may have taken effect) or ``None`` (this entry says nothing about it; on its own it counts
  as unknown). A kind-less entry with an outcome is a hint used only when another rule made the
  failure transient.
- Word texts are matched case-sensitively as substrings of the first 4 KB; a dropped first letter
  (``ermission denied``) matches both capitalisations, as in the published lists.

Main sources

- ``A:floor`` / ``A:wider`` / ``A:ambiguous``: Woo, Conde, Reviriego (2026), "Same Error,
  Different Recovery", appendix A (the published word lists; the floor of this engine).
- ``A:study2``: the same paper, study 2 stimuli (EBUSY, spawn EAGAIN, policy denial, sandbox).
- Library names refer to the library's own exception classes or messages; RFC 9110 for HTTP;
  grpc.io status codes; JSON-RPC 2.0 and the MCP SDKs; PostgreSQL appendix A (SQLSTATE);
  botocore's retry handlers and AWS API error codes; POSIX/Linux errno and Node.js system errors.
"""

from __future__ import annotations

from ._base import (
    MAX_CHAIN_DEPTH,
    MAX_JSON_CHARS,
    NE,
    TAIL_CHARS,
    UO,
    WINDOW_CHARS,
    CodeRule,
    ExceptionRule,
    F,
    Marker,
    RuleKind,
    RuleOutcome,
    ShellFormat,
    T,
    Template,
    U,
    Word,
)
from .codes import (
    AWS_ERROR_CODES,
    BODY_MAX_CHARS,
    BODY_WAIT_S,
    ERRNO,
    ERRNO_SUBSTRING,
    GAI_CLASSES,
    GAI_ERRNO,
    GRPC_ALIASES,
    GRPC_NUMBERS,
    GRPC_STATUS,
    GRPC_WORDS,
    HTTP_STATUS,
    JSONRPC,
    JSONRPC_WORDS,
    RATE_LIMIT_REMAINING_HEADERS,
    RATE_LIMIT_RESET_HEADERS,
    RATE_LIMIT_RULE,
    SQLSTATE,
    SQLSTATE_CLASSES,
    VENDOR_ERROR_CODES,
    WINERROR,
)
from .detection import (
    CLIENT_ALIASES,
    CLINE_QUERY_KEY,
    CODING_AGENTS,
    EMPTY_ERROR_VALUES,
    FRAMEWORK_CLIENTS,
    GENERIC_STARTS,
    JSON_DIAGNOSIS_KEYS,
    JSON_KEYS_TEXT,
    MCP_ERROR_FLAGS,
    OPENCODE_ERROR_TYPE,
)
from .exceptions import (
    CHAIN_ATTRIBUTES,
    EXCEPTIONS,
    GRPC_CALLABLE_CODE_PREFIXES,
    RETRY_AFTER_HEADERS,
    SQLSTATE_ATTRIBUTES,
    STATUS_ATTRIBUTES,
    TOOL_BUG_MESSAGES,
    VALUE_CLASSES,
)
from .markers import (
    ECHO_PATTERNS,
    ERROR_PREFIX,
    EXCEPTION_NAME,
    MARKERS,
    RETRY_UNITS,
    START_STATUS,
    TRACEBACK_SKIP_LINES,
    TRACEBACK_START,
)
from .protocols import (
    AMBIGUOUS_BARE_NAMES,
    AMQP_REPLY,
    ENHANCED_CODES,
    FILE_INPUT,
    NAME_PHRASES,
    NATS_JETSTREAM,
    REPLY_CODES,
    REPLY_PHRASE,
    SAAS_ERROR_CODES,
    WEBSOCKET_CLOSE,
)
from .templates import (
    CODEX_JSON_EXIT_KEYS,
    SHELL_FORMATS,
    SHELL_NONE_VALUES,
    TEMPLATES,
)
from .words import (
    STATUS_PHRASES,
    WORDS,
)

__all__ = [
    "AMBIGUOUS_BARE_NAMES",
    "AMQP_REPLY",
    "AWS_ERROR_CODES",
    "BODY_MAX_CHARS",
    "BODY_WAIT_S",
    "CHAIN_ATTRIBUTES",
    "CLIENT_ALIASES",
    "CLINE_QUERY_KEY",
    "CODEX_JSON_EXIT_KEYS",
    "CODING_AGENTS",
    "ECHO_PATTERNS",
    "EMPTY_ERROR_VALUES",
    "ENHANCED_CODES",
    "ERRNO",
    "ERRNO_SUBSTRING",
    "ERROR_PREFIX",
    "EXCEPTIONS",
    "EXCEPTION_NAME",
    "FILE_INPUT",
    "FRAMEWORK_CLIENTS",
    "GAI_CLASSES",
    "GAI_ERRNO",
    "GENERIC_STARTS",
    "GRPC_ALIASES",
    "GRPC_CALLABLE_CODE_PREFIXES",
    "GRPC_NUMBERS",
    "GRPC_STATUS",
    "GRPC_WORDS",
    "HTTP_STATUS",
    "JSONRPC",
    "JSONRPC_WORDS",
    "JSON_DIAGNOSIS_KEYS",
    "JSON_KEYS_TEXT",
    "MARKERS",
    "MAX_CHAIN_DEPTH",
    "MAX_JSON_CHARS",
    "MCP_ERROR_FLAGS",
    "NAME_PHRASES",
    "NATS_JETSTREAM",
    "NE",
    "OPENCODE_ERROR_TYPE",
    "RATE_LIMIT_REMAINING_HEADERS",
    "RATE_LIMIT_RESET_HEADERS",
    "RATE_LIMIT_RULE",
    "REPLY_CODES",
    "REPLY_PHRASE",
    "RETRY_AFTER_HEADERS",
    "RETRY_UNITS",
    "SAAS_ERROR_CODES",
    "SHELL_FORMATS",
    "SHELL_NONE_VALUES",
    "SQLSTATE",
    "SQLSTATE_ATTRIBUTES",
    "SQLSTATE_CLASSES",
    "START_STATUS",
    "STATUS_ATTRIBUTES",
    "STATUS_PHRASES",
    "TAIL_CHARS",
    "TEMPLATES",
    "TOOL_BUG_MESSAGES",
    "TRACEBACK_SKIP_LINES",
    "TRACEBACK_START",
    "UO",
    "VALUE_CLASSES",
    "VENDOR_ERROR_CODES",
    "WEBSOCKET_CLOSE",
    "WINDOW_CHARS",
    "WINERROR",
    "WORDS",
    "CodeRule",
    "ExceptionRule",
    "F",
    "Marker",
    "RuleKind",
    "RuleOutcome",
    "ShellFormat",
    "T",
    "Template",
    "U",
    "Word",
]
