"""Test support: the real Agents SDK Runner, driven by the SDK's own scripted model
(``agents.testing``).

No network: tracing is disabled for the whole session and the only model is
``ScriptedModel``, which returns planned function calls and records the input items of
every call it receives.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from agents import Agent, FunctionTool, Runner, function_tool, set_tracing_disabled
from agents.result import RunResultBase
from agents.testing import ScriptedModel, assistant_message, function_call

set_tracing_disabled(True)

MODES = ("run", "run_sync", "run_streamed")


def note(name: str, arguments: str, error: str, guidance: str) -> str:
    """The runtime note of DELIVERY.md section 4."""
    return (
        f"Note from the tool runtime: the last attempt called {name} with {arguments} "
        f"and it failed with: {error}\n\n{guidance}"
    )


def run_agent(mode: str, agent: Agent[Any], user_input: Any, **kwargs: Any) -> RunResultBase:
    """One run of the real Runner in the given mode."""
    if mode == "run":
        return asyncio.run(Runner.run(agent, user_input, **kwargs))
    if mode == "run_sync":
        # run_sync runs on the thread's default event loop and keeps it open; give it one
        # that is closed afterwards (an unclosed loop is a ResourceWarning, an error here).
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            return Runner.run_sync(agent, user_input, **kwargs)
        finally:
            asyncio.set_event_loop(None)
            loop.close()
    if mode == "run_streamed":

        async def streamed() -> RunResultBase:
            result = Runner.run_streamed(agent, user_input, **kwargs)
            async for _ in result.stream_events():
                pass
            return result

        return asyncio.run(streamed())
    raise ValueError(mode)


class Tools:
    """Real function tools whose bodies raise the planned real exceptions."""

    def __init__(self, errors: dict[str, BaseException | None] | None = None) -> None:
        self.errors = dict(errors or {})
        self.executed: list[tuple[str, dict[str, Any]]] = []

    def weather(self) -> FunctionTool:
        @function_tool
        def get_weather(city: str) -> str:
            """Current weather for a city."""
            self.executed.append(("get_weather", {"city": city}))
            error = self.errors.get(city)
            if error is not None:
                raise error
            return f"{city}: 18 C, cloudy"

        return get_weather


def scripted(*steps: Sequence[Any]) -> ScriptedModel:
    return ScriptedModel([list(step) for step in steps])


def call(name: str, arguments: Any, call_id: str) -> Any:
    return function_call(name, arguments, call_id=call_id)


def done(text: str = "done") -> Any:
    return assistant_message(text)


def inputs(model: ScriptedModel) -> list[list[dict[str, Any]]]:
    """The input items of every model call, as the model received them."""
    return [list(c.input) for c in model.calls]
