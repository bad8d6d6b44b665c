"""The run journal: what an evaluation has computed so far, as JSON Lines, for ``--resume``.

A long ``toolerr eval`` run writes, as it goes, one line per decoded reply (after each
batch, flushed) and one per teacher-forced scoring call (after each scenario), to
``progress.jsonl`` in the ``--out`` folder (or ``--journal FILE``). The first line holds
the run's options (model, harnesses, kinds, counts, seed, batch size, decoding options):
everything that changes a number. ``--resume`` reads the file back, refuses it when its
options differ from the ones given now, and replays the run: every batch whose replies are
all in the journal is taken from it instead of being decoded, every other one is decoded
(and written). The batches are formed exactly as in an uninterrupted run (the same
requests in the same order, because the replayed replies are the same), so a resumed run
gives the same replies, records and summaries as one that never stopped; only the cost
counters and timings differ.

Each line's ``key`` is a digest of what decides the reply (the whole prompt, which holds
the scenario, the kind and the harness's view of the conversation, the banned strings, the
tools and the prefill) under the options of the header (the model among them); ``label``
names the stage, scenario, kind, harness (and turn) for a reader. A last line cut by the
interruption is ignored.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Mapping, Sequence
from typing import IO, Any

logger = logging.getLogger("toolerr")

__all__ = ["FORMAT", "Journal", "ResumeError"]

FORMAT = "toolerr-eval-journal/1"


class ResumeError(ValueError):
    """The journal cannot be resumed with these options (or cannot be read)."""


def digest(value: Any) -> str:
    """A stable key of a JSON-able value."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    out = []
    for name in sorted(set(old) | set(new)):
        if old.get(name) != new.get(name):
            out.append(f"{name}: {old.get(name)!r} in the file, {new.get(name)!r} now")
    return out


class Journal:
    """An append-only JSON Lines journal of one evaluation run (module docstring).

    ``resume=False`` starts a new file (an existing one is replaced); ``resume=True`` reads
    the file, checks its options and appends to it."""

    def __init__(self, path: str, options: Mapping[str, Any], *, resume: bool = False) -> None:
        self.path = path
        self.options = json.loads(json.dumps(dict(options)))  # as it reads back
        self.replies: dict[str, dict[str, Any]] = {}
        self.scores: dict[str, list[list[list[float]]]] = {}
        self.resumed = 0
        self._handle: IO[str] | None = None
        if resume:
            self._read()
            self._handle = open(path, "a", encoding="utf-8")  # noqa: SIM115 - kept open for the run
        else:
            folder = os.path.dirname(path)
            if folder:
                os.makedirs(folder, exist_ok=True)
            self._handle = open(path, "w", encoding="utf-8")  # noqa: SIM115
            self._write({"format": FORMAT, "options": self.options})

    def __repr__(self) -> str:
        return f"Journal({self.path!r}, {len(self.replies)} replies, {len(self.scores)} scorings)"

    def _read(self) -> None:
        try:
            with open(self.path, encoding="utf-8") as handle:
                lines = handle.read().split("\n")
        except OSError as exc:
            raise ResumeError(f"cannot read {self.path}: {exc}") from exc
        try:
            header = json.loads(lines[0])
        except ValueError as exc:
            raise ResumeError(f"{self.path} is not a toolerr eval journal") from exc
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise ResumeError(f"{self.path} is not a toolerr eval journal ({FORMAT})")
        differences = _differences(header.get("options") or {}, self.options)
        if differences:
            raise ResumeError(
                f"{self.path} was written with different options; run without --resume to start "
                "again, or give the same options: " + "; ".join(differences)
            )
        body = [line for line in lines[1:] if line.strip()]
        for number, line in enumerate(body):
            try:
                entry = json.loads(line)
            except ValueError:
                if number == len(body) - 1:  # the line being written when the run stopped
                    logger.warning("toolerr eval: %s: ignoring a cut last line", self.path)
                    # Later lines start on a fresh line.
                    with open(self.path, "a", encoding="utf-8") as handle:
                        handle.write("\n")
                    continue
                raise ResumeError(f"{self.path}: line {number + 2} is not JSON") from None
            if entry.get("type") == "reply":
                self.replies[entry["key"]] = entry["reply"]
            elif entry.get("type") == "score":
                self.scores[entry["key"]] = entry["scores"]

    def _write(self, entry: Mapping[str, Any]) -> None:
        handle = self._handle
        if handle is None:
            return
        handle.write(json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n")

    def flush(self) -> None:
        handle = self._handle
        if handle is not None:
            handle.flush()
            os.fsync(handle.fileno())

    @staticmethod
    def reply_key(prompt: str, banned: Sequence[str], tools: Sequence[str], prefill: str) -> str:
        return digest(["reply", prompt, list(banned), list(tools), prefill])

    @staticmethod
    def score_key(prompts: Sequence[str], candidates: Sequence[Sequence[str]]) -> str:
        return digest(["score", list(prompts), [list(c) for c in candidates]])

    def add_replies(self, entries: Sequence[tuple[str, Sequence[str], Mapping[str, Any]]]) -> None:
        """Record one batch: ``(key, label, reply fields)`` per row; flushed."""
        for key, label, reply in entries:
            self.replies[key] = dict(reply)
            self._write({"type": "reply", "key": key, "label": list(label), "reply": reply})
        self.flush()

    def add_scores(self, key: str, label: Sequence[str], scores: list[list[tuple[float, int]]]) -> None:
        """Record one scoring call; flushed."""
        stored = [[[s, n] for s, n in row] for row in scores]
        self.scores[key] = json.loads(json.dumps(stored))
        self._write({"type": "score", "key": key, "label": list(label), "scores": stored})
        self.flush()

    def close(self) -> None:
        handle = self._handle
        self._handle = None
        if handle is not None:
            handle.close()
