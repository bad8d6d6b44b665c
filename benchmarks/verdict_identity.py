"""Verdict identity: the classifier of two source trees gives the same verdict on every text
of the project's corpora (proof that a speed-up changed no verdict).

    python benchmarks/verdict_identity.py --old OLD/shared_core/src [--new shared_core/src]

Each tree runs in its own interpreter (``PYTHONPATH=TREE``) and writes one line per call:
``inspect_result`` on every string of every record of the corpora, with no client and with
each known client, with ``is_error`` True and False, as a list of content blocks, inside an
MCP ``CallToolResult`` dict, with an exception of the record's class (or ``ValueError``)
carrying the text, plus ``detect_failure``; the texts also cut to 200 characters and with
the benchmark's `` (request N)`` tail (short texts that miss the verdict cache). The two
outputs are compared line by line: exit status 1 on any difference.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "shared_core" / "tests"
CORPORA = [
    TESTS / "real_errors" / "live_corpus.jsonl",
    *sorted((TESTS / "real_errors" / "libraries" / "data").glob("*.jsonl")),
    *sorted((TESTS / "real_errors" / "successes" / "data").glob("*.jsonl")),
    *sorted((TESTS / "framework_texts" / "data").glob("*.jsonl")),
    *sorted((TESTS / "data").glob("*.jsonl")),
]


def _strings(value: Any, out: list[str], names: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key == "exception" and isinstance(item, str):
                names.append(item)
            _strings(item, out, names)
    elif isinstance(value, list):
        for item in value:
            _strings(item, out, names)


def corpus() -> list[tuple[str, str | None]]:
    """(text, the exception class its record names) for every distinct string."""
    seen: dict[str, str | None] = {}
    for path in CORPORA:
        with path.open(encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                texts: list[str] = []
                names: list[str] = []
                _strings(json.loads(line), texts, names)
                for text in texts:
                    seen.setdefault(text, names[0] if names else None)
    sys.path.insert(0, str(Path(__file__).parent))
    from bench_core import SHORT  # the benchmark's own texts

    for text in SHORT:
        seen.setdefault(text, None)
    out: list[tuple[str, str | None]] = []
    for i, (text, name) in enumerate(seen.items()):
        out.append((text, name))
        for variant in (text[:200], f"{text} (request {i})"):
            if variant not in seen:
                out.append((variant, name))
    return out


def _exception(name: str | None, text: str) -> BaseException:
    if not name or not all(part.isidentifier() for part in name.split(".")):
        return ValueError(text)
    module, _, short = name.rpartition(".")
    cls = type(short, (Exception,), {"__module__": module or "builtins"})
    return cls(text)


def dump(out_path: str) -> None:
    import toolerr
    from toolerr import _rules as R
    from toolerr._detect import detect_failure

    clients = [None, *R.FRAMEWORK_CLIENTS, *R.CODING_AGENTS, "unknown-client"]

    def show(verdict: Any) -> str:
        return f"{verdict!r} hidden={verdict.hidden_retries} {json.dumps(verdict.to_dict(), sort_keys=True)}"

    with open(out_path, "w", encoding="utf-8") as f:
        for text, name in corpus():
            lines = [show(toolerr.inspect_result(text, client=c)) for c in clients]
            lines.append(show(toolerr.inspect_result(text, is_error=True)))
            lines.append(show(toolerr.inspect_result(text, is_error=False)))
            lines.append(show(toolerr.inspect_result([{"type": "text", "text": text}])))
            mcp = {"content": [{"type": "text", "text": text}], "isError": True}
            lines.append(show(toolerr.inspect_result(mcp)))
            lines.append(show(toolerr.inspect_result(text, exception=_exception(name, text))))
            lines.append(repr(detect_failure(text)))
            f.write(json.dumps([text[:120], lines]) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--old", required=False, help="the old tree's shared_core/src")
    parser.add_argument("--new", default=str(ROOT / "shared_core" / "src"))
    parser.add_argument("--dump", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.dump:
        dump(args.dump)
        return
    if not args.old:
        parser.error("--old is required")
    outputs = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, src in (("old", args.old), ("new", args.new)):
            out = os.path.join(tmp, f"{label}.jsonl")
            env = {**os.environ, "PYTHONPATH": os.path.abspath(src)}
            subprocess.run([sys.executable, __file__, "--dump", out], env=env, check=True)
            outputs.append(Path(out).read_text(encoding="utf-8").splitlines())
    old, new = outputs
    assert len(old) == len(new), (len(old), len(new))
    calls = differences = 0
    for old_line, new_line in zip(old, new, strict=True):
        text, old_verdicts = json.loads(old_line)
        _, new_verdicts = json.loads(new_line)
        for a, b in zip(old_verdicts, new_verdicts, strict=True):
            calls += 1
            if a != b:
                differences += 1
                if differences <= 20:
                    print(f"DIFF {text!r}\n  old: {a}\n  new: {b}")
    print(f"texts: {len(old)}, calls compared: {calls}, differences: {differences}")
    sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
