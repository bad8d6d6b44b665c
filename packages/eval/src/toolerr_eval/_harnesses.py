"""The harnesses compared: what the model is shown after a failed call, and what it may not write.

Each harness turns the client's own history (a neutral ``list[toolerr.Message]``) into a
:class:`View`: the messages the model reads and the call strings the decoder bans. The
forms (C0-C4, abstract) and the ban's failed calls come from the core
(:class:`toolerr.ToolErrorLayer`, its failed-call ledger); the harness-specific bits
(the "do not repeat" instruction, clean restart, the reflect-and-retry checklist, ADK's
ReflectAndRetryToolPlugin response) live here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal, get_args

from toolerr import Message, ToolErrorLayer, inspect_message
from toolerr.adapters import (
    ToolSafety,
    clean_text,
    content_text,
    find_decision_step,
    format_arguments,
    pair_results,
)
from toolerr_hf import HermesFormat

__all__ = [
    "EPISODE_HARNESSES",
    "HARNESSES",
    "INSTRUCTION",
    "LABELS",
    "PROGRESS_HARNESSES",
    "Harness",
    "View",
    "adk_reflect_messages",
    "adk_reflect_response",
    "build_view",
    "progress_layer",
    "reflection_text",
]

Harness = Literal[
    "c0",
    "c1",
    "c2",
    "c3",
    "c4",
    "abstract",
    "ban",
    "abstract+ban",
    "c3+ban",
    "instruction",
    "clean-restart",
    "reflect",
    "adk-reflect",
    "small-local",
]

HARNESSES: tuple[Harness, ...] = get_args(Harness)

PROGRESS_HARNESSES: tuple[str, ...] = ("c3+progress", "abstract+ban+progress")
"""Harnesses with toolerr's progress probes (``Policy(progress=...)``, loop action
``note``): the environment is fingerprinted after each tool step, and a stall (the same
fingerprint over ``progress_window`` steps, one of them failed) adds a runtime note. They
need an environment that lasts across steps (the episodes' simulated runtime, see
:func:`progress_layer`), so they are episode harnesses only, not in :data:`HARNESSES`."""

EPISODE_HARNESSES: tuple[str, ...] = (*HARNESSES, *PROGRESS_HARNESSES)
"""What the episodes accept: every harness and the progress ones."""

LABELS: Mapping[str, str] = {
    "c0": "standard (C0)",
    "c1": "C1 guidance in tool msg",
    "c2": "C2 note, exchange removed",
    "c3": "C3 note in new turn (toolerr default)",
    "c4": "C4 new turn, exchange removed",
    "abstract": "abstract description",
    "ban": "C0 + decoder ban",
    "abstract+ban": "abstract + decoder ban",
    "c3+ban": "C3 + decoder ban",
    "instruction": "C0 + 'do not repeat' instruction",
    "clean-restart": "clean restart (failed attempt deleted)",
    "reflect": "reflect-and-retry checklist",
    "adk-reflect": "ADK ReflectAndRetryToolPlugin (its exact text)",
    "small-local": "per kind: transient C3, others abstract, + ban (toolerr local default)",
    "c3+progress": "C3 + progress probe (stall note)",
    "abstract+ban+progress": "abstract + decoder ban + progress probe (stall note)",
}

INSTRUCTION = "Do not repeat the call that failed."
"""The explicit prohibition of Feedback That Backfires (measured not to help)."""

_FORMS: Mapping[str, str] = {
    "c0": "c0",
    "c1": "c1",
    "c2": "c2",
    "c3": "c3",
    "c4": "c4",
    "abstract": "abstract",
    "ban": "c0",
    "abstract+ban": "abstract",
    "c3+ban": "c3",
    "instruction": "c0",
    "clean-restart": "c0",
    "reflect": "c0",
    "adk-reflect": "c0",
    "small-local": "small-local",
    "c3+progress": "c3",
    "abstract+ban+progress": "abstract",
}
_BANNING = frozenset({"ban", "abstract+ban", "c3+ban", "small-local", "abstract+ban+progress"})


@dataclass(frozen=True)
class View:
    """What one harness gives the model for one call: the messages and the banned call strings."""

    messages: list[Message]
    banned: tuple[str, ...] = ()


def _failed_at_decision_step(messages: Sequence[Message]) -> list[tuple[int, int]]:
    """``(assistant index, tool index)`` of each failed result at the decision step."""
    step = find_decision_step(messages)
    if step is None:
        return []
    out = []
    for result in step.results:
        if inspect_message(result.message).failed:
            out.append((step.assistant_index, result.index))
    return out


def reflection_text(messages: Sequence[Message], failed: Sequence[tuple[int, int]]) -> str:
    """The reflect-and-retry turn: each failed call restated with its arguments and error,
    then a do-not-repeat checklist (the pattern of reflection plugins of agent frameworks)."""
    lines = ["Reflect on the failed tool call before your next step."]
    for assistant_index, tool_index in failed:
        result = messages[tool_index]
        call = next(
            (c for c in messages[assistant_index].tool_calls if c.id == result.tool_call_id),
            None,
        )
        if call is None:
            continue
        lines.append(f"Failed call: {call.name}({format_arguments(call.arguments, call.raw_arguments)})")
        lines.append(f"Error: {clean_text(content_text(result.content), 600)}")
    lines.append("Checklist:")
    lines.append("- Do not repeat the failed call with the same arguments.")
    lines.append("- Check each argument against what the error says and correct it.")
    lines.append("- If changing the arguments cannot fix the error, stop and tell the user.")
    return "\n".join(lines)


# -- ADK's ReflectAndRetryToolPlugin --------------------------------------------------------
# Copied from google-adk 2.13.0, google/adk/plugins/reflect_retry_tool_plugin.py
# (ReflectAndRetryToolPlugin._create_tool_reflection_response and
# _get_tool_retry_exceed_msg, Apache-2.0, Copyright 2026 Google LLC) and
# google/adk/plugins/_reflect_retry_utils.py (REFLECT_AND_RETRY_RESPONSE_TYPE): the wording,
# byte for byte, without importing google-adk. toolerr-google-adk's tests run the real plugin
# and compare (packages/google-adk/tests/test_runs.py::test_the_eval_harness_matches_adk).

ADK_RESPONSE_TYPE = "ERROR_HANDLED_BY_REFLECT_AND_RETRY_PLUGIN"
ADK_MAX_RETRIES = 3
"""The plugin's defaults (``ReflectAndRetryToolPlugin(max_retries=3)``)."""

_ADK_REFLECTION = """
The call to tool `{name}` failed.

**Error Details:**
```
{error_details}
```

**Tool Arguments Used:**
```json
{args_summary}
```

**Reflection Guidance:**
This is retry attempt **{retry_count} of {max_retries}**. Analyze the error and the arguments you provided. Do not repeat the exact same call. Consider the following before your next attempt:

1.  **Invalid Parameters**: Does the error suggest that one or more arguments are incorrect, badly formatted, or missing? Review the tool's schema and your arguments.
2.  **State or Preconditions**: Did a previous step fail or not produce the necessary state/resource for this tool to succeed?
3.  **Alternative Approach**: Is this the right tool for the job? Could another tool or a different sequence of steps achieve the goal?
4.  **Simplify the Task**: Can you break the problem down into smaller, simpler steps?
5.  **Wrong Function Name**: Does the error indicates the tool is not found? Please check again and only use available tools.

Formulate a new plan based on your analysis and try a corrected or different approach.
"""  # noqa: E501

_ADK_RETRY_EXCEEDED = """
The tool `{name}` has failed consecutively {max_retries} times and the retry limit has been exceeded.

**Last Error:**
```
{error_details}
```

**Last Arguments Used:**
```json
{args_summary}
```

**Final Instruction:**
**Do not attempt to use the `{name}` tool again for this task.** You must now try a different approach. Acknowledge the failure and devise a new strategy, potentially using other available tools or informing the user that the task cannot be completed.
"""  # noqa: E501


def adk_reflect_response(
    name: str, arguments: object, error: str, retry_count: int, max_retries: int = ADK_MAX_RETRIES
) -> dict[str, object]:
    """The function response ADK's plugin builds for a failure given as a value (the
    ``extract_error_from_result`` path: ``error_type`` ``ToolError``, details ``str(error)``);
    past ``max_retries`` consecutive failures, its retry-exceeded response (what it sends with
    ``throw_exception_if_retry_exceeded=False``; by default it raises instead)."""
    args_summary = json.dumps(arguments, indent=2, default=str)
    template = _ADK_REFLECTION if retry_count <= max_retries else _ADK_RETRY_EXCEEDED
    message = template.format(
        name=name,
        error_details=error,
        args_summary=args_summary,
        retry_count=retry_count,
        max_retries=max_retries,
    )
    return {
        "response_type": ADK_RESPONSE_TYPE,
        "error_type": "ToolError",
        "error_details": error,
        "retry_count": min(retry_count, max_retries),
        "reflection_guidance": message.strip(),
    }


def adk_reflect_messages(messages: Sequence[Message], max_retries: int = ADK_MAX_RETRIES) -> list[Message]:
    """The history as ADK's plugin leaves it: each failed tool result replaced by the
    plugin's response, serialised as ADK's LiteLlm model sends a function response
    (``json.dumps(response, ensure_ascii=False)``). Failures are counted per tool, and a
    success of a tool resets its count, as the plugin does within one invocation."""
    out = list(messages)
    failures: dict[str, int] = {}
    for index, message in enumerate(messages):
        if message.role != "assistant" or not message.tool_calls:
            continue
        for result in pair_results(messages, index):
            if result.call is None:
                continue
            name = result.call.name
            if not inspect_message(result.message).failed:
                failures[name] = 0
                continue
            failures[name] = failures.get(name, 0) + 1
            response = adk_reflect_response(
                name, result.call.arguments, content_text(result.message.content), failures[name], max_retries
            )
            out[result.index] = replace(result.message, content=json.dumps(response, ensure_ascii=False))
    return out


def _clean_restart(messages: Sequence[Message]) -> list[Message]:
    """The history with every failed exchange deleted (assistant calls whose results all failed)."""
    drop: set[int] = set()
    for index, message in enumerate(messages):
        if message.role != "assistant" or not message.tool_calls:
            continue
        results = [r for r in pair_results(messages, index) if r.call is not None]
        if results and all(inspect_message(r.message).failed for r in results):
            drop.add(index)
            drop.update(r.index for r in results)
    return [m for i, m in enumerate(messages) if i not in drop]


def banned_calls(
    messages: Sequence[Message], layer: ToolErrorLayer, format: HermesFormat | None = None
) -> tuple[str, ...]:
    """The call strings a decoder ban holds for the next reply: what the core's ledger says
    (``FailureLedger.banned_calls``: failed non-transient calls), rendered in the text
    format, plus each failed call's text exactly as the model wrote it (``meta["call_texts"]``)."""
    return tuple((format or HermesFormat()).banned_texts(messages, layer.replay(messages)[0]))


def progress_layer(
    harness: str, probe: Callable[[], Hashable], *, tool_safety: Mapping[str, ToolSafety] | None = None
) -> ToolErrorLayer:
    """The layer of a progress harness (:data:`PROGRESS_HARNESSES`) for one episode: its
    form, and ``progress=probe`` with the defaults (window 3, loop action ``note``). The
    layer keeps the fingerprint taken after each step, so one layer serves the whole
    episode (give it to :func:`build_view` as ``layer=`` at every turn)."""
    if harness not in PROGRESS_HARNESSES:
        expected = ", ".join(PROGRESS_HARNESSES)
        raise ValueError(f"{harness!r} is not a progress harness; expected one of {expected}")
    return ToolErrorLayer(form=_FORMS[harness], tool_safety=dict(tool_safety or {}), progress=probe)


def build_view(
    harness: str,
    messages: Sequence[Message],
    *,
    tool_safety: Mapping[str, ToolSafety] | None = None,
    format: HermesFormat | None = None,
    layer: ToolErrorLayer | None = None,
) -> View:
    """The view of ``harness`` on the client's history ``messages``. A progress harness
    needs the episode's ``layer`` (:func:`progress_layer`): its probe is taken here, once
    per new tool step, as the layer does on a model call."""
    if harness not in _FORMS:
        raise ValueError(f"unknown harness {harness!r}; expected one of {', '.join(EPISODE_HARNESSES)}")
    if harness in PROGRESS_HARNESSES:
        if layer is None:
            raise ValueError(f"{harness!r} probes an environment: give the episode's layer= (progress_layer)")
    else:
        layer = ToolErrorLayer(form=_FORMS[harness], tool_safety=dict(tool_safety or {}))
    banned = banned_calls(messages, layer, format) if harness in _BANNING else ()
    if harness == "clean-restart":
        return View(_clean_restart(messages))
    if harness == "adk-reflect":
        return View(adk_reflect_messages(messages))
    shown = list(layer.rewrite(messages).messages)
    if harness in ("instruction", "reflect"):
        failed = _failed_at_decision_step(messages)
        if failed:
            text = INSTRUCTION if harness == "instruction" else reflection_text(messages, failed)
            shown.append(Message("user", text))
    return View(shown, banned)
