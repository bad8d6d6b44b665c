"""ChatLocalModel: the local backend as a LangChain chat model, in a real create_agent loop
(tiny model, scripted choices)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

import pytest
from conftest import ScriptedTurns
from conftest import weather_tool as make_tool
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from toolerr import FailureLedger, Verdict
from toolerr_hf import ChatLocalModel, LocalToolModel
from toolerr_hf._langchain import from_langchain_messages

CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
FIXED = '{"name": "get_weather", "arguments": {"city": "Paris, FR"}}'


def ids_of(tokenizer: Any, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def chat(tiny_model: Any, tokenizer: Any, turns: list[str | None], **options: Any) -> ChatLocalModel:
    script = ScriptedTurns(
        [
            None
            if t is None
            else ids_of(tokenizer, t) + ([tokenizer.eos_token_id] if not t.endswith("</tool_call>") else [])
            for t in turns
        ]
    )
    backend = LocalToolModel(tiny_model, tokenizer, max_new_tokens=40, logits_processor=[script])
    return ChatLocalModel(backend=backend, **options)


def test_bind_tools_and_invoke(tiny_model: Any, tokenizer: Any) -> None:
    model = chat(tiny_model, tokenizer, [CALL + "\n</tool_call>"])
    bound = model.bind_tools([make_tool([])], tool_choice="any")
    message = bound.invoke([HumanMessage("Weather in Paris?")])
    assert isinstance(message, AIMessage)
    assert [(c["name"], c["args"]) for c in message.tool_calls] == [("get_weather", {"city": "Paris"})]
    assert message.response_metadata["finish_reason"] == "tool_calls"
    call_id = message.tool_calls[0]["id"]
    assert message.response_metadata["toolerr_call_texts"] == {call_id: CALL}
    assert message.response_metadata["toolerr_raw_arguments"] == {call_id: '{"city": "Paris"}'}
    assert message.usage_metadata is not None and message.usage_metadata["output_tokens"] > 0


def test_prose_and_async_twin(tiny_model: Any, tokenizer: Any) -> None:
    model = chat(tiny_model, tokenizer, ["It is sunny.", "It is sunny."])
    assert model.invoke("Weather?").content == "It is sunny."
    assert asyncio.run(model.ainvoke("Weather?")).content == "It is sunny."


def test_agent_runs_a_call_gets_a_failure_and_recovers(tiny_model: Any, tokenizer: Any) -> None:
    calls: list[str] = []
    turns = [
        f"<tool_call>\n{CALL}\n</tool_call>",
        f"<tool_call>\n{FIXED}\n</tool_call>",
        "It is 18 C and cloudy in Paris.",
    ]
    model = chat(tiny_model, tokenizer, turns)
    agent = create_agent(model, [make_tool(calls)])
    state = agent.invoke({"messages": [HumanMessage("Weather in Paris?")]})
    assert calls == ["Paris", "Paris, FR"]
    failed = [m for m in state["messages"] if isinstance(m, ToolMessage) and m.status == "error"]
    assert len(failed) == 1 and "Invalid arguments" in str(failed[0].content)
    assert state["messages"][-1].content == "It is 18 C and cloudy in Paris."


def test_agent_cannot_repeat_the_failed_call(tiny_model: Any, tokenizer: Any) -> None:
    calls: list[str] = []
    # The scripted model tries the failed call again; the ban makes it unwritable.
    model = chat(tiny_model, tokenizer, [f"<tool_call>\n{CALL}\n</tool_call>"] * 2)
    agent = create_agent(model, [make_tool(calls)])
    state = agent.invoke({"messages": [HumanMessage("Weather in Paris?")]}, {"recursion_limit": 8})
    assert calls == ["Paris"]
    second = [m for m in state["messages"] if isinstance(m, AIMessage)][1]
    assert second.response_metadata["toolerr_banned"] == 1
    assert second.response_metadata["toolerr_interventions"] == 1
    assert all(c["args"] != {"city": "Paris"} for c in second.tool_calls)


def test_failed_calls_and_banned_settings(tiny_model: Any, tokenizer: Any) -> None:
    ledger = FailureLedger()
    ledger.record(
        "get_weather", {"city": "Paris"}, Verdict(failed=True, kind="fixable"), raw='{"city": "Paris"}'
    )
    for settings in ({"failed_calls": ledger}, {"failed_calls": ledger.banned_calls()}, {"banned": [CALL]}):
        model = chat(tiny_model, tokenizer, [CALL + "\n</tool_call>"])
        message = model.bind_tools([make_tool([])], tool_choice="required", **settings).invoke(
            "Weather in Paris?"
        )
        assert message.response_metadata["toolerr_banned"] == 1, settings
        assert message.response_metadata["toolerr_interventions"] == 1
    with pytest.raises(TypeError, match="failed_calls"):
        chat(tiny_model, tokenizer, []).bind_tools([make_tool([])], failed_calls=[1]).invoke("x")
    assert ChatLocalModel.toolerr_accepts_failed_calls is True


def test_message_conversion() -> None:
    ai = AIMessage(
        content="",
        tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "c1", "type": "tool_call"}],
        response_metadata={
            "toolerr_call_texts": {"c1": CALL},
            "toolerr_raw_arguments": {"c1": '{"city": "Paris"}'},
        },
    )
    neutral = from_langchain_messages(
        [
            SystemMessage("s"),
            HumanMessage("h"),
            ai,
            ToolMessage("Error: x", tool_call_id="c1", name="get_weather", status="error"),
        ]
    )
    assert [m.role for m in neutral] == ["system", "user", "assistant", "tool"]
    assert neutral[2].tool_calls[0].raw_arguments == '{"city": "Paris"}'
    assert neutral[2].meta["call_texts"] == {"c1": CALL}
    assert neutral[3].is_error is True and neutral[3].client == "langchain" and neutral[3].origin is not None


def test_backend_must_be_a_local_tool_model() -> None:
    with pytest.raises(TypeError, match="LocalToolModel"):
        ChatLocalModel(backend=object())


def test_import_without_langchain() -> None:
    code = (
        "import sys\n"
        "for name in ('langchain', 'langchain_core'):\n"
        "    sys.modules[name] = None\n"
        "import toolerr_hf\n"
        "assert toolerr_hf.LocalToolModel and toolerr_hf.FailedCallBan\n"
        "try:\n"
        "    toolerr_hf.ChatLocalModel\n"
        "except ImportError as exc:\n"
        "    assert \"pip install 'toolerr-hf[langchain]'\" in str(exc), exc\n"
        "else:\n"
        "    raise SystemExit('no ImportError')\n"
        "assert 'langchain_core' not in [m for m in sys.modules if sys.modules[m] is not None]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("form", ["c3", "abstract"])
def test_middleware_hands_the_ledger_to_the_decoder_ban(tiny_model: Any, tokenizer: Any, form: str) -> None:
    """toolerr's LangChain middleware passes the failed-call ledger to ChatLocalModel: the
    failed call stays unwritable even when the abstract form hides it from the model."""
    from toolerr_langchain import ToolErrorMiddleware

    calls: list[str] = []
    model = chat(tiny_model, tokenizer, [f"<tool_call>\n{CALL}\n</tool_call>"] * 2)
    agent = create_agent(model, [make_tool(calls)], middleware=[ToolErrorMiddleware(form=form)])
    state = agent.invoke({"messages": [HumanMessage("Weather in Paris?")]}, {"recursion_limit": 8})
    assert calls == ["Paris"]
    second = [m for m in state["messages"] if isinstance(m, AIMessage)][1]
    assert second.response_metadata["toolerr_banned"] >= 1
    assert second.response_metadata["toolerr_interventions"] == 1
    assert all(c["args"] != {"city": "Paris"} for c in second.tool_calls)
