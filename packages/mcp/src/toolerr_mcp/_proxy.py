"""The proxy: a stdio MCP server that serves another stdio MCP server through the layer.

``toolerr-mcp proxy [options] -- CMD ARGS...`` starts ``CMD ARGS`` as a subprocess (the
*upstream*) and relays the JSON-RPC messages between the client and the upstream as they
are, both ways: the client's ``initialize`` (its capabilities: sampling, roots,
elicitation) and the upstream's answer (its capabilities and instructions), every request,
the server-to-client requests (sampling, roots, elicitation, ping) and their answers, and
every notification (progress, logging, cancellation, list changes, resource updates).
The one thing it changes is the result of a failed ``tools/call``: that goes through the
toolerr layer (:class:`~toolerr_mcp._recovery.CallRecovery`), which appends the guidance.

If the upstream cannot start (a wrong command, it exits at start-up) the client is told
so, as a configuration failure that retrying cannot fix, and the proxy tries to start it
again at the next request; if it dies, the calls in flight fail (their outcome unknown)
and it is started again, with the client's ``initialize``, for the next request. No call
waits longer than the call timeout, and ``initialize`` no longer than the start-up
timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
import shlex
import sys
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TextIO

from pydantic import ValidationError
from toolerr import Policy, ToolLoopError
from toolerr.adapters import fail_open

from . import _compat
from ._recovery import CallRecovery

logger = logging.getLogger("toolerr")

INTERNAL_ERROR = -32603
_STOP_TIMEOUT = 2.0
_LINE_LIMIT = 1 << 30
_STDERR_LINES = 8
_UNANSWERED = "toolerr-mcp proxy could not answer the call"

Write = Callable[[bytes], None]


class UpstreamError(ConnectionError):
    """The upstream server could not be reached for a call; ``tool_result_text`` is what
    the call's result says."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.tool_result_text = f"Error: toolerr-mcp proxy: {text}"


class UpstreamUnavailable(UpstreamError, ConnectionRefusedError):
    """The upstream server could not be started: the call never reached it. The core
    classifies it as unrecoverable (a configuration failure: retrying cannot fix it)."""


class UpstreamLost(UpstreamError, ConnectionResetError):
    """The upstream's connection ended during the call: its outcome is unknown."""


class UpstreamNotReady(UpstreamError, TimeoutError):
    """The upstream did not answer ``initialize`` within the start-up timeout."""


class Upstream:
    """The upstream MCP server process: started by :meth:`start`, its output read by a
    task that hands every message to ``on_message`` and its end to ``on_exit``."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        startup_timeout: float = 10.0,
        errlog: TextIO | None = None,
    ) -> None:
        if not command:
            raise ValueError("the upstream command is empty; give it after '--'")
        self.command = list(command)
        self.env = dict(os.environ) if env is None else dict(env)
        self.cwd = cwd
        self.startup_timeout = startup_timeout
        self.errlog = errlog
        self.starts = 0
        self.stderr_tail: deque[str] = deque(maxlen=_STDERR_LINES)
        self.process: asyncio.subprocess.Process | None = None
        self.alive = False
        self._tasks: list[asyncio.Task[None]] = []

    def is_alive(self) -> bool:
        return self.alive

    @property
    def display(self) -> str:
        text = shlex.join(self.command)
        # cut in the middle: the end holds the server and its arguments, the start the program
        return text if len(text) <= 120 else f"{text[:40]} ... {text[-75:]}"

    async def spawn(
        self, on_message: Callable[[bytes], None], on_exit: Callable[[], None]
    ) -> asyncio.subprocess.Process:
        """Start the process (``OSError`` when it cannot be executed)."""
        self.starts += 1
        self.stderr_tail.clear()
        process = await asyncio.create_subprocess_exec(
            *self.command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self.env,
            cwd=self.cwd,
            limit=_LINE_LIMIT,
        )
        self.process = process
        self.alive = True
        self._tasks = [
            asyncio.ensure_future(self._read(process, on_message, on_exit)),
            asyncio.ensure_future(self._read_stderr(process)),
        ]
        return process

    def send(self, line: bytes) -> None:
        process = self.process
        if process is None or process.stdin is None or not self.alive:
            raise UpstreamLost(f"the upstream MCP server ({self.display}) is not running")
        try:
            process.stdin.write(line if line.endswith(b"\n") else line + b"\n")
        except (ConnectionError, RuntimeError) as exc:
            raise UpstreamLost(f"the upstream MCP server ({self.display}) closed its input") from exc

    async def _read(
        self,
        process: asyncio.subprocess.Process,
        on_message: Callable[[bytes], None],
        on_exit: Callable[[], None],
    ) -> None:
        assert process.stdout is not None
        try:
            with fail_open("reading the upstream server's output", "the upstream counts as exited"):
                while True:
                    line = await process.stdout.readline()
                    if not line:
                        break
                    with fail_open("relaying a message from the upstream server", "it is dropped"):
                        on_message(line)
        finally:
            if self.process is process:
                self.alive = False
            on_exit()

    async def _read_stderr(self, process: asyncio.subprocess.Process) -> None:
        assert process.stderr is not None
        errlog = self.errlog if self.errlog is not None else sys.stderr
        with contextlib.suppress(OSError, ValueError):  # the pipe broke: no more lines
            while True:
                line = await process.stderr.readline()
                if not line:
                    break
                text = line.decode("utf-8", "replace")
                self.stderr_tail.append(text.rstrip())
                with contextlib.suppress(OSError, ValueError):  # the proxy's own stderr is closed
                    errlog.write(text)
                    errlog.flush()

    async def exit_status(self) -> int | None:
        """The exit status once the process has ended (``None`` if it is still running)."""
        process = self.process
        if process is None:
            return None
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(process.wait(), _STOP_TIMEOUT)
        # the last lines of its stderr
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.gather(*self._tasks[1:]), _STOP_TIMEOUT)
        return process.returncode

    async def stop(self) -> None:
        process = self.process
        self.alive = False
        if process is None:
            return
        if process.returncode is None:
            with contextlib.suppress(OSError, RuntimeError):  # already closed: the loop's own errors
                if process.stdin is not None:
                    process.stdin.close()
            try:
                await asyncio.wait_for(process.wait(), _STOP_TIMEOUT)
            except asyncio.TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.terminate()
                try:
                    await asyncio.wait_for(process.wait(), _STOP_TIMEOUT)
                except asyncio.TimeoutError:
                    with contextlib.suppress(ProcessLookupError):
                        process.kill()
                    await process.wait()
        for task in self._tasks:
            task.cancel()
        self.process = None


def _line(body: dict[str, Any]) -> bytes:
    try:
        return json.dumps(body, ensure_ascii=False).encode() + b"\n"
    except UnicodeEncodeError:  # a lone surrogate (valid JSON as "\ud800", not UTF-8): escaped
        return json.dumps(body).encode() + b"\n"


def _error_line(request_id: Any, code: int, message: str) -> bytes:
    return _line({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})


def _result_line(request_id: Any, result: Any) -> bytes:
    return _line({"jsonrpc": "2.0", "id": request_id, "result": result})


def _task_augmented(message: dict[str, Any]) -> bool:
    """A ``tools/call`` run as a task: answered with a task, not a result (relayed as is)."""
    params = message.get("params")
    return isinstance(params, dict) and params.get("task") is not None


def _decode(line: bytes) -> tuple[Any, bytes]:
    """The message of a line and the bytes to relay (invalid UTF-8 replaced)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        text = line.decode("utf-8", "replace")
        line = text.encode("utf-8")
    return json.loads(text), line


class Proxy:
    """Relays a client and the upstream server (see the module docstring).

    ``options`` are :class:`toolerr.Policy` fields; ``form`` ``c1`` (default) or ``c0``,
    ``loop_action`` ``note`` by default. ``call_timeout``: seconds one call may take
    (``None``: no limit). ``startup_timeout``: seconds the upstream has to answer
    ``initialize`` (the client gets an error then).
    """

    def __init__(
        self,
        command: Sequence[str],
        policy: Policy | None = None,
        *,
        call_timeout: float | None = 60.0,
        startup_timeout: float = 10.0,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        errlog: TextIO | None = None,
        **options: Any,
    ) -> None:
        self.upstream = Upstream(command, env=env, cwd=cwd, startup_timeout=startup_timeout, errlog=errlog)
        # Every failure to get a result from the upstream is a failed call for the client
        # (a result that fails its output schema, a closed connection ...), never a crash.
        self.recovery = CallRecovery(policy, catch=(Exception,), **options)
        self._start_failures = 0  # failed starts since the upstream last ran
        self.call_timeout = call_timeout if call_timeout and call_timeout > 0 else None
        self._caller = _compat.ToolCaller()
        self._write: Write | None = None
        self._ids = itertools.count(1)
        # responses the proxy consumes itself (its own requests, the client's tool calls)
        self._waiting: dict[Any, asyncio.Future[tuple[Any, bytes]]] = {}
        # the client's other requests in flight upstream: id -> method
        self._pending: dict[Any, str] = {}
        self._calls: dict[Any, asyncio.Task[None]] = {}
        self._tools: dict[str, Any] = {}
        self._init_params: Any = None
        self._initialized = False  # the client sent notifications/initialized
        self._start_lock = asyncio.Lock()
        self._start_error: str | None = None
        self._background: set[asyncio.Task[Any]] = set()

    # -- the upstream's side -------------------------------------------------------------

    def _on_upstream(self, line: bytes) -> None:
        try:
            message, line = _decode(line)
        except ValueError:
            logger.warning("toolerr-mcp: skipped a line of the upstream's output that is not JSON-RPC")
            return
        if not isinstance(message, dict):
            self._to_client(line)
            return
        if "method" in message:  # a request or notification for the client
            if message.get("method") == "notifications/tools/list_changed":
                self._spawn(self._learn_tools())
            self._to_client(line)
            return
        request_id = message.get("id")
        waiter = self._waiting.pop(request_id, None)
        if waiter is not None:
            if not waiter.done():
                waiter.set_result((message, line))
            return
        method = self._pending.pop(request_id, None)
        if method is None:
            logger.debug("toolerr-mcp: dropped an answer to no request in flight (id %r)", request_id)
            return
        if method == "tools/list":
            self._learn_listing(message.get("result"), first=True)
        self._to_client(line)

    def _on_exit(self) -> None:
        lost = UpstreamLost(
            f"the upstream MCP server ({self.upstream.display}) closed the connection during the call "
            "(it exited or crashed); it will be started again for the next call"
        )
        calls = [waiter for waiter in self._waiting.values() if not waiter.done()]
        for waiter in calls:
            waiter.set_exception(lost)
        self._waiting.clear()
        if calls and self._initialized:
            logger.error("toolerr-mcp: %s", lost)
        for request_id in list(self._pending):
            self._to_client(
                _error_line(
                    request_id,
                    INTERNAL_ERROR,
                    f"toolerr-mcp proxy: the upstream MCP server ({self.upstream.display}) "
                    "closed the connection",
                )
            )
        self._pending.clear()
        if self._initialized and not calls:
            logger.error(
                "toolerr-mcp: the upstream server (%s) stopped answering (its output ended)",
                self.upstream.display,
            )

    async def _request(self, method: str, params: Any, timeout: float | None) -> Any:
        """A request of the proxy's own to the upstream; its result (``UpstreamError``,
        ``TimeoutError`` or the JSON-RPC error as an SDK error when it fails)."""
        request_id = f"toolerr-mcp-{next(self._ids)}"
        waiter: asyncio.Future[tuple[Any, bytes]] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = waiter
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            body["params"] = params
        try:
            self.upstream.send(json.dumps(body).encode())
            message, _ = await asyncio.wait_for(waiter, timeout)
        finally:
            self._waiting.pop(request_id, None)
        error = message.get("error")
        if isinstance(error, dict):
            raise _compat.make_mcp_error(
                int(error.get("code", INTERNAL_ERROR)), str(error.get("message", ""))
            )
        return message.get("result")

    async def _start(self, init: bytes | None) -> tuple[Any, bytes]:
        """Start the upstream and send it the client's ``initialize`` (the client's own
        message ``init``, or a new one with its parameters); its answer.

        Raises :class:`UpstreamUnavailable` when it cannot start and
        :class:`UpstreamNotReady` when it does not answer in time."""
        up = self.upstream
        await up.stop()
        if up.starts:
            logger.warning("toolerr-mcp: the upstream server (%s) has exited; starting it again", up.display)
        try:
            await up.spawn(self._on_upstream, self._on_exit)
        except OSError as exc:
            reason = f"{type(exc).__name__}: {exc.strerror or exc}"
            raise self._unavailable(reason) from exc
        if init is None:
            request_id: Any = f"toolerr-mcp-{next(self._ids)}"
            body = {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": self._init_params}
            init = json.dumps(body).encode()
        else:
            request_id = json.loads(init).get("id")
        waiter: asyncio.Future[tuple[Any, bytes]] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = waiter
        try:
            up.send(init)
            message, line = await asyncio.wait_for(waiter, up.startup_timeout)
        except asyncio.TimeoutError:
            await up.stop()
            text = (
                f"the upstream MCP server ({up.display}) did not answer initialize within "
                f"{up.startup_timeout:g} s; it will be started again at the next request"
            )
            logger.error("toolerr-mcp: %s", text)
            raise UpstreamNotReady(text) from None
        except UpstreamError:
            status = await up.exit_status()
            reason = (
                "it exited during start-up"
                if status is None
                else f"it exited with status {status} during start-up"
            )
            raise self._unavailable(reason) from None
        finally:
            self._waiting.pop(request_id, None)
        if "result" not in message:
            await up.stop()
            error = message.get("error") or {}
            raise self._unavailable(
                f"it refused initialize: MCP error {error.get('code')}: {error.get('message')}"
            )
        self._start_error = None
        if up.starts > 1:
            logger.warning("toolerr-mcp: the upstream server (%s) was started again", up.display)
        return message, line

    def _unavailable(self, reason: str) -> UpstreamUnavailable:
        tail = [line for line in self.upstream.stderr_tail if line.strip()]
        stderr = f"; its last messages on stderr: {' | '.join(tail)[-600:]}" if tail else ""
        text = (
            f"the upstream MCP server ({self.upstream.display}) could not be started: {reason}{stderr}. "
            "This is a configuration problem of the MCP server (its command, arguments or environment), "
            "not of this call; the proxy tries to start it again at the next request"
        )
        if text != self._start_error:
            logger.error("toolerr-mcp: %s", text)
        self._start_error = text
        self._start_failures += 1
        return UpstreamUnavailable(text)

    async def _ensure_started(self) -> None:
        """The upstream running and initialized with the client's parameters."""
        if self.upstream.alive:
            return
        async with self._start_lock:
            if self.upstream.is_alive():  # started by another request meanwhile
                return
            if self._init_params is None:
                raise UpstreamUnavailable("the client has not sent initialize yet")
            await self._start(None)
            if self._start_failures:
                # The calls that failed while it could not start say nothing about the calls
                # now that it runs: a fresh ledger, so that none of them stays blocked.
                self.recovery.reset()
                self._start_failures = 0
            if self._initialized:
                self.upstream.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
                self._spawn(self._learn_tools())
                if self.upstream.starts > 1 and self._start_failed_before:
                    # the client was served without the upstream's tools: now it has them
                    self._to_client(b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n')
            self._start_failed_before = False

    _start_failed_before = False

    # -- tools ---------------------------------------------------------------------------

    def _learn_listing(self, result: Any, *, first: bool) -> Any:
        """Retry safety and output schemas from a ``tools/list`` page; its next cursor."""
        if not isinstance(result, dict):
            return None
        try:
            tools = [_compat.Tool.model_validate(tool) for tool in result.get("tools") or ()]
        except (ValidationError, TypeError):  # a listing the SDK cannot read: nothing learned
            logger.warning("toolerr-mcp: the upstream's tool listing is not valid; retry safety unchanged")
            return None
        if first and not result.get("nextCursor"):
            self._tools = {}
        self._tools.update((tool.name, tool) for tool in tools)
        listed = list(self._tools.values())
        self.recovery.learn_tools(listed)
        self._caller.learn_tools(listed)
        return result.get("nextCursor")

    async def _learn_tools(self) -> None:
        """The upstream's tools, listed by the proxy itself (after a start, on a change)."""
        with fail_open("learning the upstream's tools", "retry safety unchanged"):
            cursor: Any = None
            self._tools = {}
            try:
                for _ in range(_compat.MAX_PAGES):
                    params = {"cursor": cursor} if cursor else None
                    result = await self._request("tools/list", params, self.call_timeout or 60.0)
                    cursor = self._learn_listing(result, first=False)
                    if not cursor:
                        break
            except (UpstreamError, asyncio.TimeoutError, _compat.MCP_ERROR):  # the upstream's failure
                logger.debug("toolerr-mcp: listing the upstream's tools failed", exc_info=True)

    async def _tool_call(self, message: dict[str, Any], line: bytes) -> None:
        request_id = message.get("id")
        given = message.get("params")
        params: dict[str, Any] = given if isinstance(given, dict) else {}
        given_name = params.get("name")
        name: str = given_name if isinstance(given_name, str) else ""
        given_args = params.get("arguments")
        arguments: dict[str, Any] = given_args if isinstance(given_args, dict) else {}
        answered: list[tuple[Any, bytes, Any]] = []

        async def invoke() -> Any:
            answered.clear()  # re-run hidden (auto_retry): the last attempt's answer is the one
            await self._ensure_started()  # UpstreamUnavailable / UpstreamNotReady
            waiter: asyncio.Future[tuple[Any, bytes]] = asyncio.get_running_loop().create_future()
            self._waiting[request_id] = waiter
            try:
                self.upstream.send(line)
                response, raw = await asyncio.wait_for(waiter, self.call_timeout)
            except asyncio.TimeoutError:
                cancel = {
                    "jsonrpc": "2.0",
                    "method": "notifications/cancelled",
                    "params": {"requestId": request_id, "reason": "toolerr-mcp proxy: call timeout"},
                }
                with contextlib.suppress(UpstreamError):
                    self.upstream.send(json.dumps(cancel).encode())
                raise TimeoutError(
                    f"the upstream MCP server did not answer the call within {self.call_timeout:g} s"
                ) from None
            finally:
                self._waiting.pop(request_id, None)
            error = response.get("error")
            if isinstance(error, dict):
                code = error.get("code")
                raise _compat.make_mcp_error(
                    code if isinstance(code, int) else INTERNAL_ERROR, str(error.get("message", ""))
                )
            given = response.get("result")
            if isinstance(given, dict) and given.get("resultType", "complete") != "complete":
                # not a tool result yet (input required: the server asks the client first)
                relayed = object()
                answered.append((relayed, raw, given))
                return relayed  # passed through by the recovery, relayed as it is below
            result = _compat.CallToolResult.model_validate(given)
            if not _compat.is_error(result):
                self._caller.validate(name, result)
            answered.append((result, raw, given))
            return result

        result: Any = None
        try:
            with fail_open(f"the call to {name!r} inside the proxy", "the client is told so") as forwarding:
                try:
                    result = await self.recovery.call(name, arguments, invoke)
                except ToolLoopError as exc:
                    result = _compat.error_result(f"Error: {exc}")
        finally:
            self._calls.pop(request_id, None)
        if forwarding.error is not None:
            kind = type(forwarding.error).__name__
            result = _compat.error_result(f"Error: toolerr-mcp proxy could not forward the call ({kind})")
        if answered and result is answered[0][0]:
            self._to_client(answered[0][1])  # a success: the upstream's own bytes
            return
        # never leave the call unanswered: the upstream's own answer when toolerr's cannot be sent
        answer = answered[0][1] if answered else _error_line(request_id, INTERNAL_ERROR, _UNANSWERED)
        with fail_open(
            "encoding a tool result for the client",
            f"could not send the annotated result of {name}; the upstream's own answer is sent",
        ):
            dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
            if answered:  # the upstream's result annotated: its own fields kept
                dumped = _annotated(answered[0][2], answered[0][0], dumped)
            answer = _result_line(request_id, dumped)
        self._to_client(answer)

    # -- the client's side ---------------------------------------------------------------

    def _to_client(self, line: bytes) -> None:
        if self._write is not None:
            self._write(line if line.endswith(b"\n") else line + b"\n")

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _initialize(self, message: dict[str, Any], line: bytes) -> None:
        request_id = message.get("id")
        self._init_params = message.get("params")
        async with self._start_lock:
            try:
                _, answer = await self._start(line)
            except UpstreamNotReady as exc:
                self._to_client(_error_line(request_id, INTERNAL_ERROR, f"toolerr-mcp proxy: {exc}"))
                return
            except UpstreamUnavailable as exc:
                # The client is served all the same: its calls say what is wrong, and each
                # request tries to start the upstream again.
                self._start_failed_before = True
                params = self._init_params if isinstance(self._init_params, dict) else {}
                version = params.get("protocolVersion") or "2025-06-18"
                self._to_client(
                    _result_line(
                        request_id,
                        {
                            "protocolVersion": version,
                            "capabilities": {"tools": {"listChanged": True}},
                            "serverInfo": {"name": "toolerr-mcp", "version": _version()},
                            "instructions": f"toolerr-mcp proxy: {exc}",
                        },
                    )
                )
                return
        self._to_client(answer)

    async def _forward(self, message: dict[str, Any], line: bytes) -> None:
        """A request of the client's other than initialize and tools/call."""
        request_id = message.get("id")
        method = message.get("method")
        try:
            await self._ensure_started()
            self._pending[request_id] = str(method)
            self.upstream.send(line)
        except UpstreamError as exc:
            self._pending.pop(request_id, None)
            if method == "ping":
                self._to_client(_result_line(request_id, {}))
                return
            self._to_client(_error_line(request_id, INTERNAL_ERROR, f"toolerr-mcp proxy: {exc}"))

    async def _on_client(self, line: bytes) -> None:
        try:
            message, line = _decode(line)
        except ValueError:
            logger.warning("toolerr-mcp: skipped a line from the client that is not JSON-RPC")
            return
        if not isinstance(message, dict):
            with contextlib.suppress(UpstreamError):
                self.upstream.send(line)
            return
        method = message.get("method")
        if method is None:  # the client's answer to a request of the upstream's
            with contextlib.suppress(UpstreamError):
                self.upstream.send(line)
            return
        if "id" not in message:  # a notification
            if method == "notifications/initialized":
                self._initialized = True
                self._spawn(self._learn_tools())
            elif method == "notifications/cancelled":
                params = message.get("params")
                call = self._calls.pop(params.get("requestId"), None) if isinstance(params, dict) else None
                if call is not None:
                    call.cancel()
            if self.upstream.alive:
                with contextlib.suppress(UpstreamError):
                    self.upstream.send(line)
            return
        if method == "initialize":
            await self._initialize(message, line)
        elif method == "tools/call" and not _task_augmented(message):
            task = asyncio.ensure_future(self._tool_call(message, line))
            self._calls[message.get("id")] = task
        else:
            await self._forward(message, line)

    async def serve(self, receive: Callable[[], Awaitable[bytes]], write: Write) -> None:
        """Relay until ``receive`` returns ``b""`` (the client closed its side)."""
        self._write = write
        try:
            while True:
                line = await receive()
                if not line:
                    break
                if not line.strip():
                    continue
                with fail_open("relaying a message from the client", "it is dropped"):
                    await self._on_client(line)
        finally:
            for task in list(self._calls.values()):
                task.cancel()
            await self.upstream.stop()
            for task in list(self._background):
                task.cancel()

    async def serve_stdio(self) -> None:
        """Serve over this process's stdin and stdout until the client closes them."""
        loop = asyncio.get_running_loop()
        receive: Callable[[], Awaitable[bytes]]
        write: Write
        try:
            reader = asyncio.StreamReader(limit=_LINE_LIMIT)
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)
            receive = reader.readline
        except (OSError, ValueError):  # not a pipe (a file): read it in a thread
            stdin = sys.stdin.buffer

            async def receive() -> bytes:
                return await asyncio.to_thread(stdin.readline)

        try:
            transport, protocol = await loop.connect_write_pipe(
                asyncio.streams.FlowControlMixin, sys.stdout.buffer
            )
            write = asyncio.StreamWriter(transport, protocol, None, loop).write
        except (OSError, ValueError):  # not a pipe (a file): plain writes
            stdout = sys.stdout.buffer

            def write(line: bytes) -> None:
                stdout.write(line)
                stdout.flush()

        await self.serve(receive, write)


def _annotated(given: Any, original: Any, dumped: dict[str, Any]) -> dict[str, Any]:
    """The upstream's own result (``given``, as it sent it) with what toolerr changed in
    ``original`` to make ``dumped``: blocks appended, the error flag, ``_meta``. The SDK's
    models drop the fields they do not know (newer protocol revisions, vendor extensions);
    this keeps them. ``dumped`` when the change is not of that shape."""
    if not isinstance(given, dict) or not isinstance(given.get("content"), list):
        return dumped
    with fail_open("keeping the upstream's own result fields", "the result is sent without them"):
        before = original.model_dump(by_alias=True, mode="json", exclude_none=True)
        old, new = before.get("content") or [], dumped.get("content") or []
        if new[: len(old)] != old:
            return dumped
        out = {**given, "content": [*given["content"], *new[len(old) :]]}
        out.update(
            (key, value) for key, value in dumped.items() if key != "content" and before.get(key) != value
        )
        return out
    return dumped


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("toolerr-mcp")
    except PackageNotFoundError:
        return "0"
