"""The <tool_call> text format: rendering, and lenient parsing of what small models write."""

from __future__ import annotations

import json

import pytest
from toolerr_hf import HermesFormat

FORMAT = HermesFormat()
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city"],
            },
        },
    }
]


def test_rendering() -> None:
    assert (
        FORMAT.call_text("get_weather", {"city": "Zürich"})
        == '{"name": "get_weather", "arguments": {"city": "Zürich"}}'
    )
    assert FORMAT.call_text("f", raw_arguments=' {"a":1} ') == '{"name": "f", "arguments": {"a":1}}'
    assert FORMAT.render_call("f", {}) == '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'
    assert FORMAT.render_result("ok") == "<tool_response>\nok\n</tool_response>"
    section = FORMAT.render_tools(TOOLS)
    schema = json.loads(section.splitlines()[1])
    assert schema == {
        "name": "get_weather",
        "description": "Get the current weather for a city.",
        "parameters": TOOLS[0]["function"]["parameters"],  # type: ignore[index]
    }
    assert '<tool_call>\n{"name": "get_weather", "arguments": {"city": "..."}}\n</tool_call>' in section
    assert FORMAT.prefill("required") == "<tool_call>\n"
    assert FORMAT.prefill("auto") == ""
    assert FORMAT.prefill("get_weather") == '<tool_call>\n{"name": "get_weather", "arguments": '


def test_parse_a_well_formed_reply() -> None:
    text = 'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}\n</tool_call>'
    out = FORMAT.parse(text)
    assert out.content == "Let me check."
    (call,) = out.calls
    assert call.name == "get_weather"
    assert call.arguments == {"city": "Paris", "days": 2}
    assert call.text == '{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}'
    assert call.raw_arguments == '{"city": "Paris", "days": 2}'
    assert out.invalid == ()


def test_parse_several_calls_and_prose_between() -> None:
    text = (
        '<tool_call>{"name": "a", "arguments": {}}</tool_call> and '
        '<tool_call>\n{"name": "b", "arguments": {"x": [1, 2]}}\n</tool_call> done'
    )
    out = FORMAT.parse(text)
    assert [c.name for c in out.calls] == ["a", "b"]
    assert out.content == "and  done"


@pytest.mark.parametrize(
    ("text", "name", "arguments"),
    [
        ('<tool_call>\n{"name": "f", "arguments": {"a": 1}}', "f", {"a": 1}),  # no end marker
        ('<tool_call>\n{"name": "f", "arguments": {"a": 1}\n</tool_call>', "f", {"a": 1}),  # missing brace
        (
            '<tool_call>\n{"name": "f", "arguments": {"a": 1,},}\n</tool_call>',
            "f",
            {"a": 1},
        ),  # trailing commas
        (
            "<tool_call>\n{'name': 'f', 'arguments': {'a': True}}\n</tool_call>",
            "f",
            {"a": True},
        ),  # Python literal
        ('<tool_call>\n{"name": "f", "parameters": {"a": 1}}\n</tool_call>', "f", {"a": 1}),
        ('<tool_call>\n{"name": "f", "args": {"a": 1}}\n</tool_call>', "f", {"a": 1}),
        (
            '<tool_call>\n{"name": "f", "arguments": "{\\"a\\": 1}"}\n</tool_call>',
            "f",
            {"a": 1},
        ),  # JSON string
        ('<tool_call>\n{"name": "f"}\n</tool_call>', "f", {}),
        (
            '<tool_call>\n{"type": "function", "function": {"name": "f", "arguments": {"a": 1}}}\n</tool_call>',
            "f",
            {"a": 1},
        ),
        ('<tool_call>\n```json\n{"name": "f", "arguments": {"a": 1}}\n```\n</tool_call>', "f", {"a": 1}),
        ('<TOOL_CALL>{"name": "f", "arguments": {"a": 1}}</TOOL_CALL>', "f", {"a": 1}),
        ('<tool_call|>{"name": "f", "arguments": {"a": 1}}</tool_call|>', "f", {"a": 1}),
        ('< tool_call >{"name": "f", "arguments": {"a": 1}}< /tool_call >', "f", {"a": 1}),
        ('<tool_call>\n{"name": "f", "arguments": {"a": 1}} trailing words\n</tool_call>', "f", {"a": 1}),
        ('<tool_call>\n{"name": " f ", "arguments": null}\n</tool_call>', "f", {}),
    ],
)
def test_parse_is_lenient_about_small_slips(text: str, name: str, arguments: dict[str, object]) -> None:
    out = FORMAT.parse(text)
    assert [(c.name, c.arguments) for c in out.calls] == [(name, arguments)], out
    assert out.invalid == ()


def test_two_calls_without_end_markers() -> None:
    out = FORMAT.parse('<tool_call>{"name": "a", "arguments": {}}<tool_call>{"name": "b", "arguments": {}}')
    assert [c.name for c in out.calls] == ["a", "b"]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("<tool_call>\nget_weather(city='Paris')\n</tool_call>", "no JSON object"),
        ('<tool_call>\n{"arguments": {"a": 1}}\n</tool_call>', 'no "name"'),
        ('<tool_call>\n{"name": "f", "arguments": [1]}\n</tool_call>', "not a JSON object"),
        (
            '<tool_call>\n{"name": "f", "arguments": "city=Paris"}\n</tool_call>',
            "string that is not a JSON object",
        ),
        ('<tool_call>\n{"name": "f", "arguments": {"a": "unterminated}}\n</tool_call>', "invalid JSON"),
    ],
)
def test_unreadable_calls_are_reported(text: str, error: str) -> None:
    out = FORMAT.parse(text)
    assert out.calls == ()
    (bad,) = out.invalid
    assert error in bad.error


def test_a_call_cut_at_the_token_limit_is_not_repaired() -> None:
    text = '<tool_call>\n{"name": "f", "arguments": {"a": 1}, "description": "and so on"'
    assert FORMAT.parse(text).calls[0].arguments == {"a": 1}  # the model ended it: a slip
    cut = FORMAT.parse(text, complete=False)
    assert cut.calls == ()
    assert cut.invalid[0].error == "the call was cut off at the token limit"
    assert cut.invalid[0].name == "f"
    closed = FORMAT.parse('<tool_call>{"name": "f", "arguments": {}}</tool_call>', complete=False)
    assert closed.calls[0].name == "f"


def test_bare_json_reply_is_a_call_only_for_a_known_tool() -> None:
    text = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
    assert FORMAT.parse(text).calls == ()
    assert FORMAT.parse(text).content == text
    out = FORMAT.parse(text, tools=["get_weather"])
    assert out.calls[0].arguments == {"city": "Paris"}
    assert out.content == ""
    assert FORMAT.parse('{"name": "other", "arguments": {}}', tools=["get_weather"]).calls == ()
    forgot_start = FORMAT.parse(text + "\n</tool_call>", tools=["get_weather"])
    assert forgot_start.calls[0].text == text


def test_prose_only() -> None:
    out = FORMAT.parse("  The weather is fine.  ")
    assert out.content == "The weather is fine."
    assert out.calls == () and out.invalid == ()


def test_custom_markers() -> None:
    fmt = HermesFormat("[CALL]", "[/CALL]")
    assert fmt.render_call("f", {}) == '[CALL]\n{"name": "f", "arguments": {}}\n[/CALL]'
    assert fmt.parse('x [CALL]{"name": "f", "arguments": {}}[/CALL]').calls[0].name == "f"
    with pytest.raises(ValueError, match="markers"):
        HermesFormat("", "x")
