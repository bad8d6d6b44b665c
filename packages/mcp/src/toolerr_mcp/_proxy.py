"""The proxy: a stdio MCP server that serves another stdio MCP server through the layer.

``toolerr-mcp proxy [options] -- CMD ARGS...`` starts ``CMD ARGS`` as a subprocess (the
*upstream*), mirrors its tools (with their annotations), forwards each call and applies
the layer to the result, for MCP clients that cannot be changed (desktop apps, IDEs,
coding agents). If the upstream cannot start or dies, tool results and stderr say so,
and it is started again for the next call; no call waits longer than the call timeout.
"""

from __future__ import annotations

import logging
import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import anyio
import anyio.abc
from toolerr import Policy, ToolLoopError

from . import _compat
from ._recovery import TRANSPORT_ERRORS, CallRecovery

logger = logging.getLogger("toolerr")

CONNECTION_CLOSED = -32000
INTERNAL_ERROR = -32603
_MAX_PAGES = 100
_STOP_TIMEOUT = 10.0


class UpstreamError(ConnectionError):
    """The upstream server could not be reached for a call; ``tool_result_text`` is what
    the call's result says."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.tool_result_text = f"Error: toolerr-mcp proxy: {text}"


class UpstreamUnavailable(UpstreamError, ConnectionRefusedError):
    """The upstream server could not be started: the call never reached it."""


class UpstreamLost(UpstreamError, ConnectionResetError):
    """The upstream's connection ended during the call: its outcome is unknown."""


_LIST_ERRORS: tuple[type[BaseException], ...] = (UpstreamError, *TRANSPORT_ERRORS)


@dataclass
class _Run:
    """One start of the upstream: its session while it is up, and how it ended."""

    ready: anyio.Event = field(default_factory=anyio.Event)
    stop: anyio.Event = field(default_factory=anyio.Event)
    done: anyio.Event = field(default_factory=anyio.Event)
    session: Any = None
    init: Any = None
    tools: list[Any] | None = None
    error: str | None = None
    dead: bool = False


class Upstream:
    """The upstream MCP server process and its client session.

    Started on demand by :meth:`session` (bounded by ``startup_timeout``), marked dead
    when its output ends, and started again at the next :meth:`session` after that. Each
    start runs in a task of the task group given to :meth:`attach`.
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        startup_timeout: float = 30.0,
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
        self.tools: list[Any] | None = None
        self.init: Any = None
        self._run: _Run | None = None
        self._lock = anyio.Lock()
        self._tg: anyio.abc.TaskGroup | None = None

    @property
    def display(self) -> str:
        text = shlex.join(self.command)
        return text if len(text) <= 120 else text[:117] + "..."

    @property
    def alive(self) -> bool:
        run = self._run
        return run is not None and run.session is not None and not run.dead

    def attach(self, task_group: anyio.abc.TaskGroup) -> None:
        self._tg = task_group

    async def session(self) -> Any:
        """The live session, starting the upstream first if it is not running.

        Raises :class:`UpstreamError` when it cannot be started."""
        run = self._run
        if run is not None and run.session is not None and not run.dead:
            return run.session
        async with self._lock:
            run = self._run
            if run is not None and run.session is not None and not run.dead:
                return run.session
            if run is not None:
                logger.warning(
                    "toolerr-mcp: the upstream server (%s) has exited; starting it again", self.display
                )
                await self._stop(run)
            return await self._start()

    def mark_dead(self) -> None:
        if self._run is not None:
            self._run.dead = True

    async def close(self) -> None:
        async with self._lock:
            if self._run is not None:
                await self._stop(self._run)
                self._run = None

    async def _start(self) -> Any:
        if self._tg is None:
            raise RuntimeError("Upstream.attach(task_group) must be called before starting it")
        run = _Run()
        self._run = run
        self.starts += 1
        self._tg.start_soon(self._serve, run)
        with anyio.move_on_after(self.startup_timeout + _STOP_TIMEOUT):
            await run.ready.wait()
        if run.session is None or run.dead:
            reason = run.error or f"it did not finish starting within {self.startup_timeout:g} s"
            run.stop.set()
            text = f"the upstream MCP server ({self.display}) could not be started: {reason}"
            logger.error("toolerr-mcp: %s", text)
            raise UpstreamUnavailable(text)
        if self.starts > 1:
            logger.warning("toolerr-mcp: the upstream server (%s) was started again", self.display)
        return run.session

    async def _stop(self, run: _Run) -> None:
        run.stop.set()
        with anyio.move_on_after(_STOP_TIMEOUT):
            await run.done.wait()

    async def _serve(self, run: _Run) -> None:
        from mcp import ClientSession
        from mcp.client.stdio import stdio_client

        params = _compat.stdio_parameters(self.command[0], self.command[1:], env=self.env, cwd=self.cwd)
        errlog = self.errlog if self.errlog is not None else sys.stderr
        try:
            async with stdio_client(params, errlog=errlog) as (read, write):
                # Messages pass through a pump so that the end of the server's output
                # (it exited or crashed) is seen at once, between calls too.
                send, receive = anyio.create_memory_object_stream[Any](0)
                async with anyio.create_task_group() as pumps:
                    pumps.start_soon(self._pump, read, send, run)
                    async with ClientSession(receive, write) as session:
                        with anyio.fail_after(self.startup_timeout):
                            run.init = await session.initialize()
                            run.tools = await list_all_tools(session)
                        self.init = run.init
                        self.tools = run.tools
                        run.session = session
                        run.ready.set()
                        await run.stop.wait()
                    pumps.cancel_scope.cancel()
        except Exception as exc:
            run.error = _describe_start_error(exc)
            if run.session is None:
                logger.debug("toolerr-mcp: upstream start failed", exc_info=True)
            else:
                logger.warning("toolerr-mcp: the upstream connection ended: %s", run.error)
        finally:
            run.dead = True
            run.session = None
            run.ready.set()
            run.done.set()

    @staticmethod
    async def _pump(read: Any, send: Any, run: _Run) -> None:
        try:
            async with send:
                async for item in read:
                    await send.send(item)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
            pass
        finally:
            if not run.stop.is_set() and run.session is not None:
                logger.error("toolerr-mcp: the upstream server stopped answering (its output ended)")
            run.dead = True


def _describe_start_error(exc: BaseException) -> str:
    inner = getattr(exc, "exceptions", None)  # an exception group (Python 3.11+, anyio)
    while isinstance(inner, tuple) and len(inner) == 1 and isinstance(inner[0], BaseException):
        exc = inner[0]
        inner = getattr(exc, "exceptions", None)
    if isinstance(exc, TimeoutError):
        return "it did not answer the MCP handshake in time"
    if isinstance(exc, _compat.MCP_ERROR):
        code = _compat.error_code(exc)
        message = _compat.error_message(exc)
        if code == CONNECTION_CLOSED:
            return "it exited during start-up (see its messages on stderr)"
        return f"MCP error {code}: {message}"
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


async def list_all_tools(session: Any) -> list[Any]:
    """Every tool of a session, all pages."""
    tools: list[Any] = []
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        page = await (
            session.list_tools() if cursor is None else session.list_tools(params=_compat.paginated(cursor))
        )
        tools.extend(page.tools)
        cursor = _compat.next_cursor(page)
        if cursor is None:
            break
    return tools


class Proxy:
    """Serves the upstream's tools through the layer (see the module docstring).

    ``options`` are :class:`toolerr.Policy` fields; ``form`` ``c1`` (default) or ``c0``,
    ``loop_action`` ``block`` by default. ``call_timeout``: seconds one call may take
    (``None``: no limit). ``startup_timeout``: seconds the upstream has to answer the
    MCP handshake.
    """

    def __init__(
        self,
        command: Sequence[str],
        policy: Policy | None = None,
        *,
        call_timeout: float | None = 60.0,
        startup_timeout: float = 30.0,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        errlog: TextIO | None = None,
        **options: Any,
    ) -> None:
        self.upstream = Upstream(command, env=env, cwd=cwd, startup_timeout=startup_timeout, errlog=errlog)
        # Every failure to get a result from the upstream is a failed call for the client
        # (a result that fails its output schema, a closed connection ...), never a crash.
        self.recovery = CallRecovery(policy, catch=(Exception,), **options)
        self.call_timeout = call_timeout if call_timeout and call_timeout > 0 else None
        self._caller = _compat.ToolCaller()
        self._tools_seen: list[Any] | None = None

    async def list_tools(self) -> Any:
        """``tools/list``: the upstream's tools as it lists them now (its last listing when
        it is down); their annotations set the tools' retry safety."""
        try:
            session = await self.upstream.session()
            with anyio.fail_after(self.call_timeout or 3600):
                tools = await list_all_tools(session)
            self.upstream.tools = tools
        except _LIST_ERRORS as exc:
            if self.upstream.tools is None:
                text = str(exc) if isinstance(exc, UpstreamError) else _describe_start_error(exc)
                raise _compat.make_mcp_error(INTERNAL_ERROR, f"toolerr-mcp proxy: {text}") from exc
            logger.warning("toolerr-mcp: listing the upstream's tools failed; serving its last listing")
            tools = self.upstream.tools
        return _compat.ListToolsResult(tools=list(tools))

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        """``tools/call``: forwarded upstream, the result through the layer."""
        try:
            return await self.recovery.call(name, arguments, lambda: self._forward(name, arguments))
        except ToolLoopError as exc:
            return _compat.error_result(f"Error: {exc}")
        except Exception as exc:
            logger.exception("toolerr-mcp: the call to %s failed inside the proxy", name)
            return _compat.error_result(
                f"Error: toolerr-mcp proxy could not forward the call ({type(exc).__name__})"
            )

    async def _forward(self, name: str, arguments: dict[str, Any]) -> Any:
        session = await self.upstream.session()  # UpstreamError when it cannot start
        if self.upstream.tools is not None and self._tools_seen is not self.upstream.tools:
            self._tools_seen = self.upstream.tools  # a new listing (a start, or tools/list)
            self.recovery.learn_tools(self._tools_seen)
            self._caller.learn_tools(self._tools_seen)
        try:
            return await self._caller.call(session, name, arguments, self.call_timeout)
        except (
            _compat.MCP_ERROR,
            anyio.ClosedResourceError,
            anyio.BrokenResourceError,
            anyio.EndOfStream,
        ) as exc:
            code = _compat.error_code(exc)
            if code is not None and code != CONNECTION_CLOSED and self.upstream.alive:
                raise
            self.upstream.mark_dead()
            text = (
                f"the upstream MCP server ({self.upstream.display}) closed the connection during the call "
                "(it exited or crashed); it will be started again for the next call"
            )
            logger.error("toolerr-mcp: %s (tool %s)", text, name)
            raise UpstreamLost(text) from exc

    def _forwarded(self, capabilities: Any) -> dict[str, _compat.Forward]:
        """Resources and prompts, forwarded as they are when the upstream offers them."""
        forward: dict[str, _compat.Forward] = {}
        if getattr(capabilities, "resources", None) is not None:
            forward["list_resources"] = lambda params: self.forward("list_resources", params=params)
            forward["list_resource_templates"] = lambda params: self.forward(
                "list_resource_templates", params=params
            )
            forward["read_resource"] = lambda params: self.forward("read_resource", params.uri)
        if getattr(capabilities, "prompts", None) is not None:
            forward["list_prompts"] = lambda params: self.forward("list_prompts", params=params)
            forward["get_prompt"] = lambda params: self.forward("get_prompt", params.name, params.arguments)
        return forward

    async def forward(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """A request other than a tool call, passed to the upstream's session as it is.

        The upstream's own errors reach the client as they are; a proxy failure (the
        upstream cannot start, its connection ended, no answer within the call timeout)
        is a JSON-RPC internal error that says what happened."""
        try:
            session = await self.upstream.session()
            with anyio.fail_after(self.call_timeout or 3600):
                return await getattr(session, method)(*args, **kwargs)
        except _compat.MCP_ERROR as exc:
            if _compat.error_code(exc) != CONNECTION_CLOSED:
                raise
            self.upstream.mark_dead()
            text = f"the upstream MCP server ({self.upstream.display}) closed the connection"
        except UpstreamError as exc:
            text = str(exc)
        except TimeoutError:
            text = f"the upstream MCP server ({self.upstream.display}) did not answer in time"
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
            self.upstream.mark_dead()
            text = f"the upstream MCP server ({self.upstream.display}) closed the connection"
        logger.error("toolerr-mcp: %s (%s)", text, method)
        raise _compat.make_mcp_error(INTERNAL_ERROR, f"toolerr-mcp proxy: {text}")

    async def serve_stdio(self) -> None:
        """Serve over this process's stdin and stdout until the client closes them."""
        from mcp.server.stdio import stdio_server

        async with anyio.create_task_group() as tg:
            self.upstream.attach(tg)
            try:
                await self.upstream.session()
            except UpstreamError:
                pass  # logged; each call tries again and says so in its result
            init = self.upstream.init
            server = _compat.build_server(
                "toolerr-mcp",
                version=_version(),
                instructions=getattr(init, "instructions", None),
                list_tools=self.list_tools,
                call_tool=self.call_tool,
                forward=self._forwarded(getattr(init, "capabilities", None)),
            )
            try:
                async with stdio_server() as (read, write):
                    await server.run(read, write, server.create_initialization_options())
            finally:
                with anyio.CancelScope(shield=True):
                    await self.upstream.close()
                tg.cancel_scope.cancel()


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("toolerr-mcp")
    except Exception:  # noqa: BLE001
        return "0"
