"""Train a learned fallback for the classifier and measure it leave-one-library-out.

Pure Python (no numpy): multinomial naive Bayes over :func:`fallback_nb.features`,
trained on both stored corpora (the held-out corpus ``shared_core/tests/real_errors/
libraries/data/*.jsonl`` and the project's own ``live_corpus.jsonl``). No live server is
needed: each case's exception is rebuilt from its stored class name and ``str`` (the real
class where it is importable here and ``cls(str)`` gives the same text, otherwise a class of
the same module and name derived from ``Exception``: the class hierarchy and attributes
such as an HTTP status or a response body are lost, so the exception path here is the
"class name + str" path, not the adapters' full one). The framework texts are the stored
ones.

Paths, as in ``shared_core/tests/real_errors/evaluate.py``: ``exception`` (the rebuilt
exception), ``framework`` (each framework's stored text, its client named), ``flagged``
(``Type: message``, is_error), ``unflagged`` (the same, no flag). Per case and path:
correct (kind = label; for ``ambiguous``, a failure left ambiguous), wrong (another kind
with guidance), none.

Leave-one-library-out (LOLO): for each library L of either corpus, the model is trained on
every other library and asked only on L's cases where the rules abstained. The threshold is
chosen by nested LOLO (inside the training libraries only: the lowest threshold whose
answers there are wrong at most ``--target`` of the time), so L's cases choose nothing.

The rules abstain where ``_classify`` reaches its last statement (no rule, no decisive
family: the verdict ``ambiguous`` with nothing said); the fallback would be asked there
only, with the text classification read and the chain's class names. This script finds
those calls by the line of that statement (it changes nothing in the core).

Result (``benchmarks/RESULTS.md``): the model's answers are wrong more often than the
rules', so nothing is shipped; ``--write FILE`` writes the model trained on everything.

Usage::

    python benchmarks/train_fallback.py --no-nested --fixed 0.9 0.99 0.999   # LOLO, fixed thresholds
    python benchmarks/train_fallback.py --target 0.03          # and nested LOLO (minutes)
    python benchmarks/train_fallback.py --no-nested --fixed 0.95 --logistic 1.0   # needs sklearn
    python benchmarks/train_fallback.py --no-nested --write model.json --threshold 0.999  # in sample
"""

from __future__ import annotations

import argparse
import builtins
import importlib
import inspect
import json
import math
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "shared_core" / "src"))

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fallback_nb as _fallback  # noqa: E402
from toolerr import _classify  # noqa: E402
from toolerr._detect import Detection, analyse  # noqa: E402
from toolerr._exceptions import ExceptionFacts, exception_text, read_exception  # noqa: E402
from toolerr._layer import ToolErrorLayer  # noqa: E402
from toolerr._types import Verdict  # noqa: E402

DATA = ROOT / "shared_core" / "tests" / "real_errors"
CLASSES = ("transient", "fixable", "unrecoverable", "ambiguous")
PATHS = ("exception", "framework", "flagged", "unflagged")
GRID = (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.97, 0.98, 0.99, 0.995, 0.998, 0.999, 0.9995, 0.9999)
ALPHA = 1.0  # Laplace smoothing
MIN_LIBS = 2  # a token is kept when it occurs in cases of at least this many libraries
GUIDANCE = ("transient", "fixable", "unrecoverable")


def score(label: str, kind: str | None) -> str:
    """``evaluate.score``: correct, wrong (another kind with guidance) or none."""
    if kind == label:
        return "correct"
    if kind in GUIDANCE:
        return "wrong"
    return "none"


# --- the cases -----------------------------------------------------------------------------


def load_cases() -> list[dict[str, Any]]:
    cases = []
    for path in sorted((DATA / "libraries" / "data").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            if line.strip():
                c = json.loads(line)
                c["corpus"] = "held-out"
                cases.append(c)
    for line in (DATA / "live_corpus.jsonl").read_text().splitlines():
        if line.strip():
            c = json.loads(line)
            c["corpus"] = "live"
            cases.append(c)
    return cases


_SYNTHETIC: dict[str, type] = {}


def rebuild(qualified: str, message: str) -> BaseException:
    """The exception of a stored case: the real class if ``cls(message)`` reproduces the
    text, else a stand-in class of the same module and name."""
    module, _, name = qualified.rpartition(".")
    cls: Any = None
    if not module:
        cls = getattr(builtins, name, None)
    else:
        try:
            cls = getattr(importlib.import_module(module), name, None)
        except Exception:  # noqa: BLE001 - not installed here
            cls = None
    if isinstance(cls, type) and issubclass(cls, BaseException):
        try:
            exc = cls(message)
            if str(exc) == message:
                return exc
        except Exception:  # noqa: BLE001 - needs other arguments
            pass
    key = qualified
    if key not in _SYNTHETIC:

        def _str(self: BaseException) -> str:
            return str(self.args[0]) if self.args else ""

        _SYNTHETIC[key] = type(
            name, (Exception,), {"__module__": module or "builtins", "__qualname__": name, "__str__": _str}
        )
    made: BaseException = _SYNTHETIC[key](message)
    return made


@dataclass
class Item:
    """One case on one path: the rules' answer and what the fallback would read."""

    case: dict[str, Any]
    path: str
    framework: str
    rules_kind: str | None  # kind with the verdict's failed flag (None: not detected)
    abstained: bool  # the rules reached the fallback's hook
    text: str
    names: list[str]
    feats: list[str] = field(default_factory=list)


def fallback_inputs(det: Detection, facts: ExceptionFacts | None) -> tuple[str, list[str]]:
    """What the fallback reads: the text classification read, the chain's class names."""
    view = det.view if det.view is not None else det.window
    return view, [link.name for link in facts.links] if facts is not None else []


def _abstention_line() -> int:
    """The line of ``_classify``'s last statement: ``return _verdict(det, None, facts, ev)``."""
    lines, first = inspect.getsourcelines(_classify._classify)
    last = max(i for i, line in enumerate(lines) if line.strip() == "return _verdict(det, None, facts, ev)")
    assert last == len(lines) - 1, "the last statement of _classify is not the abstention"
    return first + last


def rules_items(cases: list[dict[str, Any]]) -> list[Item]:
    """Every case on every path, answered by the rules, and for each whether the rules
    abstained (reached the last statement of ``_classify``) and what the fallback reads."""
    calls: list[tuple[str, list[str]]] = []
    line = _abstention_line()
    real_verdict = _classify._verdict

    def verdict(
        det: Detection, hit: Any, facts: ExceptionFacts | None, ev: Any, family: str | None = None
    ) -> Verdict:
        if sys._getframe(1).f_lineno == line:
            calls.append(fallback_inputs(det, facts))
        return real_verdict(det, hit, facts, ev, family)

    _classify._verdict = verdict
    layer = ToolErrorLayer()
    items: list[Item] = []
    try:
        for case in cases:
            exc = rebuild(case["exception"], case["str"])
            text = exception_text(exc)
            runs: list[tuple[str, str, str, bool | None, BaseException | None, str | None]] = [
                ("exception", "", text, True, exc, layer.policy.client)
            ]
            for fw, fw_text in sorted(case["texts"].items()):
                runs.append(("framework", fw, fw_text, None, None, fw))
            runs.append(("flagged", "", text, True, None, None))
            runs.append(("unflagged", "", text, None, None, None))
            for path, fw, content, flag, e, client in runs:
                _classify._inspect_text.cache_clear()
                calls.clear()
                if e is not None:
                    v: Verdict = layer.inspect_exception(e)
                else:
                    v = _classify.inspect_result(content, is_error=flag, client=client)
                kind = v.kind if v.failed else None
                abstained = bool(calls)
                det = analyse(content, is_error=flag, exception=e, client=client)
                t, names = fallback_inputs(det, read_exception(e) if e is not None else None)
                if calls:
                    assert calls[0] == (t, names), (case["id"], path)
                items.append(Item(case, path, fw, kind, abstained, t, names))
    finally:
        _classify._verdict = real_verdict
    for it in items:
        it.feats = _fallback.features(it.text, it.names)
    return items


# --- naive Bayes, trained by counts that subtract ------------------------------------------


class Counts:
    """Per library: weighted token counts per class, class weights, token presence."""

    def __init__(self, items: list[Item]) -> None:
        self.lib_tok: dict[str, dict[str, list[float]]] = defaultdict(dict)
        self.lib_class: dict[str, list[float]] = defaultdict(lambda: [0.0] * len(CLASSES))
        per_case: dict[str, list[Item]] = defaultdict(list)
        for it in items:
            per_case[it.case["id"]].append(it)
        for group in per_case.values():
            distinct: dict[tuple[str, ...], None] = {}
            for it in group:
                distinct[tuple(it.feats)] = None
            w = 1.0 / len(distinct)
            case = group[0].case
            lib = case["library"]
            ci = CLASSES.index(case["kind"])
            self.lib_class[lib][ci] += 1.0
            toks = self.lib_tok[lib]
            for feats in distinct:
                for tok in feats:
                    row = toks.get(tok)
                    if row is None:
                        row = toks[tok] = [0.0] * len(CLASSES)
                    row[ci] += w
        self.libraries = sorted(self.lib_tok)

    def model(self, exclude: tuple[str, ...] = (), threshold: float = 0.9) -> dict[str, Any]:
        """The model data trained on every library but ``exclude``."""
        tok_total: dict[str, list[float]] = {}
        tok_libs: dict[str, int] = defaultdict(int)
        cls_w = [0.0] * len(CLASSES)
        for lib in self.libraries:
            if lib in exclude:
                continue
            for i, x in enumerate(self.lib_class[lib]):
                cls_w[i] += x
            for tok, row in self.lib_tok[lib].items():
                tok_libs[tok] += 1
                acc = tok_total.get(tok)
                if acc is None:
                    tok_total[tok] = list(row)
                else:
                    for i, x in enumerate(row):
                        acc[i] += x
        vocab = sorted(t for t, n in tok_libs.items() if n >= MIN_LIBS)
        mass = [sum(tok_total[t][i] for t in vocab) for i in range(len(CLASSES))]
        v = len(vocab)
        tokens = {
            t: [
                round(math.log((tok_total[t][i] + ALPHA) / (mass[i] + ALPHA * v)), 3)
                for i in range(len(CLASSES))
            ]
            for t in vocab
        }
        # a token's row relative to its mean, so unknown tokens (ignored) and known ones
        # are on one footing: only differences between classes matter to the posterior
        for t, row in tokens.items():
            mean = sum(row) / len(row)
            tokens[t] = [round(x - mean, 3) for x in row]
        total = sum(cls_w)
        prior = [round(math.log((x + 1.0) / (total + len(CLASSES))), 3) for x in cls_w]
        return {
            "version": 1,
            "kind": "multinomial naive Bayes over toolerr._fallback.features (binary counts)",
            "classes": list(CLASSES),
            "prior": prior,
            "threshold": threshold,
            "alpha": ALPHA,
            "min_libraries": MIN_LIBS,
            "trained_on": sorted(set(self.libraries) - set(exclude)),
            "tokens": tokens,
        }


def predictions(model: _fallback.Model, items: list[Item]) -> list[tuple[Item, str, float]]:
    """The model's top class and its probability for each abstained item."""
    out = []
    for it in items:
        post = model.posterior(it.text, it.names)
        kind = max(model.classes, key=lambda c: post[c])
        out.append((it, kind, post[kind]))
    return out


def choose_threshold(preds: list[tuple[Item, str, float]], target: float) -> float:
    """The lowest threshold of the grid whose answers are wrong at most ``target`` of the time."""
    for t in GRID:
        answered = [(it, k) for it, k, p in preds if p >= t and k != "ambiguous"]
        if not answered:
            return t
        wrong = sum(score(it.case["kind"], k) == "wrong" for it, k in answered)
        if wrong <= target * len(answered):
            return t
    return 1.01


def lolo(
    counts: Counts, items: list[Item], target: float, nested: bool
) -> tuple[dict[int, str | None], dict[str, float]]:
    """LOLO: for each abstained item, the fallback's answer (kind or None), and per library
    the threshold used."""
    abst: dict[str, list[Item]] = defaultdict(list)
    for it in items:
        if it.abstained:
            abst[it.case["library"]].append(it)
    answers: dict[int, str | None] = {}
    thresholds: dict[str, float] = {}
    for lib in counts.libraries:
        if not abst[lib]:
            continue
        if nested:
            inner: list[tuple[Item, str, float]] = []
            for other in counts.libraries:
                if other == lib or not abst[other]:
                    continue
                m = _fallback.Model(counts.model(exclude=(lib, other)))
                inner.extend(predictions(m, abst[other]))
            t = choose_threshold(inner, target)
        else:
            t = target  # a fixed threshold
        thresholds[lib] = t
        m = _fallback.Model(counts.model(exclude=(lib,)))
        for it, kind, p in predictions(m, abst[lib]):
            answers[id(it)] = kind if kind != "ambiguous" and p >= t else None
    return answers, thresholds


def lolo_logistic(items: list[Item], c: float) -> list[tuple[Item, str, float]]:
    """LOLO with L2 logistic regression (scikit-learn, for comparison only: needs a venv
    with it) on the same features, vocabulary and case weights: each library's abstained
    items, predicted by the model trained on the other libraries."""
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    per_case: dict[str, dict[tuple[str, ...], dict[str, Any]]] = defaultdict(dict)
    for it in items:
        per_case[it.case["id"]][tuple(it.feats)] = it.case
    rows = [(feats, case, 1.0 / len(d)) for d in per_case.values() for feats, case in d.items()]
    out: list[tuple[Item, str, float]] = []
    for lib in sorted({case["library"] for _, case, _ in rows}):
        asked = [it for it in items if it.abstained and it.case["library"] == lib]
        if not asked:
            continue
        train = [r for r in rows if r[1]["library"] != lib]
        seen: dict[str, set[str]] = defaultdict(set)
        for feats, case, _ in train:
            for tok in feats:
                seen[tok].add(case["library"])
        keep = {t for t, libs in seen.items() if len(libs) >= MIN_LIBS}
        dv = DictVectorizer()
        x = dv.fit_transform([{t: 1 for t in feats if t in keep} for feats, _, _ in train])
        m = LogisticRegression(C=c, max_iter=2000)
        m.fit(x, [case["kind"] for _, case, _ in train], sample_weight=[w for _, _, w in train])
        probs = m.predict_proba(dv.transform([dict.fromkeys(it.feats, 1) for it in asked]))
        for it, row in zip(asked, probs, strict=False):
            i = max(range(len(row)), key=lambda j: row[j])
            out.append((it, str(m.classes_[i]), float(row[i])))
    return out


# --- the report ----------------------------------------------------------------------------


def tallies(
    items: list[Item], answers: dict[int, str | None] | None
) -> dict[tuple[str, str, str], dict[str, int]]:
    """(corpus, path, library or '*') -> counts of correct/wrong/none (and 'answered',
    'answered_wrong': the fallback's own answers)."""
    out: dict[tuple[str, str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for it in items:
        kind = it.rules_kind
        fb = None
        if answers is not None and it.abstained:
            fb = answers.get(id(it))
            if fb is not None:
                kind = fb
        s = score(it.case["kind"], kind)
        for scope in ("*", it.case["library"]):
            t = out[(it.case["corpus"], it.path, scope)]
            t["n"] += 1
            t[s] += 1
            t["abstained"] += it.abstained
            if fb is not None:
                t["answered"] += 1
                t["answered_" + s] += 1
    return out


def pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:.1f}%" if b else "-"


def report(
    items: list[Item], answers: dict[int, str | None], thresholds: dict[str, float], title: str
) -> str:
    before = tallies(items, None)
    after = tallies(items, answers)
    lines = [f"### {title}", ""]
    ts = sorted(thresholds.values())
    if ts:
        lines.append(
            f"Thresholds used (per left-out library): min {ts[0]}, median {ts[len(ts) // 2]}, max {ts[-1]}."
        )
        lines.append("")
    lines += [
        "| corpus | path | cases | rules abstain | rules: correct / wrong / none "
        "| with fallback: correct / wrong / none | fallback answered | its wrong |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for corpus in ("held-out", "live"):
        for path in PATHS:
            b, a = before[(corpus, path, "*")], after[(corpus, path, "*")]
            n = b["n"]
            rules = " / ".join(pct(b[k], n) for k in ("correct", "wrong", "none"))
            with_fb = " / ".join(pct(a[k], n) for k in ("correct", "wrong", "none"))
            lines.append(
                f"| {corpus} | {path} | {n} | {b['abstained']} | {rules} | {with_fb} "
                f"| {a['answered']} | {a['answered_wrong']} |"
            )
    lines += ["", "Per library (exception path; flagged text path), where the fallback answered:", ""]
    lines += [
        "| library | cases | path | rules abstain | answered | right | wrong |",
        "|---|---|---|---|---|---|---|",
    ]
    libs = sorted({(it.case["corpus"], it.case["library"]) for it in items})
    for corpus, lib in libs:
        for path in ("exception", "flagged"):
            a = after[(corpus, path, lib)]
            if a["answered"]:
                lines.append(
                    f"| {lib} ({corpus}) | {a['n']} | {path} | {a['abstained']} | {a['answered']} "
                    f"| {a['answered_correct']} | {a['answered_wrong']} |"
                )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--target", type=float, default=0.02, help="nested LOLO: the highest wrong share of the answers"
    )
    ap.add_argument("--fixed", type=float, nargs="*", default=[], help="also report these fixed thresholds")
    ap.add_argument("--no-nested", action="store_true", help="skip the nested LOLO (slow)")
    ap.add_argument(
        "--write", type=Path, default=None, help="write the model trained on everything here (JSON)"
    )
    ap.add_argument("--threshold", type=float, default=None, help="the shipped model's threshold")
    ap.add_argument(
        "--logistic",
        type=float,
        nargs="*",
        default=[],
        help="also LOLO logistic regression with these C (sklearn)",
    )
    ap.add_argument("--json", type=Path, default=None, help="write the figures here")
    args = ap.parse_args()

    cases = load_cases()
    items = rules_items(cases)
    counts = Counts(items)
    n_abst = sum(it.abstained for it in items)
    print(
        f"{len(cases)} cases, {len(counts.libraries)} libraries, {n_abst} abstentions of {len(items)} answers"
    )
    out: list[str] = []
    for t in args.fixed:
        answers, thr = lolo(counts, items, t, nested=False)
        out.append(report(items, answers, thr, f"LOLO, fixed threshold {t}"))
    for c in args.logistic:
        preds = lolo_logistic(items, c)
        for t in args.fixed:
            answers = {id(it): (k if k != "ambiguous" and p >= t else None) for it, k, p in preds}
            out.append(report(items, answers, {}, f"LOLO, logistic regression C={c}, fixed threshold {t}"))
    if not args.no_nested:
        answers, thr = lolo(counts, items, args.target, nested=True)
        out.append(
            report(
                items,
                answers,
                thr,
                f"LOLO, threshold by nested LOLO (answers wrong <= {args.target:.0%} inside)",
            )
        )
    if args.write:
        threshold = (
            args.threshold
            if args.threshold is not None
            else choose_threshold(
                [
                    p
                    for lib in counts.libraries
                    for p in predictions(
                        _fallback.Model(counts.model(exclude=(lib,))),
                        [it for it in items if it.abstained and it.case["library"] == lib],
                    )
                ],
                args.target,
            )
        )
        data = counts.model(threshold=threshold)
        args.write.write_text(json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n")
        m = _fallback.Model(data)
        insample = {id(it): (m.predict(it.text, it.names) or (None,))[0] for it in items if it.abstained}
        out.append(
            report(
                items,
                insample,
                {},
                f"In sample (the shipped model, threshold {threshold}, trained on every library)",
            )
        )
        print(f"wrote {args.write} ({args.write.stat().st_size} bytes, {len(data['tokens'])} tokens)")
    text = "\n\n".join(out)
    print(text)
    if args.json:
        args.json.write_text(text)


if __name__ == "__main__":
    main()
