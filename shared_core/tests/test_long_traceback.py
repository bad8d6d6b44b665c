"""A Python trace longer than the classifier's window is read by its last line too: the
exception that was raised (found by issue 26's quarantine work: a deep trace came out
ambiguous because only its first 4,096 characters were read)."""

from __future__ import annotations

import traceback

import pytest
import toolerr
from toolerr._rules import WINDOW_CHARS


def deep_trace(exception: BaseException, depth: int = 200) -> str:
    """The real trace of ``exception`` raised ``depth`` distinct frames deep (distinct
    functions, so Python does not fold the repeats)."""
    source = "def f0(exc):\n    raise exc\n" + "".join(
        f"def f{i}(exc):\n    rows = list(range({i}))\n    return f{i - 1}(exc)\n"
        for i in range(1, depth + 1)
    )
    exception = type(exception)(*exception.args)  # a fresh one: a raise extends a kept trace
    namespace: dict[str, object] = {}
    exec(compile(source, "/srv/app/pipeline/steps.py", "exec"), namespace)
    try:
        namespace[f"f{depth}"](exception)  # type: ignore[operator]
    except BaseException:
        return traceback.format_exc()
    raise AssertionError("the generated function did not raise")


CASES = [
    (ConnectionRefusedError(111, "Connection refused"), "transient"),
    (PermissionError(13, "Permission denied: '/etc/app.conf'"), "unrecoverable"),
    (ValueError("invalid literal for int() with base 10: 'abc'"), "fixable"),
    (TimeoutError("timed out"), "transient"),
]


@pytest.mark.parametrize(
    ("exception", "kind"), CASES, ids=lambda v: type(v).__name__ if isinstance(v, BaseException) else v
)
@pytest.mark.parametrize(
    "prefix", ["", "Error: ", "Execution error in get_weather: \n", "Error executing tool x: "]
)
def test_a_long_trace_is_classified_by_its_exception(
    exception: BaseException, kind: str, prefix: str
) -> None:
    text = prefix + deep_trace(exception)
    assert len(text) > 2 * WINDOW_CHARS, len(text)
    for is_error in (True, None):
        verdict = toolerr.inspect_result(text, is_error=is_error)
        assert verdict.failed and verdict.kind == kind, (is_error, verdict)


@pytest.mark.parametrize(("exception", "kind"), CASES[:2])
def test_the_same_trace_short_and_long_agree(exception: BaseException, kind: str) -> None:
    short, long = deep_trace(exception, 5), deep_trace(exception)
    assert len(short) < WINDOW_CHARS < len(long)
    assert (
        toolerr.inspect_result(short, is_error=True).kind
        == toolerr.inspect_result(long, is_error=True).kind
        == kind
    )


def test_a_long_text_without_a_trace_keeps_its_first_window() -> None:
    """Only texts that hold a trace near their start are read at both ends: a long log
    whose last line names an error is read as before (its first window)."""
    text = "build started\n" + "compiling module\n" * 600 + "PermissionError: [Errno 13] Permission denied\n"
    assert toolerr.inspect_result(text, is_error=True).kind != "unrecoverable"
