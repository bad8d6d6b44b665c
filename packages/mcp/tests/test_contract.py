"""The adapter contract (tests/_shared/adapter_contract.py) on FastMCP's real server and its
in-memory ``Client``: ToolErrorServerMiddleware serving the runs.

A server has no model loop: each run builds a FastMCP server with the tool ``get_weather``
(and the middleware), and the scripted model's steps are tool calls a client's agent makes
through ``fastmcp.Client`` in memory. What the model sees is the conversation that agent
builds from the results it receives (an ``isError`` result as its text), which is also the
client's history: a server changes its own result only (form C1), for good.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest

pytest.importorskip("fastmcp")

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests" / "_shared"))

import toolerr._layer
from adapter_contract import (
    ASK,
    BLOCKED_PREFIX,
    CASES,
    CREDENTIALS,
    NOTE_PREFIX,
    RESEND_BLOCKED,
    TOOL,
    AdapterContract,
    Entry,
    Step,
    Transcript,
    answer,
    http_error,
    note,
)
from fastmcp import Client, FastMCP
from shared_support import TRANSIENT, UNRECOVERABLE
from toolerr import DetectionRecord
from toolerr_mcp import ToolErrorServerMiddleware


def _text(result: Any) -> str:
    """The text a client's agent gives its model for a tool result (its text blocks)."""
    return "".join(str(getattr(block, "text", "")) for block in result.content)


def _warnings(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "toolerr" and r.levelno >= logging.WARNING]


def _wire(result: Any) -> Any:
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


# the sections of the contract and why a server cannot show them
_NO_USER_TURN = (
    "a server changes only its own tool result: forms C2/C3/C4/abstract need a user turn or a "
    "removed call at the model call, so the middleware refuses them (ValueError)"
)
_C3_DEFAULT = (
    "asserts the C3 note of the contract's default form; a server's default and only guidance form "
    "is C1 (checked in C1 below)"
)
_KEPT = (
    "the result a server sends is what the client keeps: the C1 guidance stays in the client's "
    "history and at every later model call, it is not for one model call"
)
_NO_MODEL_CALL = "a server sees no model call: no note in a later turn, no progress probe at the model call"
_NO_CONVERSATION = (
    "a server never sees the client's conversation: a note or guidance already in it is not read "
    "(nor recorded)"
)


def _ids(name: str, params: Sequence[str], reason: str) -> dict[str, str]:
    return {f"{name}[{p}]": reason for p in params}


class TestContract(AdapterContract):
    # FastMCP's text for a tool's exception (without mask_error_details)
    shown_error = staticmethod(lambda exception: f"Error calling tool {TOOL!r}: {exception}")

    def make_adapter(self, on_record: Callable[[DetectionRecord], None], **policy: Any) -> Any:
        return ToolErrorServerMiddleware(on_record=on_record, **policy)

    async def run(
        self,
        transcript: Transcript,
        adapter: Any,
        script: Sequence[Step],
        *,
        prior: Sequence[Entry] = (),
        ask: str = ASK,
    ) -> None:
        # a server per run, one client session on it: a middleware shared by runs keeps the
        # failed calls per server and FastMCP session scope (in memory on the 2026-07-28
        # protocol that scope is the server process)
        server = FastMCP("weather")
        if adapter is not None:
            server.add_middleware(adapter)

        @server.tool
        def get_weather(city: str) -> str:
            """The weather in a city."""
            return transcript.execute(city)

        conversation: list[Entry] = [*prior, ("user", ask)]
        results: list[Any] = []
        raw: list[Any] = []
        try:
            async with Client(server) as client:
                for step in script:
                    transcript.seen.append(list(conversation))  # one model call
                    raw.append(list(results))
                    if isinstance(step, str):
                        conversation.append(("assistant", step))
                        break
                    for city in step:
                        conversation.append(("call", TOOL, {"city": city}))
                    for city in step:
                        result = await client.call_tool_mcp(TOOL, {"city": city})
                        results.append(_wire(result))
                        conversation.append(("tool", _text(result)))
        finally:
            transcript.raw = raw
        transcript.history = conversation

    known_failures: ClassVar[Mapping[str, str]] = {
        # forms a tool result cannot carry (the middleware refuses them)
        **_ids("test_each_form_is_byte_exact", ["c2", "c3", "c4", "abstract"], _NO_USER_TURN),
        **_ids("test_the_frameworks_history_is_untouched", ["c2", "c3", "c4", "abstract"], _NO_USER_TURN),
        **_ids("test_the_next_model_call_sees_the_failure_as_the_framework_keeps_it", ["c3"], _NO_USER_TURN),
        "test_a_form_per_kind": _NO_USER_TURN,
        **_ids(
            "test_the_record_says_whether_the_form_changed_the_view",
            ["c2", "c3", "c4", "abstract"],
            _NO_USER_TURN,
        ),
        **_ids("test_failures_of_two_kinds_in_one_step", ["c3", "c4", "mixed"], _NO_USER_TURN),
        **_ids("test_parallel_calls_stay_paired_when_one_fails", ["c3", "c4", "abstract"], _NO_USER_TURN),
        **_ids("test_a_credential_in_the_error_is_never_restated", ["c3", "abstract"], _NO_USER_TURN),
        **_ids(
            "test_the_four_credentials_are_never_restated_and_the_history_keeps_them",
            [f"c3-{which}" for which in CREDENTIALS],
            _NO_USER_TURN,
        ),
        **_ids(
            "test_error_detail_safe_shows_type_status_and_guidance_only", ["c3", "abstract"], _NO_USER_TURN
        ),
        **_ids("test_error_detail_safe_reads_the_status_a_message_states", ["c3"], _NO_USER_TURN),
        **_ids("test_a_429_with_retry_after_7_gets_the_sentence_with_7_seconds", ["c3"], _NO_USER_TURN),
        **_ids("test_error_detail_none_shows_the_guidance_only", ["c3", "c4"], _NO_USER_TURN),
        # the contract's default form C3 written out (the same behaviour in C1: test_server_*)
        **_ids("test_each_kind_gets_its_guidance", ["transient", "fixable", "unrecoverable"], _C3_DEFAULT),
        "test_an_on_record_callback_that_raises_is_logged_and_ignored": _C3_DEFAULT,
        "test_records_reach_the_callback_and_the_log": _C3_DEFAULT + "; MCP calls carry no call id",
        "test_an_identical_resend_after_an_unknown_outcome_is_not_executed": (
            "in C1 the guard's byte-exact answer is followed by its kind's guidance line"
        ),
        "test_auto_retry_honours_retry_after_up_to_max_wait": _C3_DEFAULT,
        "test_auto_retry_leaves_a_read_timeout_of_an_undeclared_tool_to_the_model": _C3_DEFAULT,
        "test_the_record_counts_the_hidden_retries": _C3_DEFAULT,
        # what the server sends is the client's history, for every later model call
        **_ids("test_the_frameworks_history_is_untouched", ["c1"], _KEPT),
        **_ids("test_the_next_model_call_sees_the_failure_as_the_framework_keeps_it", ["c1"], _KEPT),
        **_ids(
            "test_the_four_credentials_are_never_restated_and_the_history_keeps_them",
            [f"c1-{which}" for which in CREDENTIALS],
            _KEPT + " (test_server_the_four_credentials_are_never_restated)",
        ),
        **_ids("test_a_transient_failure_past_the_retry_budget_is_unrecoverable", ["1", "3"], _KEPT),
        "test_block_does_not_execute_an_identical_repeat": _KEPT + "; the loop note is in the blocked result",
        "test_a_long_failure_is_shown_as_its_excerpt": (
            "an excerpt for the model with the whole result in the history: a server's result is both, "
            "so it sends the whole result"
        ),
        # a note in a later user turn, a probe at the model call
        "test_a_repeated_failure_gets_a_loop_note": _NO_MODEL_CALL
        + " (the loop note is in the repeat's result)",
        "test_three_identical_successful_results_get_a_note": _NO_MODEL_CALL,
        "test_progress_unchanged_over_three_steps_stops_the_run": _NO_MODEL_CALL,
        "test_progress_stall_gets_a_note_without_the_calls": _NO_MODEL_CALL,
        "test_progress_stall_blocks_the_next_call": _NO_MODEL_CALL,
        "test_stop_ends_the_run_with_a_tool_loop_error": (
            "a ToolLoopError raised in the server ends its request, not the client's run: the client "
            "gets a protocol error ('Internal server error')"
        ),
        "test_fail_open_when_the_rewrite_raises": (
            "a server has no conversation to rewrite (ToolErrorLayer.rewrite is never called); fail-open "
            "on its delivery path is test_server_fail_open_when_the_delivery_raises"
        ),
        # the client's conversation
        "test_a_conversation_that_holds_the_note_is_not_noted_twice": _NO_CONVERSATION,
        "test_a_result_that_holds_the_guidance_is_not_given_it_twice": _NO_CONVERSATION,
    }

    # -- the same behaviours in C1, the form a server delivers ----------------------------

    def c1_failed(self, kind: str) -> list[Entry]:
        """The decision step of ``[[city], "done"]`` in C1, written out."""
        city, exception, _, guidance = CASES[kind]
        error = self.shown_error(exception)
        shown = error if guidance is None else f"{error}\n{guidance}"
        return [("user", ASK), ("call", TOOL, {"city": city}), ("tool", shown)]

    @pytest.mark.parametrize("kind", list(CASES))
    def test_server_each_kind_gets_its_c1_guidance(self, kind: str) -> None:
        """The default (C1): the failed result, then its kind's guidance on the next line, as
        the core renders it; kept in the client's history; an ambiguous failure gets none."""
        t, records = self.one_failure(kind)
        guidance = CASES[kind][3]
        assert t.seen[1] == self.c1_failed(kind) == self.expected(kind, "c1")
        assert t.history == [*self.c1_failed(kind), ("assistant", "done")]
        assert [(r.tool, r.kind, r.form, r.changed) for r in records] == [
            (TOOL, kind, "c1", guidance is not None)
        ]

    def test_server_records_reach_the_callback_and_the_log(self, caplog: pytest.LogCaptureFixture) -> None:
        caplog.set_level(logging.INFO, logger="toolerr")
        t, records = self.one_failure("unrecoverable")
        (record,) = records
        assert (record.tool, record.kind, record.form, record.changed, record.detection) == (
            TOOL,
            "unrecoverable",
            "c1",
            True,
            "exception",
        )
        city, exception, _, guidance = CASES["unrecoverable"]
        assert guidance is not None and t.seen[1][-1][1].endswith(f"\n{guidance}")
        # the C3 note, for clients that place it (also under _meta["toolerr"])
        assert record.note == note(f'city="{city}"', self.shown_error(exception), guidance)
        assert record.call_id.startswith("toolerr-fastmcp-")
        logged = [r.getMessage() for r in caplog.records if r.name == "toolerr" and r.levelno == logging.INFO]
        assert any(f"{TOOL} failed (unrecoverable" in message for message in logged), logged

    def test_server_an_on_record_callback_that_raises_is_logged_and_ignored(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        def raising(record: DetectionRecord) -> None:
            raise RuntimeError("the user's callback is broken")

        caplog.set_level(logging.WARNING, logger="toolerr")
        city, exception, _, _ = CASES["unrecoverable"]
        t = self.drive([[city], "done"], {city: exception}, adapter=self.make_adapter(raising))
        assert t.error is None, t.error
        assert t.seen[1] == self.c1_failed("unrecoverable")
        assert _warnings(caplog)

    def test_server_fail_open_when_the_delivery_raises(
        self, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
    ) -> None:
        """An internal error while delivering the failed result: the run goes on, the
        client gets the result FastMCP sends without toolerr, a WARNING on logger ``toolerr``."""

        def broken(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("delivery is broken")

        monkeypatch.setattr(toolerr._layer, "deliver_one", broken)
        caplog.set_level(logging.WARNING, logger="toolerr")
        city, exception, _, _ = CASES["unrecoverable"]
        t = self.drive([[city], "done"], {city: exception})
        without = self.drive([[city], "done"], {city: exception}, adapter=None)
        assert t.error is None, t.error
        assert t.executed == [city]
        assert t.seen[1] == self.unchanged("unrecoverable")
        assert t.history == [*self.unchanged("unrecoverable"), ("assistant", "done")]
        assert t.raw == without.raw
        assert _warnings(caplog)

    def test_server_block_does_not_execute_an_identical_repeat(self) -> None:
        """loop_action="block": the repeat is answered without running the tool; the result
        says so, with the loop note and the guidance, without the verbatim call."""
        city, exception, _, _ = CASES["unrecoverable"]
        t = self.drive([[city], [city], "done"], {city: exception}, loop_action="block")
        assert t.error is None, t.error
        assert t.executed == [city]
        decision = t.seen[2]
        assert decision[:4] == [*self.c1_failed("unrecoverable"), ("call", TOOL, {"city": city})]
        (blocked,) = decision[4:]
        assert blocked[0] == "tool" and blocked[1].startswith(BLOCKED_PREFIX)
        assert blocked[1].endswith(f"\n{UNRECOVERABLE}") and NOTE_PREFIX in blocked[1]
        assert f'"{city}"' not in blocked[1]

    def test_server_a_repeated_failure_gets_a_loop_note_in_its_result(self) -> None:
        city, exception, _, _ = CASES["unrecoverable"]
        records: list[DetectionRecord] = []
        t = self.drive([[city], [city], "done"], {city: exception}, records=records)
        assert t.error is None, t.error
        assert t.executed == [city, city]
        last = t.seen[2][-1]
        assert last[0] == "tool" and last[1].startswith(f"{self.shown_error(exception)}\n")
        assert f"{NOTE_PREFIX}{TOOL} was already called with these arguments and failed" in last[1]
        assert f'"{city}"' not in last[1]
        assert (records[-1].repeat, records[-1].loop) == ("exact", "repeat")
        assert records[-1].note is not None and records[-1].note in last[1]

    @pytest.mark.parametrize("budget", [1, 3])
    def test_server_a_transient_failure_past_the_retry_budget_is_unrecoverable(self, budget: int) -> None:
        city, exception, _, _ = CASES["transient"]
        records: list[DetectionRecord] = []
        t = self.drive([[city], [city], "done"], {city: exception}, records=records, retry_budget=budget)
        assert t.error is None, t.error
        assert t.executed == [city, city]
        expected = self.expected("transient", "c1", steps=[[city], [city]], retry_budget=budget)
        assert t.seen[2][-1] == expected[-1]
        assert t.seen[2][-1][1].endswith(f"\n{UNRECOVERABLE if budget == 1 else TRANSIENT}")
        assert records[-1].kind == ("unrecoverable" if budget == 1 else "transient")

    def test_server_an_identical_resend_after_an_unknown_outcome_is_not_executed(self) -> None:
        city = "Paris"
        for action in ("note", "block"):
            t = self.drive([[city], [city], "done"], {city: TimeoutError("timed out")}, loop_action=action)
            assert t.error is None, t.error
            assert t.executed == [city]
            assert t.seen[2][-1][0] == "tool" and t.seen[2][-1][1].startswith(f"{RESEND_BLOCKED}\n")

    def test_server_auto_retry_honours_retry_after_up_to_max_wait(self, waits: list[float]) -> None:
        city = "Paris"
        t = self.drive([[city], "done"], {city: [http_error(429, "Too Many Requests", "2")]}, auto_retry=1)
        assert (t.error, t.executed, waits) == (None, [city, city], [2.0])
        assert t.seen[1][-1] == ("tool", answer(city))
        error = http_error(429, "Too Many Requests", "60")  # longer than max_wait: the model sees it
        t = self.drive([[city], "done"], {city: [error]}, auto_retry=1, max_wait=30)
        assert (t.error, t.executed, waits) == (None, [city], [2.0])
        assert t.seen[1][-1][1].startswith(f"{self.shown_error(error)}\n")

    def test_server_auto_retry_leaves_a_read_timeout_of_an_undeclared_tool_to_the_model(
        self, waits: list[float]
    ) -> None:
        city, error = "Paris", TimeoutError("timed out")
        t = self.drive([[city], "done"], {city: [error]}, auto_retry=2)
        assert t.error is None, t.error
        assert (t.executed, waits) == ([city], [])
        assert t.seen[1][-1][1].startswith(f"{self.shown_error(error)}\n")

    def test_server_the_record_counts_the_hidden_retries(self, waits: list[float]) -> None:
        city = "Paris"
        errors = [http_error(503, "Service Unavailable") for _ in range(3)]
        records: list[DetectionRecord] = []
        t = self.drive([[city], "done"], {city: list(errors)}, records=records, auto_retry=2)
        assert t.error is None, t.error
        assert t.executed == [city] * 3
        assert t.seen[1][-1][1].startswith(f"{self.shown_error(errors[-1])}\n")
        [record] = records
        assert (record.kind, record.hidden_retries, record.to_dict()["hidden_retries"]) == ("transient", 2, 2)

    @pytest.mark.parametrize("which", list(CREDENTIALS))
    def test_server_the_four_credentials_are_never_restated(
        self, which: str, caplog: pytest.LogCaptureFixture
    ) -> None:
        """The tool's error holds one of issue 27's four credentials: the client gets
        FastMCP's own text (the framework's own, kept in its history) and the guidance; the
        record, ``_meta`` and toolerr's log never restate it."""
        caplog.set_level(logging.DEBUG, logger="toolerr")
        make, secret = CREDENTIALS[which]
        exception = make()
        records: list[DetectionRecord] = []
        t = self.drive([["Paris"], "done"], {"Paris": exception}, records=records)
        assert t.error is None, t.error
        [record] = records
        guidance = {"transient": TRANSIENT, "unrecoverable": UNRECOVERABLE}[record.kind]
        assert t.seen[1][-1] == ("tool", f"{self.shown_error(exception)}\n{guidance}")
        assert secret in t.seen[1][-1][1] and t.history[-2] == t.seen[1][-1]
        assert t.raw is not None
        [sent] = t.raw[-1]
        assert secret not in json.dumps(sent["_meta"]) and "[redacted]" in json.dumps(sent["_meta"])
        if which == "url password":
            assert "app:[redacted]@db" in json.dumps(sent["_meta"])
        assert secret not in repr(record.to_dict())
        toolerr_logs = [r for r in caplog.records if r.name == "toolerr"]
        assert all(secret not in r.getMessage() and secret not in (r.exc_text or "") for r in toolerr_logs)

    def test_server_error_detail_none_shows_the_guidance_only(self) -> None:
        city = "Oslo"
        exception = PermissionError(13, "Permission denied: /srv/zebra-quartz/vault-7731")
        t = self.drive([[city], "done"], {city: exception}, error_detail="none")
        assert t.error is None, t.error
        assert t.seen[1] == [
            ("user", ASK),
            ("call", TOOL, {"city": city}),
            ("tool", f"Error: details withheld\n{UNRECOVERABLE}"),
        ]
        assert t.seen[1] == self.rendered([[city]], {city: exception}, form="c1", error_detail="none")
        assert t.raw is not None
        sent = json.dumps(t.raw[-1])  # _meta holds the classification (its rule names the type)
        assert "PermissionError" not in repr(t.seen[1])
        assert not any(word in repr(t.seen[1]) + sent for word in ("zebra-quartz", "vault-7731"))

    def test_server_failures_of_two_kinds_in_one_step(self) -> None:
        failures = {c: CASES[k][1] for k in ("unrecoverable", "fixable") for c in [CASES[k][0]]}
        step = ["Paris", *failures]
        records: list[DetectionRecord] = []
        t = self.drive([step, "done"], failures, records=records)
        assert t.error is None, t.error
        assert t.seen[1] == self.rendered([step], failures, form="c1")
        assert sorted(r.kind for r in records) == ["fixable", "unrecoverable"]
