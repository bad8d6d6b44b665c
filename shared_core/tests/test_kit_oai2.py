"""RunTrail (the adapter kit): a run's snapshots followed by context and by a key the
framework gives all turns of a run (the Agents SDK's trace), for a model-input filter."""

from __future__ import annotations

import contextvars
import gc

from toolerr import Message, ToolCall, ToolErrorLayer
from toolerr.adapters import ConversionCache, RunSnapshot, RunTrail

LAYER = ToolErrorLayer()
USER = Message(role="user", content="weather in Paris?")


class Trace:
    """A key that can be weakly referenced (as the SDK's traces)."""


def _turn(call_id: str) -> list[Message]:
    call = ToolCall(id=call_id, name="get_weather", arguments={"city": "Paris"})
    return [
        Message(role="assistant", content="", tool_calls=(call,)),
        Message(role="tool", content="18 C", tool_call_id=call_id),
    ]


def _fresh(fn: object, *args: object) -> object:
    """``fn(*args)`` in a context of its own (another task of the framework)."""
    return contextvars.Context().run(fn, *args)  # type: ignore[arg-type]


def test_a_context_follows_its_run_and_starts_another_for_a_new_conversation() -> None:
    trail = RunTrail()
    assert trail.current() is None
    assert trail.conversions() is None
    first = trail.advance(LAYER, [USER, *_turn("a")])
    assert trail.current() is first
    assert isinstance(trail.conversions(), ConversionCache)
    grown = trail.advance(LAYER, [USER, *_turn("a"), *_turn("b")])
    assert grown.run is first.run and trail.current() is grown
    other = trail.advance(LAYER, [USER, *_turn("c")])
    assert other.run is not first.run


def test_the_key_follows_a_run_into_another_context() -> None:
    trail, trace = RunTrail(), Trace()
    first = _fresh(trail.advance, LAYER, [USER, *_turn("a")], trace)
    assert isinstance(first, RunSnapshot) and trail.current() is None  # not this context's
    assert trail.snapshots(trace) == [first]
    assert trail.conversions(trace) is _fresh(trail.conversions, trace)
    later = trail.advance(LAYER, [USER, *_turn("a"), *_turn("b")], trace)
    assert later.run is first.run
    assert trail.snapshots(trace) == [later]  # a run's latest only


def test_runs_of_one_key_that_begin_alike_get_scopes_of_their_own() -> None:
    trail, trace = RunTrail(), Trace()
    one = _fresh(trail.advance, LAYER, [USER, *_turn("a")], trace)
    two = _fresh(trail.advance, LAYER, [USER, *_turn("b")], trace)
    assert isinstance(one, RunSnapshot) and isinstance(two, RunSnapshot)
    assert one.run is not two.run
    grown = _fresh(trail.advance, LAYER, [USER, *_turn("a"), *_turn("c")], trace)
    assert isinstance(grown, RunSnapshot) and grown.run is one.run  # continues one run only
    ambiguous = _fresh(trail.advance, LAYER, [USER], trace)  # continues neither
    assert isinstance(ambiguous, RunSnapshot)
    assert ambiguous.run not in (one.run, two.run)


def test_a_context_snapshot_of_another_key_is_not_followed() -> None:
    trail, trace, other = RunTrail(), Trace(), Trace()
    first = trail.advance(LAYER, [USER, *_turn("a")], trace)
    moved = trail.advance(LAYER, [USER, *_turn("a"), *_turn("b")], other)
    assert moved.run is not first.run  # the other trace holds no run yet


def test_keys_are_held_weakly_bounded_and_unfollowable_keys_are_ignored() -> None:
    trail, trace = RunTrail(size=2), Trace()
    for call_id in "abc":
        trail.keep(trace, RunSnapshot(LAYER, _turn(call_id), object()))
    kept = trail.snapshots(trace)
    assert kept is not None and len(kept) == 2
    del trace
    gc.collect()
    assert not trail._items
    assert trail.snapshots(42) is None  # no weak reference to an int
    snapshot = trail.advance(LAYER, [USER, *_turn("a")], 42)
    assert trail.current() is snapshot and trail.snapshots(42) is None
