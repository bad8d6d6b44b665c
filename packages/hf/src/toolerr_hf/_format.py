"""The text format of tool calls for models whose chat template has no tool support.

Hermes / Qwen 2.5 style, which most small instruct models have seen::

    <tool_call>
    {"name": "get_weather", "arguments": {"city": "Paris"}}
    </tool_call>

* Tools are listed in the system prompt, one JSON schema a line, with one example call.
* An assistant turn is its prose followed by one ``<tool_call>`` block per call; the call
  is ``{"name": ..., "arguments": ...}`` with ``json.dumps`` spacing (``", "``, ``": "``),
  or the argument text exactly as the model wrote it when that is known.
* Tool results go back in a *user* turn, one ``<tool_response>`` block per result
  (consecutive results share one turn).

Parsing is lenient about slips a client would accept: a missing closing marker at the
end of the output, other spellings of the markers (case, spaces, ``<tool_call|>``), code
fences, ``parameters``/``args``/``input`` for ``arguments``, arguments given as a JSON
string, single quotes or Python literals, trailing commas, missing closing braces, text
after the JSON object, a nested ``{"function": {...}}`` and, when tools are known, a whole
reply that is only the call's JSON object.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolerr import FailureLedger, Message

__all__ = ["HermesFormat", "ParsedCall", "ParsedOutput"]

_ARG_KEYS = ("arguments", "parameters", "args", "input", "params", "kwargs")
_NAME_KEYS = ("name", "tool", "tool_name", "function", "function_name")
_FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.S)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


@dataclass(frozen=True)
class ParsedCall:
    """One tool call found in the output.

    ``text`` is the call exactly as the model wrote it between the markers (white space
    around it stripped): the string a decoder ban matches. ``raw_arguments`` is the
    argument text as written, when it could be located.
    """

    name: str
    arguments: dict[str, Any]
    text: str
    raw_arguments: str | None = None


@dataclass(frozen=True)
class InvalidCall:
    """A call block that could not be read as a call; ``error`` says why."""

    text: str
    error: str
    name: str | None = None


@dataclass(frozen=True)
class ParsedOutput:
    """A model reply split into prose and calls."""

    content: str
    calls: tuple[ParsedCall, ...] = ()
    invalid: tuple[InvalidCall, ...] = ()
    text: str = ""
    """The whole reply as written (the prefill included)."""
    extra: Mapping[str, Any] = field(default_factory=dict)


def _tool_schema(tool: Mapping[str, Any]) -> dict[str, Any]:
    """A tool as ``{"name", "description", "parameters"}`` (OpenAI ``function`` form unwrapped)."""
    spec = (
        tool.get("function")
        if tool.get("type") == "function" and isinstance(tool.get("function"), Mapping)
        else tool
    )
    assert isinstance(spec, Mapping)
    out: dict[str, Any] = {"name": spec.get("name", "")}
    if spec.get("description"):
        out["description"] = spec["description"]
    out["parameters"] = spec.get("parameters") or {"type": "object", "properties": {}}
    return out


def _example_arguments(schema: Mapping[str, Any]) -> dict[str, Any]:
    properties = schema.get("properties") or {}
    required = list(schema.get("required") or list(properties)[:1])
    example: dict[str, Any] = {}
    for name in required:
        prop = properties.get(name) or {}
        kind = prop.get("type")
        if prop.get("enum"):
            example[name] = prop["enum"][0]
        elif kind in ("integer", "number"):
            example[name] = 1
        elif kind == "boolean":
            example[name] = True
        elif kind == "array":
            example[name] = []
        elif kind == "object":
            example[name] = {}
        else:
            example[name] = "..."
    return example


class HermesFormat:
    """Render and parse tool calls in the ``<tool_call>`` JSON text format.

    The markers are parameters (``start``, ``end``, ``result_start``, ``result_end``);
    the defaults are the Hermes / Qwen ones.
    """

    def __init__(
        self,
        start: str = "<tool_call>",
        end: str = "</tool_call>",
        *,
        result_start: str = "<tool_response>",
        result_end: str = "</tool_response>",
    ) -> None:
        if not start or not end:
            raise ValueError("the call markers must not be empty")
        self.start = start
        self.end = end
        self.result_start = result_start
        self.result_end = result_end
        self._block = re.compile(
            _lenient_marker(start)
            + r"(.*?)(?:(?P<end>"
            + _lenient_marker(end)
            + r")|(?="
            + _lenient_marker(start)
            + r")|\Z)",
            re.S | re.I,
        )
        self._end_at = re.compile(_lenient_marker(end), re.I)

    def __repr__(self) -> str:
        return f"HermesFormat(start={self.start!r}, end={self.end!r})"

    # -- rendering -------------------------------------------------------------------

    def call_text(self, name: str, arguments: Any = None, *, raw_arguments: str | None = None) -> str:
        """The call as written between the markers: ``{"name": "f", "arguments": {...}}``.

        ``raw_arguments`` (the argument text exactly as a model wrote it) wins over
        ``arguments``; this is also the string a :class:`FailedCallBan` bans.
        """
        if raw_arguments is None:
            if isinstance(arguments, str):
                raw_arguments = arguments
            else:
                raw_arguments = json.dumps({} if arguments is None else arguments, ensure_ascii=False)
        return f'{{"name": {json.dumps(name, ensure_ascii=False)}, "arguments": {raw_arguments.strip()}}}'

    def banned_texts(self, messages: Sequence[Message], ledger: FailureLedger) -> list[str]:
        """The call strings a decoder ban holds for the next reply: each failed call the
        ledger says a decoder should ban (``FailureLedger.banned_calls``), rendered in this
        format, and as the model wrote it (the assistant messages' ``meta["call_texts"]``)."""
        written: dict[str, str] = {}
        for message in messages:
            if message.role == "assistant" and message.meta:
                written.update(dict(message.meta.get("call_texts") or {}))
        out: dict[str, None] = {}
        for failed in ledger.banned_calls():
            out[self.call_text(failed.name, raw_arguments=failed.exact)] = None
            if failed.call_id is not None and failed.call_id in written:
                out[written[failed.call_id].strip()] = None
        return list(out)

    def decisive_text(self, call_text: str) -> str:
        """The part of a call string that decides what runs: up to the end of its arguments.

        ``{"name": "f", "arguments": {...}}`` gives ``{"name": "f", "arguments": {...}``: once
        a model has written that, the call runs with those arguments whatever follows (the
        parser ignores extra keys after them), so a decoder ban must make this prefix
        unreachable, not only the whole string. A text that is not such a call (arguments
        not last, not a JSON object) is returned stripped, unchanged.
        """
        text = call_text.strip()
        if not text.endswith("}"):
            return text
        try:
            data = json.loads(text)
        except ValueError:
            return text
        if not isinstance(data, dict) or list(data)[-1:] != ["arguments"] or "name" not in data:
            return text
        head = text[:-1].rstrip()
        return head if head.endswith(("}", "]", '"')) or head[-1:].isalnum() else text

    def render_call(self, name: str, arguments: Any = None, *, raw_arguments: str | None = None) -> str:
        """One call block with its markers."""
        return f"{self.start}\n{self.call_text(name, arguments, raw_arguments=raw_arguments)}\n{self.end}"

    def render_result(self, content: str) -> str:
        """One tool result block."""
        return f"{self.result_start}\n{content}\n{self.result_end}"

    def render_tools(self, tools: Sequence[Mapping[str, Any]]) -> str:
        """The system-prompt section that lists the tools and shows the call format."""
        schemas = [_tool_schema(tool) for tool in tools]
        lines = "\n".join(json.dumps(schema, ensure_ascii=False) for schema in schemas)
        first: dict[str, Any] = schemas[0] if schemas else {"name": "tool_name", "parameters": {}}
        example = self.render_call(str(first["name"]), _example_arguments(first["parameters"]))
        return (
            "You can call tools. Tools:\n"
            f"{lines}\n\n"
            "To call a tool, write:\n"
            f"{example}\n"
            f"Tool results come back in {self.result_start}{self.result_end}. "
            "When you have the answer, reply to the user in plain text."
        )

    def prefill(self, tool_choice: str | None) -> str:
        """Text the assistant turn starts with to force a call (``required``) or one tool."""
        if tool_choice in (None, "auto", "none"):
            return ""
        if tool_choice in ("required", "any"):
            return f"{self.start}\n"
        return f'{self.start}\n{{"name": {json.dumps(tool_choice, ensure_ascii=False)}, "arguments": '

    # -- parsing ---------------------------------------------------------------------

    def parse(self, text: str, tools: Iterable[str] | None = None, *, complete: bool = True) -> ParsedOutput:
        """Split a reply into prose and calls.

        ``tools`` (names) enables a reply that is only a call's JSON object. ``complete``:
        the model ended the reply itself; ``False`` when it was cut at the token limit,
        so that a last call left open is reported invalid instead of being repaired.
        """
        calls: list[ParsedCall] = []
        invalid: list[InvalidCall] = []
        prose: list[str] = []
        position = 0
        for match in self._block.finditer(text):
            prose.append(text[position : match.start()])
            position = match.end()
            body = match.group(1).strip()
            if not body:
                continue
            if not complete and match.group("end") is None and match.end() == len(text):
                invalid.append(
                    InvalidCall(body, "the call was cut off at the token limit", _guess_name(body))
                )
                continue
            self._read(body, calls, invalid)
        prose.append(text[position:])
        content = "".join(prose).strip()
        names = set(tools or ())
        if complete and not calls and not invalid and names and content[:1] in ("{", "`"):
            # A reply that is only a call, its start marker forgotten (the end marker may be there).
            bare: list[ParsedCall] = []
            bare_invalid: list[InvalidCall] = []
            self._read(self._end_at.split(content, maxsplit=1)[0].strip(), bare, bare_invalid)
            if bare and all(call.name in names for call in bare):
                return ParsedOutput("", tuple(bare), (), text)
        return ParsedOutput(content, tuple(calls), tuple(invalid), text)

    def _read(self, body: str, calls: list[ParsedCall], invalid: list[InvalidCall]) -> None:
        unfenced = _FENCE.match(body)
        if unfenced:
            body = unfenced.group(1).strip()
        value, error = _lenient_json(body)
        items = value if isinstance(value, list) else [value]
        if value is None:
            invalid.append(InvalidCall(body, error or "no JSON object", _guess_name(body)))
            return
        for item in items:
            call = _as_call(item)
            if isinstance(call, str):
                invalid.append(InvalidCall(body, call, _guess_name(body)))
                continue
            name, arguments = call
            raw = _raw_arguments(body, arguments) if len(items) == 1 else None
            calls.append(ParsedCall(name, arguments, body, raw))


def _lenient_marker(marker: str) -> str:
    """A regex for a marker that also accepts inner spaces and ``|`` (``<tool_call|>``, ``< tool_call >``)."""
    core = marker.strip()
    if core.startswith("<") and core.endswith(">"):
        inner = core[1:-1]
        closing = inner.startswith("/")
        inner = inner[1:] if closing else inner
        pattern = r"<\s*\|?\s*" + (r"/\s*" if closing else "") + re.escape(inner.strip("|")) + r"\s*\|?\s*>"
        return pattern
    return re.escape(marker)


def _guess_name(body: str) -> str | None:
    match = re.search(r"""["']?(?:name|function)["']?\s*:\s*["']([A-Za-z0-9_.\-]+)["']""", body)
    return match.group(1) if match else None


def _lenient_json(text: str) -> tuple[Any, str | None]:
    """The first JSON value of ``text``, forgiving small slips; ``(None, reason)`` if none."""
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if start < 0:
        return None, "no JSON object"
    text = text[start:]
    decoder = json.JSONDecoder()
    attempts = [text, _TRAILING_COMMA.sub(r"\1", text)]
    last_error = "invalid JSON"
    for attempt in attempts:
        try:
            return decoder.raw_decode(attempt)[0], None
        except json.JSONDecodeError as exc:
            last_error = f"invalid JSON: {exc.msg} at character {exc.pos}"
        except (ValueError, RecursionError) as exc:  # too deep, or a number past int's digit limit
            return None, _undecodable(exc)
        # Missing closing braces / brackets at the end of the output.
        closed = _close_brackets(attempt)
        if closed != attempt:
            try:
                return decoder.raw_decode(closed)[0], None
            except (ValueError, RecursionError):
                pass
    try:
        value = ast.literal_eval(_close_brackets(_TRAILING_COMMA.sub(r"\1", text.strip())))
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return None, last_error
    if not isinstance(value, (dict, list)):
        return None, last_error
    # A Python literal is taken as the JSON it stands for (tuples are lists, keys are
    # strings), or not at all (bytes, sets, complex numbers, tuple keys).
    try:
        return json.loads(json.dumps(value)), None
    except (TypeError, ValueError, RecursionError):
        return None, "not JSON: a Python literal with values JSON does not have"


def _undecodable(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "invalid JSON: nested too deeply"
    return f"invalid JSON: {exc}"


def _close_brackets(text: str) -> str:
    """Append the closing brackets a truncated JSON text lacks (strings respected)."""
    stack: list[str] = []
    in_string = False
    escape = False
    quote = '"'
    for char in text:
        if in_string:
            if escape:
                escape = False
            elif char == "\\":
                escape = True
            elif char == quote:
                in_string = False
        elif char in "\"'":
            in_string = True
            quote = char
        elif char in "{[":
            stack.append("}" if char == "{" else "]")
        elif char in "}]":
            if stack and stack[-1] == char:
                stack.pop()
            else:
                break
    if in_string:
        return text
    return text.rstrip().rstrip(",") + "".join(reversed(stack))


def _as_call(item: Any) -> tuple[str, dict[str, Any]] | str:
    """``(name, arguments)`` from a decoded call object, or the reason it is not one."""
    if not isinstance(item, Mapping):
        return "the call is not a JSON object"
    nested = item.get("function")
    if isinstance(nested, Mapping) and ("name" in nested):
        item = {**nested, **{k: v for k, v in item.items() if k != "function"}}
    name = next(
        (item[key] for key in _NAME_KEYS if isinstance(item.get(key), str) and item[key].strip()), None
    )
    if name is None:
        return 'the call has no "name"'
    arguments: Any = next((item[key] for key in _ARG_KEYS if key in item), {})
    if isinstance(arguments, str):
        stripped = arguments.strip()
        if not stripped:
            arguments = {}
        else:
            decoded, error = _lenient_json(stripped)
            if not isinstance(decoded, Mapping):
                return f'"arguments" is a string that is not a JSON object ({error or "not an object"})'
            arguments = decoded
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        return '"arguments" is not a JSON object'
    return name.strip(), dict(arguments)


_ARG_KEY = re.compile(r"""["']?(?:arguments|parameters|args|input|params|kwargs)["']?\s*:\s*""")


def _raw_arguments(body: str, arguments: Mapping[str, Any]) -> str | None:
    """The argument text exactly as written in ``body``, when it can be located."""
    decoder = json.JSONDecoder()
    for match in _ARG_KEY.finditer(body):
        try:
            value, end = decoder.raw_decode(body, match.end())
        except (ValueError, RecursionError):  # not JSON there (a key name inside a string)
            continue
        if value == arguments:
            return body[match.end() : end]
    return None
