"""``same_objects`` and ``appended_text``: what a rewrite changed of a framework's parts."""

from __future__ import annotations

from toolerr.adapters import appended_text, same_objects


def test_same_objects_is_identity_in_order() -> None:
    a, b = ["x"], ["x"]  # equal, not the same
    assert same_objects([a, b], (a, b))
    assert same_objects([], ())
    assert not same_objects([a, a], [a, b])  # equal values, another object
    assert not same_objects([b, a], [a, b])  # order
    assert not same_objects([a], [a, b])  # length (no error from zip's strictness)
    assert not same_objects([a, b, a], [a, b])


def test_appended_text() -> None:
    assert appended_text("Error: boom", "Error: boom\nCheck the path first.") == "\nCheck the path first."
    assert appended_text("Error: boom", "Error: boom") == ""
    assert appended_text("Error: boom", "[excerpt] boom") is None  # replaced, not appended
    assert appended_text("", "a note") == "a note"
