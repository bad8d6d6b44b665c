"""``toolerr-mcp``: the command line (``toolerr-mcp proxy [options] -- CMD ARGS...``)."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

import anyio
from toolerr import LOOP_ACTIONS

from ._proxy import Proxy, _version

_EPILOG = """\
example, in an MCP client's server configuration (Claude Desktop, Cursor, VS Code ...):

  "files": {
    "command": "toolerr-mcp",
    "args": ["proxy", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/home/me"]
  }

Everything after "--" is the upstream server's command line. Messages from the proxy
and from the upstream server go to stderr; stdout carries the MCP protocol only.
"""


def _safety(text: str) -> tuple[str, str]:
    name, sep, value = text.rpartition("=")
    if not sep or not name or value not in ("read_only", "idempotent", "unsafe"):
        raise argparse.ArgumentTypeError(f"expected TOOL=read_only|idempotent|unsafe, got {text!r}")
    return name, value


def _env(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    return name, value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toolerr-mcp",
        description="toolerr for MCP: failed tool calls that tell the model what to do next.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    proxy = commands.add_parser(
        "proxy",
        help="serve a stdio MCP server through toolerr (for clients you cannot change)",
        description=(
            "A stdio MCP server that starts the upstream server CMD ARGS as a subprocess, mirrors "
            "its tools (with annotations), forwards calls and adds guidance to failed results."
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    proxy.add_argument(
        "--form",
        choices=("c1", "c0"),
        default="c1",
        help="c1: append the guidance to a failed result (default); c0: classify under _meta only",
    )
    proxy.add_argument(
        "--loop-action",
        choices=sorted(LOOP_ACTIONS),
        default="note",
        help=(
            "a repeated failing call: note it in the result (default); block: answer an identical "
            "repeat of a fixable or unrecoverable failure (or of a temporary one over the retry "
            "budget) without reaching the server, never one of an ambiguous failure; stop: answer "
            "with an error that says toolerr stopped the run"
        ),
    )
    proxy.add_argument(
        "--retry-budget", type=int, default=3, help="retries of a temporary failure (default 3)"
    )
    proxy.add_argument(
        "--call-timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="longest wait for one call's result; 0: no limit (default 60)",
    )
    proxy.add_argument(
        "--startup-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="longest wait for the upstream server to answer initialize (default 10)",
    )
    proxy.add_argument(
        "--tool-safety",
        type=_safety,
        action="append",
        default=[],
        metavar="TOOL=SAFETY",
        help="read_only, idempotent or unsafe; wins over the tool's annotations (repeatable)",
    )
    proxy.add_argument(
        "--max-error-chars",
        type=int,
        default=2000,
        help="cap on error text restated in a note (default 2000)",
    )
    proxy.add_argument(
        "--env",
        type=_env,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra upstream environment",
    )
    proxy.add_argument("--cwd", default=None, help="the upstream server's working directory")
    proxy.add_argument(
        "-v", "--verbose", action="count", default=0, help="log each detected failure (-vv: debug)"
    )
    proxy.add_argument(
        "upstream", nargs=argparse.REMAINDER, metavar="-- CMD ARGS", help="the upstream server"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    upstream = list(args.upstream)
    if upstream and upstream[0] == "--":
        upstream = upstream[1:]
    if not upstream:
        parser.error("give the upstream server's command after '--': toolerr-mcp proxy -- CMD ARGS...")
    _configure_logging(args.verbose)
    import os

    env = dict(os.environ)
    env.update(dict(args.env))
    try:
        proxy = Proxy(
            upstream,
            form=args.form,
            loop_action=args.loop_action,
            retry_budget=args.retry_budget,
            tool_safety=dict(args.tool_safety),
            max_error_chars=args.max_error_chars,
            call_timeout=args.call_timeout,
            startup_timeout=args.startup_timeout,
            env=env,
            cwd=args.cwd,
        )
    except ValueError as exc:
        parser.error(str(exc))
    try:
        anyio.run(proxy.serve_stdio)
    except KeyboardInterrupt:
        return 130
    return 0


def _configure_logging(verbose: int) -> None:
    logger = logging.getLogger("toolerr")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG)
    logger.propagate = False


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
