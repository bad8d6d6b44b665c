# ruff: noqa: B023 - each lambda is called at once
"""psutil behind process and system tools that an agent calls with pids, process names, pid
files, paths and option values, against real processes the module starts: ``export-job``
(running as another user, uid 1), ``report-worker`` and ``queue-drainer`` (running as
``nobody``, the second ignoring SIGTERM and SIGINT), ``thumbnailer`` (exited, not reaped: a
zombie) and ``backup-agent`` (exits between the tool's lookup and its read). Each program is
``sleep`` or ``true`` under that name (a symlink in the module's temporary directory). The
tools run as ``nobody`` (real and effective user and group ids), so the kernel refuses them
what it refuses any ordinary user; the module needs root to start its targets as other
users.

The tools: ``process_info`` (fields of a process named by ``pid``, ``name`` or ``pidfile``,
one call per field), ``process_snapshot`` (``Process.as_dict``), ``list_processes``
(``process_iter`` with attributes), ``signal_process`` (``terminate`` / ``kill`` /
``send_signal``), ``stop_process`` (a signal, then ``wait`` with a timeout),
``wait_for_exit``, ``set_priority`` (``nice``), ``set_io_priority`` (``ionice``),
``set_cpu_affinity``, ``get_resource_limit`` / ``set_resource_limit`` (``rlimit``),
``memory_usage`` (``memory_percent``), ``cpu_usage`` (``cpu_percent``), ``list_connections``
(``net_connections``), ``disk_usage`` (paths relative to the tool's working directory) and
``run_command`` (``psutil.Popen`` then ``wait`` with a timeout). A pid file the model names
is read by the tool (``int`` of its text): its value is not in the arguments.

Labels by the cause set up (psutil's exceptions: https://psutil.readthedocs.io/en/latest/#exceptions;
the kernel's rules: kill(2), setpriority(2), ioprio_set(2), prlimit(2), proc(5) on
``ptrace_may_access``):

- fixable: a value the model wrote that psutil refuses: a negative pid, a pid that is a
  string or a float, a signal number the kernel does not know (``EINVAL``) or a signal
  given as a string, a nice value that is not an integer, an I/O priority value out of 0-7
  or given to the idle class, an unknown ``rlimit`` resource or a limits tuple of three, a
  CPU list given as a string, attribute names that are not psutil's (``invalid attr name``)
  or given as a string, a ``memtype`` or connection ``kind`` not in psutil's closed lists,
  a negative sampling interval or wait timeout, a timeout given as a string, an empty path.
- ambiguous: a pid the model wrote that no process has (``NoSuchProcess``), a process that
  exited between the tool's lookup and its call, a zombie (``ZombieProcess``: exited, its
  parent has not collected it), a path that does not exist, and values the tool READ from a
  pid file the model named: a stale pid, ``0``, ``-1``, the pid of a zombie.
- unrecoverable: ``AccessDenied`` on another user's process (its environment, working
  directory, executable, open files, connections, limits, signals, priority), and on the
  tool's own user's process what needs privilege
  (a negative nice value, the real-time I/O class, raising a hard limit); a directory the
  tool's user may not search (``PermissionError`` from ``disk_usage``).
- transient, unknown outcome: ``TimeoutExpired`` from ``wait`` on a process still running
  (a job that has not finished yet, a process that ignores the stop signal it was sent, a
  command that outlives the timeout): the same call later is expected to succeed, and the
  signal or command may already have had effects. Transient, not executed: a command
  ``psutil.Popen`` could not start because the user is at its ``RLIMIT_NPROC`` (fork's
  ``EAGAIN``, "Resource temporarily unavailable": a slot frees when one of the user's
  processes ends).

Not triggered: unknown sensors (psutil returns dictionaries of what the machine has; the
lookup by name is the tool's own ``KeyError``, and a container has no sensors); CPU numbers
out of range (the message lists this machine's CPUs); a soft limit above the hard limit
(whether the kernel answers EINVAL or EPERM depends on the capabilities of the container);
``ESRCH`` races on ``pid_exists``.

The pids of the targets are written as names in the stored texts (``ctx.name_port``), and a
target whose pid appears as a number in any stored corpus text is started again, so that the
names replace nothing else.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import generate
from generate import Case

from . import _files
from ._common import NE, UO, A, F, T, U, catch

LIBRARY = "psutil"
REQUIRES = ["psutil==7.2.2"]

INFO, SNAP, LIST, SIG, STOP, WAIT = (
    "process_info",
    "process_snapshot",
    "list_processes",
    "signal_process",
    "stop_process",
    "wait_for_exit",
)
NICE, IONICE, AFFINITY, GETLIM, SETLIM = (
    "set_priority",
    "set_io_priority",
    "set_cpu_affinity",
    "get_resource_limit",
    "set_resource_limit",
)
MEM, CPU, CONN, DISK, RUN = "memory_usage", "cpu_usage", "list_connections", "disk_usage", "run_command"

OTHER_UID = 1  # "daemon" on Debian: neither root nor the tools' nobody
NOBODY = _files.NOBODY
STALE_PID, MISSING_PID = 4000002, 4000001  # below the 64-bit pid_max, not in use
DATA = Path(__file__).parent / "data"


def available() -> str | None:
    if os.name != "posix" or not Path("/proc/self/stat").exists():
        return "needs Linux's /proc"
    if os.geteuid() != 0:
        return "needs root: the target processes run as other users (uid 1, nobody)"
    for program in ("sleep", "true"):
        if shutil.which(program) is None:
            return f"{program} is not installed (coreutils)"
    return None


class _Pids:
    """Target processes whose pids stand as names in the stored texts."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.procs: list[subprocess.Popen[bytes]] = []
        numbers: set[int] = set(generate._normalise_ports)
        for path in sorted(DATA.glob("*.jsonl")):
            text = path.read_text(encoding="utf-8")
            numbers.update(int(n) for n in re.findall(r"(?<!\d)\d{1,9}(?!\d)", text))
        self.avoid = numbers | {STALE_PID, MISSING_PID}

    def usable(self, pid: int) -> bool:
        return pid >= 1000 and pid not in self.avoid

    def name(self, pid: int, label: str) -> None:
        self.avoid.add(pid)
        self.ctx.name_port(pid, label)

    def spawn(self, label: str, program: Path, args: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        for _ in range(5000):
            proc = subprocess.Popen(
                args,
                executable=str(program),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                **kwargs,
            )
            if self.usable(proc.pid):
                self.name(proc.pid, label)
                self.procs.append(proc)
                return proc
            proc.kill()
            proc.wait()
        raise RuntimeError(f"no usable pid for {label}")

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=10)


@contextmanager
def _as_nobody() -> Iterator[None]:
    """The block runs as ``nobody``: real and effective user and group ids, no supplementary
    groups (the kernel's checks of kill(2), prlimit(2) and ptrace access compare the real ids
    too); the saved user id stays root's, to come back."""
    groups = os.getgroups()
    os.setgroups([])
    os.setresgid(NOBODY, NOBODY, 0)
    os.setresuid(NOBODY, NOBODY, 0)
    try:
        yield
    finally:
        os.setresuid(0, 0, 0)
        os.setresgid(0, 0, 0)
        os.setgroups(groups)


def _ignore_stop_signals() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def cases(ctx: Any) -> Iterator[Case]:
    import psutil

    tmp: Path = ctx.tmp
    # the targets' programs: symlinks named as the process shows (comm), reachable by
    # the other users
    tmp.chmod(tmp.stat().st_mode | 0o011)
    bin_dir, run = tmp / "bin", tmp / "run"
    bin_dir.mkdir(mode=0o755)
    run.mkdir(mode=0o755)
    sleep, true = shutil.which("sleep"), shutil.which("true")
    assert sleep is not None and true is not None
    programs = {}
    for name, target in [
        ("export-job", sleep),
        ("report-worker", sleep),
        ("queue-drainer", sleep),
        ("backup-agent", sleep),
        ("thumbnailer", true),
    ]:
        (bin_dir / name).symlink_to(target)
        programs[name] = bin_dir / name
    (tmp / "private").mkdir(mode=0o700)
    (tmp / "private" / "ledger").mkdir()

    pids = _Pids(ctx)
    as_other = {"user": OTHER_UID, "group": OTHER_UID, "extra_groups": []}
    as_nobody = {"user": NOBODY, "group": NOBODY, "extra_groups": []}
    try:
        export = pids.spawn("EXPORTPID", programs["export-job"], ["sleep", "300"], **as_other)
        worker = pids.spawn("WORKERPID", programs["report-worker"], ["sleep", "300"], **as_nobody)
        drainer = pids.spawn(
            "DRAINERPID",
            programs["queue-drainer"],
            ["sleep", "300"],
            preexec_fn=_ignore_stop_signals,
            **as_nobody,
        )
        zombie = pids.spawn("ZOMBIEPID", programs["thumbnailer"], ["true"], **as_nobody)
        backup = pids.spawn("BACKUPPID", programs["backup-agent"], ["sleep", "300"], **as_nobody)
        deadline = time.monotonic() + 10
        while psutil.Process(zombie.pid).status() != psutil.STATUS_ZOMBIE:
            assert time.monotonic() < deadline, "the thumbnailer did not exit"
            time.sleep(0.01)
        for name, value in [
            ("export-job.pid", export.pid),
            ("report-worker.pid", worker.pid),
            ("queue-drainer.pid", drainer.pid),
            ("thumbnailer.pid", zombie.pid),
            ("nightly.pid", STALE_PID),
            ("cron.pid", 0),
            ("sync.pid", -1),
        ]:
            (run / name).write_text(f"{value}\n")
            (run / name).chmod(0o644)
        with _as_nobody():
            out = list(_cases(ctx, pids, backup))
    finally:
        pids.stop()
    yield from out


def _cases(ctx: Any, pids: _Pids, backup: subprocess.Popen[bytes]) -> Iterator[Case]:
    import psutil

    tmp: Path = ctx.tmp

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> Case:
        return Case(f"psutil-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    def by_name(name: str) -> Any:
        """The tool's lookup of a process by name (its only match)."""
        found = [p for p in psutil.process_iter(["name"]) if p.info["name"] == name]
        assert len(found) == 1, (name, found)
        return found[0]

    def by_pidfile(path: str) -> Any:
        return psutil.Process(int((tmp / path).read_text().strip()))

    def target(args: dict[str, Any]) -> Any:
        if "pidfile" in args:
            return by_pidfile(args["pidfile"])
        if "name" in args:
            return by_name(args["name"])
        return psutil.Process(args["pid"])

    def info(args: dict[str, Any]) -> Callable[[], Any]:
        def call() -> Any:
            proc = target(args)
            return {field: getattr(proc, field)() for field in args["fields"]}

        return call

    signals = {"SIGTERM": "terminate", "SIGKILL": "kill"}

    def send(args: dict[str, Any]) -> Callable[[], Any]:
        def call() -> Any:
            proc = target(args)
            how = signals.get(args["signal"]) if isinstance(args["signal"], str) else None
            return getattr(proc, how)() if how else proc.send_signal(args["signal"])

        return call

    # ambiguous: processes the model named that are not there (any more), and pid files
    ambiguous: list[tuple[str, str, str, dict[str, Any], Callable[[], Any]]] = []
    assert not psutil.pid_exists(MISSING_PID)
    args: dict[str, Any] = {"pid": MISSING_PID, "fields": ["name", "cmdline"]}
    ambiguous.append(("pid-not-found", "no process has the pid the model wrote", INFO, args, info(args)))
    for cid, cause, tool, args in [
        (
            "pidfile-stale",
            "pid file holds the pid of a process that is gone",
            SIG,
            {"pidfile": "run/nightly.pid", "signal": "SIGTERM"},
        ),
        ("pidfile-zero", "pid file holds 0", INFO, {"pidfile": "run/cron.pid", "fields": ["name"]}),
        ("pidfile-negative", "pid file holds -1", INFO, {"pidfile": "run/sync.pid", "fields": ["status"]}),
        (
            "pidfile-zombie",
            "pid file names a process that exited (a zombie)",
            INFO,
            {"pidfile": "run/thumbnailer.pid", "fields": ["cmdline"]},
        ),
        ("zombie-cwd", "working directory of a zombie", INFO, {"name": "thumbnailer", "fields": ["cwd"]}),
        (
            "zombie-memory-maps",
            "memory maps of a zombie",
            INFO,
            {"name": "thumbnailer", "fields": ["memory_maps"]},
        ),
        ("zombie-exe", "executable of a zombie", INFO, {"name": "thumbnailer", "fields": ["exe"]}),
    ]:
        fn = send(args) if tool == SIG else info(args)
        ambiguous.append((cid, cause, tool, args, fn))
    for cid, cause, tool, args, fn in ambiguous:
        yield case(cid, cause, A, None, catch(fn), tool, args)
    # the process exits between the tool's lookup and its call
    gone = by_name("backup-agent")
    backup.kill()  # the tool's user may signal its own user's process
    backup.wait()
    args = {"name": "backup-agent", "fields": ["cmdline"]}
    exc = catch(gone.cmdline)
    yield case("process-exited", "process exited between the lookup and the read", A, None, exc, INFO, args)
    args = {"name": "backup-agent", "signal": "SIGTERM"}
    exc = catch(gone.terminate)
    yield case("process-exited-signal", "process exited before the signal", A, None, exc, SIG, args)
    args = {"path": "data/archive"}
    exc = catch(lambda: psutil.disk_usage(str(tmp / args["path"])))
    yield case("disk-path-missing", "path that does not exist", A, None, exc, DISK, args)

    # unrecoverable: another user's process, and privileges the tool's user lacks
    denied: list[tuple[str, str, str, dict[str, Any], Callable[[], Any]]] = []
    for cid, cause, args in [
        ("environ", "environment of another user's process", {"name": "export-job", "fields": ["environ"]}),
        (
            "cwd",
            "working directory of another user's process",
            {"pidfile": "run/export-job.pid", "fields": ["cwd"]},
        ),
        ("exe", "executable of another user's process", {"name": "export-job", "fields": ["exe"]}),
        (
            "open-files",
            "open files of another user's process",
            {"name": "export-job", "fields": ["open_files"]},
        ),
    ]:
        denied.append((f"denied-{cid}", cause, INFO, args, info(args)))
    for cid, cause, args in [
        ("kill", "SIGKILL to another user's process", {"pidfile": "run/export-job.pid", "signal": "SIGKILL"}),
        ("terminate", "SIGTERM to another user's process", {"name": "export-job", "signal": "SIGTERM"}),
    ]:
        denied.append((f"denied-{cid}", cause, SIG, args, send(args)))
    args = {"name": "export-job", "kind": "tcp"}
    denied.append(
        (
            "denied-connections",
            "connections of another user's process",
            CONN,
            args,
            lambda: by_name("export-job").net_connections(kind="tcp"),
        )
    )
    args = {"name": "export-job", "nice": 10}
    denied.append(
        (
            "denied-nice-other",
            "nice value of another user's process",
            NICE,
            args,
            lambda: by_name("export-job").nice(10),
        )
    )
    args = {"name": "report-worker", "nice": -5}
    denied.append(
        (
            "denied-nice-negative",
            "a negative nice value without the privilege",
            NICE,
            args,
            lambda: by_name("report-worker").nice(-5),
        )
    )
    args = {"name": "report-worker", "ioclass": "rt", "value": 0}
    denied.append(
        (
            "denied-ionice-realtime",
            "real-time I/O class without the privilege",
            IONICE,
            args,
            lambda: by_name("report-worker").ionice(psutil.IOPRIO_CLASS_RT, 0),
        )
    )
    args = {"name": "report-worker", "resource": "nofile", "soft": 1024, "hard": 10_000_000}
    denied.append(
        (
            "denied-rlimit-raise",
            "raising a hard limit without the privilege",
            SETLIM,
            args,
            lambda: by_name("report-worker").rlimit(psutil.RLIMIT_NOFILE, (1024, 10_000_000)),
        )
    )
    args = {"pidfile": "run/export-job.pid", "resource": "nofile"}
    denied.append(
        (
            "denied-rlimit-read",
            "limits of another user's process",
            GETLIM,
            args,
            lambda: by_pidfile("run/export-job.pid").rlimit(psutil.RLIMIT_NOFILE),
        )
    )
    args = {"path": "private/ledger"}
    denied.append(
        (
            "denied-disk-path",
            "a directory the tool's user may not search",
            DISK,
            args,
            lambda: psutil.disk_usage(str(tmp / "private" / "ledger")),
        )
    )
    for cid, cause, tool, args, fn in denied:
        yield case(cid, cause, U, None, catch(fn), tool, args)

    # fixable: values the model wrote
    fixable: list[tuple[str, str, str, dict[str, Any], Callable[[], Any]]] = []
    for cid, cause, args in [
        ("pid-negative", "negative pid", {"pid": -1, "fields": ["name"]}),
        ("pid-string", "pid given as a string", {"pid": "4242", "fields": ["name"]}),
        ("pid-float", "pid given as a float", {"pid": 42.5, "fields": ["name"]}),
    ]:
        fixable.append((cid, cause, INFO, args, info(args)))
    for cid, cause, args in [
        (
            "signal-unknown",
            "signal number the kernel does not know",
            {"name": "report-worker", "signal": 999},
        ),
        ("signal-string", "signal number given as a string", {"name": "report-worker", "signal": "15"}),
    ]:
        fixable.append((cid, cause, SIG, args, send(args)))
    worker = lambda: by_name("report-worker")  # noqa: E731 - the tool's lookup, called in each case
    calls: list[tuple[str, str, str, dict[str, Any], Callable[[], Any]]] = [
        (
            "nice-string",
            "nice value that is not an integer",
            NICE,
            {"name": "report-worker", "nice": "low"},
            lambda: worker().nice("low"),
        ),
        (
            "ionice-idle-value",
            "a priority value with the idle I/O class",
            IONICE,
            {"name": "report-worker", "ioclass": "idle", "value": 3},
            lambda: worker().ionice(psutil.IOPRIO_CLASS_IDLE, 3),
        ),
        (
            "ionice-value-range",
            "best-effort I/O priority out of 0-7",
            IONICE,
            {"name": "report-worker", "ioclass": "be", "value": 9},
            lambda: worker().ionice(psutil.IOPRIO_CLASS_BE, 9),
        ),
        (
            "rlimit-resource",
            "unknown resource number",
            GETLIM,
            {"name": "report-worker", "resource": 999},
            lambda: worker().rlimit(999),
        ),
        (
            "rlimit-tuple",
            "limits given as three numbers",
            SETLIM,
            {"name": "report-worker", "resource": "nofile", "limits": [256, 512, 1024]},
            lambda: worker().rlimit(psutil.RLIMIT_NOFILE, (256, 512, 1024)),
        ),
        (
            "affinity-string",
            "CPU list given as a string",
            AFFINITY,
            {"name": "report-worker", "cpus": "0-3"},
            lambda: worker().cpu_affinity("0-3"),
        ),
        (
            "snapshot-attrs-string",
            "attributes given as a string",
            SNAP,
            {"name": "report-worker", "attrs": "name"},
            lambda: worker().as_dict(attrs="name"),
        ),
        (
            "list-unknown-attr",
            "attribute that is not psutil's",
            LIST,
            {"attrs": ["pid", "cpu"]},
            lambda: list(psutil.process_iter(attrs=["pid", "cpu"])),
        ),
        (
            "snapshot-unknown-attr",
            "attribute name misspelled",
            SNAP,
            {"name": "report-worker", "attrs": ["nmae", "status"]},
            lambda: worker().as_dict(attrs=["nmae", "status"]),
        ),
        (
            "memtype-unknown",
            "memory type not in psutil's list",
            MEM,
            {"name": "report-worker", "memtype": "rss2"},
            lambda: worker().memory_percent(memtype="rss2"),
        ),
        (
            "cpu-interval-negative",
            "negative sampling interval",
            CPU,
            {"interval": -1},
            lambda: psutil.cpu_percent(interval=-1),
        ),
        (
            "cpu-interval-string",
            "sampling interval given as a string",
            CPU,
            {"name": "report-worker", "interval": "1s"},
            lambda: worker().cpu_percent(interval="1s"),
        ),
        (
            "connections-kind",
            "connection kind not in psutil's list",
            CONN,
            {"kind": "tcp7"},
            lambda: psutil.net_connections(kind="tcp7"),
        ),
        (
            "process-connections-kind",
            "connection kind that is a protocol name",
            CONN,
            {"name": "report-worker", "kind": "http"},
            lambda: worker().net_connections(kind="http"),
        ),
        (
            "wait-timeout-negative",
            "negative wait timeout",
            WAIT,
            {"name": "report-worker", "timeout": -1},
            lambda: worker().wait(timeout=-1),
        ),
        (
            "wait-timeout-string",
            "wait timeout given as a string",
            WAIT,
            {"name": "report-worker", "timeout": "30s"},
            lambda: worker().wait(timeout="30s"),
        ),
        (
            "wait-procs-timeout",
            "negative timeout for several processes",
            WAIT,
            {"names": ["report-worker"], "timeout": -5},
            lambda: psutil.wait_procs([worker()], timeout=-5),
        ),
        ("disk-path-empty", "empty path", DISK, {"path": ""}, lambda: psutil.disk_usage("")),
    ]
    fixable.extend(calls)
    for cid, cause, tool, args, fn in fixable:
        yield case(cid, cause, F, None, catch(fn), tool, args)

    # transient: waits that time out while the process still runs
    for cid, cause, tool, args, fn in [
        (
            "wait-running",
            "job still running when the wait times out",
            WAIT,
            {"name": "report-worker", "timeout": 0.2},
            lambda: worker().wait(timeout=0.2),
        ),
        (
            "wait-running-pidfile",
            "another user's job still running when the wait times out",
            WAIT,
            {"pidfile": "run/export-job.pid", "timeout": 0.2},
            lambda: by_pidfile("run/export-job.pid").wait(timeout=0.2),
        ),
        (
            "stop-ignored-term",
            "process ignores SIGTERM past the stop timeout",
            STOP,
            {"pidfile": "run/queue-drainer.pid", "signal": "SIGTERM", "timeout": 0.3},
            lambda: _stop(by_pidfile("run/queue-drainer.pid"), signal.SIGTERM, 0.3),
        ),
        (
            "stop-ignored-int",
            "process ignores SIGINT past the stop timeout",
            STOP,
            {"name": "queue-drainer", "signal": "SIGINT", "timeout": 0.3},
            lambda: _stop(by_name("queue-drainer"), signal.SIGINT, 0.3),
        ),
    ]:
        yield case(cid, cause, T, UO, catch(fn), tool, args)
    args = {"command": ["sleep", "5"], "timeout": 0.1}
    yield case("run-timeout", "command still running at its timeout", T, UO, _run_timeout(pids), RUN, args)
    # the tool's user already runs as many processes as its RLIMIT_NPROC allows
    soft, hard = resource.getrlimit(resource.RLIMIT_NPROC)
    resource.setrlimit(resource.RLIMIT_NPROC, (1, hard))
    try:
        exc = catch(lambda: psutil.Popen(["sleep", "1"], stdout=subprocess.DEVNULL).wait(timeout=5))
    finally:
        resource.setrlimit(resource.RLIMIT_NPROC, (soft, hard))
    args = {"command": ["sleep", "1"], "timeout": 5}
    yield case("run-process-limit", "user at its process limit (RLIMIT_NPROC)", T, NE, exc, RUN, args)


def _stop(proc: Any, signum: int, timeout: float) -> Any:
    proc.send_signal(signum)
    return proc.wait(timeout=timeout)


def _run_timeout(pids: _Pids) -> BaseException:
    """``run_command``: psutil.Popen, then ``wait``; again while the new pid is one that
    stored texts hold as a number."""
    import psutil

    for _ in range(5000):
        proc = psutil.Popen(["sleep", "5"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            if pids.usable(proc.pid):
                pids.name(proc.pid, "COMMANDPID")
                return catch(lambda: proc.wait(timeout=0.1))
        finally:
            proc.kill()
            proc.wait()
    raise RuntimeError("no usable pid for the command")
