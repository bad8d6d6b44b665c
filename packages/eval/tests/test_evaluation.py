"""The evaluation (``toolerr eval``): suite, harness inputs, scoring, bootstrap, calibration,
the prefix-cached engine and one end-to-end run on a tiny random model."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from toolerr import Message, ToolErrorLayer, inspect_message
from toolerr.adapters import canonical_arguments, format_arguments
from toolerr_eval import (
    HARNESSES,
    Bootstrap,
    Engine,
    Item,
    build_suite,
    build_view,
    calibrate,
    classify,
    is_correct,
    main,
    runtime_result,
    split_scenarios,
)
from toolerr_eval._engine import Request
from toolerr_eval._harnesses import INSTRUCTION, adk_reflect_messages, adk_reflect_response
from toolerr_eval._measures import is_strict_correct
from toolerr_eval._scenarios import FAILURE_KINDS, WORDINGS, correct_action, error_text
from toolerr_hf import HermesFormat, LocalToolModel

FMT = HermesFormat()


def _suite_by_tool() -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for scenario in build_suite():
        out.setdefault(scenario.tool.name, []).append(scenario)
    return out


# -- the suite ------------------------------------------------------------------------------


def test_suite_shape() -> None:
    tools = _suite_by_tool()
    assert len(tools) >= 6
    assert all(len(group) >= 10 for group in tools.values())
    ids = [s.id for s in build_suite()]
    assert len(ids) == len(set(ids)) == 60
    for group in tools.values():
        properties = group[0].tool.parameters["properties"]
        types = {p["type"] for p in properties.values()}
        assert "string" in types
    # typed arguments: integers appear in some tools
    assert any(
        p["type"] == "integer" for g in tools.values() for p in g[0].tool.parameters["properties"].values()
    )


@pytest.mark.parametrize("kind", FAILURE_KINDS)
def test_every_error_is_generated_and_classified_as_its_kind(kind: str) -> None:
    assert len(WORDINGS[kind]) >= 3
    texts = set()
    for scenario in build_suite():
        messages = scenario.messages(kind)  # type: ignore[arg-type]
        verdict = inspect_message(messages[-1])
        assert verdict.failed and verdict.kind == kind, (scenario.id, messages[-1].content)
        texts.add(error_text(scenario, kind).split(":")[1])  # type: ignore[arg-type]
    assert len(texts) >= 3  # several wordings in use


def test_control_is_not_a_failure_and_correct_actions() -> None:
    for scenario in build_suite():
        assert not inspect_message(scenario.messages("control")[-1]).failed
    assert correct_action("transient") == "repeat"
    assert correct_action("fixable") == "corrected"
    assert correct_action("unrecoverable") == "stop"
    assert correct_action("control") == "not_repeat"


def test_fixable_call_differs_from_correct_and_the_error_names_the_value() -> None:
    for scenario in build_suite():
        wrong = scenario.failed_arguments("fixable")
        assert canonical_arguments(wrong) != canonical_arguments(dict(scenario.arguments))
        assert list(wrong) == list(scenario.arguments)  # same key order
        right = json.dumps(scenario.arguments[scenario.fix.argument], ensure_ascii=False)
        assert right in error_text(scenario, "fixable")
        candidates = [wrong, dict(scenario.arguments), *scenario.other_wrong_arguments()]
        assert len({canonical_arguments(c) for c in candidates}) == 4
        assert scenario.failed_arguments("transient") == dict(scenario.arguments)


# -- harness inputs ---------------------------------------------------------------------------

SAFETY: dict[str, Any] = {"search_flights": "read_only"}


def _scenario() -> Any:
    return build_suite(1)[0]


def test_harness_views() -> None:
    scenario = _scenario()
    failure = scenario.messages("fixable")
    views = {h: build_view(h, failure, tool_safety=SAFETY) for h in HARNESSES}
    assert views["c0"].messages == failure and views["c0"].banned == ()
    for form in ("c1", "c2", "c3", "c4", "abstract"):
        expected = ToolErrorLayer(form=form, tool_safety=SAFETY).rewrite(failure).messages
        assert views[form].messages == expected
    assert views["clean-restart"].messages == scenario.opening()
    assert views["instruction"].messages == [*failure, Message("user", INSTRUCTION)]
    reflect = views["reflect"].messages
    assert reflect[:-1] == failure
    failed_args = format_arguments(scenario.failed_arguments("fixable"))
    assert f"Failed call: search_flights({failed_args})" in reflect[-1].content
    assert "Do not repeat the failed call with the same arguments." in reflect[-1].content
    failed_text = FMT.call_text("search_flights", scenario.failed_arguments("fixable"))
    for harness in ("ban", "abstract+ban", "c3+ban", "small-local"):
        assert views[harness].banned == (failed_text,)
    assert views["small-local"].messages == views["abstract"].messages  # fixable: abstract
    assert views["ban"].messages == failure
    assert views["abstract+ban"].messages == views["abstract"].messages
    # the abstract form withholds the failed call's argument string (values the error names stay)
    assert failed_args not in views["abstract"].messages[-1].content
    assert failed_text not in views["abstract"].messages[-1].content


def test_small_local_keeps_the_transient_call_and_hides_the_unrecoverable_one() -> None:
    scenario = _scenario()
    transient = scenario.messages("transient")
    view = build_view("small-local", transient, tool_safety=SAFETY)
    assert view.messages == build_view("c3", transient, tool_safety=SAFETY).messages and view.banned == ()
    unrecoverable = scenario.messages("unrecoverable")
    view = build_view("small-local", unrecoverable, tool_safety=SAFETY)
    assert view.messages == build_view("abstract", unrecoverable, tool_safety=SAFETY).messages


def test_transient_failures_are_not_banned_and_control_is_unchanged() -> None:
    scenario = _scenario()
    assert build_view("ban", scenario.messages("transient")).banned == ()
    control = scenario.messages("control")
    for harness in HARNESSES:
        view = build_view(harness, control)
        assert view.messages == control and view.banned == ()


def test_rendered_prompts(tiny_model: Any, tokenizer: Any) -> None:
    engine = Engine(tiny_model, tokenizer)
    scenario = _scenario()
    tools = [scenario.tool.spec()]
    failure = scenario.messages("fixable")
    c0 = engine.render(build_view("c0", failure).messages, tools)
    call = FMT.render_call("search_flights", scenario.failed_arguments("fixable"))
    assert call in c0
    assert c0.endswith(
        "<|im_start|>user\n<tool_response>\n"
        + failure[-1].content
        + "\n</tool_response><|im_end|>\n<|im_start|>assistant\n"
    )
    restart = engine.render(build_view("clean-restart", failure).messages, tools)
    assert call not in restart
    assert restart.endswith(f"<|im_start|>user\n{scenario.request}<|im_end|>\n<|im_start|>assistant\n")
    instruction = engine.render(build_view("instruction", failure).messages, tools)
    assert instruction == c0.removesuffix("<|im_start|>assistant\n") + (
        f"<|im_start|>user\n{INSTRUCTION}<|im_end|>\n<|im_start|>assistant\n"
    )
    forced = engine.render(failure, tools, "required")
    assert forced == c0 + "<tool_call>\n"


# -- ADK's ReflectAndRetryToolPlugin, as the plugin builds it ---------------------------------

ADK_FIXTURE = Path(__file__).with_name("data") / "adk_reflect_responses.json"
"""Made by google-adk 2.13.0's real ``ReflectAndRetryToolPlugin`` (its
``_create_tool_reflection_response`` for retries 1-3, ``_get_tool_retry_exceed_msg`` past
them), so that the eval, which does not import google-adk, is held to its exact bytes."""


def test_adk_reflect_response_is_the_plugins_own() -> None:
    fixture = json.loads(ADK_FIXTURE.read_text(encoding="utf-8"))
    for case in fixture["cases"]:
        built = adk_reflect_response(
            fixture["name"], fixture["arguments"], fixture["error"], case["retry_count"]
        )
        assert built == case["response"]


def test_adk_reflect_view_replaces_each_failed_result_and_counts_retries() -> None:
    scenario = _scenario()
    failure = scenario.messages("fixable")
    view = build_view("adk-reflect", failure)
    assert view.banned == ()
    assert view.messages[:-1] == failure[:-1]
    response = json.loads(view.messages[-1].content)
    assert response == adk_reflect_response(
        "search_flights", scenario.failed_arguments("fixable"), failure[-1].content, 1
    )
    assert view.messages[-1].content == json.dumps(
        response, ensure_ascii=False
    )  # ADK's LiteLlm serialisation
    assert "This is retry attempt **1 of 3**" in response["reflection_guidance"]
    # Four failures in a row of the same tool: counts 1..3, then the retry-exceeded text.
    calls = [m for m in failure if m.role == "assistant" and m.tool_calls][-1:]
    repeated = [*failure, *([calls[0], failure[-1]] * 3)]
    shown = adk_reflect_messages(repeated)
    counts = [
        json.loads(m.content)["retry_count"] for m in shown if m.role == "tool" and m.content.startswith("{")
    ]
    assert counts[-4:] == [1, 2, 3, 3]
    assert "has failed consecutively 3 times" in json.loads(shown[-1].content)["reflection_guidance"]


def test_adk_reflect_on_the_tiny_model(tiny_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "eval"
    argv = [
        "--model", str(tiny_dir), "--harness", "c0", "adk-reflect", "--scenarios", "1",
        "--episodes", "0", "--probe", "0", "--max-new-tokens", "4", "--out", str(out), "--no-progress",
    ]  # fmt: skip
    assert main(argv) == 0
    results = json.loads((out / "results.json").read_text())
    assert results["config"]["harnesses"] == ["c0", "adk-reflect"]
    assert {r["harness"] for r in results["decision"]["records"]} == {"c0", "adk-reflect"}
    assert set(results["decision"]["summary"]["adk-reflect"]) >= {"transient", "fixable", "unrecoverable"}


# -- scoring ----------------------------------------------------------------------------------


def _parse(text: str) -> Any:
    return FMT.parse(text, ["search_flights"])


@pytest.mark.parametrize(
    ("kind", "reply", "action"),
    [
        (
            "transient",
            '<tool_call>\n{"name": "search_flights", "arguments": {"origin": "CDG", "destination": "FCO", "date": "2026-12-03", "passengers": 2}}\n</tool_call>',
            "exact_repeat",
        ),
        (
            "transient",
            '<tool_call>\n{"name": "search_flights", "arguments": {"passengers": 2, "origin": "CDG", "destination": "FCO", "date": "2026-12-03"}}\n</tool_call>',
            "canonical_repeat",
        ),
        (
            "fixable",
            '<tool_call>\n{"name": "search_flights", "arguments": {"origin": "CDG", "destination": "FCO", "date": "03/12/2026", "passengers": 2}}\n</tool_call>',
            "exact_repeat",
        ),
        (
            "fixable",
            '<tool_call>\n{"name":"search_flights","arguments":{"origin":"CDG","destination":"FCO","date":"03/12/2026","passengers":2.0}}\n</tool_call>',
            "canonical_repeat",
        ),
        (
            "fixable",
            '<tool_call>\n{"name": "search_flights", "arguments": {"origin": "CDG", "destination": "FCO", "date": "2026-12-03", "passengers": 2}}\n</tool_call>',
            "corrected",
        ),
        (
            "fixable",
            '<tool_call>\n{"name": "search_flights", "arguments": {"origin": "CDG", "destination": "FCO", "date": "2026-12-04", "passengers": 2}}\n</tool_call>',
            "other_call",
        ),
        ("fixable", '<tool_call>\n{"name": "book_flight", "arguments": {}}\n</tool_call>', "other_call"),
        ("fixable", "<tool_call>\n{not json at all\n</tool_call>", "invalid_call"),
        ("unrecoverable", "I could not search flights: the API key lacks the flights:read scope.", "stop"),
        ("unrecoverable", "<tool_response>\nError: 403 Forbidden\n</tool_response>", "echo"),
        ("control", "There is a flight at 08:10 for 129 EUR.", "stop"),
    ],
)
def test_action_scorer(kind: str, reply: str, action: str) -> None:
    item = Item(_scenario(), kind)  # type: ignore[arg-type]
    assert classify(_parse(reply), item) == action


def test_a_call_cut_at_the_token_limit_counts_only_when_its_json_is_complete() -> None:
    item = Item(_scenario(), "fixable")
    whole = '<tool_call>\n{"name": "search_flights", "arguments": {"origin": "CDG", "destination": "FCO", "date": "03/12/2026", "passengers": 2}}\n'
    assert classify(FMT.parse(whole, ["search_flights"], complete=False), item) == "exact_repeat"
    cut = '<tool_call>\n{"name": "search_flights", "arguments": {"origin": "CDG", "destination": "FCO", "date": "03/12/2026", "passengers": 2},'
    assert classify(FMT.parse(cut, ["search_flights"], complete=False), item) == "invalid_call"
    inside = '<tool_call>\n{"name": "search_flights", "arguments": {"origin": "CDG", "destination": "FCO", "date": "03/1'
    assert classify(FMT.parse(inside, ["search_flights"], complete=False), item) == "invalid_call"


def test_argument_level_repeats_are_seen_through_extra_keys_and_cuts() -> None:
    from toolerr_eval._measures import rewrites_failed_arguments

    item = Item(_scenario(), "fixable")
    failed = '"arguments": {"origin": "CDG", "destination": "FCO", "date": "03/12/2026", "passengers": 2'
    # the failed arguments again, then more keys (a ban of the exact call string allows this)
    assert rewrites_failed_arguments(
        f'<tool_call>\n{{"name": "search_flights", {failed}, "class": "eco"}}}}', item
    )
    assert rewrites_failed_arguments(
        f'<tool_call>\n{{"name": "search_flights", {failed}', item
    )  # cut after them
    corrected = failed.replace("03/12/2026", "2026-12-03")
    assert not rewrites_failed_arguments(f'<tool_call>\n{{"name": "search_flights", {corrected}}}}}', item)
    assert not rewrites_failed_arguments("I could not find flights.", item)
    assert not rewrites_failed_arguments(f"{failed}}}", Item(_scenario(), "control"))


def test_correctness_rules() -> None:
    assert is_correct("transient", "exact_repeat") and is_correct("transient", "canonical_repeat")
    assert not is_correct("transient", "stop")
    assert is_correct("fixable", "corrected") and not is_correct("fixable", "exact_repeat")
    assert is_correct("unrecoverable", "stop") and is_correct("unrecoverable", "echo")
    assert not is_strict_correct("unrecoverable", "echo") and is_strict_correct("unrecoverable", "stop")
    assert not is_correct("unrecoverable", "exact_repeat")
    assert is_correct("control", "stop") and is_correct("control", "other_call")
    assert not is_correct("control", "exact_repeat")


def test_simulated_runtime() -> None:
    scenario = _scenario()
    right = dict(scenario.arguments)
    wrong = scenario.failed_arguments("fixable")
    assert runtime_result(scenario, "transient", "search_flights", right) == (scenario.result, True)
    text, ok = runtime_result(scenario, "fixable", "search_flights", wrong)
    assert not ok and text == error_text(scenario, "fixable")
    assert runtime_result(scenario, "fixable", "search_flights", right)[1]
    assert not runtime_result(scenario, "unrecoverable", "search_flights", right)[1]
    text, ok = runtime_result(scenario, "fixable", "get_weather", right)
    assert not ok and "Unknown tool" in text
    text, ok = runtime_result(scenario, "transient", "search_flights", {**right, "passengers": 7})
    assert not ok and "passengers" in text and inspect_message(Message("tool", text)).kind == "fixable"


# -- bootstrap and calibration ---------------------------------------------------------------------


def test_bootstrap_is_seeded() -> None:
    ids = [f"s{i}" for i in range(20)]
    values = [(sid, float(i % 3 == 0)) for i, sid in enumerate(ids)] + [(sid, 1.0) for sid in ids[:5]]
    first = Bootstrap(ids, resamples=1000, seed=7).interval(values)
    again = Bootstrap(ids, resamples=1000, seed=7).interval(values)
    other = Bootstrap(ids, resamples=1000, seed=8).interval(values)
    assert first == again
    assert first.mean == other.mean and (first.low, first.high) != (other.low, other.high)
    assert first.low is not None and first.high is not None and first.mean is not None
    assert first.low <= first.mean <= first.high
    assert first.n == 25
    diff = Bootstrap(ids, seed=7).difference([(s, 1.0) for s in ids], values)
    assert diff.mean is not None and diff.mean > 0 and diff.low is not None and diff.low > 0
    assert Bootstrap(ids).interval([]).mean is None


def test_calibration_split_and_choice() -> None:
    suite = build_suite()
    selection, report = split_scenarios(suite, seed=3)
    assert split_scenarios(suite, seed=3) == (selection, report)
    assert split_scenarios(suite, seed=4) != (selection, report)
    assert {s.id for s in selection}.isdisjoint({s.id for s in report})
    assert len(selection) + len(report) == len(suite)
    for tool in {s.tool.name for s in suite}:
        assert sum(s.tool.name == tool for s in selection) == 5
    chosen = {s.id for s in selection}
    records = []
    for scenario in suite:
        for kind in FAILURE_KINDS:
            for form in ("c0", "c3", "abstract"):
                # c3 is best on the selection split; abstract is best on the report split only
                good = (form == "c3") if scenario.id in chosen else (form != "c0")
                records.append(
                    {
                        "scenario": scenario.id,
                        "kind": kind,
                        "harness": form,
                        "correct": good,
                        "exact_repeat": False,
                    }
                )
    boot = Bootstrap([s.id for s in suite], seed=0)
    result = calibrate(records, selection, report, boot, forms=("c0", "c3", "abstract"))
    assert result["best"] == "c3"
    assert result["report"]["best_correct"]["mean"] == 1.0
    assert result["report"]["c0_correct"]["mean"] == 0.0
    assert result["report"]["difference"]["mean"] == 1.0
    assert set(result["report_split"]) == {s.id for s in report}


# -- the engine ---------------------------------------------------------------------------------


def test_engine_matches_the_backend(tiny_model: Any, tokenizer: Any) -> None:
    """The prefix-cached batched decoding gives the backend's greedy replies."""
    scenario = _scenario()
    tools = [scenario.tool.spec()]
    conversations = [
        build_view(h, scenario.messages(k)).messages for h in ("c0", "c3") for k in FAILURE_KINDS
    ]
    backend = LocalToolModel(tiny_model, tokenizer, ban=False, max_new_tokens=12, stop_after_call=True)
    expected = [g.text for g in backend.generate_batch(conversations, tools)]
    engine = Engine(tiny_model, tokenizer, max_new_tokens=12, batch_size=4, prose_tokens=None)
    requests = [Request(engine.render(c, tools), (), ("search_flights",)) for c in conversations]
    assert [r.text for r in engine.generate(requests)] == expected
    assert engine.counters.prompt_positions < engine.counters.prompt_positions_naive
    again = engine.generate(requests)
    assert [r.text for r in again] == expected and engine.counters.memo_hits == len(requests)


def test_engine_scores_match_the_backend(tiny_model: Any, tokenizer: Any) -> None:
    scenario = _scenario()
    tools = [scenario.tool.spec()]
    engine = Engine(tiny_model, tokenizer)
    prompts = [engine.render(scenario.opening(), tools), engine.render(scenario.messages("fixable"), tools)]
    candidates = [
        FMT.render_call("search_flights", a)
        for a in (dict(scenario.arguments), scenario.failed_arguments("fixable"))
    ]
    backend = LocalToolModel(tiny_model, tokenizer, ban=False)
    scores = engine.score(prompts, [candidates, candidates])
    for prompt, row in zip(prompts, scores):
        expected = backend.score_continuations(prompt, candidates)
        assert [s for s, _ in row] == pytest.approx(expected, abs=1e-3)
    assert 0 < engine.counters.score_positions < engine.counters.score_positions_naive


def test_engine_ban_reuses_the_unbanned_reply_only_when_safe(tiny_model: Any, tokenizer: Any) -> None:
    scenario = _scenario()
    tools = [scenario.tool.spec()]
    engine = Engine(tiny_model, tokenizer, max_new_tokens=8, prose_tokens=None)
    prompt = engine.render(scenario.messages("fixable"), tools)
    plain = engine.generate([Request(prompt)])[0]
    never = "x" * 40
    banned = engine.generate([Request(prompt, (never,))])[0]
    assert banned.reused and banned.text == plain.text and engine.counters.ban_reused == 1
    if plain.text.strip():
        # a banned string the plain reply contains: decoded again under the ban
        engine.generate([Request(prompt, (plain.text.strip(),))])
        assert engine.counters.generations == 2


def test_engine_counts_memo_hits_and_progress_for_banned_only_requests(
    tiny_model: Any, tokenizer: Any
) -> None:
    """Requests that all carry a ban decode their unbanned base first: that base is not a
    request, so it is no memo hit (the count went negative), and the bar still ends at the
    number of requests."""
    scenario = _scenario()
    tools = [scenario.tool.spec()]
    engine = Engine(tiny_model, tokenizer, max_new_tokens=8, prose_tokens=None)
    prompts = [engine.render(scenario.messages(k), tools) for k in ("fixable", "transient")]
    never = ("x" * 40,)
    requests = [Request(p, never) for p in prompts] + [Request(prompts[0], never)]
    ticks: list[int] = []
    engine.generate(requests, ticks.append)
    assert engine.counters.memo_hits == 1  # the duplicate of the first request
    assert engine.counters.ban_reused == 2
    assert sum(ticks) == len(requests) and all(t > 0 for t in ticks[:-1])
    ticks.clear()
    engine.generate(requests, ticks.append)
    assert engine.counters.memo_hits == 1 + len(requests)
    assert sum(ticks) == len(requests)


_TWO_KEYS = '{"name": "get_weather", "arguments": {"city": "Paris", "units": "C"}}'


def test_the_evaluation_reuses_an_unbanned_reply_only_without_any_variant(
    tiny_model: Any, tokenizer: Any
) -> None:
    """The eval engine reuses the unbanned reply under a ban only when the ban cannot have
    changed it: a white space or key-order variant of the banned call means decode again."""
    engine = Engine(tiny_model, tokenizer)
    banned = (_TWO_KEYS,)
    for text in (
        "<tool_call>\n" + _TWO_KEYS,
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris" , "units": "C" }}',
        '<tool_call>\n{"arguments": {"units": "C", "city": "Paris"}, "name": "get_weather"}',
    ):
        assert engine._may_complete(text, banned), text
    for text in ("I cannot help.", '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Lyon"}}'):
        assert not engine._may_complete(text, banned), text


class _ScriptedEngine(Engine):
    """The real engine's rendering with scripted replies: ``script(request, turn)`` gives a
    reply's text after the prompt's own prefill (the point is the episode loop)."""

    def __init__(self, model: Any, tokenizer: Any, script: Any) -> None:
        super().__init__(model, tokenizer)
        self.script = script
        self.seen: list[Request] = []

    def generate(self, requests: Any, progress: Any = None) -> list[Any]:
        from toolerr_eval._engine import Reply

        replies = []
        for request in requests:
            self.seen.append(request)
            text = request.prefill + self.script(request)
            parsed = self.format.parse(text, request.tools or None)
            replies.append(Reply(text, parsed, 1, False))
        return replies


def test_required_episodes_end_at_success_and_count_repeats_and_loops(
    tiny_model: Any, tokenizer: Any
) -> None:
    from toolerr_eval._runs import run_episodes

    scenario = _scenario()
    name = scenario.tool.name
    failed = scenario.failed_arguments("fixable")
    right = dict(scenario.arguments)
    turns: list[int] = []

    def script(request: Request) -> str:
        # Repeat the failed call at the first two turns, then the correct call.
        if request.prefill:
            assert request.prefill == FMT.prefill("required") and request.prompt.endswith(request.prefill)
        text = FMT.render_call(name, failed if len(turns) < 2 else right)
        return text[len(request.prefill) :]

    class Counting(_ScriptedEngine):
        def generate(self, requests: Any, progress: Any = None) -> list[Any]:
            out = super().generate(requests, progress)
            turns.append(len(requests))
            return out

    engine = Counting(tiny_model, tokenizer, script)
    items = [Item(scenario, k) for k in ("fixable", "unrecoverable", "control")]
    records = run_episodes(engine, items, ["c0", "abstract"], turns=5, tool_choice="required")
    # no stop is possible when every turn must call: unrecoverable items are skipped
    assert {(r["kind"], r["harness"]) for r in records} == {("fixable", "c0"), ("fixable", "abstract")}
    assert all(r.prefill == FMT.prefill("required") for r in engine.seen)
    fixable = next(r for r in records if r["harness"] == "c0")
    # two exact repeats of the failed call, then the correct call ends the episode at turn 3
    assert fixable["tool_choice"] == "required"
    assert fixable["exact_repeats"] == 2 and fixable["any_exact_repeat"]
    assert fixable["succeeded"] and fixable["completed"] and fixable["turns"] == 3 and fixable["calls"] == 3
    assert fixable["loop"]  # the ledger saw the same failing call three times
    assert turns == [2, 2, 2]  # both episodes ended at their success: no fourth turn
    # transient: the first retry of the planned call succeeds and ends the episode
    turns.clear()
    engine.script = lambda request: FMT.render_call(name, right)[len(request.prefill) :]
    records = run_episodes(engine, [Item(scenario, "transient")], ["c0"], turns=5, tool_choice="required")
    assert [(r["turns"], r["completed"], r["loop"], r["any_exact_repeat"]) for r in records] == [
        (1, True, False, False)  # the same call again is the right action on a transient failure
    ]
    # auto mode keeps the unrecoverable episodes
    auto = run_episodes(engine, items, ["c0"], turns=2)
    assert {r["kind"] for r in auto} == {"fixable", "unrecoverable"}
    assert all(r["tool_choice"] == "auto" for r in auto)
    with pytest.raises(ValueError):
        run_episodes(engine, items, ["c0"], tool_choice="any")


def test_progress_harnesses_probe_the_runtime_and_note_the_stall(tiny_model: Any, tokenizer: Any) -> None:
    """c3+progress and abstract+ban+progress: one layer per episode probes the simulated
    runtime once per new step; after three failed steps (the planned one and the model's
    first two) the model's view holds the core's stall note, every turn after; the baseline
    harness's views are the same until then and never hold it."""
    from toolerr.adapters import NOTE_PREFIX
    from toolerr_eval._runs import STALL_NOTE_OPENING, SimulatedRuntime, run_episodes

    scenario = _scenario()
    name = scenario.tool.name
    wrong = scenario.other_wrong_arguments()  # a different wrong value at each turn: no exact repeat

    def script(request: Request) -> str:
        turn = int(request.label[-1])
        return FMT.render_call(name, wrong[turn % len(wrong)])[len(request.prefill) :]

    engine = _ScriptedEngine(tiny_model, tokenizer, script)
    harnesses = ["c3", "c3+progress", "abstract+ban", "abstract+ban+progress"]
    records = run_episodes(engine, [Item(scenario, "fixable")], harnesses, turns=5, tool_choice="required")
    by = {r["harness"]: r for r in records}
    note = NOTE_PREFIX + STALL_NOTE_OPENING + " 3 tool steps and a call failed"
    for base, probed in (("c3", "c3+progress"), ("abstract+ban", "abstract+ban+progress")):
        assert by[base]["stall_notes"] == 0 and by[base]["probes"] == 0
        assert by[probed]["probes"] == 5  # one probe per new step, at the next model call
        assert by[probed]["stall_notes"] == 3  # turns 2, 3 and 4
        assert not by[probed]["exact_repeats"] and by[probed]["calls"] == 5
        prompts = {
            h: [r.prompt for r in engine.seen if r.label[3] == h] for h in (base, probed)
        }  # label: stage, scenario, kind, harness, turn
        assert prompts[base][:2] == prompts[probed][:2]  # no note before the third failed step
        assert all(note in p for p in prompts[probed][2:])
        assert not any(NOTE_PREFIX + STALL_NOTE_OPENING in p for p in prompts[base])
    # a success ends the episode before any stall: one probe, no note
    engine.seen.clear()
    engine.script = lambda request: FMT.render_call(name, dict(scenario.arguments))[len(request.prefill) :]
    records = run_episodes(
        engine, [Item(scenario, "transient")], ["c3+progress"], turns=5, tool_choice="required"
    )
    assert [(r["completed"], r["probes"], r["stall_notes"]) for r in records] == [(True, 1, 0)]
    # the probe reads the runtime's state: calls do not change it, a write would
    runtime = SimulatedRuntime(scenario, "fixable")
    before = runtime.fingerprint()
    assert runtime.call(name, wrong[0])[1] is False and runtime.fingerprint() == before
    runtime.writes.append("booking 1")
    assert runtime.fingerprint() != before and runtime.probes == 3
    # the progress harnesses need the episode's layer: not at the decision step
    with pytest.raises(ValueError, match="layer"):
        build_view("c3+progress", scenario.messages("fixable"))


# -- end to end ------------------------------------------------------------------------------------


def test_main_end_to_end_on_a_tiny_model(
    tiny_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "eval"
    argv = [
        "--model", str(tiny_dir),
        "--harness", "c0", "c3", "ban", "clean-restart", "reflect",
        "--scenarios", "1",
        "--episodes", "1", "--episode-harness", "c0", "c3", "--turns", "2",
        "--probe", "1", "--probe-harness", "c0", "abstract",
        "--max-new-tokens", "10",
        "--calibrate",
        "--bootstrap", "200",
        "--out", str(out),
        "--no-progress",
    ]  # fmt: skip
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "Decision step" in printed and "Episodes" in printed and "probe" in printed
    results = json.loads((out / "results.json").read_text())
    assert (out / "results.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    decision = results["decision"]
    harnesses = results["config"]["harnesses"]
    assert {"c0", "c3", "ban", "clean-restart", "reflect", "c1", "c2", "c4", "abstract"} <= set(harnesses)
    assert len(decision["records"]) == 6 * 4 * len(harnesses)
    assert set(decision["summary"]["c0"]) >= {"transient", "fixable", "unrecoverable", "control"}
    assert results["calibrate"]["best"] in ("c0", "c1", "c2", "c3", "c4", "abstract")
    assert len(results["episodes"]["records"]) == 6 * 3 * 2
    probe = results["probe"]["summary"]["contexts"]
    assert set(probe) == {"before", "neutral", "success", "c0", "abstract"}
    assert probe["before"]["corrective_gain"]["mean"] == 0.0
    assert "greedy_exact_repeat" in probe["c0"]
    assert results["cost"]["engine"]["prompt_positions_saved"] > 0
    # scoring the stored replies again gives the same summaries
    from toolerr_eval import rescore

    assert rescore(json.loads(json.dumps(results)))["decision"]["summary"] == decision["summary"]
    assert main(["--rescore", str(out / "results.json"), "--out", str(tmp_path / "rescored")]) == 0
    assert (tmp_path / "rescored" / "results.png").is_file()
    # the same seed gives the same numbers
    again = tmp_path / "again"
    assert main([*argv[:-3], "--out", str(again), "--no-progress"]) == 0
    second = json.loads((again / "results.json").read_text())
    assert second["decision"]["summary"] == decision["summary"]
    assert second["probe"]["summary"] == results["probe"]["summary"]


def test_progress_counts_every_part(tiny_model: Any, tokenizer: Any) -> None:
    """The progress bar moves through the probe too: scoring per scenario, then the greedy
    decoding at the action slot of each greedy context."""
    from toolerr_eval import build_parser, evaluate

    ticks: list[int] = []
    argv = ["--no-decision", "--episodes", "0", "--probe", "1", "--probe-harness", "c0", "c3"]
    args = build_parser().parse_args([*argv, "--max-new-tokens", "4", "--no-progress"])
    results = evaluate(args, tiny_model, tokenizer, progress=ticks.append)
    assert "probe" in results and "decision" not in results
    assert sum(ticks) == 6 * (1 + 2)  # 6 scenarios: scored, then greedy "before" and "c0"


def test_main_rejects_unknown_harness(tiny_dir: Path) -> None:
    with pytest.raises(SystemExit):
        main(["--model", str(tiny_dir), "--harness", "nope", "--no-progress"])


def test_progress_harnesses_are_for_the_episodes_only(tiny_model: Any, tokenizer: Any) -> None:
    from toolerr_eval import build_parser, evaluate

    argv = ["--scenarios", "1", "--episode-tool-choice", "required", "--kinds", "fixable", "--probe", "0"]
    with pytest.raises(SystemExit, match="unknown harness c3\\+progress"):
        evaluate(build_parser().parse_args([*argv, "--harness", "c3+progress"]), tiny_model, tokenizer)
    args = build_parser().parse_args(
        [*argv, "--no-decision", "--episode-harness", "c3", "c3+progress", "--turns", "3",
         "--max-new-tokens", "4", "--bootstrap", "50", "--no-progress"]
    )  # fmt: skip
    results = evaluate(args, tiny_model, tokenizer)
    assert results["config"]["episode_harnesses"] == ["c3", "c3+progress"]
    summary = results["episodes"]["summary"]
    assert "stall_notes" in summary["c3+progress"]["all"] and "stall_notes" not in summary["c3"]["all"]
    records = results["episodes"]["records"]
    assert len(records) == 6 * 2 and all(r["probes"] >= 1 for r in records if r["harness"] == "c3+progress")
    from toolerr_eval._report import write_table

    table = io.StringIO()
    write_table(results, table)
    lines = table.getvalue().splitlines()
    assert next(line for line in lines if line.startswith("harness")).endswith("stall notes")
    assert next(line for line in lines if line.startswith("c3 ")).endswith(" -")
    assert next(line for line in lines if line.startswith("c3+progress ")).endswith("]")


def test_main_reports_a_missing_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--model", str(tmp_path / "missing"), "--no-progress"]) == 2
    assert "cannot load the model" in capsys.readouterr().err


@pytest.mark.slow
def test_main_on_the_default_model(tmp_path: Path) -> None:
    argv = [
        "--scenarios", "1", "--harness", "c0", "abstract+ban", "--kinds", "fixable", "unrecoverable",
        "--episodes", "0", "--probe", "0", "--threads", "1", "--out", str(tmp_path), "--no-progress",
    ]  # fmt: skip
    assert main(argv) == 0
    results = json.loads((tmp_path / "results.json").read_text())
    assert len(results["decision"]["records"]) == 6 * 2 * 2


def test_model_demo_on_a_tiny_model(
    tiny_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import argparse

    import torch
    from toolerr_eval.demo import run_model_demo

    threads = torch.get_num_threads()
    try:
        code = run_model_demo(argparse.Namespace(model=str(tiny_dir), out=str(tmp_path), quick=False))
    finally:
        torch.set_num_threads(threads)
    assert code == 0
    printed = capsys.readouterr().out
    assert "standard harness vs toolerr" in printed
    assert "What changed" in printed and "probability of re-emitting the failed call" in printed
    assert "When the model must call" in printed and "the failed arguments written again" in printed
    results = json.loads((tmp_path / "demo.json").read_text())
    assert results["config"]["harnesses"] == ["c0", "small-local"]
    assert "toolerr here is its profile for this model, small-local" in printed
    assert len(results["decision"]["records"]) == 6 * 3 * 2


def test_core_cli_hands_eval_to_main(tiny_dir: Path, tmp_path: Path) -> None:
    from toolerr._cli import main as cli

    argv = [
        "eval",
        "--",
        "--model",
        str(tiny_dir),
        "--harness",
        "c0",
        "--kinds",
        "fixable",
        "--scenarios",
        "1",
    ]
    argv += [
        "--episodes",
        "0",
        "--probe",
        "0",
        "--max-new-tokens",
        "4",
        "--no-progress",
        "--out",
        str(tmp_path),
    ]
    assert cli(argv) == 0
    assert (tmp_path / "results.json").is_file()
