"""The clients' own text forms of a failed call: templates and shell-command formats."""

from __future__ import annotations

from ._base import F, ShellFormat, Template, U

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
    # --- Agent frameworks' own failure texts (issue 24 item 3). Each text was produced live by
    # the framework's agent loop (shared_core/tests/framework_texts/capture_<fw>.py, the
    # committed texts in framework_texts/data/<fw>.jsonl). The long fixed prefixes are
    # recognised for every client; the text after them is the exception's own.
    Template(
        "langchain:tool-retry",
        ("*",),
        r"Tool '[^'\n]*' failed after \d+ attempts? with ",
        None,
        None,
        False,
        True,
        "langchain 1.5.2 langchain/agents/middleware/tool_retry.py "
        "ToolRetryMiddleware._format_failure_message (on_failure='continue'): \"Tool '{tool_name}' "
        'failed after {attempts_made} {attempt_word} with {type(exc).__name__}: {exc}. Please try again."',
        error=True,
        ends=". Please try again.",
    ),
    Template(
        "dspy:execution-error",
        ("*",),
        r"Execution error in [^\s:]+: ",
        None,
        None,
        False,
        True,
        "dspy 3.4.1 dspy/predict/react.py ReAct.forward (and react_v2.py ReActV2): "
        'f"Execution error in {tool}: {format_error_for_lm(err, traceback_frames=5)}" (a newline '
        "and the last 5 frames of the traceback, ending with the exception line)",
        error=True,
    ),
    Template(
        "haystack:tool-invocation",
        ("*",),
        r"Failed to invoke Tool `[^`\n]*` with parameters .*?\. Error: ",
        None,
        None,
        False,
        True,
        "haystack-ai 3.4.1 haystack/tools/tool.py Tool.invoke ToolInvocationError "
        'f"Failed to invoke Tool `{name}` with parameters {kwargs}. Error: {e}", sent as the tool '
        "message by haystack/components/agents/tool_calling.py (raise_on_tool_invocation_failure=False); "
        "the parameters echo the model's arguments and are not read",
        error=True,
    ),
    Template(
        "google-adk:reflect-retry",
        # every client but ADK's own plugin: inside ADK the reflection is ADK's answer to
        # the error (the first plugin that answers wins), and toolerr's plugin passes it
        (
            "generic",
            "langchain",
            "openai-agents",
            "mcp",
            "dspy",
            "haystack",
            "semantic-kernel",
            "crewai",
            "smolagents",
        ),
        r'\{\s*"response_type":\s*"ERROR_HANDLED_BY_REFLECT_AND_RETRY_PLUGIN",\s*"error_type":\s*',
        None,
        None,
        False,
        True,
        "google-adk 2.13.0 google/adk/plugins/reflect_retry_tool_plugin.py ToolFailureResponse "
        "(response_type REFLECT_AND_RETRY_RESPONSE_TYPE, error_type, error_details, retry_count, "
        "reflection_guidance) as JSON text; the guidance after the error is fixed text",
        error=True,
    ),
    Template(
        "semantic-kernel:function-error",
        ("*",),
        r"An error occurred while invoking the function [^\s:]+: ",
        None,
        None,
        False,
        True,
        "semantic-kernel 1.45.0 semantic_kernel/kernel.py Kernel._inner_auto_function_invoke_handler "
        'f"An error occurred while invoking the function {function.fully_qualified_name}: {exc}" '
        "(the function result of an auto-invoked kernel function that raised)",
        error=True,
    ),
    Template(
        "crewai:tool-usage-exception",
        ("*",),
        r"I encountered an error while trying to use the tool\. This was the error: ",
        None,
        None,
        False,
        True,
        'crewai 1.15.30 crewai/translations/en.json errors.tool_usage_exception "I encountered an '
        "error while trying to use the tool. This was the error: {error}.\\n Tool {tool} accepts these "
        'inputs: {tool_inputs}", the ReAct observation built in crewai/tools/tool_usage.py '
        "(ToolUsage._use); the tool's description and the format reminder follow the error",
        error=True,
    ),
    # smolagents 1.26.0 smolagents/memory.py ActionStep.to_messages frames a step's error as
    # "Error:\n{error}\nNow let's retry: ...\n" (after "Call id: {id}\n" when the step has one).
    Template(
        "smolagents:tool-error",
        ("*",),
        r"(?:Call id: \S+\n)?Error:\nError executing tool '[^'\n]*' with arguments .*?: "
        r"(?=(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*: )",
        None,
        None,
        False,
        True,
        "smolagents 1.26.0 smolagents/agents.py ToolCallingAgent.execute_tool_call "
        "AgentToolExecutionError f\"Error executing tool '{tool_name}' with arguments {arguments}: "
        "{type(e).__name__}: {e}\\nPlease try again or use another tool\" in the memory's error frame; "
        "the arguments echo the model's and are not read",
        error=True,
        ends="\nPlease try again or use another tool\nNow let's retry: take care not to repeat previous "
        "errors! If you have retried several times, try a completely different approach.",
    ),
    Template(
        "smolagents:code-error",
        ("*",),
        r"(?:Call id: \S+\n)?Error:\nCode execution failed at line '.*?' due to: ",
        None,
        None,
        False,
        True,
        "smolagents 1.26.0 smolagents/local_python_executor.py evaluate_python_code InterpreterError "
        "f\"Code execution failed at line '{source}' due to: {type(e).__name__}: {e}\" (CodeAgent) in "
        "the memory's error frame; the code line is the model's and is not read",
        error=True,
        ends="\nNow let's retry: take care not to repeat previous errors! If you have retried several "
        "times, try a completely different approach.",
    ),
    Template(
        "smolagents:step-error",
        ("*",),
        r"(?:Call id: \S+\n)?Error:\n",
        None,
        None,
        False,
        True,
        "smolagents 1.26.0 smolagents/memory.py ActionStep.to_messages: any other step error "
        "(a tool-call or parsing error) in the same frame",
        error=True,
        ends="\nNow let's retry: take care not to repeat previous errors! If you have retried several "
        "times, try a completely different approach.",
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
