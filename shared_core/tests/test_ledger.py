"""The failed-call ledger: canonical arguments, repeats, cycles, retry budget, loop policy."""

from __future__ import annotations

import json
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolerr import FailedCall, FailureLedger
from toolerr._types import ToolCall, Verdict
from toolerr.adapters import LoopDecision, RepeatReport, canonical_arguments, decide_loop, exact_arguments

FIXABLE = Verdict(failed=True, kind="fixable", family="validation")
UNRECOVERABLE = Verdict(failed=True, kind="unrecoverable", family="http.403")
TRANSIENT = Verdict(failed=True, kind="transient", family="http.503", outcome="not_executed")
AMBIGUOUS = Verdict(failed=True, kind="ambiguous", family="http.404")
OK = Verdict(failed=False)


# -- canonical_arguments ---------------------------------------------------------------


class TestCanonical:
    def test_key_order_recursive(self) -> None:
        a = {"b": {"y": 1, "x": [{"q": 1, "p": 2}]}, "a": 0}
        b = {"a": 0, "b": {"x": [{"p": 2, "q": 1}], "y": 1}}
        assert canonical_arguments(a) == canonical_arguments(b)
        assert canonical_arguments(a) == '{"a":0,"b":{"x":[{"p":2,"q":1}],"y":1}}'

    def test_white_space(self) -> None:
        assert canonical_arguments({"city": "  New\n York\t"}) == canonical_arguments({"city": "New York"})
        assert canonical_arguments({"city": "NewYork"}) != canonical_arguments({"city": "New York"})

    def test_number_formats(self) -> None:
        assert canonical_arguments({"n": 1.0}) == canonical_arguments({"n": 1})
        assert canonical_arguments('{"n": 1e3}') == canonical_arguments({"n": 1000})
        assert canonical_arguments('{"n": 1.50}') == canonical_arguments({"n": 1.5})
        assert canonical_arguments({"n": Decimal("2.0")}) == canonical_arguments({"n": 2})
        assert canonical_arguments({"n": -0.0}) == canonical_arguments({"n": 0})

    def test_numeric_strings_stay_strings(self) -> None:
        assert canonical_arguments({"n": "1"}) != canonical_arguments({"n": 1})
        assert canonical_arguments({"n": "1.0"}) != canonical_arguments({"n": "1"})

    def test_bool_is_not_a_number(self) -> None:
        assert canonical_arguments({"n": True}) != canonical_arguments({"n": 1})
        assert canonical_arguments({"n": False}) != canonical_arguments({"n": 0})

    def test_python_literal_quoting_equals_json(self) -> None:
        assert canonical_arguments("{'a': 'x', 'b': [1, True, None]}") == canonical_arguments(
            '{"a": "x", "b": [1, true, null]}'
        )
        assert canonical_arguments("{'a': 'x'}") == canonical_arguments({"a": "x"})

    def test_python_literal_with_invalid_escape_does_not_warn(self) -> None:
        # pytest runs with filterwarnings=error: a warning from the parser would raise here
        assert canonical_arguments("{'pattern': '\\d+'}") == canonical_arguments({"pattern": "\\d+"})
        assert canonical_arguments("{'a': 1if 2 else 3}").startswith('"')  # not a literal: text

    def test_raw_unparsed_string_equals_parsed_dict(self) -> None:
        raw = '{"query": "flights to Paris", "limit": 5}'
        call = ToolCall.from_raw("c1", "search", raw)
        assert canonical_arguments(raw) == canonical_arguments(call.arguments)
        assert canonical_arguments(raw) == canonical_arguments({"limit": 5, "query": "flights to Paris"})

    def test_empty_forms_are_equal(self) -> None:
        forms: list[Any] = [None, {}, "", "   ", "null", "{}"]
        assert len({canonical_arguments(f) for f in forms}) == 1

    def test_non_json_text_normalised(self) -> None:
        assert canonical_arguments("ls  -la\n/tmp") == canonical_arguments(" ls -la /tmp ")
        assert canonical_arguments('"ls -la"') == canonical_arguments("ls   -la")
        assert canonical_arguments('{"a": 1') == canonical_arguments('{"a":  1')

    def test_containers(self) -> None:
        assert canonical_arguments({"x": (1, 2)}) == canonical_arguments({"x": [1, 2]})
        assert canonical_arguments({"x": {3, 1, 2}}) == canonical_arguments({"x": [1, 2, 3]})
        assert canonical_arguments(OrderedDict([("b", 1), ("a", 2)])) == canonical_arguments({"a": 2, "b": 1})

        @dataclass
        class Point:
            x: int
            y: int

        assert canonical_arguments(Point(1, 2)) == canonical_arguments({"y": 2, "x": 1})

    def test_long_text_is_capped_and_hashed(self) -> None:
        a = canonical_arguments({"text": "x" * 100_000 + "a"})
        b = canonical_arguments({"text": "x" * 100_000 + "b"})
        assert len(a) < 4200
        assert a != b
        assert a == canonical_arguments({"text": "x" * 100_000 + "a"})


class Weird:
    def __repr__(self) -> str:
        raise RuntimeError("broken repr")


class BadMapping(dict):  # type: ignore[type-arg]
    def items(self) -> Any:
        raise RuntimeError("broken items")


def _odd_values() -> list[Any]:
    cyclic: list[Any] = [1]
    cyclic.append(cyclic)
    cyclic_dict: dict[str, Any] = {}
    cyclic_dict["self"] = cyclic_dict
    deep: Any = []
    for _ in range(10_000):
        deep = [deep]
    return [
        cyclic,
        cyclic_dict,
        deep,
        float("nan"),
        float("inf"),
        {"n": float("-inf")},
        10**10_000,
        {10**10_000: 1},
        b"\xff\xfe bytes",
        bytearray(b"x"),
        object(),
        Weird(),
        {"w": Weird()},
        {Weird(): 1},
        BadMapping(a=1),
        {(1, 2): "tuple key"},
        "\x00\ud800 nul and lone surrogate",
        "{" * 100_000,
        "[" * 5000 + "]" * 5000,
        "1" * 10_000,
        "{'a': " + "9" * 10_000 + "}",
        {"s": {frozenset({1}), frozenset({2})}},
        Decimal("NaN"),
        Decimal("1e100000"),
        complex(1, 2),
        list(range(100_000)),
        {str(i): i for i in range(50_000)},
        threading.Lock(),
    ]


@pytest.mark.parametrize("value", _odd_values(), ids=lambda v: type(v).__name__)
def test_odd_arguments_never_raise(value: Any) -> None:
    canon = canonical_arguments(value)
    assert isinstance(canon, str)
    assert len(canon) <= 4200
    assert isinstance(exact_arguments(value), str)
    ledger = FailureLedger()
    ledger.record("tool", value, FIXABLE)
    report = ledger.check("tool", value)
    assert report.canonical
    json.dumps(ledger.snapshot())


def test_canonical_of_huge_input_is_fast() -> None:
    import time

    value = {"rows": [{"id": i, "tags": ["a", "b"]} for i in range(200_000)]}
    start = time.perf_counter()
    canonical_arguments(value)
    assert time.perf_counter() - start < 2.0


# -- hypothesis ------------------------------------------------------------------------

_json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
_json_values = st.recursive(
    _json_scalars,
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=25,
)


def _reorder(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _reorder(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [_reorder(v) for v in value]
    return value


@settings(max_examples=300, deadline=None)
@given(_json_values)
def test_hypothesis_invariant_to_key_order(value: Any) -> None:
    assert canonical_arguments(_reorder(value)) == canonical_arguments(value)


@settings(max_examples=300, deadline=None)
@given(_json_values)
def test_hypothesis_invariant_to_json_round_trip(value: Any) -> None:
    assert canonical_arguments(json.loads(json.dumps(value))) == canonical_arguments(value)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=8), _json_values, max_size=5))
def test_hypothesis_raw_text_equals_parsed(value: dict[str, Any]) -> None:
    expected = canonical_arguments(value)
    assert canonical_arguments(json.dumps(value)) == expected
    assert canonical_arguments(json.dumps(value, indent=2, ensure_ascii=False)) == expected


_literal_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=15,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=8), _literal_values, max_size=5))
def test_hypothesis_python_literal_equals_json(value: dict[str, Any]) -> None:
    assert canonical_arguments(repr(value)) == canonical_arguments(json.dumps(value))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_hypothesis_any_text_never_raises(text: str) -> None:
    assert isinstance(canonical_arguments(text), str)
    assert isinstance(canonical_arguments("{'a': " + text + "}"), str)


# -- exact_arguments ---------------------------------------------------------------------


def test_exact_arguments() -> None:
    assert exact_arguments({"b": 1, "a": "é"}) == '{"b": 1, "a": "é"}'
    assert exact_arguments({"b": 1}, raw='{"b":1}') == '{"b":1}'
    assert exact_arguments("not json") == "not json"
    assert exact_arguments(None) == "null"
    assert isinstance(exact_arguments({"x": object()}), str)


# -- repeats -----------------------------------------------------------------------------


def test_exact_versus_canonical() -> None:
    ledger = FailureLedger()
    ledger.record("get_weather", {"city": "Pari"}, FIXABLE, raw='{"city": "Pari"}', call_id="c1")

    same = ledger.check("get_weather", {"city": "Pari"}, raw='{"city": "Pari"}')
    assert same.exact
    assert same.canonical
    assert same.is_repeat
    assert same.is_loop
    assert same.previous is not None
    assert same.previous.call_id == "c1"
    assert same.previous.count == 1

    respelled = ledger.check("get_weather", {"city": " Pari "}, raw='{"city":" Pari "}')
    assert not respelled.exact
    assert respelled.canonical
    assert respelled.is_loop

    without_raw = ledger.check("get_weather", {"city": "Pari"})
    assert without_raw.exact  # json.dumps of the dict is the same text

    other_tool = ledger.check("get_forecast", {"city": "Pari"})
    assert not other_tool.is_repeat
    assert other_tool.previous is None

    fixed = ledger.check("get_weather", {"city": "Paris"})
    assert not fixed.is_repeat
    assert not fixed.is_loop


def test_record_returns_the_report_check_gave() -> None:
    ledger = FailureLedger()
    ledger.record("t", {"a": 1}, FIXABLE)
    before = ledger.check("t", {"a": 1})
    assert ledger.record("t", {"a": 1}, FIXABLE) == before
    assert ledger.failures[0].count == 2


def test_step_counts_recorded_calls() -> None:
    ledger = FailureLedger()
    assert ledger.step == 0
    ledger.record("a", {}, OK)
    ledger.record("b", {}, FIXABLE)
    ledger.check("b", {})
    assert ledger.step == 2
    assert ledger.failures[0].step == 2


def test_same_family_reworded() -> None:
    ledger = FailureLedger()
    first = ledger.record("get_weather", {"city": "Pari"}, FIXABLE)
    assert not first.same_family
    assert not first.is_loop

    second = ledger.record("get_weather", {"city": "Parris"}, FIXABLE)
    assert second.same_family
    assert not second.canonical
    assert second.family_count == 1
    assert second.previous is not None
    assert second.previous.arguments == {"city": "Pari"}
    assert not second.is_loop  # one failed fix is not yet a loop

    third = ledger.record("get_weather", {"city": "Prs"}, FIXABLE)
    assert third.same_family
    assert third.family_count == 2
    assert third.is_loop

    # a different family, or no family known (check before the result), is not same_family
    assert not ledger.check("get_weather", {"city": "X"}, family="http.500").same_family
    assert not ledger.check("get_weather", {"city": "X"}).same_family
    assert ledger.check("get_weather", {"city": "X"}, family="validation").is_loop


def test_same_family_transient_is_not_a_loop() -> None:
    ledger = FailureLedger()
    for i in range(5):
        report = ledger.record("fetch", {"url": f"https://x/{i}"}, TRANSIENT)
    assert report.same_family
    assert report.family_count == 4
    assert not report.is_loop


def test_tool_success_resets_family_counts() -> None:
    ledger = FailureLedger()
    ledger.record("get_weather", {"city": "Pari"}, FIXABLE)
    ledger.record("get_weather", {"city": "Parris"}, FIXABLE)
    ledger.record("get_weather", {"city": "Paris"}, OK)
    report = ledger.record("get_weather", {"city": "Lodnon"}, FIXABLE)
    assert not report.same_family
    assert not report.is_loop
    # the failed calls themselves are still known (they would fail again)
    assert ledger.check("get_weather", {"city": "Pari"}).canonical


def test_success_clears_the_failure() -> None:
    ledger = FailureLedger()
    ledger.record("read", {"path": "a"}, FIXABLE)
    ledger.record("read", {"path": "b"}, FIXABLE)
    ledger.record("read", {"path": " a "}, OK)
    assert [f.arguments for f in ledger.failures] == [{"path": "b"}]
    assert not ledger.check("read", {"path": "a"}).is_repeat
    assert ledger.check("read", {"path": "b"}).is_repeat
    ledger.record("read", {"path": "b"}, None)  # None is a success too
    assert ledger.failures == ()


def test_ambiguous_and_unrecoverable_repeats_are_loops() -> None:
    ledger = FailureLedger()
    ledger.record("open", {"p": 1}, AMBIGUOUS)
    ledger.record("delete", {"p": 1}, UNRECOVERABLE)
    assert ledger.check("open", {"p": 1}).is_loop
    assert ledger.check("delete", {"p": 1}).is_loop


def test_failed_verdict_without_kind_counts_as_ambiguous() -> None:
    ledger = FailureLedger()
    ledger.record("t", {}, Verdict(failed=True))
    assert ledger.failures[0].kind == "ambiguous"


def test_failures_order_and_surface_forms() -> None:
    ledger = FailureLedger()
    ledger.record("a", {"x": 1}, FIXABLE, raw='{"x": 1}')
    ledger.record("b", {"x": 1}, FIXABLE)
    ledger.record("a", {"x": 1.0}, FIXABLE, raw='{"x":1.0}')
    assert [f.name for f in ledger.failures] == ["b", "a"]  # least recently failed first
    a = ledger.failures[1]
    assert a.count == 2
    assert a.exact == '{"x":1.0}'
    assert a.step == 3
    assert a.signature == 'a({"x":1})'
    banned = sorted(f.exact for f in ledger.banned_calls() if f.name == "a")
    assert banned == ['{"x": 1}', '{"x":1.0}']


# -- retry budget -------------------------------------------------------------------------


def test_transient_retry_budget_counting() -> None:
    """Budget 3: attempts 2, 3, 4 (retries 1-3) are allowed; attempt 5 is over budget."""
    ledger = FailureLedger(retry_budget=3)
    args = {"q": "x"}
    first = ledger.record("search", args, TRANSIENT)  # attempt 1
    assert not first.is_repeat
    assert not first.is_loop
    assert ledger.effective_kind("search", args, TRANSIENT) == "transient"
    for attempt in (2, 3, 4):
        report = ledger.check("search", args)
        assert report.exact, attempt
        assert report.retry_allowed, attempt
        assert not report.budget_exhausted, attempt
        assert not report.is_loop, attempt
        assert decide_loop(report, loop_action="block").action == "allow"
        assert ledger.record("search", args, TRANSIENT) == report
        assert ledger.failures[0].count == attempt
        expected = "transient" if attempt < 4 else "unrecoverable"
        assert ledger.effective_kind("search", args, TRANSIENT) == expected, attempt
        assert bool(ledger.banned_calls()) == (attempt == 4), attempt
    fifth = ledger.check("search", args)
    assert fifth.exact
    assert not fifth.retry_allowed
    assert fifth.budget_exhausted
    assert fifth.is_loop
    assert decide_loop(fifth, loop_action="block").action == "block"


def test_retry_budget_zero_and_custom() -> None:
    ledger = FailureLedger(retry_budget=0)
    ledger.record("t", {}, TRANSIENT)
    assert ledger.effective_kind("t", {}, TRANSIENT) == "unrecoverable"
    assert ledger.check("t", {}).budget_exhausted

    ledger = FailureLedger(retry_budget=1)
    ledger.record("t", {}, TRANSIENT)
    assert ledger.check("t", {}).retry_allowed
    ledger.record("t", {}, TRANSIENT)
    assert ledger.check("t", {}).budget_exhausted


def test_transient_success_resets_budget() -> None:
    ledger = FailureLedger(retry_budget=1)
    ledger.record("t", {}, TRANSIENT)
    ledger.record("t", {}, TRANSIENT)
    ledger.record("t", {}, OK)
    ledger.record("t", {}, TRANSIENT)
    assert ledger.check("t", {}).retry_allowed


def test_effective_kind_passes_other_kinds() -> None:
    ledger = FailureLedger(retry_budget=0)
    assert ledger.effective_kind("t", {}, FIXABLE) == "fixable"
    assert ledger.effective_kind("t", {}, OK) is None
    assert FailureLedger().effective_kind("t", {}, TRANSIENT) == "transient"  # unknown call: first failure


def test_banned_calls_kinds() -> None:
    ledger = FailureLedger()
    ledger.record("a", {}, FIXABLE)
    ledger.record("b", {}, UNRECOVERABLE)
    ledger.record("c", {}, AMBIGUOUS)
    ledger.record("d", {}, TRANSIENT)
    assert sorted(f.name for f in ledger.banned_calls()) == ["a", "b", "c"]
    assert all(isinstance(f, FailedCall) for f in ledger.banned_calls())


# -- cycles -------------------------------------------------------------------------------


def test_cycle_of_two() -> None:
    ledger = FailureLedger()
    ledger.record("search_flights", {"to": "PAR"}, FIXABLE)
    ledger.record("book_flight", {"id": 7}, OK)
    ledger.record("search_flights", {"to": "PAR"}, FIXABLE)
    report = ledger.check("book_flight", {"id": 7})
    assert report.cycle == ('search_flights({"to":"PAR"})', 'book_flight({"id":7})')
    assert report.is_loop
    assert not report.is_repeat
    decision = decide_loop(report, loop_action="note")
    assert decision.action == "note"
    assert (
        decision.reason == "The last calls repeat a cycle (search_flights, book_flight) that keeps failing."
    )
    assert decide_loop(report, loop_action="block").action == "note"
    assert decide_loop(report, loop_action="stop").action == "stop"


def test_cycle_and_repeat_together() -> None:
    ledger = FailureLedger()
    ledger.record("search_flights", {"to": "PAR"}, OK)
    ledger.record("book_flight", {"id": 7}, FIXABLE)
    ledger.record("search_flights", {"to": "PAR"}, OK)
    report = ledger.check("book_flight", {"id": 7})
    assert report.cycle is not None
    assert report.canonical
    decision = decide_loop(report, loop_action="block")
    assert decision.action == "block"  # the identical repeat is the more specific reason
    assert decision.reason.startswith("book_flight was already called with these arguments")


def test_cycle_reported_when_failing_call_is_the_candidate_position() -> None:
    ledger = FailureLedger()
    ledger.record("a", {}, FIXABLE)
    ledger.record("b", {}, OK)
    ledger.record("a", {}, OK)  # a now succeeded: its latest status counts
    assert ledger.check("b", {}).cycle is None
    ledger2 = FailureLedger()
    ledger2.record("a", {}, OK)
    ledger2.record("b", {}, FIXABLE)
    ledger2.record("a", {}, OK)
    assert ledger2.check("b", {}).cycle is not None


def test_cycle_of_three() -> None:
    ledger = FailureLedger()
    for name, verdict in [("a", OK), ("b", OK), ("c", FIXABLE), ("a", OK), ("b", OK)]:
        assert ledger.record(name, {"k": 1}, verdict).cycle is None
    report = ledger.check("c", {"k": 1})
    assert report.cycle is not None
    assert len(report.cycle) == 3
    assert report.is_loop


def test_no_false_cycles() -> None:
    ledger = FailureLedger()
    for name in "abcd":
        assert ledger.record(name, {}, FIXABLE).cycle is None
    for name in ["a", "b", "a"]:
        ledger.record(name, {"other": 1}, FIXABLE)
    assert ledger.check("c", {"other": 1}).cycle is None  # A B A C
    assert ledger.check("b", {"different": 1}).cycle is None  # same tool, other arguments


def test_cycle_needs_a_failure() -> None:
    ledger = FailureLedger()
    for name in "aba":
        ledger.record(name, {}, OK)
    assert ledger.check("b", {}).cycle is None


def test_period_one_is_not_a_cycle() -> None:
    ledger = FailureLedger()
    for _ in range(3):
        ledger.record("a", {}, FIXABLE)
    report = ledger.check("a", {})
    assert report.cycle is None
    assert report.canonical
    assert report.is_loop


def test_transient_within_budget_does_not_make_a_cycle() -> None:
    ledger = FailureLedger()
    ledger.record("fetch", {}, TRANSIENT)
    ledger.record("wait", {}, OK)
    ledger.record("fetch", {}, TRANSIENT)
    report = ledger.check("wait", {})
    assert report.cycle is None
    assert not report.is_loop


def test_max_cycle_len() -> None:
    ledger = FailureLedger(max_cycle_len=2)
    for name in "abcab":
        ledger.record(name, {}, FIXABLE)
    assert ledger.check("c", {}).cycle is None
    ledger = FailureLedger(max_cycle_len=4)
    for name in "abcdabc":
        ledger.record(name, {}, FIXABLE)
    assert ledger.check("d", {}).cycle == ("a({})", "b({})", "c({})", "d({})")


# -- loop policy ---------------------------------------------------------------------------


def test_decide_loop_actions() -> None:
    ledger = FailureLedger()
    ledger.record("get_weather", {"city": "Secret-Value-123"}, FIXABLE)
    repeat = ledger.check("get_weather", {"city": "Secret-Value-123"})

    note = decide_loop(repeat, loop_action="note")
    assert isinstance(note, LoopDecision)
    assert note.action == "note"
    assert note.report is repeat
    assert note.reason == (
        "get_weather was already called with these arguments and failed (fixable); "
        "the same call will fail again."
    )
    assert "Secret-Value-123" not in note.reason
    assert decide_loop(repeat, loop_action="block").action == "block"
    assert decide_loop(repeat, loop_action="stop").action == "stop"

    fresh = ledger.check("get_weather", {"city": "Paris"})
    for action in ("note", "block", "stop"):
        assert decide_loop(fresh, loop_action=action).action == "allow"


def test_block_only_for_identical_repeats() -> None:
    ledger = FailureLedger()
    for city in ("a", "b", "c"):
        report = ledger.record("get_weather", {"city": city}, FIXABLE)
    assert report.is_loop
    assert report.same_family
    assert not report.is_repeat
    decision = decide_loop(report, loop_action="block")
    assert decision.action == "note"
    assert "validation" in decision.reason
    assert '"c"' not in decision.reason

    ledger = FailureLedger()
    for name in "aba":
        ledger.record(name, {}, FIXABLE if name == "b" else OK)
    cycle = ledger.check("b", {})
    assert cycle.cycle is not None
    # the candidate b is an identical repeat of a failed call too: block applies
    assert decide_loop(cycle, loop_action="block").action == "block"
    only_cycle = RepeatReport(cycle=cycle.cycle)
    assert decide_loop(only_cycle, loop_action="block").action == "note"
    assert (
        decide_loop(only_cycle, loop_action="stop").reason
        == "The last calls repeat a cycle (a, b) that keeps failing."
    )


def test_decide_loop_budget_and_previous_kind() -> None:
    ledger = FailureLedger(retry_budget=1)
    ledger.record("t", {}, TRANSIENT)
    within = ledger.check("t", {})
    assert decide_loop(within, loop_action="stop").action == "allow"
    # the caller may override the kind (e.g. with effective_kind)
    assert decide_loop(within, loop_action="block", previous_kind="unrecoverable").action == "block"
    ledger.record("t", {}, TRANSIENT)
    over = ledger.check("t", {})
    decision = decide_loop(over, loop_action="block")
    assert decision.action == "block"
    assert "retry budget" in decision.reason


def test_decide_loop_misuse() -> None:
    with pytest.raises(ValueError, match="loop_action"):
        decide_loop(RepeatReport(), loop_action="explode")  # type: ignore[arg-type]


def test_empty_report() -> None:
    report = RepeatReport()
    assert not report.is_repeat
    assert not report.is_loop
    assert decide_loop(report, loop_action="stop").action == "allow"


# -- API misuse, concurrency, memory -------------------------------------------------------


def test_api_misuse() -> None:
    with pytest.raises(ValueError, match="retry_budget"):
        FailureLedger(retry_budget=-1)
    with pytest.raises(TypeError):
        FailureLedger(retry_budget="3")  # type: ignore[arg-type]
    ledger = FailureLedger()
    with pytest.raises(TypeError):
        ledger.check(None, {})  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ledger.record(1, {}, FIXABLE)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ledger.record("t", {}, "failed")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ledger.effective_kind(b"t", {}, FIXABLE)  # type: ignore[arg-type]


def test_reset_and_snapshot() -> None:
    ledger = FailureLedger()
    ledger.record("t", {"x": "y" * 10_000}, FIXABLE, call_id="c9")
    ledger.record("u", {}, OK)
    snap = ledger.snapshot()
    text = json.dumps(snap)
    assert len(text) < 3000
    assert snap["step"] == 2
    assert snap["failures"][0]["call_id"] == "c9"
    assert snap["failures"][0]["kind"] == "fixable"
    assert snap["failures"][0]["count"] == 1
    assert [r["failed"] for r in snap["recent"]] == [True, False]
    ledger.reset()
    assert ledger.failures == ()
    assert ledger.step == 0
    assert ledger.snapshot()["recent"] == []
    assert not ledger.check("t", {"x": "y" * 10_000}).is_repeat


def test_thread_safety() -> None:
    ledger = FailureLedger(retry_budget=10**9)
    threads_n, per_thread = 16, 500
    barrier = threading.Barrier(threads_n)
    errors: list[BaseException] = []

    def work(index: int) -> None:
        try:
            barrier.wait()
            for i in range(per_thread):
                ledger.record("shared", {"q": 1}, TRANSIENT)
                ledger.record(f"own-{index}", {"i": i % 7}, FIXABLE if i % 2 else OK)
                ledger.check("shared", {"q": 1})
                ledger.banned_calls()
                ledger.snapshot()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert ledger.step == threads_n * per_thread * 2
    shared = [f for f in ledger.failures if f.name == "shared"]
    assert len(shared) == 1
    assert shared[0].count == threads_n * per_thread


def test_bounded_memory_with_100k_records() -> None:
    ledger = FailureLedger(history=64)
    for i in range(100_000):
        ledger.record(f"tool{i % 3000}", {"i": i}, FIXABLE if i % 3 else TRANSIENT, raw=f'{{"i": {i}}}')
    assert ledger.step == 100_000
    assert len(ledger.failures) == ledger.max_failures == 1000
    assert len(ledger.snapshot()["recent"]) == 64
    assert ledger.snapshot()["dropped"] == 99_000
    assert ledger._families.__len__() <= FailureLedger.MAX_TOOLS
    # the most recent failures are kept
    assert ledger.check("tool999", {"i": 99_999}).canonical
    assert not ledger.check("tool0", {"i": 0}).canonical


def test_bounded_surface_forms_per_call() -> None:
    ledger = FailureLedger()
    for i in range(100):
        ledger.record("t", {"a": 1}, FIXABLE, raw='{"a":' + " " * i + "1}")
    assert len(ledger.banned_calls()) == FailureLedger.MAX_EXACTS
    assert ledger.failures[0].count == 100


def test_nan_arguments_repeat() -> None:
    ledger = FailureLedger()
    ledger.record("t", {"x": float("nan")}, FIXABLE)
    assert ledger.check("t", {"x": math.nan}).canonical


def test_huge_inputs_that_differ_in_size_stay_distinct() -> None:
    a = canonical_arguments({"rows": list(range(100_000))})
    b = canonical_arguments({"rows": list(range(100_001))})
    assert a != b


def test_family_repeat_needs_the_same_diagnosis() -> None:
    ledger = FailureLedger()
    errors = [
        "1 validation error: field 'unit' is required",
        "1 validation error: 'value' should be a valid integer",
        "Error: unknown argument 'units'; expected one of value, unit",
    ]
    reports = [
        ledger.record("convert", {"attempt": i}, FIXABLE, diagnosis=text) for i, text in enumerate(errors)
    ]
    # three different validation errors: each fix changed the error, not a loop
    assert not any(r.same_family for r in reports)
    assert not any(r.is_loop for r in reports)


def test_family_repeat_with_the_same_diagnosis_and_other_values() -> None:
    ledger = FailureLedger()
    texts = [
        "File '/a/b.txt' not found (line 3)",
        "File '/a/c.txt' not found (line 7)",
        "File x/y not found (line 9)",
    ]
    reports = [ledger.record("read", {"p": i}, FIXABLE, diagnosis=text) for i, text in enumerate(texts)]
    assert reports[1].same_family and reports[1].family_count == 1
    assert reports[2].same_family and reports[2].family_count == 2
    assert reports[2].is_loop
    decision = decide_loop(reports[2], loop_action="note")
    assert "keeps failing with the same error (validation)" in decision.reason


def test_block_never_applies_to_an_ambiguous_failure() -> None:
    ledger = FailureLedger()
    ledger.record("read_file", {"path": "notes.txt"}, AMBIGUOUS)  # missing: may exist later
    ledger.record("write_file", {"path": "notes.txt", "text": "x"}, OK)
    report = ledger.check("read_file", {"path": "notes.txt"})
    assert report.is_loop  # still reported: the note says so
    decision = decide_loop(report, loop_action="block")
    assert decision.action == "note"  # the call reaches the tool
    assert decide_loop(report, loop_action="stop").action == "stop"
    # a fixable or unrecoverable identical repeat is still blocked
    ledger.record("read_file", {"path": "/etc/shadow"}, UNRECOVERABLE)
    assert (
        decide_loop(ledger.check("read_file", {"path": "/etc/shadow"}), loop_action="block").action == "block"
    )


@pytest.mark.parametrize(
    ("python_text", "json_text"),
    [
        ("{'n': 1e3}", '{"n": 1000}'),
        ("{'n': 1E-2}", '{"n": 0.01}'),
        ("{'n': 0x10}", '{"n": 16}'),
        ("{'n': 0o17}", '{"n": 15}'),
        ("{'n': 0b101}", '{"n": 5}'),
        ("{'n': 1_000}", '{"n": 1000}'),
        ("{'n': .5}", '{"n": 0.5}'),
    ],
)
def test_python_number_literals_equal_their_json(python_text: str, json_text: str) -> None:
    # A model that writes Python literals repeats the call it watched fail just the same.
    assert canonical_arguments(python_text) == canonical_arguments(json_text)
    ledger = FailureLedger()
    ledger.record("t", json_text, FIXABLE)
    assert ledger.check("t", python_text).canonical


def test_number_followed_by_a_name_is_not_a_literal() -> None:
    assert canonical_arguments("{'n': 1e3x}") != canonical_arguments('{"n": 1000}')
