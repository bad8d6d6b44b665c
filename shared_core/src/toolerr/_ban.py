"""Tokenizer-agnostic string ban: make exact strings unreachable at the decoder.

A local decoder (a ``LogitsProcessor`` built on top of this module) must make the exact
text of previously failed tool calls unreachable while a tool call is being written,
whatever tokenisation the model takes. This module works on strings only:

* the vocabulary is a sequence of strings, token id = index (the adapter decodes each
  token id to its text; empty strings and strings holding U+FFFD are accepted),
* the banned strings are strings,
* the partial text ``P`` is the text of the call written so far (what follows the start
  marker of the tool call).

Rule. A token ``t`` with text ``s`` is blocked after ``P`` iff for some banned ``b``::

    len(P) < len(b) and (P + s).startswith(b)

i.e. the token would reach the end of a banned string. Tokens that only continue a banned
prefix stay allowed, so the model is free to diverge until the last moment; a token that
completes a banned string and goes on ("overshoots") is blocked as well. If ``P`` is not a
prefix of a banned string nothing is blocked. An empty token never completes anything.

Design.

* :class:`PreparedVocabulary` sorts the non-empty token strings once (ids kept alongside).
  The tokens whose text starts with a string ``r`` form one contiguous range of that
  order, found with two :mod:`bisect` calls. Several :class:`StringBan` objects (one per
  batch row) share one prepared vocabulary.
* After ``P`` (a prefix of ``b``) the tokens completing ``b`` are exactly the tokens that
  start with the remainder ``r = b[len(P):]``. Only remainders no longer than the
  longest token can be completed by one token, and only those some token starts with
  matter. So :meth:`StringBan.ban` computes, once per banned string, the vocabulary range
  of each such remainder (at most ``max_token_length`` pairs of bisects, usually a
  handful of non-empty ones) and attaches it to the point ``P = b[:i]`` of a compressed
  character trie (radix tree) of the banned strings. Only those points and the branch
  points of the banned strings become trie nodes, which keeps the tree small.
* A :class:`BanCursor` follows the call being written through the trie: ``feed`` costs
  O(len(new text)); once ``P`` leaves the trie the cursor is dead and feeding costs O(1)
  until ``reset``. ``blocked_tokens`` is a lookup of the node's completion entry; its
  sorted id list is computed on first use (merge of the node's ranges) and cached on the
  node; ``ban`` invalidates only the entries it touches. A ``ban`` while a call is being
  written is seen by live cursors: they re-walk the partial text once (O(len(P))).

Costs per decoding step: never a scan of the vocabulary nor of the banned strings;
O(len(new text)) to feed plus O(k) to copy the k blocked ids (cached), or on the first
visit of a node O(m log m + k log k) for its m completion ranges (m = number of banned
strings completable from that exact point, usually 1..a few).

JSON white space. ``StringBan(..., ignore_json_whitespace=True)`` applies the same rule to a
canonical view of the text: JSON white space (space, tab, LF, CR) outside JSON strings is
dropped, from the banned strings and from the generated text alike, so ``{"a": 1 }``,
``{"a":1}`` and ``{ "a" :1}`` are one string. White space inside strings is kept (it is
significant), and so are escapes (``"a\\" b"`` is one string holding a quote). With
``C`` the canonicalisation, a token ``s`` is blocked after ``P`` iff for some banned ``b``
(canonical)::

    len(C(P)) < len(b) and C(P + s).startswith(b)

``C(P + s) = C(P) + C_q(s)`` where ``q`` is the lexical state at the end of ``P`` (outside a
string, inside one, just after a backslash inside one), and that state is a function of
``C(P)`` alone. So the trie is built over canonical banned strings, the cursor feeds
``C_q(new text)`` (tracking ``q``), and each completion range is taken in the sorted
canonical view of the vocabulary for the state at its trie point. The three views are
computed once per prepared vocabulary, on first use (O(V log V) each), so the per-step
cost is the same as for exact matching: never a scan of the vocabulary or of the bans.
Tokens whose canonical text is empty (white space between JSON values) never complete
anything and never move the cursor. Key order is not this module's business: the adapter
bans each key order it wants unreachable as its own string.

Limits. Matching is literal on the decoded text (or its canonical view); escapes are not
decoded (``"\\u0041"`` is not ``"A"``). The adapter must feed the call text as decoded
incrementally (complete characters); a token whose stand-alone text contains
U+FFFD (part of a multi-byte character) is matched literally, so a banned string whose
last character is split over several byte tokens can slip through at that character.
Tool-call JSON ends in ASCII, where this does not arise.
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Iterable, Sequence

from ._json_text import OUT, canonical_json_text, lexical_states

__all__ = ["BanCursor", "PreparedVocabulary", "StringBan"]

_MAX_CHAR = chr(0x10FFFF)


def _prefix_upper_bound(prefix: str) -> str | None:
    """The least string above every string that starts with ``prefix`` (None: no bound)."""
    stem = prefix.rstrip(_MAX_CHAR)
    if not stem:
        return None
    return stem[:-1] + chr(ord(stem[-1]) + 1)


class _View:
    """The tokens' texts in one sorted order (raw, or canonical from one lexical state)."""

    __slots__ = ("ids", "strings")

    def __init__(self, strings: list[str], ids: array[int]) -> None:
        self.strings = strings
        self.ids = ids

    def prefix_range(self, prefix: str) -> tuple[int, int]:
        strings = self.strings
        lo = bisect.bisect_left(strings, prefix)
        bound = _prefix_upper_bound(prefix)
        hi = len(strings) if bound is None else bisect.bisect_left(strings, bound, lo)
        return lo, hi


class PreparedVocabulary:
    """A vocabulary (token id = index) indexed once for prefix range queries.

    Preparation sorts the non-empty token strings (O(V log V), once); every query after
    that is two binary searches. Share one object between the :class:`StringBan` of all
    rows of a batch.
    """

    __slots__ = ("_ids", "_max_len", "_raw", "_size", "_strings", "_views")

    def __init__(self, vocabulary: Sequence[str]) -> None:
        size = len(vocabulary)
        for index in range(size):
            if not isinstance(vocabulary[index], str):
                raise TypeError(f"vocabulary[{index}] is {type(vocabulary[index]).__name__}, expected str")
        # Stable sort: equal strings (several byte tokens decoding to U+FFFD) keep id order.
        order = sorted((i for i in range(size) if vocabulary[i]), key=vocabulary.__getitem__)
        self._strings: list[str] = [vocabulary[i] for i in order]
        self._ids: array[int] = array("q", order)
        self._size = size
        self._max_len = max(map(len, self._strings), default=0)
        self._raw = _View(self._strings, self._ids)
        self._views: list[_View | None] = [None, None, None]

    def __len__(self) -> int:
        return self._size

    def __repr__(self) -> str:
        return f"PreparedVocabulary(size={self._size}, max_token_length={self._max_len})"

    @property
    def max_token_length(self) -> int:
        """Length (in characters) of the longest token string."""
        return self._max_len

    def prefix_range(self, prefix: str) -> tuple[int, int]:
        """``(lo, hi)``: the positions in sorted order of the tokens starting with ``prefix``."""
        strings = self._strings
        lo = bisect.bisect_left(strings, prefix)
        bound = _prefix_upper_bound(prefix)
        hi = len(strings) if bound is None else bisect.bisect_left(strings, bound, lo)
        return lo, hi

    def tokens_with_prefix(self, prefix: str) -> list[int]:
        """Ids of the non-empty tokens whose text starts with ``prefix``, ascending."""
        lo, hi = self.prefix_range(prefix)
        return sorted(self._ids[lo:hi])

    def _view(self, state: int | None) -> _View:
        """The raw view (``None``) or the canonical JSON view read from lexical ``state``
        (built on first use, then kept)."""
        if state is None:
            return self._raw
        view = self._views[state]
        if view is None:
            pairs = []
            for text, token in zip(self._strings, self._ids, strict=True):
                canonical = canonical_json_text(text, state)[0]
                if canonical:
                    pairs.append((canonical, token))
            pairs.sort()  # equal texts: ids ascending
            view = self._views[state] = _View([p[0] for p in pairs], array("q", [p[1] for p in pairs]))
        return view


class _Entry:
    """The tokens completing some banned string from one exact point ``P``."""

    __slots__ = ("blocked", "ranges", "view")

    def __init__(self, view: _View) -> None:
        self.ranges: list[tuple[int, int]] = []
        self.blocked: list[int] | None = None
        self.view = view


class _Node:
    """Radix-tree node: ``label`` is the text of the edge from the parent to this node."""

    __slots__ = ("edges", "entry", "label")

    def __init__(self, label: str) -> None:
        self.label = label
        self.edges: dict[str, _Node] | None = None
        self.entry: _Entry | None = None


def _advance(node: _Node, offset: int, text: str) -> tuple[_Node | None, int]:
    """Follow ``text`` from ``offset`` characters into ``node``'s label; None if it leaves."""
    i = 0
    n = len(text)
    while i < n:
        label = node.label
        room = len(label) - offset
        if room == 0:
            edges = node.edges
            child = None if edges is None else edges.get(text[i])
            if child is None:
                return None, 0
            node = child
            label = child.label
            offset = 0
            room = len(label)
        take = room if room < n - i else n - i
        if take == 1:
            if label[offset] != text[i]:
                return None, 0
        elif label[offset : offset + take] != text[i : i + take]:
            return None, 0
        offset += take
        i += take
    return node, offset


class StringBan:
    """Banned strings over one vocabulary; answers which tokens would complete one.

    ``vocabulary`` is either a sequence of token strings (prepared here, once) or a
    :class:`PreparedVocabulary` shared with other bans. ``ignore_json_whitespace``: match
    modulo JSON white space outside strings (module docstring); banned strings are then
    kept (and reported) in canonical form.
    """

    __slots__ = ("_banned", "_frozen", "_json", "_root", "_version", "_vocab")

    def __init__(
        self,
        vocabulary: Sequence[str] | PreparedVocabulary,
        banned: Iterable[str] = (),
        *,
        ignore_json_whitespace: bool = False,
    ) -> None:
        self._vocab = (
            vocabulary if isinstance(vocabulary, PreparedVocabulary) else PreparedVocabulary(vocabulary)
        )
        self._json = ignore_json_whitespace
        self._root = _Node("")
        self._banned: set[str] = set()
        self._frozen: frozenset[str] | None = frozenset()
        self._version = 0
        for text in banned:
            self.ban(text)

    def __repr__(self) -> str:
        return f"StringBan({self._vocab!r}, {len(self._banned)} banned)"

    def __len__(self) -> int:
        return len(self._banned)

    def __contains__(self, text: object) -> bool:
        return text in self._banned

    @property
    def ignores_json_whitespace(self) -> bool:
        """Whether matching is modulo JSON white space outside strings."""
        return self._json

    def canonical(self, text: str) -> str:
        """``text`` as this ban compares it (canonical JSON view, or unchanged)."""
        return canonical_json_text(text)[0] if self._json else text

    @property
    def vocabulary(self) -> PreparedVocabulary:
        """The prepared vocabulary (pass it to the ``StringBan`` of the other rows)."""
        return self._vocab

    @property
    def banned_strings(self) -> frozenset[str]:
        """The banned strings."""
        frozen = self._frozen
        if frozen is None:
            frozen = self._frozen = frozenset(self._banned)
        return frozen

    def banned(self) -> frozenset[str]:
        """The banned strings (same as :attr:`banned_strings`)."""
        return self.banned_strings

    def ban(self, text: str) -> None:
        """Make ``text`` unreachable: the token that would complete it gets blocked."""
        if not isinstance(text, str):
            raise TypeError(f"banned string must be str, not {type(text).__name__}")
        if not text:
            raise ValueError("cannot ban the empty string")
        if self._json:
            text = canonical_json_text(text)[0]
            if not text:
                raise ValueError("cannot ban a string of JSON white space")
        if text in self._banned:
            return
        vocab = self._vocab
        states = lexical_states(text) if self._json else None
        cuts: list[int] = []
        ranges: list[tuple[int, int]] = []
        views: list[_View] = []
        for i in range(max(0, len(text) - vocab.max_token_length), len(text)):
            view = vocab._view(None if states is None else states[i])
            lo, hi = view.prefix_range(text[i:])
            if lo < hi:
                cuts.append(i)
                ranges.append((lo, hi))
                views.append(view)
        for node, span, view in zip(self._insert(text, cuts), ranges, views, strict=True):
            entry = node.entry
            if entry is None:
                entry = node.entry = _Entry(view)
            entry.ranges.append(span)
            entry.blocked = None
        self._banned.add(text)
        self._frozen = None
        self._version += 1

    def blocked_tokens(self, partial: str) -> list[int]:
        """Ids (ascending) of the tokens that would complete a banned string after ``partial``."""
        node, offset = _advance(self._root, 0, self.canonical(partial))
        if node is None or offset != len(node.label) or node.entry is None:
            return []
        return list(self._resolve(node.entry))

    def cursor(self, partial: str = "") -> BanCursor:
        """Incremental state for one call being written (starting at ``partial``)."""
        cursor = BanCursor(self)
        if partial:
            cursor.feed(partial)
        return cursor

    # -- internals ---------------------------------------------------------------------

    def _resolve(self, entry: _Entry) -> list[int]:
        blocked = entry.blocked
        if blocked is None:
            ids = entry.view.ids
            blocked = []
            end = 0
            # Ranges of remainders are nested (one a prefix of the other) or disjoint.
            for lo, hi in sorted(entry.ranges):
                if hi <= end:
                    continue
                blocked.extend(ids[max(lo, end) : hi])
                end = hi
            blocked.sort()
            entry.blocked = blocked
        return blocked

    def _insert(self, text: str, cuts: list[int]) -> list[_Node]:
        """Add ``text`` as a path with node boundaries at ``cuts`` (ascending); their nodes."""
        found: list[_Node] = []
        ncuts = len(cuts)
        ci = 0
        node = self._root
        depth = 0
        if ncuts and cuts[0] == 0:
            found.append(node)
            ci = 1
        end = len(text)
        while depth < end:
            edges = node.edges
            if edges is None:
                edges = node.edges = {}
            child = edges.get(text[depth])
            if child is None:
                # New branch: one leaf segment per remaining cut.
                while depth < end:
                    stop = cuts[ci] if ci < ncuts else end
                    leaf = _Node(text[depth:stop])
                    if node.edges is None:
                        node.edges = {}
                    node.edges[text[depth]] = leaf
                    node = leaf
                    depth = stop
                    if ci < ncuts and cuts[ci] == depth:
                        found.append(node)
                        ci += 1
                break
            label = child.label
            limit = min(len(label), end - depth)
            if ci < ncuts:
                limit = min(limit, cuts[ci] - depth)
            common = 1
            while common < limit and label[common] == text[depth + common]:
                common += 1
            if common < len(label):
                middle = _Node(label[:common])
                child.label = label[common:]
                middle.edges = {child.label[0]: child}
                edges[text[depth]] = middle
                child = middle
            node = child
            depth += common
            if ci < ncuts and cuts[ci] == depth:
                found.append(node)
                ci += 1
        return found


class BanCursor:
    """The ban state of one call being written; feed it the generated text."""

    __slots__ = ("_ban", "_node", "_offset", "_partial", "_pieces", "_state", "_version")

    def __init__(self, ban: StringBan) -> None:
        self._ban = ban
        self._pieces: list[str] = []
        self._partial: str | None = ""
        self._node: _Node | None = ban._root
        self._offset = 0
        self._state = OUT
        self._version = ban._version

    def __repr__(self) -> str:
        return f"BanCursor(partial={self.partial!r}, active={self.active})"

    @property
    def partial(self) -> str:
        """The text of the call fed so far."""
        partial = self._partial
        if partial is None:
            partial = "".join(self._pieces)
            self._pieces = [partial]
            self._partial = partial
        return partial

    @property
    def active(self) -> bool:
        """Whether the partial text is still a prefix of some banned string."""
        self._sync()
        return self._node is not None and bool(self._ban._banned)

    def reset(self) -> None:
        """A new call starts: the partial text is empty again."""
        self._pieces = []
        self._partial = ""
        self._node = self._ban._root
        self._offset = 0
        self._state = OUT
        self._version = self._ban._version

    def feed(self, text: str) -> None:
        """Append generated text to the partial call (O(len(text)); O(1) once dead)."""
        if not text:
            return
        self._pieces.append(text)
        self._partial = None
        if self._version != self._ban._version:
            return  # re-walked lazily by _sync
        if self._node is not None:
            if self._ban._json:
                text, self._state = canonical_json_text(text, self._state)
                if not text:
                    return
            self._node, self._offset = _advance(self._node, self._offset, text)

    def blocked_tokens(self) -> list[int]:
        """Same as ``StringBan.blocked_tokens(self.partial)``."""
        self._sync()
        node = self._node
        if node is None or self._offset != len(node.label) or node.entry is None:
            return []
        return list(self._ban._resolve(node.entry))

    def _sync(self) -> None:
        ban = self._ban
        if self._version != ban._version:
            # Bans were added: the tree may have been split or grown; walk P again.
            text = self.partial
            if ban._json:
                text, self._state = canonical_json_text(text)
            self._node, self._offset = _advance(ban._root, 0, text)
            self._version = ban._version
