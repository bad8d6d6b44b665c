"""ToolErrorRecovery: toolerr for the Claude Agent SDK.

The CLI's hooks cannot change one model call, so the form goes through a local relay
(:mod:`._relay`) that rewrites each ``/v1/messages`` request with the core's Anthropic wire
rewrite (:func:`toolerr.rewrite_wire`); the ``PreToolUse`` hook serves ``loop_action="block"``
(deny with the reason); :meth:`ToolErrorRecovery.tool` wraps in-process SDK tools so that
their exception object is classified (the SDK itself keeps only ``str(exc)``).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

import claude_agent_sdk
import toolerr
from claude_agent_sdk import ClaudeAgentOptions, HookMatcher, SdkMcpTool
from toolerr import DetectionRecord, Policy, ToolErrorLayer, ToolLoopError
from toolerr.adapters import (
    LRUCache,
    RunSnapshot,
    TextVerdicts,
    acall_with_retries,
    anthropic_to_messages,
    content_text,
    fail_open,
    failure_of,
    guard_call,
)

from ._relay import Refusal, Relay
from ._reminders import with_reminders, without_reminders

if TYPE_CHECKING:
    from types import TracebackType

    from claude_agent_sdk import HookContext
    from claude_agent_sdk.types import HookCallback
    from toolerr import PolicyOptions
    from typing_extensions import Self, Unpack

__all__ = ["DEFAULT_UPSTREAM", "SESSION_HEADER", "ToolErrorRecovery"]

logger = logging.getLogger("toolerr")

DEFAULT_UPSTREAM = "https://api.anthropic.com"
"""The upstream when neither the options' ``env`` nor the process names ``ANTHROPIC_BASE_URL``."""
SESSION_HEADER = "x-claude-code-session-id"
"""The request header that names the CLI's session: run state is keyed by it."""

T = TypeVar("T")

_TOOLS = ("toolerr_claude_agent_sdk", "tools")
"""The scope of the verdicts, by result text, of wrapped tools whose session is not known
(no call in flight matched: a text two exceptions gave with different verdicts gives none,
and the result is classified from its text)."""


def _session_scope(session: str) -> tuple[str, str, str]:
    """The scope of the verdicts, by result text, of one CLI session's wrapped tools."""
    return ("toolerr_claude_agent_sdk", "session", session)


def _arguments_key(arguments: Any) -> str:
    """A tool call's arguments as one comparable string (the hook's ``tool_input`` and the
    handler's ``arguments`` are the same JSON object)."""
    return json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)


def _same_tool(called: str, name: str) -> bool:
    """Whether the model's tool name ``called`` (``mcp__<server>__<name>``, or the bare name
    with ``CLAUDE_AGENT_SDK_MCP_NO_PREFIX``) names an SDK tool called ``name``."""
    return called == name or (called.startswith("mcp__") and called.endswith(f"__{name}"))


class ToolErrorRecovery:
    """Re-delivers failed tool calls to the model, for the Claude Agent SDK.

    ::

        async with ToolErrorRecovery() as recovery:
            options = recovery.options(ClaudeAgentOptions(...))
            async for message in query(prompt="...", options=options): ...

    Entering the context starts a relay on 127.0.0.1 (a free port); leaving it stops the
    relay. :meth:`options` points a copy of the options at it and adds the hooks. One
    object serves any number of concurrent runs: what it keeps is keyed by the CLI's
    session id, and each model call is rewritten from its own request alone.

    Args:
        policy: a ready :class:`toolerr.Policy` (else one from ``options``).
        upstream: the Anthropic endpoint to forward to (default: the options' or the
            process's ``ANTHROPIC_BASE_URL``, else Anthropic's API).
        on_record: receives every :class:`toolerr.DetectionRecord`.
        **options: toolerr's policy options (``form`` ``c3`` by default, ``retry_budget``,
            ``loop_action``, ``tool_safety``, ``max_error_chars`` ...).
    """

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        upstream: str | None = None,
        on_record: Callable[[DetectionRecord], None] | None = None,
        **options: Unpack[PolicyOptions],
    ) -> None:
        self.layer = ToolErrorLayer(policy, on_record=on_record, **options)
        self.upstream = upstream
        self._relay = Relay(self._rewrite_body)
        # per CLI session: its latest request's messages, converted on the first hook that
        # needs them (a request whose step runs no tool never pays for it)
        self._snapshots: LRUCache[str, RunSnapshot | list[Any]] = LRUCache(256)
        self._texts = TextVerdicts()
        # the calls the PreToolUse hook announced that no PostToolUse hook has answered yet,
        # by (session, call id) -> (tool name, arguments): a wrapped tool's handler knows its
        # name and arguments only, and finds its session among them
        self._in_flight: LRUCache[tuple[str, str], tuple[str, str]] = LRUCache(1024)
        # the requests loop action "stop" refused, by session and length: the CLI sends a
        # refused request again (re-serialised), refused again without a second decision
        # (on_loop, the log); a resumed session's next request is longer
        self._refused: LRUCache[tuple[str, int], str] = LRUCache(64)

    @property
    def policy(self) -> Policy:
        """The policy in force."""
        return self.layer.policy

    async def __aenter__(self) -> Self:
        await self._relay.start()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self._relay.stop()

    @property
    def port(self) -> int | None:
        """The relay's port on 127.0.0.1 (``None`` outside the context)."""
        return self._relay.port

    # -- registration ------------------------------------------------------------------

    def options(self, options: ClaudeAgentOptions | None = None) -> ClaudeAgentOptions:
        """A copy of ``options`` that goes through toolerr.

        Args:
            options: the run's options (``None``: the defaults).

        Returns:
            A copy whose ``env["ANTHROPIC_BASE_URL"]`` names the relay (in front of the
            upstream the options, the process or ``upstream`` named) and whose hooks hold
            toolerr's ``PreToolUse``, ``PostToolUse`` and ``PostToolUseFailure`` hooks after the
            options' own.

        Raises:
            RuntimeError: outside ``async with`` (the relay is not running).
        """
        options = options if options is not None else ClaudeAgentOptions()
        env = dict(options.env)
        upstream = (
            self.upstream
            or env.get("ANTHROPIC_BASE_URL")
            or os.environ.get("ANTHROPIC_BASE_URL")
            or DEFAULT_UPSTREAM
        )
        env["ANTHROPIC_BASE_URL"] = self._relay.route(upstream)
        hooks: dict[Any, list[HookMatcher]] = {
            key: list(value) for key, value in (options.hooks or {}).items()
        }
        hooks.setdefault("PreToolUse", []).append(
            HookMatcher(hooks=[cast("HookCallback", self._pre_tool_use)])
        )
        # a failed result (is_error) goes to PostToolUseFailure, a successful one to PostToolUse
        for event in ("PostToolUse", "PostToolUseFailure"):
            hooks.setdefault(event, []).append(HookMatcher(hooks=[cast("HookCallback", self._post_tool_use)]))
        return dataclasses.replace(options, env=env, hooks=hooks)

    def tool(self, sdk_tool: SdkMcpTool[T]) -> SdkMcpTool[T]:
        """An in-process SDK tool (``@tool``) whose exception toolerr classifies.

        The SDK answers a handler's exception with ``str(exc)`` only; the wrapped handler
        answers it with an ``is_error`` result of toolerr's failure text (``Type:
        message``), classified from the exception object. Use it as a decorator above
        ``@tool`` or on a ready tool: ``create_sdk_mcp_server("s", tools=[recovery.tool(t)])``.

        Args:
            sdk_tool: the tool ``@tool`` made.

        Returns:
            A copy of the tool with its handler wrapped (name, schema, annotations kept).
        """
        handler = sdk_tool.handler
        name = sdk_tool.name
        # its declared parameters, as the SDK sends them to the CLI: read once per tool, the
        # same dict for each of its failures (None: classified without them)
        parameters: dict[str, Any] | None = None
        with fail_open(
            f"reading the declared parameters of tool {name!r}", "its failures are classified without them"
        ):
            parameters = _declared_parameters(sdk_tool)

        @functools.wraps(handler)
        async def wrapped(arguments: T) -> dict[str, Any]:
            try:  # auto_retry: hidden reruns of a turned-away call before the model sees it
                return await acall_with_retries(self.layer, name, lambda: handler(arguments))
            except Exception as exc:
                with fail_open(f"classifying the exception of tool {name!r}", "the SDK shows str(exc)"):
                    failure = failure_of(
                        self.layer, exc, tool=name, arguments=arguments, parameters=parameters
                    )
                    # kept for the session(s) with this call in flight, else for any session
                    for scope in self._scopes_of(name, arguments):
                        self._texts.put(scope, failure.text, failure.verdict)
                    return {"content": [{"type": "text", "text": failure.text}], "is_error": True}
                raise  # toolerr failed: the SDK answers as without it

        return dataclasses.replace(sdk_tool, handler=wrapped)

    def _scopes_of(self, name: str, arguments: Any) -> list[tuple[str, ...]]:
        """The verdict scopes of a wrapped tool's failed call: the sessions with a call of
        that tool and those arguments in flight (two at once with the same call: both), else
        the scope of any session."""
        key = _arguments_key(arguments)
        sessions = {
            session
            for (session, _), (called, args) in self._in_flight.items()
            if args == key and _same_tool(called, name)
        }
        return [_session_scope(session) for session in sorted(sessions)] or [_TOOLS]

    # -- hooks ---------------------------------------------------------------------------

    async def _pre_tool_use(self, data: Any, tool_use_id: str | None, context: HookContext) -> dict[str, Any]:
        """``PreToolUse``: deny an identical repeat of a failed call the policy blocks (loop
        action ``stop``: end the run with the reason). The call is kept as in flight for
        its session until its ``PostToolUse`` hook (a wrapped tool's verdict finds its
        session by it)."""
        with fail_open("the PreToolUse hook", "the call runs"):
            session = str(data.get("session_id") or "")
            call_id = str(data.get("tool_use_id") or tool_use_id or "") or None
            if session and call_id is not None:
                called = str(data.get("tool_name") or "")
                self._in_flight.put((session, call_id), (called, _arguments_key(data.get("tool_input"))))
            if not self.layer.policy.checks_calls:
                return {}
            snapshot = self._snapshots.get(session)
            if snapshot is None:
                return {}
            if not isinstance(snapshot, RunSnapshot):
                snapshot = RunSnapshot(self.layer, anthropic_to_messages(snapshot), run=session)
                self._snapshots.put(session, snapshot)
            try:
                blocked = guard_call(
                    self.layer,
                    str(data.get("tool_name") or ""),
                    data.get("tool_input"),
                    call_id,
                    ledger=snapshot.ledger,
                    run=session,
                )
            except ToolLoopError as stop:  # loop action "stop": the call is denied, the run ends
                # (``continue_`` alone ends the run after the call: the repeat would run)
                return {"continue_": False, "stopReason": str(stop), **_deny(str(stop))}
            if blocked is None:
                return {}
            return _deny(blocked.text)
        return {}

    async def _post_tool_use(
        self, data: Any, tool_use_id: str | None, context: HookContext
    ) -> dict[str, Any]:
        """``PostToolUse`` and ``PostToolUseFailure`` (an ``is_error`` result, its text as
        ``error``): a wrapped SDK tool's verdict, kept for its call id and text (the
        session's own, else one no session claimed)."""
        with fail_open("the PostToolUse hook", "the result is classified from its text"):
            response = data.get("tool_response") if "tool_response" in data else data.get("error")
            call_id = str(data.get("tool_use_id") or tool_use_id or "") or None
            session = str(data.get("session_id") or "") or None
            if session is not None and call_id is not None:
                self._in_flight.pop((session, call_id))
            text = _response_text(response)
            if call_id is None or text is None:
                return {}
            verdict = self._texts.get(_session_scope(session), text) if session is not None else None
            if verdict is None:
                verdict = self._texts.get(_TOOLS, text)
            if verdict is not None:
                # the run scope of the relay's rewrite: this session's requests only
                self.layer.remember(call_id, verdict, text, run=session)
        return {}

    # -- the relay's rewrite ------------------------------------------------------------

    def _rewrite_body(self, body: bytes, headers: Mapping[str, str]) -> bytes:
        """One ``/v1/messages`` body: toolerr's rewrite, or the very bytes when nothing changed.
        Loop action ``stop`` answers the request with a 400 naming the loop (:class:`Refusal`)."""
        with fail_open("the Claude relay's rewrite", "the request passes unchanged", reraise=(Refusal,)):
            data = json.loads(body)
            messages = data.get("messages") if isinstance(data, dict) else None
            if not isinstance(messages, list):
                return body
            session = headers.get(SESSION_HEADER)
            refused = self._refused.get((session, len(messages))) if session else None
            if refused is not None:
                raise Refusal(400, refused)
            # the CLI's reminder on the latest result is not the tool's output: set aside
            bare, cuts = without_reminders(messages)
            if session and self.layer.policy.checks_calls:
                self._snapshots.put(session, bare)
            try:
                result = toolerr.rewrite_wire("anthropic", bare, layer=self.layer, run=session or None)
            except ToolLoopError as stop:  # loop action "stop": the run ends with the reason
                if session:
                    self._refused.put((session, len(messages)), str(stop))
                raise Refusal(400, str(stop)) from stop
            if not result.changed:
                return body
            data["messages"] = with_reminders(result.request, cuts)
            return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        return body


def _declared_parameters(sdk_tool: SdkMcpTool[Any]) -> dict[str, Any] | None:
    """An SDK tool's declared parameters as the JSON schema the SDK's MCP server lists for
    it (``create_sdk_mcp_server`` converts ``input_schema``, a ``{name: type}`` dict, a
    ``TypedDict`` or a JSON schema, with ``_build_input_schema``); without that function
    (another SDK release), an ``input_schema`` that is a JSON schema already, else ``None``."""
    build = getattr(claude_agent_sdk, "_build_input_schema", None)
    schema = build(sdk_tool) if callable(build) else sdk_tool.input_schema
    if isinstance(schema, dict) and isinstance(schema.get("properties"), Mapping):
        return schema
    return None


def _deny(reason: str) -> dict[str, Any]:
    """A ``PreToolUse`` answer that keeps the call from running (the model reads ``reason``)."""
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }


def _response_text(response: Any) -> str | None:
    """The text of an SDK MCP tool's response as a ``PostToolUse`` hook gets it."""
    if isinstance(response, str):
        return response
    if isinstance(response, Mapping):
        response = response.get("content")
    if isinstance(response, list):
        text = content_text(response)
        return text if isinstance(text, str) else None
    return None
