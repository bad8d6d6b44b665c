"""Behaviour of the tokenizer-agnostic string ban (toolerr._ban)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import overload

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolerr._ban import BanCursor, PreparedVocabulary, StringBan
from toolerr._json_text import canonical_json_text

CALL = '{"a": 1}'
VOCAB = [
    "{",  # 0
    '"a"',  # 1
    ":",  # 2
    " 1",  # 3
    "}",  # 4
    CALL,  # 5
    " ",  # 6
    "1",  # 7
    '"',  # 8
    "a",  # 9
    "",  # 10
    "}}",  # 11
    "1}",  # 12
    " 1}",  # 13
    '"a": 1}',  # 14
    '{"a"',  # 15
    "2",  # 16
    "}\n",  # 17
]


def ids(*texts: str) -> list[int]:
    return sorted(VOCAB.index(t) for t in texts)


def reference(vocabulary: Sequence[str], banned: Iterable[str], partial: str) -> list[int]:
    """Brute force: scan the whole vocabulary against every banned string."""
    banned = list(banned)
    return [
        i
        for i, s in enumerate(vocabulary)
        if any(len(partial) < len(b) and (partial + s).startswith(b) for b in banned)
    ]


def walk(cursor: BanCursor, pieces: Iterable[str]) -> list[int]:
    for piece in pieces:
        cursor.feed(piece)
    return cursor.blocked_tokens()


# -- hand-made vocabulary ----------------------------------------------------------------


def test_whole_call_token_blocked_at_start() -> None:
    ban = StringBan(VOCAB, [CALL])
    assert ban.blocked_tokens("") == ids(CALL)


@pytest.mark.parametrize(
    "pieces",
    [
        ["{", '"a"', ":", " 1"],
        ["{", '"', "a", '"', ":", " ", "1"],
        ['{"a"', ":", " ", "1"],
        ["{", '"a"', ":", " ", "1"],
    ],
)
def test_blocked_whatever_the_tokenisation(pieces: list[str]) -> None:
    ban = StringBan(VOCAB, [CALL])
    # The completing tokens: "}" and the overshooting "}}" and "}\n".
    assert walk(ban.cursor(), pieces) == ids("}", "}}", "}\n")
    assert ban.blocked_tokens("".join(pieces)) == ids("}", "}}", "}\n")


def test_only_the_completing_token_is_blocked() -> None:
    ban = StringBan(VOCAB, [CALL])
    # After '{"a":' the token " 1" continues the banned prefix and stays allowed;
    # " 1}" would reach the end and is blocked.
    assert ban.blocked_tokens('{"a":') == ids(" 1}")
    assert ban.blocked_tokens('{"a": ') == ids("1}")
    assert ban.blocked_tokens("{") == ids('"a": 1}')
    assert ban.blocked_tokens('{"a"') == []


def test_overshooting_token_is_blocked() -> None:
    ban = StringBan(VOCAB, ['{"a": 1'])
    assert ban.blocked_tokens('{"a": ') == ids("1", "1}")
    assert ban.blocked_tokens('{"a":') == ids(" 1", " 1}")


def test_unrelated_partial_blocks_nothing() -> None:
    ban = StringBan(VOCAB, [CALL])
    for partial in ["Hello", '{"b": 1', '{"a": 2', " ", '{"a": 1}', '{"a": 1} ', "}"]:
        assert ban.blocked_tokens(partial) == []
        assert walk(ban.cursor(), [partial]) == []


def test_no_ban_blocks_nothing() -> None:
    ban = StringBan(VOCAB)
    assert ban.blocked_tokens("") == []
    assert ban.cursor().blocked_tokens() == []
    assert not ban.cursor().active


def test_shared_prefixes() -> None:
    banned = ['{"a": 1}', '{"a": 12}', '{"a": 1', '{"a"']
    ban = StringBan(VOCAB, banned)
    for partial in ["", "{", '{"a', '{"a"', '{"a": ', '{"a": 1', '{"a": 12', '{"a": 2']:
        assert ban.blocked_tokens(partial) == reference(VOCAB, banned, partial)
    assert ban.blocked_tokens('{"a": ') == ids("1", "1}")
    assert ban.blocked_tokens('{"a": 1') == ids("}", "}}", "}\n")
    assert ban.blocked_tokens("{") == ids('"a"', '"a": 1}')


def test_ban_added_mid_call() -> None:
    ban = StringBan(VOCAB)
    cursor = ban.cursor()
    cursor.feed("{")
    cursor.feed('"a"')
    assert cursor.blocked_tokens() == []
    ban.ban(CALL)
    assert cursor.active
    cursor.feed(": 1")
    assert cursor.blocked_tokens() == ids("}", "}}", "}\n")


def test_ban_added_mid_call_revives_a_dead_cursor() -> None:
    ban = StringBan(VOCAB, ['{"b": 1}'])
    cursor = ban.cursor()
    cursor.feed('{"a":')
    before = cursor.active
    assert not before
    assert cursor.blocked_tokens() == []
    ban.ban(CALL)
    assert cursor.active
    assert cursor.blocked_tokens() == ids(" 1}")


def test_ban_splitting_the_path_under_a_live_cursor() -> None:
    ban = StringBan(VOCAB, ['{"a": 1}'])
    cursor = ban.cursor()
    cursor.feed('{"a": ')
    # Diverges in the middle of the tree edge the cursor stands on.
    ban.ban('{"a": 2}')
    ban.ban('{"')
    assert cursor.blocked_tokens() == ids("1}")
    cursor.feed("2")
    assert cursor.blocked_tokens() == ids("}", "}}", "}\n")


def test_cursor_reset_and_partial() -> None:
    ban = StringBan(VOCAB, [CALL])
    cursor = ban.cursor()
    cursor.feed("Hello")
    assert cursor.partial == "Hello"
    dead = not cursor.active
    assert dead
    cursor.feed("")
    cursor.feed(" world")
    assert cursor.partial == "Hello world"
    cursor.reset()
    assert cursor.partial == ""
    assert cursor.active
    assert cursor.blocked_tokens() == ids(CALL)
    assert ban.cursor('{"a": 1').blocked_tokens() == ids("}", "}}", "}\n")


def test_empty_tokens_never_blocked() -> None:
    vocabulary = ["", "ab", "", "a", "b", ""]
    ban = StringBan(vocabulary, ["ab", "a"])
    assert ban.blocked_tokens("") == [1, 3]
    assert ban.blocked_tokens("a") == [4]
    assert StringBan(["", ""], ["x"]).blocked_tokens("") == []
    assert StringBan([], ["x"]).blocked_tokens("") == []


def test_unicode_and_replacement_character() -> None:
    vocabulary = ["caf", "é", "é}", "\ufffd", "e", "}", "c", "a", "f", "\ufffd}", "日本", "日"]
    ban = StringBan(vocabulary, ["café}", "日本語", "x\ufffd"])
    assert ban.blocked_tokens("caf") == [2]
    assert ban.blocked_tokens("café") == [5]
    assert ban.blocked_tokens("cafe") == []
    assert ban.blocked_tokens("caf\ufffd") == []
    assert ban.blocked_tokens("日本") == []
    # U+FFFD matches literally only.
    assert ban.blocked_tokens("x") == [3, 9]
    cursor = ban.cursor()
    assert walk(cursor, ["c", "a", "f", "é"]) == [5]


def test_code_point_extremes() -> None:
    top = chr(0x10FFFF)
    vocabulary = [top, top + "a", "a" + top, "a" + top + top, "b", "a", top + top]
    prepared = PreparedVocabulary(vocabulary)
    assert prepared.tokens_with_prefix(top) == [0, 1, 6]
    assert prepared.tokens_with_prefix("a" + top) == [2, 3]
    assert prepared.tokens_with_prefix("") == list(range(len(vocabulary)))
    ban = StringBan(prepared, ["a" + top, top + top])
    assert ban.blocked_tokens("") == [2, 3, 6]
    assert ban.blocked_tokens("a") == [0, 1, 6]
    assert ban.blocked_tokens(top) == [0, 1, 6]


def test_duplicate_token_strings() -> None:
    vocabulary = ["\ufffd", "x", "\ufffd", "\ufffd"]
    ban = StringBan(vocabulary, ["x\ufffd"])
    assert ban.blocked_tokens("x") == [0, 2, 3]


def test_banned_set_and_validation() -> None:
    ban = StringBan(VOCAB, [CALL, CALL])
    assert ban.banned_strings == frozenset({CALL})
    assert ban.banned() == frozenset({CALL})
    assert len(ban) == 1
    assert CALL in ban
    ban.ban("{}")
    assert ban.banned_strings == frozenset({CALL, "{}"})
    ban.ban("{}")
    assert len(ban) == 2
    with pytest.raises(ValueError, match="empty"):
        ban.ban("")
    with pytest.raises(TypeError):
        ban.ban(b"{}")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        PreparedVocabulary(["a", None])  # type: ignore[list-item]


def test_returned_list_is_a_copy() -> None:
    ban = StringBan(VOCAB, [CALL])
    first = ban.blocked_tokens('{"a": 1')
    first.append(99)
    assert ban.blocked_tokens('{"a": 1') == ids("}", "}}", "}\n")
    cursor = ban.cursor('{"a": 1')
    cursor.blocked_tokens().clear()
    assert cursor.blocked_tokens() == ids("}", "}}", "}\n")


def test_shared_prepared_vocabulary() -> None:
    prepared = PreparedVocabulary(VOCAB)
    assert len(prepared) == len(VOCAB)
    assert prepared.max_token_length == len(CALL)
    row0 = StringBan(prepared, [CALL])
    row1 = StringBan(row0.vocabulary, ['{"a": 2}'])
    assert row1.vocabulary is prepared
    assert row0.blocked_tokens('{"a": ') == ids("1}")
    assert row1.blocked_tokens('{"a": ') == []
    assert row1.blocked_tokens('{"a": 2') == ids("}", "}}", "}\n")


class _CountingVocabulary(Sequence[str]):
    def __init__(self, items: list[str]) -> None:
        self.items = items
        self.reads = 0

    def __len__(self) -> int:
        return len(self.items)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        self.reads += 1
        return self.items[index]


def test_steps_never_read_the_vocabulary() -> None:
    vocabulary = _CountingVocabulary(VOCAB * 50)
    ban = StringBan(vocabulary, [CALL])
    reads = vocabulary.reads
    cursor = ban.cursor()
    for piece in ["{", '"a"', ":", " 1"]:
        cursor.blocked_tokens()
        cursor.feed(piece)
    assert cursor.blocked_tokens()
    ban.ban('{"a": 2}')
    assert vocabulary.reads == reads


# -- properties --------------------------------------------------------------------------

ALPHABET = 'ab{}"é\ufffd'
token_text = st.text(ALPHABET, max_size=4)
banned_text = st.text(ALPHABET, min_size=1, max_size=8)


@st.composite
def scenario(draw: st.DrawFn) -> tuple[list[str], list[str], str]:
    vocabulary = draw(st.lists(token_text, max_size=30))
    banned = draw(st.lists(banned_text, max_size=6))
    if len(banned) > 0 and draw(st.booleans()):
        base = draw(st.sampled_from(banned))
        partial = base[: draw(st.integers(0, len(base)))] + draw(st.text(ALPHABET, max_size=2))
    else:
        partial = draw(st.text(ALPHABET, max_size=8))
    return vocabulary, banned, partial


@settings(max_examples=400, deadline=None)
@given(scenario())
def test_stateless_matches_brute_force(case: tuple[list[str], list[str], str]) -> None:
    vocabulary, banned, partial = case
    ban = StringBan(vocabulary, banned)
    expected = reference(vocabulary, banned, partial)
    assert ban.blocked_tokens(partial) == expected
    for i in range(len(partial) + 1):
        assert ban.blocked_tokens(partial[:i]) == reference(vocabulary, banned, partial[:i])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario(), st.data())
def test_cursor_matches_stateless(case: tuple[list[str], list[str], str], data: st.DataObject) -> None:
    vocabulary, banned, partial = case
    prepared = PreparedVocabulary(vocabulary)
    # Bans are split between construction time and mid-call additions.
    split = data.draw(st.integers(0, len(banned)))
    ban = StringBan(prepared, banned[:split])
    late = banned[split:]
    cursor = ban.cursor()
    position = 0
    while position < len(partial):
        step = data.draw(st.integers(1, 3))
        cursor.feed(partial[position : position + step])
        position += step
        if len(late) > 0 and data.draw(st.booleans()):
            ban.ban(late.pop())
        assert cursor.partial == partial[:position]
        assert cursor.blocked_tokens() == ban.blocked_tokens(cursor.partial)
        assert cursor.blocked_tokens() == reference(vocabulary, ban.banned_strings, cursor.partial)
    for text in late:
        ban.ban(text)
    assert cursor.blocked_tokens() == reference(vocabulary, banned, partial)
    cursor.reset()
    assert cursor.blocked_tokens() == reference(vocabulary, banned, "")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(token_text, max_size=25),
    st.lists(banned_text, min_size=1, max_size=6),
    st.data(),
)
def test_full_decode_never_completes_a_banned_string(
    extra: list[str], banned: list[str], data: st.DataObject
) -> None:
    # Every single character is a token, so any string can be written.
    vocabulary = list(ALPHABET) + extra
    ban = StringBan(vocabulary, banned)
    cursor = ban.cursor()
    preference = data.draw(st.permutations(range(len(vocabulary))))
    greedy = data.draw(st.booleans())
    limit = 24
    while len(cursor.partial) < limit:
        blocked = set(cursor.blocked_tokens())
        allowed = [t for t in preference if t not in blocked and vocabulary[t]]
        if not allowed:
            break
        token = allowed[0] if greedy else data.draw(st.sampled_from(allowed))
        before = cursor.partial
        cursor.feed(vocabulary[token])
        after = cursor.partial
        for b in banned:
            # No step ever reaches the end of a banned string.
            assert not (len(before) < len(b) and after.startswith(b)), (b, before, after)
    assert not any(cursor.partial.startswith(b) for b in banned)


# -- modulo JSON white space -------------------------------------------------------------

JVOCAB = [
    "{",  # 0
    '"',  # 1
    "a",  # 2
    ":",  # 3
    " ",  # 4
    "1",  # 5
    "}",  # 6
    " }",  # 7
    "\n",  # 8
    " 1",  # 9
    '"a"',  # 10
    '": ',  # 11
    "\\",  # 12
    " b",  # 13
    "b",  # 14
    "1 }",  # 15
    "\t}",  # 16
    '"}',  # 17
    ' "}',  # 18
    "2",  # 19
]


def json_reference(vocabulary: Sequence[str], banned: Iterable[str], partial: str) -> list[int]:
    """Brute force of the canonical rule over the whole vocabulary."""
    canon = [canonical_json_text(b)[0] for b in banned]
    head = canonical_json_text(partial)[0]
    return [
        i
        for i, s in enumerate(vocabulary)
        if any(len(head) < len(b) and canonical_json_text(partial + s)[0].startswith(b) for b in canon)
    ]


def test_canonical_json_text() -> None:
    assert canonical_json_text('{ "a" : 1 ,\n "b": "x y" }') == ('{"a":1,"b":"x y"}', 0)
    assert canonical_json_text('"a\\" b" c') == ('"a\\" b"c', 0)
    assert canonical_json_text('"a \\') == ('"a \\', 2)
    assert canonical_json_text('" b', 2) == ('" b', 1)  # escaped quote: still in the string
    assert canonical_json_text(" b", 1) == (" b", 1)
    assert canonical_json_text("no space") == ("nospace", 0)


@pytest.mark.parametrize(
    "written",
    ['{"a": 1', '{"a":1', '{ "a" : 1', '{\n  "a":\t1 ', '{"a": 1  \n'],
)
def test_white_space_variants_are_blocked(written: str) -> None:
    ban = StringBan(JVOCAB, ['{"a": 1}'], ignore_json_whitespace=True)
    assert ban.banned_strings == frozenset({'{"a":1}'})
    expected = ids_of(JVOCAB, "}", " }", "\t}")
    assert ban.blocked_tokens(written) == expected
    cursor = ban.cursor()
    for ch in written:
        cursor.feed(ch)
    assert cursor.blocked_tokens() == expected
    assert cursor.partial == written  # the raw text is kept
    # Tokens completing with the value: "1 }" after '{"a":'.
    assert 15 in ban.blocked_tokens(written[: written.index(":") + 1])


def ids_of(vocabulary: Sequence[str], *texts: str) -> list[int]:
    return sorted(vocabulary.index(t) for t in texts)


def test_white_space_inside_strings_is_significant() -> None:
    ban = StringBan(JVOCAB, ['{"a": "b"}'], ignore_json_whitespace=True)
    # '" b"' is a different string value: nothing is blocked.
    assert ban.blocked_tokens('{"a": " b"') == []
    assert ban.blocked_tokens('{"a": "b"') == ids_of(JVOCAB, "}", " }", "\t}")
    # Inside the string, " b" is not "b".
    assert ban.blocked_tokens('{"a": "') == []
    banned_space = StringBan(JVOCAB, ['{"a": " b"}'], ignore_json_whitespace=True)
    assert banned_space.banned_strings == frozenset({'{"a":" b"}'})
    assert banned_space.blocked_tokens('{"a": "b"') == []
    assert banned_space.blocked_tokens('{"a":" b"') == ids_of(JVOCAB, "}", " }", "\t}")
    # A token that closes the string and the object, written from inside the string.
    assert banned_space.blocked_tokens('{"a":" b') == ids_of(JVOCAB, '"}')


def test_escaped_quotes_and_braces_in_strings() -> None:
    banned = '{"a": "x\\" }"}'  # the value is: x" }
    ban = StringBan(JVOCAB, [banned], ignore_json_whitespace=True)
    assert ban.banned_strings == frozenset({'{"a":"x\\" }"}'})
    # The brace inside the string is not the end: after it the string goes on.
    assert ban.blocked_tokens('{"a": "x\\" ') == []
    assert ban.blocked_tokens('{"a": "x\\"') == []
    assert ban.blocked_tokens('{ "a":"x\\" }"') == ids_of(JVOCAB, "}", " }", "\t}")
    # Without the space inside the string it is another value.
    assert ban.blocked_tokens('{"a": "x\\"}"') == []
    # A backslash token followed by the quote in the next token (escape state across feeds).
    cursor = ban.cursor()
    for piece in ["{", '"a"', ": ", '"', "x", "\\", '"', " ", "}", '"', " "]:
        cursor.feed(piece)
    assert cursor.blocked_tokens() == ids_of(JVOCAB, "}", " }", "\t}")


def test_exact_mode_is_unchanged() -> None:
    ban = StringBan(JVOCAB, ['{"a": 1}'])
    assert ban.blocked_tokens('{"a":1') == []
    assert ban.blocked_tokens('{"a": 1') == ids_of(JVOCAB, "}")
    assert not ban.ignores_json_whitespace
    with pytest.raises(ValueError, match="white space"):
        StringBan(JVOCAB, [" \n"], ignore_json_whitespace=True)


def test_white_space_tokens_do_not_move_the_cursor() -> None:
    ban = StringBan(JVOCAB, ['{"a": 1}'], ignore_json_whitespace=True)
    cursor = ban.cursor('{"a": 1')
    for _ in range(5):
        cursor.feed(" ")
        cursor.feed("\n")
        assert cursor.blocked_tokens() == ids_of(JVOCAB, "}", " }", "\t}")
    cursor.feed("2")
    assert cursor.blocked_tokens() == []


JALPHABET = 'a{}" \\:1'
jtoken = st.text(JALPHABET, max_size=4)
jbanned = st.text(JALPHABET, min_size=1, max_size=8).filter(lambda b: bool(canonical_json_text(b)[0]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(jtoken, max_size=25), st.lists(jbanned, max_size=5), st.data())
def test_json_cursor_matches_brute_force(
    vocabulary: list[str], banned: list[str], data: st.DataObject
) -> None:
    prepared = PreparedVocabulary(vocabulary)
    split = data.draw(st.integers(0, len(banned)))
    ban = StringBan(prepared, banned[:split], ignore_json_whitespace=True)
    late = banned[split:]
    if banned and data.draw(st.booleans()):
        base = data.draw(st.sampled_from(banned))
        partial = base[: data.draw(st.integers(0, len(base)))] + data.draw(st.text(JALPHABET, max_size=3))
    else:
        partial = data.draw(st.text(JALPHABET, max_size=10))
    cursor = ban.cursor()
    position = 0
    while position < len(partial):
        step = data.draw(st.integers(1, 3))
        cursor.feed(partial[position : position + step])
        position += step
        if late and data.draw(st.booleans()):
            ban.ban(late.pop())
        expected = json_reference(vocabulary, ban.banned_strings, cursor.partial)
        assert ban.blocked_tokens(cursor.partial) == expected
        assert cursor.blocked_tokens() == expected
    for text in late:
        ban.ban(text)
    assert cursor.blocked_tokens() == json_reference(vocabulary, banned, partial)
