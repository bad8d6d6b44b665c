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


# the arrays the model wrote (``a``, ``v`` in the calls) as JSON
A2 = [[0, 1, 2], [3, 4, 5]]
V = [0, 1, 2, 3]


def model_calls() -> list[tuple[str, dict[str, Any], Callable[[], Any]]]:
    """(name, the model's arguments, the call) of each bad argument."""
    import numpy as np

    a = np.arange(6).reshape(2, 3)
    v = np.arange(4)
    rng = np.random.default_rng
    return [
        ("add-shape-mismatch", {"operation": "add", "a": A2, "b": V}, lambda: a + v),
        ("matmul-mismatch", {"operation": "matmul", "a": A2, "b": A2}, lambda: a @ a),
        ("dot-mismatch", {"operation": "dot", "a": A2, "b": V}, lambda: np.dot(a, v)),
        ("reshape-size", {"operation": "reshape", "array": V, "shape": [3, 3]}, lambda: v.reshape(3, 3)),
        (
            "reshape-two-unknowns",
            {"operation": "reshape", "array": V, "shape": [-1, -1]},
            lambda: v.reshape(-1, -1),
        ),
        ("ragged-array", {"operation": "array", "data": [[1, 2], [3]]}, lambda: np.array([[1, 2], [3]])),
        (
            "concatenate-dims",
            {"operation": "concatenate", "arrays": [A2, V]},
            lambda: np.concatenate([a, v]),
        ),
        (
            "stack-shapes",
            {"operation": "stack", "arrays": [V, [0, 1, 2]]},
            lambda: np.stack([v, np.arange(3)]),
        ),
        ("axis-out-of-bounds", {"operation": "sum", "array": A2, "axis": 2}, lambda: a.sum(axis=2)),
        (
            "transpose-axes",
            {"operation": "transpose", "array": A2, "axes": [0, 0]},
            lambda: a.transpose(0, 0),
        ),
        ("index-out-of-bounds", {"operation": "index", "array": V, "index": 10}, lambda: v[10]),
        ("index-too-many", {"operation": "index", "array": V, "index": [0, 1]}, lambda: v[0, 1]),
        ("index-float", {"operation": "index", "array": V, "index": 1.5}, lambda: v[1.5]),
        ("index-string", {"operation": "index", "array": A2, "index": "x"}, lambda: a["x"]),
        (
            "boolean-mask-length",
            {"operation": "mask", "array": V, "mask": [True, False]},
            lambda: v[np.array([True, False])],
        ),
        (
            "dtype-unknown",
            {"operation": "zeros", "shape": 3, "dtype": "float128x"},
            lambda: np.zeros(3, dtype="float128x"),
        ),
        (
            "dtype-string-to-float",
            {"operation": "astype", "array": ["1.5", "two"], "dtype": "float"},
            lambda: np.array(["1.5", "two"]).astype(float),
        ),
        (
            "array-string-float",
            {"operation": "array", "data": ["3,5"], "dtype": "float"},
            lambda: np.asarray(["3,5"], dtype=float),
        ),
        (
            "solve-singular",
            {"operation": "solve", "a": [[1.0, 1.0], [1.0, 1.0]], "b": [1.0, 1.0]},
            lambda: np.linalg.solve(np.ones((2, 2)), np.ones(2)),
        ),
        (
            "inv-singular",
            {"operation": "inv", "array": [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]},
            lambda: np.linalg.inv(np.zeros((3, 3))),
        ),
        ("inv-not-square", {"operation": "inv", "array": A2}, lambda: np.linalg.inv(a)),
        (
            "cholesky-not-positive",
            {"operation": "cholesky", "array": [[1.0, 2.0], [2.0, 1.0]]},
            lambda: np.linalg.cholesky(np.array([[1.0, 2.0], [2.0, 1.0]])),
        ),
        ("det-1d", {"operation": "det", "array": V}, lambda: np.linalg.det(v)),
        (
            "linspace-negative-num",
            {"operation": "linspace", "start": 0, "stop": 1, "num": -5},
            lambda: np.linspace(0, 1, num=-5),
        ),
        (
            "arange-zero-step",
            {"operation": "arange", "start": 0, "stop": 10, "step": 0},
            lambda: np.arange(0, 10, 0),
        ),
        (
            "random-choice-empty",
            {"operation": "random_choice", "options": [], "size": 2},
            lambda: rng(0).choice([], size=2),
        ),
        (
            "random-choice-probabilities",
            {"operation": "random_choice", "options": 3, "p": [0.5, 0.6, 0.1]},
            lambda: rng(0).choice(3, p=[0.5, 0.6, 0.1]),
        ),
        (
            "random-negative-scale",
            {"operation": "random_normal", "loc": 0, "scale": -1},
            lambda: rng(0).normal(0, -1),
        ),
        (
            "percentile-out-of-range",
            {"operation": "percentile", "array": V, "q": 150},
            lambda: np.percentile(v, 150),
        ),
        (
            "histogram-bins-negative",
            {"operation": "histogram", "array": V, "bins": -3},
            lambda: np.histogram(v, bins=-3),
        ),
        (
            "pad-bad-mode",
            {"operation": "pad", "array": V, "pad_width": 1, "mode": "mirror"},
            lambda: np.pad(v, 1, mode="mirror"),
        ),
        (
            "split-unequal",
            {"operation": "split", "array": list(range(7)), "sections": 3},
            lambda: np.split(np.arange(7), 3),
        ),
        (
            "broadcast-to",
            {"operation": "broadcast_to", "array": V, "shape": [3, 3]},
            lambda: np.broadcast_to(v, (3, 3)),
        ),
        (
            "einsum-bad-subscripts",
            {"operation": "einsum", "subscripts": "ij,jk->ik", "operands": [V, V]},
            lambda: np.einsum("ij,jk->ik", v, v),
        ),
        (
            "fromstring-bad-sep",
            {"operation": "fromstring", "text": "1;2;x", "dtype": "int", "sep": ";"},
            lambda: np.fromstring("1;2;x", dtype=int, sep=";"),
        ),
        (
            "frombuffer-size",
            {"operation": "frombuffer", "buffer_hex": "000102", "dtype": "int32"},
            lambda: np.frombuffer(b"\x00\x01\x02", dtype=np.int32),
        ),
        (
            "int-overflow-python-int",
            {"operation": "array", "data": [2**70], "dtype": "int64"},
            lambda: np.array([2**70], dtype=np.int64),
        ),
        (
            "datetime64-bad",
            {"operation": "datetime64", "value": "2024-13-01"},
            lambda: np.datetime64("2024-13-01"),
        ),
        (
            "datetime64-unit",
            {"operation": "datetime64", "value": "2024-01-01", "unit": "fortnight"},
            lambda: np.datetime64("2024-01-01", "fortnight"),
        ),
        (
            "polyfit-degree",
            {"operation": "polyfit", "x": [1, 2], "y": [1, 2, 3], "deg": 1},
            lambda: np.polyfit([1, 2], [1, 2, 3], 1),
        ),
        (
            "interp-lengths",
            {"operation": "interp", "x": 1.5, "xp": [1, 2, 3], "fp": [1, 2]},
            lambda: np.interp(1.5, [1, 2, 3], [1, 2]),
        ),
        (
            "where-shapes",
            {"operation": "where", "condition": [True, False, True], "x": A2, "y": V},
            lambda: np.where(np.array([True, False, True]), a, v),
        ),
        (
            "searchsorted-side",
            {"operation": "searchsorted", "array": V, "value": 2, "side": "middle"},
            lambda: np.searchsorted(v, 2, side="middle"),
        ),
        (
            "round-decimals-float",
            {"operation": "round", "array": V, "decimals": 1.5},
            lambda: np.round(v, decimals=1.5),
        ),
    ]


def cases(ctx: Context) -> Iterator[Case]:
    import numpy as np

    for name, args, fn in model_calls():
        exc = _catch(fn)
        yield Case(
            f"numpy-{name}",
            LIBRARY,
            f"argument to an array call ({name})",
            F,
            None,
            exc,
            "compute_array",
            args,
        )

    missing = ctx.tmp / "weights.npy"
    exc = _catch(lambda: np.load(missing))
    yield Case(
        "numpy-file-missing",
        LIBRARY,
        "file does not exist",
        A,
        None,
        exc,
        "load_array",
        {"path": str(missing)},
    )
    bad = ctx.tmp / "embeddings.npy"
    bad.write_bytes(b"\x93NUMPY\x01\x00garbage")
    exc = _catch(lambda: np.load(bad))
    yield Case(
        "numpy-file-corrupt",
        LIBRARY,
        "file on disk is a broken .npy",
        A,
        None,
        exc,
        "load_array",
        {"path": str(bad)},
    )
    text = ctx.tmp / "matrix.txt"
    text.write_text("1 2 3\n4 5\n")
    exc = _catch(lambda: np.loadtxt(text))
    yield Case(
        "numpy-file-ragged",
        LIBRARY,
        "text file on disk with a ragged row",
        A,
        None,
        exc,
        "load_array",
        {"path": str(text)},
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
        {"path": str(pickled)},
    )

    exc = _catch(lambda: np.zeros((2**40, 2**30)))
    args: dict[str, Any] = {"operation": "zeros", "shape": [2**40, 2**30]}
    cause = "allocation beyond the address space"
    yield Case("numpy-too-big", LIBRARY, cause, U, None, exc, "compute_array", args)
    exc = _catch(lambda: np.ones((10**7, 10**7), dtype=np.float64))
    args = {"operation": "ones", "shape": [10**7, 10**7], "dtype": "float64"}
    yield Case(
        "numpy-out-of-memory", LIBRARY, "allocation beyond memory", U, None, exc, "compute_array", args
    )
