"""toolerr.adapters.LRUCache: the one bounded cache of the core and the adapters."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from toolerr._lru import budget_bytes
from toolerr.adapters import LRUCache


def test_the_least_recently_stored_entry_goes_first() -> None:
    cache: LRUCache[str, int] = LRUCache(2)
    assert cache.put("a", 1) == []
    assert cache.put("b", 2) == []
    assert cache.put("c", 3) == [("a", 1)]
    assert cache.keys() == ["b", "c"]
    assert list(cache) == ["b", "c"]
    assert "a" not in cache
    assert len(cache) == 2


def test_get_only_looks_put_and_touch_refresh() -> None:
    cache: LRUCache[str, int] = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # a lookup: "a" stays the oldest
    assert cache.put("c", 3) == [("a", 1)]
    assert cache.touch("b") == 2  # "b" is now the most recent
    assert cache.put("d", 4) == [("c", 3)]
    assert cache.put("b", 20) == []  # a replaced value: most recent, nothing dropped
    assert cache.items() == [("d", 4), ("b", 20)]


def test_missing_keys_and_defaults() -> None:
    cache: LRUCache[str, int] = LRUCache(4)
    assert cache.get("x") is None
    assert cache.get("x", 7) == 7
    assert cache.touch("x") is None
    assert cache.keys() == []
    cache.put("x", 0)
    assert cache.touch("x") == 0  # a falsy value is still kept and touched
    assert cache.pop("x") == 0
    assert cache.pop("x", -1) == -1
    assert not cache


def test_size_zero_keeps_nothing_and_returns_what_it_dropped() -> None:
    cache: LRUCache[str, int] = LRUCache(0)
    assert cache.put("a", 1) == [("a", 1)]
    assert len(cache) == 0


def test_a_smaller_size_applies_at_the_next_put() -> None:
    cache: LRUCache[int, int] = LRUCache(4)
    for i in range(4):
        cache.put(i, i)
    cache.size = 2
    assert cache.put(9, 9) == [(0, 0), (1, 1), (2, 2)]
    assert cache.values() == [3, 9]


def test_clear_and_repr() -> None:
    cache: LRUCache[str, str] = LRUCache(3)
    cache.put("k", "v")
    assert repr(cache) == "LRUCache(size=3, entries=1)"
    cache.clear()
    assert len(cache) == 0


def test_size_must_be_an_int() -> None:
    with pytest.raises(TypeError):
        LRUCache(True)
    with pytest.raises(TypeError):
        LRUCache("3")  # type: ignore[arg-type]


def test_concurrent_puts_stay_bounded_and_lose_nothing_but_the_dropped() -> None:
    cache: LRUCache[tuple[int, int], int] = LRUCache(50)
    dropped: list[tuple[tuple[int, int], int]] = []
    lock = threading.Lock()

    def worker(t: int) -> None:
        for i in range(2000):
            out = cache.put((t, i), i)
            cache.touch((t, i // 2))
            with lock:
                dropped.extend(out)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(worker, range(4)))
    assert len(cache) == 50
    assert len(dropped) + len(cache) == 4 * 2000
    assert len({key for key, _ in dropped} | set(cache.keys())) == 4 * 2000


# --- memory budgets from the environment -------------------------------------------------


def test_budget_bytes_reads_mib_and_falls_back_with_a_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv("TOOLERR_TEST_MB", raising=False)
    assert budget_bytes("TOOLERR_TEST_MB", 256) == 256 * 2**20
    monkeypatch.setenv("TOOLERR_TEST_MB", "3")
    assert budget_bytes("TOOLERR_TEST_MB", 256) == 3 * 2**20
    monkeypatch.setenv("TOOLERR_TEST_MB", "-5")
    assert budget_bytes("TOOLERR_TEST_MB", 256) == 0
    monkeypatch.setenv("TOOLERR_TEST_MB", "lots")
    with caplog.at_level(logging.WARNING, logger="toolerr"):
        assert budget_bytes("TOOLERR_TEST_MB", 256) == 256 * 2**20
    assert "TOOLERR_TEST_MB='lots' is not a whole number of MiB; using 256" in caplog.text


def test_the_gateway_budgets_are_read_at_import() -> None:
    """``TOOLERR_WIRE_CACHE_MB`` bounds the conversion cache, ``TOOLERR_CHECKPOINT_MB`` the
    shared scope's checkpoints (a fresh interpreter: they are read once, at import)."""
    code = (
        "import toolerr._replay as r, toolerr._wire_base as w;"
        "print(w.CACHE.budget, r.SHARED_CHECKPOINT_BYTES)"
    )
    env = {**os.environ, "TOOLERR_WIRE_CACHE_MB": "7", "TOOLERR_CHECKPOINT_MB": "5"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(7 * 2**20), str(5 * 2**20)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLERR_")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(1024 * 2**20), str(256 * 2**20)]
