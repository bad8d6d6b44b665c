"""ADK request contents <-> toolerr's neutral conversation.

A ``model`` content is an assistant message (its text and its function calls); in a
``user`` content each function response is a ``tool`` message and each run of other parts
a ``user`` message. Every message keeps where it came from (``origin``), so the rewritten
conversation maps back to contents that reuse every unchanged ``Content``, ``Part`` and
payload object: the session's own objects (which ADK's shallow request copies share) are
never modified. A text part toolerr did not make (a document ``load_artifacts`` added)
cannot pass for a runtime note: the core is shown its note prefix in a form it does not
read as a note.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from google.genai import types
from toolerr import Message, ToolCall
from toolerr.adapters import NoteParts, Role, appended_text, content_text, same_objects

__all__ = ["CLIENT", "Conversation", "response_content"]

CLIENT = "google-adk"
"""ADK's tool results carry no client template of their own."""


_NOTES: NoteParts[types.Part] = NoteParts()
"""The text parts this adapter made to carry toolerr's text (notes)."""


def _note_part(text: str) -> types.Part:
    return _NOTES.made(types.Part(text=text))


def _user_text(parts: Sequence[types.Part]) -> str:
    """The text of a run of user parts as the core sees it: toolerr's note prefix only in
    the parts toolerr made."""
    return "".join(_NOTES.text(p, p.text) for p in parts if p.text is not None and not p.thought)


@dataclass(frozen=True)
class _Origin:
    """The request content a message came from and the parts of it that it stands for."""

    content: types.Content
    parts: tuple[types.Part, ...]


def response_content(response: Any) -> tuple[Any, bool | None]:
    """The neutral ``(content, is_error)`` of a function response payload.

    ADK's ``{"result": value}`` wrapper is the tool's own value; ``{"error": "text"}``
    (ADK's convention for a failure, which its own tool-not-found answer and this
    package's answers follow) is that text with the error flag set; an MCP
    ``CallToolResult`` dump is its text blocks with its ``isError`` flag; any other payload
    is its JSON text (so every form, C1 included, can work on it; detection reads the JSON
    as it would the object).
    """
    if isinstance(response, Mapping):
        if len(response) == 1 and "result" in response:
            return response["result"], None
        error = response.get("error")
        if len(response) == 1 and isinstance(error, str) and error.strip():
            return error, True
        blocks = response.get("content")
        flag = response.get("isError", response.get("is_error"))
        if isinstance(blocks, list) and isinstance(flag, bool):
            return content_text(blocks), flag
    if response is None:
        return "", None
    try:
        return json.dumps(response, ensure_ascii=False, default=str), None
    except (TypeError, ValueError, RecursionError):
        return str(response), None


class Conversation:
    """The neutral messages of one request's contents, and the way back.

    ``ids``: the session's call keys (already keyed by session and invocation) by ``id()``
    of the shared payload objects (ADK removes its own ``adk-`` ids from requests; the
    payloads are the session's objects, so they lead back to them); ``scope`` prefixes the
    ids the request does hold."""

    def __init__(
        self, contents: Sequence[types.Content], ids: Mapping[int, str] | None = None, scope: str = ""
    ) -> None:
        self._ids = ids or {}
        self._scope = scope
        self.messages: list[Message] = []
        self._call_parts: dict[int, types.Part] = {}
        self._call_ids: set[str | None] = set()
        for content in contents:
            self._convert(content)

    def _convert(self, content: types.Content) -> None:
        parts = tuple(content.parts or ())
        if content.role == "model":
            calls: list[ToolCall] = []
            texts: list[str] = []
            for part in parts:
                call = part.function_call
                if call is not None:
                    tool_call = ToolCall(
                        id=self._id(call.id, call.args),
                        name=call.name or "unknown_tool",
                        arguments=dict(call.args) if call.args else {},
                    )
                    self._call_parts[id(tool_call)] = part
                    self._call_ids.add(tool_call.id)
                    calls.append(tool_call)
                elif part.text is not None and not part.thought:
                    texts.append(part.text)
            origin = _Origin(content, parts)
            self.messages.append(Message("assistant", "".join(texts), tool_calls=tuple(calls), origin=origin))
            return
        run: list[types.Part] = []
        for part in parts:
            result = part.function_response
            if result is None:
                run.append(part)
                continue
            self._flush_user(content, run)
            run = []
            text, is_error = response_content(result.response)
            key = self._id(result.id, result.response)
            self.messages.append(
                Message(
                    role="tool",
                    content=text,
                    is_error=is_error,
                    tool_call_id=key if key in self._call_ids else None,  # else paired in order
                    name=result.name,
                    client=CLIENT,
                    origin=_Origin(content, (part,)),
                )
            )
        self._flush_user(content, run)

    def _id(self, given: str | None, payload: Any) -> str | None:
        """A call's key: the session's for the shared payload object, else the request's
        own id scoped by ``scope`` (a payload another processor made)."""
        if payload is not None and id(payload) in self._ids:
            return self._ids[id(payload)]
        if given:
            return f"{self._scope}\x1f{given}" if self._scope else given
        return None

    def _flush_user(self, content: types.Content, run: Sequence[types.Part]) -> None:
        if run:
            role: Role = "system" if content.role == "system" else "user"
            self.messages.append(Message(role, _user_text(run), origin=_Origin(content, tuple(run))))

    def to_contents(self, messages: Sequence[Message]) -> list[types.Content]:
        """Contents for the rewritten messages: unchanged contents are the request's own
        objects; a changed message gets a new ``Part`` (and ``Content``), never a changed one."""
        originals = {id(m): m for m in self.messages}
        out: list[types.Content] = []
        group: types.Content | None = None
        parts: list[types.Part] = []

        def flush() -> None:
            if group is not None and same_objects(parts, group.parts or ()):
                out.append(group)
            elif group is not None and parts:
                out.append(group.model_copy(update={"parts": list(parts)}))

        for message in messages:
            origin = message.origin if isinstance(message.origin, _Origin) else None
            if origin is None:  # a note the form added: a content of its own
                flush()
                group, parts = None, []
                out.append(types.Content(role="user", parts=[_note_part(message.text)]))
                continue
            if group is not origin.content:
                flush()
                group, parts = origin.content, []
            parts.extend(self._parts(message, origin, originals.get(id(message)) is message))
        flush()
        return out

    def _parts(self, message: Message, origin: _Origin, unchanged: bool) -> list[types.Part]:
        if unchanged:
            return list(origin.parts)
        if message.role == "assistant":
            kept = {id(self._call_parts[id(c)]) for c in message.tool_calls if id(c) in self._call_parts}
            return [p for p in origin.parts if p.function_call is None or id(p) in kept]
        if message.role == "tool":
            (part,) = origin.parts
            return [_with_response_text(part, message)]
        # A user message a form appended to: its parts, then the added text.
        added = appended_text(_user_text(origin.parts), message.text)
        if added is None:
            return [_note_part(message.text)]
        return [*origin.parts, _note_part(added)] if added else list(origin.parts)


def _with_response_text(part: types.Part, message: Message) -> types.Part:
    """A new part whose function response carries the message's new text, in a copy of
    the payload (the session's own payload object is never changed): what form C1 appended
    to it, or the excerpt of a long result the rewrite quarantined, in the payload's own
    key (the part as it is where the excerpt's text has no key of its own: shown whole)."""
    result = part.function_response
    assert result is not None
    response: Any = result.response or {}
    old, _ = response_content(response)
    new = message.content
    if not isinstance(new, str) or not isinstance(old, str):
        return part
    added = appended_text(old, new)
    if added is not None and not added.lstrip("\n"):
        return part
    payload: dict[str, Any] = dict(response)
    if len(payload) == 1 and isinstance(payload.get("result"), str):
        payload["result"] = new
    elif len(payload) == 1 and isinstance(payload.get("error"), str):
        payload["error"] = new
    elif isinstance(payload.get("content"), list) and old == content_text(payload["content"]):
        kept, text = (payload["content"], added.lstrip("\n")) if added is not None else ([], new)
        payload["content"] = [*kept, {"type": "text", "text": text}]
    elif added is not None:
        payload["guidance"] = added.lstrip("\n")
    else:
        return part
    return part.model_copy(update={"function_response": result.model_copy(update={"response": payload})})
