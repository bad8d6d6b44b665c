"""plain_failure_of (the adapter kit, for frameworks that show a failure as a plain tool
result): failure_of's verdict, and its text with ``Error: `` where the text alone would
not read as a failure."""

from __future__ import annotations

import pytest
from toolerr import Message, ToolErrorLayer
from toolerr.adapters import clean_text, failure_of, plain_failure_of


class Boom(Exception):
    """An exception whose ``Type: message`` detection alone does not read as a failure."""


def _detected(layer: ToolErrorLayer, text: str) -> bool:
    return layer.inspect(Message(role="tool", content=text, client=layer.policy.client)).failed


@pytest.mark.parametrize(
    "error", [PermissionError(13, "Permission denied"), ValueError("city must not be empty")]
)
def test_a_text_read_as_a_failure_is_failure_of(error: BaseException) -> None:
    layer = ToolErrorLayer()
    assert plain_failure_of(layer, error, tool="weather") == failure_of(layer, error, tool="weather")


def test_a_text_not_read_as_a_failure_gets_the_prefix_and_keeps_the_verdict() -> None:
    layer = ToolErrorLayer()
    error = Boom("the upstream said no")
    assert not _detected(layer, "Boom: the upstream said no")
    failure = plain_failure_of(layer, error, tool="weather")
    assert failure.text == "Error: Boom: the upstream said no"
    assert _detected(layer, failure.text)
    assert failure.verdict == failure_of(layer, error, tool="weather").verdict
    assert failure.verdict.failed


def test_the_prefixed_text_is_cleaned_and_capped_as_a_whole() -> None:
    layer = ToolErrorLayer(max_error_chars=80)
    error = Boom("the upstream said no " * 20)
    text = plain_failure_of(layer, error).text
    assert text == clean_text(f"Error: Boom: {error}", 80)
    assert text.startswith("Error: Boom: the upstream")
    assert text.endswith("more characters cut by toolerr]")


def test_classification_errors_leave() -> None:
    layer = ToolErrorLayer()

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("toolerr bug")

    layer.inspect_exception = broken  # type: ignore[method-assign]
    with pytest.raises(RuntimeError, match="toolerr bug"):
        plain_failure_of(layer, Boom("x"))
