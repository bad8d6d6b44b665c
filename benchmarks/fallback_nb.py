"""A learned fallback for the classifier, measured and not shipped (issue 24, item 6).

Features and a linear model over them (naive Bayes as trained by ``train_fallback.py``, or
any model whose classes score as a prior plus one weight per token and class), pure Python
and deterministic, written so that it could be shipped as data in the core
(``toolerr/_rules/``) and asked only where the rules abstain. It is not: measured
leave-one-library-out, its answers are wrong more often than the rules' (see
``benchmarks/RESULTS.md``, "A learned fallback where the rules abstain").
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from typing import Any

TEXT_CHARS = 1024  # the start of the text that is read
MAX_NAMES = 4  # exception class names (the chain's first links) that are read

_TOKEN = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|(?<![\d.])\d{3}(?![\d.])")
_NAME_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_STOP = frozenset({"the", "a", "an", "of", "to", "in", "is", "for", "on", "at", "by", "and", "or"})


def features(text: str, names: Sequence[str] = ()) -> list[str]:
    """The tokens the model reads: the words (camel case split, lower case) and three-digit
    numbers of the start of ``text``, their bigrams, and ``n:``-prefixed parts of the
    exception class names. Sorted, without duplicates.

    Args:
        text: The text of the failure (what classification reads).
        names: Qualified class names of the exception chain, the raised one first.

    Returns:
        The sorted distinct tokens.
    """
    words = [w.lower() for w in _TOKEN.findall(text[:TEXT_CHARS])]
    words = [w for w in words if w not in _STOP]
    out = set(words)
    out.update(f"{a}_{b}" for a, b in itertools.pairwise(words))
    for name in names[:MAX_NAMES]:
        last = name.rsplit(".", 1)[-1]
        out.add("N:" + last.lower())
        out.update("n:" + p.lower() for p in _NAME_PART.findall(last))
        if "." in name:
            out.add("m:" + name.split(".", 1)[0].lower())
    return sorted(out)


class Model:
    """A multinomial naive Bayes model over :func:`features` (binary counts).

    Args:
        data: The model as stored: ``classes``, ``prior`` (log), ``tokens`` (token -> log
            probability per class), ``threshold`` (the least posterior it answers with).
    """

    def __init__(self, data: dict[str, Any]) -> None:
        self.classes: list[str] = list(data["classes"])
        self.prior: list[float] = [float(x) for x in data["prior"]]
        self.tokens: dict[str, list[float]] = data["tokens"]
        self.threshold: float = float(data["threshold"])

    def posterior(self, text: str, names: Sequence[str] = ()) -> dict[str, float]:
        """The probability of each class for this text and these class names.

        Args:
            text: The failure's text.
            names: The exception chain's qualified class names.

        Returns:
            Class -> probability (sums to 1); the prior where no token is known.
        """
        scores = list(self.prior)
        for tok in features(text, names):
            row = self.tokens.get(tok)
            if row is not None:
                for i, v in enumerate(row):
                    scores[i] += v
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        return {c: e / total for c, e in zip(self.classes, exps, strict=False)}

    def predict(
        self, text: str, names: Sequence[str] = (), threshold: float | None = None
    ) -> tuple[str, float] | None:
        """The kind with guidance the model gives, or ``None`` where it abstains.

        Args:
            text: The failure's text.
            names: The exception chain's qualified class names.
            threshold: The least posterior to answer with (default: the model's).

        Returns:
            (kind, probability), or ``None``: below the threshold, or ``ambiguous`` most likely.
        """
        post = self.posterior(text, names)
        kind = max(self.classes, key=lambda c: post[c])
        p = post[kind]
        if kind == "ambiguous" or p < (self.threshold if threshold is None else threshold):
            return None
        return kind, p
