"""Detection: is a tool result a failure, and which rule says so?

Evidence, strongest first (the contract's "Detection"): the exception object; explicit flags
(``is_error``, MCP ``isError`` inside a JSON object, Cline ``success: false``, OpenCode
``tool.execution``); the client's own templates, including the coding agents' shell-output
formats (inside which the program's own output is never read as error words); the generic
start texts; a JSON object whose ``error`` field is an object or a non-empty string.

Cost: a result is looked at through its first :data:`~toolerr._rules.WINDOW_CHARS` characters
(and its last :data:`~toolerr._rules.TAIL_CHARS` for shell formats). JSON is parsed only for
results under :data:`~toolerr._rules.MAX_JSON_CHARS` characters that contain one of the keys.
Nothing here raises on any content.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from . import _rules as R
from ._exception_names import lookup_name
from ._failopen import log_swallowed
from ._scanner import first_chars as _first_chars  # noqa: F401 - importable from here too
from ._templates import SHELLS_BY_CLIENT as _SHELLS_BY_CLIENT
from ._templates import TEMPLATE_PICKERS as _TEMPLATE_PICKERS
from ._templates import TEMPLATES as _TEMPLATES
from ._templates import CompiledShell as _CompiledShell
from ._types import content_text, result_text

__all__ = ["Detection", "analyse", "coerce_flag", "detect_failure", "normalise_client"]

_LEAD = re.compile(r"\s*")
_GENERIC_START = re.compile("|".join(f"(?:{pattern})" for _, pattern, _ in R.GENERIC_STARTS))
_EMPTY_AFTER_ERROR = re.compile(
    r"(?:Error|ERROR|error)[ \t]*:[ \t]*(?:"
    + "|".join(re.escape(v) for v in R.EMPTY_ERROR_VALUES if v)
    + r")\s*\Z"
)
_KNOWN_EXCEPTION = re.compile(r"(?P<name>(?:[A-Za-z_]\w{0,80}\.){0,8}[A-Za-z_]\w{0,120})[:(]")
_JSON_ERROR_PREFIX = re.compile(r"\{\s*\"error\"\s*:\s*(?:\{|\[\s*[^\]\s]|true\b|\"\s*[^\"\s])")
_JSON_MCP_FLAG = re.compile(r"\"(?:isError|is_error)\"\s*:\s*true\b")
_PROBE_CHARS = 65_536
_JSON_SPACE = " \t\n\r"  # the whitespace JSON allows around a value
_TRUE_WORDS = frozenset({"true", "1", "yes", "error", "failed", "failure"})
_FALSE_WORDS = frozenset({"false", "0", "no", "", "none", "null", "ok", "success"})


def normalise_client(client: str | None) -> str:
    """A known client name; unknown names (and None) are ``generic``."""
    if client is None:
        return "generic"
    if not isinstance(client, str):
        raise TypeError(f"client must be a str or None, not {type(client).__name__}")
    name = client.strip().lower().replace("_", "-").replace(" ", "-")
    if name in R.CODING_AGENTS or name in R.FRAMEWORK_CLIENTS:
        return name
    name = R.CLIENT_ALIASES.get(name, name)
    if name in R.CODING_AGENTS or name in R.FRAMEWORK_CLIENTS:
        return name
    product = name.split("/", 1)[0]  # a User-Agent: "QwenCode/0.1.2 (linux)"
    product = R.CLIENT_ALIASES.get(product, product)
    if product in R.CODING_AGENTS or product in R.FRAMEWORK_CLIENTS:
        return product
    return "generic"


def coerce_flag(is_error: Any) -> bool | None:
    """An explicit error flag as a bool; ``None`` when absent or unreadable."""
    if is_error is None or isinstance(is_error, bool):
        return is_error
    if isinstance(is_error, str):
        word = is_error.strip().lower()
        if word in _TRUE_WORDS:
            return True
        if word in _FALSE_WORDS:
            return False
        return None
    try:
        return bool(is_error)
    except Exception:  # noqa: BLE001 - a broken __bool__ must not break detection
        log_swallowed("detection (an is_error flag's __bool__)")
        return None


# --- results ---------------------------------------------------------------------------------


class Detection:
    """What detection found, and what classification should read."""

    __slots__ = (
        "client",
        "detection",
        "failed",
        "shell",
        "shell_failed_exit",
        "template",
        "template_code",
        "view",
        "window",
    )

    def __init__(self, client: str = "generic") -> None:
        self.failed = False
        self.detection: str | None = None
        self.client = client
        self.window = ""  # the first WINDOW_CHARS characters of the text, from its first non-blank
        self.view: str | None = None  # the part of the text that carries the diagnosis (None: window)
        self.template: R.Template | None = None
        self.template_code: int | None = None  # JSON-RPC code found by the template (MCP TS SDK)
        self.shell: str | None = None  # id of the shell-output format the text is in
        self.shell_failed_exit = False  # the shell command exited non-zero


def detect_failure(
    content: Any,
    *,
    is_error: bool | None = None,
    exception: BaseException | None = None,
    client: str | None = None,
) -> tuple[bool, str | None]:
    """Is this tool result a failure? Returns ``(failed, detection rule id)``."""
    det = analyse(content, is_error=is_error, exception=exception, client=client)
    return det.failed, det.detection


def analyse(
    content: Any,
    *,
    is_error: Any = None,
    exception: BaseException | None = None,
    client: str | None = None,
) -> Detection:
    """Detection plus the pieces classification needs. Never raises on any content."""
    if exception is not None and not isinstance(exception, BaseException):
        raise TypeError(f"exception must be an exception or None, not {type(exception).__name__}")
    det = Detection(client=normalise_client(client))
    flag = coerce_flag(is_error)
    try:
        _analyse_content(det, content)
    except Exception:  # noqa: BLE001 - fail open
        # Content too odd to read (deep nesting, hostile objects): only the flags decide.
        log_swallowed("detection")
        det.failed, det.detection = False, None
    if exception is not None:
        det.failed, det.detection = True, "exception"
    elif flag is True:
        det.failed, det.detection = True, "flag:is_error"
    return det


def _analyse_content(det: Detection, content: Any) -> None:
    if isinstance(content, str):
        _analyse_text(det, content, allow_json=True)
        return
    if isinstance(content, Mapping):
        _analyse_data(det, content)
        return
    if isinstance(content, (bytes, bytearray)):
        _analyse_text(det, bytes(content).decode("utf-8", errors="replace"), allow_json=True)
        return
    if content is None or isinstance(content, (bool, int, float)):
        _analyse_text(det, content_text(content), allow_json=False)
        return
    if isinstance(content, (list, tuple)):
        _analyse_text(det, result_text(content), allow_json=True)
        return
    like = _call_tool_result_like(content)
    if like is not None:
        _analyse_data(det, like)
        return
    _analyse_text(det, content_text(content), allow_json=False)


def _call_tool_result_like(obj: Any) -> dict[str, Any] | None:
    """An MCP ``CallToolResult``-like object (attributes ``content`` and ``isError`` or
    ``is_error``) as a dict; None for anything else."""
    try:
        blocks = getattr(obj, "content", None)
        flag = getattr(obj, "isError", None)
        if flag is None:
            flag = getattr(obj, "is_error", None)
    except Exception:  # noqa: BLE001 - hostile attribute access
        log_swallowed("detection (reading a result object's attributes)")
        return None
    if blocks is None or not isinstance(flag, bool):
        return None
    out: list[Any] = []
    try:
        for block in blocks:
            if isinstance(block, Mapping):
                out.append(block)
            else:
                text = getattr(block, "text", None)
                out.append({"type": "text", "text": text} if isinstance(text, str) else repr(block))
    except Exception:  # noqa: BLE001 - hostile iteration
        log_swallowed("detection (iterating a result object's content)")
        return None
    return {"content": out, "isError": flag}


# --- text ----------------------------------------------------------------------------------


def _long_traceback(text: str, lead: int) -> str:
    """The window of a text longer than a window that holds a Python trace: its first
    half-window and its last, each cut at a line break (the exception that was raised is
    the trace's last line, which the first window alone would miss)."""
    half = R.WINDOW_CHARS // 2
    head = text[lead : lead + half]
    head = head[: head.rfind("\n") + 1] or head
    tail = text[-half:]
    tail = tail[tail.find("\n") + 1 :] or tail
    return head + tail


def _analyse_text(det: Detection, text: str, *, allow_json: bool) -> None:
    lead = _LEAD.match(text).end() if text[:1].isspace() else 0  # type: ignore[union-attr]
    window = text[lead : lead + R.WINDOW_CHARS]
    if len(text) - lead > R.WINDOW_CHARS and R.TRACEBACK_START in window[:256]:
        window = _long_traceback(text, lead)
    det.window = window
    if not window:
        return
    if allow_json and window[0] == "{":
        data = _parse_json_object(text, lead)
        if data is not None:
            _analyse_data(det, data)
            return
        if len(text) > R.MAX_JSON_CHARS:
            if _JSON_MCP_FLAG.search(window) or _JSON_MCP_FLAG.search(text, max(0, len(text) - R.TAIL_CHARS)):
                det.failed, det.detection = True, "flag:mcp-iserror"
            elif _JSON_ERROR_PREFIX.match(window):
                det.failed, det.detection = True, "generic:json-error"
            return

    client = det.client
    # Shell outputs of coding agents: only the exit code and the agent's error line decide.
    first = window[0]
    for shell in _SHELLS_BY_CLIENT[client]:
        if shell.first is not None and (first != shell.first or not window.startswith(shell.prefix)):
            continue  # not the format's beginning (its regex is not tried)
        result = _match_shell(shell, text, lead, window)
        if result is None:
            continue
        failed, error_value = result
        det.shell = shell.fmt.id
        det.shell_failed_exit = failed and error_value is None
        det.view = error_value if error_value is not None else ""
        if failed and client in shell.fmt.clients:
            det.failed, det.detection = True, shell.fmt.id
        return

    picker = _TEMPLATE_PICKERS[client].get(first)
    candidates = _TEMPLATES[client][1] if picker is None else picker.candidates(window)
    for compiled in candidates:
        if not window.startswith(compiled.prefix):
            continue
        tpl = compiled.template
        end = len(window)
        if tpl.ends is not None:
            stripped = window.rstrip()
            if not stripped.endswith(tpl.ends):
                continue
            end = len(stripped) - len(tpl.ends)
        if tpl.contains is not None and tpl.contains not in window:
            continue
        m = compiled.regex.match(window)  # last: the string tests above are cheaper
        if m is None:
            continue
        det.template = tpl
        if tpl.error:
            det.view = window[m.end() : max(m.end(), end)]
        code = m.groupdict().get("code")
        if code is not None:
            try:
                det.template_code = int(code)
            except ValueError:
                det.template_code = None
        if tpl.detects:
            det.failed, det.detection = True, tpl.id
        return

    m = _GENERIC_START.match(window)
    if m is not None:
        if len(window) > 40 or not _EMPTY_AFTER_ERROR.match(window):
            det.failed, det.detection = True, "generic:start"
        return
    m = _KNOWN_EXCEPTION.match(window)
    if m is not None and lookup_name(m.group("name")) is not None:
        # A known exception class printed at the start ("psycopg.errors.SerializationFailure:")
        det.failed, det.detection = True, "generic:exception"


def _match_shell(shell: _CompiledShell, text: str, lead: int, window: str) -> tuple[bool, str | None] | None:
    """None when the text is not in this shell format; else (failed, the agent's own error
    text when that is what failed)."""
    fmt = shell.fmt
    if shell.begins is not None and (
        (shell.first is not None and window[0] != shell.first) or shell.begins.match(window) is None
    ):
        return None
    code: str | None = None
    if fmt.region == "head":
        head = window[: fmt.head_chars]
        stop = head.find(fmt.head_stop)
        if stop >= 0:
            head = head[:stop]
        m = shell.exit.search(head)
        code = m.group("code") if m else None
    else:
        tail = text[-R.TAIL_CHARS :] if len(text) > R.TAIL_CHARS else text
        if fmt.region == "last_line":
            m = shell.exit.search(tail)
            if m is None:
                return None
            code = m.group("code")
        else:
            last = None
            for last in shell.exit.finditer(tail):  # noqa: B007 - the last match counts
                pass
            code = last.group("code") if last is not None else None
        if shell.error_line is not None:
            last_error = None
            for last_error in shell.error_line.finditer(tail):  # noqa: B007
                pass
            if last_error is not None:
                value = last_error.group("error").strip()
                exited_nonzero = _nonzero(code)
                if value not in R.SHELL_NONE_VALUES and not exited_nonzero:
                    return True, value
    if code is None and shell.begins is None:
        return None
    return _nonzero(code), None


def _nonzero(code: str | None) -> bool:
    if code is None:
        return False
    try:
        return int(code) != 0
    except ValueError:
        return False


# --- JSON ------------------------------------------------------------------------------------


def _parse_json_object(text: str, lead: int) -> Mapping[str, Any] | None:
    if len(text) > R.MAX_JSON_CHARS:
        return None
    if not text.rstrip(_JSON_SPACE).endswith("}"):
        return None  # not one object (``json.loads`` would raise): spares building its error
    # The keys that matter sit at the top level, usually near the start (``error``) or the end
    # (``isError`` after the content): long texts are probed there before being parsed.
    probe = text if len(text) <= 4 * _PROBE_CHARS else text[:_PROBE_CHARS] + text[-_PROBE_CHARS:]
    if not any(key in probe for key in R.JSON_KEYS_TEXT):
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _truthy_error(value: Any) -> bool:
    """A JSON ``error`` field that reports a failure: an object, a non-blank string, true,
    or a non-empty list (null, false, "", [] and numbers do not)."""
    if isinstance(value, Mapping):
        return True
    if isinstance(value, str):
        return bool(value.strip())
    if value is True:
        return True
    if isinstance(value, list):
        return bool(value)
    return False


def diagnosis_text(data: Mapping[str, Any]) -> str:
    """The parts of a JSON error object that carry the diagnosis, as text (capped): one
    ``"key": value`` line per diagnosis key, strings as they are, other values as JSON."""
    lines: list[str] = []
    keys: Any = [key for key in R.JSON_DIAGNOSIS_KEYS if key in data]
    if not keys:
        keys = [key for key in data if key != R.CLINE_QUERY_KEY]
    size = 0
    for key in keys:
        value = data[key]
        if isinstance(value, str):
            text = value if key == "error" else f'"{key}": {value}'
        elif value is None or isinstance(value, (bool, int, float)):
            text = f'"{key}": {content_text(value)}'
        else:
            text = f'"{key}": {content_text(value)}' if key != "error" else content_text(value)
        lines.append(text)
        size += len(text)
        if size >= R.WINDOW_CHARS:
            break
    return "\n".join(lines)[: R.WINDOW_CHARS]


def _analyse_data(det: Detection, data: Mapping[str, Any]) -> None:
    error = data.get("error")
    # MCP CallToolResult flag (spec: isError; Python SDK: is_error)
    if any(data.get(key) is True for key in R.MCP_ERROR_FLAGS):
        det.failed, det.detection = True, "flag:mcp-iserror"
        blocks = data.get("content")
        if blocks is not None:
            inner = Detection(client=det.client)
            _analyse_text(inner, result_text(blocks), allow_json=False)
            det.window, det.view, det.template = inner.window, inner.view, inner.template
            det.template_code, det.shell, det.shell_failed_exit = (
                inner.template_code,
                inner.shell,
                inner.shell_failed_exit,
            )
        else:
            det.window = diagnosis_text(data)
        return
    if isinstance(error, Mapping) and error.get("type") == R.OPENCODE_ERROR_TYPE:
        det.failed, det.detection = True, "opencode:tool-execution"
        det.window = diagnosis_text(error)
        return
    if R.CLINE_QUERY_KEY in data and data.get("success") is False:
        det.failed, det.detection = True, "cline:success-false"
        det.window = diagnosis_text(data)
        return
    meta_key, exit_key = R.CODEX_JSON_EXIT_KEYS
    meta = data.get(meta_key)
    if det.client == "codex" and isinstance(meta, Mapping) and exit_key in meta and "output" in data:
        code = meta.get(exit_key)
        det.shell = "codex:exit"
        det.view = ""
        if isinstance(code, int) and not isinstance(code, bool) and code != 0:
            det.failed, det.detection = True, "codex:exit"
            det.shell_failed_exit = True
        return
    if _truthy_error(error):
        det.failed, det.detection = True, "generic:json-error"
        det.window = diagnosis_text(data)
        return
    if "content" in data and any(key in data for key in R.MCP_ERROR_FLAGS):
        # A CallToolResult whose flag is false or missing: the flag is weak evidence, the
        # text rules read its content.
        _analyse_text(det, result_text(data.get("content")), allow_json=False)
        return
    det.window = content_text(data)[: R.WINDOW_CHARS]
