"""OpenAI Chat's legacy function calling (assistant ``function_call``, ``function``
messages), as older OpenAI clients still send it, through the real LiteLLM proxy: what the
upstream received, byte for byte."""

from __future__ import annotations

from typing import Any

import openai
import pytest
from conftest import MASTER_KEY, Proxy, Upstream

RATE = "Error: HTTP 429 Too Many Requests"
NOTE = (
    'Note from the tool runtime: the last attempt called read_file with path="/etc/shadow" '
    "and it failed with: Error: HTTP 429 Too Many Requests\n\nThis is a temporary failure. "
    "Retrying the same call is expected to succeed."
)


def legacy_messages(result: str = RATE) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "read the file"},
        # no "content": None (LiteLLM drops it before the upstream, rewritten or not)
        {"role": "assistant", "function_call": {"name": "read_file", "arguments": '{"path": "/etc/shadow"}'}},
        {"role": "function", "name": "read_file", "content": result},
    ]


@pytest.mark.parametrize(
    ("form", "expected"),
    [
        ("c3", [*legacy_messages(), {"role": "user", "content": NOTE}]),
        ("c4", [{"role": "user", "content": "read the file"}, {"role": "user", "content": NOTE}]),
        ("c0", legacy_messages()),
    ],
)
def test_chat_legacy_function_call(
    proxy: Proxy, upstream: Upstream, form: str, expected: list[dict[str, Any]]
) -> None:
    client = openai.OpenAI(
        base_url=f"{proxy.url}/v1",
        api_key=MASTER_KEY,
        max_retries=0,
        default_headers={"x-toolerr-form": form},
    )
    client.chat.completions.create(model="gpt-test", messages=legacy_messages())  # type: ignore[arg-type]
    assert upstream.last().json["messages"] == expected
