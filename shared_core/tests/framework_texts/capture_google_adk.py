"""Google ADK's ReflectAndRetryToolPlugin: the function response its
``on_tool_error_callback`` gives the model instead of the tool's exception, captured from
an ``InMemoryRunner`` driven by a scripted ``BaseLlm`` (no network). The response is a
dict; ``text`` is that dict as JSON (``json.dumps``), the form a text-reading middleware
or a LiteLLM-backed model gets it in."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator
from typing import Any

import _cases
from _cases import Case

FRAMEWORK = "google-adk"
DIST = "google-adk"
IMPORTS = ("google.adk.runners", "google.adk.plugins.reflect_retry_tool_plugin")


def collect() -> list[dict[str, Any]]:
    from google.adk.agents import LlmAgent
    from google.adk.apps import App
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_request import LlmRequest
    from google.adk.models.llm_response import LlmResponse
    from google.adk.plugins.reflect_retry_tool_plugin import ReflectAndRetryToolPlugin
    from google.adk.runners import InMemoryRunner
    from google.genai import types

    seen: list[Any] = []

    class Scripted(BaseLlm):
        model: str = "scripted"
        city: str = ""

        async def generate_content_async(
            self, llm_request: LlmRequest, stream: bool = False
        ) -> AsyncGenerator[LlmResponse, None]:
            last = llm_request.contents[-1]
            responses = [p.function_response for p in last.parts or () if p.function_response]
            if responses:
                seen.append(responses[0].response)
                part = types.Part(text="done")
            else:
                part = types.Part(
                    function_call=types.FunctionCall(name=_cases.TOOL, args={"city": self.city})
                )
            yield LlmResponse(content=types.Content(role="model", parts=[part]))

    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return _cases.raise_case(city)

    async def one(case: Case) -> str:
        seen.clear()
        agent = LlmAgent(name="assistant", model=Scripted(city=case.id), tools=[get_weather])
        app = App(name="app", root_agent=agent, plugins=[ReflectAndRetryToolPlugin(max_retries=3)])
        runner = InMemoryRunner(app=app)
        session = await runner.session_service.create_session(app_name="app", user_id="u")
        message = types.Content(role="user", parts=[types.Part(text=f"Weather in {case.id}?")])
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message):
            pass
        assert len(seen) == 1, seen
        return json.dumps(seen[0], ensure_ascii=False)

    return _cases.capture(FRAMEWORK, DIST, lambda case: asyncio.run(one(case)))


if __name__ == "__main__":
    _cases.main(FRAMEWORK, collect)
