"""Unusual shapes through the real Runner: content parts with media before the error
text, argument strings that are JSON but not an object, outputs of several MB."""

from __future__ import annotations

import asyncio
import json

import pytest
from agents import Agent, Runner, ToolOutputImage, ToolOutputText, function_tool
from oa_support import Tools, call, done, note, run_agent, scripted
from shared_support import FIXABLE, TRANSIENT, bytes_kept_after_runs
from toolerr_openai_agents import ToolErrorRecovery

PIXELS = "data:image/png;base64," + "iVBORw0KGgo" * 2000  # a screenshot (22 KB)
ERROR = "Error: ConnectError: [Errno 111] Connection refused"


@function_tool
def screenshot(url: str) -> list[ToolOutputImage | ToolOutputText]:
    """Open a page and return a screenshot with the status line."""
    return [ToolOutputImage(image_url=PIXELS), ToolOutputText(text=ERROR)]


def test_an_image_before_the_error_text_does_not_hide_the_failure(mode: str) -> None:
    """The first part is an image (a browser tool's screenshot), then the error: the
    failure is detected from its text, and the note restates the text, not the pixels."""
    model = scripted([call("screenshot", {"url": "https://example.com"}, "c1")], [done()])
    agent = Agent(name="browser", model=model, tools=[screenshot])

    result = run_agent(mode, agent, "Open the page.", run_config=ToolErrorRecovery().run_config())

    decision = model.calls[1].input
    assert decision[-1] == {
        "role": "user",
        "content": note("screenshot", 'url="https://example.com"', ERROR, TRANSIENT),
    }
    assert "Note from the tool runtime" not in json.dumps(result.to_input_list())


@pytest.mark.parametrize("raw", ['"Oslo"', "[1,2]"])
def test_arguments_that_are_json_but_not_an_object_are_shown_as_written(raw: str) -> None:
    """The SDK refuses them (not a JSON object); the note shows the call as the model wrote
    it, not a re-rendering that drops the quotes of a JSON string."""
    tools = Tools()
    model = scripted([call("get_weather", raw, "c1")], [done()])
    agent = Agent(name="weather", model=model, tools=[tools.weather()])

    run_agent("run", agent, "Weather?", run_config=ToolErrorRecovery().run_config())

    assert tools.executed == []
    text = model.calls[1].input[-1]["content"]
    assert text.startswith(f"Note from the tool runtime: the last attempt called get_weather with {raw} and ")
    assert text.endswith("\n\n" + FIXABLE)


def test_finished_runs_keep_no_tool_output_alive() -> None:
    """One recovery object serves many runs, each reading a file of 2 MB: once a run is
    over, its outputs are not kept (a long-lived server would otherwise hold thousands)."""
    recovery = ToolErrorRecovery()

    def one_run(n: int) -> None:
        @function_tool
        def read_file(path: str) -> str:
            """Read a file."""
            return f"{n:08d}" * 250_000

        model = scripted([call("read_file", {"path": f"/data/{n}.txt"}, "c1")], [done()])
        agent = Agent(name="files", model=model, tools=[read_file])
        asyncio.run(Runner.run(agent, "Read it.", run_config=recovery.run_config()))

    retained = bytes_kept_after_runs(one_run)
    assert retained < 2_000_000, f"{retained / 1e6:.1f} MB kept after 8 runs of 2 MB"
