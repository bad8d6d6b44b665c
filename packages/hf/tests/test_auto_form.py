"""form="auto" and the profiles in the local backend, on the tiny model built in conftest."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from conftest import WEATHER_TOOLS as TOOLS
from conftest import Script
from toolerr import PROFILES, Message, ToolCall, ToolErrorLayer
from toolerr_hf import SMALL_MODEL_PARAMETERS, LocalToolModel, auto_form, model_parameters

FIXABLE = "Error: Invalid arguments: city must be 'City, CC', e.g. 'Paris, FR'."
TRANSIENT = "Error: 503 Service Unavailable"
CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}'


def failed(result: str) -> list[Message]:
    call = ToolCall(
        id="c1", name="get_weather", arguments={"city": "Paris"}, raw_arguments='{"city": "Paris"}'
    )
    return [
        Message(role="system", content="Be brief."),
        Message(role="user", content="Weather in Paris?"),
        Message(role="assistant", content="", tool_calls=(call,)),
        Message(role="tool", content=result, tool_call_id="c1", name="get_weather"),
    ]


def ids_of(tokenizer: Any, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def test_a_small_model_gets_small_local_and_a_large_one_study_c3(tiny_model: Any) -> None:
    count = sum(p.numel() for p in tiny_model.parameters())
    assert model_parameters(tiny_model) == count < SMALL_MODEL_PARAMETERS
    assert auto_form(tiny_model) == "small-local"
    assert auto_form(tiny_model, small_below=count) == "study-c3"  # not under the threshold
    assert auto_form(tiny_model, small_below=count + 1) == "small-local"


def test_a_known_smollm2_id_is_small_whatever_its_size() -> None:
    smol = SimpleNamespace(
        config=SimpleNamespace(_name_or_path="HuggingFaceTB/SmolLM2-135M-Instruct"),
        num_parameters=lambda: 10**10,
    )
    other = SimpleNamespace(
        config=SimpleNamespace(_name_or_path="Qwen/Qwen2.5-7B"), num_parameters=lambda: 7 * 10**9
    )
    assert auto_form(smol) == "small-local"
    assert auto_form(other) == "study-c3"
    assert auto_form(object()) == "study-c3"  # size unknown: the study's default


def test_form_auto_on_the_tiny_model_hides_a_fixable_call_and_keeps_a_transient_one(
    tiny_model: Any, tokenizer: Any
) -> None:
    backend = LocalToolModel(tiny_model, tokenizer, form="auto", max_new_tokens=30)
    assert backend.profile == "small-local" and auto_form(backend) == "small-local"
    assert backend.layer is not None and backend.layer.policy.form == PROFILES["small-local"].forms
    assert backend.ban  # small-local was measured with the decoder ban on

    fixable = backend.generate(
        failed(FIXABLE), TOOLS, tool_choice="required", logits_processor=[Script([ids_of(tokenizer, CALL)])]
    )
    assert (
        "Note from the tool runtime: a call to get_weather (arguments: city) failed with a fixable error"
        in (fixable.prompt)
    )
    assert '"Paris"' not in fixable.prompt  # abstract: the failed argument string withheld
    assert fixable.banned == frozenset({CALL}) and CALL not in fixable.text  # and banned at the decoder
    assert [(r.kind, r.form, r.changed) for r in fixable.records] == [("fixable", "abstract", True)]

    transient = backend.generate(failed(TRANSIENT), TOOLS, max_new_tokens=5)
    assert (
        'Note from the tool runtime: the last attempt called get_weather with city="Paris"'
        in transient.prompt
    )
    assert '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}' in transient.prompt  # kept
    assert [(r.kind, r.form) for r in transient.records] == [("transient", "c3")]
    assert transient.banned == frozenset()  # a transient retry is never banned


def test_form_auto_with_a_lower_threshold_is_study_c3(
    tiny_model: Any, tokenizer: Any, monkeypatch: Any
) -> None:
    import toolerr_hf._auto as auto

    monkeypatch.setattr(auto, "SMALL_MODEL_PARAMETERS", 1)
    backend = LocalToolModel(tiny_model, tokenizer, form="auto", max_new_tokens=5)
    assert backend.profile == "study-c3" and backend.layer is not None and backend.layer.policy.form == "c3"
    out = backend.generate(failed(FIXABLE), TOOLS)
    assert [(r.kind, r.form) for r in out.records] == [("fixable", "c3")]


def test_form_takes_any_form_spec_and_refuses_a_layer_beside_it(tiny_model: Any, tokenizer: Any) -> None:
    mapped = LocalToolModel(tiny_model, tokenizer, form={"fixable": "c1"})
    assert mapped.profile is None and mapped.layer is not None
    assert (
        mapped.layer.policy.form_for("fixable") == "c1" and mapped.layer.policy.form_for("transient") == "c3"
    )
    assert LocalToolModel(tiny_model, tokenizer, form="small-local").profile == "small-local"
    with pytest.raises(ValueError, match="layer or form"):
        LocalToolModel(tiny_model, tokenizer, form="c3", layer=ToolErrorLayer())
    with pytest.raises(ValueError, match="unknown form 'c7'"):
        LocalToolModel(tiny_model, tokenizer, form="c7")


def test_chat_local_model_refuses_form_beside_a_backend(tiny_model: Any, tokenizer: Any) -> None:
    pytest.importorskip("langchain_core")
    from toolerr_hf import ChatLocalModel

    backend = LocalToolModel(tiny_model, tokenizer, form="auto")
    chat = ChatLocalModel(backend=backend)
    assert auto_form(chat) == "small-local" and chat.backend.profile == "small-local"
    with pytest.raises(ValueError, match="backend or form"):
        ChatLocalModel(backend=backend, form="auto")
