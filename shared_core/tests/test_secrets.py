"""Credentials never restated (issue 27, item 1): each pattern on the shapes it names,
precision on real text that holds none, and the layer end to end: the note, the record
and its dict, the log, the failure text of an exception; the history keeps the tool's words."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
import toolerr._cli as cli
from toolerr import Message, Policy, ToolCall, ToolErrorLayer, rewrite_wire
from toolerr._gateway import report_header, wire_report
from toolerr._rules.secrets import SECRET_PATTERNS
from toolerr._secrets import REDACTED, mask_secrets, secret_names
from toolerr.adapters import clean_text, failure_of

REAL = Path(__file__).parent / "real_errors"

# (text, what must be gone, what must stay, pattern name)
POSITIVE = [
    (
        "could not connect: postgresql://orders_app:Tr0ub4dor-3@db.internal:5432/orders",
        "Tr0ub4dor-3",
        "postgresql://orders_app:[redacted]@db.internal:5432/orders",
        "password in a URL",
    ),
    (
        "redis://default:hunter2hunter2@cache:6379/0",
        "hunter2hunter2",
        "redis://default:",
        "password in a URL",
    ),
    (
        # the OpenAI SDK's 401: the body, with the key half starred, is in str(exc)
        "Error code: 401 - {'error': {'message': 'Incorrect API key provided: "
        "sk-proj-Ab3d****************************************************Xy9z. You can find your "
        "API key at https://platform.openai.com/account/api-keys.', 'code': 'invalid_api_key'}}",
        "sk-proj-Ab3d",
        "Incorrect API key provided: [redacted].",
        "OpenAI or Anthropic API key",
    ),
    ("x-api-key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345", "sk-ant-api03-", "x-api-key", None),
    (
        "InvalidClientTokenId: The security token included in the request is invalid (AKIAIOSFODNN7EXAMPLE)",
        "AKIAIOSFODNN7EXAMPLE",
        "is invalid ([redacted])",
        "AWS access key id",
    ),
    (
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI",
        "aws_secret_access_key = [redacted]",
        "AWS secret access key",
    ),
    (
        "403 Forbidden; request headers: {'Authorization': 'Bearer eyJhbGciOiJIUzI1NiJ9."
        "eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', 'Accept': '*/*'}",
        "eyJhbGci",
        "'Authorization': 'Bearer [redacted]', 'Accept'",
        None,
    ),
    (
        "Authorization: Basic dXNlcjpwYXNzd29yZA==",
        "dXNlcjpwYXNzd29yZA",
        "Authorization: Basic [redacted]",
        None,
    ),
    (
        "token rejected: ghp_1234567890abcdefghijABCDEFGHIJ123456",
        "ghp_1234",
        "token rejected: [redacted]",
        None,
    ),
    ("invalid_auth for xoxb-123456789012-1234567890123-AbCdEfGhIjKl", "xoxb-1234", "invalid_auth for", None),
    ("No such API key: sk_live_4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLy", "sk_live_[redacted]", "Stripe key"),
    (
        "API key not valid: AIzaSyA-1234567890abcdefghijklmnopqrstu",
        "AIzaSyA-1",
        "API key not valid: [redacted]",
        None,
    ),
    ("401: hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567 is not valid", "hf_AbCd", "401: [redacted] is", None),
    (
        "bad key file:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n"
        "-----END OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1r",
        "-----BEGIN OPENSSH PRIVATE KEY-----[redacted]-----END OPENSSH PRIVATE KEY-----",
        "private key block",
    ),
    (
        "GET /v1/items?api_key=a8f5f167f44f4964e6c998dee827110c&page=2",
        "a8f5f167",
        "api_key=[redacted]&page=2",
        None,
    ),
    ('{"client_secret": "Zm9vYmFy-42"}', "Zm9vYmFy", '{"client_secret": "[redacted]"}', None),
    ("PASSWORD='S3cure!pass'", "S3cure", "PASSWORD='[redacted]'", None),
]

# Ordinary text: ids, hashes, payloads, words around credentials, code.
NEGATIVE = [
    "password: must be at least 8 characters",
    "Basic authentication failed for user bob",
    "token expired; use the Bearer token refresh flow",
    "duplicate key: user_42 already exists",
    "KeyError: 'api_key'",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 not found",
    "commit 3f2a9c1e5b7d4a6f8e0c2b4d6a8f0e2c4b6d8a0f is not a descendant",
    "request id 550e8400-e29b-41d4-a716-446655440000 failed",
    "https://example.com:8443/path?q=1 returned 503",
    "ssh://git@github.com:22/org/repo.git: permission denied (publickey)",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk",
    "token = self.get_token()",
    "self.secret_key = secret_key",
    "WWW-Authenticate: Bearer realm=example",
    "Task Skipping: asked for 20 sk-lines",
    "AKIA is a prefix, not a key",
]


@pytest.mark.parametrize(("text", "gone", "kept", "name"), POSITIVE)
def test_each_credential_is_masked_and_what_names_it_stays(
    text: str, gone: str, kept: str, name: str | None
) -> None:
    masked = mask_secrets(text)
    assert gone not in masked and REDACTED in masked
    assert kept in masked
    if name is not None:
        assert name in secret_names(text)
    assert mask_secrets(masked) == masked  # masking is idempotent


@pytest.mark.parametrize("text", NEGATIVE)
def test_ordinary_text_is_left_as_it_is(text: str) -> None:
    assert mask_secrets(text) is text


def test_every_pattern_has_a_source_and_a_positive_case() -> None:
    names = {name for text, *_ in POSITIVE for name in secret_names(text)}
    for name, _regex, mode, triggers, source in SECRET_PATTERNS:
        assert source and mode in ("case", "lower") and (triggers or mode == "case"), name
        assert name in names, f"no positive case for {name}"


def _real_texts() -> list[str]:
    lines = (REAL / "successes" / "data" / "successes.jsonl").read_text().splitlines()
    texts = [json.loads(line)["text"] for line in lines]
    for path in [REAL / "live_corpus.jsonl", *(REAL / "libraries" / "data").glob("*.jsonl")]:
        for line in path.read_text().splitlines():
            case = json.loads(line)
            texts.append(case.get("str") or "")
            texts.extend(v for v in (case.get("texts") or {}).values() if isinstance(v, str))
    return texts


CARRIED_KEY = "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"  # libraries/googlemaps_.py


def test_precision_on_real_outputs_and_real_error_texts() -> None:
    """1,351 real successful tool outputs (source code, READMEs, listings, JSON) and every
    text of the live and held-out error corpora (about 7,800): none holds a credential but
    the one key a corpus library sends in its URLs (masked), and none other is changed."""
    texts = _real_texts()
    assert len(texts) > 9000
    # The credentials the corpus carries on purpose (the googlemaps client sends its API key
    # in the URL, which its errors restate): masked wherever they are, never restated.
    carried = [text for text in texts if CARRIED_KEY in text]
    assert carried and all(CARRIED_KEY not in mask_secrets(text) for text in carried)
    changed = {text[:200] for text in texts if CARRIED_KEY not in text and mask_secrets(text) is not text}
    # The known false positives (measured: 4 of about 12,700 texts, two cases): MCP's
    # template puts a tool named ``write_secret`` before the message, and the message's
    # first word, 13 characters with a symbol, reads as that secret's value. Masking a
    # plain word costs the model that word; missing a credential restates it.
    assert changed <= {
        "Error executing tool write_secret: check-and-set parameter required for this call, "
        "on post http://127.0.0.1:VAULTPORT/v1/secret/data/payments/db",
        "Error executing tool write_secret: check-and-set parameter did not match the current "
        "version, on post http://127.0.0.1:VAULTPORT/v1/secret/data/payments/db",
    }


# -- through the layer --------------------------------------------------------------------

CREDENTIALS = {
    "url password": (
        "OperationalError: could not connect to postgresql://app:Tr0ub4dor-3@db:5432/x: Connection refused",
        "Tr0ub4dor-3",
    ),
    "openai key": (
        "AuthenticationError: Error code: 401 - {'error': {'message': 'Incorrect API key provided: "
        "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z. You can find your API key at "
        "https://platform.openai.com/account/api-keys.'}}",
        "sk-proj-Ab3dEf6h",
    ),
    "aws key id": (
        "ClientError: An error occurred (InvalidAccessKeyId) when calling the GetObject operation: "
        "The AWS Access Key Id you provided does not exist in our records. AKIAIOSFODNN7EXAMPLE",
        "AKIAIOSFODNN7EXAMPLE",
    ),
    "bearer token": (
        "HTTPError: 401 Unauthorized; sent headers {'Authorization': 'Bearer "
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZ2VudCJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ'}",
        "eyJhbGciOiJIUzI1NiJ9",
    ),
}


def _conversation(error: str) -> list[Message]:
    return [
        Message(role="user", content="go"),
        Message(
            role="assistant",
            content="",
            tool_calls=(ToolCall("c1", "fetch", {"url": "https://api.example.com/v1/items"}),),
        ),
        Message(role="tool", content=error, tool_call_id="c1", name="fetch", is_error=True),
    ]


@pytest.mark.parametrize("form", ["c1", "c3", "abstract"])
@pytest.mark.parametrize("which", list(CREDENTIALS))
def test_no_note_record_or_log_line_restates_a_credential(
    which: str, form: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="toolerr")
    error, secret = CREDENTIALS[which]
    records: list[object] = []
    layer = ToolErrorLayer(form=form, on_record=records.append)
    messages = _conversation(error)
    result = layer.rewrite(messages)
    assert result.changed and len(records) == 1
    # what toolerr wrote: new messages, and the suffix C1 appends to the tool's own text
    written = [m.content for m in result.messages if not any(m is old for old in messages)]
    if form == "c1":
        [changed] = written
        assert changed.startswith(error)
        written = [changed[len(error) :]]
    assert written and secret not in json.dumps(written)
    if form == "c3":  # the note restates the error, masked
        assert REDACTED in json.dumps(written)
    record = result.records[0]
    assert secret not in json.dumps(record.to_dict())
    assert all(secret not in r.getMessage() for r in caplog.records)
    assert messages[2].content == error  # the history keeps what the tool wrote


@pytest.mark.parametrize("which", list(CREDENTIALS))
def test_a_failure_text_written_from_an_exception_never_restates_one(which: str) -> None:
    error, secret = CREDENTIALS[which]
    failure = failure_of(ToolErrorLayer(), RuntimeError(error))
    assert secret not in failure.text and REDACTED in failure.text


def test_one_result_delivery_masks_its_note_and_c1_content() -> None:
    error, secret = CREDENTIALS["url password"]
    for form in ("c1", "c3"):
        delivery = ToolErrorLayer(form=form).deliver_result("fetch", {}, error, is_error=True, call_id="c1")
        assert secret not in (delivery.note or "") and secret not in json.dumps(delivery.record.to_dict())
        if form == "c1":  # the tool's own text, then toolerr's suffix
            assert delivery.changed and str(delivery.content).startswith(error)
            assert secret not in str(delivery.content)[len(error) :]


def test_a_credential_cut_by_the_window_does_not_escape() -> None:
    key = "sk-proj-" + "A1b2C3d4" * 8
    for offset in range(0, 200, 7):
        text = "x" * (150 + offset) + " " + key + " tail" * 50
        cleaned = clean_text(text, 80)
        assert "A1b2C3d4A1b2" not in cleaned


def test_log_records_on_logger_toolerr_are_masked_message_and_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="toolerr")
    error, secret = CREDENTIALS["openai key"]
    try:
        raise RuntimeError(error)
    except RuntimeError:
        logging.getLogger("toolerr").warning("toolerr: saw %s", error, exc_info=True)
    [record] = [r for r in caplog.records if r.name == "toolerr"]
    assert secret not in record.getMessage() and REDACTED in record.getMessage()
    assert record.exc_text and "RuntimeError" in record.exc_text and secret not in record.exc_text
    assert secret not in caplog.text


def test_the_cli_never_restates_one(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """``toolerr classify`` on the four credentials (the real command, a child process):
    each line is classified and no output, nor standard error, restates one; an internal
    error's message, which may quote the input, is masked too (and its log record)."""
    lines = [
        json.dumps({"id": which, "content": error, "is_error": True})
        for which, (error, _) in CREDENTIALS.items()
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "toolerr", "classify", "-"],
        input="\n".join(lines).encode(),
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert [(o["id"], o["failed"]) for o in out] == [(which, True) for which in CREDENTIALS]
    for _, secret in CREDENTIALS.values():
        assert secret not in proc.stdout.decode() + proc.stderr.decode()

    error, secret = CREDENTIALS["bearer token"]

    def broken(line: str) -> dict[str, object]:
        raise RuntimeError(f"could not read {error}")

    caplog.set_level(logging.DEBUG, logger="toolerr")
    monkeypatch.setattr(cli, "classify_line", broken)
    [answer] = list(cli.classify_lines(["{}"]))
    assert str(answer["error"]).startswith("internal error: RuntimeError: could not read HTTPError: 401")
    assert secret not in str(answer["error"]) and REDACTED in str(answer["error"])
    assert caplog.records and all(secret not in (r.exc_text or "") + r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("form", ["c1", "c3", "abstract"])
@pytest.mark.parametrize("which", list(CREDENTIALS))
def test_a_gateways_request_report_and_header_never_restate_one(which: str, form: str) -> None:
    """What a gateway (the LiteLLM proxy) does with a request whose tool result holds a
    credential: the request it forwards adds no copy of it (the note, the C1 suffix), and
    the report in its metadata and the ``x-toolerr`` header hold none; the tool's result,
    the client's history, is forwarded as it came."""
    error, secret = CREDENTIALS[which]
    tool_result = {"role": "tool", "tool_call_id": "call_1", "content": error}
    messages = [
        {"role": "user", "content": "list the items"},
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "fetch", "arguments": '{"page": 2}'},
                }
            ],
        },
        tool_result,
    ]
    result = rewrite_wire("openai-chat", messages, form=form)
    assert result.changed and len(result.records) == 1
    sent = json.dumps(result.request)
    assert sent.count(secret) == (0 if form == "abstract" else 1)  # the tool's own text only
    if form == "c1":  # the tool's own text, then toolerr's guidance line
        [forwarded] = [m for m in result.request if m.get("role") == "tool"]
        assert forwarded["content"].startswith(error) and secret not in forwarded["content"][len(error) :]
    elif form == "c3":
        assert tool_result in result.request and secret not in json.dumps(result.request[-1])
    report = wire_report("openai-chat", result, Policy(form=form), "generic")
    assert secret not in json.dumps(report) and secret not in report_header(report)
    assert json.loads(report_header(report))[0]["tool"] == "fetch"
