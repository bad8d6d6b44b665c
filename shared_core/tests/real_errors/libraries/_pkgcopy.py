"""A broken installation of a package, for the cases of an environment that lacks one of
its files or one of its dependencies (not a module of cases itself).

:func:`broken_install` imports packages afresh from a copy under the module's temporary
directory (symlinks to the installed files) where some files are missing or replaced, with
the other installed packages out of reach (``sys.path`` without ``site-packages`` or
``dist-packages``), then puts the interpreter's modules and path back as they were. The
failures are raised by the real library's code and Python's import system, as on a machine
installed that way.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _mirror(src: Path, dst: Path, drop: set[str], replace: dict[str, bytes], rel: str = "") -> None:
    dst.mkdir(parents=True)
    touched = {*drop, *replace}
    for entry in sorted(src.iterdir()):
        sub = f"{rel}{entry.name}"
        if sub in drop:
            continue
        if sub in replace:
            (dst / entry.name).write_bytes(replace[sub])
        elif entry.is_dir() and any(t.startswith(sub + "/") for t in touched):
            _mirror(entry, dst / entry.name, drop, replace, sub + "/")
        else:
            (dst / entry.name).symlink_to(entry)


def _installed(path: str) -> bool:
    """Whether ``path`` holds installed packages (a venv's or Debian's)."""
    return "site-packages" in path or "dist-packages" in path


@contextmanager
def broken_install(
    tmp: Path,
    packages: list[str],
    drop: tuple[str, ...] = (),
    replace: dict[str, bytes] | None = None,
    hide: tuple[str, ...] = (),
) -> Iterator[None]:
    """Within: ``packages`` import from a copy without the files ``drop`` (paths like
    ``phonenumbers/data/region_GB.py``) and with ``replace``'s contents; every other
    package of ``site-packages`` (``hide`` names those to forget if already imported) is
    not installed."""
    n = 1
    while (tmp / f"site-{n}").exists():
        n += 1
    root = tmp / f"site-{n}"  # numbered in the module's own directory: the same each run
    root.mkdir()
    replace = replace or {}
    for name in packages:
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin is not None, name
        if Path(spec.origin).name != "__init__.py":  # a single-file module (six)
            (root / Path(spec.origin).name).symlink_to(spec.origin)
            continue
        src = Path(spec.origin).parent
        _mirror(src, root / name, set(drop), replace, f"{name}/")
    forget = (*packages, *hide)
    saved_modules = {
        k: v for k, v in sys.modules.items() if any(k == n or k.startswith(n + ".") for n in forget)
    }
    saved_path = list(sys.path)
    saved_bytecode = sys.dont_write_bytecode
    for k in saved_modules:
        del sys.modules[k]
    sys.path[:] = [str(root)] + [p for p in saved_path if not _installed(p)]
    sys.dont_write_bytecode = True
    importlib.invalidate_caches()
    try:
        yield
    finally:
        for k in [k for k in sys.modules if any(k == n or k.startswith(n + ".") for n in forget)]:
            del sys.modules[k]
        sys.modules.update(saved_modules)
        sys.path[:] = saved_path
        sys.dont_write_bytecode = saved_bytecode
        importlib.invalidate_caches()
