"""Replay checkpoints shared between processes through a key-value store (issue 29).

A gateway that outgrows one process runs as several behind a load balancer. Each process
keeps its own checkpoints (``_replay``), found by the identity of the conversion cache's
message objects; a process that sees a conversation for the first time replays it whole.
With a :class:`SharedCheckpoints` on the layer (``layer.shared_checkpoints``), the shared
run scope also writes each checkpoint it keeps to the store, under a digest of the
conversation's prefix (the content of every message up to it), and a replay that finds no
checkpoint of its own looks there before replaying from the start. The answer is the same
either way (a checkpoint is only a replay's state at a prefix); only the cost differs.

The store is reached through a small protocol (:class:`CheckpointBackend`; a Redis client
by :meth:`SharedCheckpoints.redis`). It is never trusted to be up: a read waits at most
``timeout`` seconds, writes never make a request wait, and a store that fails or is slow is
left alone for ``pause`` seconds (each time with a WARNING on logger ``toolerr``); then the
replay goes on with in-process state, as without a store. Values are JSON, never pickles:
what the store holds cannot run code in the gateway.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Protocol

from ._ledger import FailureLedger
from ._repeats import RepeatReport, report_from_state, report_state
from ._types import Message

__all__ = ["CheckpointBackend", "SharedCheckpoints", "chain_digests", "message_digest"]

logger = logging.getLogger("toolerr")

_FORMAT = 1


def _core_version() -> str:
    try:
        from importlib.metadata import version

        return version("toolerr-core")
    except Exception:  # noqa: BLE001 - not installed as a distribution (a source tree)
        return "unknown"


CORE_VERSION = _core_version()
"""The installed core's version: part of every shared key (other rules, other verdicts)."""
_NO_REPORT = RepeatReport()


class CheckpointBackend(Protocol):
    """What :class:`SharedCheckpoints` needs of a store (both calls may raise; they run in
    a worker thread of their own)."""

    def get_many(self, keys: Sequence[str]) -> Sequence[bytes | str | None]:
        """The values of ``keys``, in order (``None`` for a key not there)."""
        ...

    def set(self, key: str, value: bytes, ttl: int) -> None:
        """Keep ``value`` under ``key`` for ``ttl`` seconds."""
        ...


class _RedisBackend:
    __slots__ = ("client",)

    def __init__(self, client: Any) -> None:
        self.client = client

    def get_many(self, keys: Sequence[str]) -> Sequence[bytes | str | None]:
        return list(self.client.mget(list(keys)))

    def set(self, key: str, value: bytes, ttl: int) -> None:
        self.client.set(key, value, ex=ttl)


class SharedCheckpoints:
    """Replay checkpoints kept in a store that several processes share.

    Args:
        backend: the store (:class:`CheckpointBackend`).
        namespace: the prefix of every key (``{namespace}:cp:...``).
        ttl: seconds a checkpoint is kept after it was written.
        timeout: seconds a replay waits for a read at most.
        pause: seconds the store is left alone after it failed or was slow.
        max_pending: writes waiting at most (more are dropped: a checkpoint is an
            optimisation only).
        min_calls: the calls a conversation's prefix holds at least for its checkpoint
            to be shared (a shorter one replays faster than it is fetched:
            ``benchmarks/bench_gateway_shared.py``).
    """

    def __init__(
        self,
        backend: CheckpointBackend,
        *,
        namespace: str = "toolerr:v1",
        ttl: int = 3600,
        timeout: float = 0.05,
        pause: float = 5.0,
        max_pending: int = 256,
        min_calls: int = 128,
    ) -> None:
        if ttl <= 0 or timeout <= 0 or pause < 0:
            raise ValueError("ttl and timeout must be > 0 and pause >= 0")
        self.backend = backend
        self.namespace = namespace
        self.ttl = int(ttl)
        self.timeout = float(timeout)
        self.pause = float(pause)
        self.max_pending = max_pending
        self.min_calls = min_calls
        self.stats = {"reads": 0, "hits": 0, "writes": 0, "failures": 0, "skipped": 0}
        """Counts since start: reads asked, checkpoints found, writes done, failures
        (errors and timeouts), calls skipped while paused or full."""
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="toolerr-checkpoints")
        self._lock = threading.Lock()
        self._pending = 0
        self._paused_until = 0.0

    @classmethod
    def redis(cls, client: Any, **options: Any) -> SharedCheckpoints:
        """Checkpoints in Redis through a synchronous ``redis.Redis`` client (``MGET`` and
        ``SET ... EX``); ``options`` as for the constructor."""
        return cls(_RedisBackend(client), **options)

    def key(self, tag: str, digest: bytes) -> str:
        return f"{self.namespace}:cp:{tag}:{digest.hex()}"

    @property
    def available(self) -> bool:
        """Whether the store is not paused after a failure."""
        return time.monotonic() >= self._paused_until

    def _failed(self, what: str, error: BaseException | None) -> None:
        with self._lock:
            self.stats["failures"] += 1
            self._paused_until = time.monotonic() + self.pause
        logger.warning(
            "toolerr: the shared checkpoint store failed (%s: %s); in-process state only for %.0f s",
            what,
            "timed out" if error is None else f"{type(error).__name__}: {error}",
            self.pause,
        )

    def load(self, keys: Sequence[str]) -> list[bytes | str | None]:
        """The values of ``keys`` (all ``None`` when the store is paused, fails or does not
        answer within ``timeout``)."""
        missing: list[bytes | str | None] = [None] * len(keys)
        if not keys or not self.available:
            self.stats["skipped"] += 1 if keys else 0
            return missing
        self.stats["reads"] += 1
        try:
            future = self._executor.submit(self.backend.get_many, list(keys))
            values = list(future.result(timeout=self.timeout))
        except FutureTimeout:
            self._failed("read", None)
            return missing
        except Exception as error:  # noqa: BLE001 - a store's own error, whatever it is: fail open
            self._failed("read", error)
            return missing
        if len(values) != len(keys):
            self._failed("read", ValueError(f"{len(values)} values for {len(keys)} keys"))
            return missing
        return values

    def save(self, key: str, value: bytes | Callable[[], bytes | None]) -> None:
        """Write ``value`` in the background (a callable: what it returns, computed
        there; ``None``: nothing); dropped when the store is paused or ``max_pending``
        writes wait."""
        with self._lock:
            if not self.available or self._pending >= self.max_pending:
                self.stats["skipped"] += 1
                return
            self._pending += 1
        try:
            self._executor.submit(self._write, key, value)
        except RuntimeError:  # the executor was shut down (interpreter exit)
            with self._lock:
                self._pending -= 1

    def _write(self, key: str, value: bytes | Callable[[], bytes | None]) -> None:
        try:
            data = value() if callable(value) else value
            if data is not None and self.available:
                self.backend.set(key, data, self.ttl)
                self.stats["writes"] += 1
        except Exception as error:  # noqa: BLE001 - fail open: a checkpoint is an optimisation
            self._failed("write", error)
        finally:
            with self._lock:
                self._pending -= 1

    def flush(self, timeout: float = 5.0) -> None:
        """Wait until the writes submitted so far are done (tests, shutdown)."""
        try:
            self._executor.submit(lambda: None).result(timeout=timeout)
        except FutureTimeout:
            pass

    def close(self) -> None:
        self._executor.shutdown(wait=False)


# -- digests ---------------------------------------------------------------------------

_encode = json.JSONEncoder(ensure_ascii=False, allow_nan=False, check_circular=False).encode


def message_digest(message: Message) -> bytes | None:
    """A digest of everything the replay reads of a message (role, content, calls, call
    id, name, flag, client), the same in every process for the same request body (its
    JSON text, keys in the order they came); ``None`` when the message holds what JSON
    does not write (an exception object, a verdict the adapter attached, objects)."""
    if message.exception is not None or message.verdict is not None:
        return None
    calls = [
        [c.id, c.name, c.raw_arguments if c.raw_arguments is not None else c.arguments]
        for c in message.tool_calls
    ]
    fields = [message.role, message.content, calls, message.tool_call_id, message.name, message.is_error]
    try:
        text = _encode([*fields, message.client])
    except (TypeError, ValueError, RecursionError):
        return None
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def chain_digests(messages: Sequence[Message], end: int, start: int = 0, base: bytes = b"") -> bytes | None:
    """The digest of ``messages[:end]``: each message's digest chained onto the digest of
    those before it, from ``base`` (the digest of ``messages[:start]``); ``None`` when a
    message has none."""
    digest = base
    for index in range(start, end):
        own = message_digest(messages[index])
        if own is None:
            return None
        digest = hashlib.blake2b(digest + own, digest_size=16).digest()
    return digest


# -- checkpoint values -----------------------------------------------------------------


def encode_checkpoint(
    end: int,
    calls: int,
    call_ids: frozenset[str],
    ledger: FailureLedger,
    reports: dict[int, RepeatReport],
    failed_tools: frozenset[str],
) -> bytes | None:
    """A checkpoint as the JSON a store keeps (``None``: it holds values JSON cannot write,
    such as arguments that are not JSON)."""
    value = {
        "format": _FORMAT,
        "end": end,
        "calls": calls,
        "call_ids": sorted(call_ids),
        "ledger": ledger.to_state(),
        "reports": [[i, 0 if r == _NO_REPORT else report_state(r)] for i, r in reports.items()],
        "failed_tools": sorted(failed_tools),
    }
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
    except (TypeError, ValueError, RecursionError):
        return None


def decode_checkpoint(
    value: bytes | str,
) -> tuple[int, int, frozenset[str], FailureLedger, dict[int, RepeatReport], frozenset[str]] | None:
    """What :func:`encode_checkpoint` wrote (``None``, with a WARNING, for anything else)."""
    try:
        data = json.loads(value)
        if data["format"] != _FORMAT:
            return None
        reports = {int(i): _NO_REPORT if r == 0 else report_from_state(r) for i, r in data["reports"]}
        return (
            int(data["end"]),
            int(data["calls"]),
            frozenset(map(str, data["call_ids"])),
            FailureLedger.from_state(data["ledger"]),
            reports,
            frozenset(map(str, data["failed_tools"])),
        )
    except (TypeError, ValueError, KeyError, IndexError, RecursionError) as error:
        logger.warning("toolerr: a shared checkpoint could not be read (%s); replaying instead", error)
        return None
