"""gather, scatter, index_*, take, put, masked_* and nonzero against PyTorch: a seeded
sample of random calls (1-4 dims, negative dims, smaller and empty indices, zero-size dims,
out-of-range indices) and the cases the fuzzer found, comparing values, dtypes, shapes,
errors (type and message) and gradients through a random weighted sum."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest
import torch

import chainrule

_OPS = (
    "gather take_along_dim scatter scatter_value scatter_add scatter_reduce index_add "
    "index_copy index_fill index_reduce index_select take masked_select masked_scatter put "
    "nonzero argwhere index_put"
).split()


def _data(r: random.Random, shape: tuple, kind: str) -> np.ndarray:
    n = int(np.prod(shape))
    if kind == "f":
        return np.array([r.choice([-2.0, -1.0, 0.0, 0.5, 1.0, 2.0]) for _ in range(n)]).reshape(
            shape
        )
    return np.array([r.randint(-3, 3) for _ in range(n)], dtype=np.int64).reshape(shape)


def _index(r: random.Random, shape: tuple, size: int) -> np.ndarray:
    a = np.array([r.randint(0, max(size - 1, 0)) for _ in range(int(np.prod(shape)))])
    a = a.astype(np.int64).reshape(shape)
    if a.size and r.random() < 0.05:  # (an index out of range, either side)
        a.flat[r.randrange(a.size)] = r.choice([size, size + 2, -size - 1, -1])
    return a


def _case(seed: int) -> tuple[str, tuple, dict]:
    """A random call: the op's name, its arguments (arrays) and keywords."""
    r = random.Random(seed)
    op = r.choice(_OPS)
    nd = r.randint(1, 4)
    shape = tuple(r.randint(1, 4) if r.random() < 0.9 else 0 for _ in range(nd))
    kind = r.choice("fi")
    x = _data(r, shape, kind)
    d = r.randrange(nd)
    dim = d - nd if r.random() < 0.5 else d
    smaller = tuple(r.randint(0, shape[k]) if k != d else r.randint(0, 4) for k in range(nd))
    if op in ("gather", "take_along_dim"):
        idx = _index(r, smaller, shape[d])
        if op == "take_along_dim" and r.random() < 0.3:
            return op, (x, _index(r, (r.randint(0, 3),), x.size)), {}
        return (
            op,
            (x, dim, idx) if op == "gather" else (x, idx),
            {} if op == "gather" else {"dim": dim},
        )
    if op.startswith("scatter"):
        idx = _index(r, smaller, shape[d])
        src = _data(r, tuple(i + r.choice([0, 0, 1]) for i in smaller), kind)
        if op == "scatter_reduce":
            how = r.choice(["sum", "prod", "mean", "amax", "amin"])
            return op, (x, dim, idx, src), {"reduce": how, "include_self": r.random() < 0.5}
        kw = {"reduce": r.choice(["add", "multiply"])} if r.random() < 0.4 else {}
        if op == "scatter_value":
            return "scatter", (x, dim, idx), {"value": r.choice([2, -1]), **kw}
        return op, (x, dim, idx, src), {} if op == "scatter_add" else kw
    if op.startswith("index_") and op != "index_put":
        idx = _index(r, (r.randint(0, 4),), shape[d])
        src = _data(r, shape[:d] + (idx.size,) + shape[d + 1 :], kind)
        if op == "index_select":
            return op, (x, dim, idx), {}
        if op == "index_fill":
            return op, (x, dim, idx, r.choice([2, -1])), {}
        if op == "index_reduce":
            how = r.choice(["prod", "mean", "amax", "amin"])
            return op, (x, dim, idx, src, how), {"include_self": r.random() < 0.5}
        kw = {"alpha": r.choice([1, 2])} if op == "index_add" and r.random() < 0.3 else {}
        return op, (x, dim, idx, src), kw
    if op in ("take", "put"):
        idx = _index(r, (r.randint(0, 3),) * r.randint(0, 2), x.size)
        if op == "take":
            return op, (x, idx), {}
        return op, (x, idx, _data(r, idx.shape, kind)), {"accumulate": r.random() < 0.5}
    if op in ("masked_select", "masked_scatter"):
        mshape = shape[r.randint(0, nd - 1) :] if r.random() < 0.3 else shape
        mask = np.array([r.random() < 0.5 for _ in range(int(np.prod(mshape)))]).reshape(mshape)
        if op == "masked_select":
            return op, (x, mask), {}
        n = int(np.prod(np.broadcast_shapes(shape, mshape))) + r.choice([0, 1, -1])
        return op, (x, mask, _data(r, (max(n, 0),), kind)), {}
    if op in ("nonzero", "argwhere"):
        return op, (x,), {"as_tuple": True} if op == "nonzero" and r.random() < 0.3 else {}
    n = r.randint(0, 3)  # index_put: an index tensor or a mask per leading dim
    parts = []
    for k in range(r.randint(1, nd)):
        if r.random() < 0.2:
            parts.append(np.array([r.random() < 0.5 for _ in range(shape[k])]))
        else:
            parts.append(_index(r, (n,), shape[k]) - (shape[k] if r.random() < 0.2 else 0))
    try:
        where = torch.tensor(x)[tuple(torch.tensor(p) for p in parts)].shape
        vshape = tuple(where)[r.randint(0, len(where)) :]
    except (IndexError, RuntimeError):
        vshape = (1,)
    return op, (x, tuple(parts), _data(r, vshape, kind)), {"accumulate": r.random() < 0.5}


def _dup_writes(op: str, args: tuple, kw: dict) -> bool:
    """Whether repeated indices write (not reduce) one place: which write wins is
    unspecified in PyTorch, so those calls are left out."""
    if op == "scatter" and len(args) == 4 and kw.get("reduce") is None:
        x, dim, idx = args[:3]
        s = np.sort(idx, axis=dim % x.ndim)
        return bool((np.diff(s, axis=dim % x.ndim) == 0).any())
    if op == "index_copy":
        return len(set(args[2].tolist())) < args[2].size
    if op == "put" and not kw["accumulate"] and args[0].size:
        flat = (args[1] % args[0].size).reshape(-1)
        return len(set(flat.tolist())) < flat.size
    return False


def _pytorch_bug(op: str, args: tuple, kw: dict) -> bool:
    """Calls where PyTorch's result is wrong or an internal error (listed in the report):
    gradients of a src larger than index, and index_fill/take_along_dim/index_reduce on
    some empty inputs."""
    if op.startswith("scatter") and len(args) == 4 and args[2].shape != args[3].shape:
        return True  # (backward raises, or amax/amin/prod give src's unused tail gradient)
    if op in ("index_fill", "index_reduce", "take_along_dim") and args[0].size == 0:
        return True  # (setStorage / select() / ZeroDivisionError from PyTorch's kernels)
    return False


def _convert(lib: Any, v: Any) -> Any:
    if isinstance(v, np.ndarray):
        t = lib.tensor(v)
        return t.requires_grad_(True) if v.dtype == np.float64 else t
    if isinstance(v, tuple):
        return tuple(_convert(lib, p) for p in v)
    return v


def _run(lib: Any, op: str, args: tuple, kw: dict) -> tuple[list, Any]:
    a = tuple(_convert(lib, v) for v in args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (index_reduce is beta; scatter's reduce= deprecated)
        if op in ("index_put", "put"):
            out = getattr(a[0], op)(*a[1:], **kw)
        else:
            out = getattr(lib, op)(*a, **kw)
    flat = [v for p in a for v in (p if isinstance(p, tuple) else (p,))]
    return [v for v in flat if getattr(v, "requires_grad", False)], out


def _error(lib: Any, op: str, args: tuple, kw: dict) -> Any:
    try:
        return None, _run(lib, op, args, kw)
    except Exception as e:  # noqa: BLE001 (the error is the result compared)
        return (type(e).__name__, str(e).split("\n")[0]), None


def _grads(lib: Any, out: Any, w: np.ndarray, leaves: list) -> Any:
    try:
        return None, lib.autograd.grad((out * lib.tensor(w)).sum(), leaves, allow_unused=True)
    except RuntimeError as e:
        return str(e), None


def _check(op: str, args: tuple, kw: dict, seed: int) -> None:
    t_err, t_res = _error(torch, op, args, kw)
    c_err, c_res = _error(chainrule, op, args, kw)
    assert c_err == t_err
    if t_err:
        return
    (t_leaves, t_out), (c_leaves, c_out) = t_res, c_res
    t_outs = list(t_out) if isinstance(t_out, tuple) else [t_out]
    c_outs = list(c_out) if isinstance(c_out, tuple) else [c_out]
    for t, c in zip(t_outs, c_outs, strict=True):
        assert str(c.dtype) == str(t.dtype) and tuple(c.shape) == tuple(t.shape)
        np.testing.assert_allclose(c.detach().numpy(), t.detach().numpy())
    if not (t_leaves and t_outs[0].requires_grad and t_outs[0].numel()):
        return
    w = np.random.RandomState(seed).randn(*t_outs[0].shape)
    t_err, t_grads = _grads(torch, t_outs[0], w, t_leaves)
    c_err, c_grads = _grads(chainrule, c_outs[0], w, c_leaves)
    assert c_err == t_err  # (scatter's reduce= has no backward)
    if t_err:
        return
    for leaf, t, c in zip(t_leaves, t_grads, c_grads, strict=True):
        expect = np.zeros(leaf.shape) if t is None else t.numpy()
        got = np.zeros(leaf.shape) if c is None else c.numpy()
        np.testing.assert_allclose(got, expect, atol=1e-12)


_SAMPLE = [s for s in range(400) if not _dup_writes(*_case(s)) and not _pytorch_bug(*_case(s))]


@pytest.mark.parametrize("seed", _SAMPLE)
def test_random_call_matches_pytorch(seed: int) -> None:
    _check(*_case(seed), seed)


_i = lambda *v: np.array(v, dtype=np.int64)  # noqa: E731
_f = lambda shape: np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape)  # noqa: E731

_FOUND = {
    # take_along_dim: shapes that do not broadcast name the last clashing dim
    "take_along_dim_no_broadcast": (
        "take_along_dim",
        (_f((2, 4, 1, 1)), np.zeros((0, 3, 0, 4), np.int64)),
        {"dim": -1},
    ),
    "take_along_dim_no_broadcast_dim0": (
        "take_along_dim",
        (_f((1, 3)), np.zeros((3, 2), np.int64)),
        {"dim": 0},
    ),
    # take and put_ from an empty tensor
    "take_empty": ("take", (np.zeros((0, 3)), _i(5)), {}),
    "take_empty_no_index": ("take", (np.zeros((0, 3)), np.zeros((2, 0), np.int64)), {}),
    "put_empty": ("put", (np.zeros((4, 0)), _i(0), np.ones(1)), {"accumulate": True}),
    # index_add: alpha != 1 words every out-of-range index as the inner dims do
    "index_add_alpha_last_dim": (
        "index_add",
        (_f((4, 1, 2, 4)), 3, _i(0, -5), np.ones((4, 1, 2, 2))),
        {"alpha": 2},
    ),
    "index_add_alpha_dim0": ("index_add", (_f((2, 3)), 0, _i(9), np.ones((1, 3))), {"alpha": 2}),
    "index_add_dim0": ("index_add", (_f((2, 3)), 0, _i(9), np.ones((1, 3))), {}),
    # index_add into an empty input adds nothing and checks no index
    "index_add_empty_input": ("index_add", (np.zeros((2, 0)), -1, _i(0, 7), np.ones((2, 2))), {}),
    "index_add_empty_input_1d": ("index_add", (np.zeros(0), 0, _i(0), np.ones(1)), {}),
    # index_reduce without self first fills the places: too-large indices name the place
    "index_reduce_no_self_too_large": (
        "index_reduce",
        (_f((1, 3)), 0, _i(3), np.ones((1, 3)), "amax"),
        {"include_self": False},
    ),
    "index_reduce_no_self_too_negative": (
        "index_reduce",
        (_f((3,)), 0, _i(0, -5, 7), np.ones(3), "prod"),
        {"include_self": False},
    ),
    "index_reduce_no_self_negative_in_range": (
        "index_reduce",
        (_f((3,)), 0, _i(0, -1), np.ones(2), "mean"),
        {"include_self": False},
    ),
    "index_reduce_self_too_large": (
        "index_reduce",
        (_f((1, 3)), 0, _i(3), np.ones((1, 3)), "amax"),
        {"include_self": True},
    ),
    # amax ties share the gradient equally, x's own value included
    "scatter_reduce_amax_ties": (
        "scatter_reduce",
        (np.array([2.0, 1.0]), 0, _i(0, 0, 1), np.array([2.0, 2.0, 0.5])),
        {"reduce": "amax", "include_self": True},
    ),
}


@pytest.mark.parametrize("name", sorted(_FOUND))
def test_found_case_matches_pytorch(name: str) -> None:
    _check(*_FOUND[name], 0)
