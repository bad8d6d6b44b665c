"""The adapter contract (tests/_shared/adapter_contract.py) on strands' real Agent loop with
a scripted ``Model``: ToolErrorPlugin serving the runs."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from adapter_contract import ASK, TOOL, AdapterContract, Entry, Step, Transcript, call_ids
from strands import Agent, tool
from strands_support import ScriptedModel, entries
from toolerr import DetectionRecord
from toolerr_strands import ToolErrorPlugin


def prior_messages(prior: Sequence[Entry]) -> list[dict[str, Any]]:
    """Strands messages of a conversation the run starts from (a tool result is an error
    result, as strands keeps a tool's failure)."""
    messages: list[dict[str, Any]] = []
    ids: list[str] = []
    for n, entry in enumerate(prior):
        if entry[0] == "call":
            ids.append(f"prior_{n}")
            use = {"toolUseId": ids[-1], "name": entry[1], "input": entry[2]}
            messages.append({"role": "assistant", "content": [{"toolUse": use}]})
        elif entry[0] == "tool":
            result = {"toolUseId": ids.pop(0), "status": "error", "content": [{"text": entry[1]}]}
            messages.append({"role": "user", "content": [{"toolResult": result}]})
        else:
            messages.append({"role": entry[0], "content": [{"text": entry[1]}]})
    return messages


def turns(script: Sequence[Step]) -> list[Any]:
    return [
        step if isinstance(step, str) else [(i, TOOL, {"city": c}) for c, i in zip(step, ids, strict=True)]
        for step, ids in zip(script, call_ids(script), strict=True)
    ]


class TestContract(AdapterContract):
    # the plugin writes the error tool result from the exception the tool raised
    writes_failed_results = True

    def make_adapter(self, on_record: Callable[[DetectionRecord], None], **policy: Any) -> Any:
        return ToolErrorPlugin(on_record=on_record, **policy)

    async def run(
        self,
        transcript: Transcript,
        adapter: Any,
        script: Sequence[Step],
        *,
        prior: Sequence[Entry] = (),
        ask: str = ASK,
    ) -> None:
        @tool
        def get_weather(city: str) -> str:
            """The weather in a city.

            Args:
                city: The city.
            """
            return transcript.execute(city)

        model = ScriptedModel(turns(script))
        agent = Agent(
            model=model,
            tools=[get_weather],
            plugins=[adapter] if adapter is not None else [],
            messages=prior_messages(prior),
            callback_handler=None,
        )
        try:
            await agent.invoke_async(ask)
        finally:
            transcript.seen = [entries(sent) for sent in model.sent]
            transcript.raw = model.requests
        transcript.history = entries(agent.messages)

    known_failures: ClassVar[Mapping[str, str]] = {
        "test_a_conversation_that_holds_the_note_is_not_noted_twice": (
            "the plugin reads toolerr's note only in text blocks it made itself (NoteParts, "
            "against a loaded document that imitates a note), and strands hands middleware a "
            "deep copy of the history at each model call: a conversation that already holds "
            "the exact note of the failure gets it a second time, in the same user message"
        ),
    }
