"""``toolerr demo``: what toolerr changes.

With the evaluation installed (``toolerr-eval``, found through the ``toolerr.commands``
entry points), the demo runs the embedded model on failing tool calls and compares the
standard harness with toolerr's; without it the demo exits with status 2 and the install
command. ``--quick`` is a deterministic
walk-through of the core on built-in examples (no model needed).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from ._layer import ToolErrorLayer
from ._types import Message, ToolCall, content_text

EXAMPLES: tuple[tuple[str, str, dict[str, Any], str], ...] = (
    ("transient", "get_forecast", {"city": "Paris", "days": 3}, "Error: 503 Service Unavailable"),
    (
        "fixable",
        "get_forecast",
        {"city": "Paris", "unit": "kelvins"},
        "Error: ValueError(\"Invalid unit 'kelvins'; expected one of: celsius, fahrenheit\")\n"
        " Please fix your mistakes.",
    ),
    (
        "unrecoverable",
        "export_report",
        {"path": "/reports/q3.pdf"},
        "Error: 403 Forbidden: token lacks scope 'reports:write'",
    ),
    ("ambiguous", "get_forecast", {"city": "Atlantis"}, "Error: 404 Not Found"),
    ("no failure", "get_forecast", {"city": "Paris", "days": 3}, "Paris: 12C, light rain"),
)


def _conversation(tool: str, arguments: dict[str, Any], result: str) -> list[Message]:
    call = ToolCall(id="call_1", name=tool, arguments=arguments)
    return [
        Message("system", "You are a helpful assistant with tools."),
        Message("user", "What will the weather be in Paris, and export the Q3 report."),
        Message("assistant", "", tool_calls=(call,)),
        Message("tool", result, tool_call_id="call_1", name=tool),
    ]


def _show(messages: list[Message], start: int) -> str:
    lines = []
    for message in messages[start:]:
        text = content_text(message.content)
        if message.tool_calls:
            text = ", ".join(f"{c.name}({json.dumps(c.arguments)})" for c in message.tool_calls)
        lines.append(f"    [{message.role}] " + text.replace("\n", "\n      "))
    return "\n".join(lines)


def walkthrough(out: Any = None) -> dict[str, Any]:
    """The deterministic walk-through: each kind through C0 (the client's form) and C3."""
    write = (out or sys.stdout).write
    summary: dict[str, Any] = {"examples": []}
    write("toolerr demo: the same failed tool call, as the model sees it\n")
    write("=" * 72 + "\n")
    for label, tool, arguments, result in EXAMPLES:
        conversation = _conversation(tool, arguments, result)
        records: list[Any] = []
        layer = ToolErrorLayer(form="c3", on_record=records.append)
        rewritten = layer.rewrite(conversation)
        kind = records[0].kind if records else None
        write(f"\n## {label}: {tool} -> {result.splitlines()[0]}\n")
        write(f"  detected: {bool(records)}  kind: {kind}  rule: {records[0].rule if records else None}\n")
        write("  standard harness (C0) shows the model:\n" + _show(conversation, 2) + "\n")
        if rewritten.changed:
            write("  toolerr (C3) shows the model:\n" + _show(rewritten.messages, 2) + "\n")
        else:
            write(
                "  toolerr (C3): unchanged ("
                + ("no guidance for an ambiguous failure" if records else "no failure")
                + ")\n"
            )
        summary["examples"].append(
            {
                "label": label,
                "failed": bool(records),
                "kind": kind,
                "rule": records[0].rule if records else None,
                "changed": rewritten.changed,
                "messages_seen": [content_text(m.content) for m in rewritten.messages],
            }
        )

    write("\n## a loop: the same fixable call fails twice\n")
    call = ToolCall(id="c1", name="get_forecast", arguments={"city": "Paris", "unit": "kelvins"})
    again = ToolCall(id="c2", name="get_forecast", arguments={"unit": "kelvins", "city": "Paris"})
    error = "Error: Invalid parameters: unit must be one of celsius, fahrenheit"
    loop = [
        Message("user", "Weather in Paris in kelvins?"),
        Message("assistant", "", tool_calls=(call,)),
        Message("tool", error, tool_call_id="c1", name="get_forecast"),
        Message("assistant", "", tool_calls=(again,)),
        Message("tool", error, tool_call_id="c2", name="get_forecast"),
    ]
    looped = ToolErrorLayer(form="c3").rewrite(loop)
    write(_show(looped.messages, 3) + "\n")
    blocker = ToolErrorLayer(form="c3", loop_action="block")
    decision = blocker.check_call("get_forecast", {"city": "Paris", "unit": "kelvins"}, messages=loop)
    write(f"  with loop_action='block', a third identical call is: {decision.action}\n")
    summary["loop"] = {"changed": looped.changed, "third_call": decision.action}
    write(
        "\nWithout --quick, the demo runs the embedded local model (SmolLM2-135M-Instruct, toolerr-eval).\n"
    )
    return summary


def run_demo(args: argparse.Namespace) -> int:
    if not args.quick:
        from ._cli import _load_command

        run_model_demo = _load_command("demo", "runs the embedded local model")
        if run_model_demo is None:
            sys.stderr.write("(`toolerr demo --quick` is the walk-through of the core without a model)\n")
            return 2
        code: int = run_model_demo(args)
        return code
    summary = walkthrough()
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "demo.json"), "w", encoding="utf-8") as handle:
            json.dump(summary, handle, indent=2, ensure_ascii=False)
    return 0
