"""Semantic Kernel's auto function invocation: the function result
``An error occurred while invoking the function {plugin}-{function}: ...`` that
``Kernel._inner_auto_function_invoke_handler`` puts in the chat history when a kernel
function raises, captured from the history the loop sends a scripted chat completion
service (a ``ChatCompletionClientBase`` subclass, no network)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import _cases
from _cases import Case

FRAMEWORK = "semantic-kernel"
DIST = "semantic-kernel"
IMPORTS = ("semantic_kernel", "semantic_kernel.connectors.ai.chat_completion_client_base")


def collect() -> list[dict[str, Any]]:
    from semantic_kernel import Kernel
    from semantic_kernel.connectors.ai.chat_completion_client_base import ChatCompletionClientBase
    from semantic_kernel.connectors.ai.function_choice_behavior import FunctionChoiceBehavior
    from semantic_kernel.connectors.ai.prompt_execution_settings import PromptExecutionSettings
    from semantic_kernel.contents import (
        ChatHistory,
        ChatMessageContent,
        FunctionCallContent,
        FunctionResultContent,
    )
    from semantic_kernel.contents.utils.author_role import AuthorRole
    from semantic_kernel.functions import kernel_function

    logging.getLogger("semantic_kernel").setLevel(logging.CRITICAL)  # it logs the tool's traceback
    seen: list[str] = []

    class Scripted(ChatCompletionClientBase):
        SUPPORTS_FUNCTION_CALLING = True
        city: str = ""

        async def _inner_get_chat_message_contents(
            self, chat_history: ChatHistory, settings: PromptExecutionSettings
        ) -> list[ChatMessageContent]:
            results = [i for i in chat_history.messages[-1].items if isinstance(i, FunctionResultContent)]
            if results:
                seen.append(str(results[0].result))
                return [ChatMessageContent(role=AuthorRole.ASSISTANT, content="done")]
            call = FunctionCallContent(
                id="call_1", function_name=_cases.TOOL, plugin_name="weather", arguments={"city": self.city}
            )
            return [ChatMessageContent(role=AuthorRole.ASSISTANT, items=[call])]

    class Weather:
        @kernel_function(name=_cases.TOOL, description=_cases.TOOL_DOC)
        def get_weather(self, city: str) -> str:
            return _cases.raise_case(city)

    async def one(case: Case) -> str:
        seen.clear()
        kernel = Kernel()
        service = Scripted(ai_model_id="scripted", city=case.id)
        kernel.add_service(service)
        kernel.add_plugin(Weather(), plugin_name="weather")
        settings = PromptExecutionSettings(function_choice_behavior=FunctionChoiceBehavior.Auto())
        history = ChatHistory()
        history.add_user_message(f"Weather in {case.id}?")
        await service.get_chat_message_contents(history, settings, kernel=kernel)
        assert len(seen) == 1, seen
        return seen[0]

    return _cases.capture(FRAMEWORK, DIST, lambda case: asyncio.run(one(case)))


if __name__ == "__main__":
    _cases.main(FRAMEWORK, collect)
