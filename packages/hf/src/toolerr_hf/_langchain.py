"""ChatLocalModel: the local tool-calling backend as a LangChain chat model (``bind_tools``).

Imported lazily by ``toolerr_hf.ChatLocalModel``: ``import toolerr_hf`` works without LangChain.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar

try:
    from langchain_core.callbacks import CallbackManagerForLLMRun
    from langchain_core.language_models import BaseChatModel, LanguageModelInput
    from langchain_core.messages import AIMessage, BaseMessage, ChatMessage, SystemMessage, ToolMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.runnables import Runnable
    from langchain_core.tools import BaseTool
    from langchain_core.utils.function_calling import convert_to_openai_tool
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise ImportError(
        "toolerr_hf.ChatLocalModel needs LangChain: pip install 'toolerr-hf[langchain]'"
    ) from exc
from pydantic import ConfigDict, Field, model_validator
from toolerr import FailedCall, FailureLedger, Message, ToolCall
from toolerr.adapters import content_text

from ._backend import Generation, LocalToolModel

__all__ = ["ChatLocalModel", "from_langchain_messages"]

_CALL_TEXTS = "toolerr_call_texts"
_RAW_ARGUMENTS = "toolerr_raw_arguments"


def from_langchain_messages(messages: Sequence[BaseMessage]) -> list[Message]:
    """LangChain messages as the core's neutral conversation (the call texts this model
    wrote, kept in ``response_metadata``, travel along for the ban)."""
    out: list[Message] = []
    for message in messages:
        # By class, not ``type``: a chunk (``AIMessageChunk``, what a streaming loop keeps)
        # is the message it adds up to; a ChatMessage says its role.
        role = message.role if isinstance(message, ChatMessage) else None
        if isinstance(message, SystemMessage) or role == "system":
            out.append(Message(role="system", content=content_text(message.content), origin=message))
        elif isinstance(message, AIMessage):
            metadata = message.response_metadata or {}
            raw = dict(metadata.get(_RAW_ARGUMENTS) or {})
            texts = dict(metadata.get(_CALL_TEXTS) or {})
            calls = tuple(
                ToolCall(
                    id=call.get("id"),
                    name=call["name"],
                    arguments=call.get("args") or {},
                    raw_arguments=raw.get(call.get("id")),
                )
                for call in message.tool_calls
            )
            out.append(
                Message(
                    role="assistant",
                    content=content_text(message.content),
                    tool_calls=calls,
                    origin=message,
                    meta={"call_texts": texts} if texts else {},
                )
            )
        elif role in ("assistant", "ai"):
            out.append(Message(role="assistant", content=content_text(message.content), origin=message))
        elif isinstance(message, ToolMessage):
            out.append(
                Message(
                    role="tool",
                    content=_blocks_or_text(message.content),
                    tool_call_id=message.tool_call_id,
                    name=message.name,
                    is_error=True if message.status == "error" else None,
                    client="langchain",
                    origin=message,
                )
            )
        else:
            out.append(Message(role="user", content=_blocks_or_text(message.content), origin=message))
    return out


def _blocks_or_text(content: Any) -> Any:
    """Content blocks as they are (the prompt names a media block instead of pasting its
    payload: ``prompt_text``), anything else as text."""
    return list(content) if isinstance(content, list) else content_text(content)


def _tool_choice(value: Any) -> str | None:
    if value is None:
        return None
    if value is False:
        return "none"
    if value is True or value in ("any", "required"):
        return "required"
    if isinstance(value, Mapping):
        function = value.get("function")
        name = function.get("name") if isinstance(function, Mapping) else value.get("name")
        return str(name) if name else "required"
    return str(value)


def _failed_strings(model: LocalToolModel, failed: Any) -> list[str]:
    """Call strings from ``failed_calls=`` (a ledger, FailedCall objects or strings)."""
    if failed is None:
        return []
    if isinstance(failed, str):  # one call string, not its characters
        return [failed]
    items: Iterable[Any] = failed.banned_calls() if isinstance(failed, FailureLedger) else failed
    out: list[str] = []
    for item in items:
        if isinstance(item, FailedCall):
            out.append(model.format.call_text(item.name, raw_arguments=item.exact))
        elif isinstance(item, str):
            out.append(item)
        else:
            raise TypeError(f"failed_calls holds {type(item).__name__}; expected FailedCall or str")
    return out


class ChatLocalModel(BaseChatModel):
    """A LangChain chat model on a local transformers model, with tool calling.

    ``ChatLocalModel()`` runs the embedded default (SmolLM2-135M-Instruct; ``form="auto"``
    gives it toolerr's measured profile for it, ``small-local``); pass
    ``backend=LocalToolModel(model, tokenizer, layer=..., ban=...)`` for another model or
    policy. ``tool_choice`` is the default when ``bind_tools`` gets none: ``auto`` (the
    model decides), ``required`` (every reply is a call), ``none`` or a tool name.

    Extra per-call settings (``bind_tools(..., **kw)``, or an agent middleware's
    ``model_settings``): ``failed_calls`` (a :class:`toolerr.FailureLedger` or its
    ``FailedCall`` items, e.g. from the conversation before a form removed them) and
    ``banned`` (call strings): both are banned at the decoder on top of what the visible
    conversation's ledger gives.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    backend: Any = Field(default=None, description="The LocalToolModel (None: the embedded default model).")
    form: Any = Field(
        default=None,
        description=(
            "With no backend: the delivery form of the embedded default's layer (a form, a "
            "per-kind mapping, a profile name or 'auto'); None: no layer."
        ),
    )
    tool_choice: str | None = "auto"
    max_new_tokens: int | None = None
    model_name: str = "toolerr-local"

    @model_validator(mode="after")
    def _load_backend(self) -> ChatLocalModel:
        if self.backend is None:
            self.backend = LocalToolModel() if self.form is None else LocalToolModel(form=self.form)
        elif self.form is not None:
            raise ValueError("give backend or form, not both (pass form= to the LocalToolModel)")
        elif not isinstance(self.backend, LocalToolModel):
            raise TypeError(f"backend must be a toolerr_hf.LocalToolModel, not {type(self.backend).__name__}")
        return self

    toolerr_accepts_failed_calls: ClassVar[bool] = True
    """Duck-typed marker for toolerr middleware: this model takes ``failed_calls=``/``banned=`` settings."""

    @property
    def _llm_type(self) -> str:
        return "toolerr-local"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name, "tool_choice": self.tool_choice}

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools (any form LangChain converts to an OpenAI tool schema)."""
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=formatted, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        backend: LocalToolModel = self.backend
        tools: list[dict[str, Any]] | None = kwargs.pop("tools", None)
        choice = _tool_choice(kwargs.pop("tool_choice", None)) or self.tool_choice
        banned = kwargs.pop("banned", ())
        extra = [
            *_failed_strings(backend, kwargs.pop("failed_calls", None)),
            *([banned] if isinstance(banned, str) else banned),
        ]
        if stop:
            kwargs.setdefault("stop_strings", list(stop))
            kwargs.setdefault("tokenizer", backend.tokenizer)
        generation = backend.generate(
            from_langchain_messages(messages),
            tools,
            tool_choice=choice if tools else "none",
            banned=extra,
            max_new_tokens=self.max_new_tokens,
            **kwargs,
        )
        return ChatResult(generations=[ChatGeneration(message=self._to_message(generation))])

    def _to_message(self, generation: Generation) -> AIMessage:
        ids = generation.call_ids
        tool_calls = [
            {"name": call.name, "args": call.arguments, "id": call_id, "type": "tool_call"}
            for call, call_id in zip(generation.calls, ids, strict=True)
        ]
        invalid = [
            {
                "name": bad.name,
                "args": bad.text,
                "id": backend_id,
                "error": bad.error,
                "type": "invalid_tool_call",
            }
            for bad, backend_id in zip(
                generation.invalid, (self.backend.call_id() for _ in generation.invalid), strict=True
            )
        ]
        metadata: dict[str, Any] = {
            "model_name": self.model_name,
            "finish_reason": generation.finish_reason,
            _CALL_TEXTS: {call_id: call.text for call, call_id in zip(generation.calls, ids, strict=True)},
            _RAW_ARGUMENTS: {
                call_id: call.raw_arguments
                for call, call_id in zip(generation.calls, ids, strict=True)
                if call.raw_arguments is not None
            },
            "toolerr_banned": len(generation.banned),
            "toolerr_interventions": generation.interventions,
        }
        return AIMessage(
            content=generation.content,
            tool_calls=tool_calls,
            invalid_tool_calls=invalid,
            response_metadata=metadata,
            usage_metadata={
                "input_tokens": generation.prompt_tokens,
                "output_tokens": generation.completion_tokens,
                "total_tokens": generation.prompt_tokens + generation.completion_tokens,
            },
        )
