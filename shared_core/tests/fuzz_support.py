"""Shared pieces of the property-based and fuzz suites (test_fuzz_*.py).

Size of a run: CI runs every fuzz test at its base number of examples (the whole core
session stays within a few minutes on 2 cores). For a longer run set
``TOOLERR_FUZZ_SCALE`` (a factor on every test's examples), e.g.::

    TOOLERR_FUZZ_SCALE=50 nox -s core -- shared_core/tests -k fuzz

Hypothesis prints the seed and the failing example of any failure; rerun one with
``--hypothesis-seed=N``.
"""

from __future__ import annotations

import os
import re
import unicodedata

from hypothesis import HealthCheck, settings
from toolerr._hygiene import SPECIAL_TOKENS, special_token_sources
from toolerr.adapters import GUIDANCE, GUIDANCE_CHECK_FIRST, NOTE_PREFIX

SCALE = max(float(os.environ.get("TOOLERR_FUZZ_SCALE", "1") or 1), 0.01)


def fuzz(examples: int) -> settings:
    """Settings for one fuzz test: ``examples`` times :data:`SCALE`, no deadline."""
    return settings(
        max_examples=max(int(examples * SCALE), 1),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )


TOKENS: tuple[str, ...] = tuple(sorted({token for _, tokens in SPECIAL_TOKENS for token in tokens}))
"""Every built-in literal special token."""
FAMILIES: dict[str, tuple[str, ...]] = {source.split(" (")[0]: tokens for source, tokens in SPECIAL_TOKENS}

# Invisible, bidi and control characters of the brief, and a sample of the other Cf ones.
INVISIBLE: tuple[str, ...] = (
    *(chr(c) for c in range(0x2060, 0x2065)),
    "\u061c",
    "\u180e",
    "\u00ad",
    *(chr(c) for c in range(0x200B, 0x2010)),
    *(chr(c) for c in range(0x202A, 0x202F)),
    *(chr(c) for c in range(0x2066, 0x206A)),
    "\ufeff",
    "\U000e0000",
    "\U000e0001",
    "\U000e0041",
    "\U000e007f",
    "\ufe0f",
    "\U000e0100",
    "\u034f",
    "\u0600",
    "\ufff9",
    "\U0001d173",
)
CONTROL: tuple[str, ...] = (*(chr(c) for c in range(0x20) if chr(c) not in "\n\t\r"), "\x7f", "\x85", "\x9b")

_TOKEN_SHAPES = re.compile(r"<\|[A-Za-z0-9_\-\.]{1,40}\|>|<\uff5c[^<>\s\uff5c]{1,40}\uff5c>")
_SPOOF_NOTE = re.compile(r"note\s+from\s+the\s+tool\s+runtime", re.IGNORECASE)
_SPOOF_GUIDANCE = [
    re.compile(r"\s+".join(re.escape(w) for w in s.split()), re.IGNORECASE)
    for s in (*GUIDANCE.values(), GUIDANCE_CHECK_FIRST)
]


def tokens_in(text: str) -> list[str]:
    """Every special token (built-in, registered or of a token shape) found in a text."""
    found = [t for t in special_token_sources() if t in text]
    return found + _TOKEN_SHAPES.findall(text)


def hidden_in(text: str) -> list[str]:
    """Every invisible, bidi or control character (but \\n and \\t) left in a text."""
    return [
        ch
        for ch in text
        if (unicodedata.category(ch) in ("Cf", "Cc") and ch not in "\n\t")
        or 0xE0000 <= ord(ch) <= 0xE007F
        or 0xFE00 <= ord(ch) <= 0xFE0F
        or 0xE0100 <= ord(ch) <= 0xE01EF
    ]


def spoofs_in(text: str) -> bool:
    """Whether a restated text still imitates toolerr's note prefix or a guidance sentence."""
    return bool(_SPOOF_NOTE.search(text)) or any(p.search(text) for p in _SPOOF_GUIDANCE)


def note_count(text: str) -> int:
    return text.count(NOTE_PREFIX)
