# ruff: noqa: B023 - each lambda is called at once
"""redis-py against real ``redis-server`` processes (Debian package ``redis-server``) on
127.0.0.1: a primary with ACL users, a password-protected one, one at ``maxmemory``, a
replica, and the client's own errors."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from generate import Case

from ._common import NE, UO, A, F, T, U, catch, free_port, once_served, process

LIBRARY = "redis"
REQUIRES = ["redis>=5,<7"]


def available() -> str | None:
    if shutil.which("redis-server") is None:
        return "redis-server is not installed (Debian package redis-server)"
    return None


@contextmanager
def _server(tmp: Path, name: str, *extra: str, reuse: bool = False) -> Iterator[int]:
    port = free_port()
    work = tmp / name
    work.mkdir(exist_ok=reuse)
    args = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", str(work)]
    args += ["--save", "", "--appendonly", "no", "--logfile", "", "--daemonize", "no", *extra]
    with process(args, port):
        yield port


def _client(port: int, **kwargs: Any) -> Any:
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    kwargs.setdefault("socket_timeout", 2.0)
    return redis.Redis(host="127.0.0.1", port=port, retry=Retry(NoBackoff(), 0), **kwargs)


def cases(ctx: Any) -> Iterator[Case]:
    import redis

    def case(
        cid: str, cause: str, kind: str, outcome: str | None, exc: BaseException, arguments: dict[str, Any]
    ) -> Case:
        return Case(f"redis-{cid}", LIBRARY, cause, kind, outcome, exc, "redis", arguments=arguments)

    def cmd(*args: Any) -> dict[str, Any]:
        """The model's arguments: the command's words (host, port and password are the tool's;
        bytes, such as a DUMP payload the model copied from an earlier answer, as Latin-1)."""
        return {"command": [a.decode("latin-1") if isinstance(a, bytes) else a for a in args]}

    with _server(ctx.tmp, "main", "--enable-debug-command", "yes", "--maxclients", "12") as port:
        ctx.name_port(port, "REDISPORT")
        r = _client(port)
        r.rpush("queue", "a", "b")
        r.set("name", "ann")
        r.set("count", str(2**63 - 1))
        r.hset("user:1", mapping={"name": "ann", "age": "x"})
        r.xadd("events", {"k": "v"}, id="5-0")
        r.xgroup_create("events", "workers", id="0")
        r.zadd("board", {"ann": 1})
        r.sadd("tags", "x", "y")
        r.geoadd("places", (2.35, 48.85, "paris"))
        run = r.execute_command
        commands: list[tuple[str, str, str, tuple[Any, ...]]] = [
            ("wrongtype", "WRONGTYPE: string command on a list", F, ("GET", "queue")),
            ("unknown-command", "unknown command", F, ("NOSUCHCMD", "x")),
            ("wrong-arity", "wrong number of arguments", F, ("GET",)),
            ("syntax", "syntax error (unknown SET option)", F, ("SET", "k", "v", "BADOPT")),
            ("not-integer", "value is not an integer (INCR on text)", F, ("INCR", "name")),
            ("overflow", "increment would overflow", F, ("INCRBY", "count", "10")),
            ("not-float", "value is not a valid float", F, ("ZADD", "board", "abc", "bob")),
            ("index-range", "list index out of range", F, ("LSET", "queue", "100", "x")),
            ("no-such-key", "no such key (RENAME of a missing key)", A, ("RENAME", "nokey", "other")),
            ("expire-invalid", "invalid expire time", F, ("SET", "k", "v", "EX", "0")),
            ("db-index", "DB index out of range", F, ("SELECT", "99")),
            ("config-unknown", "unknown CONFIG SET option", F, ("CONFIG", "SET", "nosuch", "1")),
            ("config-protected", "protected config (CONFIG SET dir)", U, ("CONFIG", "SET", "dir", "/tmp")),
            ("nx-xx", "incompatible options XX and NX", F, ("ZADD", "board", "XX", "NX", "1", "a")),
            ("zadd-incr", "INCR option with several pairs", F, ("ZADD", "board", "INCR", "1", "a", "2", "b")),
            ("bit-offset", "bit offset out of range", F, ("SETBIT", "bits", "-1", "1")),
            ("bit-value", "bit value not 0 or 1", F, ("SETBIT", "bits", "0", "5")),
            ("bitfield-type", "invalid bitfield type", F, ("BITFIELD", "bf", "GET", "x9", "0")),
            ("setrange-size", "string exceeds the maximum size", F, ("SETRANGE", "big", str(2**40), "x")),
            ("sort-not-number", "SORT of non-numeric values", F, ("SORT", "tags")),
            ("subcommand", "unknown subcommand", F, ("OBJECT", "NOSUCH", "k")),
            ("minmax", "min or max is not a float", F, ("ZRANGEBYSCORE", "board", "low", "high")),
            ("negative-count", "count must be positive", F, ("LPOP", "queue", "-1")),
            ("block-timeout", "negative timeout", F, ("BLPOP", "queue", "-1")),
            ("cursor", "invalid cursor", F, ("SCAN", "abc")),
            ("geo-range", "invalid longitude,latitude pair", F, ("GEOADD", "places", "200", "100", "x")),
            (
                "geo-member",
                "GEO member not found",
                A,
                ("GEOSEARCH", "places", "FROMMEMBER", "nowhere", "BYRADIUS", "10", "km"),
            ),
            ("hash-not-int", "hash field is not an integer", F, ("HINCRBY", "user:1", "age", "1")),
            ("xadd-id", "stream ID smaller than the top item", F, ("XADD", "events", "1-0", "k", "v")),
            ("stream-id", "invalid stream ID", F, ("XRANGE", "events", "abc", "+")),
            ("busygroup", "consumer group already exists", A, ("XGROUP", "CREATE", "events", "workers", "0")),
            (
                "nogroup",
                "no such consumer group",
                A,
                ("XREADGROUP", "GROUP", "nogroup", "c", "STREAMS", "events", ">"),
            ),
            ("restore-busykey", "RESTORE target key exists", A, ("RESTORE", "name", "0", r.dump("name"))),
            ("restore-payload", "bad DUMP payload", F, ("RESTORE", "fresh", "0", "junk")),
            ("exec-no-multi", "EXEC without MULTI", F, ("EXEC",)),
            ("cluster-disabled", "cluster support disabled", U, ("CLUSTER", "NODES")),
            ("notbusy", "SCRIPT KILL with no script running", A, ("SCRIPT", "KILL")),
            ("acl-rule", "invalid ACL SETUSER rule", F, ("ACL", "SETUSER", "bob", "nosuchrule")),
            ("eval-numkeys", "numkeys greater than the arguments", F, ("EVAL", "return 1", "5", "a")),
            ("eval-syntax", "Lua script syntax error", F, ("EVAL", "return (", "0")),
            ("eval-runtime", "Lua runtime error (nil arithmetic)", F, ("EVAL", "return nil + 1", "0")),
            (
                "eval-wrongtype",
                "script command on the wrong type",
                F,
                ("EVAL", "return redis.call('GET', KEYS[1])", "1", "queue"),
            ),
            (
                "eval-error-reply",
                "script's own error reply",
                A,
                ("EVAL", "return redis.error_reply('ORDER_CLOSED order 7 is closed')", "0"),
            ),
            ("noscript", "EVALSHA of an unknown script", F, ("EVALSHA", "a" * 40, "0")),
            (
                "function-load",
                "bad FUNCTION LOAD code",
                F,
                ("FUNCTION", "LOAD", "#!lua name=lib\nthis is not lua"),
            ),
            ("function-missing", "FCALL of a missing function", A, ("FCALL", "nosuchfn", "0")),
            (
                "migrate-io",
                "MIGRATE target unreachable",
                T,
                ("MIGRATE", "127.0.0.1", str(ctx.dead), "name", "0", "200"),
            ),
        ]
        for cid, cause, kind, args in commands:
            outcome = NE if kind == T else None
            yield case(cid, cause, kind, outcome, catch(lambda: run(*args)), cmd(*args))
        library = "#!lua name=mylib\nredis.register_function('f1', function() return 1 end)"
        run("FUNCTION", "LOAD", library)
        exc = catch(lambda: run("FUNCTION", "LOAD", library))
        yield case(
            "function-exists",
            "function library already exists",
            A,
            None,
            exc,
            cmd("FUNCTION", "LOAD", library),
        )
        exc = catch(lambda: r.set("k", {"a": 1}))
        yield case(
            "data-type", "value of an unsupported type (client side)", F, None, exc, cmd("SET", "k", {"a": 1})
        )
        p = r.pipeline(transaction=True)
        p.set("a", "1")
        p.execute_command("NOSUCHCMD")
        yield case(
            "execabort",
            "transaction discarded after an error",
            F,
            None,
            catch(p.execute),
            {"transaction": [["SET", "a", "1"], ["NOSUCHCMD"]]},
        )
        # WATCH: another client changes the watched key before EXEC
        p = r.pipeline(transaction=True)
        p.watch("name")
        r.set("name", "bob")
        p.multi()
        p.set("name", "cy")
        yield case(
            "watch",
            "watched key changed (optimistic lock)",
            T,
            NE,
            catch(p.execute),
            {"watch": ["name"], "transaction": [["SET", "name", "cy"]]},
        )
        p.reset()
        # DEBUG SLEEP blocks the server past the client's socket timeout
        slow = _client(port, socket_timeout=0.2)
        exc = catch(lambda: slow.execute_command("DEBUG", "SLEEP", "0.6"))
        yield case("timeout", "read timeout (server busy)", T, UO, exc, cmd("DEBUG", "SLEEP", "0.6"))
        time.sleep(0.5)
        # BUSY: a long script runs; another client is turned away until SCRIPT KILL
        r.config_set("busy-reply-threshold", "100")
        errors: list[BaseException] = []

        def long_script() -> None:
            try:
                _client(port, socket_timeout=5).eval("while true do end", 0)
            except BaseException as e:
                errors.append(e)

        t = threading.Thread(target=long_script)
        t.start()
        busy = _client(port)
        exc = None
        for _ in range(100):  # until the script has run past busy-reply-threshold
            time.sleep(0.1)
            try:
                busy.get("name")
            except redis.ResponseError as e:
                exc = e
                break
        assert exc is not None
        yield case("busy", "server busy running a script", T, NE, exc, cmd("GET", "name"))
        busy.execute_command("SCRIPT", "KILL")
        t.join()
        yield case(
            "script-killed",
            "script killed by SCRIPT KILL",
            A,
            None,
            errors[0],
            cmd("EVAL", "while true do end", 0),
        )
        # a connection the server killed
        victim = _client(port, single_connection_client=True)
        victim.ping()
        r.client_kill_filter(_type="normal", skipme=True)
        exc = catch(lambda: victim.get("name"))
        yield case("killed", "server closed the connection (CLIENT KILL)", T, UO, exc, cmd("GET", "name"))
        # max clients
        held = []
        exc = None
        for _ in range(20):
            c = _client(port)
            try:
                c.ping()
            except redis.RedisError as e:
                exc = e
                break
            held.append(c)
        assert exc is not None
        yield case("maxclients", "max number of clients reached", T, NE, exc, cmd("PING"))
        for c in held:
            c.close()

        def pinged() -> Any:
            client = _client(port)
            client.ping()
            return client

        r = once_served(pinged, redis.ConnectionError)
        r.config_set("min-replicas-to-write", "1")
        yield case(
            "noreplicas",
            "not enough replicas to write",
            T,
            NE,
            catch(lambda: r.set("a", "1")),
            cmd("SET", "a", "1"),
        )
        r.config_set("min-replicas-to-write", "0")
        # DEBUG refused on a server that did not enable it
        with _server(ctx.tmp, "nodebug") as other:
            ctx.name_port(other, "REDISPORT2")
            o = _client(other)
            exc = catch(lambda: o.execute_command("DEBUG", "SLEEP", "0"))
            yield case(
                "debug-disabled", "DEBUG command not enabled", U, None, exc, cmd("DEBUG", "SLEEP", "0")
            )
            # a replica of the first server: read-only
            with _server(ctx.tmp, "replica", "--replicaof", "127.0.0.1", str(port)) as rport:
                ctx.name_port(rport, "REPLICAPORT")
                rep = _client(rport)
                yield case(
                    "readonly",
                    "write to a read-only replica",
                    U,
                    None,
                    catch(lambda: rep.set("a", "1")),
                    cmd("SET", "a", "1"),
                )
                exc = catch(lambda: rep.execute_command("WAIT", "1", "10"))
                yield case("wait-replica", "WAIT on a replica", F, None, exc, cmd("WAIT", "1", "10"))
            # a replica of a dead primary, not serving stale data
            with _server(
                ctx.tmp,
                "stale",
                "--replicaof",
                "127.0.0.1",
                str(ctx.dead),
                "--replica-serve-stale-data",
                "no",
            ) as sport:
                ctx.name_port(sport, "REPLICAPORT2")
                stale = _client(sport)
                exc = catch(lambda: stale.get("name"))
                yield case(
                    "masterdown", "replica's link to the primary is down", T, NE, exc, cmd("GET", "name")
                )
    # authentication and ACLs
    with _server(ctx.tmp, "auth", "--requirepass", "s3cret") as port:
        ctx.name_port(port, "REDISPORT3")
        yield case(
            "noauth",
            "authentication required (no password)",
            U,
            None,
            catch(lambda: _client(port).get("a")),
            cmd("GET", "a"),
        )
        exc = catch(lambda: _client(port, password="wrong").get("a"))
        yield case("wrongpass", "wrong password", U, None, exc, cmd("GET", "a"))
        admin = _client(port, password="s3cret")
        admin.acl_setuser(
            "reader", enabled=True, passwords=["+pw"], keys=["app:*"], commands=["+get", "+ping"]
        )
        admin.acl_setuser("off", enabled=False, passwords=["+pw"], commands=["+@all"], keys=["*"])
        reader = _client(port, username="reader", password="pw")
        yield case(
            "noperm-command",
            "ACL user lacks the command",
            U,
            None,
            catch(lambda: reader.set("app:1", "x")),
            cmd("SET", "app:1", "x"),
        )
        yield case(
            "noperm-key",
            "ACL user lacks the key",
            U,
            None,
            catch(lambda: reader.get("other:1")),
            cmd("GET", "other:1"),
        )
        exc = catch(lambda: _client(port, username="off", password="pw").ping())
        yield case("user-disabled", "ACL user disabled", U, None, exc, cmd("PING"))
    # out of memory
    with _server(ctx.tmp, "oom", "--maxmemory", "1mb", "--maxmemory-policy", "noeviction") as port:
        ctx.name_port(port, "REDISPORT4")
        o = _client(port)
        exc = None
        for i in range(200):
            try:
                o.set(f"fill:{i}", b"x" * 50_000)
            except redis.RedisError as e:
                exc = e
                break
        assert exc is not None
        # the value is 50,000 bytes: only its start is recorded
        yield case("oom", "maxmemory reached (noeviction)", U, None, exc, {"value": "x" * 200 + "..."})
    # MISCONF: the last background save failed (its directory vanished)
    with _server(ctx.tmp, "misconf", "--save", "3600 1") as port:
        ctx.name_port(port, "REDISPORT5")
        m = _client(port)
        shutil.rmtree(ctx.tmp / "misconf")
        m.bgsave()
        for _ in range(100):
            if m.info("persistence")["rdb_last_bgsave_status"] != "ok":
                break
            time.sleep(0.05)
        yield case(
            "misconf",
            "cannot persist to disk (bgsave failed)",
            U,
            None,
            catch(lambda: m.set("a", "1")),
            cmd("SET", "a", "1"),
        )
    # LOADING: a server still loading its dataset (slowed down per key) turns clients away
    with _server(ctx.tmp, "loading") as port:
        ctx.name_port(port, "REDISPORT6")
        src = _client(port)
        pipe = src.pipeline(transaction=False)
        for i in range(4000):
            pipe.set(f"k{i}", "v")
        pipe.execute()
        src.save()
    slow_load = ("--key-load-delay", "1000", "--loading-process-events-interval-bytes", "1024")
    with _server(ctx.tmp, "loading", *slow_load, reuse=True) as port:
        ctx.name_port(port, "REDISPORT7")
        exc = catch(lambda: _client(port).get("k1"))
        yield case("loading", "server still loading its dataset", T, NE, exc, cmd("GET", "k1"))
    yield case("refused", "connection refused", T, NE, catch(lambda: _client(ctx.dead).ping()), cmd("PING"))
    exc = catch(lambda: redis.Redis(host="cache.nonexistent.invalid", retry=None).ping())
    yield case("dns", "DNS name does not resolve", T, NE, exc, cmd("PING"))
    exc = catch(lambda: redis.Redis.from_url("mysql://127.0.0.1/0"))
    yield case("bad-url", "URL scheme not redis", F, None, exc, {"url": "mysql://127.0.0.1/0"})
