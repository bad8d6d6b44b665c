"""The adapter contract: the behaviours every framework adapter must show (issue 25, item 5).

Each adapter's ``tests/test_contract.py`` subclasses :class:`AdapterContract` and writes
two things: :meth:`~AdapterContract.make_adapter` (its hook object built from a policy) and
:meth:`~AdapterContract.run` (one run of the framework's REAL loop with a scripted model,
the one tool ``get_weather(city)`` and, optionally, a conversation the run starts from).
The run fills a :class:`Transcript` with neutral text: what the model saw at each model
call, the framework's own history after the run, the tools executed. Everything here is
public behaviour (DELIVERY.md sections 4, 5 and 7), so the suite holds for an adapter
however its ``src/`` is written.

The neutral text of a conversation is a list of entries:

- ``("user", text)``: a user turn (a framework that splits one user turn into several text
  parts joins them with no separator);
- ``("assistant", text)``: the model's text;
- ``("call", name, arguments)``: a tool call (arguments as a dict; call ids left out);
- ``("tool", text)``: a tool result as the model reads it (the text of an error result;
  a framework that wraps results in a JSON object gives the text inside).

System prompts are left out (no run here has one). A driver may also give ``raw``: what
the model was sent in the framework's own terms, compared as a whole where no failure is
involved. A behaviour an adapter does not show today is listed in its class's
``known_failures`` (marked ``xfail(strict=True)``, with the reason).

The expected conversations are written out from DELIVERY.md (the runtime note, byte-exact,
with the guidance sentences of ``shared_support``) and, for every form, also taken from the
core's own rendering: ``ToolErrorLayer(form=...).rewrite`` of the same conversation as
``toolerr.Message``\\ s, so an adapter shows exactly what the core makes of its failure.
"""

from __future__ import annotations

import asyncio
import email.message
import functools
import json
import logging
import subprocess
import sys
import tempfile
import threading
import urllib.error
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pytest
import toolerr
from shared_support import CASES, FIXABLE, TRANSIENT, UNRECOVERABLE
from toolerr import DetectionRecord, Message, ToolCall, ToolErrorLayer, ToolLoopError
from toolerr._progress import SAME_RESULT_NOTE
from toolerr._progress import STALL_NOTE as _STALL
from toolerr.adapters import clean_text

STALL_NOTE = _STALL.format(steps=3)

Entry = tuple[Any, ...]
Step = Sequence[str] | str
"""One scripted model turn: the cities of its ``get_weather`` calls, or a final text."""

TOOL = "get_weather"
ASK = "What is the weather?"
NOTE_PREFIX = "Note from the tool runtime: "
BLOCKED_PREFIX = "Error: this call was not executed."
RESEND_BLOCKED = (
    "Error: this call was not executed. The same call failed just before with an unknown outcome "
    "and may already have taken effect; check whether it did before sending it again."
)
"""The idempotency guard's answer (DELIVERY.md section 5), byte-exact."""
RETRY_AFTER_7 = "This is a temporary failure. Retrying the same call after 7 seconds is expected to succeed."
"""The guidance of a transient failure that carries a 7-second wait (issue 27, item 3)."""


def http_error(status: int, reason: str, retry_after: str | None = None) -> urllib.error.HTTPError:
    """The real error urllib raises for an HTTP status from a server on 127.0.0.1 (a 503 or
    a 429: the request was turned away, not executed)."""
    headers = email.message.Message()
    if retry_after is not None:
        headers["Retry-After"] = retry_after
    return urllib.error.HTTPError("http://127.0.0.1:8080/weather", status, reason, headers, None)


FORMS = ("c0", "c1", "c2", "c3", "c4", "abstract")


class AuthenticationError(Exception):
    """Named as the OpenAI SDK's 401 (``openai.AuthenticationError``), whose ``str`` is
    ``Error code: 401 - `` and the body, which echoes the key it was sent."""


class ClientError(Exception):
    """Named as botocore's ``ClientError``."""


CREDENTIALS: dict[str, tuple[Callable[[], BaseException], str]] = {
    "url password": (
        lambda: ConnectionRefusedError(111, "Connection refused: postgresql://app:Tr0ub4dor-3@db:5432/x"),
        "Tr0ub4dor-3",
    ),
    "openai key": (
        lambda: AuthenticationError(
            "Error code: 401 - {'error': {'message': 'Incorrect API key provided: "
            "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z. You can find your API key at "
            "https://platform.openai.com/account/api-keys.', 'type': 'invalid_request_error', "
            "'param': None, 'code': 'invalid_api_key'}}"
        ),
        "Ab3dEf6hIj9k",
    ),
    "aws key id": (
        lambda: ClientError(
            "An error occurred (InvalidAccessKeyId) when calling the GetObject operation: The AWS "
            "Access Key Id you provided does not exist in our records. (AKIAIOSFODNN7EXAMPLE)"
        ),
        "AKIAIOSFODNN7EXAMPLE",
    ),
    "bearer token": (
        lambda: RuntimeError(
            "401 Unauthorized for url http://127.0.0.1:8080/weather; request headers: "
            "{'Authorization': 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZ2VudCJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ', "
            "'Accept': '*/*'}"
        ),
        "eyJhbGciOiJIUzI1NiJ9",
    ),
}
"""Issue 27's four credentials, each in an error a tool raises -> the secret (made anew per
run: an exception object carries its traceback)."""


def call_ids(script: Sequence[Step]) -> list[list[str]]:
    """The call ids of a script: ``call_0``, ``call_1`` ... in order over the whole run (as
    local models and scripted tests number them, so two runs' ids collide)."""
    ids: list[list[str]] = []
    n = 0
    for step in script:
        if isinstance(step, str):
            ids.append([])
            continue
        ids.append([f"call_{n + i}" for i in range(len(step))])
        n += len(step)
    return ids


@dataclass
class Transcript:
    """One run as the tests read it (filled by :meth:`AdapterContract.run`)."""

    failures: Mapping[str, BaseException]
    seen: list[list[Entry]] = field(default_factory=list)
    """What the model saw at each model call, in order."""
    history: list[Entry] = field(default_factory=list)
    """The framework's own conversation after the run (its state, session or result)."""
    executed: list[str] = field(default_factory=list)
    """The city of every execution of the tool, in order."""
    error: BaseException | None = None
    """What the run raised (set by the base class)."""
    raw: list[Any] | None = None
    """What the model was sent at each call in the framework's own terms, as plain data
    without what differs from run to run (generated ids, timestamps), where the driver
    gives it: a request with no failure must be byte for byte the same without toolerr."""

    def execute(self, city: str) -> str:
        """The body of the tool: record the execution, raise the planned exception."""
        self.executed.append(city)
        failure: Any = self.failures.get(city)
        if isinstance(failure, list):  # one exception per attempt, then successes
            failure = failure.pop(0) if failure else None
        if failure is not None:
            raise failure
        return answer(city)


def answer(city: str) -> str:
    """What the tool returns for a city that does not fail."""
    return f"{city}: 12 C, cloudy"


def note(arguments: str, error: str, guidance: str) -> str:
    """The runtime note of DELIVERY.md section 4, written out."""
    return (
        f"{NOTE_PREFIX}the last attempt called {TOOL} with {arguments} and it failed with: {error}"
        f"\n\n{guidance}"
    )


def holds_note(entries: Sequence[Entry]) -> bool:
    return any(NOTE_PREFIX in str(part) for entry in entries for part in entry)


def to_messages(entries: Sequence[Entry], exceptions: Sequence[BaseException | None] = ()) -> list[Message]:
    """Neutral entries -> ``toolerr.Message``\\ s (calls numbered ``call_0`` ... and paired
    with the results that follow in order; the n-th result carries ``exceptions[n]``)."""
    messages: list[Message] = []
    calls: list[ToolCall] = []
    ids: list[str] = []
    results = 0
    for entry in entries:
        if entry[0] == "call":
            calls.append(ToolCall(id=f"call_{len(ids)}", name=entry[1], arguments=entry[2]))
            ids.append(f"call_{len(ids)}")
            continue
        if calls:
            messages.append(Message("assistant", "", tool_calls=tuple(calls)))
            calls = []
        if entry[0] == "tool":
            exception = exceptions[results] if results < len(exceptions) else None
            messages.append(
                Message("tool", entry[1], tool_call_id=ids[results], name=TOOL, exception=exception)
            )
            results += 1
        else:
            messages.append(Message(entry[0], entry[1]))
    if calls:
        messages.append(Message("assistant", "", tool_calls=tuple(calls)))
    return messages


def to_entries(messages: Sequence[Message]) -> list[Entry]:
    """``toolerr.Message``\\ s -> neutral entries."""
    entries: list[Entry] = []
    for message in messages:
        if message.role == "assistant":
            if message.text:
                entries.append(("assistant", message.text))
            entries.extend(("call", call.name, call.arguments) for call in message.tool_calls)
        elif message.role == "tool":
            entries.append(("tool", message.text))
        else:
            entries.append((message.role, message.text))
    return entries


def loop_error(error: BaseException | None) -> ToolLoopError | None:
    """The ToolLoopError a run ended with, itself or in the chain of the framework's wrapper."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, ToolLoopError):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


class AdapterContract:
    """The contract every adapter's tests subclass (``class TestContract(AdapterContract)``).

    A subclass writes :meth:`make_adapter` and :meth:`run`, and sets :attr:`shown_error` when
    its framework shows a raised exception otherwise than ``Type: message``.
    """

    shown_error: ClassVar[Callable[[BaseException], str]] = staticmethod(
        lambda exception: f"{type(exception).__name__}: {exception}"
    )
    """The text the model reads for an exception the tool raised."""

    writes_failed_results: ClassVar[bool] = False
    """Whether toolerr writes the failed result of a raised exception (the framework hands
    the exception to the adapter, which writes the result it keeps): that text is
    toolerr's, so it is masked like everything toolerr writes (DELIVERY.md section 7),
    and the framework's history keeps it masked."""

    known_failures: ClassVar[Mapping[str, str]] = {}
    """Test ids (``test_name[param]``) this adapter fails today -> why: marked
    ``xfail(strict=True)``, so that the mark goes once the adapter is mended."""

    @pytest.fixture(autouse=True)
    def _known_failure(self, request: pytest.FixtureRequest) -> None:
        reason = self.known_failures.get(request.node.name)
        if reason is not None:
            request.applymarker(pytest.mark.xfail(strict=True, reason=reason))

    # -- what a subclass writes ----------------------------------------------------------

    def make_adapter(self, on_record: Callable[[DetectionRecord], None], **policy: Any) -> Any:
        """The adapter's hook object for this policy (one object may serve many runs)."""
        raise NotImplementedError

    async def run(
        self,
        transcript: Transcript,
        adapter: Any,
        script: Sequence[Step],
        *,
        prior: Sequence[Entry] = (),
        ask: str = ASK,
    ) -> None:
        """Drive one run of the framework's real loop and fill ``transcript``.

        ``adapter`` is what :meth:`make_adapter` built, or ``None`` for a run without
        toolerr. The scripted model answers ``script`` in order, numbering its calls as
        :func:`call_ids` does; the tool ``get_weather(city: str)`` returns
        ``transcript.execute(city)``. The run starts from the conversation ``prior`` (a call
        there is paired with the result after it) and the user message ``ask``. Fill
        ``transcript.seen`` even when the run raises (``try``/``finally``) and
        ``transcript.history`` when it completes."""
        raise NotImplementedError

    # -- the driver ----------------------------------------------------------------------

    def drive(
        self,
        script: Sequence[Step],
        failures: Mapping[str, BaseException] | None = None,
        *,
        adapter: Any = ...,
        records: list[DetectionRecord] | None = None,
        prior: Sequence[Entry] = (),
        ask: str = ASK,
        **policy: Any,
    ) -> Transcript:
        """One run in a fresh event loop; ``adapter=None`` runs without toolerr, ``...`` (the
        default) builds one from ``policy`` whose records go to ``records``."""
        if adapter is ...:
            adapter = self.make_adapter((records if records is not None else []).append, **policy)
        transcript = Transcript(dict(failures or {}))
        asyncio.run(self._run(transcript, adapter, script, prior=prior, ask=ask))
        return transcript

    async def _run(
        self, transcript: Transcript, adapter: Any, script: Sequence[Step], **kw: Any
    ) -> Transcript:
        try:
            await self.run(transcript, adapter, script, **kw)
        except Exception as error:
            transcript.error = error
        return transcript

    def expected(
        self,
        kind: str,
        form: Any = "c3",
        *,
        steps: Sequence[Step] | None = None,
        **policy: Any,
    ) -> list[Entry]:
        """The decision step of ``[[city], "done"]`` (or of ``steps``) for a failure of
        ``kind`` (its city of ``CASES``) under ``form`` and ``policy``, as the core renders it."""
        city, exception, _, _ = CASES[kind]
        return self.rendered(steps if steps is not None else [[city]], {city: exception}, form=form, **policy)

    def rendered(
        self, steps: Sequence[Step], failures: Mapping[str, BaseException], **policy: Any
    ) -> list[Entry]:
        """The model's view after the tool steps ``steps`` (the cities in ``failures``
        failing with their exception), as the core renders it under ``policy``."""
        entries: list[Entry] = [("user", ASK)]
        exceptions: list[BaseException | None] = []
        for step in steps:
            assert not isinstance(step, str)
            entries.extend(("call", TOOL, {"city": c}) for c in step)
            for c in step:
                failure = failures.get(c)
                entries.append(("tool", self.shown_error(failure) if failure is not None else answer(c)))
                exceptions.append(failure)
        layer = ToolErrorLayer(**policy)
        return to_entries(layer.rewrite(to_messages(entries, exceptions)).messages)

    def unchanged(self, kind: str) -> list[Entry]:
        """The decision step of ``[[city], "done"]`` as the framework shows it (form C0)."""
        city, exception, _, _ = CASES[kind]
        return [("user", ASK), ("call", TOOL, {"city": city}), ("tool", self.shown_error(exception))]

    def one_failure(self, kind: str, **policy: Any) -> tuple[Transcript, list[DetectionRecord]]:
        city, exception, _, _ = CASES[kind]
        records: list[DetectionRecord] = []
        transcript = self.drive([[city], "done"], {city: exception}, records=records, **policy)
        assert transcript.error is None, transcript.error
        return transcript, records

    # -- 1. each form, byte-exact ----------------------------------------------------------

    @pytest.mark.parametrize("form", FORMS)
    def test_each_form_is_byte_exact(self, form: str) -> None:
        """The decision step of an unrecoverable failure, for each form: as written out in
        DELIVERY.md section 4 and as the core renders the same conversation."""
        t, _ = self.one_failure("unrecoverable", form=form)
        city, exception, _, guidance = CASES["unrecoverable"]
        assert guidance is not None
        error = self.shown_error(exception)
        call, result = ("call", TOOL, {"city": city}), ("tool", error)
        runtime_note = note(f'city="{city}"', error, guidance)
        written = {
            "c0": [("user", ASK), call, result],
            "c1": [("user", ASK), call, ("tool", f"{error}\n{guidance}")],
            "c2": [("user", f"{ASK}\n\n{runtime_note}")],
            "c3": [("user", ASK), call, result, ("user", runtime_note)],
            "c4": [("user", ASK), ("user", runtime_note)],
        }
        assert t.seen[0] == [("user", ASK)]
        assert t.seen[1] == self.expected("unrecoverable", form)
        if form in written:
            assert t.seen[1] == written[form]
        else:  # the abstract form: a runtime description that withholds the argument string
            assert t.seen[1][:1] == [("user", ASK)]
            (last,) = t.seen[1][1:]
            assert last[0] == "user"
            assert last[1].startswith(NOTE_PREFIX) and last[1].endswith(f"\n\n{guidance}")
            assert city not in last[1]

    # -- 2. each kind, its guidance --------------------------------------------------------

    @pytest.mark.parametrize("kind", list(CASES))
    def test_each_kind_gets_its_guidance(self, kind: str) -> None:
        """C3 (the default): the note with the kind's guidance sentence; an ambiguous
        failure gets none and is still recorded."""
        t, records = self.one_failure(kind)
        city, exception, _, guidance = CASES[kind]
        error = self.shown_error(exception)
        if guidance is None:
            assert t.seen[1] == self.unchanged(kind)
        else:
            assert t.seen[1] == [*self.unchanged(kind), ("user", note(f'city="{city}"', error, guidance))]
        assert t.seen[1] == self.expected(kind, "c3")
        assert [(r.tool, r.kind, r.changed) for r in records] == [(TOOL, kind, guidance is not None)]

    # -- 3. the framework's history untouched ----------------------------------------------

    @pytest.mark.parametrize("form", ["c1", "c2", "c3", "c4", "abstract"])
    def test_the_frameworks_history_is_untouched(self, form: str) -> None:
        """The note is for one model call: the framework's own conversation keeps the
        failure as the tool answered it, with no note and no guidance."""
        t, _ = self.one_failure("fixable", form=form)
        assert t.history == [*self.unchanged("fixable"), ("assistant", "done")]
        assert not holds_note(t.history)
        assert all(FIXABLE not in str(part) for entry in t.history for part in entry)

    @pytest.mark.parametrize("form", ["c1", "c3"])
    def test_the_next_model_call_sees_the_failure_as_the_framework_keeps_it(self, form: str) -> None:
        """A rewrite acts on one model call: once the model has called again, the failure
        is shown in its original form (no note, no guidance)."""
        city, exception, _, _ = CASES["fixable"]
        t = self.drive([[city], ["Paris"], "done"], {city: exception}, form=form)
        assert t.error is None, t.error
        assert t.seen[1] == self.expected("fixable", form)
        assert t.seen[2] == [
            *self.unchanged("fixable"),
            ("call", TOOL, {"city": "Paris"}),
            ("tool", answer("Paris")),
        ]

    def test_a_form_per_kind(self) -> None:
        """A form chosen per kind: each failure in its kind's form, as the core renders it
        under the same policy."""
        policy = {"form": {"unrecoverable": "c4", "default": "c1"}}
        for kind in ("unrecoverable", "fixable"):
            t, records = self.one_failure(kind, **policy)
            assert t.seen[1] == self.expected(kind, **policy)
            assert t.seen[1] != self.expected(kind)
            assert len(records) == 1

    # -- 4. a success passes unchanged -----------------------------------------------------

    def test_a_success_passes_unchanged(self) -> None:
        """A run with no failure: every model call, and the history, exactly what the same
        run shows without toolerr; no record."""
        script: list[Step] = [["Paris"], ["Oslo", "Lima"], "done"]
        records: list[DetectionRecord] = []
        with_toolerr = self.drive(script, records=records)
        without = self.drive(script, adapter=None)
        assert with_toolerr.error is None and without.error is None
        assert len(with_toolerr.seen) == 3
        assert with_toolerr.seen == without.seen
        assert with_toolerr.raw == without.raw
        assert with_toolerr.history == without.history
        assert with_toolerr.executed == without.executed == ["Paris", "Oslo", "Lima"]
        assert records == []

    # -- 5. runs isolated ------------------------------------------------------------------

    @pytest.mark.parametrize("how", ["tasks", "threads"])
    def test_concurrent_runs_with_colliding_call_ids_are_isolated(self, how: str) -> None:
        """One adapter object, two runs at once whose calls are both ``call_0``, ``call_1``:
        each run's model sees exactly what it sees alone."""
        fixable_city, fixable, _, _ = CASES["fixable"]
        oslo, permission, _, _ = CASES["unrecoverable"]
        plans: list[tuple[list[Step], dict[str, BaseException]]] = [
            ([[fixable_city], [fixable_city], "done"], {fixable_city: fixable}),
            ([[oslo], ["Paris"], "done"], {oslo: permission}),
            ([["Paris"], ["Paris"], "done"], {}),
        ]
        alone = [self.drive(script, failures, loop_action="block") for script, failures in plans]
        shared = self.make_adapter(lambda record: None, loop_action="block")
        transcripts = [Transcript(dict(failures)) for _, failures in plans]

        if how == "tasks":

            async def together() -> None:
                await asyncio.gather(
                    *(self._run(t, shared, script) for t, (script, _) in zip(transcripts, plans, strict=True))
                )

            asyncio.run(together())
        else:
            barrier = threading.Barrier(len(plans))

            def one(t: Transcript, script: list[Step]) -> None:
                barrier.wait()
                asyncio.run(self._run(t, shared, script))

            threads = [
                threading.Thread(target=one, args=(t, script))
                for t, (script, _) in zip(transcripts, plans, strict=True)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(60)
        for t, solo in zip(transcripts, alone, strict=True):
            assert t.error is None and solo.error is None, (t.error, solo.error)
            assert t.seen == solo.seen
            assert t.executed == solo.executed
        assert FIXABLE in str(transcripts[0].seen[1][-1]) and UNRECOVERABLE in str(transcripts[1].seen[1][-1])
        assert not any(holds_note(seen) for seen in transcripts[2].seen)

    def test_a_failed_call_of_one_run_is_not_blocked_in_the_next(self) -> None:
        """The ledger belongs to one run: a call that failed in run A, repeated in run B
        of the same adapter object (same call id), runs in B."""
        city, exception, _, _ = CASES["unrecoverable"]
        shared = self.make_adapter(lambda record: None, loop_action="block")
        first = self.drive([[city], "done"], {city: exception}, adapter=shared)
        second = self.drive([[city], [city], "done"], adapter=shared)
        assert (first.error, second.error) == (None, None)
        assert first.executed == [city]
        assert second.executed == [city, city]
        assert not any(holds_note(seen) for seen in second.seen)

    # -- 6. fail open ----------------------------------------------------------------------

    def test_fail_open_when_the_rewrite_raises(
        self, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
    ) -> None:
        """An internal error while rewriting: the run goes on, the model sees the
        conversation as the framework sent it, a WARNING on logger ``toolerr``."""

        def broken(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("rewrite is broken")

        monkeypatch.setattr(ToolErrorLayer, "rewrite", broken)
        toolerr._failopen.forget_causes()
        caplog.set_level(logging.WARNING, logger="toolerr")
        city, exception, _, _ = CASES["unrecoverable"]
        t = self.drive([[city], "done"], {city: exception})
        assert t.error is None, t.error
        assert t.executed == [city]
        assert t.seen[1] == self.unchanged("unrecoverable")
        assert t.history == [*self.unchanged("unrecoverable"), ("assistant", "done")]
        assert _warnings(caplog)

    def test_fail_open_when_classification_raises(
        self, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
    ) -> None:
        """An internal error while classifying a raised exception or a result: a WARNING
        on logger ``toolerr``, and the run either goes on (the model gets its next call)
        or ends as the same run without toolerr ends (the framework's own handling of a
        tool that raised)."""

        def broken(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("classification is broken")

        city, exception, _, _ = CASES["unrecoverable"]
        script: list[Step] = [[city], "done"]
        without = self.drive(script, {city: exception}, adapter=None)
        monkeypatch.setattr(ToolErrorLayer, "inspect_exception", broken)
        monkeypatch.setattr(ToolErrorLayer, "inspect", broken)
        toolerr._failopen.forget_causes()
        caplog.set_level(logging.WARNING, logger="toolerr")
        t = self.drive(script, {city: exception})
        assert t.executed == [city]
        assert t.seen[0] == [("user", ASK)]
        if t.error is None:
            assert len(t.seen) == 2
            assert t.seen[1][:2] == [("user", ASK), ("call", TOOL, {"city": city})]
        else:
            assert type(t.error) is type(without.error), (t.error, without.error)
            assert t.seen == without.seen
        assert _warnings(caplog)

    def test_an_on_record_callback_that_raises_is_logged_and_ignored(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        def raising(record: DetectionRecord) -> None:
            raise RuntimeError("the user's callback is broken")

        caplog.set_level(logging.WARNING, logger="toolerr")
        city, exception, _, _ = CASES["unrecoverable"]
        t = self.drive([[city], "done"], {city: exception}, adapter=self.make_adapter(raising))
        assert t.error is None, t.error
        assert t.seen[1] == self.expected("unrecoverable", "c3")
        assert _warnings(caplog)

    # -- 7. records and the log ------------------------------------------------------------

    def test_records_reach_the_callback_and_the_log(self, caplog: pytest.LogCaptureFixture) -> None:
        caplog.set_level(logging.INFO, logger="toolerr")
        t, records = self.one_failure("unrecoverable")
        (record,) = records
        assert (record.tool, record.call_id, record.kind, record.form, record.changed) == (
            TOOL,
            "call_0",
            "unrecoverable",
            "c3",
            True,
        )
        assert record.detection == "exception"
        assert record.note == t.seen[1][-1][1]
        logged = [r.getMessage() for r in caplog.records if r.name == "toolerr" and r.levelno == logging.INFO]
        assert any(f"{TOOL} failed (unrecoverable" in message for message in logged), logged

    @pytest.mark.parametrize("form", FORMS)
    def test_the_record_says_whether_the_form_changed_the_view(self, form: str) -> None:
        """``changed``: the form was applied (the model's view differs from the
        framework's); C0 changes nothing."""
        t, records = self.one_failure("unrecoverable", form=form)
        assert [(r.form, r.changed) for r in records] == [(form, form != "c0")]
        assert (t.seen[1] != self.unchanged("unrecoverable")) is (form != "c0")

    # -- 8. repeats and loops --------------------------------------------------------------

    def test_block_does_not_execute_an_identical_repeat(self) -> None:
        """loop_action="block": the repeat of a failed unrecoverable call is not executed;
        the model reads a result that says so and a loop note without the verbatim call."""
        city, exception, _, _ = CASES["unrecoverable"]
        t = self.drive([[city], [city], "done"], {city: exception}, loop_action="block")
        assert t.error is None, t.error
        assert t.executed == [city]
        decision = t.seen[2]
        assert decision[:4] == [*self.unchanged("unrecoverable"), ("call", TOOL, {"city": city})]
        (blocked,) = [entry for entry in decision[4:] if entry[0] == "tool"]
        assert blocked[1].startswith(BLOCKED_PREFIX)
        assert decision[-1][0] == "user" and decision[-1][1].startswith(NOTE_PREFIX)
        assert f'"{city}"' not in decision[-1][1]
        assert not holds_note(t.history)

    def test_block_lets_a_transient_failure_be_retried(self) -> None:
        city, exception, _, _ = CASES["transient"]
        t = self.drive([[city], [city], "done"], {city: exception}, loop_action="block")
        assert t.error is None, t.error
        assert t.executed == [city, city]

    def test_a_repeated_failure_gets_a_loop_note(self) -> None:
        """loop_action="note" (the default): the repeat runs, and the model is told it
        repeats a failed call, without the verbatim call."""
        city, exception, _, _ = CASES["unrecoverable"]
        records: list[DetectionRecord] = []
        t = self.drive([[city], [city], "done"], {city: exception}, records=records)
        assert t.error is None, t.error
        assert t.executed == [city, city]
        last = t.seen[2][-1]
        assert last[0] == "user"
        assert last[1].startswith(f"{NOTE_PREFIX}{TOOL} was already called with these arguments and failed")
        assert f'"{city}"' not in last[1]
        assert (records[-1].repeat, records[-1].loop, records[-1].note) == ("exact", "repeat", last[1])
        assert not holds_note(t.history)

    @pytest.mark.parametrize("budget", [1, 3])
    def test_a_transient_failure_past_the_retry_budget_is_unrecoverable(self, budget: int) -> None:
        """Exact retries of a transient failure are right up to ``retry_budget``; past it
        the failure counts as unrecoverable (the run's earlier failures are the ledger)."""
        city, exception, _, _ = CASES["transient"]
        records: list[DetectionRecord] = []
        t = self.drive([[city], [city], "done"], {city: exception}, records=records, retry_budget=budget)
        assert t.error is None, t.error
        assert t.executed == [city, city]
        assert t.seen[2] == self.expected("transient", steps=[[city], [city]], retry_budget=budget)
        assert t.seen[2][-1][1].endswith(UNRECOVERABLE if budget == 1 else TRANSIENT)
        assert records[-1].kind == ("unrecoverable" if budget == 1 else "transient")

    def test_stop_ends_the_run_with_a_tool_loop_error(self) -> None:
        city, exception, _, _ = CASES["unrecoverable"]
        t = self.drive([[city], [city], "done"], {city: exception}, loop_action="stop")
        error = loop_error(t.error)
        assert error is not None, t.error
        assert str(error).startswith("toolerr stopped the run")
        assert error.decision.action == "stop"
        assert t.executed == [city]

    # -- 9. idempotence and pairing ----------------------------------------------------------

    def test_a_conversation_that_holds_the_note_is_not_noted_twice(self) -> None:
        """The run starts from a conversation already rewritten in C3 (the failed exchange,
        then toolerr's note as the user's turn): the model sees it as it is."""
        city, _, text, guidance = CASES["unrecoverable"]
        assert guidance is not None
        runtime_note = note(f'city="{city}"', text, guidance)
        prior: list[Entry] = [("user", ASK), ("call", TOOL, {"city": city}), ("tool", text)]
        records: list[DetectionRecord] = []
        t = self.drive(["done"], prior=prior, ask=runtime_note, records=records)
        assert t.error is None, t.error
        assert t.seen == [[*prior, ("user", runtime_note)]]
        assert [(r.kind, r.changed) for r in records] == [("unrecoverable", False)]
        assert to_entries(ToolErrorLayer().rewrite(to_messages(t.seen[0])).messages) == t.seen[0]

    def test_a_result_that_holds_the_guidance_is_not_given_it_twice(self) -> None:
        """C1 on a conversation already rewritten in C1 (the guidance after the error
        text): the model sees it as it is."""
        city, _, text, guidance = CASES["unrecoverable"]
        prior: list[Entry] = [("user", ASK), ("call", TOOL, {"city": city}), ("tool", f"{text}\n{guidance}")]
        records: list[DetectionRecord] = []
        t = self.drive(["done"], prior=prior, ask="Go on.", records=records, form="c1")
        assert t.error is None, t.error
        assert t.seen == [[*prior, ("user", "Go on.")]]
        assert [(r.kind, r.changed) for r in records] == [("unrecoverable", False)]

    @pytest.mark.parametrize(
        "form", ["c3", "c4", {"unrecoverable": "abstract", "default": "c1"}], ids=["c3", "c4", "mixed"]
    )
    def test_failures_of_two_kinds_in_one_step(self, form: Any) -> None:
        """One model turn, three calls: a success, an unrecoverable and a fixable failure;
        one valid, paired conversation with a note for each failure in its kind's form."""
        failures = {c: CASES[k][1] for k in ("unrecoverable", "fixable") for c in [CASES[k][0]]}
        step = ["Paris", *failures]
        records: list[DetectionRecord] = []
        t = self.drive([step, "done"], failures, records=records, form=form)
        assert t.error is None, t.error
        assert t.seen[1] == self.rendered([step], failures, form=form)
        assert sorted(r.kind for r in records) == ["fixable", "unrecoverable"]
        calls = [e[2]["city"] for e in t.seen[1] if e[0] == "call"]
        assert len([e for e in t.seen[1] if e[0] == "tool"]) == len(calls)
        assert "Paris" in calls

    @pytest.mark.parametrize("form", ["c3", "c4", "abstract"])
    def test_parallel_calls_stay_paired_when_one_fails(self, form: str) -> None:
        """Two calls in one model turn, one fails: the conversation stays paired (C4 and
        the abstract form remove the failed call and its result only)."""
        city, exception, _, _ = CASES["fixable"]
        t = self.drive([["Paris", city], "done"], {city: exception}, form=form)
        assert t.error is None, t.error
        assert t.seen[1] == self.expected("fixable", form, steps=[["Paris", city]])
        if form != "c3":
            assert [e for e in t.seen[1] if e[0] in ("call", "tool")] == [
                ("call", TOOL, {"city": "Paris"}),
                ("tool", answer("Paris")),
            ]

    # -- 10. credentials never restated ----------------------------------------------------

    @pytest.mark.parametrize("form", ["c3", "abstract"])
    def test_a_credential_in_the_error_is_never_restated(
        self, form: str, caplog: pytest.LogCaptureFixture
    ) -> None:
        """A tool's error that holds a password (in a database URL): the note, the records
        and the log never restate it; what the tool wrote is the framework's own."""
        caplog.set_level(logging.DEBUG, logger="toolerr")
        secret = "Tr0ub4dor-3"
        exception = ConnectionRefusedError(111, f"Connection refused: postgresql://app:{secret}@db:5432/x")
        records: list[DetectionRecord] = []
        t = self.drive([["Paris"], "done"], {"Paris": exception}, records=records, form=form)
        assert t.error is None, t.error
        [record] = records
        assert record.kind == "transient"
        notes = [e for e in t.seen[1] if e[0] == "user" and NOTE_PREFIX in e[1]]
        assert notes and all(secret not in e[1] for e in notes)
        if form == "c3":
            assert "postgresql://app:[redacted]@db:5432/x" in notes[0][1]
        assert secret not in repr(record.to_dict())
        assert all(secret not in r.getMessage() and secret not in (r.exc_text or "") for r in caplog.records)

    @pytest.mark.parametrize("which", list(CREDENTIALS))
    @pytest.mark.parametrize("form", ["c1", "c3"])
    def test_the_four_credentials_are_never_restated_and_the_history_keeps_them(
        self, form: str, which: str, caplog: pytest.LogCaptureFixture
    ) -> None:
        """Issue 27's four credentials (a password in a URL, an API key the OpenAI SDK's
        401 echoes, an AWS access key id, a bearer token in a dumped header), each in the
        error a tool raises: what toolerr writes (the note, the C1 suffix), the record and
        its dict (what a header or ``_meta`` carries) and every log line of logger
        ``toolerr`` hold none of it; the framework's own failed result, and its history
        after the run, keep it as the framework wrote it (a result toolerr writes from the
        exception is toolerr's text: masked, see :attr:`writes_failed_results`)."""
        caplog.set_level(logging.DEBUG, logger="toolerr")
        make, secret = CREDENTIALS[which]
        city, exception = "Paris", make()
        records: list[DetectionRecord] = []
        t = self.drive([[city], "done"], {city: exception}, records=records, form=form)
        assert t.error is None, t.error
        shown = self.shown_error(exception)
        assert secret in shown
        # the failed result as the framework keeps it: its own text, or toolerr's, masked
        kept = clean_text(shown) if self.writes_failed_results else shown
        assert (secret in kept) is not self.writes_failed_results
        failed = [("user", ASK), ("call", TOOL, {"city": city}), ("tool", kept)]
        layer = ToolErrorLayer(form=form)
        assert t.seen[1] == to_entries(layer.rewrite(to_messages(failed, [exception])).messages)
        [record] = records
        assert record.kind != "ambiguous" and record.changed
        if form == "c1":  # the framework's result, then toolerr's guidance line
            [result] = [entry[1] for entry in t.seen[1] if entry[0] == "tool"]
            assert result.startswith(f"{kept}\n") and secret not in result[len(kept) :]
        else:
            assert ("tool", kept) in t.seen[1]
            notes = [e[1] for e in t.seen[1] if e[0] == "user" and NOTE_PREFIX in e[1]]
            assert len(notes) == 1 and secret not in notes[0] and "[redacted]" in notes[0]
        assert record.note is not None and secret not in record.note
        assert secret not in json.dumps(record.to_dict())
        logged = [r for r in caplog.records if r.name == "toolerr"]
        assert all(secret not in r.getMessage() and secret not in (r.exc_text or "") for r in logged)
        assert t.history == [*failed, ("assistant", "done")]

    # -- 10b. Retry-After in the guidance ---------------------------------------------------

    @pytest.mark.parametrize("form", ["c1", "c3"])
    def test_a_429_with_retry_after_7_gets_the_sentence_with_7_seconds(self, form: str) -> None:
        """A real 429 (urllib's ``HTTPError`` with ``Retry-After: 7``): the guidance is the
        byte-exact sentence with 7 seconds, after the result (C1) or in the note (C3), as the
        core renders it; the record carries the wait."""
        city, exception = "Paris", http_error(429, "Too Many Requests", "7")
        records: list[DetectionRecord] = []
        t = self.drive([[city], "done"], {city: exception}, records=records, form=form)
        assert t.error is None, t.error
        shown = self.shown_error(exception)
        call = ("call", TOOL, {"city": city})
        written = {
            "c1": [("user", ASK), call, ("tool", f"{shown}\n{RETRY_AFTER_7}")],
            "c3": [
                ("user", ASK),
                call,
                ("tool", shown),
                ("user", note(f'city="{city}"', shown, RETRY_AFTER_7)),
            ],
        }
        assert t.seen[1] == written[form]
        assert t.seen[1] == self.rendered([[city]], {city: exception}, form=form)
        assert [(r.kind, r.verdict.retry_after) for r in records] == [("transient", 7.0)]

    # -- 11. error_detail: what the model is shown of a failure -----------------------------

    @pytest.mark.parametrize("form", ["c3", "c1", "abstract"])
    def test_error_detail_safe_shows_type_status_and_guidance_only(self, form: str) -> None:
        """``error_detail="safe"``: a real 503 (``urllib.error.HTTPError`` with
        ``Retry-After: 7``) whose message holds words the model must not read. The model is
        shown the exception type, the HTTP status, the wait and the guidance, in the note
        and in the failed result, and none of the message's words; as the core renders it."""
        city, exception = "Paris", http_error(503, f"upstream {_WORDS[0]} {_WORDS[1]} is down", "7")
        records: list[DetectionRecord] = []
        t = self.drive([[city], "done"], {city: exception}, records=records, form=form, error_detail="safe")
        assert t.error is None, t.error
        summary = "HTTPError (HTTP status 503, Retry-After 7 seconds)"
        guidance = (
            "This is a temporary failure. Retrying the same call after 7 seconds is expected to succeed."
        )
        call, result = ("call", TOOL, {"city": city}), ("tool", f"Error: {summary}")
        written = {
            "c3": [("user", ASK), call, result, ("user", note(f'city="{city}"', summary, guidance))],
            "c1": [("user", ASK), call, ("tool", f"Error: {summary}\n{guidance}")],
        }
        if form in written:
            assert t.seen[1] == written[form]
        else:  # abstract: the summary is the diagnosis
            (last,) = t.seen[1][1:]
            assert last[1].endswith(f"failed with a transient error. Diagnosis: {summary}\n\n{guidance}")
        assert t.seen[1] == self.rendered([[city]], {city: exception}, form=form, error_detail="safe")
        assert not any(word in str(part) for word in _WORDS for entry in t.seen[1] for part in entry)
        assert [(r.kind, r.verdict.status) for r in records] == [("transient", 503)]

    @pytest.mark.parametrize("form", ["c3", "c1"])
    def test_error_detail_safe_reads_the_status_a_message_states(self, form: str) -> None:
        """``error_detail="safe"`` on a plain exception whose own message states the HTTP
        status and the wait: the model is shown what the core renders from the one
        classification of the object (type, status, wait), in the result and the note."""
        city = "Lyon"
        exception = RuntimeError(
            f"upstream returned HTTP 503 Service Unavailable, retry after 30 seconds ({_WORDS[0]})"
        )
        t = self.drive([[city], "done"], {city: exception}, form=form, error_detail="safe")
        assert t.error is None, t.error
        result = ("tool", "Error: RuntimeError (HTTP status 503, Retry-After 30 seconds)")
        assert result in t.seen[1] or any(
            entry[0] == "tool" and entry[1].startswith(result[1] + "\n") for entry in t.seen[1]
        ), t.seen[1]
        assert t.seen[1] == self.rendered([[city]], {city: exception}, form=form, error_detail="safe")
        assert _WORDS[0] not in repr(t.seen[1])

    @pytest.mark.parametrize("form", ["c3", "c4"])
    def test_error_detail_none_shows_the_guidance_only(self, form: str) -> None:
        """``error_detail="none"``: the model is shown that the call failed and the
        guidance, not even the exception type."""
        city = "Oslo"
        exception = PermissionError(13, f"Permission denied: /srv/{_WORDS[0]}/{_WORDS[1]}")
        t = self.drive([[city], "done"], {city: exception}, form=form, error_detail="none")
        assert t.error is None, t.error
        guidance = CASES["unrecoverable"][3]
        assert guidance is not None
        runtime_note = ("user", note(f'city="{city}"', "details withheld", guidance))
        call, result = ("call", TOOL, {"city": city}), ("tool", "Error: details withheld")
        assert t.seen[1] == (
            [("user", ASK), call, result, runtime_note] if form == "c3" else [("user", ASK), runtime_note]
        )
        assert t.seen[1] == self.rendered([[city]], {city: exception}, form=form, error_detail="none")
        shown = repr(t.seen[1])
        assert "PermissionError" not in shown and not any(word in shown for word in _WORDS)

    # -- 12. the idempotency guard -----------------------------------------------------------

    def test_an_identical_resend_after_an_unknown_outcome_is_not_executed(self) -> None:
        """A read timeout (the call may have taken effect) of a tool not declared safe:
        the identical resend is not executed, whatever the loop action, and the model
        reads that it must check whether the first call took effect."""
        city = "Paris"
        for action in ("note", "block"):
            t = self.drive([[city], [city], "done"], {city: TimeoutError("timed out")}, loop_action=action)
            assert t.error is None, t.error
            assert t.executed == [city]
            results = [entry for entry in t.seen[2] if entry[0] == "tool"]
            assert [e for e in t.seen[2] if e[0] == "call"] == [("call", TOOL, {"city": city})] * 2
            assert results[-1] == ("tool", RESEND_BLOCKED)

    @pytest.mark.parametrize("safety", ["idempotent", "read_only"])
    def test_a_resend_to_a_tool_declared_safe_runs(self, safety: str) -> None:
        city = "Paris"
        t = self.drive(
            [[city], [city], "done"], {city: TimeoutError("timed out")}, tool_safety={TOOL: safety}
        )
        assert t.error is None, t.error
        assert t.executed == [city, city]

    def test_a_different_call_in_between_lifts_the_guard(self) -> None:
        city = "Paris"
        t = self.drive([[city], ["Oslo"], [city], "done"], {city: TimeoutError("timed out")})
        assert t.error is None, t.error
        assert t.executed == [city, "Oslo", city]

    def test_the_guard_is_off_with_idempotency_guard_false(self) -> None:
        city = "Paris"
        t = self.drive([[city], [city], "done"], {city: TimeoutError("timed out")}, idempotency_guard=False)
        assert t.error is None, t.error
        assert t.executed == [city, city]
        assert ("tool", RESEND_BLOCKED) not in t.seen[2]

    # -- 13. hidden retries (auto_retry) -------------------------------------------------------

    @pytest.fixture
    def waits(self, monkeypatch: pytest.MonkeyPatch) -> list[float]:
        """The waits of the kit's hidden retries, recorded instead of slept."""
        import toolerr._kit_retry as kit_retry

        waits: list[float] = []

        async def asleep(seconds: float) -> None:
            waits.append(seconds)

        monkeypatch.setattr(kit_retry, "_sleep", waits.append)
        monkeypatch.setattr(kit_retry, "_asleep", asleep)
        return waits

    def test_auto_retry_reruns_a_turned_away_call_before_the_model_sees_it(self, waits: list[float]) -> None:
        """A 503 twice, then a success: with auto_retry=2 the tool runs three times and the
        model sees the success only; no failure is recorded."""
        city = "Paris"
        failures = {city: [http_error(503, "Service Unavailable"), http_error(503, "Service Unavailable")]}
        records: list[DetectionRecord] = []
        t = self.drive([[city], "done"], failures, records=records, auto_retry=2)
        assert t.error is None, t.error
        assert t.executed == [city] * 3
        assert t.seen[1] == [("user", ASK), ("call", TOOL, {"city": city}), ("tool", answer(city))]
        assert records == []
        assert len(waits) == 2 and all(0 < wait <= 1 for wait in waits)

    def test_auto_retry_honours_retry_after_up_to_max_wait(self, waits: list[float]) -> None:
        city = "Paris"
        t = self.drive([[city], "done"], {city: [http_error(429, "Too Many Requests", "2")]}, auto_retry=1)
        assert (t.error, t.executed, waits) == (None, [city, city], [2.0])
        error = http_error(429, "Too Many Requests", "60")  # longer than max_wait: the model sees it
        t = self.drive([[city], "done"], {city: [error]}, auto_retry=1, max_wait=30)
        assert (t.error, t.executed, waits) == (None, [city], [2.0])
        assert ("tool", self.shown_error(error)) in t.seen[1]

    def test_auto_retry_leaves_a_read_timeout_of_an_undeclared_tool_to_the_model(
        self, waits: list[float]
    ) -> None:
        city, error = "Paris", TimeoutError("timed out")
        t = self.drive([[city], "done"], {city: [error]}, auto_retry=2)
        assert t.error is None, t.error
        assert (t.executed, waits) == ([city], [])
        assert ("tool", self.shown_error(error)) in t.seen[1]

    def test_auto_retry_reruns_a_read_timeout_of_a_declared_tool(self, waits: list[float]) -> None:
        city = "Paris"
        t = self.drive(
            [[city], "done"],
            {city: [TimeoutError("timed out")]},
            auto_retry=2,
            tool_safety={TOOL: "read_only"},
        )
        assert t.error is None, t.error
        assert t.executed == [city, city]
        assert t.seen[1][-1] == ("tool", answer(city))

    @pytest.mark.parametrize("kind", ["fixable", "unrecoverable", "ambiguous"])
    def test_auto_retry_never_reruns_a_permanent_failure(self, kind: str, waits: list[float]) -> None:
        city, exception, _, _ = CASES[kind]
        t = self.drive([[city], "done"], {city: exception}, auto_retry=3)
        assert t.error is None, t.error
        assert (t.executed, waits) == ([city], [])

    def test_the_record_counts_the_hidden_retries(self, waits: list[float]) -> None:
        """Three 503s with auto_retry=2: the model sees the third; its record counts two
        hidden retries."""
        city = "Paris"
        errors = [http_error(503, "Service Unavailable") for _ in range(3)]
        records: list[DetectionRecord] = []
        t = self.drive([[city], "done"], {city: list(errors)}, records=records, auto_retry=2)
        assert t.error is None, t.error
        assert t.executed == [city] * 3
        assert ("tool", self.shown_error(errors[-1])) in t.seen[1]
        [record] = records
        assert (record.kind, record.hidden_retries, record.to_dict()["hidden_retries"]) == ("transient", 2, 2)

    # -- 14. a long failure quarantined for the model call ---------------------------------

    def test_a_long_failure_is_shown_as_its_excerpt(self, tmp_path: Path) -> None:
        """A tool fails with the real output of a failing test run (a few thousand lines):
        the model sees at most ``quarantine_chars`` characters, with the error's name, the
        last lines and the saved file, which holds the whole result byte for byte; the
        framework's history keeps the whole result. The next model call, after a step
        without failure, still sees the excerpt."""
        output = long_test_output()
        assert len(output.splitlines()) > 2000
        exception = RuntimeError(output)
        shown = self.shown_error(exception)
        store = tmp_path / "results"
        t = self.drive([["Paris"], ["Oslo"], "done"], {"Paris": exception}, result_store=str(store))
        assert t.error is None, t.error
        [seen] = [entry[1] for entry in t.seen[1] if entry[0] == "tool"]
        # at the next model call too, after a step without failure
        assert [entry[1] for entry in t.seen[2] if entry[0] == "tool"] == [seen, answer("Oslo")]
        limit = toolerr.Policy().quarantine_chars
        assert limit is not None and len(seen) <= limit < len(shown)
        assert "AssertionError" in seen.splitlines()[0]
        assert seen.splitlines()[-10:] == shown.splitlines()[-10:]
        [saved] = store.iterdir()
        assert f" is saved at {saved}]" in seen
        [kept, _] = [entry[1] for entry in t.history if entry[0] == "tool"]
        assert kept.strip() == shown.strip()  # whole (an adapter's cleaning strips the ends)
        assert saved.read_bytes() == kept.encode()

    def test_a_short_failure_is_not_cut(self, tmp_path: Path) -> None:
        """A failure under ``quarantine_chars`` reaches the model whole; nothing is saved."""
        t = self.drive([["Paris"], "done"], {"Paris": RuntimeError("x" * 1000)}, result_store=str(tmp_path))
        assert t.error is None, t.error
        assert ("tool", self.shown_error(RuntimeError("x" * 1000))) in t.seen[1]
        assert list(tmp_path.iterdir()) == []

    # -- 15. progress: stalls and same results (issue 26) -------------------------------------

    def _stall_script(self) -> tuple[list[Step], dict[str, BaseException]]:
        """A failure, then successes with other arguments (no repeat), four tool steps."""
        city, exception, _, _ = CASES["unrecoverable"]
        return [[city], ["Paris"], ["Rome"], ["Lima"], "done"], {city: exception}

    def test_progress_unchanged_over_three_steps_stops_the_run(self) -> None:
        """``progress`` (a probe the test controls, always the same) and loop action ``stop``:
        the model call after the third unchanged step with a failure raises ToolLoopError,
        which carries the loop's calls and the fingerprints; ``on_loop`` got it first."""
        script, failures = self._stall_script()
        seen: list[ToolLoopError] = []
        t = self.drive(script, failures, progress=lambda: "same", loop_action="stop", on_loop=seen.append)
        error = loop_error(t.error)
        assert error is not None, t.error
        assert t.executed == [CASES["unrecoverable"][0], "Paris", "Rome"]
        assert len(seen) == 1 and seen[0].decision == error.decision  # a framework may wrap it
        assert [call.name for call in error.calls] == [TOOL] * 3
        assert len(error.fingerprints) == 3 and len(set(error.fingerprints)) == 1

    def test_progress_that_changes_does_not_stop_the_run(self) -> None:
        script, failures = self._stall_script()
        counter = iter(range(100))
        t = self.drive(script, failures, progress=lambda: next(counter), loop_action="stop")
        assert t.error is None, t.error
        assert t.executed == [CASES["unrecoverable"][0], "Paris", "Rome", "Lima"]
        assert not any(STALL_NOTE in str(part) for seen in t.seen for entry in seen for part in entry)

    def test_progress_stall_gets_a_note_without_the_calls(self) -> None:
        """Loop action ``note``: the model call after the third unchanged step reads a
        runtime note naming the stall (its own user turn: that step did not fail); the
        framework's history holds none."""
        script, failures = self._stall_script()
        t = self.drive(script, failures, progress=lambda: b"same")
        assert t.error is None, t.error
        assert not any(STALL_NOTE in str(entry) for entry in t.seen[2])
        assert t.seen[3][-1] == ("user", f"{NOTE_PREFIX}{STALL_NOTE}")
        assert not holds_note(t.history)

    def test_progress_stall_blocks_the_next_call(self) -> None:
        script, failures = self._stall_script()
        t = self.drive(script, failures, progress=lambda: "same", loop_action="block")
        assert t.error is None, t.error
        assert t.executed == [CASES["unrecoverable"][0], "Paris", "Rome"]
        assert any(
            entry[0] == "tool" and entry[1].startswith(f"{BLOCKED_PREFIX} {STALL_NOTE}")
            for entry in t.seen[4]
        )

    def test_three_identical_successful_results_get_a_note(self) -> None:
        t = self.drive([["Paris"], ["Paris"], ["Paris"], "done"])
        assert t.error is None, t.error
        assert t.executed == ["Paris"] * 3
        same = f"{NOTE_PREFIX}{SAME_RESULT_NOTE.format(name=TOOL, count=3)}"
        assert not holds_note(t.seen[2])
        assert t.seen[3][-1] == ("user", same)
        assert '"Paris"' not in same and not holds_note(t.history)

    def test_three_different_successful_results_get_no_note(self) -> None:
        t = self.drive([["Paris"], ["Rome"], ["Lima"], "done"])
        assert t.error is None, t.error
        assert not any(holds_note(seen) for seen in t.seen)


_WORDS = ("zebra-quartz", "vault-7731")
"""Words of an error message that ``error_detail`` "safe" and "none" never show the model."""


def _warnings(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "toolerr" and r.levelno >= logging.WARNING]


@functools.lru_cache(maxsize=1)
def long_test_output() -> str:
    """The output of a real ``python -m pytest`` run (once per session) on a generated
    module of 150 failing tests: about 2,700 lines."""
    lines: list[str] = []
    for i in range(150):
        lines += [
            f"def check_{i}(value):",
            "    table = {'rows': list(range(30))}",
            f"    assert value == {i} + 1, f'value {{value}} does not match {{table}}'",
            "",
            f"def test_{i}():",
            f"    check_{i}({i})",
            "",
        ]
    with tempfile.TemporaryDirectory() as directory:
        module = Path(directory) / "test_generated.py"
        module.write_text("\n".join(lines))
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", str(module)],
            capture_output=True,
            text=True,
            cwd=directory,
            check=False,
            timeout=300,
        )
    assert run.returncode == 1, run.stdout[-2000:] + run.stderr[-2000:]
    return run.stdout
