"""numpy: shapes, axes, dtypes and matrices the model passed in its arguments (fixable);
files on disk (ambiguous); allocations beyond memory (unrecoverable)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from generate import A, Case, F, U, _catch

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "numpy"
REQUIRES = ["numpy>=1.26,<3"]


def model_calls() -> list[tuple[str, Callable[[], Any]]]:
    import numpy as np

    a = np.arange(6).reshape(2, 3)
    v = np.arange(4)
    return [
        ("add-shape-mismatch", lambda: a + v),
        ("matmul-mismatch", lambda: a @ a),
        ("dot-mismatch", lambda: np.dot(a, v)),
        ("reshape-size", lambda: v.reshape(3, 3)),
        ("reshape-two-unknowns", lambda: v.reshape(-1, -1)),
        ("ragged-array", lambda: np.array([[1, 2], [3]])),
        ("concatenate-dims", lambda: np.concatenate([a, v])),
        ("stack-shapes", lambda: np.stack([v, np.arange(3)])),
        ("axis-out-of-bounds", lambda: a.sum(axis=2)),
        ("transpose-axes", lambda: a.transpose(0, 0)),
        ("index-out-of-bounds", lambda: v[10]),
        ("index-too-many", lambda: v[0, 1]),
        ("index-float", lambda: v[1.5]),
        ("index-string", lambda: a["x"]),
        ("boolean-mask-length", lambda: v[np.array([True, False])]),
        ("dtype-unknown", lambda: np.zeros(3, dtype="float128x")),
        ("dtype-string-to-float", lambda: np.array(["1.5", "two"]).astype(float)),
        ("array-string-float", lambda: np.asarray(["3,5"], dtype=float)),
        ("solve-singular", lambda: np.linalg.solve(np.ones((2, 2)), np.ones(2))),
        ("inv-singular", lambda: np.linalg.inv(np.zeros((3, 3)))),
        ("inv-not-square", lambda: np.linalg.inv(a)),
        ("cholesky-not-positive", lambda: np.linalg.cholesky(np.array([[1.0, 2.0], [2.0, 1.0]]))),
        ("det-1d", lambda: np.linalg.det(v)),
        ("linspace-negative-num", lambda: np.linspace(0, 1, num=-5)),
        ("arange-zero-step", lambda: np.arange(0, 10, 0)),
        ("random-choice-empty", lambda: np.random.default_rng(0).choice([], size=2)),
        ("random-choice-probabilities", lambda: np.random.default_rng(0).choice(3, p=[0.5, 0.6, 0.1])),
        ("random-negative-scale", lambda: np.random.default_rng(0).normal(0, -1)),
        ("percentile-out-of-range", lambda: np.percentile(v, 150)),
        ("histogram-bins-negative", lambda: np.histogram(v, bins=-3)),
        ("pad-bad-mode", lambda: np.pad(v, 1, mode="mirror")),
        ("split-unequal", lambda: np.split(np.arange(7), 3)),
        ("broadcast-to", lambda: np.broadcast_to(v, (3, 3))),
        ("einsum-bad-subscripts", lambda: np.einsum("ij,jk->ik", v, v)),
        ("fromstring-bad-sep", lambda: np.fromstring("1;2;x", dtype=int, sep=";")),
        ("frombuffer-size", lambda: np.frombuffer(b"\x00\x01\x02", dtype=np.int32)),
        ("int-overflow-python-int", lambda: np.array([2**70], dtype=np.int64)),
        ("datetime64-bad", lambda: np.datetime64("2024-13-01")),
        ("datetime64-unit", lambda: np.datetime64("2024-01-01", "fortnight")),
        ("polyfit-degree", lambda: np.polyfit([1, 2], [1, 2, 3], 1)),
        ("interp-lengths", lambda: np.interp(1.5, [1, 2, 3], [1, 2])),
        ("where-shapes", lambda: np.where(np.array([True, False, True]), a, v)),
        ("searchsorted-side", lambda: np.searchsorted(v, 2, side="middle")),
        ("round-decimals-float", lambda: np.round(v, decimals=1.5)),
    ]


def cases(ctx: Context) -> Iterator[Case]:
    import numpy as np

    for name, fn in model_calls():
        exc = _catch(fn)
        yield Case(
            f"numpy-{name}", LIBRARY, f"argument to an array call ({name})", F, None, exc, "compute_array"
        )

    exc = _catch(lambda: np.load(ctx.tmp / "weights.npy"))
    yield Case("numpy-file-missing", LIBRARY, "file does not exist", A, None, exc, "load_array")
    bad = ctx.tmp / "embeddings.npy"
    bad.write_bytes(b"\x93NUMPY\x01\x00garbage")
    exc = _catch(lambda: np.load(bad))
    yield Case("numpy-file-corrupt", LIBRARY, "file on disk is a broken .npy", A, None, exc, "load_array")
    text = ctx.tmp / "matrix.txt"
    text.write_text("1 2 3\n4 5\n")
    exc = _catch(lambda: np.loadtxt(text))
    yield Case(
        "numpy-file-ragged", LIBRARY, "text file on disk with a ragged row", A, None, exc, "load_array"
    )
    pickled = ctx.tmp / "objects.npy"
    np.save(pickled, np.array([{"a": 1}], dtype=object))
    exc = _catch(lambda: np.load(pickled))
    yield Case(
        "numpy-file-pickle-refused",
        LIBRARY,
        "object array refused without allow_pickle",
        U,
        None,
        exc,
        "load_array",
    )

    exc = _catch(lambda: np.zeros((2**40, 2**30)))
    yield Case("numpy-too-big", LIBRARY, "allocation beyond the address space", U, None, exc, "compute_array")
    exc = _catch(lambda: np.ones((10**7, 10**7), dtype=np.float64))
    yield Case("numpy-out-of-memory", LIBRARY, "allocation beyond memory", U, None, exc, "compute_array")
