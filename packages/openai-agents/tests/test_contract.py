"""The adapter contract (tests/_shared/adapter_contract.py) on the real Agents SDK Runner
with the SDK's scripted model: ToolErrorRecovery's run config serving the runs."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from adapter_contract import ASK, TOOL, AdapterContract, Entry, Step, Transcript, call_ids
from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call
from toolerr import DetectionRecord
from toolerr_openai_agents import ToolErrorRecovery

set_tracing_disabled(True)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(str(part.get("text", "")) for part in content)


def entries(items: Sequence[Mapping[str, Any]]) -> list[Entry]:
    out: list[Entry] = []
    for item in items:
        kind = item.get("type")
        if kind == "function_call":
            out.append(("call", item["name"], json.loads(item["arguments"])))
        elif kind == "function_call_output":
            out.append(("tool", _text(item["output"])))
        elif item.get("role") == "assistant":
            out.append(("assistant", _text(item["content"])))
        elif item.get("role") in ("user", "developer", "system"):
            out.append((item["role"], _text(item["content"])))
        else:
            out.append((str(kind),))
    return out


def prior_items(prior: Sequence[Entry]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    ids: list[str] = []
    for n, entry in enumerate(prior):
        if entry[0] == "call":
            ids.append(f"prior_{n}")
            arguments = json.dumps(entry[2], separators=(",", ":"))
            items.append(
                {"type": "function_call", "call_id": ids[-1], "name": entry[1], "arguments": arguments}
            )
        elif entry[0] == "tool":
            items.append({"type": "function_call_output", "call_id": ids.pop(0), "output": entry[1]})
        else:
            items.append({"role": entry[0], "content": entry[1]})
    return items


class TestContract(AdapterContract):
    # the SDK's failure function is toolerr's: it writes the function_call_output the run keeps
    writes_failed_results = True

    def make_adapter(self, on_record: Callable[[DetectionRecord], None], **policy: Any) -> Any:
        return ToolErrorRecovery(on_record=on_record, **policy)

    async def run(
        self,
        transcript: Transcript,
        adapter: Any,
        script: Sequence[Step],
        *,
        prior: Sequence[Entry] = (),
        ask: str = ASK,
    ) -> None:
        @function_tool
        def get_weather(city: str) -> str:
            """The weather in a city."""
            return transcript.execute(city)

        assert get_weather.name == TOOL
        model = ScriptedModel(
            [
                [assistant_message(step)]
                if isinstance(step, str)
                else [function_call(TOOL, {"city": c}, call_id=i) for c, i in zip(step, ids, strict=True)]
                for step, ids in zip(script, call_ids(script), strict=True)
            ]
        )
        agent = Agent(name="weather", model=model, tools=[get_weather])
        user_input: Any = [*prior_items(prior), {"role": "user", "content": ask}] if prior else ask
        run_config = adapter.run_config() if adapter is not None else None
        try:
            result = await Runner.run(agent, user_input, run_config=run_config)
        finally:
            transcript.seen = [entries(call.input) for call in model.calls]
            transcript.raw = [
                (json.dumps(call.input, sort_keys=True, default=repr), call.system_instructions)
                for call in model.calls
            ]
        transcript.history = entries(result.to_input_list())
