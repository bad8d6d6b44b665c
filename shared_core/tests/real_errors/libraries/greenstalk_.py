# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""greenstalk behind job-queue tools, against real ``beanstalkd`` processes (Debian package
beanstalkd) that the module starts on free 127.0.0.1 ports: the main server with a maximum
job size of 4096 bytes (``-z``), one put in drain mode (``SIGUSR1``), one started under an
address-space limit (``RLIMIT_AS``) and filled until it can no longer grow its queues, and
one stopped (``SIGSTOP``) then killed while a worker waits on it; a real ``memcached`` and
the corpus' HTTP server stand at addresses a tool was wrongly configured with.

The tools (the server's address is the tool's configuration; each call opens its own
connection with a socket timeout of a few seconds, except the worker tools, which act on the
agent's worker session: a connection kept between calls that holds the jobs it reserved):
``queue_put`` (a job the model wrote), ``queue_put_file`` (the body read from a file the
model names), ``queue_replay`` (jobs read from a JSON-lines file the model names),
``queue_reserve``, ``queue_reserve_job``, ``queue_release``, ``queue_delete``,
``queue_unwatch`` (the worker tools), ``queue_kick``, ``queue_kick_job``, ``queue_peek``,
``queue_peek_state``, ``queue_stats``, ``queue_tube_stats`` and ``queue_pause``.

greenstalk raises one exception class per beanstalkd error response, with the response's
values as its only argument (``NotFoundError([])``: the text is ``[]``), ``TypeError`` /
``UnicodeEncodeError`` from formatting a command, ``UnknownResponseError`` for a reply it
does not know, and the socket's own errors. Labels by the cause set up (the protocol's
responses: https://github.com/beanstalkd/beanstalkd/blob/master/doc/protocol.txt; the
client: https://greenstalk.readthedocs.io/en/stable/api.html):

- fixable: what the model wrote: a tube name outside the protocol's characters or 200 bytes
  (``BadFormatError``: a space, a leading hyphen, a colon, 201 bytes) or not ASCII
  (``UnicodeEncodeError``), a priority, delay or pause outside the unsigned ranges
  (``BadFormatError``), a number written as a string and a body that is a JSON object
  (``TypeError``), a body over the server's ``max-job-size`` (``JobTooBigError``, as the
  NATS module labels a payload over ``max_payload``), and a watch list left empty or
  emptied (``NotIgnoredError``: "the client attempted to ignore the only tube").
- ambiguous: a job id or tube the model named that does not exist or is not in the state
  the command needs (``NotFoundError``: deleted, never there, mistyped, reserved by another
  worker, a job whose time-to-run ran out so the server released it, a ready job kicked, an
  empty tube peeked, a tube never used paused), and bad data the tool read where the model
  only named where to read: a job body that is not UTF-8, a file over ``max-job-size``, a
  JSON-lines file with a negative priority or a tube name with a space.
- unrecoverable: the tool's configured address is another service (memcached answers
  ``ERROR``, an HTTP server answers a status line: ``UnknownResponseError``).
- transient: a refused connection and a host name that does not resolve; a server in drain
  mode (``DrainingError``: "the client should try another server or disconnect and try again
  later"), out of memory for a job (``OutOfMemoryError``: "the client should try again
  later"), no job within the reserve timeout (``TimedOutError``) and a reservation about to
  run out (``DeadlineSoonError``: the server gives the worker a chance to act before it
  takes the job back) -> not executed; a put, reserve or stats to a stopped server (socket
  timeout), a server killed while a reserve waited (``ConnectionError: Unexpected EOF``) and
  a release answered ``BURIED`` because the server ran out of memory growing its queue (the
  job was not released but buried: it went somewhere a retry does not expect) -> unknown
  outcome.

Not triggered: beanstalkd has no authentication, permissions or quotas (nothing else is
unrecoverable through it); ``InternalError`` ("a bug in the server"), ``ExpectedCrlfError``
and ``UnknownCommandError`` (greenstalk frames every command it sends, and this server knows
all of them); ``BuriedError`` for a put (its text holds the new job's id, which depends on
when the memory ran out); a reset of a connection to a killed server (a race between the
peer's FIN and RST).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import Case

from ._common import NE, UO, A, F, T, U, catch, free_port, process

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "greenstalk"
REQUIRES = ["greenstalk==2.1.1"]

MAX_JOB = 4096
PUT, PUTFILE, REPLAY = "queue_put", "queue_put_file", "queue_replay"
RESERVE, RESERVE_JOB, RELEASE, DELETE, UNWATCH = (
    "queue_reserve",
    "queue_reserve_job",
    "queue_release",
    "queue_delete",
    "queue_unwatch",
)
KICK, KICKJOB, PEEK, PEEKSTATE, STATS, TUBESTATS, PAUSE = (
    "queue_kick",
    "queue_kick_job",
    "queue_peek",
    "queue_peek_state",
    "queue_stats",
    "queue_tube_stats",
    "queue_pause",
)


def available() -> str | None:
    if shutil.which("beanstalkd") is None:
        return "beanstalkd is not installed (Debian package beanstalkd)"
    if shutil.which("memcached") is None:
        return "memcached is not installed (Debian package memcached)"
    return None


@contextmanager
def _beanstalkd(ctx: Context, name: str, limit_mb: int = 0) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    port = free_port()
    ctx.name_port(port, f"BEANSTALKD{name.upper()}PORT")
    preexec: Callable[[], None] | None = None
    if limit_mb:

        def preexec() -> None:
            resource.setrlimit(resource.RLIMIT_AS, (limit_mb << 20, limit_mb << 20))

    args = ["beanstalkd", "-l", "127.0.0.1", "-p", str(port), "-z", str(MAX_JOB if not limit_mb else 1 << 20)]
    with process(args, port, preexec_fn=preexec) as proc:
        try:
            yield port, proc
        finally:
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGCONT)


class Tools:
    """The agent's queue tools, configured for one beanstalkd."""

    def __init__(self, port: int, host: str = "127.0.0.1", timeout: float = 3.0) -> None:
        self.address = (host, port)
        self.timeout = timeout
        self.opened: list[Any] = []

    def client(
        self, tube: str = "default", watch: Any = "default", timeout: float | None = None, **kw: Any
    ) -> Any:
        import greenstalk

        sock = socket.create_connection(self.address, timeout=timeout or self.timeout)
        self.opened.append(sock)
        client = greenstalk.Client(sock, use=tube, watch=watch, **kw)
        self.opened.append(client)
        return client

    def close(self) -> None:
        for item in self.opened:
            try:
                item.close()
            except Exception:
                pass
        self.opened.clear()

    def put(self, a: dict[str, Any]) -> Any:
        client = self.client(a.get("tube", "default"))
        return client.put(
            a["body"], priority=a.get("priority", 1024), delay=a.get("delay", 0), ttr=a.get("ttr", 60)
        )

    def put_file(self, a: dict[str, Any], root: Path) -> Any:
        body = (root / a["path"]).read_text()
        return self.client(a.get("tube", "default")).put(body)

    def replay(self, a: dict[str, Any], root: Path) -> Any:
        ids = []
        for line in (root / a["path"]).read_text().splitlines():
            job = json.loads(line)
            client = self.client(job["tube"])
            ids.append(client.put(job["body"], priority=job.get("priority", 1024), delay=job.get("delay", 0)))
        return ids

    def kick(self, a: dict[str, Any]) -> Any:
        return self.client(a["tube"]).kick(a["bound"])

    def kick_job(self, a: dict[str, Any]) -> Any:
        return self.client().kick_job(a["job_id"])

    def peek(self, a: dict[str, Any]) -> Any:
        return self.client().peek(a["job_id"])

    def peek_state(self, a: dict[str, Any]) -> Any:
        client = self.client(a["tube"])
        return getattr(client, f"peek_{a['state']}")()

    def stats(self, a: dict[str, Any]) -> Any:
        return self.client().stats()

    def tube_stats(self, a: dict[str, Any]) -> Any:
        return self.client().stats_tube(a["tube"])

    def pause(self, a: dict[str, Any]) -> Any:
        return self.client().pause_tube(a["tube"], a["seconds"])


class Session:
    """The agent's worker session: one connection kept between calls, holding the jobs it
    reserved."""

    def __init__(self, tools: Tools, tubes: list[str], timeout: float = 10.0, **kw: Any) -> None:
        self.client = tools.client(tubes[0], watch=tubes, timeout=timeout, **kw)

    def reserve(self, a: dict[str, Any]) -> Any:
        return self.client.reserve(timeout=a.get("timeout", 0))

    def reserve_job(self, a: dict[str, Any]) -> Any:
        return self.client.reserve_job(a["job_id"])

    def release(self, a: dict[str, Any]) -> Any:
        import greenstalk

        job = greenstalk.Job(a["job_id"], "")
        return self.client.release(job, priority=a.get("priority", 1024), delay=a.get("delay", 0))

    def delete(self, a: dict[str, Any]) -> Any:
        return self.client.delete(a["job_id"])

    def unwatch(self, a: dict[str, Any]) -> Any:
        return self.client.ignore(a["tube"])


Call = tuple[str, str, str, str, dict[str, Any], Callable[[], Any]]


def _model_calls(t: Tools) -> list[Call]:
    """(slug, cause, kind, tool, the model's arguments, the call): what the model wrote."""

    def put(slug: str, cause: str, **a: Any) -> Call:
        return (slug, cause, F, PUT, a, lambda: t.put(a))

    def call(slug: str, cause: str, tool: str, fn: Callable[[dict[str, Any]], Any], **a: Any) -> Call:
        return (slug, cause, F, tool, a, lambda: fn(a))

    body = '{"to": "ann@example.com", "template": "welcome"}'
    session = Session(t, ["emails"])
    return [
        put("tube-space", "tube name with a space", tube="email queue", body=body),
        put("tube-hyphen", "tube name starting with a hyphen", tube="-urgent", body=body),
        put("tube-colon", "tube name with a colon", tube="emails:high", body=body),
        put("tube-too-long", "tube name of 201 bytes (limit 200)", tube="emails-" + "x" * 194, body=body),
        put("tube-not-ascii", "tube name with a non-ASCII letter", tube="tâches", body=body),
        put(
            "priority-negative", "negative priority (unsigned 32-bit)", tube="emails", body=body, priority=-1
        ),
        put(
            "priority-too-big",
            "priority 2**32, past the unsigned 32-bit range",
            tube="emails",
            body=body,
            priority=2**32,
        ),
        put("priority-word", "priority written as a word", tube="emails", body=body, priority="high"),
        put("delay-negative", "negative delay", tube="emails", body=body, delay=-5),
        put("body-too-big", "a 5,000-byte body over max-job-size 4096", tube="emails", body="x" * 5000),
        put(
            "body-object",
            "body written as a JSON object, not a string",
            tube="emails",
            body={"to": "ann@example.com"},
        ),
        call("reserve-timeout-string", "timeout written as '5s'", RESERVE, session.reserve, timeout="5s"),
        call("delete-id-string", "job id written as a string", DELETE, session.delete, job_id="17"),
        call("delete-id-negative", "negative job id", DELETE, session.delete, job_id=-3),
        call("pause-negative", "negative pause", PAUSE, t.pause, tube="emails", seconds=-1),
        call(
            "unwatch-only-tube",
            "ignoring the only tube the session watches",
            UNWATCH,
            session.unwatch,
            tube="emails",
        ),
        call(
            "reserve-no-tubes",
            "reserve with an empty list of tubes",
            RESERVE,
            lambda a: _empty_watch(t, a),
            tubes=[],
            timeout=0,
        ),
    ]


def _empty_watch(t: Tools, a: dict[str, Any]) -> Any:
    """The session's watch list is the model's list: the default tube is ignored first."""
    client = t.client(watch=a["tubes"])
    return client.reserve(timeout=a["timeout"])


def _stored(t: Tools, root: Path) -> list[Call]:
    """Jobs and tubes the model named, and data the tool read from files it named."""
    producer = t.client("emails")
    ready = producer.put("welcome ann")
    taken = producer.put("welcome bo")
    Session(t, ["emails"]).reserve_job({"job_id": taken})
    expiring = t.client("exports").put("export 2024-05", ttr=1)
    session = Session(t, ["exports"])
    assert session.reserve({"timeout": 0}).id == expiring
    binary = t.client("uploads", encoding=None)
    binary.put(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    uploads = Session(t, ["uploads"])
    (root / "jobs").mkdir()
    (root / "jobs/report.txt").write_text("row,amount\n" + "2024-05-01,12.50\n" * 400)
    (root / "jobs/bad-priority.jsonl").write_text(
        '{"tube": "emails", "body": "welcome cy"}\n{"tube": "emails", "body": "welcome di", "priority": -1}\n'
    )
    (root / "jobs/bad-tube.jsonl").write_text('{"tube": "email queue", "body": "welcome ed"}\n')
    time.sleep(1.5)  # the export's time-to-run runs out: the server releases it

    def call(slug: str, cause: str, tool: str, fn: Callable[[dict[str, Any]], Any], **a: Any) -> Call:
        return (slug, cause, A, tool, a, lambda: fn(a))

    return [
        call("delete-missing", "job 4242 does not exist", DELETE, session.delete, job_id=4242),
        call(
            "delete-reserved-elsewhere",
            "the job is reserved by another worker",
            DELETE,
            session.delete,
            job_id=taken,
        ),
        call(
            "reserve-job-elsewhere",
            "the job is reserved by another worker",
            RESERVE_JOB,
            session.reserve_job,
            job_id=taken,
        ),
        call("peek-missing", "job 4242 does not exist", PEEK, t.peek, job_id=4242),
        call(
            "tube-stats-missing", "tube emails-v2 was never used", TUBESTATS, t.tube_stats, tube="emails-v2"
        ),
        call("kick-job-ready", "the job is ready, not buried or delayed", KICKJOB, t.kick_job, job_id=ready),
        call(
            "peek-buried-empty",
            "no buried job in the tube",
            PEEKSTATE,
            t.peek_state,
            tube="emails",
            state="buried",
        ),
        call(
            "release-ttr-expired",
            "the job's time-to-run ran out and the server took it back",
            RELEASE,
            session.release,
            job_id=expiring,
        ),
        call("pause-missing", "tube invoices was never used", PAUSE, t.pause, tube="invoices", seconds=30),
        call(
            "reserve-binary-body",
            "the job's body is not UTF-8",
            RESERVE,
            uploads.reserve,
            tube="uploads",
            timeout=0,
        ),
        call(
            "put-file-too-big",
            "the file is larger than max-job-size",
            PUTFILE,
            lambda a: t.put_file(a, root),
            tube="reports",
            path="jobs/report.txt",
        ),
        call(
            "replay-bad-priority",
            "a job in the file has a negative priority",
            REPLAY,
            lambda a: t.replay(a, root),
            path="jobs/bad-priority.jsonl",
        ),
        call(
            "replay-bad-tube",
            "a job in the file names a tube with a space",
            REPLAY,
            lambda a: t.replay(a, root),
            path="jobs/bad-tube.jsonl",
        ),
    ]


def _waits(t: Tools) -> Iterator[Case]:
    """Reserves that the server answers with a wait or a deadline."""
    a: dict[str, Any] = {"tube": "reports", "timeout": 0}
    session = Session(t, ["reports"])
    yield Case(
        "greenstalk-reserve-timed-out",
        LIBRARY,
        "no job ready in the tube within the timeout",
        T,
        NE,
        catch(lambda: session.reserve(a)),
        RESERVE,
        a,
    )
    t.client("thumbnails").put("resize 1.jpg", ttr=1)
    worker = Session(t, ["thumbnails"])
    worker.reserve({"timeout": 0})
    a = {"tube": "thumbnails", "timeout": 5}
    yield Case(
        "greenstalk-deadline-soon",
        LIBRARY,
        "the session holds a job whose time-to-run is about to run out",
        T,
        NE,
        catch(lambda: worker.reserve(a)),
        RESERVE,
        a,
    )


def _wrong_service(ctx: Context) -> Iterator[Case]:
    port = free_port()
    ctx.name_port(port, "MEMCACHEDPORT")
    a: dict[str, Any] = {"tube": "emails", "body": "welcome ann"}
    args = ["memcached", "-l", "127.0.0.1", "-p", str(port), "-U", "0", "-t", "1"]
    if os.geteuid() == 0:
        args += ["-u", "root"]
    with process(args, port):
        memcached = Tools(port)
        yield Case(
            "greenstalk-address-memcached",
            LIBRARY,
            "the tool's configured address is a memcached server",
            U,
            None,
            catch(lambda: memcached.put(a)),
            PUT,
            a,
        )
        memcached.close()
    http = Tools(ctx.port)
    yield Case(
        "greenstalk-address-http",
        LIBRARY,
        "the tool's configured address is an HTTP server",
        U,
        None,
        catch(lambda: http.stats({})),
        STATS,
        {},
    )
    http.close()


def _unreachable(ctx: Context) -> Iterator[Case]:
    a: dict[str, Any] = {"tube": "emails", "body": "welcome ann"}
    yield Case(
        "greenstalk-refused",
        LIBRARY,
        "connection refused: beanstalkd is down",
        T,
        NE,
        catch(lambda: Tools(ctx.dead).put(a)),
        PUT,
        a,
    )
    yield Case(
        "greenstalk-dns",
        LIBRARY,
        "the server's host name does not resolve",
        T,
        NE,
        catch(lambda: Tools(11300, host="queue.corp.invalid").put(a)),
        PUT,
        a,
    )


def _draining(ctx: Context) -> Iterator[Case]:
    with _beanstalkd(ctx, "drain") as (port, proc):
        t = Tools(port)
        os.kill(proc.pid, signal.SIGUSR1)
        deadline = time.monotonic() + 10
        while t.stats({})["draining"] != "true":
            assert time.monotonic() < deadline, "beanstalkd did not enter drain mode"
            time.sleep(0.05)
        a: dict[str, Any] = {"tube": "emails", "body": "welcome ann"}
        yield Case(
            "greenstalk-draining",
            LIBRARY,
            "the server is in drain mode (shutting down)",
            T,
            NE,
            catch(lambda: t.put(a)),
            PUT,
            a,
        )
        t.close()


def _fill(
    port: int, tube: str, body: bytes, go_on: tuple[bytes, ...] = (b"INSERTED",), batch: int = 4096
) -> bytes:
    """Put ``body`` jobs into ``tube`` (pipelined) while the server answers with one of
    ``go_on``; the first other answer's status."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        reader = sock.makefile("rb")
        sock.sendall(b"use %b\r\n" % tube.encode())
        assert reader.readline().startswith(b"USING")
        command = b"put 1024 0 60 %d\r\n%b\r\n" % (len(body), body)
        for _ in range(2000):
            sock.sendall(command * batch)
            statuses = [reader.readline().split()[0] for _ in range(batch)]
            other = [s for s in statuses if s not in go_on]
            if other:
                return other[0]
    raise AssertionError("the server never ran out of memory")


def _out_of_memory(ctx: Context) -> Iterator[Case]:
    """A server under an address-space limit: a worker's job reserved, then its queue filled
    until it cannot grow (BURIED), then jobs until none can be allocated (OUT_OF_MEMORY). The
    limit that gets there depends on the platform's allocator: tried from the smallest."""
    for limit in (20, 24, 18, 28, 16, 32, 40, 48):
        with _beanstalkd(ctx, f"mem{limit}", limit_mb=limit) as (port, _proc):
            t = Tools(port)
            job = t.client("thumbnails").put("resize 1.jpg")
            worker = Session(t, ["thumbnails"])
            worker.reserve({"timeout": 0})
            if _fill(port, "thumbnails", b"r") != b"BURIED":
                t.close()
                continue
            a: dict[str, Any] = {"job_id": job, "delay": 0}
            yield Case(
                "greenstalk-release-buried",
                LIBRARY,
                "the server ran out of memory growing its ready queue: the released job was buried",
                T,
                UO,
                catch(lambda: worker.release(a)),
                RELEASE,
                a,
            )
            status = _fill(port, "thumbnails", b"p" * 60000, (b"INSERTED", b"BURIED"), batch=16)
            assert status == b"OUT_OF_MEMORY", status
            (ctx.tmp / "jobs").mkdir(exist_ok=True)
            (ctx.tmp / "jobs/page.html").write_text("<p>" + "x" * 59993 + "</p>")
            a = {"tube": "thumbnails", "path": "jobs/page.html"}
            yield Case(
                "greenstalk-out-of-memory",
                LIBRARY,
                "the server could not allocate memory for the job",
                T,
                NE,
                catch(lambda: t.put_file(a, ctx.tmp)),
                PUTFILE,
                a,
            )
            t.close()
            return
    raise AssertionError("no address-space limit made beanstalkd bury a job")


def _stopped(ctx: Context) -> Iterator[Case]:
    with _beanstalkd(ctx, "edge") as (port, proc):
        t = Tools(port, timeout=1.0)
        waiting = Session(t, ["night"], timeout=30)
        stuck = Session(t, ["emails"], timeout=1.0)
        os.kill(proc.pid, signal.SIGSTOP)
        a: dict[str, Any] = {"tube": "emails", "body": "welcome ann"}
        yield Case(
            "greenstalk-stopped-put",
            LIBRARY,
            "the server stopped answering after the put was sent (socket timeout)",
            T,
            UO,
            catch(lambda: t.put(a)),
            PUT,
            a,
        )
        yield Case(
            "greenstalk-stopped-stats",
            LIBRARY,
            "the server stopped answering (socket timeout)",
            T,
            UO,
            catch(lambda: t.stats({})),
            STATS,
            {},
        )
        a = {"tube": "emails", "timeout": 0}
        yield Case(
            "greenstalk-stopped-reserve",
            LIBRARY,
            "the server stopped answering after the reserve was sent (socket timeout)",
            T,
            UO,
            catch(lambda: stuck.reserve(a)),
            RESERVE,
            a,
        )
        os.kill(proc.pid, signal.SIGCONT)
        a = {"tube": "night", "timeout": 20}
        killer = threading.Timer(0.5, lambda: os.kill(proc.pid, signal.SIGKILL))
        killer.start()
        exc = catch(lambda: waiting.reserve(a))
        killer.join()
        yield Case(
            "greenstalk-killed-reserve",
            LIBRARY,
            "the server was killed while the reserve waited for a job",
            T,
            UO,
            exc,
            RESERVE,
            a,
        )
        t.close()


def cases(ctx: Context) -> Iterator[Case]:
    with _beanstalkd(ctx, "main") as (port, _proc):
        t = Tools(port)
        for slug, cause, kind, tool, args, fn in [*_model_calls(t), *_stored(t, ctx.tmp)]:
            yield Case(f"greenstalk-{slug}", LIBRARY, cause, kind, None, catch(fn), tool, args)
        yield from _waits(t)
        t.close()
    yield from _wrong_service(ctx)
    yield from _unreachable(ctx)
    yield from _draining(ctx)
    yield from _out_of_memory(ctx)
    yield from _stopped(ctx)
