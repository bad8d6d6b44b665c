"""A credential the OpenAI SDK's own 401 restates (issue 27, item 1): a tool calls the API
through the real ``openai`` client, whose ``AuthenticationError`` carries the response body,
and with it the API key the service echoes, in ``str(exc)``. The response comes from an
``httpx2.MockTransport`` (no socket); the error is the one the SDK builds from it. Neither
the note nor the result toolerr writes, the record or the log restate the key."""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx2
import openai
import pytest
from agents import Agent, FunctionTool, function_tool
from oa_support import call as model_call
from oa_support import done, inputs, run_agent, scripted
from toolerr import DetectionRecord
from toolerr_openai_agents import ToolErrorRecovery

KEY = "sk-proj-Zq7Wv4Xt1Ys8Ur5Tp2On9Ml6Kj3Ih0Gf7Ed4Cb1A"
SECRET = KEY[8:]


def _unauthorized(request: httpx2.Request) -> httpx2.Response:
    """The API's 401 for a wrong key: its body names the key it was sent."""
    sent = request.headers["authorization"].removeprefix("Bearer ")
    body = {
        "error": {
            "message": f"Incorrect API key provided: {sent}. You can find your API key at "
            "https://platform.openai.com/account/api-keys.",
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_api_key",
        }
    }
    return httpx2.Response(401, json=body)


def _client() -> openai.OpenAI:
    transport = httpx2.MockTransport(_unauthorized)
    return openai.OpenAI(
        api_key=KEY,
        base_url="http://127.0.0.1:9/v1",
        max_retries=0,
        http_client=httpx2.Client(transport=transport),
    )


def _tool(raised: list[BaseException]) -> FunctionTool:
    @function_tool
    def list_models(owner: str) -> str:
        """The models an owner can use."""
        try:
            return ", ".join(m.id for m in _client().models.list() if m.owned_by == owner)
        except openai.AuthenticationError as exc:
            raised.append(exc)
            raise

    return list_models


@pytest.mark.parametrize("form", ["c1", "c3"])
def test_the_key_a_real_openai_401_echoes_is_never_restated(
    form: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="toolerr")
    raised: list[BaseException] = []
    records: list[DetectionRecord] = []
    recovery = ToolErrorRecovery(form=form, error_detail="full", on_record=records.append)
    model = scripted([model_call("list_models", {"owner": "me"}, "c1")], [done()])
    agent = Agent(name="models", instructions="Answer.", model=model, tools=[_tool(raised)])
    result = run_agent("run", agent, "Which models?", run_config=recovery.run_config())
    [exc] = raised
    assert SECRET in str(exc) and str(exc).startswith("Error code: 401 - ")  # the SDK restates it
    [record] = records
    assert (record.kind, record.verdict.status) == ("unrecoverable", 401)
    seen: list[Any] = inputs(model)[1]
    [output] = [item["output"] for item in seen if item.get("type") == "function_call_output"]
    assert output.startswith("AuthenticationError: Error code: 401 - ") and "[redacted]" in output
    if form == "c3":
        assert seen[-1]["role"] == "user" and "Incorrect API key provided: [redacted]." in seen[-1]["content"]
    assert SECRET not in json.dumps(seen)
    assert SECRET not in json.dumps(result.to_input_list())  # the result toolerr wrote, kept
    assert SECRET not in json.dumps(record.to_dict())
    logged = [r for r in caplog.records if r.name == "toolerr"]
    assert logged and all(SECRET not in r.getMessage() and SECRET not in (r.exc_text or "") for r in logged)
