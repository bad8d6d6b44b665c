"""What detection reads before any rule: client names, the generic start texts of a failed
result and the keys of JSON results."""

from __future__ import annotations

# ---------------------------------------------------------------------------------------------
# Client names (DELIVERY.md section 3; appendix A identifies coding agents by User-Agent).
# ---------------------------------------------------------------------------------------------

CODING_AGENTS: tuple[str, ...] = ("qwen-code", "codex", "kilo-code", "opencode", "cline")
FRAMEWORK_CLIENTS: tuple[str, ...] = (
    "generic",
    "langchain",
    "openai-agents",
    "mcp",
    # agent frameworks whose failure texts are templates (issue 24 item 3)
    "dspy",
    "haystack",
    "semantic-kernel",
    "crewai",
    "smolagents",
    "google-adk",
)

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
    "haystack-ai": "haystack",
    "sk": "semantic-kernel",
    "crew-ai": "crewai",
    "adk": "google-adk",
    "google-adk-python": "google-adk",
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
