"""The held-out live corpus (issue 24): failures raised live by libraries and services the
classifier's rules were not written against.

One module per library here, each with:

- ``LIBRARY``: the library's name as the reports show it (``"redis"``, ``"stripe"``);
- ``REQUIRES``: its pip requirements (bounded ranges), also listed in
  ``requirements.txt`` beside this file, which the ``real_errors`` nox session installs;
- ``cases(ctx: Context) -> Iterator[generate.Case]``: every case triggered through the
  library's own code (a real server on 127.0.0.1 that the module starts and stops, a real
  file, a real subprocess), labelled by the cause that was set up, never by what toolerr
  says;
- optionally ``available() -> str | None``: why the cases cannot be generated on this
  machine (a server binary missing), ``None`` when they can.

``python -m libraries [NAME ...]`` (from ``shared_core/tests/real_errors``) rewrites
``data/<module>.jsonl``; the test session regenerates every module and compares.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
import sys
import tempfile
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

_HERE = Path(__file__).parent
sys.path.insert(0, str(_HERE.parent))

import generate  # noqa: E402
import servers  # noqa: E402

DATA = _HERE / "data"


@dataclass
class Context:
    """What a module's ``cases`` may use: a temporary directory of its own, the shared
    scenario server's port (:func:`servers.http_server`) and a port nobody listens on."""

    tmp: Path
    port: int
    dead: int

    def name_port(self, port: int, name: str) -> None:
        """Write ``name`` for ``port`` in the stored texts (a server the module started)."""
        generate._normalise_ports[port] = name


def module_names() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules([str(_HERE)]) if not m.name.startswith("_"))


def load(name: str) -> ModuleType:
    return importlib.import_module(f"libraries.{name}")


def unavailable(module: ModuleType) -> str | None:
    check = getattr(module, "available", None)
    return check() if check is not None else None


def generate_module(name: str, attempts: int = 3) -> list[generate.Case]:
    """Every case of one module, triggered live.

    The ports of the servers the module starts are written by name in its texts; a port the
    system gave that is also a number in the module's committed texts (Twilio's 60203, a
    ticket id) would be written over that number too: such a run is made again, up to
    ``attempts`` times in all."""
    return regenerate(load(name), _numbers_in(path(name)), attempts)


def regenerate(module: ModuleType, taken: set[int], attempts: int = 3) -> list[generate.Case]:
    """:func:`generate_module` of a loaded module whose committed texts hold ``taken``."""
    cases: list[generate.Case] = []
    for _ in range(attempts):
        # the names of another module's ports are not this one's (a port the system gives
        # this module may be a number in its texts that an earlier module's server had)
        generate._normalise_ports.clear()
        cases = _generate_once(module, taken)
        if not taken.intersection(generate._normalise_ports):
            break
    return cases


def _generate_once(module: ModuleType, taken: set[int]) -> list[generate.Case]:
    with (
        warnings.catch_warnings(),
        generate.offline_dns(),
        tempfile.TemporaryDirectory() as tmpname,
        servers.held_refused_port(taken) as dead,
        servers.http_server() as port,
    ):
        warnings.simplefilter("ignore")
        generate._normalise_ports.update({port: "PORT", dead: "DEADPORT"})
        return list(module.cases(Context(Path(tmpname), port, dead)))


def _numbers_in(data: Path) -> set[int]:
    """The numbers the module's committed texts hold (none when it has no data yet)."""
    try:
        text = data.read_text(encoding="utf-8")
    except OSError:
        return set()
    return {int(n) for n in re.findall(r"\b\d{4,5}\b", text)}


def record(case: generate.Case) -> dict[str, object]:
    return generate.record(case)


def path(name: str) -> Path:
    return DATA / f"{name}.jsonl"


def write(name: str, cases: list[generate.Case]) -> None:
    DATA.mkdir(exist_ok=True)
    with path(name).open("w", encoding="utf-8") as f:
        for case in cases:
            f.write(json.dumps(record(case), ensure_ascii=False, sort_keys=True) + "\n")


def committed(name: str) -> dict[str, dict[str, object]]:
    with path(name).open(encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return {str(row["id"]): row for row in rows}


def generate_all(names: list[str] | None = None) -> Iterator[tuple[str, list[generate.Case]]]:
    for name in names or module_names():
        yield name, generate_module(name)
