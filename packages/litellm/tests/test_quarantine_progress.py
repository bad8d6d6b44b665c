"""Issue 26 at the gateway: the LiteLLM SDK with ``ToolErrorCallback`` against the local
upstream. A long failed tool result reaches the model as its excerpt (the caller's
conversation keeps it whole, the saved file holds it), a short one whole; three identical
successful results get the same-result note, three different ones none; a progress probe
unchanged over three steps with a failure stops the request."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path
from typing import Any

import litellm
import pytest
import toolerr
from conftest import Upstream
from toolerr._progress import SAME_RESULT_NOTE
from toolerr_litellm import ToolErrorCallback

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests" / "_shared"))
from adapter_contract import long_test_output  # the shared helpers' folder

SAVED = re.compile(r" is saved at (.+?)\]$", re.MULTILINE)


def _call(number: int, name: str, arguments: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "tool_calls": [
            {"id": f"c{number}", "type": "function", "function": {"name": name, "arguments": arguments}}
        ],
    }


def _send(upstream: Upstream, callback: ToolErrorCallback, conversation: list[dict[str, Any]]) -> Any:
    saved = list(litellm.callbacks)
    litellm.callbacks = [callback]
    upstream.clear()
    try:
        return asyncio.run(
            litellm.acompletion(
                model="openai/gpt-test",
                messages=conversation,
                api_base=f"{upstream.url}/v1",
                api_key="sk-up",
                num_retries=0,
            )
        )
    finally:
        litellm.callbacks = saved


def test_a_long_failure_reaches_the_model_as_its_excerpt(upstream: Upstream, tmp_path: Path) -> None:
    """The real output of a failing pytest run (~2,700 lines), marked failed in its text (a
    chat tool message has no error flag): at that request and at the next one, after a
    step without failure, the model sees at most 8,000 characters with the error's name,
    the last lines and the saved file, which holds the whole result."""
    output = f"Error: {long_test_output()}"
    callback = ToolErrorCallback(result_store=str(tmp_path))
    conversation = [
        {"role": "user", "content": "Make the tests pass."},
        _call(1, "run_tests", "{}"),
        {"role": "tool", "tool_call_id": "c1", "content": output},
    ]
    _send(upstream, callback, conversation)
    first = upstream.last().json["messages"][2]["content"]
    conversation += [
        _call(2, "read_file", '{"path": "calc.py"}'),
        {"role": "tool", "tool_call_id": "c2", "content": "x = 1\n"},
    ]
    _send(upstream, callback, conversation)
    sent = upstream.last().json["messages"]
    shown = sent[2]["content"]
    assert shown == first
    assert len(shown) <= toolerr.Policy().quarantine_chars < len(output)  # type: ignore[operator]
    assert shown.splitlines()[0].startswith("AssertionError: value 0 does not match")
    assert shown.splitlines()[-10:] == output.splitlines()[-10:]
    [saved] = tmp_path.iterdir()
    match = SAVED.search(shown)
    assert match is not None and match.group(1) == str(saved)
    assert saved.read_bytes() == output.encode()
    assert sent[4]["content"] == "x = 1\n"
    assert conversation[2]["content"] == output  # the caller's conversation keeps it whole


def test_a_short_failure_is_not_cut(upstream: Upstream, tmp_path: Path) -> None:
    short = "Error: " + "x" * 1000
    conversation = [{"role": "user", "content": "go"}, _call(1, "run", "{}")]
    conversation.append({"role": "tool", "tool_call_id": "c1", "content": short})
    _send(upstream, ToolErrorCallback(result_store=str(tmp_path)), conversation)
    assert upstream.last().json["messages"][2]["content"] == short
    assert list(tmp_path.iterdir()) == []


def _searches(results: list[str]) -> list[dict[str, Any]]:
    conversation: list[dict[str, Any]] = [{"role": "user", "content": "Find the page."}]
    for number, text in enumerate(results):
        conversation += [
            _call(number, "search", '{"q": "toolerr"}'),
            {"role": "tool", "tool_call_id": f"c{number}", "content": text},
        ]
    return conversation


def _search_run(upstream: Upstream, results: list[str]) -> list[Any]:
    """A run through one gateway callback: a request after each search; what the model saw."""
    callback = ToolErrorCallback()
    seen = []
    for count in range(1, len(results) + 1):
        _send(upstream, callback, _searches(results[:count]))
        seen.append(upstream.last().json["messages"])
    return seen


def test_three_identical_successful_results_get_a_note(upstream: Upstream) -> None:
    seen = _search_run(upstream, ["No results."] * 3)
    note = "Note from the tool runtime: " + SAME_RESULT_NOTE.format(name="search", count=3)
    assert seen[:2] == [_searches(["No results."]), _searches(["No results."] * 2)]
    assert seen[2] == [*_searches(["No results."] * 3), {"role": "user", "content": note}]


def test_three_different_successful_results_get_no_note(upstream: Upstream) -> None:
    results = ["No results.", "1 result: a", "2 results: a, b"]
    seen = _search_run(upstream, results)
    assert seen == [_searches(results[:count]) for count in (1, 2, 3)]


def test_an_unchanged_environment_over_three_steps_stops_the_request(upstream: Upstream) -> None:
    """``progress`` probed at each request (the model-call path), loop action ``stop``:
    the request after the third unchanged step with a failure is refused; ``on_loop``
    got the error with its calls and fingerprints."""
    stops: list[toolerr.ToolLoopError] = []
    callback = ToolErrorCallback(progress=lambda: "same", loop_action="stop", on_loop=stops.append)
    conversation: list[dict[str, Any]] = [{"role": "user", "content": "Fix it."}]
    for number, (arguments, text) in enumerate(
        [('{"p": 1}', "Error: HTTP 404 Not Found"), ('{"p": 2}', "ok 2"), ('{"p": 3}', "ok 3")]
    ):
        conversation += [
            _call(number, "fetch", arguments),
            {"role": "tool", "tool_call_id": f"c{number}", "content": text},
        ]
        if number < 2:
            _send(upstream, callback, conversation)
            assert upstream.posts()
    with pytest.raises(Exception, match="toolerr stopped the run: The environment has not changed"):
        _send(upstream, callback, conversation)
    assert upstream.posts() == []
    [stop] = stops
    assert [call.name for call in stop.calls] == ["fetch"] * 3
    assert len(stop.fingerprints) == 3 and len(set(stop.fingerprints)) == 1
