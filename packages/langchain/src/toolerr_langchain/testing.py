"""A scripted chat model for tests and benchmarks: a real ``BaseChatModel`` that returns
planned messages (tool calls included) and records every message list it was given.

.. code-block:: python

    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage
    from toolerr_langchain.testing import ScriptedChatModel, tool_call

    model = ScriptedChatModel(script=[
        AIMessage("", tool_calls=[tool_call("get_weather", city="Paris")]),
        "It is sunny in Paris.",
    ])
    agent = create_agent(model, [get_weather])
    agent.invoke({"messages": [("user", "Weather in Paris?")]})
    model.calls[-1]  # the messages the model saw at its last call
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.messages.tool import ToolCall
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, Field, PrivateAttr

__all__ = ["ScriptExhaustedError", "ScriptedChatModel", "tool_call"]

Step = AIMessage | str | Callable[[list[BaseMessage]], "AIMessage | str"]

_ids = itertools.count(1)


def tool_call(name: str, id: str | None = None, /, **args: Any) -> ToolCall:
    """A LangChain tool call for a script (an id ``call_N`` is made up when none is given)."""
    return {"name": name, "args": args, "id": id or f"call_{next(_ids)}", "type": "tool_call"}


class ScriptExhaustedError(RuntimeError):
    """The model was called more often than its script has steps."""


class ScriptedChatModel(BaseChatModel):
    """Plays ``script`` one step per call: an ``AIMessage`` (with ``tool_calls`` or
    ``invalid_tool_calls`` as you like), a string (a final answer), or a callable given
    the messages and returning either. Every call's message list, system message
    included, is appended to ``calls``; ``tools`` holds the names of the tools last bound.
    ``loop`` replays the script from the start when it runs out instead of raising
    :class:`ScriptExhaustedError`.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    script: list[Any] = Field(default_factory=list)
    calls: list[list[BaseMessage]] = Field(default_factory=list)
    tools: list[str] = Field(default_factory=list)
    loop: bool = False
    _step: int = PrivateAttr(default=0)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "toolerr-scripted"

    def bind_tools(
        self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any
    ) -> ScriptedChatModel:
        """Record the tool names; the script decides what is called."""
        self.tools = [
            str(getattr(tool, "name", None) or (tool.get("name") if isinstance(tool, dict) else tool))
            for tool in tools
        ]
        return self

    def reset(self) -> None:
        """Start the script again and forget the recorded calls."""
        with self._lock:
            self._step = 0
            self.calls.clear()

    def _next(self, messages: list[BaseMessage]) -> AIMessage:
        with self._lock:
            self.calls.append(list(messages))
            step = self._step
            self._step += 1
        if step >= len(self.script):
            if not self.loop or not self.script:
                raise ScriptExhaustedError(
                    f"the script has {len(self.script)} steps; call {step + 1} has none"
                )
            step %= len(self.script)
        item = self.script[step]
        if callable(item) and not isinstance(item, BaseMessage):
            item = item(list(messages))
        if isinstance(item, str):
            return AIMessage(content=item)
        if isinstance(item, AIMessage):
            return item.model_copy(deep=True)
        raise TypeError(f"script step {step} gave {type(item).__name__}; expected AIMessage or str")

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._next(messages))])
