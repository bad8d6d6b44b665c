"""Classification with the call's arguments (``toolerr._arguments``): a rejected value the
model did not write (it gave only where to read) is ambiguous, not the model's to fix."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from toolerr import Message, ToolCall, ToolErrorLayer, inspect_result
from toolerr._arguments import locators_only

DAY = ValueError("day is out of range for month")
LITERAL = ValueError("invalid literal for int() with base 10: 'forty'")


def kind(exc: BaseException, arguments: Any) -> tuple[str | None, str | None]:
    verdict = inspect_result(
        f"{type(exc).__name__}: {exc}", is_error=True, exception=exc, arguments=arguments
    )
    return verdict.kind, verdict.family


@pytest.mark.parametrize(
    "arguments",
    [
        None,  # not known: as before
        {"when": "2024-02-30"},
        {"path": "events.csv", "day": 30},  # a value that could be the bad one
        '{"when": "2024-02-30"}',  # the model's JSON text
        "2024-02-30",  # raw text that is not JSON: one value
        {"tags": ["a", "b"]},
        {},  # no argument at all: an unknown tool, a missing argument (MCP -32602)
    ],
)
def test_a_value_the_model_may_have_written_stays_fixable(arguments: Any) -> None:
    assert kind(DAY, arguments)[0] == "fixable"


@pytest.mark.parametrize(
    "arguments",
    [
        {"path": "events.csv"},
        {"path": "/srv/data/events.csv"},
        {"source": "https://calendar.example.com/events/77"},
        {"event_id": 77},
        {"eventId": "ev_123"},
        {"ids": [3, 4], "file": "a.json"},
        '{"path": "events.csv"}',
        {"path": "events.csv", "overwrite": True, "limit": None},  # flags say nothing
    ],
)
def test_only_locators_make_a_rejected_value_the_data_the_tool_read(arguments: Any) -> None:
    assert kind(DAY, arguments) == ("ambiguous", "tool_input")
    assert kind(LITERAL, arguments) == ("ambiguous", "tool_input")


def test_a_locator_the_message_quotes_is_the_rejected_value() -> None:
    assert kind(LITERAL, {"event_id": "forty"})[0] == "fixable"
    exc = ValueError("could not parse '/srv/data/contacts' as a date")
    assert kind(exc, {"path": "contacts"})[0] == "fixable"  # the quoted path ends with it


@pytest.mark.parametrize(
    "exc",
    [
        TypeError("import_events() missing 1 required positional argument: 'since'"),
        TypeError("import_events() got an unexpected keyword argument 'fiel'"),
        ValueError("not a git repository: /srv/repo"),
    ],
)
def test_a_message_about_the_call_or_the_place_named_stays_fixable(exc: BaseException) -> None:
    before = kind(exc, None)
    assert before[0] == "fixable"
    assert kind(exc, {"path": "/srv/repo"}) == before


def test_other_kinds_are_unchanged() -> None:
    for exc in (TimeoutError("timed out"), PermissionError(13, "Permission denied")):
        assert kind(exc, {"path": "a.csv"}) == kind(exc, None)


@pytest.mark.parametrize(
    "arguments",
    [object(), {"x": object()}, {"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": {"i": {}}}}}}}}}}],
)
def test_arguments_that_are_not_json_change_nothing(arguments: Any) -> None:
    assert locators_only(arguments) is None
    assert kind(DAY, arguments)[0] == "fixable"


def test_an_error_inside_fails_open_with_a_warning(monkeypatch: pytest.MonkeyPatch, caplog: Any) -> None:
    import toolerr._classify as classify

    def broken(*_: Any) -> Any:
        raise RuntimeError("bug")

    monkeypatch.setattr(classify, "by_arguments", broken)
    with caplog.at_level(logging.WARNING, logger="toolerr"):
        assert kind(DAY, {"path": "a.csv"})[0] == "fixable"
    assert any(r.levelno == logging.WARNING for r in caplog.records)


def test_the_layer_pairs_each_result_with_its_call() -> None:
    """A conversation's results are classified with their own call's arguments: the same
    text, once from a file the model named and once from its own value."""
    text = "Error: ValueError: day is out of range for month"
    layer = ToolErrorLayer()
    for arguments, expected in (({"path": "events.csv"}, "ambiguous"), ({"when": "2024-02-30"}, "fixable")):
        call = ToolCall("c1", "schedule", arguments, json.dumps(arguments))
        messages = [
            Message("user", "Import my events."),
            Message("assistant", "", tool_calls=(call,)),
            Message("tool", text, tool_call_id="c1", name="schedule", is_error=True),
        ]
        records = layer.rewrite(messages).records
        assert [r.kind for r in records] == [expected]
        verdict = layer.inspect_tool_result("schedule", text, is_error=True, arguments=arguments)
        assert verdict.kind == expected


# -- a name the model wrote that does not exist -----------------------------------------------


@pytest.mark.parametrize(
    ("exc", "arguments"),
    [
        (KeyError("revnue"), {"operation": "select", "column": "revnue"}),
        (KeyError("Worksheet Revenue does not exist."), {"sheet": "Revenue"}),
        (IndexError("index 10 is out of bounds for axis 0 with size 4"), {"index": 10}),
        (LookupError("unknown locale 'xx_YY'"), {"text": "hello", "locale": "xx_YY"}),
        (ZeroDivisionError("division by zero"), {"start": 0.5, "step": 0}),
    ],
)
def test_a_lookup_of_a_name_the_model_wrote_is_its_to_fix(exc: BaseException, arguments: Any) -> None:
    assert kind(exc, None)[0] == "ambiguous"  # a tool's bug as often as a wrong name
    verdict_kind, _ = kind(exc, arguments)
    assert verdict_kind == "fixable"
    text = inspect_result(f"{type(exc).__name__}: {exc}", is_error=True, arguments=arguments)
    assert text.kind == "fixable"  # the class read from the text


@pytest.mark.parametrize(
    ("exc", "arguments"),
    [
        (KeyError("data"), {"city": "Paris"}),  # a key of a response the tool read
        (IndexError("list index out of range"), {"index": 10}),  # names nothing
        (IndexError("index 1 is out of bounds"), {"index": 1}),  # 0 and 1 are everywhere
        (KeyError(b"refs/heads/nosuch"), {"ref": "refs/heads/nosuch"}),  # a missing resource
        (KeyError("template 'a/b.html' not found"), {"name": "a/b.html"}),
        (ZeroDivisionError("division by zero"), {"start": 1, "step": 2}),
    ],
)
def test_a_lookup_the_model_did_not_name_stays_ambiguous(exc: BaseException, arguments: Any) -> None:
    assert kind(exc, arguments)[0] == "ambiguous"


@pytest.mark.parametrize(
    ("arguments", "kind_seen", "guided"),
    [({"path": "contacts.csv"}, "ambiguous", False), ({"age": "forty"}, "fixable", True)],
)
def test_a_gateway_reads_the_arguments_from_the_request(
    arguments: dict[str, str], kind_seen: str, guided: bool
) -> None:
    """An OpenAI Chat request as a gateway sees it: the call's arguments are the JSON text
    the model wrote, paired with the result by its id."""
    import toolerr

    error = "Error: ValueError: invalid literal for int() with base 10: 'forty'"
    request = [
        {"role": "user", "content": "Import the contacts."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "import_contacts", "arguments": json.dumps(arguments)},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": error},
    ]
    result = toolerr.rewrite_wire("openai-chat", request, layer=ToolErrorLayer())
    assert [r.kind for r in result.records] == [kind_seen]
    sent = json.dumps(result.request)
    assert ("call the tool again with the corrected value" in sent) is guided


def test_a_did_you_mean_corrects_the_locator_itself() -> None:
    """The LiteLLM proxy's suite found it: a suggestion for the path the model gave is the
    model's to take, though the call holds only that path."""
    text = "Error: File not found: /src/mian.py. Did you mean /src/main.py?"
    before = inspect_result(text, is_error=True)
    assert before.kind == "fixable"
    assert inspect_result(text, is_error=True, arguments={"path": "/src/mian.py"}) == before


# --- a parser's position no string the model wrote reaches ----------------------------------


def _raised(call: Any) -> BaseException:
    try:
        call()
    except Exception as exc:
        return exc
    raise AssertionError("no exception")


STORED = '{"_default": {"1": {"name": "Ada", "age": 36}, "2": {"name": "Alan", "ag'


def test_a_parse_position_beyond_every_argument_is_the_data_the_tool_read() -> None:
    # TinyDB reads its whole file with json.load: the file is cut short at char 77; the
    # model wrote a field and a value (so not "only locators"), none 77 characters long
    exc = _raised(lambda: json.loads(STORED))
    arguments = {"path": "people.json", "field": "age", "op": ">", "value": 30}
    assert kind(exc, None)[0] == "fixable"  # the text alone
    assert kind(exc, arguments) == ("ambiguous", "tool_input")
    # a second line of a file when no argument has two lines
    exc = _raised(lambda: json.loads('{\n "a": 1,\n "b": }'))
    assert kind(exc, {"path": "a.json", "key": "b"}) == ("ambiguous", "tool_input")


@pytest.mark.parametrize(
    "arguments",
    [
        {"body": STORED},  # the model wrote the text the parser stopped in
        {"path": "people.json", "body": STORED},  # one argument long enough is enough
        {},  # no argument at all: left to the text
    ],
)
def test_a_parse_position_inside_what_the_model_wrote_stays_fixable(arguments: Any) -> None:
    exc = _raised(lambda: json.loads(STORED))
    assert kind(exc, arguments)[0] == "fixable"


def test_a_position_in_a_pattern_built_from_the_model_s_token_stays_fixable() -> None:
    # arrow compiles the model's format into a longer regular expression: the position is
    # beyond the format, but the message quotes the model's own token
    import re

    exc = _raised(lambda: re.compile("(?P<YYYY>\\d{4})-(?P<MM>\\d{2})-(?P<DD>\\d{2}) (?P<YYYY>\\d{4})"))
    assert "at position" in str(exc)
    assert kind(exc, {"when": "2024-01-01 2024", "format": "YYYY-MM-DD YYYY"})[0] == "fixable"


# --- a validator's rejected value that the model did not write -----------------------------

PYDANTIC = (
    "1 validation error for TaskInfo\ntaskUid\n  Input should be a valid integer, unable to parse "
    "string as an integer [type=int_parsing, input_value='pending', input_type=str]"
)


def test_a_validated_value_the_model_did_not_write_is_the_response_s() -> None:
    # an SDK's pydantic model of the service's response rejects what the service sent
    verdict = inspect_result(PYDANTIC, is_error=True)
    assert verdict.kind == "fixable"
    verdict = inspect_result(PYDANTIC, is_error=True, arguments={"index": "movies", "documents": [{"id": 1}]})
    assert (verdict.kind, verdict.family) == ("ambiguous", "tool_input")


@pytest.mark.parametrize(
    "arguments",
    [
        {"task_uid": "pending"},  # the model's own value
        {"filter": "status = pending"},  # a value made from it
    ],
)
def test_a_validated_value_the_model_wrote_stays_fixable(arguments: Any) -> None:
    assert inspect_result(PYDANTIC, is_error=True, arguments=arguments).kind == "fixable"


# --- the tool's declared parameters -------------------------------------------------------

SYNTAX = ValueError("Expecting value: line 1 column 12 (char 11)")


def schema(**properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": sorted(properties)}


def with_schema(exc: BaseException, arguments: Any, parameters: Any) -> tuple[str | None, str | None]:
    verdict = ToolErrorLayer().inspect_exception(exc, arguments=arguments, parameters=parameters)
    return verdict.kind, verdict.family


@pytest.mark.parametrize(
    ("arguments", "parameters"),
    [
        ({"name": "churn_by_plan"}, schema(name={"type": "string", "description": "Name of a saved query"})),
        ({"report": "q3"}, schema(report={"type": "string", "description": "Title of the report to run"})),
        ({"key": "number"}, schema(key={"type": "string", "description": "Key of the cached value"})),
        ({"ticket": 48213}, schema(ticket={"type": "integer", "description": "Ticket id"})),
        ({"doc": "7f9c"}, schema(doc={"type": "string", "format": "uuid"})),
        (
            {"template": "weekly", "limit": 5},
            schema(
                template={"type": "string", "description": "Stored template to render, by name"},
                limit={"type": "integer", "description": "Ticket ids to list at most"},
            ),
        ),
    ],
)
def test_a_declared_reference_is_where_the_tool_read(arguments: Any, parameters: Any) -> None:
    assert with_schema(LITERAL, arguments, None)[0] == "fixable"  # the values alone: the model's
    assert with_schema(LITERAL, arguments, parameters) == ("ambiguous", "tool_input")
    text = inspect_result(f"ValueError: {LITERAL}", is_error=True, arguments=arguments, parameters=parameters)
    assert text.kind == "ambiguous"


@pytest.mark.parametrize(
    "parameters",
    [
        schema(name={"type": "string", "description": "SQL query to run"}),  # the value itself
        schema(name={"type": "string", "description": "Name for the new saved query"}),  # to be made
        schema(name={"type": "string", "description": "Name of the report to create"}),
        schema(name={"type": "string", "enum": ["churn_by_plan", "mrr"], "description": "Saved query id"}),
        schema(name={"type": "string"}),  # nothing declared
        schema(other={"type": "string", "description": "Id of the record"}),  # another parameter
        {"type": "object", "properties": ["name"]},  # not a schema
        ["name"],
        "Name of a saved query",
        None,
    ],
)
def test_a_value_the_schema_does_not_call_a_reference_stays_fixable(parameters: Any) -> None:
    assert with_schema(LITERAL, {"name": "churn_by_plan"}, parameters)[0] == "fixable"
    assert with_schema(SYNTAX, {"name": "churn_by_plan"}, parameters)[0] == "fixable"


def test_a_reference_beside_a_value_the_model_wrote_stays_fixable() -> None:
    parameters = schema(
        name={"type": "string", "description": "Name of a saved query"},
        since={"type": "string", "description": "Start date, YYYY-MM-DD"},
    )
    assert with_schema(LITERAL, {"name": "churn_by_plan", "since": "2024-02-30"}, parameters)[0] == "fixable"


@pytest.mark.parametrize(
    "exc",
    [
        KeyError("data"),
        TimeoutError("timed out"),
        PermissionError(13, "Permission denied"),
        ValueError("unknown unit 'meterz'"),
        ZeroDivisionError("division by zero"),
    ],
)
def test_the_schema_only_ever_moves_a_verdict_to_ambiguous(exc: BaseException) -> None:
    parameters = schema(name={"type": "string", "description": "Name of a saved query"})
    for arguments in ({"name": "data"}, {"name": "meterz"}, {"name": 0}):
        before = with_schema(exc, arguments, None)[0]
        assert with_schema(exc, arguments, parameters)[0] in (before, "ambiguous")


def test_a_lookup_of_a_declared_reference_is_a_missing_resource() -> None:
    exc = KeyError("weekly")
    arguments = {"template": "weekly"}
    assert with_schema(exc, arguments, None)[0] == "fixable"  # a name the model wrote
    parameters = schema(template={"type": "string", "description": "Name of a stored template"})
    assert with_schema(exc, arguments, parameters)[0] == "ambiguous"  # a stored thing not there
    vocabulary = schema(template={"type": "string", "description": "Layout: weekly, daily or monthly"})
    assert with_schema(exc, arguments, vocabulary)[0] == "fixable"


def test_a_huge_or_hostile_schema_fails_open() -> None:
    many = {"type": "object", "properties": {f"p{i}": {"description": "Id"} for i in range(300)}}
    assert with_schema(LITERAL, {"p1": "x"}, many)[0] == "fixable"  # over the bound: not read
    odd = {"type": "object", "properties": {1: {"description": "Id"}, "name": {"description": 5}}}
    assert with_schema(LITERAL, {"name": "x"}, odd)[0] == "fixable"


def test_the_kit_and_the_layer_pass_the_declared_parameters_on() -> None:
    from toolerr.adapters import failure_of

    layer = ToolErrorLayer()
    arguments = {"name": "churn_by_plan"}
    parameters = schema(name={"type": "string", "description": "Name of a saved query"})
    assert failure_of(layer, LITERAL, tool="run_query", arguments=arguments).verdict.kind == "fixable"
    failure = failure_of(layer, LITERAL, tool="run_query", arguments=arguments, parameters=parameters)
    assert failure.verdict.kind == "ambiguous"
    message = Message(
        role="tool", content=f"ValueError: {LITERAL}", tool_call_id="c1", name="run_query", is_error=True
    )
    assert layer.inspect(message, arguments=arguments).kind == "fixable"
    assert layer.inspect(message, arguments=arguments, parameters=parameters).kind == "ambiguous"


def test_the_schema_reader_keeps_its_precision_on_real_tools() -> None:
    """399 parameters of 173 real tools (MCP servers, LangChain, crewAI, GitHub, Stripe,
    Notion, ...), labelled by a session that did not see the reader: a parameter read as a
    reference that is a value the model composes (a search query, a new item's name) would
    turn its parse errors from fixable to ambiguous. First measured at 0.924 (61 of 66); 0.982
    (54 of 55) once only a description's head names the thing."""
    from pathlib import Path

    from toolerr._arguments import declared_references

    rows = [
        json.loads(line)
        for line in (Path(__file__).parent / "data" / "tool_schemas.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()
    ]
    read = [
        row["label"]
        for row in rows
        if row["name"] in declared_references({"type": "object", "properties": {row["name"]: row["schema"]}})
    ]
    right, wrong = read.count("reference"), read.count("value")
    assert right >= 50 and right / (right + wrong) >= 0.9, (right, wrong)


# Real descriptions of content the model writes, from tools outside tool_schemas.jsonl (an
# adversarial review): the value is described by its use, not as a thing that exists.
CONTENT = [
    "A jq filter to apply to the response to include certain fields. Consult the output schema"
    " in the tool description to see the fields that are available.",
    "The unified diff patch to apply to the file",
    "Unified diff to apply. Should include file paths in the --- / +++ headers.",
    "The Python code to execute. You can use any Python libraries and perform any operations"
    " including file system operations.",
    "The SQL query to execute. Use double-quoted identifiers for table and column names (e.g.,"
    ' SELECT * FROM "TableName").',
    "SQL query to execute. Use '{csv}' as placeholder for csv_file path.",
    "How to handle duplicate rows",
]


@pytest.mark.parametrize("description", CONTENT)
def test_a_value_described_by_its_use_is_not_a_reference(description: str) -> None:
    parameters = schema(
        account_id={"type": "string", "description": "Account identifier"},
        body={"type": "string", "description": description},
    )
    arguments = {"account_id": "023e105f", "body": "print('hello, ' + name"}
    for exc in (SYNTAX, LITERAL):
        assert with_schema(exc, arguments, None)[0] == "fixable"
        assert with_schema(exc, arguments, parameters)[0] == "fixable"


def test_the_schema_never_undoes_what_the_values_alone_say() -> None:
    exc = ValueError(
        "1 validation error for Report\nowner\n  Field required [type=missing, input_value='pending', input_type=str]"
    )
    arguments = {"report": "q3-revenue"}
    parameters = schema(report={"type": "string", "description": "Name of the saved report to load"})
    assert with_schema(exc, arguments, None)[0] == "ambiguous"
    assert with_schema(exc, arguments, parameters)[0] == "ambiguous"


def test_a_malformed_format_keeps_the_arguments_reading(caplog: Any) -> None:
    odd = {"type": "object", "properties": {"other": {"format": ["uri"]}, "x": {"format": {"a": 1}}}}
    assert with_schema(LITERAL, {"path": "events.csv"}, odd) == ("ambiguous", "tool_input")
    assert with_schema(KeyError("revnue"), {"column": "revnue"}, odd)[0] == "fixable"


def test_a_thing_to_be_made_is_never_a_reference_whatever_its_format() -> None:
    parameters = schema(hook={"type": "string", "format": "uri", "description": "URL for the new webhook"})
    assert with_schema(LITERAL, {"hook": "example.com/h"}, None)[0] == "fixable"
    assert with_schema(LITERAL, {"hook": "example.com/h"}, parameters)[0] == "fixable"
    assert with_schema(LITERAL, {"hook": "example.com/h"}, schema(hook={"format": "uri"}))[0] == "ambiguous"


def test_a_vocabulary_name_stays_the_model_s_to_fix() -> None:
    for description in ("Name of the column to use for sorting", "Column name to query"):
        parameters = schema(column={"type": "string", "description": description})
        assert with_schema(KeyError("revnue"), {"column": "revnue"}, parameters)[0] == "fixable"


def test_a_schema_is_read_once_per_object() -> None:
    from toolerr._arguments import declared_references

    parameters = schema(name={"type": "string", "description": "Name of a saved query"})
    assert declared_references(parameters) == {"name"}
    parameters["properties"]["name"]["description"] = "SQL text"  # changed in place: kept
    assert declared_references(parameters) == {"name"}
    assert declared_references(schema(name={"type": "string", "description": "SQL text"})) == set()
