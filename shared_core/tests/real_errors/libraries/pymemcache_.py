"""pymemcache against real ``memcached`` processes (Debian package ``memcached``) on
127.0.0.1: one with a connection limit, an idle timeout and ``flush_all`` disabled
(``-F``), one with ASCII authentication (``-Y`` auth file), one with a tiny memory and no
evictions (``-M``), one with CAS, dumping and watch disabled (``-C -X -W``); a server
paused with SIGSTOP (timeouts), killed during a request; the client's own key and argument
checks, its serde decoding values another writer stored, its pool and hash clients.

Labels by the cause set up, following ``redis_py.py``: a key, value or argument the model
wrote that the client or server rejects (bad key, non-integer, delta out of range, value
over ``-I``, unknown command) is fixable; a value stored by another writer that does not
decode (flagged integer, not one) is ambiguous; authentication, a command the operator disabled and memory exhausted
with evictions off are unrecoverable; the connection limit, refused connections, DNS, a
missing socket, a connection the server closed while idle and an exhausted client pool are
transient, not executed; a read timeout and a server dying mid-request are transient with
an unknown outcome. Protocol replies: memcached's protocol.txt
(https://github.com/memcached/memcached/blob/master/doc/protocol.txt), ASCII auth:
https://github.com/memcached/memcached/wiki/ReleaseNotes1515."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from generate import Case

from ._common import NE, UO, A, F, T, U, catch, free_port, once_served, process

LIBRARY = "pymemcache"
REQUIRES = ["pymemcache>=4,<5"]


def available() -> str | None:
    if shutil.which("memcached") is None:
        return "memcached is not installed (Debian package memcached)"
    return None


@contextmanager
def _server(*extra: str) -> Iterator[tuple[int, Any]]:
    port = free_port()
    args = ["memcached", "-p", str(port), "-l", "127.0.0.1", "-U", "0", "-t", "1", *extra]
    if os.geteuid() == 0:
        args += ["-u", "root"]
    with process(args, port) as proc:
        yield port, proc


def _client(port: int, **kwargs: Any) -> Any:
    from pymemcache.client.base import Client

    kwargs.setdefault("connect_timeout", 1.0)
    kwargs.setdefault("timeout", 1.0)
    kwargs.setdefault("default_noreply", False)
    return Client(("127.0.0.1", port), **kwargs)


def cases(ctx: Any) -> Iterator[Case]:
    from pymemcache import serde
    from pymemcache.client.base import PooledClient
    from pymemcache.client.hash import HashClient
    from pymemcache.exceptions import MemcacheError, MemcacheUnknownCommandError

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        args: dict[str, Any] = GET_NAME,
    ) -> Case:
        """A case of the ``cache`` tool; ``args``: the model's arguments (the servers'
        addresses and the credentials are the tool's configuration)."""
        return Case(f"memcache-{cid}", LIBRARY, cause, kind, outcome, exc, "cache", args)

    with _server("-c", "30", "-F", "-o", "idle_timeout=1") as (port, proc):
        ctx.name_port(port, "MCPORT")
        mc = lambda: _client(port)  # noqa: E731 - a fresh connection per call
        mc().set("name", "ann")
        mc().set("count", "5")
        mc().set("number", b"forty-two", flags=serde.FLAG_INTEGER)
        mc().set("latin", b"caf\xe9", flags=serde.FLAG_TEXT)
        mc().set("packed", b"not zlib", flags=serde.FLAG_COMPRESSED)
        # (id, cause, kind, the model's arguments, the call)
        calls: list[tuple[str, str, str, dict[str, Any], Any]] = [
            (
                "key-space",
                "key with a space",
                F,
                {"op": "set", "key": "user name", "value": "x"},
                lambda: mc().set("user name", "x"),
            ),
            (
                "key-newline",
                "key with a newline",
                F,
                {"op": "get", "key": "user\nname"},
                lambda: mc().get("user\nname"),
            ),
            (
                "key-long",
                "key longer than 250 bytes",
                F,
                {"op": "set", "key": "k" * 300, "value": "x"},
                lambda: mc().set("k" * 300, "x"),
            ),
            (
                "key-null",
                "key with a NUL byte",
                F,
                {"op": "get", "key": "user\x00name"},
                lambda: mc().get("user\x00name"),
            ),
            (
                "key-unicode",
                "non-ASCII key",
                F,
                {"op": "set", "key": "café", "value": "x"},
                lambda: mc().set("café", "x"),
            ),
            ("key-none", "key is None", F, {"op": "get", "key": None}, lambda: mc().get(None)),
            (
                "get-many-key",
                "one bad key in get_many",
                F,
                {"op": "get_many", "keys": ["name", "bad key"]},
                lambda: mc().get_many(["name", "bad key"]),
            ),
            (
                "delete-many-key",
                "one bad key in delete_many",
                F,
                {"op": "delete_many", "keys": ["a", "b\tc"]},
                lambda: mc().delete_many(["a", "b\tc"]),
            ),
            (
                "expire-type",
                "expire not an integer",
                F,
                {"op": "set", "key": "k", "value": "v", "expire": "1h"},
                lambda: mc().set("k", "v", expire="1h"),
            ),
            (
                "touch-type",
                "touch expire not an integer",
                F,
                {"op": "touch", "key": "name", "expire": "soon"},
                lambda: mc().touch("name", expire="soon"),
            ),
            (
                "cas-token",
                "CAS token not numeric",
                F,
                {"op": "cas", "key": "name", "value": "bob", "cas": "abc"},
                lambda: mc().cas("name", "bob", cas="abc"),
            ),
            (
                "incr-type",
                "incr delta not an integer",
                F,
                {"op": "incr", "key": "count", "delta": "1"},
                lambda: mc().incr("count", "1"),
            ),
            (
                "decr-type",
                "decr delta a float",
                F,
                {"op": "decr", "key": "count", "delta": 1.5},
                lambda: mc().decr("count", 1.5),
            ),
            (
                "memlimit-type",
                "cache_memlimit not an integer",
                F,
                {"op": "cache_memlimit", "memlimit": "1g"},
                lambda: mc().cache_memlimit("1g"),
            ),
            (
                "incr-negative",
                "negative incr delta (server)",
                F,
                {"op": "incr", "key": "count", "delta": -1},
                lambda: mc().incr("count", -1),
            ),
            (
                "incr-huge",
                "incr delta beyond 64 bits (server)",
                F,
                {"op": "incr", "key": "count", "delta": 2**70},
                lambda: mc().incr("count", 2**70),
            ),
            (
                "incr-text",
                "incr of a non-numeric value",
                F,
                {"op": "incr", "key": "name", "delta": 1},
                lambda: mc().incr("name", 1),
            ),
            (
                "too-large",
                "value over the maximum item size",
                F,
                # the value the model wrote is 1,100,000 characters: its first 200 here
                {"op": "set", "key": "big", "value": "x" * 200 + "..."},
                lambda: mc().set("big", b"x" * 1_100_000),
            ),
            (
                "unknown-command",
                "unknown command",
                F,
                {"op": "raw", "command": "fetch name"},
                lambda: mc().raw_command("fetch name"),
            ),
            (
                "stats-unknown",
                "unknown stats group",
                F,
                {"op": "stats", "args": ["nosuchgroup"]},
                lambda: mc().stats("nosuchgroup"),
            ),
            (
                "memlimit-small",
                "cache_memlimit below the minimum",
                F,
                {"op": "cache_memlimit", "memlimit": 1},
                lambda: mc().cache_memlimit(1),
            ),
            (
                "verbosity-arg",
                "verbosity level not a number",
                F,
                {"op": "raw", "command": "verbosity high"},
                lambda: mc().raw_command("verbosity high"),
            ),
            (
                "int-flag",
                "stored value flagged integer that is not one",
                A,
                {"op": "get", "key": "number"},
                lambda: _client(port, serde=serde.pickle_serde).get("number"),
            ),
            (
                "text-flag",
                "stored value flagged text that is not UTF-8",
                A,
                {"op": "get", "key": "latin"},
                lambda: _client(port, serde=serde.pickle_serde).get("latin"),
            ),
            (
                "compressed-flag",
                "stored value flagged compressed that is not zlib",
                A,
                {"op": "get", "key": "packed"},
                lambda: _client(port, serde=serde.CompressedSerde()).get("packed"),
            ),
            (
                "data-chunk",
                "raw set whose data is longer than its declared size",
                F,
                {"op": "raw", "command": "set k 0 0 5\r\nabcdefghij"},
                lambda: mc().raw_command("set k 0 0 5\r\nabcdefghij"),
            ),
            (
                "stats-usage",
                "stats detail with an unknown argument",
                F,
                {"op": "stats", "args": ["detail", "everything"]},
                lambda: mc().stats("detail", "everything"),
            ),
            (
                "flags-negative",
                "negative client flags",
                F,
                {"op": "set", "key": "k", "value": "v", "flags": -1},
                lambda: mc().set("k", "v", flags=-1),
            ),
            (
                "meta-flag",
                "meta get with an invalid flag",
                F,
                {"op": "raw", "command": "mg name zz"},
                lambda: mc().raw_command("mg name zz"),
            ),
            (
                "flush-disabled",
                "flush_all disabled by the operator (-F)",
                U,
                {"op": "flush_all"},
                lambda: mc().flush_all(),
            ),
            (
                "shutdown-disabled",
                "shutdown not enabled on the server",
                U,
                {"op": "shutdown"},
                lambda: mc().shutdown(),
            ),
        ]
        for cid, cause, kind, args, fn in calls:
            yield case(cid, cause, kind, None, catch(fn), args)
        # the connection limit (-c)
        held = []
        exc = None
        for _ in range(40):
            c = mc()
            try:
                c.version()
            except Exception as e:
                exc = e
                break
            held.append(c)
        assert exc is not None
        yield case("max-connections", "too many open connections", T, NE, exc, {"op": "version"})
        for c in held:
            c.close()
        # a connection the server closed while idle (-o idle_timeout), opened once the
        # server has seen the held connections close (on a slow machine it answers
        # "ERROR Too many open connections" for a while after the client closed them)
        idle = once_served(lambda: _used(_client(port)), MemcacheUnknownCommandError)
        probe = socket.create_connection(("127.0.0.1", port))
        probe.settimeout(8)
        assert probe.recv(1) == b""  # the server closed the idle probe (and idle, opened first)
        probe.close()
        yield case(
            "idle-closed",
            "connection closed by the server's idle timeout",
            T,
            NE,
            catch(lambda: idle.get("name")),
        )
        # a paused server: the read times out
        os.kill(proc.pid, signal.SIGSTOP)
        try:
            slow = _client(port, timeout=0.3)
            yield case(
                "timeout", "read timeout (server not answering)", T, UO, catch(lambda: slow.get("name"))
            )
            # the one pooled connection stays taken (its read waits 2 s) while the next call asks
            pool = PooledClient(("127.0.0.1", port), connect_timeout=1, timeout=2, max_pool_size=1)
            busy = threading.Thread(target=lambda: catch(lambda: pool.get("name")))
            busy.start()
            time.sleep(0.5)
            yield case(
                "pool-exhausted", "client pool at max_pool_size", T, NE, catch(lambda: pool.get("name"))
            )
            busy.join()
            # the server dies while a request waits for its reply
            victim = _client(port, timeout=3)
            errors: list[BaseException] = []
            waiting = threading.Thread(target=lambda: errors.append(catch(lambda: victim.set("name", "bob"))))
            waiting.start()
            time.sleep(1.0)  # the request is sent (and waits) before the kill
        finally:
            proc.kill()
        waiting.join()
        args = {"op": "set", "key": "name", "value": "bob"}
        yield case("server-died", "server killed during the request", T, UO, errors[0], args)
    # ASCII authentication (-Y)
    auth = Path(ctx.tmp) / "auth"
    auth.write_text("app:s3cret\n")
    with _server("-Y", str(auth)) as (port, _):
        ctx.name_port(port, "MCPORT2")
        yield case(
            "unauthenticated", "authentication required", U, None, catch(lambda: _client(port).get("name"))
        )
        exc = catch(lambda: _client(port).set("auth", "app wrong"))
        yield case("wrong-password", "wrong password", U, None, exc)
        exc = catch(lambda: _client(port).set("auth", "nobody s3cret"))
        yield case("unknown-user", "unknown user", U, None, exc)
    # memory exhausted, evictions disabled (-M)
    with _server("-m", "2", "-M") as (port, _):
        ctx.name_port(port, "MCPORT3")
        c = _client(port)
        exc = None
        for i in range(400):
            try:
                c.set(f"fill:{i}", b"x" * 100_000)
            except Exception as e:
                exc = e
                # the value the model wrote is 100,000 characters: its first 200 here
                args = {"op": "set", "key": f"fill:{i}", "value": "x" * 200 + "..."}
                break
        assert exc is not None
        yield case("out-of-memory", "memory full, evictions disabled", U, None, exc, args)
    # CAS, dumping and watch disabled by the operator
    with _server("-C", "-X", "-W") as (port, _):
        ctx.name_port(port, "MCPORT4")
        exc = catch(lambda: _client(port).raw_command("lru_crawler metadump all"))
        yield case("dump-disabled", "metadump disabled (-X)", U, None, exc, raw("lru_crawler metadump all"))
        exc = catch(lambda: _client(port).raw_command("watch fetchers"))
        yield case("watch-disabled", "watch disabled (-W)", U, None, exc, raw("watch fetchers"))
    # connections that never reach a server
    yield case("refused", "connection refused", T, NE, catch(lambda: _client(ctx.dead).get("name")))
    exc = catch(lambda: _client_host("cache.nonexistent.invalid").get("name"))
    yield case("dns", "DNS name does not resolve", T, NE, exc)
    from pymemcache.client.base import Client

    exc = catch(lambda: Client(str(Path(ctx.tmp) / "memcached.sock"), connect_timeout=1).get("name"))
    yield case("unix-socket-missing", "unix socket of a server not running", T, NE, exc)
    hashed = HashClient(
        [("127.0.0.1", ctx.dead), ("127.0.0.1", free_port())],
        connect_timeout=0.2,
        retry_attempts=0,
        dead_timeout=60,
        ignore_exc=False,
    )
    exc = None
    for _ in range(10):  # each server fails, is marked dead, then none is left
        try:
            hashed.get("name")
        except MemcacheError as e:
            exc = e
            break
        except OSError:
            pass
    assert exc is not None
    yield case("all-servers-down", "every server of the hash ring down", T, NE, exc)
    with _server() as (port, _):
        ctx.name_port(port, "MCPORT5")
        ctx_tls = ssl.create_default_context()
        exc = catch(lambda: _client(port, tls_context=ctx_tls, connect_timeout=1, timeout=1).get("name"))
        yield case("tls-plain-server", "TLS client against a plain-text server", U, None, exc)
    exc = catch(lambda: _client(ctx.port).get("name"))
    yield case("not-memcached", "configured address is an HTTP server, not memcached", U, None, exc)


GET_NAME: dict[str, Any] = {"op": "get", "key": "name"}


def raw(command: str) -> dict[str, Any]:
    return {"op": "raw", "command": command}


def _used(client: Any) -> Any:
    """``client`` after one read (it raises ``ERROR``, an unknown command to pymemcache, while
    the server is still at its connection limit), closed if that failed."""
    try:
        client.get("name")
    except Exception:
        client.close()
        raise
    return client


def _client_host(host: str) -> Any:
    from pymemcache.client.base import Client

    return Client((host, 11211), connect_timeout=1, timeout=1)
