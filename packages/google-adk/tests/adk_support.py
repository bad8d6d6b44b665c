"""A scripted ADK model and helpers to drive the real Runner (no network)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Sequence
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.runners import InMemoryRunner
from google.genai import types
from pydantic import PrivateAttr

Step = Sequence[tuple[str, dict[str, Any]]] | Sequence[types.Part] | str
"""One planned model turn: function calls ``(name, args)``, the parts as a model sends
them (a Gemini turn with its thought signatures), or a final text."""


class ScriptedLlm(BaseLlm):
    """Returns the planned turns in order; records a deep copy of every request's contents
    (what the model was sent, frozen at call time)."""

    model: str = "scripted"
    _script: list[Step] = PrivateAttr(default_factory=list)
    _ids: bool = PrivateAttr(default=False)
    _requests: list[list[types.Content]] = PrivateAttr(default_factory=list)

    def __init__(self, script: Sequence[Step], *, ids: bool = False, **data: Any) -> None:
        super().__init__(**data)
        self._script = list(script)
        self._ids = ids

    @property
    def requests(self) -> list[list[types.Content]]:
        return self._requests

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self._requests.append([c.model_copy(deep=True) for c in llm_request.contents])
        await asyncio.sleep(0)
        index = len(self.requests) - 1
        step: Step = self._script[index] if index < len(self._script) else "done"
        if isinstance(step, str):
            parts = [types.Part(text=step)]
        elif step and all(isinstance(p, types.Part) for p in step):
            parts = [p.model_copy(deep=True) for p in step if isinstance(p, types.Part)]
        else:
            parts = [
                types.Part(
                    function_call=types.FunctionCall(
                        name=name, args=args, id=f"call_{i}" if self._ids else None
                    )
                )
                for i, (name, args) in enumerate(step)
            ]
        content = types.Content(role="model", parts=parts)
        if stream and isinstance(step, str):
            yield LlmResponse(content=content, partial=True)
        yield LlmResponse(content=content)


def make_runner(
    script: Sequence[Step],
    tools: Sequence[Any],
    plugins: Sequence[BasePlugin],
    *,
    ids: bool = False,
    sub_agents: Sequence[LlmAgent] = (),
) -> tuple[InMemoryRunner, ScriptedLlm]:
    model = ScriptedLlm(script, ids=ids)
    agent = LlmAgent(name="assistant", model=model, tools=list(tools), sub_agents=list(sub_agents))
    app = App(name="app", root_agent=agent, plugins=list(plugins))
    return InMemoryRunner(app=app), model


async def run(
    runner: InMemoryRunner,
    text: str = "What is the weather in Paris?",
    *,
    user: str = "u",
    session_id: str | None = None,
    streaming: bool = False,
) -> tuple[list[Any], Any]:
    """One invocation; returns its events and the session afterwards."""
    from google.adk.agents.run_config import RunConfig, StreamingMode

    service = runner.session_service
    if (
        session_id is None
        or await service.get_session(app_name=runner.app_name, user_id=user, session_id=session_id) is None
    ):
        session = await service.create_session(app_name=runner.app_name, user_id=user, session_id=session_id)
        session_id = session.id
    config = RunConfig(streaming_mode=StreamingMode.SSE if streaming else StreamingMode.NONE)
    events = [
        event
        async for event in runner.run_async(
            user_id=user,
            session_id=session_id,
            new_message=types.Content(role="user", parts=[types.Part(text=text)]),
            run_config=config,
        )
    ]
    session = await service.get_session(app_name=runner.app_name, user_id=user, session_id=session_id)
    return events, session


def dump(contents: Sequence[types.Content]) -> list[dict[str, Any]]:
    """Contents as plain JSON-able dicts (what the tests compare byte for byte)."""
    return [c.model_dump(mode="json", exclude_none=True) for c in contents]


def texts(contents: Sequence[types.Content]) -> str:
    return json.dumps(dump(contents), ensure_ascii=False)
