"""Quarantine: a long tool result shown to the model as an excerpt for one model call.

A failed tool result longer than ``Policy.quarantine_chars`` is saved to a result store
byte for byte (a content-addressed file: the same text saved twice is one file) and shown
to the model, in the model call's rewrite only, as its primary error (the exception name
and message line), its last ``quarantine_lines`` lines and the reference to the saved
text. The framework's own history keeps the whole result. When the store cannot save,
the result is shown whole (fail open, a WARNING on logger ``toolerr``): nothing is lost.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import os
import re
import stat
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ._lru import LRUCache
from ._types import Message, result_text

logger = logging.getLogger("toolerr")

DEFAULT_QUARANTINE_CHARS = 8000
"""The default ``Policy.quarantine_chars`` (see ``benchmarks/RESULTS.md``, "Quarantine":
12,351 of the 12,352 error texts of the project's corpora are shorter, the 99th percentile
710 characters; a failing test run or a compiler's output of a few hundred lines is far
above)."""

DEFAULT_QUARANTINE_LINES = 15
"""The default ``Policy.quarantine_lines``: the last lines an excerpt keeps."""

MIN_QUARANTINE_CHARS = 500
"""The least ``quarantine_chars`` accepted: room for the error line, the reference and lines."""

_ERROR_LINE_CHARS = 300  # the primary error line is cut to this in an excerpt


@runtime_checkable
class ResultStore(Protocol):
    """Where quarantined results are kept: ``Policy(result_store=...)`` takes a directory
    path (a :class:`DirectoryStore`) or any object with this method.

    ``save`` keeps ``text`` whole and returns the reference the model is shown (a path,
    a URL, a key the agent's own tools can read). It is called once per model call that
    shows the result, so saving the same text again must be cheap and give the same
    reference. It may raise: the result is then shown whole (logged).
    """

    def save(self, text: str, *, tool: str | None, call_id: str | None) -> str:
        """Keep ``text`` and return its reference.

        Args:
            text: The tool result's full text.
            tool: The tool's name, when known.
            call_id: The id of the call the result answers, when known.

        Returns:
            The reference shown to the model.
        """
        ...  # pragma: no cover


def default_result_dir() -> Path:
    """The default result directory: ``toolerr-results-<uid>`` (the user's name where
    there are no uids) under :func:`tempfile.gettempdir`, private to the user."""
    getuid = getattr(os, "getuid", None)
    if getuid is not None:
        owner = str(getuid())
    else:  # pragma: no cover - Windows
        owner = re.sub(r"[^\w.-]", "_", os.environ.get("USERNAME", "user")) or "user"
    return Path(tempfile.gettempdir()) / f"toolerr-results-{owner}"


class DirectoryStore:
    """A :class:`ResultStore` over a directory: each text is saved, UTF-8 encoded (lone
    surrogates kept as ``surrogatepass`` writes them), as ``<sha256>.txt``; the reference is
    the file's absolute path. The directory is created (mode 0700) on the first save. The
    default directory (:func:`default_result_dir`, under the shared temporary directory)
    must be a real directory owned by the user and closed to others, else nothing is saved
    there (results are then shown whole, logged).

    Args:
        path: The directory (default: :func:`default_result_dir`).
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self._private = path is None
        self.path = Path(path) if path is not None else default_result_dir()

    def __repr__(self) -> str:
        return f"DirectoryStore({str(self.path)!r})"

    def _ready(self) -> Path:
        directory = self.path.absolute()
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        if self._private:
            info = os.lstat(directory)
            getuid = getattr(os, "getuid", None)
            if (
                not stat.S_ISDIR(info.st_mode)
                or (getuid is not None and info.st_uid != getuid())
                or (sys.platform != "win32" and info.st_mode & 0o077)
            ):
                raise PermissionError(
                    f"{directory} is not a private directory of this user; "
                    "give result_store= a directory of your own"
                )
        return directory

    def save(self, text: str, *, tool: str | None = None, call_id: str | None = None) -> str:
        """Save ``text`` (once per content) and return the file's absolute path.

        Args:
            text: The full text.
            tool: Unused (the name is the content's hash).
            call_id: Unused.

        Returns:
            The path of the file that holds ``text``.

        Raises:
            OSError: The directory or the file cannot be written.
        """
        data = text.encode("utf-8", "surrogatepass")
        directory = self._ready()
        target = directory / f"{hashlib.sha256(data).hexdigest()}.txt"
        try:
            if target.stat().st_size == len(data):
                return str(target)
        except FileNotFoundError:
            pass
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=".toolerr-", suffix=".part")
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(data)
            os.replace(temporary, target)
        except BaseException:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            raise
        return str(target)


def resolve_store(spec: Any) -> ResultStore:
    """The store for ``Policy.result_store``: a :class:`DirectoryStore` for ``None`` (the
    default directory) or a path, else the object itself (it has ``save``)."""
    if spec is None or isinstance(spec, (str, os.PathLike)):
        return DirectoryStore(spec)
    store: ResultStore = spec
    return store


def check_store(spec: Any) -> None:
    """Raise :class:`TypeError` unless ``spec`` is what ``result_store=`` accepts."""
    if spec is None or isinstance(spec, (str, os.PathLike)):
        return
    if not callable(getattr(spec, "save", None)):
        raise TypeError(
            "result_store must be a directory path or an object with "
            f"save(text, *, tool, call_id) -> str, got {type(spec).__name__}"
        )


# -- the excerpt ---------------------------------------------------------------------

_EXCEPTION_NAME = r"(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Failure|Fault|Warning)"
_EXCEPTION_LINE = re.compile(rf"^{_EXCEPTION_NAME}(?:: [^\n]*)?[ \t]*$", re.MULTILINE)
_PYTEST_E = re.compile(r"^E {2,}(\S[^\n]*?)[ \t]*$", re.MULTILINE)
_PYTEST_E_EXCEPTION = re.compile(rf"^E {{2,}}({_EXCEPTION_NAME}(?:: [^\n]*?)?)[ \t]*$", re.MULTILINE)
_ERROR_WORD = re.compile(
    r"^[^\n]*\b(?:error|fatal|failed|failure|exception|panic)\b[^\n]*", re.IGNORECASE | re.MULTILINE
)


def primary_error(text: str) -> str:
    """The line that names the error in a long tool output.

    The first pytest ``E   `` line that names an exception (a test run: its first
    failure); else the last ``SomethingError: message`` line that starts a line (a Python
    traceback's last line); else the first ``E   `` line; else the first line that says
    error, fatal, failed, exception or panic (a compiler's ``file.c:3:5: error: ...``);
    else the first non-blank line. Returns ``""`` for a blank text.
    """
    text = text.replace("\r\n", "\n") if "\r" in text else text
    if (found := _PYTEST_E_EXCEPTION.search(text)) is not None:
        return found.group(1)
    last = None
    for last in _EXCEPTION_LINE.finditer(text):  # noqa: B007 - the last one is wanted
        pass
    if last is not None:
        return last.group(0).rstrip()
    if (found := _PYTEST_E.search(text)) is not None:
        return found.group(1)
    if (found := _ERROR_WORD.search(text)) is not None:
        return found.group(0).strip()
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def excerpt(text: str, reference: str, *, lines: int, limit: int) -> str:
    """What the model is shown for a quarantined ``text``: the primary error, a line that
    says how much was cut and names ``reference``, and the last ``lines`` lines, in at most
    ``limit`` characters (the first of the kept lines are cut at their start when they do
    not fit; the reference is never cut)."""
    all_lines = text.splitlines()
    tail = all_lines[-lines:] if lines else []
    error = primary_error(text)
    if len(error) > _ERROR_LINE_CHARS:
        error = error[: _ERROR_LINE_CHARS - 3] + "..."
    cut = len(all_lines) - len(tail)
    marker = (
        f"[toolerr: {cut:,} earlier lines not shown; the full result ({len(all_lines):,} lines, "
        f"{len(text):,} characters) is saved at {reference}]"
    )
    head = f"{error}\n{marker}" if error and (not tail or error != tail[-1].rstrip()) else marker
    body = "\n".join(tail)
    room = limit - len(head) - 1
    if len(body) > room:
        body = body[len(body) - max(room, 0) :]
    return f"{head}\n{body}" if body else head


# -- messages ------------------------------------------------------------------------


class Quarantine:
    """The quarantine of one layer: its store, and the excerpts it made for the latest
    texts (a text shown at every model call is saved and cut once: a cache of
    ``cache_size`` entries, known by the identity of the text object). Thread-safe.

    Args:
        store: Where the full texts go.
        lines: The last lines an excerpt keeps.
        limit: The length over which a result is quarantined; the most an excerpt holds.
        cache_size: How many excerpts are kept.
    """

    def __init__(self, store: ResultStore, *, lines: int, limit: int, cache_size: int = 32) -> None:
        self.store = store
        self.lines = lines
        self.limit = limit
        self._cache: LRUCache[int, tuple[str, str]] = LRUCache(cache_size)

    def content(self, message: Message) -> Any:
        """The content of ``message`` as an excerpt of its text (:func:`excerpt`), after the
        text is saved to the store; ``None`` when it stays as it is: it is not over the
        limit, its content is neither text nor a list of blocks, or the store failed
        (logged).

        A list of content blocks keeps its other blocks (images); its text blocks become
        one text block, where the first of them was.
        """
        content = message.content
        if not isinstance(content, (str, list)):
            return None
        text = result_text(content) if isinstance(content, list) else content  # no media payloads
        if len(text) <= self.limit:
            return None
        kept = self._cache.get(id(text))
        if kept is not None and kept[0] is text:
            shown = kept[1]
        else:
            try:
                reference = self.store.save(text, tool=message.name, call_id=message.tool_call_id)
                if not isinstance(reference, str) or not reference:
                    raise TypeError(f"result_store.save returned {type(reference).__name__}, not a reference")
            except Exception:
                logger.warning(
                    "toolerr: saving a long tool result failed; the model is shown it whole", exc_info=True
                )
                return None
            shown = excerpt(text, reference, lines=self.lines, limit=self.limit)
            if isinstance(content, str):
                self._cache.put(id(text), (text, shown))
        if isinstance(content, str):
            return shown
        blocks: list[Any] = []
        placed = False
        for block in content:
            is_text = isinstance(block, str) or (
                isinstance(block, dict) and isinstance(block.get("text"), str)
            )
            if not is_text:
                blocks.append(block)
            elif not placed:
                blocks.append({"type": "text", "text": shown})
                placed = True
        return blocks

    def messages(
        self, messages: Sequence[Message], *, failed: Callable[[Message], bool], successes: bool
    ) -> tuple[list[Message], set[int]]:
        """The messages with each long tool result quarantined (a new list; the others are
        the same objects) and the indices changed. ``failed(message)``: whether a result
        failed (asked only of results over the limit); a success is quarantined only when
        ``successes``."""
        out = list(messages)
        changed: set[int] = set()
        limit = self.limit
        for index, message in enumerate(messages):
            content = message.content
            if message.role != "tool" or not (
                type(content) is list or (type(content) is str and len(content) > limit)
            ):
                continue  # the common case, kept cheap: most results are short text
            if not successes and not failed(message):
                continue
            new = self.content(message)
            if new is not None:
                out[index] = dataclasses.replace(message, content=new)
                changed.add(index)
        return out, changed
