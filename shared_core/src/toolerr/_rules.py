"""Rule data for detection and classification of tool results.

Data only: every entry notes where its text form comes from. The matching code in
``_detect``, ``_classify`` and ``_exceptions`` compiles these tables once at import; adding
an entry here never needs a change there.

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

from typing import Literal, NamedTuple

RuleKind = Literal["transient", "fixable", "unrecoverable"]
RuleOutcome = Literal["not_executed", "unknown_outcome"]

T: RuleKind = "transient"
F: RuleKind = "fixable"
U: RuleKind = "unrecoverable"
NE: RuleOutcome = "not_executed"
UO: RuleOutcome = "unknown_outcome"

# Classification looks at this many characters of the text (after leading white space).
WINDOW_CHARS = 4096
# JSON results longer than this are not parsed; only their first window is looked at.
MAX_JSON_CHARS = 1_000_000
# Shell-output rules look for their trailing lines in this many characters at the end.
TAIL_CHARS = 4096
# Exception chains (__cause__, __context__, .reason, args) are followed this deep.
MAX_CHAIN_DEPTH = 6


class Word(NamedTuple):
    """A text matched as a substring of the classified window."""

    text: str
    kind: RuleKind | None
    family: str
    outcome: RuleOutcome | None = None
    source: str = ""
    # Context guards, regular expressions tested on the same line around the match:
    unless_before: str | None = None  # the hit does not count if the text before ends with this
    only_before: str | None = None  # the hit counts only if the text before ends with this
    only_after: str | None = None  # the hit counts only if the text after starts with this
    trap: bool = False  # a quota trap: reported as ``trap:quota``, beats every other rule
    boundary: bool = False  # must not touch a letter, digit or ``_`` on either side
    decisive: bool = False  # kind-less: the failure stays ambiguous whatever else the text says


class CodeRule(NamedTuple):
    """What a structured code (HTTP status, gRPC, errno, JSON-RPC, SQLSTATE, AWS) means."""

    kind: RuleKind | None
    family: str
    outcome: RuleOutcome | None = None
    source: str = ""
    decisive: bool = False


class ExceptionRule(NamedTuple):
    """An exception class, found by name inside a known module prefix (``httpx``,
    ``requests``, ``google.api_core`` ...) anywhere in an exception's MRO."""

    prefix: str  # module prefix: the class's ``__module__`` equals it or starts with it + "."
    name: str  # the class's ``__qualname__``
    kind: RuleKind | None
    family: str
    outcome: RuleOutcome | None = None
    decisive: bool = False
    source: str = ""


class Marker(NamedTuple):
    """A text that announces a structured code; ``pattern`` is matched at the marker's
    start minus ``back`` characters and its group ``code`` is looked up in ``table``."""

    text: str
    table: Literal["http", "grpc", "jsonrpc", "sqlstate", "errno_number", "winerror", "aws", "retry_after"]
    pattern: str
    back: int = 0
    source: str = ""


class Template(NamedTuple):
    """A client's own text form of a failed tool call.

    ``start``: a regular expression matched at the first non-blank character; an optional
    group ``code`` is a JSON-RPC code. ``ends``: a literal the text (trailing blanks removed)
    must end with. ``contains``: a literal the first window must contain. ``error``: the text
    after the start match (and before ``ends``) carries the diagnosis, and classification
    reads only that part (None: the whole window is read). ``clients``: client names the
    template applies to (``*`` = every client). ``detects``: a match is a failure by itself.
    ``decisive``: the template alone decides the kind (``kind`` None: stays ambiguous) and no
    word of the text is read.
    """

    id: str
    clients: tuple[str, ...]
    start: str
    kind: RuleKind | None
    family: str | None
    decisive: bool
    detects: bool
    source: str
    error: bool = False
    ends: str | None = None
    contains: str | None = None


class ShellFormat(NamedTuple):
    """A coding agent's shell-command result. Inside it, text printed by the user's program
    is never read as error words: only the exit code (and the agent's own error line) decide.

    ``begins``: regex the text must match at its first non-blank character to be this format.
    ``exit``: regex with group ``code``; searched in ``region`` (``head``: the first
    ``head_chars`` characters before ``head_stop``; ``tail``: the last TAIL_CHARS characters; the
    last match counts) or ``last_line`` (matched against the last non-blank line).
    ``error_line``: regex with group ``error`` for the agent's own error line (last match in the
    tail); a value other than ``none_values`` is a failure.
    """

    id: str
    clients: tuple[str, ...]
    begins: str | None
    exit: str
    region: Literal["head", "tail", "last_line"]
    error_line: str | None
    source: str
    head_stop: str = "\nOutput:"
    head_chars: int = 1024
    any_client: bool = False  # also recognised (never detected) for other clients


# ---------------------------------------------------------------------------------------------
# Client names (DELIVERY.md section 3; appendix A identifies coding agents by User-Agent).
# ---------------------------------------------------------------------------------------------

CODING_AGENTS: tuple[str, ...] = ("qwen-code", "codex", "kilo-code", "opencode", "cline")
FRAMEWORK_CLIENTS: tuple[str, ...] = ("generic", "langchain", "openai-agents", "mcp")

# Other spellings (lower-cased, "_" and " " read as "-") and User-Agent product names.
CLIENT_ALIASES: dict[str, str] = {
    "": "generic",
    "unknown": "generic",
    "default": "generic",
    "langgraph": "langchain",
    "langchain-core": "langchain",
    "openai-agents-python": "openai-agents",
    "agents": "openai-agents",
    "openai-agents-sdk": "openai-agents",
    "model-context-protocol": "mcp",
    "qwen": "qwen-code",
    "qwencode": "qwen-code",  # User-Agent "QwenCode/..." (appendix A)
    "codex-cli": "codex",
    "codex-rs": "codex",
    "codex-cli-rs": "codex",  # User-Agent "codex_cli_rs/0.50.0 (...)"
    "codex-exec": "codex",
    "kilo": "kilo-code",
    "kilocode": "kilo-code",  # User-Agent "Kilo-Code/..." (appendix A)
    "open-code": "opencode",
    "claude-dev": "cline",
}

# ---------------------------------------------------------------------------------------------
# Generic start texts (DELIVERY.md 2.4, appendix A table 5), matched after leading white space.
# (detection id, regular expression, source)
# ---------------------------------------------------------------------------------------------

GENERIC_STARTS: tuple[tuple[str, str, str], ...] = (
    ("generic:start", r"Error:", "A: LangChain/LangGraph tool nodes; common CLI form"),
    ("generic:start", r"ERROR:", "A: common CLI form"),
    ("generic:start", r"error:", "A: common CLI form"),
    ("generic:start", r"Error executing tool", "A: MCP Python SDK (FastMCP ToolError)"),
    ("generic:start", r"MCP error ", "A: MCP TypeScript SDK (McpError message)"),
    (
        "generic:start",
        r"An error occurred while running the tool",
        "A: OpenAI Agents SDK default failure text",
    ),
    ("generic:start", r"Traceback \(most recent call last\):", "A: Python exception trace"),
    # An exception name ending in Error, Exception, Timeout followed by ':' or '('. A bare
    # lower-case ``timeout:`` is only taken with a dotted module (``socket.timeout:``): a
    # result starting with a ``timeout: 30`` setting is not a failure (precision first).
    (
        "generic:start",
        r"(?:[A-Za-z_]\w{0,80}\.){0,8}[A-Za-z_]\w{0,120}(?:Error|Exception|Timeout)[:(]",
        "A: Python exception string form (TypeError: ..., ConnectionResetError(...))",
    ),
    ("generic:start", r"Exception[:(]", "A: Python 'raise Exception(...)' string form"),
    ("generic:start", r"(?:[A-Za-z_]\w{0,80}\.){1,8}timeout[:(]", "A: Python socket.timeout string form"),
    ("generic:start", r"HTTP Error", "A: urllib.error.HTTPError"),
    ("generic:start", r"HTTP [45]", "A: HTTP status lines"),
    ("generic:start", r"[1-5]\d\d (?:Client|Server) Error:", "A: requests Response.raise_for_status"),
    ("generic:start", r"(?:Client|Server) error '", "A: httpx Response.raise_for_status"),
    ("generic:start", r"Error invoking tool '", "LangGraph ToolNode TOOL_INVOCATION_ERROR_TEMPLATE"),
    (
        "generic:start",
        r"Error code: -?\d+",
        "openai/anthropic SDK APIStatusError str() 'Error code: 429 - {...}'",
    ),
    (
        "generic:start",
        r"An error occurred \(\w+\) when calling the \w+ operation",
        "botocore ClientError message",
    ),
)

# A start text followed only by one of these is not a failure ("Error: (none)", "error: null").
EMPTY_ERROR_VALUES: tuple[str, ...] = ("", "(none)", "none", "None", "null", "nil", "false", "False", "0")

# ---------------------------------------------------------------------------------------------
# JSON results (DELIVERY.md 2.2 and 2.4; appendix A rules 1-3 and 14).
# ---------------------------------------------------------------------------------------------

# Keys of a JSON object result that carry an explicit flag or an error (quick text pre-check).
JSON_KEYS_TEXT: tuple[str, ...] = ('"error"', '"isError"', '"is_error"', '"success"', '"exit_code"')
MCP_ERROR_FLAGS: tuple[str, ...] = ("isError", "is_error")  # MCP CallToolResult (spec; Python SDK)
# Keys read to classify a JSON error object (the rest of the object is data, not diagnosis).
JSON_DIAGNOSIS_KEYS: tuple[str, ...] = (
    "error",
    "message",
    "detail",
    "details",
    "code",
    "status",
    "status_code",
    "statusCode",
    "type",
    "reason",
    "title",
    "error_description",
    "retry_after",
    "retryAfter",
)
OPENCODE_ERROR_TYPE = "tool.execution"  # appendix A rule 3
CLINE_QUERY_KEY = "query"  # appendix A rule 2: {"query": ..., "success": false}

# ---------------------------------------------------------------------------------------------
# Client templates (DELIVERY.md 2.3; appendix A agent rules).
# ---------------------------------------------------------------------------------------------

TEMPLATES: tuple[Template, ...] = (
    Template(
        "langchain:tool-invocation",
        ("*",),
        r"Error invoking tool '[^'\n]*' with kwargs ",
        F,
        "validation",
        True,
        True,
        "langgraph.prebuilt.tool_node TOOL_INVOCATION_ERROR_TEMPLATE (raised only for argument "
        "validation errors; the kwargs echo the model's arguments and are not read)",
    ),
    Template(
        "langchain:malformed-call",
        ("*",),
        r"Tool call \S+ with id \S+ could not be executed - arguments were malformed or truncated\.",
        F,
        "malformed_arguments",
        True,
        True,
        "langchain.agents.factory _invalid_tool_call_message (an invalid tool call the model wrote)",
    ),
    Template(
        "langchain:invalid-tool",
        ("*",),
        r"Error: \S+ is not a valid tool, try one of \[",
        F,
        "unknown_tool",
        True,
        True,
        "langgraph.prebuilt.tool_node INVALID_TOOL_NAME_ERROR_TEMPLATE",
    ),
    Template(
        "langchain:tool-error",
        ("*",),
        r"Error: ",
        None,
        None,
        False,
        True,
        "langgraph.prebuilt.tool_node TOOL_CALL_ERROR_TEMPLATE "
        "'Error: {repr(exc)}\\n Please fix your mistakes.'",
        error=True,
        ends="\n Please fix your mistakes.",
    ),
    Template(
        "openai-agents:tool-error",
        ("*",),
        r"An error occurred while running the tool\. Please try again\.(?:\s*Error:)?\s*",
        None,
        None,
        False,
        True,
        "openai-agents default_tool_error_function (the error text follows 'Error:')",
        error=True,
    ),
    Template(
        "openai-agents:tool-not-found",
        ("openai-agents",),
        r"Tool '[^'\n]*' not found\.?\s*\Z",
        F,
        "unknown_tool",
        True,
        True,
        "openai-agents tool lookup failure text",
    ),
    Template(
        "openai-agents:approval-rejected",
        ("openai-agents",),
        r"Tool execution was not approved\.?\s*\Z",
        U,
        "not_approved",
        True,
        True,
        "openai-agents DEFAULT_APPROVAL_REJECTION_MESSAGE (agents/tool.py): a person rejected "
        "a needs_approval call; the same call would be rejected again",
    ),
    Template(
        "openai-agents:tool-timeout",
        ("openai-agents",),
        r"Tool '[^'\n]*' timed out after [0-9.]+ seconds\.?\s*\Z",
        None,
        "timeout",
        True,
        True,
        "openai-agents default_tool_timeout_error_message (agents/tool.py); a tool's own "
        "timeout stays ambiguous like a command's own timeout (the contract's \"Classification\")",
    ),
    Template(
        "openai-agents:invalid-json",
        ("*",),
        r"Invalid JSON input for tool ",
        F,
        "bad_arguments",
        True,
        True,
        "openai-agents FunctionTool ModelBehaviorError (echoes the model's input: not read)",
    ),
    Template(
        "mcp:tool-error-withheld",
        ("*",),
        r"Error executing tool [^\s:]+\s*\Z",
        None,
        None,
        True,
        True,
        "MCP Python SDK: exception text withheld (mask_error_details)",
    ),
    Template(
        "mcp:tool-error",
        ("*",),
        r"Error executing tool [^\s:]+: ",
        None,
        None,
        False,
        True,
        "MCP Python SDK Tool.run ToolError 'Error executing tool {name}: {e}'",
        error=True,
    ),
    Template(
        "mcp:output-validation",
        ("*",),
        r"Output validation error: ",
        None,
        "output_validation",
        True,
        True,
        "MCP Python SDK lowlevel server: the tool's output failed its schema (not the model's doing)",
    ),
    Template(
        "mcp:unknown-tool",
        ("mcp",),
        r"Unknown tool: ",
        F,
        "unknown_tool",
        True,
        True,
        "MCP Python SDK ToolManager 'Unknown tool: {name}'",
    ),
    Template(
        "mcp:error",
        ("*",),
        r"MCP error (?P<code>-?\d+): ",
        None,
        None,
        False,
        True,
        "MCP TypeScript SDK McpError 'MCP error {code}: {message}'",
        error=True,
    ),
    Template(
        "cline:tool-error",
        ("*",),
        r"The tool execution failed with the following error:\s*<error>\s*",
        None,
        None,
        False,
        True,
        "Cline/Roo/Kilo formatResponse.toolError",
        error=True,
    ),
    Template(
        "cline:missing-parameter",
        ("*",),
        r"Missing value for required parameter '",
        F,
        "bad_arguments",
        True,
        True,
        "Cline/Roo/Kilo formatResponse.missingToolParameterError",
    ),
    Template(
        "qwen-code:not-found",
        ("qwen-code",),
        r"File not found: ",
        None,
        "not_found",
        False,
        True,
        "A: rule 4 qwen-notfound (a missing file stays ambiguous unless the text names the fix)",
    ),
    Template(
        "qwen-code:not-read",
        ("qwen-code",),
        r"File\b",
        F,
        "not_read",
        True,
        True,
        "A: rule 6 qwen-error (begins File and contains 'has not been read')",
        contains="has not been read",
    ),
    Template(
        "qwen-code:error",
        ("qwen-code",),
        r"Error",
        None,
        None,
        False,
        True,
        "A: rule 6 qwen-error (begins Error)",
    ),
    Template(
        "codex:timeout",
        ("codex",),
        r"(?:[^\n]{0,300}\n){0,3}?[^\n]{0,300}?command timed out",
        None,
        "command_timeout",
        True,
        True,
        "A: rule 8 codex-timeout (a command's own timeout stays ambiguous)",
    ),
    Template(
        "codex:patch",
        ("codex",),
        r"(?:[^\n]{0,300}\n){0,3}?[^\n]{0,300}?apply_patch verification failed",
        F,
        "patch",
        True,
        True,
        "A: rule 9 codex-patch",
    ),
    Template(
        "kilo-code:not-found",
        ("kilo-code",),
        r"File not found: ",
        None,
        "not_found",
        False,
        True,
        "A: rule 10 kilo-notfound",
    ),
    Template(
        "kilo-code:fs",
        ("kilo-code", "opencode"),
        r"Unknown: FileSystem\.",
        None,
        "filesystem",
        False,
        True,
        "A: rule 11 kilo-fs (Effect FileSystem error)",
    ),
    Template(
        "kilo-code:usage",
        ("kilo-code", "opencode"),
        r"oldString",
        F,
        "edit_usage",
        False,
        True,
        "A: rule 12 kilo-usage (edit tool: oldString not found / not unique / same as newString)",
    ),
)

SHELL_FORMATS: tuple[ShellFormat, ...] = (
    ShellFormat(
        "qwen-code:exit",
        ("qwen-code",),
        r"Command: ",
        r"\nExit Code: (?P<code>-?\d+|\(none\))",
        "tail",
        r"\nError: (?P<error>[^\n]*)",
        "A: rule 5 qwen-exit (Qwen Code / Gemini CLI shell tool llmContent)",
        any_client=True,
    ),
    ShellFormat(
        "codex:exit",
        ("codex",),
        r"Exit code: -?\d+",
        r"\AExit code: (?P<code>-?\d+)",
        "head",
        None,
        "A: rule 7 codex-exit (codex exec output 'Exit code: N\\nWall time: ...\\nOutput:')",
        any_client=True,
    ),
    ShellFormat(
        "codex:exit",
        ("codex",),
        r"(?:[^\n]{0,300}\n){0,6}?[^\n]{0,300}?Process exited with code -?\d+",
        r"Process exited with code (?P<code>-?\d+)",
        "head",
        None,
        "A: rule 7 codex-exit (unified exec 'Process exited with code N')",
    ),
    ShellFormat(
        "opencode:exit",
        ("opencode",),
        None,
        r"Exited with code (?P<code>-?\d+)\s*(?:</\w+>\s*)*\Z",
        "last_line",
        None,
        "A: rule 13 opencode-exit (last line 'Exited with code N')",
    ),
)
SHELL_NONE_VALUES: tuple[str, ...] = ("(none)", "none", "")
# Codex's JSON function output {"output": ..., "metadata": {"exit_code": N, ...}}.
CODEX_JSON_EXIT_KEYS: tuple[str, str] = ("metadata", "exit_code")

# ---------------------------------------------------------------------------------------------
# Words (DELIVERY.md section 3). Priority between kinds: unrecoverable, transient, fixable.
# ---------------------------------------------------------------------------------------------

_CMD_GUARD = (
    r"(?:[Cc]ommand|[Ee]xecution|[Ss]cript|[Pp]rocess)"
    r"(?: '[^\n]{0,300}'| \"[^\n]{0,300}\"| `[^\n]{0,300}`)? \Z"
)
_DAY_MONTH = r"[^\n]{0,200}?(?:[Pp]er ?[Dd]ay|[Dd]aily|[Pp]er ?[Mm]onth|[Mm]onthly|\bRPD\b|\bTPD\b)"

WORDS: tuple[Word, ...] = (
    # --- unrecoverable: floor ---
    Word("EACCES", U, "permission", None, "A:floor (errno)"),
    Word("EPERM", U, "permission", None, "A:floor (errno)"),
    Word("ermission denied", U, "permission", None, "A:floor (strerror EACCES, shells)"),
    Word("Access is denied", U, "permission", None, "A:floor (Windows ERROR_ACCESS_DENIED)"),
    Word("ead-only", U, "read_only", None, "A:floor (EROFS 'Read-only file system')"),
    Word("Unable to write", U, "write_denied", None, "A:floor"),
    Word("Forbidden", U, "permission", None, "A:floor (HTTP 403 reason phrase)"),
    # --- unrecoverable: wider ---
    Word("Unauthorized", U, "auth", None, "A:wider (HTTP 401 reason phrase)"),
    Word("PERMISSION_DENIED", U, "permission", None, "A:wider (gRPC status)"),
    Word("UNAUTHENTICATED", U, "auth", None, "A:wider (gRPC status)"),
    Word("ccess denied", U, "permission", None, "A:wider (cloud and database errors)"),
    Word("ot authorized to", U, "permission", None, "A:wider (AWS 'is not authorized to perform')"),
    Word("ncorrect API key", U, "auth", None, "A:wider (OpenAI 401 'Incorrect API key provided')"),
    Word("nvalid API key", U, "auth", None, "A:wider (API-key errors)"),
    # --- unrecoverable: extra vocabulary ---
    Word("peration not permitted", U, "permission", None, "strerror(EPERM)"),
    Word("not permitted to", U, "permission", None, "policy and sandbox denials"),
    Word("olicy denied", U, "policy", None, "A:study2 policy denial"),
    Word("denied by policy", U, "policy", None, "policy engines"),
    Word("blocked by policy", U, "policy", None, "policy engines"),
    Word("sandbox blocks", U, "sandbox", None, "A:study2 sandbox block"),
    Word("blocked by sandbox", U, "sandbox", None, "coding-agent sandboxes"),
    Word("blocked by the sandbox", U, "sandbox", None, "coding-agent sandboxes"),
    Word("denied by sandbox", U, "sandbox", None, "coding-agent sandboxes (seatbelt)"),
    Word("readonly database", U, "read_only", None, "sqlite3 'attempt to write a readonly database'"),
    Word("InsufficientPrivilege", U, "permission", None, "psycopg errors class (SQLSTATE 42501)"),
    Word("nsufficient privilege", U, "permission", None, "PostgreSQL 42501 condition name"),
    Word("ccessDenied", U, "permission", None, "AWS AccessDenied / AccessDeniedException"),
    Word(
        "ermissionDenied",
        U,
        "permission",
        None,
        "google.api_core PermissionDenied, openai PermissionDeniedError",
    ),
    Word("AuthenticationError", U, "auth", None, "openai/anthropic AuthenticationError class name"),
    Word("invalid_api_key", U, "auth", None, "OpenAI error code"),
    Word("authentication_error", U, "auth", None, "Anthropic error type"),
    Word("permission_error", U, "permission", None, "Anthropic error type"),
    Word("Payment Required", U, "quota", None, "HTTP 402 reason phrase"),
    Word("No space left on device", U, "disk_full", None, "strerror(ENOSPC)"),
    # --- traps: quota, credits and billing exhausted (beat rate limits and HTTP 429) ---
    Word("insufficient_quota", U, "quota", None, "OpenAI 429 error code", trap=True),
    Word("exceeded your current quota", U, "quota", None, "OpenAI 429 insufficient_quota message", trap=True),
    Word("out of credits", U, "quota", None, "provider credit exhaustion", trap=True),
    Word("credit balance is too low", U, "quota", None, "Anthropic 400 billing message", trap=True),
    Word("billing details", U, "quota", None, "OpenAI 'check your plan and billing details'", trap=True),
    Word("billing_hard_limit", U, "quota", None, "OpenAI billing_hard_limit_reached", trap=True),
    Word("illing hard limit", U, "quota", None, "OpenAI 'Billing hard limit has been reached'", trap=True),
    Word("billing_not_active", U, "quota", None, "OpenAI billing_not_active", trap=True),
    Word(
        "API usage limit", U, "quota", None, "Anthropic 'reached your specified API usage limits'", trap=True
    ),
    Word("reached your usage limit", U, "quota", None, "provider usage caps", trap=True),
    Word("aily quota", U, "quota", None, "daily quota exhausted", trap=True),
    Word("onthly quota", U, "quota", None, "monthly quota exhausted", trap=True),
    Word(
        "uota exceeded",
        U,
        "quota",
        None,
        "Google 'Quota exceeded ... per day'",
        only_after=_DAY_MONTH,
        trap=True,
    ),
    Word("uota has been exceeded", U, "quota", None, "daily quota", only_after=_DAY_MONTH, trap=True),
    Word(
        "requests per day",
        U,
        "quota",
        None,
        "OpenAI 'Rate limit reached ... on requests per day (RPD)'",
        trap=True,
    ),
    Word(
        "tokens per day",
        U,
        "quota",
        None,
        "OpenAI 'Rate limit reached ... on tokens per day (TPD)'",
        trap=True,
    ),
    # --- transient: floor ---
    Word("Too Many Requests", T, "rate_limit", NE, "A:floor (HTTP 429 reason phrase)"),
    Word("ate limit", T, "rate_limit", NE, "A:floor"),
    Word("Service Unavailable", T, "unavailable", NE, "A:floor (HTTP 503 reason phrase)"),
    Word("Gateway Timeout", T, "timeout", UO, "A:floor (HTTP 504 reason phrase)"),
    Word("emporarily unavailable", T, "unavailable", NE, "A:floor (strerror EAGAIN, HTTP 503 pages)"),
    # --- transient: wider ---
    Word("timed out", T, "timeout", UO, "A:wider", unless_before=_CMD_GUARD),
    Word(
        "Timed out while waiting for response",
        T,
        "timeout",
        UO,
        "mcp 1.x BaseSession.send_request read timeout (McpError code 408)",
    ),
    Word("TimeoutError", T, "timeout", UO, "A:wider (Python TimeoutError, asyncio, openai APITimeoutError)"),
    Word("ReadTimeout", T, "timeout", UO, "A:wider (httpx/requests ReadTimeout, urllib3 ReadTimeoutError)"),
    Word("ConnectTimeout", T, "timeout", NE, "A:wider (httpx/requests ConnectTimeout: never connected)"),
    Word("WriteTimeout", T, "timeout", UO, "A:wider (httpx WriteTimeout)"),
    Word("PoolTimeout", T, "timeout", NE, "A:wider (httpx PoolTimeout: no connection was taken)"),
    Word("socket.timeout", T, "timeout", UO, "A:wider (Python socket.timeout)"),
    Word("Request Timeout", T, "timeout", UO, "A:wider (HTTP 408 reason phrase)"),
    Word("onnection reset", T, "connection_reset", UO, "A:wider (strerror ECONNRESET)"),
    Word("onnection refused", T, "connection_refused", NE, "A:wider (strerror ECONNREFUSED)"),
    Word("onnection aborted", T, "connection", UO, "A:wider (requests 'Connection aborted.')"),
    Word("Bad Gateway", T, "bad_gateway", UO, "A:wider (HTTP 502 reason phrase)"),
    Word("Internal Server Error", T, "server_error", UO, "A:wider (HTTP 500 reason phrase)"),
    Word("socket hang up", T, "connection_reset", UO, "A:wider (Node.js ECONNRESET message)"),
    Word("fetch failed", T, "network", None, "A:wider (Node.js undici fetch TypeError)"),
    Word("Max retries exceeded", T, "network", None, "A:wider (urllib3 MaxRetryError)"),
    # --- transient: extra vocabulary ---
    # ("overloaded" alone also names overloaded functions in compiler messages.)
    Word("Overloaded", T, "overloaded", NE, "Anthropic 529 message 'Overloaded', OverloadedError"),
    Word("overloaded_error", T, "overloaded", NE, "Anthropic error type (529)"),
    Word("is overloaded", T, "overloaded", NE, "'The server is overloaded'"),
    Word("currently overloaded", T, "overloaded", NE, "'The engine is currently overloaded'"),
    Word("server overloaded", T, "overloaded", NE, "'server overloaded'"),
    # ("throttl" alone also matches a car's throttle position.)
    Word("hrottled", T, "throttling", NE, "'Throttled', 'request was throttled'"),
    Word("hrottling", T, "throttling", NE, "AWS ThrottlingException, 'throttling'"),
    Word("Rate exceeded", T, "throttling", NE, "AWS throttling message"),
    Word("request rate exceeded", T, "throttling", NE, "throttling message"),
    Word("educe your request rate", T, "throttling", NE, "AWS S3 SlowDown message"),
    Word("ateLimit", T, "rate_limit", NE, "RateLimitError / RateLimitExceeded class names"),
    Word("ate_limit_exceeded", T, "rate_limit", NE, "OpenAI error code"),
    Word("ate_limit_error", T, "rate_limit", NE, "Anthropic error type"),
    Word(
        "TooManyRequests",
        T,
        "rate_limit",
        NE,
        "google.api_core TooManyRequests, AWS TooManyRequestsException",
    ),
    Word("ServiceUnavailable", T, "unavailable", NE, "google.api_core ServiceUnavailable, AWS code"),
    Word("InternalServerError", T, "server_error", UO, "openai/anthropic/google InternalServerError"),
    Word("atewayTimeout", T, "timeout", UO, "google.api_core GatewayTimeout"),
    Word("Gateway Time-out", T, "timeout", UO, "nginx 504 page"),
    Word("BadGateway", T, "bad_gateway", UO, "google.api_core BadGateway"),
    Word("eadlineExceeded", T, "timeout", UO, "google.api_core DeadlineExceeded, gRPC Go"),
    # (not a bare "deadline exceeded": a submission deadline is a business condition)
    Word("context deadline exceeded", T, "timeout", UO, "Go 'context deadline exceeded'"),
    Word("Deadline Exceeded", T, "timeout", UO, "grpcio details 'Deadline Exceeded'"),
    Word(
        "ConnectionError", T, "connection", None, "Python/requests ConnectionError, openai APIConnectionError"
    ),
    Word("ConnectionResetError", T, "connection_reset", UO, "Python ConnectionResetError"),
    Word("ConnectionRefusedError", T, "connection_refused", NE, "Python ConnectionRefusedError"),
    Word("ConnectionAbortedError", T, "connection", UO, "Python ConnectionAbortedError"),
    Word("BrokenPipeError", T, "connection", UO, "Python BrokenPipeError"),
    Word("Broken pipe", T, "connection", UO, "strerror(EPIPE)"),
    Word("onnection closed", T, "connection", UO, "MCP SDK 'Connection closed' (-32000)"),
    Word("Remote end closed connection", T, "connection", UO, "http.client RemoteDisconnected"),
    Word("RemoteDisconnected", T, "connection", UO, "http.client RemoteDisconnected"),
    Word(
        "Server disconnected",
        T,
        "connection",
        UO,
        "aiohttp ServerDisconnectedError, httpx RemoteProtocolError",
    ),
    Word("IncompleteRead", T, "connection", UO, "http.client IncompleteRead"),
    Word("actively refused", T, "connection_refused", NE, "Windows WSAECONNREFUSED (WinError 10061)"),
    Word("emporary failure in name resolution", T, "dns", NE, "strerror(EAI_AGAIN)"),
    Word("Network is unreachable", T, "network", NE, "strerror(ENETUNREACH)"),
    Word("No route to host", T, "network", NE, "strerror(EHOSTUNREACH)"),
    Word("upstream connect error", T, "upstream", UO, "Envoy 503 body"),
    Word("disconnect/reset before headers", T, "upstream", UO, "Envoy 503 body"),
    Word("upstream request timeout", T, "timeout", UO, "Envoy 504 body"),
    Word("no healthy upstream", T, "unavailable", NE, "Envoy 503 body"),
    Word("ESOCKETTIMEDOUT", T, "timeout", UO, "Node.js request library"),
    Word("UND_ERR_CONNECT_TIMEOUT", T, "timeout", NE, "Node.js undici"),
    Word("UND_ERR_HEADERS_TIMEOUT", T, "timeout", UO, "Node.js undici"),
    Word("UND_ERR_SOCKET", T, "connection", UO, "Node.js undici"),
    Word("SerializationFailure", T, "db_conflict", NE, "psycopg errors class (SQLSTATE 40001, rolled back)"),
    Word("could not serialize access", T, "db_conflict", NE, "PostgreSQL 40001 message (rolled back)"),
    Word("eadlock detected", T, "db_conflict", NE, "PostgreSQL 40P01 message (rolled back)"),
    Word("DeadlockDetected", T, "db_conflict", NE, "psycopg errors class (SQLSTATE 40P01)"),
    Word("eadlock found when trying to get lock", T, "db_conflict", NE, "MySQL 1213 (rolled back)"),
    Word("Lock wait timeout exceeded", T, "db_locked", UO, "MySQL 1205"),
    Word("database is locked", T, "db_locked", NE, "sqlite3 SQLITE_BUSY"),
    Word("could not obtain lock", T, "db_locked", NE, "PostgreSQL 55P03 message"),
    Word("LockNotAvailable", T, "db_locked", NE, "psycopg errors class (SQLSTATE 55P03)"),
    Word("too many clients already", T, "busy", NE, "PostgreSQL 53300 message"),
    Word("database system is starting up", T, "unavailable", NE, "PostgreSQL 57P03 message"),
    Word("database system is shutting down", T, "unavailable", NE, "PostgreSQL 57P03 message"),
    Word("ry again later", T, "unavailable", UO, "'Please try again later' (the tool itself says so)"),
    Word("etry later", T, "unavailable", UO, "'Please retry later'"),
    # --- fixable: floor ---
    Word("must not be empty", F, "empty_value", None, "A:floor"),
    Word("cannot be empty", F, "empty_value", None, "A:floor"),
    Word("has not been read", F, "not_read", None, "A:floor (edit tools: read the file first)"),
    Word("No replacement performed", F, "edit_no_match", None, "A:floor (str_replace editor)"),
    Word("Invalid insert_line", F, "bad_arguments", None, "A:floor (str_replace editor)"),
    Word("was omitted", F, "bad_arguments", None, "A:floor"),
    Word("did not match", F, "edit_no_match", None, "A:floor"),
    Word("not unique", F, "not_unique", None, "A:floor"),
    Word("verification failed", F, "patch", None, "A:floor (apply_patch)"),
    Word("Invalid arguments", F, "bad_arguments", None, "A:floor"),
    Word("Invalid parameters", F, "bad_arguments", None, "A:floor"),
    # --- fixable: wider ---
    Word("unexpected keyword argument", F, "bad_arguments", None, "A:wider (Python TypeError)"),
    Word("required positional argument", F, "bad_arguments", None, "A:wider (Python TypeError)"),
    Word("positional arguments but", F, "bad_arguments", None, "A:wider (Python TypeError)"),
    Word("nvalid params", F, "bad_arguments", None, "A:wider (JSON-RPC -32602 message)"),
    Word("Bad Request", F, "bad_request", None, "A:wider (HTTP 400 reason phrase)"),
    Word("Unprocessable", F, "validation", None, "A:wider (HTTP 422 reason phrase)"),
    Word("validation error", F, "validation", None, "A:wider (pydantic)", unless_before=r"[Oo]utput \Z"),
    Word("is a required property", F, "validation", None, "A:wider (jsonschema)"),
    Word("is not of type", F, "validation", None, "A:wider (jsonschema)"),
    Word("dditional properties are not allowed", F, "validation", None, "A:wider (jsonschema)"),
    Word("is not a valid tool", F, "unknown_tool", None, "A:wider (LangGraph)"),
    Word("nknown tool", F, "unknown_tool", None, "A:wider (MCP Python SDK)"),
    Word(
        "ethod not found",
        F,
        "unknown_tool",
        None,
        "A:wider (JSON-RPC -32601 message); not 'payment method not found'",
        unless_before=r"[A-Za-z]+[ \t]+[Mm]\Z",
    ),
    # --- fixable: extra vocabulary ---
    Word("Field required", F, "validation", None, "pydantic v2 'missing' message"),
    Word("field required", F, "validation", None, "pydantic v1 'missing' message"),
    Word("Input should be", F, "validation", None, "pydantic v2 messages"),
    Word("value is not a valid", F, "validation", None, "pydantic v1 messages"),
    Word(
        "alidationError",
        F,
        "validation",
        None,
        "pydantic/jsonschema ValidationError class name",
        unless_before=r"[Oo]utput\Z",
    ),
    Word("ValidationException", F, "validation", None, "AWS ValidationException"),
    Word("nvalidArgument", F, "bad_arguments", None, "google.api_core InvalidArgument"),
    Word("nvalidParameter", F, "bad_arguments", None, "AWS InvalidParameterValue/InvalidParameterException"),
    Word("BadRequest", F, "bad_request", None, "google.api_core BadRequest, openai BadRequestError"),
    Word("is not one of", F, "validation", None, "jsonschema enum message"),
    Word("xpected one of", F, "bad_arguments", None, "'Invalid X; expected one of ...'"),
    Word("ust be one of", F, "bad_arguments", None, "'X must be one of ...'"),
    Word("hould be one of", F, "bad_arguments", None, "'X should be one of ...'"),
    Word("required keyword-only argument", F, "bad_arguments", None, "Python TypeError"),
    Word("missing a required argument", F, "bad_arguments", None, "Python inspect.Signature.bind"),
    Word("got multiple values for argument", F, "bad_arguments", None, "Python TypeError"),
    Word("takes no arguments", F, "bad_arguments", None, "Python TypeError"),
    Word("takes no keyword arguments", F, "bad_arguments", None, "Python TypeError"),
    Word("issing required param", F, "bad_arguments", None, "'Missing required parameter: x'"),
    Word("issing required argument", F, "bad_arguments", None, "'Missing required argument: x'"),
    Word("issing required field", F, "bad_arguments", None, "'Missing required field: x'"),
    Word("issing required propert", F, "bad_arguments", None, "'Missing required property: x'"),
    Word("o such tool", F, "unknown_tool", None, "'No such tool: x'"),
    Word("arsing tool arguments", F, "bad_arguments", None, "JSON parse of the call's arguments"),
    Word("arse tool arguments", F, "bad_arguments", None, "JSON parse of the call's arguments"),
    Word("arsing arguments", F, "bad_arguments", None, "JSON parse of the call's arguments"),
    Word("arse arguments", F, "bad_arguments", None, "JSON parse of the call's arguments"),
    Word("arsing function arguments", F, "bad_arguments", None, "JSON parse of the call's arguments"),
    Word("ecode arguments", F, "bad_arguments", None, "JSON parse of the call's arguments"),
    Word("nvalid JSON input for tool", F, "bad_arguments", None, "openai-agents ModelBehaviorError"),
    Word("nvalid JSON arguments", F, "bad_arguments", None, "JSON parse of the call's arguments"),
    Word("arguments are not valid JSON", F, "bad_arguments", None, "JSON parse of the call's arguments"),
    Word("nput validation error", F, "validation", None, "MCP Python SDK lowlevel server input validation"),
    Word(
        "must be different", F, "edit_usage", None, "edit tools 'old_string and new_string must be different'"
    ),
    Word("String to replace not found", F, "edit_no_match", None, "Claude Code Edit tool"),
    Word("matches of the string to replace", F, "not_unique", None, "Claude Code Edit tool"),
    Word("oldString not found", F, "edit_no_match", None, "OpenCode/Kilo edit tool"),
    Word("multiple matches for oldString", F, "not_unique", None, "OpenCode/Kilo edit tool"),
    Word("must be absolute", F, "bad_arguments", None, "Qwen Code/Gemini CLI 'File path must be absolute'"),
    Word("does not match format", F, "bad_arguments", None, "Python strptime ValueError"),
    Word("nvalid date format", F, "bad_arguments", None, "'Invalid date format. Use YYYY-MM-DD.'"),
    Word("must be between", F, "bad_arguments", None, "range checks naming the bounds"),
    Word("must be positive", F, "bad_arguments", None, "range checks"),
    Word("must be a positive", F, "bad_arguments", None, "range checks"),
    Word("must be non-negative", F, "bad_arguments", None, "range checks"),
    Word("cannot be negative", F, "bad_arguments", None, "range checks"),
    Word("must be greater than", F, "bad_arguments", None, "range checks"),
    Word("must be less than", F, "bad_arguments", None, "range checks"),
    Word("must be at least", F, "bad_arguments", None, "range checks"),
    Word("must be at most", F, "bad_arguments", None, "range checks"),
    Word("must be a number", F, "bad_arguments", None, "type checks"),
    Word("must be numbers", F, "bad_arguments", None, "type checks"),
    Word("must be an integer", F, "bad_arguments", None, "type checks"),
    Word("must be a string", F, "bad_arguments", None, "type checks"),
    Word("must be a valid", F, "bad_arguments", None, "type checks"),
    Word("id you mean", F, "suggestion", None, "'Did you mean ...?' names the value to use", boundary=False),
    Word("instead", F, "suggestion", None, "'use X instead'", only_before=r"\b[Uu]se [^\n]{1,80}\Z"),
    Word("has been moved to", F, "moved", None, "A:study2 'a file that moved to a stated new path'"),
    Word("was moved to", F, "moved", None, "A:study2 'a file that moved to a stated new path'"),
    # --- stays ambiguous: families only ---
    Word("ommand timed out", None, "command_timeout", None, "A:ambiguous (a command's own timeout)"),
    Word(
        "' timed out after",
        None,
        "command_timeout",
        None,
        "subprocess.TimeoutExpired 'Command '...' timed out after'",
    ),
    Word(
        "utput validation error",
        None,
        "output_validation",
        None,
        "MCP SDK: the tool's output is invalid",
        decisive=True,
    ),
    Word("ommand timeout", None, "command_timeout", None, "A:ambiguous (a command's own timeout)"),
    Word("xecution timed out", None, "command_timeout", None, "A:ambiguous (a command's own timeout)"),
    Word("not available", None, "not_available", None, "A:ambiguous (temporary and permanent)"),
    Word("Not Found", None, "not_found", None, "A:ambiguous (HTTP 404 reason phrase)"),
    Word("not found", None, "not_found", None, "missing resources stay ambiguous"),
    Word("No such file or directory", None, "not_found", None, "strerror(ENOENT)"),
    Word("non-zero exit status", None, "exit_code", None, "Python CalledProcessError"),
    Word("uota exceeded", None, "quota", None, "quota without a period: the 429 or gRPC code decides"),
    Word(
        "Name or service not known",
        T,
        "dns",
        NE,
        "strerror(EAI_NONAME); the contract's Classification: DNS is turned away",
    ),
    Word("nodename nor servname", T, "dns", NE, "macOS EAI_NONAME"),
    # --- outcome hints (kind-less): the connection was never made ---
    Word("NewConnectionError", None, "connection", NE, "urllib3 NewConnectionError"),
    Word("Failed to establish a new connection", None, "connection", NE, "urllib3 NewConnectionError"),
    Word("Cannot connect to host", None, "connection", NE, "aiohttp ClientConnectorError"),
    Word("ConnectError", None, "connection", NE, "httpx ConnectError"),
    # --- the text formats of the libraries agent tools call (issue 11; each from the library's
    # own message, checked on the live corpus in shared_core/tests/real_errors) ---
    # botocore
    Word("Could not connect to the endpoint URL", T, "connection", NE, "botocore EndpointConnectionError"),
    Word(
        "Connect timeout on endpoint URL", T, "timeout", NE, "botocore ConnectTimeoutError (never connected)"
    ),
    Word("Read timeout on endpoint URL", T, "timeout", UO, "botocore ReadTimeoutError"),
    Word(
        "Connection was closed before we received a valid response",
        T,
        "connection",
        UO,
        "botocore ConnectionClosedError",
    ),
    Word("Unable to locate credentials", U, "auth", None, "botocore NoCredentialsError"),
    Word("You must specify a region", U, "config", None, "botocore NoRegionError"),
    Word("security token included in the request is", U, "auth", None, "AWS invalid / expired token"),
    Word("he provided token has expired", U, "auth", None, "S3 ExpiredToken"),
    Word("Parameter validation failed", F, "validation", None, "botocore ParamValidationError"),
    Word("is the wrong type. Must be", F, "validation", None, "botocore endpoint parameter validation"),
    # aiohttp
    Word("Connection timeout to host", T, "timeout", NE, "aiohttp ConnectionTimeoutError (connect phase)"),
    Word("Timeout on reading data from socket", T, "timeout", UO, "aiohttp SocketTimeoutError"),
    # httpx / anyio, asyncio, grpc: refused connections
    Word(
        "All connection attempts failed",
        T,
        "connection_refused",
        NE,
        "httpx/anyio refused connect (issue 12)",
    ),
    Word("Connect call failed", T, "connection_refused", NE, "asyncio create_connection refused"),
    Word(
        "failed to connect to all addresses", T, "unavailable", NE, "gRPC core UNAVAILABLE (never connected)"
    ),
    # OpenAI and Anthropic SDKs (APIConnectionError: the effect is unknown without the cause)
    Word(
        "Connection error.",
        T,
        "connection",
        UO,
        "openai/anthropic APIConnectionError message",
        boundary=False,
        only_before=r"(?:^|[:(\"'] ?)$",
    ),
    # DNS
    Word("Temporary failure in name resolution", T, "dns", NE, "strerror(EAI_AGAIN)"),
    Word("getaddrinfo failed", T, "dns", NE, "Windows socket.gaierror 11001"),
    Word("Failed to resolve '", T, "dns", NE, "urllib3 NameResolutionError"),
    Word("failed to resolve host", T, "dns", NE, "psycopg 3 host resolution"),
    # vendor API error texts
    Word("organization has been disabled", U, "auth", None, "OpenAI organization deactivated"),
    Word("must be a member of an organization", U, "auth", None, "OpenAI no_organization"),
    Word(
        "region, or territory not supported", U, "region", None, "OpenAI unsupported_country_region_territory"
    ),
    Word("does not have access to model", U, "permission", None, "OpenAI project without model access"),
    Word("requires billing to be enabled", U, "quota", None, "Google BILLING_DISABLED", trap=True),
    Word("API key not valid", U, "auth", None, "Google API_KEY_INVALID (sent as 400 INVALID_ARGUMENT)"),
    Word("invalid x-api-key", U, "auth", None, "Anthropic authentication_error"),
    Word("does not have permission", U, "permission", None, "Anthropic permission_error, Google"),
    Word("maximum context length", F, "too_large", None, "OpenAI context_length_exceeded"),
    # SQLite (sqlite3 module texts) and PostgreSQL
    Word("syntax error", F, "syntax", None, "SQLite 'near \"X\": syntax error', PostgreSQL 42601, shells"),
    Word("no such table:", F, "undefined_name", None, "SQLite"),
    Word("no such column:", F, "undefined_name", None, "SQLite"),
    Word("no such function:", F, "undefined_name", None, "SQLite"),
    Word("ambiguous column name", F, "syntax", None, "SQLite"),
    Word("incomplete input", F, "syntax", None, "SQLite"),
    Word("datatype mismatch", F, "bad_arguments", None, "SQLite SQLITE_MISMATCH"),
    Word("NOT NULL constraint failed", F, "bad_arguments", None, "SQLite"),
    Word("CHECK constraint failed", F, "bad_arguments", None, "SQLite"),
    Word("UNIQUE constraint failed", None, "conflict", None, "SQLite (the row may exist)", decisive=True),
    Word("violates unique constraint", None, "conflict", None, "PostgreSQL 23505", decisive=True),
    Word("violates not-null constraint", F, "bad_arguments", None, "PostgreSQL 23502"),
    Word("violates check constraint", F, "bad_arguments", None, "PostgreSQL 23514"),
    Word("Incorrect number of bindings supplied", F, "bad_arguments", None, "sqlite3 ProgrammingError"),
    Word("can only execute one statement at a time", F, "bad_arguments", None, "sqlite3 ProgrammingError"),
    Word(
        "does not exist",
        F,
        "undefined_name",
        None,
        "PostgreSQL 42P01/42703/42883",
        only_before=r"(?:relation|column|function) \S{1,200} $",
    ),
    Word("invalid input syntax for type", F, "bad_arguments", None, "PostgreSQL 22P02"),
    Word("date/time field value out of range", F, "bad_arguments", None, "PostgreSQL 22008"),
    Word("due to lock timeout", T, "db_locked", NE, "PostgreSQL 55P03"),
    Word("deadlock detected", T, "db_conflict", NE, "PostgreSQL 40P01 (rolled back)"),
    Word("terminating connection due to administrator command", T, "unavailable", UO, "PostgreSQL 57P01"),
    Word("server closed the connection unexpectedly", T, "connection", UO, "libpq"),
    Word('FATAL:  role "', U, "auth", None, "PostgreSQL 28000 role does not exist"),
    Word('FATAL:  database "', U, "config", None, "PostgreSQL 3D000 database does not exist"),
    # jsonschema (ValidationError str starts with the message, then this header)
    Word("Failed validating '", F, "validation", None, "jsonschema ValidationError"),
    Word("is too short", F, "validation", None, "jsonschema minLength/minItems"),
    Word("is less than the minimum of", F, "validation", None, "jsonschema minimum"),
    Word("is greater than the maximum of", F, "validation", None, "jsonschema maximum"),
    Word("has non-unique elements", F, "validation", None, "jsonschema uniqueItems"),
    Word("is a dependency of", F, "validation", None, "jsonschema dependentRequired"),
    # Python value errors on arguments
    Word("invalid literal for int() with base", F, "bad_arguments", None, "int()"),
    Word("could not convert string to float", F, "bad_arguments", None, "float()"),
    Word("Invalid isoformat string", F, "bad_arguments", None, "datetime.fromisoformat"),
    Word("does not match format '", F, "bad_arguments", None, "datetime.strptime"),
    Word("month must be in 1..12", F, "bad_arguments", None, "datetime.date"),
    Word("day is out of range for month", F, "bad_arguments", None, "datetime.date"),
    Word("No time zone found with key", F, "bad_arguments", None, "zoneinfo.ZoneInfoNotFoundError"),
    Word("does not appear to be an IPv4 or IPv6 address", F, "bad_arguments", None, "ipaddress"),
    Word("Port out of range", F, "bad_arguments", None, "urllib.parse"),
    Word("unterminated subpattern", F, "bad_arguments", None, "re.error"),
    Word("nothing to repeat at position", F, "bad_arguments", None, "re.error"),
    # URLs
    Word("unknown url type", F, "bad_url", None, "urllib.request"),
    Word("No scheme supplied", F, "bad_url", None, "requests MissingSchema"),
    Word("No host supplied", F, "bad_url", None, "requests InvalidURL"),
    Word("No connection adapters were found for", F, "bad_url", None, "requests InvalidSchema"),
    Word("has an unsupported protocol", F, "bad_url", None, "httpx UnsupportedProtocol"),
    Word("is missing an 'http://' or 'https://' protocol", F, "bad_url", None, "httpx UnsupportedProtocol"),
    Word("is not a valid host or port", F, "bad_url", None, "urllib3 LocationParseError"),
    # validation phrasing of real MCP servers (mcp-server-time, reference servers)
    Word("Incorrect padding", F, "bad_arguments", None, "binascii (base64 input)"),
    Word("Is a directory", F, "is_directory", None, "strerror(EISDIR)"),
    Word("Not a directory", F, "not_a_directory", None, "strerror(ENOTDIR)"),
    Word("Request had invalid authentication credentials", U, "auth", None, "Google UNAUTHENTICATED details"),
    Word("Method not implemented", U, "not_implemented", None, "gRPC UNIMPLEMENTED details"),
    Word("Invalid timezone", F, "validation", None, "mcp-server-time 'Invalid timezone: ...'"),
    Word("Cannot specify both", F, "validation", None, "MCP reference servers' mutually exclusive arguments"),
)

# ---------------------------------------------------------------------------------------------
# HTTP status codes (RFC 9110 and provider conventions). Only 4xx and 5xx are read.
# ---------------------------------------------------------------------------------------------

HTTP_STATUS: dict[int, CodeRule] = {
    400: CodeRule(F, "bad_request", None, "RFC 9110 15.5.1; A:wider 'Bad Request'"),
    401: CodeRule(U, "auth", None, "RFC 9110 15.5.2"),
    402: CodeRule(U, "quota", None, "RFC 9110 15.5.3 Payment Required"),
    403: CodeRule(U, "permission", None, "RFC 9110 15.5.4"),
    404: CodeRule(
        None, "not_found", None, "A:ambiguous (HTTP 404 is used for temporary and permanent conditions)"
    ),
    405: CodeRule(None, "http.405", None, "RFC 9110 15.5.6"),
    407: CodeRule(U, "auth", None, "RFC 9110 15.5.8 Proxy Authentication Required"),
    408: CodeRule(T, "timeout", UO, "RFC 9110 15.5.9; retried by the OpenAI and Anthropic SDKs"),
    409: CodeRule(None, "conflict", None, "RFC 9110 15.5.10"),
    410: CodeRule(None, "gone", None, "RFC 9110 15.5.11"),
    413: CodeRule(F, "too_large", None, "RFC 9110 15.5.14 (the caller sent too much)"),
    422: CodeRule(F, "validation", None, "RFC 9110 15.5.21; A:wider 'Unprocessable'"),
    423: CodeRule(None, "locked", None, "RFC 4918"),
    425: CodeRule(T, "too_early", NE, "RFC 8470 Too Early (not processed)"),
    429: CodeRule(T, "rate_limit", NE, "RFC 6585; quota traps override"),
    451: CodeRule(U, "legal", None, "RFC 7725"),
    500: CodeRule(T, "server_error", UO, "RFC 9110 15.6.1; retried by the OpenAI and Anthropic SDKs"),
    501: CodeRule(U, "not_implemented", None, "RFC 9110 15.6.2 (gRPC UNIMPLEMENTED: not served)"),
    502: CodeRule(T, "bad_gateway", UO, "RFC 9110 15.6.3"),
    503: CodeRule(T, "unavailable", NE, "RFC 9110 15.6.4 (request turned away)"),
    504: CodeRule(T, "timeout", UO, "RFC 9110 15.6.5"),
    520: CodeRule(T, "server_error", UO, "Cloudflare unknown error"),
    521: CodeRule(T, "unavailable", NE, "Cloudflare web server is down"),
    522: CodeRule(T, "timeout", NE, "Cloudflare connection timed out (origin never reached)"),
    523: CodeRule(T, "unavailable", NE, "Cloudflare origin unreachable"),
    524: CodeRule(T, "timeout", UO, "Cloudflare a timeout occurred"),
    529: CodeRule(T, "overloaded", NE, "Anthropic overloaded_error"),
}

# ---------------------------------------------------------------------------------------------
# gRPC status codes (grpc.io/docs/guides/status-codes); CamelCase aliases are the Go names.
# ``GRPC_WORDS``: the names also matched as bare words (A:wider); the others need a marker
# (``StatusCode.X``, ``code = X``, ``"status": "X"``).
# ---------------------------------------------------------------------------------------------

GRPC_STATUS: dict[str, CodeRule] = {
    "CANCELLED": CodeRule(None, "cancelled", None, "gRPC 1"),
    "UNKNOWN": CodeRule(None, "grpc.unknown", None, "gRPC 2"),
    "INVALID_ARGUMENT": CodeRule(F, "bad_arguments", None, "gRPC 3; A:wider"),
    "DEADLINE_EXCEEDED": CodeRule(T, "timeout", UO, "gRPC 4; A:wider"),
    "NOT_FOUND": CodeRule(None, "not_found", None, "gRPC 5"),
    "ALREADY_EXISTS": CodeRule(None, "conflict", None, "gRPC 6"),
    "PERMISSION_DENIED": CodeRule(U, "permission", None, "gRPC 7; A:wider"),
    "RESOURCE_EXHAUSTED": CodeRule(T, "rate_limit", NE, "gRPC 8; A:wider; quota traps override"),
    "FAILED_PRECONDITION": CodeRule(None, "precondition", None, "gRPC 9"),
    "ABORTED": CodeRule(T, "db_conflict", UO, "gRPC 10 (concurrency conflict; retry)"),
    "OUT_OF_RANGE": CodeRule(F, "out_of_range", None, "gRPC 11 (HTTP 400: an argument past the valid range)"),
    "UNIMPLEMENTED": CodeRule(
        U, "not_implemented", None, "gRPC 12 (the method is not served: no retry or argument helps)"
    ),
    "INTERNAL": CodeRule(T, "server_error", UO, "gRPC 13 (HTTP 500, as google-api-core maps it)"),
    "UNAVAILABLE": CodeRule(
        T, "unavailable", NE, "gRPC 14; A:wider (turned away: the server did not take the call)"
    ),
    "DATA_LOSS": CodeRule(None, "data_loss", None, "gRPC 15"),
    "UNAUTHENTICATED": CodeRule(U, "auth", None, "gRPC 16; A:wider"),
}
GRPC_ALIASES: dict[str, str] = {
    "Canceled": "CANCELLED",
    "Unknown": "UNKNOWN",
    "InvalidArgument": "INVALID_ARGUMENT",
    "DeadlineExceeded": "DEADLINE_EXCEEDED",
    "NotFound": "NOT_FOUND",
    "AlreadyExists": "ALREADY_EXISTS",
    "PermissionDenied": "PERMISSION_DENIED",
    "ResourceExhausted": "RESOURCE_EXHAUSTED",
    "FailedPrecondition": "FAILED_PRECONDITION",
    "Aborted": "ABORTED",
    "OutOfRange": "OUT_OF_RANGE",
    "Unimplemented": "UNIMPLEMENTED",
    "Internal": "INTERNAL",
    "Unavailable": "UNAVAILABLE",
    "DataLoss": "DATA_LOSS",
    "Unauthenticated": "UNAUTHENTICATED",
}
GRPC_NUMBERS: dict[int, str] = {
    1: "CANCELLED",
    2: "UNKNOWN",
    3: "INVALID_ARGUMENT",
    4: "DEADLINE_EXCEEDED",
    5: "NOT_FOUND",
    6: "ALREADY_EXISTS",
    7: "PERMISSION_DENIED",
    8: "RESOURCE_EXHAUSTED",
    9: "FAILED_PRECONDITION",
    10: "ABORTED",
    11: "OUT_OF_RANGE",
    12: "UNIMPLEMENTED",
    13: "INTERNAL",
    14: "UNAVAILABLE",
    15: "DATA_LOSS",
    16: "UNAUTHENTICATED",
}
GRPC_WORDS: tuple[str, ...] = (
    "DEADLINE_EXCEEDED",
    "UNAVAILABLE",
    "RESOURCE_EXHAUSTED",
    "PERMISSION_DENIED",
    "UNAUTHENTICATED",
    "INVALID_ARGUMENT",
)

# ---------------------------------------------------------------------------------------------
# errno names (POSIX/Linux; Node.js system errors use the same names). Matched as whole words
# (the floor names also as substrings), after ``[Errno N]`` and from ``OSError.errno``.
# ---------------------------------------------------------------------------------------------

ERRNO: dict[str, CodeRule] = {
    "EACCES": CodeRule(U, "permission", None, "A:floor"),
    "EPERM": CodeRule(U, "permission", None, "A:floor"),
    "EROFS": CodeRule(U, "read_only", None, "read-only file system"),
    "ENOSPC": CodeRule(U, "disk_full", None, "no space left on device"),
    "EDQUOT": CodeRule(U, "quota", None, "disk quota exceeded"),
    "EAGAIN": CodeRule(T, "busy", NE, "A:study2 'spawn EAGAIN' (resource temporarily unavailable)"),
    "EWOULDBLOCK": CodeRule(T, "busy", NE, "same as EAGAIN"),
    "EBUSY": CodeRule(T, "busy", NE, "A:study2 'EBUSY: resource busy or locked'"),
    "ECONNRESET": CodeRule(T, "connection_reset", UO, "A:floor"),
    "ECONNREFUSED": CodeRule(T, "connection_refused", NE, "A:floor"),
    "ECONNABORTED": CodeRule(T, "connection", UO, "connection aborted"),
    "ETIMEDOUT": CodeRule(T, "timeout", UO, "A:floor"),
    "EAI_AGAIN": CodeRule(T, "dns", NE, "A:floor (temporary DNS failure)"),
    "EPIPE": CodeRule(T, "connection", UO, "broken pipe"),
    "ENETUNREACH": CodeRule(T, "network", NE, "network unreachable"),
    "EHOSTUNREACH": CodeRule(T, "network", NE, "host unreachable"),
    "ENETDOWN": CodeRule(T, "network", NE, "network down"),
    "EHOSTDOWN": CodeRule(T, "network", NE, "host down"),
    "ENOENT": CodeRule(None, "not_found", None, "A:ambiguous (missing files)"),
    "ENOTDIR": CodeRule(F, "not_a_directory", None, "not a directory (a path the caller gave)"),
    "EISDIR": CodeRule(F, "is_directory", None, "is a directory (a path the caller gave)"),
    "EEXIST": CodeRule(None, "exists", None, "file exists"),
    "ENOTEMPTY": CodeRule(None, "not_empty", None, "directory not empty"),
    "EAI_NONAME": CodeRule(
        T, "dns", NE, "getaddrinfo EAI_NONAME (the contract's Classification: DNS is turned away)"
    ),
    "EAI_NODATA": CodeRule(T, "dns", NE, "getaddrinfo EAI_NODATA"),
    "EAI_FAIL": CodeRule(T, "dns", NE, "getaddrinfo EAI_FAIL"),
    "ENOTFOUND": CodeRule(None, "dns", None, "Node.js getaddrinfo ENOTFOUND (host may not exist)"),
    "EMFILE": CodeRule(None, "too_many_files", None, "too many open files"),
}
# Floor errno names are matched as plain substrings (A:floor); the others as whole words.
ERRNO_SUBSTRING: tuple[str, ...] = ("EACCES", "EPERM", "ECONNRESET", "ECONNREFUSED", "ETIMEDOUT", "EAI_AGAIN")
# socket.gaierror numbers (glibc netdb.h; what Python raises for getaddrinfo).
GAI_ERRNO: dict[int, str] = {
    -2: "EAI_NONAME",
    -3: "EAI_AGAIN",
    -4: "EAI_FAIL",
    -5: "EAI_NODATA",
    8: "EAI_NONAME",
}
GAI_CLASSES: tuple[str, ...] = ("gaierror",)
# Windows socket errors as printed by Python ("[WinError 10061] ...").
WINERROR: dict[int, str] = {
    5: "EACCES",
    10053: "ECONNABORTED",
    10054: "ECONNRESET",
    10060: "ETIMEDOUT",
    10061: "ECONNREFUSED",
    10065: "EHOSTUNREACH",
}

# ---------------------------------------------------------------------------------------------
# JSON-RPC 2.0 and MCP error codes.
# ---------------------------------------------------------------------------------------------

JSONRPC: dict[int, CodeRule] = {
    -32700: CodeRule(None, "parse_error", None, "JSON-RPC 2.0 parse error"),
    -32600: CodeRule(None, "invalid_request", None, "JSON-RPC 2.0 invalid request"),
    -32601: CodeRule(F, "unknown_tool", None, "JSON-RPC 2.0 method not found; A:wider"),
    -32602: CodeRule(F, "bad_arguments", None, "JSON-RPC 2.0 invalid params; A:wider"),
    -32603: CodeRule(None, "internal", None, "JSON-RPC 2.0 internal error (ambiguous unless words say more)"),
    -32000: CodeRule(None, "server_error", None, "JSON-RPC server error; MCP TS SDK ConnectionClosed"),
    -32001: CodeRule(T, "timeout", UO, "MCP TypeScript SDK ErrorCode.RequestTimeout"),
    -32002: CodeRule(None, "not_found", None, "MCP resource not found"),
}
JSONRPC_WORDS: tuple[int, ...] = (-32601, -32602)  # A:wider matches them as substrings

# ---------------------------------------------------------------------------------------------
# SQLSTATE (PostgreSQL appendix A; the class is the first two characters).
# ---------------------------------------------------------------------------------------------

SQLSTATE: dict[str, CodeRule] = {
    "40001": CodeRule(T, "db_conflict", NE, "serialization_failure (transaction rolled back)"),
    "40P01": CodeRule(T, "db_conflict", NE, "deadlock_detected (transaction rolled back)"),
    "55P03": CodeRule(T, "db_locked", NE, "lock_not_available"),
    "53300": CodeRule(T, "busy", NE, "too_many_connections"),
    "57P01": CodeRule(T, "unavailable", UO, "admin_shutdown"),
    "57P03": CodeRule(T, "unavailable", NE, "cannot_connect_now"),
    "08001": CodeRule(T, "connection", NE, "sqlclient_unable_to_establish_sqlconnection"),
    "08004": CodeRule(T, "connection", NE, "sqlserver_rejected_establishment_of_sqlconnection"),
    "42501": CodeRule(U, "permission", None, "insufficient_privilege"),
    "25006": CodeRule(U, "read_only", None, "read_only_sql_transaction"),
    "42601": CodeRule(F, "syntax", None, "syntax_error (the caller wrote the statement)"),
    "22012": CodeRule(None, "division_by_zero", None, "division_by_zero"),
    "23502": CodeRule(F, "bad_arguments", None, "not_null_violation (a required value is missing)"),
    "23514": CodeRule(F, "bad_arguments", None, "check_violation"),
    "23505": CodeRule(None, "conflict", None, "unique_violation (the row may already exist)"),
    "23503": CodeRule(None, "conflict", None, "foreign_key_violation"),
    "42P01": CodeRule(
        F, "undefined_name", None, "undefined_table (a name in the statement the caller wrote)"
    ),
    "42703": CodeRule(F, "undefined_name", None, "undefined_column (a name in the caller's statement)"),
    "42883": CodeRule(F, "undefined_name", None, "undefined_function (a name in the caller's statement)"),
    "3D000": CodeRule(U, "config", None, "invalid_catalog_name (the database does not exist)"),
    "57014": CodeRule(None, "command_timeout", None, "query_canceled (statement timeout stays ambiguous)"),
}
SQLSTATE_CLASSES: dict[str, CodeRule] = {
    "08": CodeRule(T, "connection", UO, "class 08 connection exception"),
    "22": CodeRule(F, "bad_arguments", None, "class 22 data exception (a value the caller sent)"),
    "28": CodeRule(U, "auth", None, "class 28 invalid authorization specification"),
    "40": CodeRule(T, "db_conflict", UO, "class 40 transaction rollback"),
}

# ---------------------------------------------------------------------------------------------
# AWS error codes (botocore ClientError response['Error']['Code'], botocore retry handlers).
# ---------------------------------------------------------------------------------------------

_AWS_THROTTLE = "botocore retryhandler/standard retry throttling codes"
AWS_ERROR_CODES: dict[str, CodeRule] = {
    "Throttling": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "ThrottlingException": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "ThrottledException": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "RequestThrottledException": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "RequestThrottled": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "TooManyRequestsException": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "ProvisionedThroughputExceededException": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "TransactionInProgressException": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "RequestLimitExceeded": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "BandwidthLimitExceeded": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "SlowDown": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "EC2ThrottledException": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "PriorRequestNotComplete": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "ServiceUnavailable": CodeRule(T, "unavailable", NE, "botocore transient codes"),
    "ServiceUnavailableException": CodeRule(T, "unavailable", NE, "botocore transient codes"),
    "ModelNotReadyException": CodeRule(T, "unavailable", NE, "Bedrock runtime"),
    "InternalError": CodeRule(T, "server_error", UO, "botocore transient codes"),
    "InternalFailure": CodeRule(T, "server_error", UO, "botocore transient codes"),
    "InternalServerError": CodeRule(T, "server_error", UO, "AWS APIs"),
    "InternalServerException": CodeRule(T, "server_error", UO, "AWS APIs"),
    "RequestTimeout": CodeRule(T, "timeout", UO, "botocore transient codes"),
    "RequestTimeoutException": CodeRule(T, "timeout", UO, "botocore transient codes"),
    "IDPCommunicationError": CodeRule(T, "network", UO, "botocore transient codes"),
    "AccessDenied": CodeRule(U, "permission", None, "AWS access denied"),
    "AccessDeniedException": CodeRule(U, "permission", None, "AWS access denied"),
    "UnauthorizedOperation": CodeRule(U, "permission", None, "EC2"),
    "UnauthorizedAccess": CodeRule(U, "permission", None, "AWS"),
    "NotAuthorized": CodeRule(U, "permission", None, "AWS"),
    "AuthFailure": CodeRule(U, "auth", None, "EC2"),
    "UnrecognizedClientException": CodeRule(U, "auth", None, "AWS invalid credentials"),
    "InvalidClientTokenId": CodeRule(U, "auth", None, "AWS invalid credentials"),
    "InvalidAccessKeyId": CodeRule(U, "auth", None, "S3 invalid credentials"),
    "SignatureDoesNotMatch": CodeRule(U, "auth", None, "AWS signature"),
    "ExpiredToken": CodeRule(U, "auth", None, "AWS expired credentials"),
    "ExpiredTokenException": CodeRule(U, "auth", None, "AWS expired credentials"),
    "MissingAuthenticationToken": CodeRule(U, "auth", None, "AWS"),
    "OptInRequired": CodeRule(U, "permission", None, "AWS account not subscribed"),
    "ValidationException": CodeRule(F, "validation", None, "AWS request validation"),
    "ValidationError": CodeRule(F, "validation", None, "AWS query APIs"),
    "InvalidParameterValue": CodeRule(F, "bad_arguments", None, "AWS"),
    "InvalidParameterValueException": CodeRule(F, "bad_arguments", None, "AWS"),
    "InvalidParameterException": CodeRule(F, "bad_arguments", None, "AWS"),
    "InvalidParameter": CodeRule(F, "bad_arguments", None, "AWS"),
    "InvalidParameterCombination": CodeRule(F, "bad_arguments", None, "AWS"),
    "MissingParameter": CodeRule(F, "bad_arguments", None, "AWS"),
    "NoSuchKey": CodeRule(None, "not_found", None, "S3", True),
    "NoSuchBucket": CodeRule(None, "not_found", None, "S3", True),
    "ResourceNotFoundException": CodeRule(
        None, "not_found", None, "AWS (sent with HTTP 400: the code wins)", True
    ),
    "AWS.SimpleQueueService.NonExistentQueue": CodeRule(None, "not_found", None, "SQS (HTTP 400)", True),
    "ConditionalCheckFailedException": CodeRule(
        None, "precondition", None, "DynamoDB (HTTP 400: the condition, not the request)", True
    ),
    "ItemCollectionSizeLimitExceededException": CodeRule(None, "quota", None, "DynamoDB (HTTP 400)", True),
    "TransactionConflictException": CodeRule(
        T, "db_conflict", NE, "DynamoDB (HTTP 400; the transaction was rejected)"
    ),
    "InvalidRange": CodeRule(F, "bad_arguments", None, "S3 (HTTP 416: the range the caller asked)"),
    "ServiceException": CodeRule(T, "server_error", UO, "Lambda (HTTP 500)"),
}

# ---------------------------------------------------------------------------------------------
# Error codes inside API error bodies (``error.code``, ``error.type``, Google ``status`` and
# ErrorInfo ``reason``) and the SDK attributes that carry them (openai ``exc.code`` /
# ``exc.type``, google-api-core ``exc.reason``). A specific code beats the HTTP status class.
# ---------------------------------------------------------------------------------------------

VENDOR_ERROR_CODES: dict[str, CodeRule] = {
    "insufficient_quota": CodeRule(U, "quota", None, "OpenAI 429 insufficient_quota"),
    "billing_hard_limit_reached": CodeRule(U, "quota", None, "OpenAI billing hard limit"),
    "billing_not_active": CodeRule(U, "quota", None, "OpenAI billing not active"),
    "invalid_api_key": CodeRule(U, "auth", None, "OpenAI 401"),
    "no_organization": CodeRule(U, "auth", None, "OpenAI 401 (no organisation)"),
    "organization_deactivated": CodeRule(U, "auth", None, "OpenAI organisation disabled"),
    "unsupported_country_region_territory": CodeRule(U, "region", None, "OpenAI 403"),
    "rate_limit_exceeded": CodeRule(T, "rate_limit", NE, "OpenAI 429 rate limit"),
    "context_length_exceeded": CodeRule(F, "too_large", None, "OpenAI 400"),
    "overloaded_error": CodeRule(T, "overloaded", NE, "Anthropic 529"),
    "rate_limit_error": CodeRule(T, "rate_limit", NE, "Anthropic 429"),
    "authentication_error": CodeRule(U, "auth", None, "Anthropic 401"),
    "permission_error": CodeRule(U, "permission", None, "Anthropic 403"),
    "request_too_large": CodeRule(F, "too_large", None, "Anthropic 413"),
    "not_found_error": CodeRule(None, "not_found", None, "Anthropic 404", True),
    "api_error": CodeRule(T, "server_error", UO, "Anthropic 500"),
    "API_KEY_INVALID": CodeRule(U, "auth", None, "Google ErrorInfo reason (sent with 400)"),
    "BILLING_DISABLED": CodeRule(U, "quota", None, "Google ErrorInfo reason (sent with 403)"),
    "SERVICE_DISABLED": CodeRule(U, "config", None, "Google ErrorInfo reason"),
    "ACCESS_TOKEN_EXPIRED": CodeRule(U, "auth", None, "Google ErrorInfo reason"),
}
# Response headers that say a 403/429 is a rate limit (GitHub: 403 with remaining 0).
RATE_LIMIT_REMAINING_HEADERS: tuple[str, ...] = ("x-ratelimit-remaining", "x-ratelimit-remaining-requests")
RATE_LIMIT_RULE = CodeRule(
    T, "rate_limit", NE, "x-ratelimit-remaining: 0 (GitHub sends its rate limit as 403)"
)
# Attributes that hold the parsed body (openai/anthropic ``exc.body``) or the response.
BODY_MAX_CHARS = 4096

# ---------------------------------------------------------------------------------------------
# Markers: texts that announce a structured code, parsed where they are found.
# ---------------------------------------------------------------------------------------------

_UNIT = r"(?P<unit>ms|milliseconds?|s\b|secs?\b|seconds?|m\b|mins?\b|minutes?)"
_NUM_SEP = r"[\"']?[ \t]*[:=#]?[ \t]*[\"']?"
MARKERS: tuple[Marker, ...] = (
    Marker(
        "error responses",
        "http",
        r"too many (?P<code>[1-5]\d\d) error responses",
        len("too many 429 "),
        "urllib3 ResponseError in MaxRetryError ('too many 429 error responses')",
    ),
    Marker(
        "HTTP",
        "http",
        r"HTTP(?:/\d(?:\.\d)?)?[ \t]*(?:[Ee]rror|[Ss]tatus(?:[ _-]?[Cc]ode)?|[Cc]ode)?"
        r"[ \t:=#]*(?P<code>[1-5]\d\d)\b",
        0,
        "urllib 'HTTP Error 503', 'HTTP 429', 'HTTP/1.1 502', 'HTTPError: 404'",
    ),
    Marker(
        "tatus",
        "http",
        r"[Ss]tatus(?:[ _-]?[Cc]ode)?" + _NUM_SEP + r"(?P<code>[1-5]\d\d)\b",
        1,
        "'status code 502', 'status_code=503', '\"status\": 503', 'statusCode: 429'",
    ),
    Marker(
        "tatus",
        "grpc",
        r"[Ss]tatus[\"']?[ \t]*[:=][ \t]*[\"']?(?P<code>[A-Z][A-Z_]{3,})\b",
        1,
        'Google JSON errors \'"status": "RESOURCE_EXHAUSTED"\'',
    ),
    Marker(
        "rror code",
        "http",
        r"[Ee]rror[ _]code" + _NUM_SEP + r"(?P<code>[1-5]\d\d)\b",
        1,
        "openai/anthropic 'Error code: 429 - {...}'",
    ),
    Marker(
        "rror code",
        "jsonrpc",
        r"[Ee]rror[ _]code" + _NUM_SEP + r"(?P<code>-32\d\d\d)\b",
        1,
        "JSON-RPC 'error code -32602'",
    ),
    Marker(
        'code"', "http", r"code\"[ \t]*:[ \t]*(?P<code>[1-5]\d\d)\b", 0, "JSON error bodies '\"code\": 429'"
    ),
    Marker(
        "code'", "http", r"code'[ \t]*:[ \t]*(?P<code>[1-5]\d\d)\b", 0, "Python dict reprs \"'code': 429\""
    ),
    Marker('code"', "jsonrpc", r"code\"[ \t]*:[ \t]*(?P<code>-32\d\d\d)\b", 0, "JSON-RPC error objects"),
    Marker(
        "code'",
        "jsonrpc",
        r"code'[ \t]*:[ \t]*(?P<code>-32\d\d\d)\b",
        0,
        "JSON-RPC error objects (dict repr)",
    ),
    Marker(
        "Client Error",
        "http",
        r"(?P<code>4\d\d) Client Error",
        4,
        "requests raise_for_status '404 Client Error: ...'",
    ),
    Marker(
        "Server Error",
        "http",
        r"(?P<code>5\d\d) Server Error",
        4,
        "requests raise_for_status '503 Server Error: ...'",
    ),
    Marker("lient error '", "http", r"[Cc]lient error '(?P<code>4\d\d)", 1, "httpx raise_for_status"),
    Marker("erver error '", "http", r"[Ss]erver error '(?P<code>5\d\d)", 1, "httpx raise_for_status"),
    Marker("StatusCode.", "grpc", r"StatusCode\.(?P<code>[A-Z_]+)", 0, "grpc Python StatusCode enum"),
    Marker(
        "code = ",
        "grpc",
        r"code = (?P<code>[A-Za-z_]+)",
        0,
        "grpc-go 'rpc error: code = Unavailable desc = ...'",
    ),
    Marker("MCP error ", "jsonrpc", r"MCP error (?P<code>-32\d\d\d)\b", 0, "MCP TypeScript SDK McpError"),
    Marker(
        "SQLSTATE",
        "sqlstate",
        r"SQLSTATE[ \t\[:=\"']*(?P<code>[0-9A-Z]{5})\b",
        0,
        "'SQLSTATE 40001', 'SQLSTATE[40001]'",
    ),
    Marker(
        "sqlstate",
        "sqlstate",
        r"sqlstate[\"']?[ \t]*[:=][ \t]*[\"']?(?P<code>[0-9A-Z]{5})\b",
        0,
        "'sqlstate: 40P01'",
    ),
    Marker("[Errno ", "errno_number", r"\[Errno (?P<code>-?\d+)\]", 0, "Python OSError string form"),
    Marker("[WinError ", "winerror", r"\[WinError (?P<code>\d+)\]", 0, "Python OSError on Windows"),
    Marker(
        "An error occurred (",
        "aws",
        r"An error occurred \((?P<code>\w+)\)",
        0,
        "botocore ClientError message",
    ),
    # Retry-After, in seconds unless a unit says otherwise; group ``code`` is the number.
    Marker(
        "etry-after",
        "retry_after",
        r"[Rr]etry-[Aa]fter(?P<ms>-[Mm]s)?[\"']?[ \t]*[:=]?[ \t]*[\"']?(?P<code>\d+(?:\.\d+)?)",
        1,
        "Retry-After / retry-after-ms headers",
    ),
    Marker(
        "etry-After",
        "retry_after",
        r"[Rr]etry-After(?P<ms>-[Mm]s)?[\"']?[ \t]*[:=]?[ \t]*[\"']?(?P<code>\d+(?:\.\d+)?)",
        1,
        "Retry-After header",
    ),
    Marker(
        "etry after",
        "retry_after",
        r"[Rr]etry after[ \t:]*(?P<code>\d+(?:\.\d+)?)[ \t]*" + _UNIT + "?",
        1,
        "'retry after 3s'",
    ),
    Marker(
        "etry_after",
        "retry_after",
        r"[Rr]etry_after[\"']?[ \t]*[:=][ \t]*(?P<code>\d+(?:\.\d+)?)",
        1,
        "'retry_after': 3 (Slack, Telegram, Discord bodies)",
    ),
    Marker(
        "etryAfter",
        "retry_after",
        r"[Rr]etryAfter[\"']?[ \t]*[:=][ \t]*(?P<code>\d+(?:\.\d+)?)",
        1,
        "'retryAfter': 3 (JavaScript API bodies)",
    ),
    Marker(
        "ry again in ",
        "retry_after",
        r"[Tt]ry again in (?P<code>\d+(?:\.\d+)?)[ \t]*"
        r"(?P<unit>ms|milliseconds?|s\b|secs?\b|seconds?|m(?=\d)|m\b|mins?\b|minutes?)"
        r"(?:(?P<code2>\d+(?:\.\d+)?)s)?",
        1,
        "OpenAI 'Please try again in 1.5s' / 'in 6ms' / 'in 1m30s'",
    ),
    Marker(
        "etry in ",
        "retry_after",
        r"[Rr]etry in (?P<code>\d+(?:\.\d+)?)[ \t]*" + _UNIT,
        1,
        "'retry in 20 seconds'",
    ),
)
RETRY_UNITS: dict[str, float] = {
    "": 1.0,
    "s": 1.0,
    "sec": 1.0,
    "secs": 1.0,
    "second": 1.0,
    "seconds": 1.0,
    "ms": 0.001,
    "millisecond": 0.001,
    "milliseconds": 0.001,
    "m": 60.0,
    "min": 60.0,
    "mins": 60.0,
    "minute": 60.0,
    "minutes": 60.0,
}

# A status at the very start of the message ("Error: 503 Service Unavailable", "429 Too Many
# Requests"): an optional exception or Error prefix, the number, then a capitalised reason or
# punctuation. Numbers elsewhere in prose are never read as a status.
START_STATUS = (
    r"(?:[\w.]{0,120}(?:Error|Exception|error|ERROR)[ \t]*:[ \t]*)?(?:HTTP[ \t]*)?(?P<code>[45]\d\d)"
    r"(?=[ \t]*(?:[A-Z][a-z]|[:\-(]|\Z|\n)"
    # google-api-core: "429 GET https://...: message", "503 backend unavailable"
    r"|[ \t]+(?:GET|POST|PUT|PATCH|DELETE|HEAD) |[ \t]+[a-z]+[ \t][a-z])"
)
# An exception name at the start of the message or of a line of a Python trace.
EXCEPTION_NAME = r"(?P<name>(?:[A-Za-z_]\w{0,80}\.){0,8}[A-Za-z_]\w{0,120})(?=[:(]|\Z)"
# The Error prefix in front of an exception name ("Error: ValueError('boom')").
ERROR_PREFIX = r"(?:Error|ERROR|error)[ \t]*:[ \t]*"
# Parts of an error text that echo the caller's input; words inside them are not read.
# (literal that must be present, regular expression of the span)
ECHO_PATTERNS: tuple[tuple[str, str], ...] = (
    ("input_value=", r"input_value=.*?(?=, input_type=|\]|$)"),  # pydantic v2 error lines
)
# Python traces: lines that belong to a frame (indented) or to the trace machinery.
TRACEBACK_START = "Traceback (most recent call last):"
TRACEBACK_SKIP_LINES: tuple[str, ...] = (
    "Traceback (most recent call last):",
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
)

# ---------------------------------------------------------------------------------------------
# Exception classes. Found by ``__qualname__`` inside a module prefix, walking the MRO from the
# most specific class. Classes not listed (ValueError, TypeError, OSError, HTTPStatusError,
# APIStatusError, ClientError ...) are read through their attributes and message.
# ---------------------------------------------------------------------------------------------

_B = "builtins"
EXCEPTIONS: tuple[ExceptionRule, ...] = (
    # Python builtins
    ExceptionRule(_B, "TimeoutError", T, "timeout", UO, source="Python TimeoutError (socket.timeout)"),
    ExceptionRule(_B, "ConnectionRefusedError", T, "connection_refused", NE, source="Python ECONNREFUSED"),
    ExceptionRule(_B, "ConnectionResetError", T, "connection_reset", UO, source="Python ECONNRESET"),
    ExceptionRule(_B, "ConnectionAbortedError", T, "connection", UO, source="Python ECONNABORTED"),
    ExceptionRule(_B, "BrokenPipeError", T, "connection", UO, source="Python EPIPE"),
    ExceptionRule(_B, "ConnectionError", T, "connection", None, source="Python ConnectionError"),
    ExceptionRule(_B, "PermissionError", U, "permission", None, source="Python EACCES/EPERM"),
    ExceptionRule(_B, "FileNotFoundError", None, "not_found", None, True, "A:ambiguous (missing files)"),
    ExceptionRule(
        _B, "NotADirectoryError", F, "not_a_directory", None, False, "Python ENOTDIR (a path the caller gave)"
    ),
    ExceptionRule(
        _B, "IsADirectoryError", F, "is_directory", None, False, "Python EISDIR (a path the caller gave)"
    ),
    ExceptionRule(_B, "FileExistsError", None, "exists", None, True, "Python EEXIST"),
    ExceptionRule(_B, "KeyError", None, "KeyError", None, True, "a bug inside the tool"),
    ExceptionRule(_B, "IndexError", None, "IndexError", None, True, "a bug inside the tool"),
    ExceptionRule(_B, "AttributeError", None, "AttributeError", None, True, "a bug inside the tool"),
    ExceptionRule(_B, "NameError", None, "NameError", None, True, "a bug inside the tool"),
    ExceptionRule(_B, "ZeroDivisionError", None, "ZeroDivisionError", None, True, "a bug inside the tool"),
    ExceptionRule(_B, "AssertionError", None, "AssertionError", None, True, "a bug inside the tool"),
    ExceptionRule(_B, "RecursionError", None, "RecursionError", None, True, "a bug inside the tool"),
    ExceptionRule(_B, "NotImplementedError", None, "not_implemented", None, True, "a bug inside the tool"),
    ExceptionRule(_B, "MemoryError", None, "MemoryError", None, True, "resource exhaustion inside the tool"),
    ExceptionRule("asyncio", "TimeoutError", T, "timeout", UO, source="asyncio.TimeoutError (Python 3.10)"),
    # toolerr-mcp's proxy: its upstream server cannot start (a configuration failure)
    ExceptionRule("toolerr_mcp", "UpstreamUnavailable", U, "server_start", None, True, "toolerr-mcp proxy"),
    ExceptionRule("asyncio", "CancelledError", None, "cancelled", None, True, "asyncio cancellation"),
    ExceptionRule("concurrent.futures", "TimeoutError", T, "timeout", UO, source="concurrent.futures (3.10)"),
    ExceptionRule(
        "subprocess", "TimeoutExpired", None, "command_timeout", None, True, "A:ambiguous command timeout"
    ),
    ExceptionRule(
        "subprocess", "CalledProcessError", None, "exit_code", None, True, "A:ambiguous non-zero exit"
    ),
    ExceptionRule("json", "JSONDecodeError", None, "json", None, False, "json.decoder (the words decide)"),
    # httpx (classes report __module__ == "httpx")
    ExceptionRule("httpx", "ConnectTimeout", T, "timeout", NE, source="httpx: never connected"),
    ExceptionRule("httpx", "PoolTimeout", T, "timeout", NE, source="httpx: no connection from the pool"),
    ExceptionRule("httpx", "ReadTimeout", T, "timeout", UO, source="httpx"),
    ExceptionRule("httpx", "WriteTimeout", T, "timeout", UO, source="httpx"),
    ExceptionRule("httpx", "TimeoutException", T, "timeout", UO, source="httpx"),
    ExceptionRule("httpx", "ConnectError", T, "connection", NE, source="httpx: connection not established"),
    ExceptionRule("httpx", "ReadError", T, "connection", UO, source="httpx"),
    ExceptionRule("httpx", "WriteError", T, "connection", UO, source="httpx"),
    ExceptionRule("httpx", "RemoteProtocolError", T, "connection", UO, source="httpx (server disconnected)"),
    ExceptionRule("httpx", "NetworkError", T, "network", UO, source="httpx"),
    ExceptionRule("httpx", "UnsupportedProtocol", F, "bad_url", None, False, "httpx"),
    ExceptionRule("httpx", "InvalidURL", F, "bad_url", None, False, "httpx"),
    # requests (classes live in requests.exceptions)
    ExceptionRule("requests", "ConnectTimeout", T, "timeout", NE, source="requests: never connected"),
    ExceptionRule("requests", "ReadTimeout", T, "timeout", UO, source="requests"),
    ExceptionRule("requests", "Timeout", T, "timeout", UO, source="requests"),
    ExceptionRule(
        "requests", "SSLError", None, "tls", None, True, "requests (certificate problems do not go away)"
    ),
    ExceptionRule("requests", "ProxyError", None, "proxy", None, False, "requests"),
    ExceptionRule("requests", "ChunkedEncodingError", T, "connection", UO, source="requests"),
    ExceptionRule("requests", "RetryError", T, "network", UO, source="requests (urllib3 Retry exhausted)"),
    ExceptionRule(
        "requests", "ConnectionError", T, "connection", None, source="requests (outcome from the cause)"
    ),
    ExceptionRule("requests", "InvalidURL", F, "bad_url", None, False, "requests"),
    ExceptionRule("requests", "MissingSchema", F, "bad_url", None, False, "requests"),
    # urllib3
    ExceptionRule("urllib3", "ConnectTimeoutError", T, "timeout", NE, source="urllib3"),
    ExceptionRule(
        "urllib3", "NewConnectionError", T, "connection", NE, source="urllib3 (connection not established)"
    ),
    ExceptionRule(
        "urllib3", "NameResolutionError", T, "dns", NE, False, "urllib3 (DNS: the request was never sent)"
    ),
    ExceptionRule("urllib3", "LocationParseError", F, "bad_url", None, False, "urllib3 URL parsing"),
    ExceptionRule(
        "requests", "InvalidSchema", F, "bad_url", None, False, "requests (no adapter for the scheme)"
    ),
    ExceptionRule("aiohttp", "NonHttpUrlClientError", F, "bad_url", None, False, "aiohttp (not an http URL)"),
    ExceptionRule("aiohttp", "ClientConnectorDNSError", T, "dns", NE, False, "aiohttp 3.10+ DNS failure"),
    ExceptionRule("re", "error", F, "bad_arguments", None, False, "re.error (a pattern the caller wrote)"),
    ExceptionRule("re", "PatternError", F, "bad_arguments", None, False, "re.PatternError (3.13)"),
    ExceptionRule(
        "zoneinfo", "ZoneInfoNotFoundError", F, "bad_arguments", None, False, "zoneinfo (a KeyError)"
    ),
    ExceptionRule(
        "socket", "gaierror", T, "dns", NE, False, "getaddrinfo failure: the request was never sent"
    ),
    ExceptionRule("urllib3", "ReadTimeoutError", T, "timeout", UO, source="urllib3"),
    ExceptionRule("urllib3", "ProtocolError", T, "connection", UO, source="urllib3 ('Connection aborted.')"),
    ExceptionRule(
        "urllib3", "ResponseError", T, "server_error", UO, source="urllib3 'too many error responses'"
    ),
    ExceptionRule("urllib3", "TimeoutError", T, "timeout", UO, source="urllib3"),
    ExceptionRule("urllib3", "SSLError", None, "tls", None, True, "urllib3"),
    ExceptionRule("urllib3", "MaxRetryError", None, "network", None, False, "urllib3 (read .reason)"),
    # aiohttp (classes live in aiohttp.client_exceptions)
    ExceptionRule("aiohttp", "ClientConnectorCertificateError", None, "tls", None, True, "aiohttp"),
    ExceptionRule("aiohttp", "ClientSSLError", None, "tls", None, True, "aiohttp"),
    ExceptionRule(
        "aiohttp", "ClientConnectorDNSError", None, "dns", NE, False, "aiohttp (the message decides)"
    ),
    ExceptionRule("aiohttp", "ClientConnectorError", T, "connection", NE, source="aiohttp: cannot connect"),
    ExceptionRule("aiohttp", "ConnectionTimeoutError", T, "timeout", NE, source="aiohttp 3.10"),
    ExceptionRule("aiohttp", "SocketTimeoutError", T, "timeout", UO, source="aiohttp 3.10"),
    ExceptionRule("aiohttp", "ServerTimeoutError", T, "timeout", UO, source="aiohttp"),
    ExceptionRule("aiohttp", "ServerDisconnectedError", T, "connection", UO, source="aiohttp"),
    ExceptionRule("aiohttp", "ClientPayloadError", T, "connection", UO, source="aiohttp"),
    ExceptionRule("aiohttp", "ClientOSError", T, "connection", UO, source="aiohttp"),
    ExceptionRule("aiohttp", "InvalidURL", F, "bad_url", None, False, "aiohttp"),
    # openai / anthropic SDKs (classes report __module__ "openai" / "anthropic")
    *(
        rule
        for sdk in ("openai", "anthropic")
        for rule in (
            ExceptionRule(
                sdk, "RateLimitError", T, "rate_limit", NE, source=f"{sdk} 429 (quota traps override)"
            ),
            ExceptionRule(sdk, "APITimeoutError", T, "timeout", UO, source=sdk),
            ExceptionRule(sdk, "APIConnectionError", T, "connection", UO, source=sdk),
            # any status >= 500: the status decides the outcome (503 was turned away)
            ExceptionRule(sdk, "InternalServerError", T, "server_error", None, source=f"{sdk} >= 500"),
            ExceptionRule(sdk, "ServiceUnavailableError", T, "unavailable", NE, source=f"{sdk} 503"),
            ExceptionRule(sdk, "OverloadedError", T, "overloaded", NE, source=f"{sdk} 529"),
            ExceptionRule(sdk, "DeadlineExceededError", T, "timeout", UO, source=f"{sdk} 504"),
            ExceptionRule(sdk, "AuthenticationError", U, "auth", None, source=f"{sdk} 401"),
            ExceptionRule(sdk, "PermissionDeniedError", U, "permission", None, source=f"{sdk} 403"),
            ExceptionRule(sdk, "BadRequestError", F, "bad_request", None, source=f"{sdk} 400"),
            ExceptionRule(sdk, "UnprocessableEntityError", F, "validation", None, source=f"{sdk} 422"),
            ExceptionRule(sdk, "NotFoundError", None, "not_found", None, True, f"{sdk} 404"),
            ExceptionRule(sdk, "ConflictError", None, "conflict", None, False, f"{sdk} 409"),
        )
    ),
    # botocore (ClientError: read response['Error']['Code'])
    ExceptionRule("botocore", "ConnectTimeoutError", T, "timeout", NE, source="botocore"),
    ExceptionRule("botocore", "EndpointConnectionError", T, "connection", NE, source="botocore"),
    ExceptionRule("botocore", "ReadTimeoutError", T, "timeout", UO, source="botocore"),
    ExceptionRule("botocore", "ConnectionClosedError", T, "connection", UO, source="botocore"),
    ExceptionRule("botocore", "NoCredentialsError", U, "auth", None, source="botocore"),
    ExceptionRule("botocore", "PartialCredentialsError", U, "auth", None, source="botocore"),
    ExceptionRule("botocore", "NoRegionError", U, "config", None, source="botocore"),
    ExceptionRule("botocore", "ParamValidationError", F, "validation", None, source="botocore"),
    # google-api-core
    ExceptionRule("google.api_core", "TooManyRequests", T, "rate_limit", NE, source="google.api_core 429"),
    ExceptionRule("google.api_core", "ResourceExhausted", T, "rate_limit", NE, source="google.api_core 429"),
    ExceptionRule(
        "google.api_core", "ServiceUnavailable", T, "unavailable", NE, source="google.api_core 503"
    ),
    ExceptionRule("google.api_core", "DeadlineExceeded", T, "timeout", UO, source="google.api_core 504"),
    ExceptionRule("google.api_core", "GatewayTimeout", T, "timeout", UO, source="google.api_core 504"),
    ExceptionRule(
        "google.api_core", "InternalServerError", T, "server_error", UO, source="google.api_core 500"
    ),
    ExceptionRule("google.api_core", "BadGateway", T, "bad_gateway", UO, source="google.api_core 502"),
    ExceptionRule("google.api_core", "Aborted", T, "db_conflict", UO, source="google.api_core ABORTED"),
    ExceptionRule("google.api_core", "RetryError", T, "timeout", UO, source="google.api_core retry deadline"),
    ExceptionRule("google.api_core", "Unauthorized", U, "auth", None, source="google.api_core 401"),
    ExceptionRule("google.api_core", "Unauthenticated", U, "auth", None, source="google.api_core 401"),
    ExceptionRule("google.api_core", "Forbidden", U, "permission", None, source="google.api_core 403"),
    ExceptionRule("google.api_core", "PermissionDenied", U, "permission", None, source="google.api_core 403"),
    ExceptionRule("google.api_core", "BadRequest", F, "bad_request", None, source="google.api_core 400"),
    ExceptionRule(
        "google.api_core", "InvalidArgument", F, "bad_arguments", None, source="google.api_core 400"
    ),
    ExceptionRule("google.api_core", "NotFound", None, "not_found", None, True, "google.api_core 404"),
    ExceptionRule("google.auth", "DefaultCredentialsError", U, "auth", None, source="google.auth"),
    # validation libraries
    ExceptionRule(
        "pydantic_core",
        "ValidationError",
        F,
        "validation",
        None,
        source="pydantic v2 (pydantic_core._pydantic_core)",
    ),
    ExceptionRule("pydantic", "ValidationError", F, "validation", None, source="pydantic v1"),
    ExceptionRule("jsonschema", "ValidationError", F, "validation", None, source="jsonschema.exceptions"),
    ExceptionRule(
        "langgraph",
        "ToolInvocationError",
        F,
        "validation",
        None,
        source="langgraph ToolNode argument validation",
    ),
    # databases
    ExceptionRule("psycopg", "SerializationFailure", T, "db_conflict", NE, source="psycopg 40001"),
    ExceptionRule("psycopg", "DeadlockDetected", T, "db_conflict", NE, source="psycopg 40P01"),
    ExceptionRule("psycopg", "LockNotAvailable", T, "db_locked", NE, source="psycopg 55P03"),
    ExceptionRule("psycopg", "InsufficientPrivilege", U, "permission", None, source="psycopg 42501"),
    ExceptionRule(
        "psycopg", "QueryCanceled", None, "command_timeout", None, True, "psycopg 57014 statement timeout"
    ),
    ExceptionRule("psycopg2", "SerializationFailure", T, "db_conflict", NE, source="psycopg2 40001"),
    ExceptionRule("psycopg2", "DeadlockDetected", T, "db_conflict", NE, source="psycopg2 40P01"),
    ExceptionRule("psycopg2", "TransactionRollbackError", T, "db_conflict", NE, source="psycopg2 class 40"),
    ExceptionRule("psycopg2", "InsufficientPrivilege", U, "permission", None, source="psycopg2 42501"),
    ExceptionRule("psycopg2", "QueryCanceledError", None, "command_timeout", None, True, "psycopg2 57014"),
    ExceptionRule("asyncpg", "SerializationError", T, "db_conflict", NE, source="asyncpg 40001"),
    ExceptionRule("asyncpg", "DeadlockDetectedError", T, "db_conflict", NE, source="asyncpg 40P01"),
    ExceptionRule("asyncpg", "InsufficientPrivilegeError", U, "permission", None, source="asyncpg 42501"),
)

# Exception attributes read for structured codes (besides the MRO).
STATUS_ATTRIBUTES: tuple[str, ...] = ("status_code", "status", "http_status", "code")
SQLSTATE_ATTRIBUTES: tuple[str, ...] = ("sqlstate", "pgcode")
CHAIN_ATTRIBUTES: tuple[str, ...] = ("__cause__", "__context__", "reason", "last_attempt_exception")
RETRY_AFTER_HEADERS: tuple[tuple[str, float], ...] = (
    ("retry-after-ms", 0.001),  # OpenAI SDK
    ("Retry-After-Ms", 0.001),
    ("retry-after", 1.0),  # RFC 9110 10.2.3
    ("Retry-After", 1.0),
    ("x-ratelimit-reset-after", 1.0),
)
# Modules whose exceptions expose ``code()`` as a method returning a gRPC StatusCode.
GRPC_CALLABLE_CODE_PREFIXES: tuple[str, ...] = ("grpc",)
