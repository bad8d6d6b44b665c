"""Hidden retries (``auto_retry``) on the real Runner: the SDK's invoker re-run with the
same context and input where toolerr's failure hook classified a failure that may be
re-run; the model sees the last attempt only, the record counts the hidden retries, and
the runs that share a tool or the adapter keep their own policy and counts."""

from __future__ import annotations

import asyncio
import copy
import threading
from collections.abc import Callable
from typing import Any

import pytest
import toolerr._kit_retry as kit_retry
from adapter_contract import http_error
from agents import Agent, FunctionTool, Runner, function_tool
from agents.run_config import ToolErrorFormatterArgs
from agents.testing import ScriptedModel
from oa_support import call, done, inputs, run_agent, scripted
from pydantic import BaseModel
from toolerr import DetectionRecord
from toolerr_openai_agents import ToolErrorRecovery
from toolerr_openai_agents._recovery import Rerun

OK = "Paris: 18 C, cloudy"
UNAVAILABLE = "HTTPError: HTTP Error 503: Service Unavailable"


@pytest.fixture(autouse=True)
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The waits before hidden retries, recorded instead of slept."""
    waits: list[float] = []

    async def asleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(kit_retry, "_asleep", asleep)
    return waits


class Flaky:
    """A real function tool that fails with a 503 the given number of times per city (then
    answers), counting its executions."""

    def __init__(self, failures: dict[str, int], **options: Any) -> None:
        self.failures = dict(failures)
        self.executed: list[str] = []
        self.lock = threading.Lock()

        @function_tool(**options)
        def get_weather(city: str) -> str:
            """Current weather for a city."""
            with self.lock:
                self.executed.append(city)
                left = self.failures.get(city, 0)
                self.failures[city] = left - 1
            if left > 0:
                raise http_error(503, "Service Unavailable")
            return f"{city}: 18 C, cloudy"

        self.tool: FunctionTool = get_weather


def _outputs(items: list[dict[str, Any]]) -> list[Any]:
    return [item["output"] for item in items if item.get("type") == "function_call_output"]


def test_hidden_retries_in_every_mode(mode: str, waits: list[float]) -> None:
    flaky = Flaky({"Paris": 2})
    model = scripted([call("get_weather", {"city": "Paris"}, "c1")], [done()])
    records: list[DetectionRecord] = []
    recovery = ToolErrorRecovery(auto_retry=2, on_record=records.append)
    agent = Agent(name="weather", model=model, tools=[flaky.tool])

    result = run_agent(mode, agent, "Weather?", run_config=recovery.run_config())

    assert flaky.executed == ["Paris"] * 3
    assert _outputs(inputs(model)[1]) == [OK]
    assert _outputs(result.to_input_list()) == [OK]
    assert records == [] and len(waits) == 2
    assert isinstance(flaky.tool.on_invoke_tool, Rerun)


def test_without_auto_retry_the_tools_invoker_is_left_as_it_is() -> None:
    flaky = Flaky({"Paris": 1})
    invoker = flaky.tool.on_invoke_tool
    model = scripted([call("get_weather", {"city": "Paris"}, "c1")], [done()])
    agent = Agent(name="weather", model=model, tools=[flaky.tool])

    run_agent("run", agent, "Weather?", run_config=ToolErrorRecovery(loop_action="block").run_config())

    assert flaky.tool.on_invoke_tool is invoker
    assert flaky.executed == ["Paris"]
    assert _outputs(inputs(model)[1]) == [UNAVAILABLE]


def test_the_last_failure_counts_the_hidden_retries_in_the_ledger() -> None:
    """Three 503s, auto_retry=2, retry_budget=2: the model sees the third failure, which
    the ledger counts as the third attempt, past the budget (unrecoverable)."""
    flaky = Flaky({"Paris": 3})
    model = scripted([call("get_weather", {"city": "Paris"}, "c1")], [done()])
    records: list[DetectionRecord] = []
    recovery = ToolErrorRecovery(auto_retry=2, retry_budget=2, on_record=records.append)
    agent = Agent(name="weather", model=model, tools=[flaky.tool])

    run_agent("run", agent, "Weather?", run_config=recovery.run_config())

    assert flaky.executed == ["Paris"] * 3
    assert _outputs(inputs(model)[1]) == [UNAVAILABLE]
    [record] = records
    assert (record.kind, record.hidden_retries) == ("unrecoverable", 2)


def test_a_tool_with_toolerrs_own_failure_function_is_retried() -> None:
    recovery = ToolErrorRecovery(auto_retry=1)
    flaky = Flaky({"Paris": 1}, failure_error_function=recovery.failure_error_function)
    model = scripted([call("get_weather", {"city": "Paris"}, "c1")], [done()])
    agent = Agent(name="weather", model=model, tools=[flaky.tool])

    run_agent("run", agent, "Weather?", run_config=recovery.run_config())

    assert flaky.executed == ["Paris"] * 2
    assert _outputs(inputs(model)[1]) == [OK]


def test_a_tool_with_a_failure_function_of_its_own_runs_once() -> None:
    """A failure toolerr did not classify (the tool's own failure function wrote the
    result) is the user's: it is not re-run."""
    flaky = Flaky({"Paris": 1}, failure_error_function=lambda ctx, error: "their text")
    model = scripted([call("get_weather", {"city": "Paris"}, "c1")], [done()])
    agent = Agent(name="weather", model=model, tools=[flaky.tool])

    run_agent("run", agent, "Weather?", run_config=ToolErrorRecovery(auto_retry=2).run_config())

    assert flaky.executed == ["Paris"]
    assert _outputs(inputs(model)[1]) == ["their text"]


def test_a_users_formatter_keeps_its_words_and_the_record_its_hidden_retries() -> None:
    flaky = Flaky({"Paris": 3})
    model = scripted([call("get_weather", {"city": "Paris"}, "c1")], [done()])
    records: list[DetectionRecord] = []
    recovery = ToolErrorRecovery(auto_retry=2, on_record=records.append)
    agent = Agent(name="weather", model=model, tools=[flaky.tool])

    def theirs(args: ToolErrorFormatterArgs[Any]) -> str:
        return "The weather service is down (503)."

    run_agent("run", agent, "Weather?", run_config=recovery.run_config(tool_error_formatter=theirs))

    assert flaky.executed == ["Paris"] * 3
    assert _outputs(inputs(model)[1]) == ["The weather service is down (503)."]
    [record] = records
    assert (record.kind, record.hidden_retries) == ("transient", 2)


def test_one_tool_serves_runs_with_other_policies() -> None:
    """The same FunctionTool object, once wrapped: a run's own config decides, so a run
    with auto_retry=0, and one without toolerr, run the call once."""
    flaky = Flaky({"Paris": 10})

    def one_run(run_config: Any) -> list[Any]:
        model = scripted([call("get_weather", {"city": "Paris"}, "c1")], [done()])
        agent = Agent(name="weather", model=model, tools=[flaky.tool])
        run_agent("run", agent, "Weather?", run_config=run_config)
        return _outputs(inputs(model)[1])

    assert one_run(ToolErrorRecovery(auto_retry=2).run_config()) == [UNAVAILABLE]
    assert len(flaky.executed) == 3
    assert one_run(ToolErrorRecovery(auto_retry=0).run_config()) == [UNAVAILABLE]
    assert len(flaky.executed) == 4
    [output] = one_run(None)
    assert output.startswith("An error occurred while running the tool")
    assert len(flaky.executed) == 5
    assert isinstance(flaky.tool.on_invoke_tool, Rerun)


@pytest.mark.parametrize("how", ["tasks", "threads"])
def test_concurrent_runs_with_colliding_call_ids_keep_their_own_retries(how: str) -> None:
    """One adapter, one tool object, runs at once whose calls are all ``c1``: Oslo fails
    three times (its record counts two hidden retries), Paris once (the model sees the
    success), Rome never."""
    flaky = Flaky({"Oslo": 3, "Paris": 1})
    records: list[DetectionRecord] = []
    recovery = ToolErrorRecovery(auto_retry=2, on_record=records.append)
    cities = ["Oslo", "Paris", "Rome"]
    seen: dict[str, list[Any]] = {}

    async def one(city: str) -> None:
        model = scripted([call("get_weather", {"city": city}, "c1")], [done()])
        agent = Agent(name="weather", model=model, tools=[flaky.tool])
        await Runner.run(agent, "Weather?", run_config=recovery.run_config())
        seen[city] = _outputs(inputs(model)[1])

    if how == "tasks":

        async def together() -> None:
            await asyncio.gather(*(one(city) for city in cities))

        asyncio.run(together())
    else:
        barrier = threading.Barrier(len(cities))

        def go(city: str) -> None:
            barrier.wait()
            asyncio.run(one(city))

        threads = [threading.Thread(target=go, args=(city,)) for city in cities]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)

    assert seen == {"Oslo": [UNAVAILABLE], "Paris": [OK], "Rome": ["Rome: 18 C, cloudy"]}
    assert sorted(flaky.executed) == ["Oslo"] * 3 + ["Paris"] * 2 + ["Rome"]
    assert [(r.kind, r.hidden_retries) for r in records] == [("transient", 2)]


def test_wrap_installs_once_and_a_copy_of_the_tool_is_retried_too() -> None:
    recovery = ToolErrorRecovery(auto_retry=1)
    flaky = Flaky({"Paris": 1, "Oslo": 1})
    recovery.wrap(flaky.tool)
    rerun = flaky.tool.on_invoke_tool
    recovery.wrap(flaky.tool)
    assert isinstance(rerun, Rerun) and flaky.tool.on_invoke_tool is rerun
    assert not isinstance(rerun.__wrapped__, Rerun)

    copied = copy.copy(flaky.tool)
    assert isinstance(copied.on_invoke_tool, Rerun) and copied.on_invoke_tool is not rerun
    for tool, city in ((flaky.tool, "Paris"), (copied, "Oslo")):
        model = scripted([call("get_weather", {"city": city}, "c1")], [done()])
        agent = Agent(name="weather", model=model, tools=[tool])
        run_agent("run", agent, "Weather?", run_config=recovery.run_config())
        assert _outputs(inputs(model)[1]) == [f"{city}: 18 C, cloudy"]
    assert flaky.executed == ["Paris", "Paris", "Oslo", "Oslo"]


def test_a_failing_policy_lookup_runs_the_call_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Fail open: toolerr's own error while deciding the hidden retries is logged and the
    call runs once, as without them."""

    def broken(context: Any) -> Callable[..., Any]:
        raise RuntimeError("the policy lookup is broken")

    recovery = ToolErrorRecovery(auto_retry=2)
    monkeypatch.setattr(ToolErrorRecovery, "_retry_layer", staticmethod(broken))
    flaky = Flaky({"Paris": 1})
    model = scripted([call("get_weather", {"city": "Paris"}, "c1")], [done()])
    agent = Agent(name="weather", model=model, tools=[flaky.tool])
    caplog.set_level("WARNING", logger="toolerr")

    run_agent("run", agent, "Weather?", run_config=recovery.run_config())

    assert flaky.executed == ["Paris"]
    assert _outputs(inputs(model)[1]) == [UNAVAILABLE]
    assert any(r.name == "toolerr" and r.levelname == "WARNING" for r in caplog.records)


class Weather(BaseModel):
    city: str
    celsius: int


def test_a_retry_that_succeeds_is_shown_as_the_tools_own_output() -> None:
    """A tool with an output type, whose first attempt failed: the output of the retry is
    serialised as the tool's output (the SDK's flag that its failure handler wrote the
    result, set by the failed attempt, is cleared before the retry)."""

    def seen(failures: int, run_config: Any) -> list[Any]:
        left = [failures]

        @function_tool(output_type=Weather)
        def get_weather(city: str) -> Weather:
            """Current weather for a city."""
            left[0] -= 1
            if left[0] >= 0:
                raise http_error(503, "Service Unavailable")
            return Weather(city=city, celsius=18)

        model = scripted([call("get_weather", {"city": "Paris"}, "c1")], [done()])
        agent = Agent(name="weather", model=model, tools=[get_weather])
        run_agent("run", agent, "Weather?", run_config=run_config)
        return _outputs(inputs(model)[1])

    alone = seen(0, None)
    assert seen(1, ToolErrorRecovery(auto_retry=1).run_config()) == alone


def test_an_agent_run_as_a_tool_is_never_rerun() -> None:
    """The inner agent deletes a file, then its model fails with a 503: the outer agent's
    tool (the inner run) failed with a turned-away request, but the run had an effect
    before it; it is not re-run hidden (the file is deleted once)."""
    deleted: list[str] = []

    @function_tool
    def delete_file(path: str) -> str:
        """Delete a file."""
        deleted.append(path)
        return "deleted"

    inner = Agent(
        name="cleaner",
        model=ScriptedModel(
            [[call("delete_file", {"path": "/tmp/x"}, "i1")], http_error(503, "Service Unavailable")] * 2
        ),
        tools=[delete_file],
    )
    recovery = ToolErrorRecovery(auto_retry=1)
    cleaner = inner.as_tool(
        tool_name="clean",
        tool_description="Clean up.",
        failure_error_function=recovery.failure_error_function,
    )
    model = scripted([call("clean", {"input": "clean /tmp"}, "c1")], [done()])
    agent = Agent(name="outer", model=model, tools=[cleaner])

    run_agent("run", agent, "Clean up", run_config=recovery.run_config())

    assert deleted == ["/tmp/x"]
    assert not isinstance(cleaner.on_invoke_tool, Rerun)
    [output] = _outputs(inputs(model)[1])
    assert "503" in output
