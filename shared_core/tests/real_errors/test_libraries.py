"""The held-out live corpus (``libraries/``): each module regenerated through the real
library and compared with its committed JSONL."""

from __future__ import annotations

import errno
import socket
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import generate
import libraries
import pytest
import servers

pytestmark = pytest.mark.filterwarnings(
    "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)


@pytest.mark.parametrize("name", libraries.module_names())
def test_module_regenerates_as_committed(name: str) -> None:
    module = libraries.load(name)
    why = libraries.unavailable(module)
    assert why is None, f"{name}: cannot generate here: {why}"
    cases = libraries.generate_module(name)
    assert cases, f"{name} generated no case"
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids)), f"{name}: duplicate ids"
    for c in cases:
        assert c.library == module.LIBRARY, c.id
        assert c.kind in ("transient", "fixable", "unrecoverable", "ambiguous"), c.id
        assert (c.outcome is not None) == (c.kind == "transient"), c.id
        assert isinstance(c.arguments, dict), f"{c.id}: the call's arguments are not recorded"
        if c.parameters is not None:  # the tool's declared schema: the arguments follow it
            assert c.parameters.get("type") == "object", c.id
            declared = c.parameters.get("properties")
            assert isinstance(declared, dict) and set(c.arguments) <= set(declared), c.id
    fresh = {c.id: libraries.record(c) for c in cases}
    committed = libraries.committed(name)
    assert set(fresh) == set(committed), (
        sorted(set(committed) - set(fresh)),
        sorted(set(fresh) - set(committed)),
    )
    changed = [i for i in fresh if fresh[i] != committed[i]]
    assert not changed, "\n".join(f"{i}:\n  now {fresh[i]}\n  was {committed[i]}" for i in changed[:5])


def test_case_ids_unique_across_modules() -> None:
    seen: dict[str, str] = {}
    for name in libraries.module_names():
        for cid in libraries.committed(name):
            assert cid not in seen, f"{cid} in {name} and {seen[cid]}"
            seen[cid] = name
    assert generate.CORPUS.exists()


def test_port_names_are_a_modules_own_and_a_clash_runs_it_again() -> None:
    """An earlier module's port name does not rewrite this module's numbers; a run whose
    server got a port that is a number in the committed texts is made again."""
    generate._normalise_ports[48213] = "SSHPORT"  # left by an earlier module's server
    given = iter([48213, 48214])  # the ports the system gives this module's server, run by run
    runs: list[int] = []

    def cases(ctx: Any) -> Iterator[generate.Case]:
        port = next(given)
        runs.append(port)
        ctx.name_port(port, "ZDPORT")
        exc = ValueError(f"ticket 48213 not found at 127.0.0.1:{port}")
        yield generate.Case("t-1", "t", "cause", "fixable", None, exc, "get_ticket", arguments={})

    out = libraries.regenerate(SimpleNamespace(cases=cases), taken={48213})  # type: ignore[arg-type]
    assert runs == [48213, 48214]
    assert generate.normalise(str(out[0].exc)) == "ticket 48213 not found at 127.0.0.1:ZDPORT"


def test_the_refused_port_is_held_while_the_module_runs() -> None:
    with servers.held_refused_port() as port:
        with socket.socket() as client, pytest.raises(ConnectionRefusedError):
            client.connect(("127.0.0.1", port))
        with socket.socket() as server, pytest.raises(OSError) as taken:
            server.bind(("127.0.0.1", port))  # no server started meanwhile can be given it
        assert taken.value.errno == errno.EADDRINUSE
