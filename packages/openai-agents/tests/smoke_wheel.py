"""toolerr-openai-agents as installed from the wheels (run by ``nox -s wheels`` in a fresh
virtualenv): the real Runner with the SDK's scripted model, one failure delivered, a
success unchanged."""

import asyncio

from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call
from toolerr_openai_agents import ToolErrorRecovery

set_tracing_disabled(True)


@function_tool
def get_weather(city: str, unit: str = "celsius") -> str:
    """Current weather for a city."""
    if unit not in ("celsius", "fahrenheit"):
        raise ValueError(f"Invalid unit {unit!r}; expected one of: celsius, fahrenheit")
    return f"{city}: 18 {unit}, cloudy"


def run(detail: str | None = None, **args: str) -> str:
    model = ScriptedModel([[function_call("get_weather", args, call_id="c1")], [assistant_message("ok")]])
    agent = Agent(name="a", model=model, tools=[get_weather])
    asyncio.run(Runner.run(agent, "Weather?", run_config=ToolErrorRecovery(error_detail=detail).run_config()))
    return " ".join(str(item) for item in model.calls[-1].input)  # what the model saw last


failed = run(city="Paris", unit="kelvin")  # the SDK's default: the exception's text withheld
assert "Error: details withheld" in failed and "Note from the tool runtime" in failed, failed
assert "Invalid unit" not in failed, failed
failed = run("full", city="Paris", unit="kelvin")
assert "Invalid unit 'kelvin'" in failed and "Note from the tool runtime" in failed, failed
assert "An error occurred while running the tool" not in failed
success = run(city="Paris")
assert "Paris: 18 celsius, cloudy" in success and "Note from the tool runtime" not in success, success
print("toolerr-openai-agents smoke: ok")
