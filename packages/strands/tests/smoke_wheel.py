"""toolerr-strands as installed from the wheels (run by ``nox -s wheels`` in a fresh
virtualenv): strands' real Agent loop with a scripted Model, one failure delivered, a
success unchanged."""

import json
from collections.abc import AsyncGenerator
from typing import Any

from strands import Agent, tool
from strands.models.model import Model
from toolerr_strands import ToolErrorPlugin

SEEN: list[str] = []  # every model call's messages, as the model got them


class Scripted(Model):
    def __init__(self, city: str) -> None:
        self.city = city
        self.calls = 0

    def update_config(self, **model_config: Any) -> None:
        pass

    def get_config(self) -> dict[str, Any]:
        return {}

    async def structured_output(self, *args: Any, **kwargs: Any) -> AsyncGenerator[dict[str, Any], None]:
        raise NotImplementedError
        yield {}

    async def stream(self, messages: Any, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
        SEEN.append(json.dumps(messages))
        self.calls += 1
        yield {"messageStart": {"role": "assistant"}}
        if self.calls == 1:
            use = {"toolUseId": "call_0", "name": "get_weather"}
            yield {"contentBlockStart": {"start": {"toolUse": use}}}
            yield {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps({"city": self.city})}}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "tool_use"}}
        else:
            yield {"contentBlockDelta": {"delta": {"text": "done"}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "end_turn"}}


@tool
def get_weather(city: str) -> str:
    """Current weather for a city.

    Args:
        city: The city.
    """
    if not city:
        raise ValueError("city must not be empty")
    return f"{city}: 12 C"


def run(city: str) -> str:
    agent = Agent(
        model=Scripted(city), tools=[get_weather], plugins=[ToolErrorPlugin()], callback_handler=None
    )
    agent("?")
    assert "Note from the tool runtime" not in json.dumps(agent.messages)
    return SEEN[-1]


failed = run("")  # the second model call: after the tool's failure
assert "ValueError: city must not be empty" in failed, failed
assert "Note from the tool runtime: the last attempt called get_weather" in failed, failed
ok = run("Paris")
assert "Paris: 12 C" in ok and "Note from the tool runtime" not in ok, ok
print("toolerr-strands smoke: ok")
