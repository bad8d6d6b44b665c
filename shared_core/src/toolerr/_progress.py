"""Progress: a fingerprint of the environment after each tool step, and the loops that
need no repeated failure to be seen (the contract's "Repeats and loops", progress).

* **Stalls** (``Policy.progress``): when the next model call is prepared, the environment
  is probed once per new tool step (the step is known by its call ids and results: a
  second rewrite of the same step does not probe again): the built-in ``"git"`` probe
  hashes HEAD, the index and the working tree of the repository at ``progress_cwd``, or a
  callable the user gives returns a fingerprint. When the fingerprints after the last
  ``progress_window`` steps are equal and one of those steps holds a failure, the loop
  action applies. A probe that fails or is slow is logged (WARNING) and the step counts as
  unknown, never as unchanged (the ``"git"`` probe is stopped at its time limit; a callable
  cannot be stopped, and its late answer is not used).
* **Fingerprint epochs**: a changed fingerprint between two calls means they are not a
  repeat (verbatim, canonical, cycle, same result): the failed-call ledger of a
  conversation is replayed from the start of its latest epoch.
* **Same results** (``Policy.same_result_repeats``): a successful call whose (tool,
  canonical arguments, result text) repeats that many times in the epoch gets a loop note.

Probes are never run inside a tool's own call, only on the layer's model-call path
(:meth:`ToolErrorLayer.rewrite`). Fingerprints are kept per layer by step (the
conversation's first message, the step's position, call ids and results): the history
of a run is read back from its own conversation, so nothing of one run reaches another.
"""

from __future__ import annotations

import hashlib
import logging
import os
import subprocess
import threading
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from ._canonical import canonical_arguments
from ._failopen import log_swallowed
from ._forms import ExchangeResult, pair_results
from ._ledger import RepeatReport
from ._loop import LoopDecision, ToolLoopError, _display_name
from ._lru import LRUCache
from ._runs import content_fingerprint
from ._types import Message, ToolCall, Verdict, content_text

__all__ = [
    "GIT_PROBE_TIMEOUT",
    "SAME_RESULT_NOTE",
    "STALL_NOTE",
    "Assessment",
    "Progress",
    "git_fingerprint",
]

logger = logging.getLogger("toolerr")

GIT_PROBE_TIMEOUT = 2.0
"""Seconds a probe may take: the built-in ``"git"`` probe is stopped past it (its ``git``
commands together); a callable cannot be stopped, so its fingerprint is not used when it
took longer (logged: WARNING)."""

_UNTRACKED_FILES = 1000
_UNTRACKED_BYTES = 1 << 20

STALL_NOTE = (
    "The environment has not changed over the last {steps} tool steps and a call failed; "
    "repeating the same actions will not make progress. Change the approach, or tell the "
    "user what blocks the task."
)
"""The stall's loop reason (after the note prefix). Byte-exact, as the behaviour contract
writes it ("Repeats and loops")."""

SAME_RESULT_NOTE = (
    "{name} returned the same result {count} times for the same arguments; calling it "
    "again will return it again. Use the result, or change the approach."
)
"""The same-result loop reason (after the note prefix). Byte-exact, as the behaviour
contract writes it ("Repeats and loops")."""

_EMPTY = RepeatReport()


def git_fingerprint(cwd: str | os.PathLike[str], timeout: float = GIT_PROBE_TIMEOUT) -> str:
    """A hash of the git repository at ``cwd``: HEAD, the index and the working tree (what
    ``git status --porcelain``, ``git diff`` and ``git diff --cached`` show, and the
    bytes of untracked files), read with real ``git`` subprocesses.

    Args:
        cwd: A directory inside the repository.
        timeout: Seconds for all the commands together.

    Returns:
        A hex SHA-256 digest.

    Raises:
        subprocess.TimeoutExpired: The commands took longer than ``timeout``.
        RuntimeError: A ``git`` command failed (not a repository, no ``git``).
    """
    deadline = time.monotonic() + timeout
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}  # never take the index lock
    digest = hashlib.sha256()

    def git(*args: str, check: bool = True) -> bytes:
        left = deadline - time.monotonic()
        if left <= 0:
            raise subprocess.TimeoutExpired(["git", *args], timeout)
        done = subprocess.run(
            ["git", "--no-pager", *args], cwd=cwd, env=env, capture_output=True, timeout=left, check=False
        )
        if check and done.returncode != 0:
            raise RuntimeError(f"git {args[0]} exited with {done.returncode}")
        return done.stdout

    digest.update(git("rev-parse", "--verify", "-q", "HEAD", check=False))  # none in a new repository
    status = git("status", "--porcelain=v1", "-z", "--untracked-files=all")
    digest.update(b"\0status\0" + status)
    digest.update(b"\0diff\0" + git("diff", "--no-ext-diff", "--binary"))
    digest.update(b"\0cached\0" + git("diff", "--cached", "--no-ext-diff", "--binary"))
    top = git("rev-parse", "--show-toplevel").decode("utf-8", "surrogateescape").strip()
    untracked = [entry[3:] for entry in status.split(b"\0") if entry.startswith(b"?? ")]
    for index, name in enumerate(untracked):  # status names them; their bytes make the change
        path = os.path.join(top, os.fsdecode(name))
        try:
            size = os.path.getsize(path)
            if index < _UNTRACKED_FILES and size <= _UNTRACKED_BYTES:
                with open(path, "rb") as handle:
                    digest.update(b"\0" + name + b"\0" + hashlib.sha256(handle.read()).digest())
            else:
                digest.update(b"\0" + name + f"\0{size}:{os.stat(path).st_mtime_ns}".encode())
        except OSError:
            digest.update(b"\0" + name + b"\0?")
    return digest.hexdigest()


@dataclass(frozen=True)
class _Step:
    index: int
    """The assistant message's index."""
    key: Hashable
    results: tuple[ExchangeResult, ...]


@dataclass(frozen=True)
class Assessment:
    """What progress says about a conversation's latest tool step."""

    history: tuple[Hashable | None, ...]
    """The fingerprint after each tool step of the conversation (``None``: unknown)."""
    epoch_start: int
    """The index of the assistant message that starts the latest step's epoch (0: the start)."""
    fresh_next: bool
    """The latest step changed the fingerprint: the next call starts a new epoch."""
    decision: LoopDecision | None
    """The loop decision for the latest step (a stall or a same result), ``None``: none."""
    calls: tuple[ToolCall, ...] = ()
    """The calls of the steps the decision is about."""


class Progress:
    """The progress probes and same-result counts of one layer (thread-safe).

    Args:
        policy: The layer's policy (``progress``, ``progress_cwd``, ``progress_window``,
            ``same_result_repeats``, ``loop_action``, ``on_loop``).
    """

    def __init__(self, policy: Any) -> None:
        self.policy = policy
        self.prints: LRUCache[Hashable, Hashable | None] = LRUCache(4096)
        """The fingerprints of the runs without a scope of their own, by step key."""
        self._seen: LRUCache[Hashable, dict[Hashable, None]] = LRUCache(4096)
        self._lock = threading.Lock()

    @property
    def probing(self) -> bool:
        return self.policy.progress is not None

    def wants_whole(
        self, tail: Sequence[Message], length: int, inspect: Callable[[Message], Verdict]
    ) -> bool:
        """Whether a model call whose decision step did not fail must still be rewritten
        whole (an adapter converts only the tail otherwise): always when probing; for
        same results only when a successful result of the tail (tool and text) was seen
        often enough by this layer at other positions (a cheap, conservative pre-check:
        the rewrite decides from the run's own conversation)."""
        if self.probing:
            return any(m.role == "tool" for m in tail)
        repeats = self.policy.same_result_repeats
        due = False
        for message in tail:
            if message.role != "tool" or inspect(message).failed:
                continue
            key = (message.name, content_fingerprint(message.content))
            with self._lock:
                seen = self._seen.touch(key)
                if seen is None:
                    seen = {}
                    self._seen.put(key, seen)
                seen[(message.tool_call_id, length)] = None
                while len(seen) > 64:
                    del seen[next(iter(seen))]
                due = due or len(seen) >= repeats
        return due

    # -- probes --------------------------------------------------------------------

    def probe(self) -> Hashable | None:
        """The environment's fingerprint now; ``None`` (unknown) when the probe fails, takes
        longer than ``GIT_PROBE_TIMEOUT`` (the ``"git"`` probe is stopped then; a callable
        cannot be) or returns something that cannot be compared (logged: WARNING)."""
        progress = self.policy.progress
        try:
            if progress == "git":
                return git_fingerprint(self.policy.progress_cwd)
            started = time.monotonic()
            value = progress()
            took = time.monotonic() - started
            if took > GIT_PROBE_TIMEOUT:
                logger.warning(
                    "toolerr: the progress probe took %.1f s (more than %.1f s): the step counts as unknown",
                    took,
                    GIT_PROBE_TIMEOUT,
                )
                return None
            if isinstance(value, str):
                value = value.encode("utf-8", "surrogatepass")
            if isinstance(value, (bytes, bytearray, memoryview)):
                return hashlib.sha256(bytes(value)).hexdigest()
            if value is None:
                raise TypeError("the progress probe returned None")
            hash(value)
            return value  # type: ignore[no-any-return]
        except Exception:  # noqa: BLE001 - a probe never breaks the run: the step is unknown
            log_swallowed("probing the environment for progress", then="the step counts as unknown")
            return None

    # -- the conversation's steps --------------------------------------------------

    @staticmethod
    def _steps(messages: Sequence[Message]) -> list[_Step]:
        """The conversation's tool steps, each keyed (the key that finds a step's
        fingerprint) by everything before it (a chain of every earlier message's role,
        content, calls and call id: two conversations share a key only where they are the
        same up to the step), its position, its call ids and its results' contents."""
        steps: list[_Step] = []
        chain: Hashable = None
        for index, message in enumerate(messages):
            if message.role == "assistant" and message.tool_calls:
                results = tuple(r for r in pair_results(messages, index) if r.call is not None)
                if results:
                    key = (
                        chain,
                        index,
                        tuple(r.call.id for r in results if r.call is not None),
                        tuple(content_fingerprint(r.message.content) for r in results),
                    )
                    steps.append(_Step(index, key, results))
            calls = tuple(
                (c.id, c.name, c.raw_arguments if c.raw_arguments is not None else repr(c.arguments))
                for c in message.tool_calls
            )
            content = content_fingerprint(message.content)
            chain = hash((chain, message.role, content, calls, message.tool_call_id))
        return steps

    def assess(
        self,
        messages: Sequence[Message],
        inspect: Callable[[Message], Verdict],
        *,
        probe: bool,
        prints: LRUCache[Hashable, Hashable | None],
    ) -> Assessment | None:
        """The progress of a conversation at its latest tool step.

        Args:
            messages: The conversation of one model call.
            inspect: The verdict of a tool message (the layer's, for the run).
            probe: Take the fingerprint of a latest step that has none yet (the model-call
                path); else fingerprints are only read.
            prints: The fingerprint taken after each step, by step key: the run's own
                (a run scope never reads another's).

        Returns:
            The :class:`Assessment`, or ``None`` when there is no tool step.
        """
        if not self.probing:
            texts = self._repeated_texts(messages)
            if texts is None:
                return None  # the common case without probes: one pass, no pairing of old steps
            lean = self._steps_with(messages, texts)
            count, steps = lean if lean is not None else (0, self._steps(messages))
            if not steps:
                return None
            count = count or len(steps)
            # only the same-result check applies: on the steps whose results share a text
            # with the decision step's (the others cannot count), the latest step last
            decision, calls = self._same_result(steps, inspect)
            return Assessment((None,) * count, 0, False, decision, calls)
        steps = self._steps(messages)
        if not steps:
            return None
        history: list[Hashable | None] = [None] * len(steps)
        if self.probing:
            latest = steps[-1].key
            with self._lock:
                known = latest in prints
            if probe and not known:
                value = self.probe()
                with self._lock:
                    prints.put(latest, value)
            with self._lock:
                history = [prints.get(step.key) for step in steps]
        epoch = 0  # the position of the first step of the latest step's epoch
        for position in range(2, len(steps)):
            before, after = history[position - 2], history[position - 1]
            if before is not None and after is not None and before != after:
                epoch = position
        fresh = len(history) >= 2 and None not in history[-2:] and history[-1] != history[-2]
        decision, calls = self._stall(steps, history, inspect)
        if decision is None:
            decision, calls = self._same_result(steps[epoch:], inspect)
        return Assessment(tuple(history), steps[epoch].index if epoch else 0, fresh, decision, calls)

    def _repeated_texts(self, messages: Sequence[Message]) -> set[str] | None:
        """The texts of the decision step's results, where one of them is found at least
        ``same_result_repeats`` times among the conversation's tool results (a cheap
        pre-check: the same tool and arguments are checked after it); else ``None``."""
        repeats = self.policy.same_result_repeats
        last = len(messages) - 1
        while last >= 0 and messages[last].role != "assistant":
            last -= 1
        if not repeats or last < 0 or not messages[last].tool_calls:
            return None
        texts = {_text(m.content) for m in messages[last + 1 :] if m.role == "tool"}
        if not texts:
            return None
        counts = dict.fromkeys(texts, 0)
        for message in messages:
            if message.role == "tool":
                text = _text(message.content)
                if text in counts:
                    counts[text] += 1
        return texts if max(counts.values()) >= repeats else None

    @staticmethod
    def _steps_with(messages: Sequence[Message], texts: set[str]) -> tuple[int, list[_Step]] | None:
        """The number of tool steps of the conversation (as :meth:`_steps` counts them) and,
        paired, those among them with a result whose text is one of ``texts`` (the decision
        step's), and the latest step (last). A step counts where a result pairs with one of
        its calls: a result without a call id (it takes the first free call), or with one
        of theirs. ``None`` where the latest step is not the decision step (none of its
        results pairs with a call): the texts to look for are then another step's."""
        count = 0
        chosen: list[int] = []
        latest = last = -1
        index, ids, paired, wanted = -1, frozenset[str | None](), False, False
        for position, message in enumerate(messages):
            if message.role == "assistant":
                last = position
                if paired:
                    count, latest = count + 1, index
                    if wanted:
                        chosen.append(index)
                index, paired, wanted = -1, False, False
                if message.tool_calls:
                    index = position
                    ids = frozenset(c.id for c in message.tool_calls)
            elif (
                message.role == "tool"
                and index >= 0
                and (message.tool_call_id is None or message.tool_call_id in ids)
            ):
                paired = True
                wanted = wanted or _text(message.content) in texts
        if paired:
            count, latest = count + 1, index
            if wanted:
                chosen.append(index)
        if latest != last:
            return None
        if latest >= 0 and (not chosen or chosen[-1] != latest):
            chosen.append(latest)
        steps = []
        for i in chosen:
            results = tuple(r for r in pair_results(messages, i) if r.call is not None)
            steps.append(_Step(i, None, results))
        return count, steps

    def _stall(
        self, steps: list[_Step], history: list[Hashable | None], inspect: Callable[[Message], Verdict]
    ) -> tuple[LoopDecision | None, tuple[ToolCall, ...]]:
        window = self.policy.progress_window
        if not self.probing or len(history) < window:
            return None, ()
        last = history[-window:]
        if last[0] is None or any(value != last[0] for value in last):
            return None, ()
        if not any(inspect(r.message).failed for step in steps[-window:] for r in step.results):
            return None, ()
        reason = STALL_NOTE.format(steps=window)
        calls = tuple(r.call for step in steps[-window:] for r in step.results if r.call is not None)
        return self._decision(reason), calls

    def _same_result(
        self, steps: list[_Step], inspect: Callable[[Message], Verdict]
    ) -> tuple[LoopDecision | None, tuple[ToolCall, ...]]:
        repeats = self.policy.same_result_repeats
        if not repeats or not steps:
            return None, ()
        for result in steps[-1].results:
            text = content_text(result.message.content)
            assert result.call is not None
            # a cheap pass first: the same text earlier in the epoch, before canonical forms
            same = [
                r
                for step in steps
                for r in step.results
                if r.call is not None
                and r.call.name == result.call.name
                and content_text(r.message.content) == text
            ]
            if len(same) < repeats or inspect(result.message).failed:
                continue
            canonical = canonical_arguments(result.call.arguments)
            alike = [
                r
                for r in same
                if r.call is not None
                and canonical_arguments(r.call.arguments) == canonical
                and not inspect(r.message).failed
            ]
            if len(alike) >= repeats:
                reason = SAME_RESULT_NOTE.format(name=_display_name(result.call.name), count=len(alike))
                return self._decision(reason), tuple(r.call for r in alike if r.call is not None)
        return None, ()

    def _decision(self, reason: str) -> LoopDecision:
        action = self.policy.loop_action
        return LoopDecision(action, reason, _EMPTY)

    # -- stop ----------------------------------------------------------------------

    def stop(self, assessment: Assessment) -> ToolLoopError:
        """The :class:`ToolLoopError` of a stall or same result (loop action ``stop``),
        after ``on_loop`` was called with it (an ``on_loop`` that raises is logged)."""
        assert assessment.decision is not None
        error = ToolLoopError(assessment.decision, calls=assessment.calls, fingerprints=assessment.history)
        call_on_loop(self.policy, error)
        return error


def _text(content: Any) -> str:
    return content if isinstance(content, str) else content_text(content)


def call_on_loop(policy: Any, error: ToolLoopError) -> None:
    """Call ``policy.on_loop(error)`` once for an error (fails open: logged)."""
    on_loop = getattr(policy, "on_loop", None)
    if on_loop is None or getattr(error, "_on_loop_called", False):
        return
    error._on_loop_called = True  # type: ignore[attr-defined]
    try:
        on_loop(error)
    except Exception:  # noqa: BLE001 - the user's callback never changes the stop
        log_swallowed("the on_loop callback", then="the run stops as it would without it")
