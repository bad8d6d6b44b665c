"""toolerr-pydantic-ai as installed from the wheels (run by ``nox -s wheels`` in a fresh
virtualenv): the real Agent loop on pydantic-ai's FunctionModel, one failure delivered, a
success unchanged."""

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from toolerr_pydantic_ai import ToolErrors


def run(city: str) -> list[list[ModelMessage]]:
    seen: list[list[ModelMessage]] = []

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        if len(seen) == 1:
            return ModelResponse(parts=[ToolCallPart("get_weather", {"city": city}, tool_call_id="c1")])
        return ModelResponse(parts=[TextPart("done")])

    agent = Agent(FunctionModel(answer), capabilities=[ToolErrors()])

    @agent.tool_plain
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        if not city:
            raise ValueError("city must not be empty")
        return f"{city}: 12 celsius"

    assert agent.run_sync("?").output == "done"
    return seen


failed = str(run("")[-1][-1])  # the request the model got after the failure
assert "ValueError: city must not be empty" in failed, failed
assert "Note from the tool runtime: the last attempt called get_weather" in failed, failed
ok = run("Paris")[-1]
assert "content='Paris: 12 celsius'" in str(ok[-1]) and "Note from the tool runtime" not in str(ok), ok
print("toolerr-pydantic-ai smoke: ok")
