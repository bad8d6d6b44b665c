"""The adapter contract (tests/_shared/adapter_contract.py) on the real pydantic-ai Agent
loop with a scripted FunctionModel: the ToolErrors capability serving the runs."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from adapter_contract import ASK, TOOL, AdapterContract, Entry, Step, Transcript, call_ids
from pa_support import Script
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from toolerr import DetectionRecord
from toolerr_pydantic_ai import ToolErrors


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(item if isinstance(item, str) else str(item) for item in content)


def entries(messages: Sequence[ModelMessage]) -> list[Entry]:
    out: list[Entry] = []
    for message in messages:
        for part in message.parts:
            if isinstance(part, SystemPromptPart):
                continue
            if isinstance(part, UserPromptPart):
                out.append(("user", _text(part.content)))
            elif isinstance(part, TextPart):
                out.append(("assistant", part.content))
            elif isinstance(part, ToolCallPart):
                out.append(("call", part.tool_name, part.args_as_dict()))
            elif isinstance(part, ToolReturnPart):
                # the text itself (a provider's request wraps a failed one as {"error": text})
                content = part.content
                out.append(("tool", content if isinstance(content, str) else part.model_response_str()))
            elif isinstance(part, RetryPromptPart):
                out.append(("tool", part.model_response()))
            else:
                out.append((type(part).__name__,))
    return out


_VOLATILE = frozenset({"timestamp", "run_id", "conversation_id"})


def _stable(value: Any) -> Any:
    """Plain data without what differs from run to run (timestamps, run and conversation ids)."""
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in _VOLATILE}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def prior_messages(prior: Sequence[Entry]) -> list[ModelMessage]:
    messages: list[ModelMessage] = []
    ids: list[str] = []
    for n, entry in enumerate(prior):
        if entry[0] == "call":
            ids.append(f"prior_{n}")
            messages.append(ModelResponse(parts=[ToolCallPart(entry[1], entry[2], tool_call_id=ids[-1])]))
        elif entry[0] == "tool":
            part = ToolReturnPart(TOOL, entry[1], tool_call_id=ids.pop(0), outcome="failed")
            messages.append(ModelRequest(parts=[part]))
        elif entry[0] == "assistant":
            messages.append(ModelResponse(parts=[TextPart(entry[1])]))
        else:
            messages.append(ModelRequest(parts=[UserPromptPart(entry[1])]))
    return messages


class TestContract(AdapterContract):
    # the capability writes the failed tool result from the exception the tool raised
    writes_failed_results = True

    def make_adapter(self, on_record: Callable[[DetectionRecord], None], **policy: Any) -> Any:
        return ToolErrors(on_record=on_record, **policy)

    async def run(
        self,
        transcript: Transcript,
        adapter: Any,
        script: Sequence[Step],
        *,
        prior: Sequence[Entry] = (),
        ask: str = ASK,
    ) -> None:
        model = Script(
            *[
                step
                if isinstance(step, str)
                else [(TOOL, {"city": c}, i) for c, i in zip(step, ids, strict=True)]
                for step, ids in zip(script, call_ids(script), strict=True)
            ]
        )
        agent = Agent(model.model, capabilities=[adapter] if adapter is not None else [])

        @agent.tool_plain
        def get_weather(city: str) -> str:
            """The weather in a city."""
            return transcript.execute(city)

        try:
            result = await agent.run(ask, message_history=prior_messages(prior) or None)
        finally:
            transcript.seen = [entries(request) for request in model.requests]
            transcript.raw = [
                _stable(ModelMessagesTypeAdapter.dump_python(r, mode="json")) for r in model.requests
            ]
        transcript.history = entries(result.all_messages())

    known_failures: ClassVar[Mapping[str, str]] = {
        "test_a_conversation_that_holds_the_note_is_not_noted_twice": (
            "the capability reads toolerr's note only in user parts it made itself (NoteParts, "
            "against a text that imitates a note): a history that already holds the exact "
            "note of the failure gets it a second time"
        ),
    }
