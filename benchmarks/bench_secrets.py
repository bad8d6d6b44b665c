"""Credential masking (issue 27, item 1): what it costs and what it changes.

Texts: every error text of the live and held-out corpora (``str`` and the frameworks'
renderings) and the 1,351 real successful tool outputs, plus the same texts with one
credential of each kind spliced in. Timed: ``clean_text`` (what every note runs) with
masking and with masking replaced by the identity, interleaved, ``--repeats`` times, each
the total over all texts; ``mask_secrets`` alone. Reported: the medians, the ratio, and how
many real texts masking changed (precision: none holds a credential) and how many spliced
ones still held their credential (recall on the spliced set).

Usage::

    python benchmarks/bench_secrets.py            # writes benchmarks/out/bench_secrets.json
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import toolerr._hygiene as hygiene
from toolerr._secrets import mask_secrets
from toolerr.adapters import clean_text

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "shared_core" / "tests" / "real_errors"
OUT = Path(__file__).resolve().parent / "out" / "bench_secrets.json"
SPLICED = [
    "postgresql://app:Tr0ub4dor-3@db:5432/orders",
    "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
    "AKIAIOSFODNN7EXAMPLE",
    "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZ2VudCJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ",
    "ghp_1234567890abcdefghijABCDEFGHIJ123456",
    "api_key=a8f5f167f44f4964e6c998dee827110c",
]
SECRETS = [
    "Tr0ub4dor-3",
    "Ab3dEf6hIj9k",
    "AKIAIOSFODNN7EXAMPLE",
    "eyJhbGciOiJIUzI1NiJ9",
    "ghp_1234567890",
    "a8f5f167f4",
]


def real_texts() -> list[str]:
    lines = (REAL / "successes" / "data" / "successes.jsonl").read_text().splitlines()
    texts = [json.loads(line)["text"] for line in lines]
    for path in [REAL / "live_corpus.jsonl", *sorted((REAL / "libraries" / "data").glob("*.jsonl"))]:
        for line in path.read_text().splitlines():
            case = json.loads(line)
            texts.append(case.get("str") or "")
            texts.extend(v for v in (case.get("texts") or {}).values() if isinstance(v, str))
    return texts


def _time(texts: list[str], masked: bool) -> float:
    hygiene.mask_secrets = mask_secrets if masked else (lambda text: text)  # type: ignore[assignment]
    start = time.perf_counter()
    for text in texts:
        clean_text(text)
    elapsed = time.perf_counter() - start
    hygiene.mask_secrets = mask_secrets  # type: ignore[assignment]
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    texts = real_texts()
    spliced = [
        f"{text[:200]} {secret} {text[200:400]}"
        for text in texts[:: max(1, len(texts) // 600)]
        for secret in SPLICED
    ]
    changed = sum(mask_secrets(text) is not text for text in texts)
    leaked = sum(
        any(s in clean_text(text) for s in SECRETS) for text in spliced
    )  # the spliced credential survived clean_text
    with_, without, alone = [], [], []
    _time(texts, True), _time(texts, False)  # warm-up
    for index in range(args.repeats):
        for masked in (True, False) if index % 2 == 0 else (False, True):
            (with_ if masked else without).append(_time(texts, masked))
        start = time.perf_counter()
        for text in texts:
            mask_secrets(text)
        alone.append(time.perf_counter() - start)
    report = {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "python": platform.python_version(),
        "texts": len(texts),
        "characters": sum(map(len, texts)),
        "real_texts_changed": changed,
        "spliced": len(spliced),
        "spliced_leaked": leaked,
        "clean_text_with_masking_ms": round(statistics.median(with_) * 1e3, 2),
        "clean_text_without_masking_ms": round(statistics.median(without) * 1e3, 2),
        "ratio": round(statistics.median(w / o for w, o in zip(with_, without, strict=True)), 3),
        "mask_secrets_alone_us_per_text": round(statistics.median(alone) / len(texts) * 1e6, 2),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
