"""toolerr-google-adk as installed from the wheels (run by ``nox -s wheels`` in a fresh
virtualenv): the real ADK Runner with a scripted BaseLlm, one failure delivered, a success
unchanged."""

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types
from toolerr_google_adk import ToolErrorPlugin

SEEN: list[str] = []  # every request's contents, as the model got them


class Scripted(BaseLlm):
    model: str = "scripted"
    city: str = ""

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        SEEN.append(str([c.model_dump(exclude_none=True) for c in llm_request.contents]))
        first = len(SEEN) % 2 == 1
        call = types.FunctionCall(name="get_weather", args={"city": self.city})
        part = types.Part(function_call=call) if first else types.Part(text="done")
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


def get_weather(city: str) -> dict[str, Any]:
    """Current weather for a city."""
    if not city:
        raise ValueError("city must not be empty")
    return {"city": city, "temperature_c": 12}


async def run(city: str) -> str:
    agent = LlmAgent(name="assistant", model=Scripted(city=city), tools=[get_weather])
    runner = InMemoryRunner(app=App(name="app", root_agent=agent, plugins=[ToolErrorPlugin()]))
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    message = types.Content(role="user", parts=[types.Part(text="?")])
    async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message):
        pass
    return SEEN[-1]


failed = asyncio.run(run(""))  # the second request: after the tool's failure
assert "ValueError: city must not be empty" in failed, failed
assert "Note from the tool runtime: the last attempt called get_weather" in failed, failed
ok = asyncio.run(run("Paris"))
assert "'temperature_c': 12" in ok and "Note from the tool runtime" not in ok, ok
print("toolerr-google-adk smoke: ok")
