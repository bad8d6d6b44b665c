"""toolerr-langchain as installed from the wheels (run by ``nox -s wheels`` in a fresh
virtualenv): the real create_agent loop, one failure delivered, a success unchanged."""

from langchain.agents import create_agent
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from toolerr_langchain import ToolErrorMiddleware
from toolerr_langchain.testing import ScriptedChatModel, tool_call


@tool
def get_weather(city: str, unit: str = "celsius") -> str:
    """Current weather for a city."""
    if unit not in ("celsius", "fahrenheit"):
        raise ValueError(f"Invalid unit {unit!r}; expected one of: celsius, fahrenheit")
    return f"{city}: 12 {unit}"


def run(**args: str) -> ScriptedChatModel:
    model = ScriptedChatModel(script=[AIMessage("", tool_calls=[tool_call("get_weather", **args)]), "done"])
    create_agent(model, [get_weather], middleware=[ToolErrorMiddleware()]).invoke(
        {"messages": [("user", "?")]}
    )
    return model


seen = run(city="Paris", unit="kelvin").calls[-1]  # what the model saw after the failure
assert "Note from the tool runtime: the last attempt called get_weather" in str(seen[-1].content), seen
assert "call the tool again with the corrected value" in str(seen[-1].content)
ok = run(city="Paris").calls[-1]
assert ok[-1].content == "Paris: 12 celsius" and "Note from the tool runtime" not in str(
    [m.content for m in ok]
)
print("toolerr-langchain smoke: ok")
