"""Benchmark of the string-ban automaton (toolerr._ban) against a naive scan.

Builds a synthetic vocabulary of realistic token strings (every printable ASCII
character, JSON punctuation, digits, words with and without a leading space, runs of
whitespace), bans 1 / 100 / 1,000 realistic tool-call JSON strings that share long
prefixes, and replays the decoding of a set of calls token by token (greedy longest-match
tokenisation): per step the decoder asks for the blocked tokens and feeds the token text.

Reported per banned-set size (medians over several runs):

* ``cold``: a fresh ``StringBan`` per run, first pass over the calls (every trie node's
  blocked list computed on first visit),
* ``warm``: second pass over the same calls (cached blocked lists),
* ``naive``: per step, scan every banned string with ``startswith`` (vocabulary lookups
  still by bisect on the prepared vocabulary, so this isolates the banned-string scan),
* ``vocab-scan`` (1 banned only): the textbook rule ``(P + s).startswith(b)`` over the
  whole vocabulary every step,

plus the one-time vocabulary preparation (time and tracemalloc memory), the time to ban
a string, the memory of the ban structure, and the per-step time at 1,000 banned strings
for several vocabulary sizes.

Usage::

    python benchmarks/bench_ban.py            # full run, writes benchmarks/out/ban.json
    python benchmarks/bench_ban.py --quick    # fast smoke run
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import random
import statistics
import string
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from toolerr._ban import PreparedVocabulary, StringBan

VOCAB_SIZE = 49_152
BANNED_SIZES = (1, 100, 1_000)
OUT = Path(__file__).resolve().parent / "out" / "ban.json"
BAN_OPTIONS: dict[str, Any] = {}
"""Options of every StringBan built here (``--json-whitespace``: modulo JSON white space)."""

# -- synthetic vocabulary ----------------------------------------------------------------

_WORD_TEXT = """
name arguments search flights flight origin destination date passengers get weather city
units celsius fahrenheit book hotel check in nights guests lookup order id send email to
subject body query results result error status code message true false null type value
data items list count total price currency user account id token page limit offset sort
asc desc filter from the and for with that this have not are was but all can will one
file path read write open close line content text json http https www com org api url
time start end day month year hour minute second zone local remote host port config set
value key index item number string object array bool int float none default option mode
"""
_WORDS = _WORD_TEXT.split()
_PUNCT = [
    '{"',
    '"}',
    '":',
    '": "',
    '", "',
    '"},',
    "}}",
    '"}}',
    ': {"',
    '": {"',
    '"]',
    '["',
    ', "',
    '": [',
    "],",
    "{}",
    "[]",
    '":"',
    '","',
    '":{"',
    '"}}\n',
    "},",
    "}\n",
    '",',
    '."',
    "://",
    "@",
    "-",
    "_",
    "__",
    "...",
    "//",
    "/*",
    "*/",
    "==",
    "!=",
    "->",
    "=>",
    "();",
    "()",
    "):",
    "\n\n",
    '\\"',
    "\\n",
]
_CONSONANTS = "bcdfghjklmnprstvwxyz"
_VOWELS = "aeiou"
_AIRPORT_TEXT = "SFO JFK LAX ORD ATL DFW DEN SEA BOS MIA LHR CDG FRA AMS MAD NRT HND SYD YYZ MEX"
_AIRPORTS = _AIRPORT_TEXT.split()
_CITY_TEXT = "Paris London Tokyo Berlin Madrid Rome Lisbon Oslo Vienna Prague Dublin Austin"
_CITIES = _CITY_TEXT.split()


def build_vocabulary(size: int, seed: int = 0) -> list[str]:
    """``size`` distinct realistic token strings; every printable ASCII char is one."""
    rng = random.Random(seed)
    vocab: dict[str, None] = {}

    def add(text: str) -> None:
        if text and len(vocab) < size:
            vocab.setdefault(text, None)

    for ch in string.printable:
        add(ch)
    for piece in _PUNCT:
        add(piece)
    for n in range(1, 33):
        add(" " * n)
    for n in range(1, 25):
        add("\n" + " " * n)
    for n in range(1000):
        add(str(n))
        if n < 100:
            add(f" {n}")
            add(f"{n:02d}")
            add(f"-{n:02d}")
    for year in range(1990, 2041):
        add(str(year))
        add(f" {year}")
        add(f'"{year}')
    for code in _AIRPORTS:
        add(code)
        add(f'"{code}')
    for city in _CITIES:
        add(city)
        add(f" {city}")
    for word in _WORDS:
        for variant in (word, " " + word, word.capitalize(), " " + word.capitalize(), "_" + word):
            add(variant)
            add(f'"{variant}')
            add(f'{variant}"')
    while len(vocab) < size:
        word = "".join(
            rng.choice(_CONSONANTS) + rng.choice(_VOWELS) for _ in range(rng.choice((1, 2, 2, 3, 3, 4)))
        )
        if rng.random() < 0.2:
            word += rng.choice(_CONSONANTS)
        form = rng.random()
        if form < 0.45:
            add(" " + word)
        elif form < 0.75:
            add(word)
        elif form < 0.85:
            add(" " + word.capitalize())
        elif form < 0.9:
            add(word.upper()[:4])
        else:
            add(rng.choice(("_", '"', ".")) + word)
    words = list(vocab)
    rng.shuffle(words)  # token ids not in sorted order
    return words


# -- realistic tool calls ----------------------------------------------------------------


def _date(rng: random.Random) -> str:
    return f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def make_call(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.55:
        name = "search_flights"
        args: dict[str, Any] = {
            "origin": rng.choice(_AIRPORTS[:4]),
            "destination": rng.choice(_AIRPORTS),
            "date": _date(rng),
            "passengers": rng.randint(1, 4),
        }
    elif roll < 0.75:
        name = "get_weather"
        args = {
            "city": rng.choice(_CITIES),
            "date": _date(rng),
            "units": rng.choice(("celsius", "fahrenheit")),
        }
    elif roll < 0.9:
        name = "book_hotel"
        args = {"city": rng.choice(_CITIES), "check_in": _date(rng), "nights": rng.randint(1, 9)}
    else:
        name = "lookup_order"
        args = {"order_id": f"A{rng.randint(0, 999_999):06d}", "include_items": rng.random() < 0.5}
    return json.dumps({"name": name, "arguments": args})


def make_banned(count: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    out: dict[str, None] = {}
    while len(out) < count:
        out.setdefault(make_call(rng), None)
    return list(out)


def make_workload(banned: Sequence[str], seed: int = 2) -> list[str]:
    """Calls to decode: exact repeats, near misses of banned calls, unrelated calls."""
    rng = random.Random(seed)
    calls = list(banned[:3])  # exact repeats: the last token of each must be blocked
    for base in banned[:6]:
        # Same call with the last digit of the last number changed: shares all but the end.
        digits = [i for i, ch in enumerate(base) if ch.isdigit()]
        i = digits[-1]
        calls.append(base[:i] + str((int(base[i]) + 1) % 10) + base[i + 1 :])
        # Same call with one more argument: diverges where the banned call would close,
        # so the closing tokens are blocked on the way.
        calls.append(base[:-2] + ', "note": "retry"}}')
    calls.extend(make_call(rng) for _ in range(8))
    return calls


def tokenize(text: str, index: set[str], max_len: int) -> list[str]:
    """Greedy longest-match tokenisation (every single character is a token)."""
    out = []
    i = 0
    while i < len(text):
        for n in range(min(max_len, len(text) - i), 0, -1):
            piece = text[i : i + n]
            if piece in index:
                out.append(piece)
                i += n
                break
        else:
            raise ValueError(f"character {text[i]!r} not in vocabulary")
    return out


# -- strategies --------------------------------------------------------------------------


def naive_blocked(prepared: PreparedVocabulary, banned: Sequence[str], partial: str) -> list[int]:
    """Scan every banned string per step (vocabulary lookups by bisect)."""
    found: set[int] = set()
    n = len(partial)
    limit = prepared.max_token_length
    for b in banned:
        if len(b) > n and b.startswith(partial) and len(b) - n <= limit:
            found.update(prepared.tokens_with_prefix(b[n:]))
    return sorted(found)


def vocab_scan_blocked(vocabulary: Sequence[str], banned: Sequence[str], partial: str) -> list[int]:
    """The rule itself over the whole vocabulary and every banned string, per step."""
    n = len(partial)
    return [
        i for i, s in enumerate(vocabulary) if any(n < len(b) and (partial + s).startswith(b) for b in banned)
    ]


def run_cursor(ban: StringBan, calls: Sequence[list[str]]) -> tuple[float, int, list[list[int]]]:
    """Decode every call with one cursor; seconds, steps, blocked lists (for checks)."""
    cursor = ban.cursor()
    seen: list[list[int]] = []
    steps = 0
    clock = time.perf_counter
    start = clock()
    for tokens in calls:
        cursor.reset()
        for token in tokens:
            seen.append(cursor.blocked_tokens())
            cursor.feed(token)
        steps += len(tokens)
    return clock() - start, steps, seen


def run_stateless(
    step: Callable[[str], list[int]], calls: Sequence[list[str]]
) -> tuple[float, int, list[list[int]]]:
    seen: list[list[int]] = []
    steps = 0
    clock = time.perf_counter
    start = clock()
    for tokens in calls:
        partial = ""
        for token in tokens:
            seen.append(step(partial))
            partial += token
        steps += len(tokens)
    return clock() - start, steps, seen


def step_percentiles(ban: StringBan, calls: Sequence[list[str]]) -> tuple[float, float, float]:
    """Per-step p50 / p99 / max in microseconds (individually timed, cold then warm)."""
    cursor = ban.cursor()
    clock = time.perf_counter_ns
    times = []
    for tokens in calls:
        cursor.reset()
        for token in tokens:
            t0 = clock()
            cursor.blocked_tokens()
            cursor.feed(token)
            times.append(clock() - t0)
    times.sort()
    return (
        times[len(times) // 2] / 1e3,
        times[min(len(times) - 1, int(len(times) * 0.99))] / 1e3,
        times[-1] / 1e3,
    )


def measure_memory(build: Callable[[], object]) -> tuple[int, int]:
    """(retained, peak) bytes allocated by ``build`` according to tracemalloc."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.take_snapshot()
        keep = build()
        current = tracemalloc.take_snapshot()
        _, peak = tracemalloc.get_traced_memory()
        retained = sum(s.size_diff for s in current.compare_to(base, "filename"))
    finally:
        tracemalloc.stop()
    del keep
    return retained, peak


# -- main --------------------------------------------------------------------------------


def bench_size(
    prepared: PreparedVocabulary,
    vocabulary: Sequence[str],
    banned: list[str],
    calls: list[list[str]],
    workload_texts: list[str],
    runs: int,
    with_vocab_scan: bool,
) -> dict[str, Any]:
    cold: list[float] = []
    warm: list[float] = []
    naive: list[float] = []
    ban_times: list[float] = []
    steps = 0
    check: list[list[int]] = []
    for _ in range(runs):
        t0 = time.perf_counter()
        ban = StringBan(prepared, banned, **BAN_OPTIONS)
        ban_times.append((time.perf_counter() - t0) / len(banned))
        seconds, steps, check = run_cursor(ban, calls)
        cold.append(seconds / steps)
        seconds, _, _ = run_cursor(ban, calls)
        warm.append(seconds / steps)
        seconds, _, expected = run_stateless(lambda p: naive_blocked(prepared, banned, p), calls)
        naive.append(seconds / steps)
        if expected != check and not BAN_OPTIONS:
            raise AssertionError("automaton and naive scan disagree")
    # Sanity: the exact repeats of banned calls have their last token blocked.
    offset = 0
    for tokens, text in zip(calls, workload_texts, strict=True):
        offset += len(tokens)
        if text in banned and not any(vocabulary[t] == tokens[-1] for t in check[offset - 1]):
            raise AssertionError("the completing token of a banned call was not blocked")
    p50, p99, worst = step_percentiles(StringBan(prepared, banned, **BAN_OPTIONS), calls)
    retained, _ = measure_memory(lambda: StringBan(prepared, banned, **BAN_OPTIONS))
    row: dict[str, Any] = {
        "banned": len(banned),
        "steps_per_run": steps,
        "runs": runs,
        "cold_us_per_step": statistics.median(cold) * 1e6,
        "warm_us_per_step": statistics.median(warm) * 1e6,
        "naive_us_per_step": statistics.median(naive) * 1e6,
        "naive_over_cold": statistics.median(naive) / statistics.median(cold),
        "cold_step_p50_us": p50,
        "cold_step_p99_us": p99,
        "cold_step_max_us": worst,
        "ban_us_per_string": statistics.median(ban_times) * 1e6,
        "ban_structure_bytes": retained,
        "blocked_steps": sum(1 for b in check if b),
    }
    if with_vocab_scan:
        short = calls[:1]
        seconds, n, expected = run_stateless(lambda p: vocab_scan_blocked(vocabulary, banned, p), short)
        if expected != check[:n] and not BAN_OPTIONS:
            raise AssertionError("automaton and vocabulary scan disagree")
        row["vocab_scan_us_per_step"] = seconds / n * 1e6
    return row


def bench_preparation(vocabulary: list[str], runs: int) -> dict[str, Any]:
    times = []
    for _ in range(runs):
        gc.collect()
        t0 = time.perf_counter()
        PreparedVocabulary(vocabulary)
        times.append(time.perf_counter() - t0)
    retained, peak = measure_memory(lambda: PreparedVocabulary(vocabulary))
    return {
        "vocab_size": len(vocabulary),
        "max_token_length": max(map(len, vocabulary)),
        "prepare_ms": statistics.median(times) * 1e3,
        "prepare_retained_bytes": retained,
        "prepare_peak_bytes": peak,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="few runs, no vocabulary scaling")
    parser.add_argument("--runs", type=int, default=None, help="runs per measurement (default 15, quick 3)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"JSON output (default {OUT})")
    parser.add_argument(
        "--json-whitespace",
        action="store_true",
        help="bans modulo JSON white space (ignore_json_whitespace=True); the naive scans stay exact",
    )
    args = parser.parse_args(argv)
    if args.json_whitespace:
        BAN_OPTIONS["ignore_json_whitespace"] = True
    runs = args.runs or (3 if args.quick else 15)

    vocabulary = build_vocabulary(VOCAB_SIZE)
    prep = bench_preparation(vocabulary, runs)
    prepared = PreparedVocabulary(vocabulary)
    index = set(vocabulary)
    all_banned = make_banned(max(BANNED_SIZES))
    workload = make_workload(all_banned)
    calls = [tokenize(c, index, prepared.max_token_length) for c in workload]

    rows = []
    for count in BANNED_SIZES:
        rows.append(bench_size(prepared, vocabulary, all_banned[:count], calls, workload, runs, count == 1))

    scaling = []
    sizes = (VOCAB_SIZE,) if args.quick else (12_288, VOCAB_SIZE, 196_608)
    for size in sizes:
        vocab = build_vocabulary(size)
        prep_s = PreparedVocabulary(vocab)
        toks = [tokenize(c, set(vocab), prep_s.max_token_length) for c in workload]
        ban = StringBan(prep_s, all_banned, **BAN_OPTIONS)
        cold = []
        warm = []
        for _ in range(runs):
            ban = StringBan(prep_s, all_banned, **BAN_OPTIONS)
            seconds, steps, _ = run_cursor(ban, toks)
            cold.append(seconds / steps)
            seconds, steps, _ = run_cursor(ban, toks)
            warm.append(seconds / steps)
        scaling.append(
            {
                "vocab_size": size,
                "banned": len(all_banned),
                "cold_us_per_step": statistics.median(cold) * 1e6,
                "warm_us_per_step": statistics.median(warm) * 1e6,
            }
        )

    print(
        f"vocabulary: {prep['vocab_size']} strings, longest {prep['max_token_length']} chars; "
        f"preparation {prep['prepare_ms']:.1f} ms, "
        f"retained {prep['prepare_retained_bytes'] / 2**20:.2f} MiB, "
        f"peak {prep['prepare_peak_bytes'] / 2**20:.2f} MiB"
    )
    print(f"workload: {len(calls)} calls, {rows[0]['steps_per_run']} decoding steps per run, {runs} runs")
    print(
        "steps with blocked tokens: "
        + ", ".join(f"{r['blocked_steps']} ({r['banned']} banned)" for r in rows)
    )
    header = (
        f"{'banned':>7} {'cold us/step':>13} {'warm us/step':>13} {'naive us/step':>14} {'naive/cold':>10} "
        f"{'p99 us':>8} {'max us':>8} {'ban us/str':>11} {'structure KiB':>14}"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        print(
            f"{row['banned']:>7} {row['cold_us_per_step']:>13.2f} {row['warm_us_per_step']:>13.2f} "
            f"{row['naive_us_per_step']:>14.2f} {row['naive_over_cold']:>10.1f} "
            f"{row['cold_step_p99_us']:>8.1f} "
            f"{row['cold_step_max_us']:>8.1f} {row['ban_us_per_string']:>11.1f} "
            f"{row['ban_structure_bytes'] / 1024:>14.1f}"
        )
    print(f"full vocabulary scan per step (1 banned): {rows[0]['vocab_scan_us_per_step']:.0f} us")
    print("vocabulary size scaling (1,000 banned):")
    for item in scaling:
        print(
            f"  {item['vocab_size']:>7} tokens: cold {item['cold_us_per_step']:.2f} us/step, "
            f"warm {item['warm_us_per_step']:.2f} us/step"
        )

    args.out.parent.mkdir(parents=True, exist_ok=True)
    report = {
        "command": "python benchmarks/bench_ban.py"
        + (" --quick" if args.quick else "")
        + (" --json-whitespace" if args.json_whitespace else ""),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "runs": runs,
        "workload_calls": workload,
        "preparation": prep,
        "results": rows,
        "vocab_scaling": scaling,
    }
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
