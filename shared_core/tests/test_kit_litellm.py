"""The kit's additions for toolerr-litellm: a gateway's policy for one request
(gateway_policy, override_policy) and the report of its rewrite (wire_report,
report_header)."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
import toolerr
from toolerr import Policy
from toolerr.adapters import (
    CLIENT_HEADER,
    FORM_HEADER,
    REPORT_HEADER,
    gateway_policy,
    override_policy,
    report_header,
    wire_report,
)

RATE = "Error: HTTP 429 Too Many Requests"


def chat(result: str = RATE) -> list[dict[str, Any]]:
    call = {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
    return [
        {"role": "user", "content": "read the file"},
        {"role": "assistant", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": result},
    ]


def test_header_names() -> None:
    assert (REPORT_HEADER, FORM_HEADER, CLIENT_HEADER) == ("x-toolerr", "x-toolerr-form", "x-toolerr-client")


def test_override_policy_reads_only_the_gateway_options() -> None:
    base = Policy(form="c3")
    assert override_policy(base, {}) is base
    assert override_policy(base, {"client": "codex", "form": None, "other": 1}) is base
    changed = override_policy(base, {"form": "c1", "retry_budget": 1, "tool_safety": {"read": "read_only"}})
    assert (changed.form, changed.retry_budget, dict(changed.tool_safety)) == ("c1", 1, {"read": "read_only"})
    with pytest.raises(ValueError, match=r"^toolerr: bad model group 'x': unknown form 'c9'"):
        override_policy(base, {"form": "c9"}, where="model group 'x'")


def test_gateway_policy_defaults_and_the_user_agent() -> None:
    base = Policy()
    assert gateway_policy(base, {}) == (base, "generic")
    assert gateway_policy(base, {"User-Agent": "codex_cli_rs/0.1"}) == (base, "codex_cli_rs/0.1")
    assert gateway_policy(base, {"user-agent": "x"}, client="qwen-code")[1] == "qwen-code"


def test_gateway_policy_layers_group_then_body_then_headers() -> None:
    base = Policy()
    groups = {"small": {"form": "c1", "client": "codex"}, "big": {"form": "c4"}}
    policy, client = gateway_policy(base, {}, groups=groups, names=[None, 3, "small", "big"])
    assert (policy.form, client) == ("c1", "codex")  # the first known name
    policy, client = gateway_policy(base, {}, groups=groups, names=["small"], entry={"form": "c0"})
    assert (policy.form, client) == ("c0", "codex")
    headers = {"X-Toolerr-Form": " abstract ", "x-toolerr-client": "cline"}
    policy, client = gateway_policy(base, headers, groups=groups, names=["small"], entry={"form": "c0"})
    assert (policy.form, client) == ("abstract", "cline")
    # a report toolerr wrote is not options; nor is anything when overrides are off
    assert gateway_policy(base, {}, entry={"form": "c0", "records": []})[0] is base
    assert gateway_policy(base, headers, entry={"form": "c0"}, overrides=False) == (base, "generic")


def test_gateway_policy_ignores_bad_request_options(caplog: pytest.LogCaptureFixture) -> None:
    base = Policy()
    with caplog.at_level(logging.WARNING, logger="toolerr"):
        policy, client = gateway_policy(
            base, {FORM_HEADER: "c9", CLIENT_HEADER: "cline"}, groups={"m": {"form": "c1"}}, names=["m"]
        )
    assert (policy.form, client) == ("c1", "generic")  # all the request's options go
    assert "toolerr: ignored bad request options {'form': 'c9', 'client': 'cline'}" in caplog.text
    with pytest.raises(ValueError, match="bad options"):
        gateway_policy(base, {}, groups={"m": {"form": "c9"}}, names=["m"])


def test_wire_report_and_its_header() -> None:
    policy = Policy(form="c3")
    result = toolerr.rewrite_wire("openai-chat", chat(), layer=toolerr.ToolErrorLayer(policy))
    report = wire_report("openai-chat", result, policy, "codex_cli_rs/0.1")
    assert {key: value for key, value in report.items() if key != "records"} == {
        "wire": "openai-chat",
        "form": "c3",
        "client": "codex",
        "changed": True,
        "error": None,
    }
    assert report["records"] == [
        {
            "position": 2,
            "tool": "read_file",
            "call_id": "call_1",
            "kind": "transient",
            "rule": "http:429",
            "detection": result.records[0].detection,
            "form": "c3",
            "changed": True,
            "repeat": None,
            "loop": None,
        }
    ]
    header = report_header(report)
    assert header == (
        '[{"position":2,"tool":"read_file","kind":"transient","rule":"http:429","form":"c3","changed":true}]'
    )
    assert report_header(json.loads(json.dumps(report))) == header  # read back from JSON alike


def test_report_header_is_ascii() -> None:
    entry = {"position": 0, "tool": "lire_é", "kind": None, "rule": None, "form": "c0", "changed": False}
    header = report_header({"records": [entry]})
    assert header.isascii() and "lire_\\u00e9" in header and json.loads(header) == [entry]
    assert report_header({"records": []}) == "[]"
