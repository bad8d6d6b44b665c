"""The three measurements: the decision step, episodes with simulated tools, the probe."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from toolerr import Message, ToolCall, ToolErrorLayer
from toolerr.adapters import ToolSafety, canonical_arguments, content_text, exact_arguments

from ._engine import Engine, Reply, Request
from ._harnesses import PROGRESS_HARNESSES, build_view, progress_layer
from ._measures import classify, complete_cut_call, is_correct, is_strict_correct, rewrites_failed_arguments
from ._scenarios import CONTROL, Item, ItemKind, Scenario, error_text

logger = logging.getLogger("toolerr")

__all__ = [
    "STALL_NOTE_OPENING",
    "SimulatedRuntime",
    "run_decision",
    "run_episodes",
    "run_probe",
    "runtime_result",
    "safety_of",
]

Progress = Callable[[int], None]


def safety_of(scenarios: Sequence[Scenario]) -> dict[str, ToolSafety]:
    """Every tool of the suite is read-only (declared, as the contract asks for retry safety)."""
    return {s.tool.name: "read_only" for s in scenarios}


def _request(
    engine: Engine,
    scenario: Scenario,
    messages: Sequence[Message],
    banned: tuple[str, ...],
    tool_choice: str = "auto",
    label: tuple[str, ...] = (),
) -> Request:
    prompt = engine.render(messages, [scenario.tool.spec()], tool_choice)
    return Request(prompt, banned, (scenario.tool.name,), engine.prefill(tool_choice), label)


def _applies(harness: str, kind: ItemKind) -> str:
    """Harnesses act on failures only: on the control every harness shows the plain
    conversation (the same request), so it is decoded once."""
    return "c0" if kind == CONTROL else harness


def run_decision(
    engine: Engine,
    items: Sequence[Item],
    harnesses: Sequence[str],
    progress: Progress | None = None,
    *,
    tool_choice: str = "auto",
) -> list[dict[str, Any]]:
    """One greedy next action per item and harness, scored. ``tool_choice="required"``
    opens every reply with the call marker (the model must call: which call is measured)."""
    safety = safety_of([i.scenario for i in items])
    plan: list[tuple[Item, str, Request, tuple[str, ...]]] = []
    for item in items:
        for harness in harnesses:
            view = build_view(
                _applies(harness, item.kind), item.scenario.messages(item.kind), tool_safety=safety
            )
            label = ("decision", item.scenario.id, item.kind, harness)
            request = _request(engine, item.scenario, view.messages, view.banned, tool_choice, label)
            plan.append((item, harness, request, view.banned))
    replies = engine.generate([p[2] for p in plan], progress)
    records = []
    for (item, harness, _, banned), reply in zip(plan, replies, strict=True):
        action = classify(reply.parsed, item, engine.format)
        records.append(
            {
                "scenario": item.scenario.id,
                "tool": item.scenario.tool.name,
                "kind": item.kind,
                "harness": harness,
                "action": action,
                "correct": is_correct(item.kind, action),
                "strict_correct": is_strict_correct(item.kind, action),
                "exact_repeat": action == "exact_repeat",
                "canonical_repeat": action in ("exact_repeat", "canonical_repeat"),
                "no_call": action in ("stop", "echo"),
                "argument_repeat": rewrites_failed_arguments(reply.text, item),
                "text": reply.text,
                "tokens": reply.completion_tokens,
                "cut": reply.cut,
                "banned": list(banned),
                "ban_interventions": reply.interventions,
                "ban_reused_unbanned": reply.reused,
            }
        )
    return records


# -- episodes ---------------------------------------------------------------------------


def runtime_result(scenario: Scenario, kind: ItemKind, name: str, arguments: Any) -> tuple[str, bool]:
    """What the simulated tool runtime answers to a call after the planned failure:
    ``(text, succeeded)``. The transient failure has cleared; a fixable one persists for
    as long as a value is wrong; an unrecoverable one persists whatever the arguments."""
    tool = scenario.tool
    if name != tool.name:
        return f"Error: Unknown tool: {name}. Available tools: {tool.name}.", False
    if kind == "unrecoverable":
        return error_text(scenario, kind), False
    if not isinstance(arguments, Mapping):
        return "Error: Invalid arguments: the arguments must be a JSON object.", False
    if canonical_arguments(dict(arguments)) == canonical_arguments(dict(scenario.arguments)):
        return scenario.result, True
    if kind == "fixable" and canonical_arguments(dict(arguments)) == canonical_arguments(
        scenario.failed_arguments(kind)
    ):
        return error_text(scenario, kind), False
    for key, right in scenario.arguments.items():
        if key not in arguments:
            return f"Error: Invalid parameters: '{key}' is a required property.", False
        if canonical_arguments(arguments[key]) != canonical_arguments(right):
            problem = scenario.fix.problem if key == scenario.fix.argument else "does not match the request"
            wrong = json.dumps(arguments[key], ensure_ascii=False)
            return (
                f"Error: Invalid parameters: {key} {problem}; got {wrong}. "
                f"Use {json.dumps(right, ensure_ascii=False)}.",
                False,
            )
    extra = next(iter(k for k in arguments if k not in scenario.arguments), "?")
    return f"Error: Invalid parameters: unexpected argument '{extra}'.", False


STALL_NOTE_OPENING = "The environment has not changed over the last"
"""How the core's stall note opens (``Policy(progress=...)``, "Repeats and loops" in
docs/DELIVERY.md): a view that holds it delivers a stall note."""


class SimulatedRuntime:
    """The simulated tool runtime of one episode, and the progress probe on it.

    Its state is what someone inspecting the backend would see: the records the tool
    serves (the scenario's data), the writes made to it, and whether the service is up.
    Every tool of the suite is read-only, so no call, failed or successful, writes
    anything; the transient outage hit the planned call only and has cleared before the
    model's first turn (:func:`runtime_result` answers the same call with success from
    then on), so the service is up at every probe. :meth:`fingerprint` hashes that state,
    nothing else: not the calls, not their results (what the model saw is not the
    environment). Within an episode it is therefore constant, which is the honest answer
    for read-only tools: failed calls change nothing. A successful call ends a forced
    episode, so a progress window there only ever holds failed steps: the stall note comes
    after ``progress_window`` (3) failed steps in a row, whatever the calls were (the
    planned failure and the model's first two calls), exact repeats or not.
    """

    def __init__(self, scenario: Scenario, kind: ItemKind) -> None:
        self.scenario = scenario
        self.kind = kind
        self.writes: list[str] = []  # read-only tools: stays empty
        self.available = True  # the transient outage hit the planned call only
        self.calls = 0
        self.probes = 0

    def call(self, name: str, arguments: Any) -> tuple[str, bool]:
        """A call of the model: :func:`runtime_result` (it changes no state)."""
        self.calls += 1
        return runtime_result(self.scenario, self.kind, name, arguments)

    def fingerprint(self) -> str:
        """The progress probe (``Policy(progress=runtime.fingerprint)``): the state, as JSON."""
        self.probes += 1
        state = {
            "tool": self.scenario.tool.name,
            "records": self.scenario.result,
            "writes": self.writes,
            "available": self.available,
        }
        return json.dumps(state, sort_keys=True, ensure_ascii=False)


class _Episode:
    def __init__(self, item: Item, harness: str, safety: Mapping[str, ToolSafety] | None = None) -> None:
        self.item = item
        self.harness = harness
        self.runtime = SimulatedRuntime(item.scenario, item.kind)
        self.layer = (
            progress_layer(harness, self.runtime.fingerprint, tool_safety=safety)
            if harness in PROGRESS_HARNESSES
            else None
        )
        self.stall_notes = 0
        self.history: list[Message] = item.scenario.messages(item.kind)
        self.turns = 0
        self.calls = 0
        self.stopped = False
        self.echoed = False
        self.succeeded = False
        self.tokens = 0
        self.texts: list[str] = []

    @property
    def active(self) -> bool:
        return not self.stopped


def run_episodes(
    engine: Engine,
    items: Sequence[Item],
    harnesses: Sequence[str],
    *,
    turns: int = 5,
    progress: Progress | None = None,
    tool_choice: str = "auto",
) -> list[dict[str, Any]]:
    """Episodes of up to ``turns`` model turns from the decision step, with simulated tools.

    ``tool_choice="auto"``: the model decides at every turn whether to call; the episode
    ends when it answers without a call. ``"required"``: every turn opens with the call
    marker (the study's rollouts of an agent that keeps acting) and the episode ends at the
    first successful call or after ``turns``; it measures repeats, loops and completion of
    transient and fixable failures (unrecoverable items are skipped: the model cannot stop).

    A progress harness (:data:`~toolerr_eval._harnesses.PROGRESS_HARNESSES`) probes the
    episode's :class:`SimulatedRuntime` through one layer per episode; each record counts
    the turns whose view held a stall note (``stall_notes``) and the probes taken.
    """
    if tool_choice not in ("auto", "required"):
        raise ValueError(f"tool_choice must be 'auto' or 'required', not {tool_choice!r}")
    forced = tool_choice == "required"
    safety = safety_of([i.scenario for i in items])
    episodes = [
        _Episode(item, h, safety)
        for item in items
        if item.kind != CONTROL and not (forced and item.kind == "unrecoverable")
        for h in harnesses
    ]
    for turn in range(turns):
        active = [e for e in episodes if e.active and not (forced and e.succeeded)]
        if not active:
            break
        requests = []
        for episode in active:
            view = build_view(episode.harness, episode.history, tool_safety=safety, layer=episode.layer)
            if episode.layer is not None and any(
                STALL_NOTE_OPENING in content_text(m.content) for m in view.messages
            ):
                episode.stall_notes += 1
            label = ("episode", episode.item.scenario.id, episode.item.kind, episode.harness, str(turn))
            requests.append(
                _request(engine, episode.item.scenario, view.messages, view.banned, tool_choice, label)
            )
        replies = engine.generate(requests, progress)
        for episode, reply in zip(active, replies, strict=True):
            _advance(episode, reply, turn)
    return [_episode_record(e, tool_choice) for e in episodes]


def _advance(episode: _Episode, reply: Reply, turn: int) -> None:
    episode.turns += 1
    episode.tokens += reply.completion_tokens
    episode.texts.append(reply.text)
    parsed = complete_cut_call(reply.parsed)
    if not parsed.calls:
        if parsed.invalid:
            # A malformed call: the runtime answers with a parse error and the agent goes on.
            call_id = f"call_{turn + 2}"
            bad = parsed.invalid[0]
            episode.calls += 1
            episode.history = [
                *episode.history,
                Message(
                    "assistant",
                    "",
                    tool_calls=(ToolCall(call_id, bad.name or "unknown", bad.text, bad.text),),
                ),
                Message(
                    "tool",
                    f"Error: Invalid arguments: the call could not be parsed ({bad.error}).",
                    tool_call_id=call_id,
                    name=bad.name or "unknown",
                ),
            ]
            return
        episode.stopped = True
        episode.echoed = "<tool_response>" in reply.text
        return
    call = parsed.calls[0]
    call_id = f"call_{turn + 2}"
    episode.calls += 1
    text, ok = episode.runtime.call(call.name, call.arguments)
    if ok:
        episode.succeeded = True
    episode.history = [
        *episode.history,
        Message(
            "assistant",
            parsed.content,
            tool_calls=(ToolCall(call_id, call.name, call.arguments, call.raw_arguments),),
            meta={"call_texts": {call_id: call.text}},
        ),
        Message("tool", text, tool_call_id=call_id, name=call.name),
    ]


def _episode_record(episode: _Episode, tool_choice: str = "auto") -> dict[str, Any]:
    item = episode.item
    ledger_layer = ToolErrorLayer(form="c0")
    _ledger, reports = ledger_layer.replay(episode.history)
    model_results = [
        index
        for index, message in enumerate(episode.history)
        if message.role == "tool" and index > 3  # the planned call's result is message 3
    ]
    loop = any(reports[i].is_loop for i in model_results if i in reports)
    failed_exact = exact_arguments(item.scenario.failed_arguments(item.kind))
    exact_repeats = 0
    for index, message in enumerate(episode.history):
        if index <= 2 or message.role != "assistant":
            continue
        for call in message.tool_calls:
            if (
                call.name == item.scenario.tool.name
                and exact_arguments(call.arguments, call.raw_arguments) == failed_exact
            ):
                exact_repeats += 1
    unrecoverable = item.kind == "unrecoverable"
    completed = (episode.stopped and not episode.echoed) if unrecoverable else episode.succeeded
    return {
        "scenario": item.scenario.id,
        "tool": item.scenario.tool.name,
        "kind": item.kind,
        "harness": episode.harness,
        "tool_choice": tool_choice,
        "completed": completed,
        "succeeded": episode.succeeded,
        "stopped": episode.stopped,
        "fabricated_result": episode.echoed,
        "calls": episode.calls,
        "futile_calls": episode.calls if item.kind == "unrecoverable" else None,
        "exact_repeats": exact_repeats,
        "any_exact_repeat": exact_repeats > 0 and item.kind != "transient",
        "loop": loop,
        "stall_notes": episode.stall_notes,
        "probes": episode.runtime.probes,
        "turns": episode.turns,
        "tokens": episode.tokens,
        "texts": episode.texts,
    }


# -- the teacher-forced probe -------------------------------------------------------------

NEUTRAL = "Request received."
"""A valence-free observation: the call acknowledged, neither success nor failure."""


GREEDY_CONTEXTS = ("before", "c0", "abstract")
"""Probe contexts also decoded greedily at the action slot (the reply opened with the call
marker), for the greedy exact-repeat rate before and after the failure."""


def run_probe(
    engine: Engine,
    scenarios: Sequence[Scenario],
    harnesses: Sequence[str],
    progress: Progress | None = None,
    *,
    greedy: Sequence[str] = GREEDY_CONTEXTS,
) -> list[dict[str, Any]]:
    """Log-probabilities of the fixed candidate set (failed call, correct call, two other
    wrong calls) as the next action, before the failed call, after its failure record
    under each harness, and after the same call with a neutral or a successful result.
    The ``greedy`` contexts are also decoded greedily at the action slot."""
    safety = safety_of(scenarios)
    records: list[dict[str, Any]] = []
    forced: list[tuple[int, Scenario, Request]] = []
    for scenario in scenarios:
        kind: ItemKind = "fixable"
        failed_args = scenario.failed_arguments(kind)
        candidates = [failed_args, dict(scenario.arguments), *scenario.other_wrong_arguments()]
        texts = [engine.format.render_call(scenario.tool.name, a) for a in candidates]
        failure = scenario.messages(kind)
        contexts: dict[str, list[Message]] = {"before": scenario.opening()}
        contexts["neutral"] = [
            *failure[:3],
            Message("tool", NEUTRAL, tool_call_id=failure[3].tool_call_id, name=scenario.tool.name),
        ]
        contexts["success"] = [
            *failure[:3],
            Message("tool", scenario.result, tool_call_id=failure[3].tool_call_id, name=scenario.tool.name),
        ]
        for harness in harnesses:
            contexts[harness] = build_view(harness, failure, tool_safety=safety).messages
        names = list(contexts)
        prompts = [engine.render(contexts[n], [scenario.tool.spec()]) for n in names]
        scores = engine.score(prompts, [texts] * len(prompts), ("probe", scenario.id))
        for name, row in zip(names, scores, strict=True):
            if name in greedy:
                label = ("probe", scenario.id, name)
                request = _request(engine, scenario, contexts[name], (), "required", label)
                forced.append((len(records), scenario, request))
            records.append(
                {
                    "scenario": scenario.id,
                    "tool": scenario.tool.name,
                    "context": name,
                    "logprobs": [s for s, _ in row],
                    "tokens": [n for _, n in row],
                }
            )
        if progress is not None:
            progress(1)
    replies = engine.generate([r for _, _, r in forced], progress)
    for (index, scenario, _), reply in zip(forced, replies, strict=True):
        action = classify(reply.parsed, Item(scenario, "fixable"), engine.format)
        records[index]["greedy_action"] = action
        records[index]["greedy_exact_repeat"] = action == "exact_repeat"
        records[index]["greedy_text"] = reply.text
    return records
