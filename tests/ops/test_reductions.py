"""Reductions against PyTorch: sum, mean, prod, max/min (full, along a dim, elementwise),
amax/amin, aminmax, argmax/argmin, var/std (and var_mean, std_mean), nansum/nanmean,
count_nonzero, all/any, and the norms (``Tensor.norm``, ``torch.norm``,
``linalg.vector_norm``).

Forward values, output dtypes, node names and gradients (float32 and float64, dims as
int, negative int and tuple, keepdim, 0-d and empty inputs), float64 finite
differences, forward-mode tangents, second derivatives, the conventions at ties and
zeros, errors, and property tests over random shapes and dims.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import cases
import chainrule as cr
from chainrule._backend import whole_sum
from chainrule.ops import reductions
from oracle import (
    DT_IDS,
    FLOATS,
    NoGrad,
    check,
    check_double_backward,
    check_fd,
    check_raises,
    cr_tangent,
    distinct,
    nonzero,
    randn,
    same_node,
    shape_id,
    tangent,
    vjp_bits_on_arrays,
)
from props import (
    SETTINGS,
    nonempty_shapes,
    seeds,
    shape_and_dim,
    values_for,
)

# ----- sum and mean -----------------------------------------------------------------------


REDUCE_CASES = [
    ((), None),
    ((), 0),
    ((), -1),
    ((5,), None),
    ((5,), 0),
    ((5,), -1),
    ((2, 3, 4), None),
    ((2, 3, 4), 1),
    ((2, 3, 4), -1),
    ((2, 3, 4), (0, 2)),
    ((2, 3, 4), (-1, 0)),
    ((2, 3, 4), [1, 2]),
    ((2, 3, 4), (0, 1, 2)),
    ((2, 3, 4), ()),
    ((0,), None),
    ((0,), 0),
    ((2, 0), None),
    ((2, 0), 0),
    ((2, 0), 1),
]


def _reduce_id(case) -> str:
    return f"{shape_id(case[0])}-dim{case[1]}"


REDUCTIONS = {
    "sum": lambda dim, keepdim: lambda lib, x: x.sum(dim=dim, keepdim=keepdim),
    "sum_fn": lambda dim, keepdim: lambda lib, x: lib.sum(x, dim, keepdim),
    "mean": lambda dim, keepdim: lambda lib, x: x.mean(dim=dim, keepdim=keepdim),
    "mean_fn": lambda dim, keepdim: lambda lib, x: lib.mean(x, dim, keepdim=keepdim),
}


def _reduction(name, dim, keepdim):
    if dim is None:  # the no-dim overloads take no keepdim
        return (lambda lib, x: x.sum()) if name.startswith("sum") else (lambda lib, x: x.mean())
    return REDUCTIONS[name](dim, keepdim)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("keepdim", [False, True], ids=["", "keepdim"])
@pytest.mark.parametrize("case", REDUCE_CASES, ids=_reduce_id)
@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_sum_mean(name, case, keepdim, dtype):
    shape, dim = case
    check(_reduction(name, dim, keepdim), randn(shape, seed=11), dtype=dtype)


@pytest.mark.parametrize("keepdim", [False, True], ids=["", "keepdim"])
@pytest.mark.parametrize("case", [c for c in REDUCE_CASES if 0 not in c[0]], ids=_reduce_id)
@pytest.mark.parametrize("name", ["sum", "mean"])
def test_sum_mean_fd(name, case, keepdim):
    shape, dim = case
    check_fd(_reduction(name, dim, keepdim), randn(shape, seed=11))


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_sum_keepdim_none_dim(dtype):
    check(lambda lib, x: lib.sum(x, dim=None, keepdim=True) * 1.0, randn((2, 3)), dtype=dtype)


DIMS = {  # name: (shape, dim, keepdim)
    "int": ((2, 3, 4), 1, False),
    "neg": ((2, 3, 4), -1, False),
    "tuple": ((2, 3, 4), (0, 2), False),
    "neg_tuple_keep": ((2, 3, 4), (-1, 0), True),
    "keep": ((2, 3, 4), 2, True),
    "0d": ((), 0, False),
    "0d_keep": ((), -1, True),
    "empty": ((0, 3), 1, False),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("case", sorted(DIMS))
@pytest.mark.parametrize("name", ["sum", "mean"])
def test_sum_mean_dims(name, case, dtype):
    shape, dim, keepdim = DIMS[case]
    same_node(check(lambda L, x: getattr(L, name)(x, dim, keepdim), randn(shape), dtype=dtype))
    same_node(check(lambda L, x: getattr(x, name)(dim=dim, keepdim=keepdim), randn(shape, 1)))


@pytest.mark.parametrize("name", ["sum", "mean"])
def test_sum_mean_full_and_empty(name):
    check(lambda L, x: getattr(x, name)(), randn((3, 2)))
    check(lambda L, x: getattr(L, name)(x), randn(()))
    check(lambda L, x: getattr(x, name)(), randn((0, 2)))
    check(lambda L, x: getattr(x, name)(dim=[0, 1]), randn((3, 2)))


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("keepdim", [False, True], ids=["", "keepdim"])
@pytest.mark.parametrize(
    "case", [((64, 6, 5, 7), (0, 2, 3)), ((40, 30, 3), (0, 1)), ((9, 8, 7, 6), (0, 3))]
)
def test_sum_over_dim_0_and_others_is_split(case, keepdim, dtype, monkeypatch):
    """Above ``_SPLIT_SUM`` elements, a sum over dim 0 and other dims (not all) sums dim 0
    first: PyTorch's values and node, and NumPy's sum over all those dims at once."""
    shape, dim = case
    x = randn(shape, seed=3)
    same_node(check(lambda L, t: t.sum(dim=dim, keepdim=keepdim), x, dtype=dtype))
    split = cr.tensor(x).sum(dim=dim, keepdim=keepdim).cpu().numpy()
    monkeypatch.setattr(reductions, "_SPLIT_SUM", x.size)
    whole = cr.tensor(x).sum(dim=dim, keepdim=keepdim).cpu().numpy()
    np.testing.assert_allclose(split, whole, rtol=1e-12)
    np.testing.assert_allclose(split, x.sum(axis=dim, keepdims=keepdim), rtol=1e-12)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("keepdim", [False, True], ids=["", "keepdim"])
@pytest.mark.parametrize("shape", [(3,), (3, 3), (2049,), (100, 100), (4, 64, 64), (3, 100, 100)])
def test_whole_sums_by_blas(shape, keepdim, dtype):
    """Up to 2^14 contiguous float elements, a sum over every element is a dot with ones
    (``_backend.whole_sum``; None above that): PyTorch's values and node, within the
    error of the float64 sum that a vectorised float32 sum makes, and a transposed (not
    contiguous) array's sum, by add.reduce, the same to that error."""
    x = randn(shape, seed=4) + 1.0  # (all one sign: the error bound is relative to Σ|x|)
    got = check(lambda L, t: t.sum(dim=None, keepdim=keepdim), x, dtype=dtype)
    same_node(got)
    arr = x.astype(dtype)
    by_dot = whole_sum(arr)
    assert (by_dot is None) == (x.size > 1 << 14)
    exact = x.astype(np.float64).sum()
    eps = np.finfo(dtype).eps
    total = cr.tensor(arr, device="cpu").sum().item()
    assert abs(total - exact) <= 16 * eps * abs(exact)
    if by_dot is not None:
        assert by_dot.shape == () and by_dot.dtype == arr.dtype and by_dot == total
        moved = np.asfortranarray(arr) if arr.ndim > 1 else arr[::-1]
        assert whole_sum(moved) is None or arr.ndim == 1
        assert abs(cr.tensor(moved, device="cpu").sum().item() - exact) <= 16 * eps * abs(exact)


@pytest.mark.parametrize("name", ["sum", "mean"])
def test_dims_not_given_and_given_as_none(name):
    """PyTorch's two overloads: no dims (SumBackward0), dims given, None among them
    (SumBackward1, over every dim); keepdim without dims is a TypeError in both libraries."""
    for call in (
        lambda L, x: getattr(x, name)(),
        lambda L, x: getattr(x, name)(None),
        lambda L, x: getattr(L, name)(x, dim=None, keepdim=True),
    ):
        same_node(check(call, randn((3, 2), seed=5)))
    for lib in (cr, torch):
        x = lib.ones(2, 3)
        with pytest.raises(TypeError, match=f"^{name}\\(\\) received an invalid combination"):
            getattr(lib, name)(x, keepdim=True)


def test_integer_sums_are_int64():
    ints = np.array([[1, -2, 3], [4, 5, -6]], dtype=np.int32)
    check(lambda L, x: x.sum(), ints)
    check(lambda L, x: L.sum(x, 1), ints.astype(np.int8))
    check(lambda L, x: x.sum((0, 1), keepdim=True), ints.astype(np.int64))
    check(lambda L, x: x.sum(0), ints > 0)
    check(lambda L, x: x.sum(dtype=L.float64), ints)


def test_mean_of_integers_raises():
    for arr in (np.arange(3), np.arange(3, dtype=np.int32), np.arange(3) > 0):
        check_raises(lambda L, x: x.mean(), arr)
        check_raises(lambda L, x: L.mean(x, 0), arr)
    check(lambda L, x: x.mean(dtype=L.float32), np.arange(4))


I64 = np.array([1, 2, -3], dtype=np.int64)

I32 = np.array([4, 5, 6], dtype=np.int32)

BOOL = np.array([True, False, True])


def test_int_mean_raises():
    check_raises(lambda lib, a: a.mean(), I64)
    check_raises(lambda lib, a: lib.mean(a, dim=0), I32)
    check_raises(lambda lib, a: a.mean(), BOOL)


# ----- prod -------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_prod_matches_torch(dtype):
    x = np.random.default_rng(3).uniform(0.5, 1.5, (2, 3, 4))
    for fn in (
        lambda L, x: x.prod(),
        lambda L, x: L.prod(x, 1),
        lambda L, x: x.prod(-1, keepdim=True),
        lambda L, x: L.prod(x, dim=0, keepdim=False),
    ):
        same_node(check(fn, x, dtype=dtype))
    check(lambda L, x: x.prod(), randn(()), dtype=dtype)
    check(lambda L, x: x.prod(), np.zeros(()), dtype=dtype)
    check(lambda L, x: x.prod(0, keepdim=True), np.zeros(()), dtype=dtype)
    check(lambda L, x: x.prod(0), randn(()), dtype=dtype)
    check(lambda L, x: x.prod(), randn((0, 3)), dtype=dtype)
    check(lambda L, x: x.prod(0), randn((0, 3)), dtype=dtype)
    check(lambda L, x: x.prod(1), randn((0, 3)), dtype=dtype)


@pytest.mark.parametrize(
    "values",
    [[2.0, 0.0, 3.0, 4.0], [0.0, 0.0, 3.0, 1.5], [0.0, 2.0, -1.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
    ids=["one_zero", "two_zeros", "zeros_at_ends", "all_zero"],
)
def test_prod_with_zeros_is_exact(values):
    x = np.array(values)
    check(lambda L, x: x.prod(), x)
    m = np.stack([x, x[::-1], np.array([1.0, 2.0, 3.0, 0.5])])
    check(lambda L, x: x.prod(1), m)
    check(lambda L, x: x.prod(0, keepdim=True), m.T.copy())
    check_double_backward(lambda L, x: x.prod(), x)
    check_double_backward(lambda L, x: x.prod(1), m)


def test_prod_integers_and_errors():
    ints = np.array([[1, -2, 3], [4, 5, -6]], dtype=np.int32)
    check(lambda L, x: x.prod(), ints)
    check(lambda L, x: L.prod(x, 0), ints)
    check(lambda L, x: x.prod(1), ints > 0)
    check(lambda L, x: x.prod(dtype=L.float64), ints)
    check_raises(lambda L, x: L.prod(x, (0, 1)), randn((2, 3)))
    check_raises(lambda L, x: x.prod(2), randn((2, 3)))


def test_prod_finite_differences():
    x = np.random.default_rng(4).uniform(0.5, 1.5, (3, 4))
    check_fd(lambda L, x: x.prod(), x)
    check_fd(lambda L, x: x.prod(1), x)
    x[1, 2] = 0.0
    check_fd(lambda L, x: x.prod(1, keepdim=True), x)
    check_fd(lambda L, x: x.prod(), x)


# ----- max, min, amax, amin, aminmax, argmax, argmin --------------------------------------


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_full_and_dim(name, dtype):
    x = distinct((3, 4, 2), seed=5)
    same_node(check(lambda L, x: getattr(x, name)(), x, dtype=dtype))
    same_node(check(lambda L, x: getattr(L, name)(x), x, dtype=dtype))
    for dim, keepdim in ((1, False), (-1, True), (0, False)):
        same_node(
            check(
                lambda L, x, dim=dim, keepdim=keepdim: getattr(L, name)(x, dim, keepdim)[0],
                x,
                dtype=dtype,
            )
        )
        same_node(
            check(
                lambda L, x, dim=dim, keepdim=keepdim: (
                    getattr(x, name)(dim=dim, keepdim=keepdim).values
                ),
                x,
            )
        )
        check(
            lambda L, x, dim=dim, keepdim=keepdim: getattr(x, name)(dim, keepdim=keepdim).indices,
            x,
            dtype=dtype,
        )
    check(lambda L, x: getattr(x, name)(0).values, randn(()), dtype=dtype)
    check(lambda L, x: getattr(x, name)(0).indices, randn(()), dtype=dtype)
    check(lambda L, x: getattr(x, name)(), randn(()), dtype=dtype)
    check(lambda L, x: getattr(x, name)(1).values, randn((0, 3)), dtype=dtype)
    check(lambda L, x: getattr(x, name)(1).indices, randn((0, 3)), dtype=dtype)
    check_raises(lambda L, x: getattr(x, name)(), randn((0, 3)))
    check_raises(lambda L, x: getattr(x, name)(0), randn((0, 3)))


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_return_named_tuples(name):
    x = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0], [-1.0, 5.0, -1.0]])
    got = getattr(cr.tensor(x), name)(1)
    want = getattr(torch.tensor(x), name)(1)
    values, indices = got
    assert values is got.values and indices is got.indices and got[1] is got.indices
    assert values.tolist() == want.values.tolist()
    assert indices.tolist() == want.indices.tolist()  # the first index among ties
    assert str(indices.dtype) == "torch.int64"
    assert repr(got).startswith(f"torch.return_types.{name}(\nvalues=tensor(")
    assert type(got).__name__ == name
    assert isinstance(got, tuple) and len(got) == 2


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_binary_is_elementwise(name):
    check(lambda L, a, b: getattr(L, name)(a, b), randn((3, 1)), randn((4,), 1))
    check(lambda L, a, b: getattr(a, name)(b), randn((3,)), randn((3,), 2))
    ties = np.array([1.0, 2.0, 3.0])
    check(lambda L, a, b: getattr(L, name)(a, b), ties, np.array([1.0, 0.0, 3.0]))


TIES = np.array([[1.0, 3.0, 3.0, 2.0], [2.0, 2.0, 2.0, 2.0], [-1.0, 0.5, 4.0, 4.0]])


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_ties_share_or_follow_the_index(dtype):
    """Full max/min and amax/amin share the gradient equally among ties; max(dim)
    gives it all to the returned (first) index."""
    for fn in (
        lambda L, x: x.max(),
        lambda L, x: (-x).min(),
        lambda L, x: x.amax(1),
        lambda L, x: x.amax(),
        lambda L, x: x.amax((0, 1), keepdim=True),
        lambda L, x: (-x).amin(-1),
        lambda L, x: L.amin(-x, 0),
        lambda L, x: x.max(1).values,
        lambda L, x: L.min(-x, 1, keepdim=True).values,
        lambda L, x: x.max(0)[0],
    ):
        same_node(check(fn, TIES, dtype=dtype))
    grad = cr.tensor(TIES, requires_grad=True)
    grad.max().backward()
    assert grad.grad.tolist() == [[0.0] * 4, [0.0] * 4, [0.0, 0.0, 0.5, 0.5]]


def test_nan_in_max_min():
    x = np.array([[1.0, np.nan, 3.0, np.nan], [0.0, 2.0, -1.0, 5.0]])
    for fn in (
        lambda L, x: x.amax(1),
        lambda L, x: x.amin(),
        lambda L, x: x.max(1).values,
        lambda L, x: x.min(1).values,
        lambda L, x: x.max(1).indices,
        lambda L, x: x.argmax(1),
        lambda L, x: x.argmin(),
    ):
        check(fn, x)
    # torch's forward-mode max()/min() gives nan at a nan result (it matches entries with
    # ==), while its own backward shares the gradient among the nan entries; chainrule's
    # JVP shares the tangents as its VJP does (the mean of the nan entries' tangents)
    t = randn(x.shape, seed=5)
    for fn in (lambda L, x: x.max(), lambda L, x: x.min()):
        check(fn, x, forward=False)
        np.testing.assert_allclose(cr_tangent(fn, x, t), (t[0, 1] + t[0, 3]) / 2)


@pytest.mark.parametrize(
    "name", ["max", "min", "max_dim", "median", "amax", "amin", "amax_dim", "aminmax"]
)
def test_an_infinite_gradient_reaches_only_the_extreme_entries_as_in_torch(name):
    """x.max().log() at max 0 gives inf to the maximum and 0 elsewhere (PyTorch's
    evenly_distribute_backward fills zeros; it does not multiply inf by 0), while amax and
    amin scale by the mask (inf·0 = nan) as PyTorch's do."""
    reduce = {
        "max": lambda x: x.max(),
        "min": lambda x: -((-x).min()),
        "max_dim": lambda x: x.max(0).values,
        "median": lambda x: x.median(),
        "amax": lambda x: x.amax(),
        "amin": lambda x: -((-x).amin()),
        "amax_dim": lambda x: x.amax(0),
        "aminmax": lambda x: x.aminmax().max,
    }[name]
    check(lambda L, x: reduce(x).log(), np.array([0.0, -1.0, -3.0]), forward=False)
    # (forward mode: the tangent of log at 0 is inf·t either way; not compared)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_amax_amin_dims(dtype):
    x = distinct((2, 3, 4), seed=6)
    for name in ("amax", "amin"):
        for dim, keepdim in ((1, False), (-1, True), ((0, 2), False), ((-1, 0), True), ((), False)):
            same_node(
                check(
                    lambda L, x, dim=dim, keepdim=keepdim, name=name: getattr(L, name)(
                        x, dim, keepdim
                    ),
                    x,
                    dtype=dtype,
                )
            )
        same_node(check(lambda L, x, name=name: getattr(x, name)(), x, dtype=dtype))
        check(lambda L, x, name=name: getattr(x, name)(dim=[0, 1]), x, dtype=dtype)
        check(lambda L, x, name=name: getattr(x, name)(), randn(()), dtype=dtype)
        check(lambda L, x, name=name: getattr(x, name)(0), randn(()), dtype=dtype)
        check(lambda L, x, name=name: getattr(x, name)(1), randn((0, 3)), dtype=dtype)
        check_raises(lambda L, x, name=name: getattr(x, name)(0), randn((0, 3)))
        check_raises(lambda L, x, name=name: getattr(x, name)(), randn((0, 3)))
        check(lambda L, x, name=name: getattr(x, name)(1), np.array([[3, 1, 2], [0, 5, 5]]))


def test_argmax_argmin():
    x = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0], [-1.0, 5.0, -1.0]])
    for name in ("argmax", "argmin"):
        for fn in (
            lambda L, x, name=name: getattr(L, name)(x),
            lambda L, x, name=name: getattr(x, name)(1),
            lambda L, x, name=name: getattr(x, name)(-2, keepdim=True),
            lambda L, x, name=name: getattr(x, name)(keepdim=True),
            lambda L, x, name=name: getattr(x, name)(dim=0),
        ):
            check(fn, x)
            check(fn, NoGrad(x), dtype=np.float32)
            check(fn, x.astype(np.int32))
        check(lambda L, x, name=name: getattr(x, name)(), randn(()))
        check(lambda L, x, name=name: getattr(x, name)(0), randn(()))
        check_raises(
            lambda L, x, name=name: getattr(x, name)(1), np.array([[True, False], [False, True]])
        )
        check(lambda L, x, name=name: getattr(x, name)(1), randn((0, 3)))
        check_raises(lambda L, x, name=name: getattr(x, name)(0), randn((0, 3)))
        check_raises(lambda L, x, name=name: getattr(x, name)(), randn((0,)))
        check_raises(lambda L, x, name=name: getattr(x, name)(1), randn((3, 0)))


def test_max_min_finite_differences():
    x = distinct((3, 4), seed=7)
    check_fd(lambda L, x: x.max(), x)
    check_fd(lambda L, x: x.min(1).values, x)
    check_fd(lambda L, x: x.amax((0, 1)), x)
    check_fd(lambda L, x: x.amin(0, keepdim=True), x)


def test_aminmax():
    ties = np.array([[1.0, 3.0, 3.0, 2.0], [2.0, 2.0, 2.0, 2.0], [-1.0, 0.5, 4.0, -1.0]])
    for dtype in FLOATS:
        for field in ("min", "max"):
            same_node(check(lambda L, x, f=field: getattr(L.aminmax(x), f), ties, dtype=dtype))
            check(lambda L, x, f=field: getattr(x.aminmax(dim=1), f), ties, dtype=dtype)
            check(lambda L, x, f=field: L.aminmax(x, dim=-2, keepdim=True)[f == "max"], ties)
    r = cr.aminmax(cr.tensor(ties))
    assert repr(r).startswith("torch.return_types.aminmax(\nmin=tensor(")


# ----- var and std ------------------------------------------------------------------------


VAR_CALLS = {
    "default": lambda f: lambda L, x: getattr(x, f)(),
    "dim": lambda f: lambda L, x: getattr(L, f)(x, 1),
    "neg_dim_keep": lambda f: lambda L, x: getattr(x, f)(-1, keepdim=True),
    "tuple": lambda f: lambda L, x: getattr(x, f)((0, 2)),
    "list": lambda f: lambda L, x: getattr(L, f)(x, [0, 1]),
    "correction0": lambda f: lambda L, x: getattr(x, f)(1, correction=0),
    "correction2": lambda f: lambda L, x: getattr(L, f)(x, dim=(0, 1), correction=2),
    "correction_float": lambda f: lambda L, x: getattr(x, f)(2, correction=1.5),
    "unbiased_false": lambda f: lambda L, x: getattr(x, f)(unbiased=False),
    "unbiased_positional": lambda f: lambda L, x: getattr(L, f)(x, False),
    "dim_unbiased_keepdim": lambda f: lambda L, x: getattr(x, f)(1, True, True),
    "dim_none_keepdim": lambda f: lambda L, x: getattr(x, f)(None, keepdim=True),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("call", sorted(VAR_CALLS))
@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std(name, call, dtype):
    same_node(check(VAR_CALLS[call](name), randn((2, 3, 4), seed=8), dtype=dtype))


@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std_edges(name):
    with pytest.warns(UserWarning, match="degrees of freedom"):
        check(lambda L, x: getattr(x, name)(), randn((1,)))
    with pytest.warns(UserWarning, match="degrees of freedom"):
        check(lambda L, x: getattr(x, name)(0), randn((0, 2)))
    # an empty input's reduction factor is 0 (numel / output numel), even with correction=0
    for shape, dim in (((1, 0, 0), 0), ((2, 0, 3), 1)):
        with pytest.warns(UserWarning, match="degrees of freedom"):
            check(lambda L, x, d=dim: getattr(x, name)(d, correction=0), randn(shape))
    check(lambda L, x: getattr(x, name)(0, correction=0), randn(()))
    check(lambda L, x: getattr(x, name)(1), np.ones((2, 3)))  # std's gradient is 0 there
    check_raises(lambda L, x: getattr(x, name)(), np.arange(3))
    check_raises(lambda L, x: getattr(x, name)(3), randn((2, 3)))
    check_raises(lambda L, x: getattr(x, name)(0, unbiased=True, correction=1), randn((2, 3)))


def test_var_std_mean():
    x = randn((3, 4), seed=9)
    for name in ("var_mean", "std_mean"):
        for k in (0, 1):
            check(lambda L, x, k=k, name=name: getattr(L, name)(x)[k], x)
            check(lambda L, x, k=k, name=name: getattr(L, name)(x, 1, keepdim=True)[k], x)
            check(lambda L, x, k=k, name=name: getattr(L, name)(x, (0, 1), correction=0)[k], x)


def test_var_std_finite_differences():
    x = randn((3, 4), seed=10)
    for name in ("var", "std"):
        check_fd(lambda L, x, name=name: getattr(x, name)(), x)
        check_fd(lambda L, x, name=name: getattr(x, name)(1, keepdim=True), x)
        check_fd(lambda L, x, name=name: getattr(x, name)(0, correction=0), x)


# ----- all, any, nansum, nanmean, count_nonzero, bool inputs ------------------------------


@pytest.mark.parametrize("name", ["all", "any"])
def test_all_any(name):
    x = np.array([[[1.0, 0.0], [2.0, 3.0]], [[0.0, 0.0], [1.0, 1.0]]])
    for arr in (x, x.astype(np.int64), x != 0, x.astype(np.uint8), x.astype(np.float32)):
        for fn in (
            lambda L, x: getattr(x, name)(),
            lambda L, x: getattr(L, name)(x, 1),
            lambda L, x: getattr(x, name)(-1, keepdim=True),
            lambda L, x: getattr(x, name)((0, 2)),
            lambda L, x: getattr(x, name)(dim=(0, -1), keepdim=True),
            lambda L, x: getattr(L, name)(x, keepdim=True),
        ):
            check(fn, NoGrad(arr) if arr.dtype.kind == "f" else arr)
    check(lambda L, x: getattr(x, name)(0), NoGrad(randn(())))
    check(lambda L, x: getattr(x, name)(0), NoGrad(randn((0, 2))))
    check(lambda L, x: getattr(x, name)(), NoGrad(randn((0,))))
    check_raises(lambda L, x: getattr(x, name)(3), NoGrad(x))


def test_nansum_nanmean():
    x = np.array([[1.0, np.nan, 3.0, 2.0], [2.0, 2.0, np.nan, np.nan], [np.nan] * 4])
    for dtype in FLOATS:
        for fn in (
            lambda L, x: x.nansum(),
            lambda L, x: L.nansum(x, 1),
            lambda L, x: x.nansum((0, 1), keepdim=True),
            lambda L, x: x.nanmean(),
            lambda L, x: L.nanmean(x, -1),
            lambda L, x: x.nanmean(0, keepdim=True),
        ):
            same_node(check(fn, x, dtype=dtype))
    check(lambda L, x: x.nansum(1), np.array([[1, 2], [3, 4]]))
    check_raises(lambda L, x: x.nanmean(), np.array([1, 2]))
    check_fd(lambda L, x: x.nansum(0) + x.nanmean(1).sum(), randn((3, 4), seed=27))


def test_count_nonzero():
    x = np.array([[[1.0, 0.0], [2.0, 3.0]], [[0.0, 0.0], [1.0, 1.0]]])
    for fn in (
        lambda L, x: L.count_nonzero(x),
        lambda L, x: x.count_nonzero(1),
        lambda L, x: x.count_nonzero((0, 2)),
        lambda L, x: L.count_nonzero(x, dim=[-1]),
    ):
        check(fn, NoGrad(x))
        check(fn, x != 0)


def test_bool_inputs():
    b = np.array([[True, False], [True, True]])
    for fn in (
        lambda L, x: x.max(0).values,
        lambda L, x: x.min(1).indices,
        lambda L, x: x.max(),
        lambda L, x: x.amax(0),
        lambda L, x: x.prod(),
        lambda L, x: x.count_nonzero(),
    ):
        check(fn, b)
    for fn in (
        lambda L, x: x.argmax(),
        lambda L, x: x.var(),
        lambda L, x: x.mean(),
    ):
        check_raises(fn, b)


# ----- norms ------------------------------------------------------------------------------


VECTOR_NORM_PS = [None, 2, 1, math.inf, 3]

NORM_CASES = [
    ((5,), None),
    ((5,), 0),
    ((3, 4), None),
    ((3, 4), 0),
    ((3, 4), 1),
    ((3, 4), -1),
    ((3, 4), (0, 1)),
    ((2, 3, 4), (0, 2)),
    ((2, 3, 4), (-1, -2)),
    ((), None),
    ((0,), None),
    ((2, 0), 0),
]


def _norm_fn(kind, p, dim, keepdim):
    if kind == "method":
        if p is None:
            return lambda lib, x: x.norm(dim=dim, keepdim=keepdim)
        return lambda lib, x: x.norm(p=p, dim=dim, keepdim=keepdim)
    if kind == "function":
        if p is None:
            return lambda lib, x: lib.norm(x, dim=dim, keepdim=keepdim)
        return lambda lib, x: lib.norm(x, p, dim, keepdim)
    ord_ = 2 if p is None else p
    return lambda lib, x: lib.linalg.vector_norm(x, ord=ord_, dim=dim, keepdim=keepdim)


def _norm_supported(shape, dim, p) -> bool:
    """torch refuses the inf norm over an empty reduction (no identity)."""
    if p != math.inf or 0 not in shape:
        return True
    dims = range(len(shape)) if dim is None else ([dim] if isinstance(dim, int) else dim)
    return all(shape[d] != 0 for d in dims)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("keepdim", [False, True], ids=["", "keepdim"])
@pytest.mark.parametrize("case", NORM_CASES, ids=_reduce_id)
@pytest.mark.parametrize("p", VECTOR_NORM_PS, ids=repr)
@pytest.mark.parametrize("kind", ["method", "function", "vector_norm"])
def test_norm(kind, p, case, keepdim, dtype):
    shape, dim = case
    fn = _norm_fn(kind, p, dim, keepdim)
    if not _norm_supported(shape, dim, p):  # torch raises: chainrule must raise the same
        check_raises(fn, randn(shape, seed=12), dtype=dtype)
        return
    check(fn, randn(shape, seed=12), dtype=dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("p", [math.inf, 1], ids=repr)
def test_norm_ties(p, dtype):
    """Entries tying for max |x| share the inf-norm gradient equally; exact zeros for p=1."""
    x = np.array([[1.0, -3.0, 3.0, 0.0], [2.0, 2.0, -2.0, 0.5]])
    check(lambda lib, x: x.norm(p=p), x, dtype=dtype)
    check(lambda lib, x: x.norm(p=p, dim=1), x, dtype=dtype)
    check(lambda lib, x: lib.linalg.vector_norm(x, ord=p, dim=0), x, dtype=dtype)


@pytest.mark.parametrize("keepdim", [False, True], ids=["", "keepdim"])
@pytest.mark.parametrize("case", [c for c in NORM_CASES if 0 not in c[0]], ids=_reduce_id)
@pytest.mark.parametrize("p", VECTOR_NORM_PS, ids=repr)
def test_norm_fd(p, case, keepdim):
    shape, dim = case
    check_fd(_norm_fn("vector_norm", p, dim, keepdim), nonzero(shape, seed=12))


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("p", [None, 2, 1, math.inf, 3], ids=repr)
def test_norm_at_zero_vector(p, dtype):
    """The gradient of a norm at the zero vector is 0 (PyTorch's choice)."""
    fn = (lambda lib, x: x.norm()) if p is None else (lambda lib, x: x.norm(p=p))
    res = check(fn, np.zeros(4), dtype=dtype)
    np.testing.assert_array_equal(res.cr_inputs[0].grad.numpy(force=True), 0.0)
    # one zero row among nonzero rows, reduced along dim 1
    x = randn((3, 4), seed=8)
    x[1] = 0.0
    if p is None:
        check(lambda lib, x: x.norm(dim=1), x, dtype=dtype)
    else:
        check(lambda lib, x: x.norm(p=p, dim=1), x, dtype=dtype)
        check(lambda lib, x: lib.linalg.vector_norm(x, ord=p, dim=1), x, dtype=dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("p", [None, 2, 1, 3.5, math.inf, -math.inf], ids=repr)
def test_dist(p, dtype):
    """torch.dist: ‖a - b‖_p, broadcasting, against PyTorch (values, gradients of both inputs,
    tangents) and finite differences; the method; a zero difference has a zero gradient.
    (p = 0 counts nonzeros: PyTorch gives it no gradient, so only its value is compared.)"""
    args = () if p is None else (p,)
    a, b = randn((3, 4), seed=12), randn((4,), seed=13)
    check(lambda L, a, b: L.dist(a, b, 0), NoGrad(a), NoGrad(b), dtype=dtype)
    check(lambda L, a, b: L.dist(a, b, *args), a, b, dtype=dtype)
    check(lambda L, a, b: a.dist(b, *args), a, b, dtype=dtype)
    check(lambda L, a, b: L.dist(a, b, *args), a, a.copy(), dtype=dtype)
    check_fd(lambda L, a, b: L.dist(a, b, *args), a, b + 0.5)


NORM_PS = [1, 2, math.inf, -math.inf, 0, 3, 0.5, -1.5, "fro"]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("p", NORM_PS, ids=[str(p) for p in NORM_PS])
def test_norm_p_and_dims(p, dtype):
    x = randn((2, 3, 4), seed=19)
    calls = [
        lambda L, x: x.norm(p),
        lambda L, x: L.norm(x, p, 1),
        lambda L, x: x.norm(p, dim=-1, keepdim=True),
        lambda L, x: L.norm(x, p, (0, 2)),
    ]

    def upcast(L, x):  # a float64 norm of the input
        return L.linalg.vector_norm(x, p, 1, dtype=L.float64)

    if p != "fro":
        calls += [
            lambda L, x: L.linalg.vector_norm(x, p),
            lambda L, x: L.linalg.vector_norm(x, ord=p, dim=(-1, 0), keepdim=True),
            upcast,
        ]
    # p = 0 counts nonzeros: PyTorch leaves .grad None, chainrule gives zeros (see below)
    for fn in calls:
        # torch's forward-mode norm(dtype=float64) of a float32 input computes the tangent in
        # float32 (for p = 1, 2 it even returns it as float32); chainrule's, in float64,
        # agrees with finite differences. inf, -inf, 0 select or count: exact either way
        inexact = p in (1, 2, 3, 0.5, -1.5) and dtype == np.float32 and fn is upcast
        result = check(fn, x, dtype=dtype, backward=p != 0, forward=not inexact)
        same_node(result)
        if p == 0:
            result.cr_out.sum().backward()
            assert not result.cr_inputs[0].grad.numpy(force=True).any()
    check(lambda L, x: x.norm(p), randn((), seed=2), dtype=dtype, backward=p != 0)


def test_norm_nuclear_and_fro_matrix():
    x = randn((2, 3, 4), seed=28)
    for dtype in FLOATS:
        check(
            lambda L, x: x[0].norm("nuc"),
            x,
            dtype=dtype,
            rtol=1e-4 if dtype == np.float32 else None,
        )
        check(
            lambda L, x: L.norm(x, "nuc", (0, 2)),
            x,
            dtype=dtype,
            rtol=1e-4 if dtype == np.float32 else None,
        )
        check(lambda L, x: L.norm(x, "fro", (0, 1), keepdim=True), x, dtype=dtype)
        check(lambda L, x: x.norm(dim=[2]), x, dtype=dtype)
        # torch's forward mode gives a float32 tangent for a float32 input here (see above)
        check(
            lambda L, x: x.norm(2, None, False, L.float64),
            x,
            dtype=dtype,
            forward=dtype == np.float64,
        )


def test_norm_edges():
    check_raises(lambda L, x: L.linalg.vector_norm(x, -math.inf), randn((0,)))
    check_raises(lambda L, x: L.linalg.vector_norm(x, math.inf), randn((0,)))
    check_raises(lambda L, x: x.norm(), np.arange(3))
    for p in (1, 2, 3):
        check(lambda L, x, p=p: L.linalg.vector_norm(x, p), randn((0,)))
        check(lambda L, x, p=p: x.norm(p, dim=0), randn((0, 2)))
    check(lambda L, x: x.norm(), np.zeros((2, 3)))
    check_fd(lambda L, x: x.norm(3, dim=1), randn((3, 4), seed=20))


# ----- errors of the first ops ------------------------------------------------------------


RAISES = {
    "sum_bad_dim": (lambda lib, a: a.sum(dim=2), randn((2, 3))),
    "norm_inf_empty": (lambda lib, a: lib.linalg.vector_norm(a, ord=math.inf), randn((0,))),
    "norm_inf_empty_dim": (lambda lib, a: a.norm(p=math.inf, dim=0), randn((2, 0)).T),
    "sum_repeated_dim": (lambda lib, a: a.sum(dim=(0, 0)), randn((2, 3))),
}

test_raises_like_torch = cases.raises_like_torch(RAISES)


# ----- forward mode and second derivatives ------------------------------------------------


FORWARD = {
    "prod": (lambda L, a: a.prod(1), (3, 4)),
    "prod_all": (lambda L, a: a.prod(), (3, 4)),
    "max": (lambda L, a: a.max(), (3, 4)),
    "max_dim": (lambda L, a: a.max(1).values, (3, 4)),
    "amin": (lambda L, a: a.amin((0, 1)), (3, 4)),
    "var": (lambda L, a: a.var(1), (3, 4)),
    "std": (lambda L, a: a.std(0, correction=0), (3, 4)),
    "nansum": (lambda L, a: a.nansum(1), (3, 4)),
    "aminmax": (lambda L, a: L.aminmax(a, dim=1).max, (3, 4)),
    "amax_tuple_keep": (lambda L, a: a.amax((0, 2), keepdim=True), (2, 3, 4)),
}

test_forward_mode_tangents = cases.forward_mode_tangents(FORWARD)


def test_forward_mode_with_zeros_and_ties():
    zeros = np.array([[2.0, 0.0, 3.0, 0.5], [0.0, 1.0, 0.0, 2.0]])
    ties = np.array([[1.0, 3.0, 3.0, 2.0], [2.0, 2.0, 2.0, 2.0]])
    t = randn((2, 4), seed=21)
    for fn, x in (
        (lambda L, a: a.prod(1), zeros),
        (lambda L, a: a.amax(1), ties),
        (lambda L, a: a.max(), ties),
    ):
        ours, theirs = tangent(cr, fn, [x], [t]), tangent(torch, fn, [x], [t])
        np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10, atol=1e-12)


DOUBLE_BACKWARD = {
    "prod": lambda L, x: x.prod(1),
    "var": lambda L, x: x.var(0),
    "std": lambda L, x: x.std(1),
    "amax": lambda L, x: x.amax(1) ** 2,
    "max_dim": lambda L, x: x.max(0).values ** 3,
}

test_double_backward = cases.double_backward(DOUBLE_BACKWARD)


# ----- property tests: random shapes, dims and keepdim ------------------------------------


@SETTINGS
@given(
    op=st.sampled_from(["sum", "mean"]),
    case=shape_and_dim(),
    keepdim=st.booleans(),
    method=st.booleans(),
    seed=seeds,
)
def test_sum_mean_match_torch(op, case, keepdim, method, seed):
    shape, dim = case
    x = values_for(shape, seed, "any")
    if dim is None:
        fn = (lambda lib, x: getattr(x, op)()) if method else (lambda lib, x: getattr(lib, op)(x))
    elif method:
        fn = lambda lib, x: getattr(x, op)(dim=dim, keepdim=keepdim)
    else:
        fn = lambda lib, x: getattr(lib, op)(x, dim, keepdim)
    check(fn, x, dtype=np.float64)


def _reduced_sizes(shape, dim) -> list[int]:
    if dim is None or not shape:
        return list(shape)
    dims = (dim,) if isinstance(dim, int) else dim
    return [shape[d] for d in dims]


@SETTINGS
@given(
    p=st.sampled_from([None, 2, 1, math.inf, 3]),
    case=shape_and_dim(),
    keepdim=st.booleans(),
    kind=st.sampled_from(["method", "function", "vector_norm"]),
    seed=seeds,
)
def test_norm_matches_torch(p, case, keepdim, kind, seed):
    shape, dim = case
    if p == math.inf and 0 in _reduced_sizes(shape, dim):
        # torch refuses the inf norm of an empty reduction; test_norm covers that
        p = 2
    x = values_for(shape, seed, "nonzero")
    ord_ = 2 if p is None else p
    if kind == "method":
        fn = lambda lib, x: x.norm(p=ord_, dim=dim, keepdim=keepdim)
    elif kind == "function":
        fn = lambda lib, x: lib.norm(x, ord_, dim, keepdim)
    else:
        fn = lambda lib, x: lib.linalg.vector_norm(x, ord=ord_, dim=dim, keepdim=keepdim)
    check(fn, x, dtype=np.float64)


@SETTINGS
@given(case=shape_and_dim(nonempty_shapes), keepdim=st.booleans(), seed=seeds)
def test_reduction_chain_matches_torch(case, keepdim, seed):
    """sum/mean/norm of an elementwise product: gradients flow through both factors."""
    shape, dim = case
    a, b = values_for(shape, seed, "any"), values_for(shape, seed + 1, "nonzero")

    def fn(lib, a, b):
        y = a * b
        if dim is None:
            return y.sum() + y.mean() * 2 + (y / b).norm()
        return (
            y.sum(dim=dim, keepdim=keepdim)
            + y.mean(dim=dim, keepdim=keepdim) * 2
            + (y / b).norm(2, dim=dim, keepdim=keepdim)
        )

    check(fn, a, b, dtype=np.float64)


@pytest.mark.parametrize("dim", [1, 0, (0, 2), (2, 0), -1])
@pytest.mark.parametrize("name", ["sum", "mean"])
def test_the_graph_of_a_reductions_gradient_is_torchs(name, dim):
    """sum's VJP unsqueezes the gradient at each reduced dim, then expands it, as PyTorch's:
    differentiating it again (jvp with create_graph) names SqueezeBackward1 nodes, not a
    ViewBackward0."""

    def chain(L):
        x = L.ones(2, 3, 4, requires_grad=True)
        v = L.ones(2, 3, 4, requires_grad=True)
        reduce = getattr(L, name)
        _, t = L.autograd.functional.jvp(lambda x: reduce(x, dim), x, v, create_graph=True)
        names, fn = [], t.grad_fn
        while fn is not None and fn.next_functions:
            names.append(fn.name())
            fn = fn.next_functions[0][0]
        return names

    ours, theirs = chain(cr), chain(torch)
    if name == "mean":  # PyTorch divides by the count with a Scalar (DivBackward1)
        theirs = [n.replace("DivBackward1", "DivBackward0") for n in theirs]
    assert ours == theirs


F16_REDUCTIONS = {
    "sum": lambda L, x: x.sum(),
    "mean": lambda L, x: x.mean(),
    "mean_dim": lambda L, x: x.reshape(10, -1).mean(1),
    "nansum": lambda L, x: x.nansum(),
    "norm": lambda L, x: x.norm(),
    "norm_1": lambda L, x: x.norm(p=1),
    "norm_3": lambda L, x: x.norm(p=3),
    "vector_norm_dim": lambda L, x: L.linalg.vector_norm(x.reshape(10, -1), dim=1),
    "var": lambda L, x: x.var(),
    "std_dim": lambda L, x: x.reshape(10, -1).std(1),
    "normalize": lambda L, x: L.nn.functional.normalize(x.reshape(250, 4)),
}


@pytest.mark.parametrize("fill", [100.0, 300.0, 0.1])
@pytest.mark.parametrize("name", list(F16_REDUCTIONS))
def test_float16_reductions_accumulate_in_float32_as_torch(name, fill):
    """PyTorch sums float16 in float32: mean of 1000 × 100 is 100 (not inf), ‖300·1₄‖ is
    600, normalize gives 1/2, not 0; only a result float16 cannot hold is inf."""
    fn = F16_REDUCTIONS[name]
    ours = fn(cr, cr.full((1000,), fill, dtype=cr.float16))
    theirs = fn(torch, torch.full((1000,), fill, dtype=torch.float16))
    assert ours.dtype == cr.float16
    np.testing.assert_array_equal(ours.numpy(force=True), theirs.numpy(force=True))


def test_float16_norm_gradient_is_torchs():
    ours = cr.full((4,), 300.0, dtype=cr.float16, requires_grad=True)
    theirs = torch.full((4,), 300.0, dtype=torch.float16, requires_grad=True)
    ours.norm().backward()
    theirs.norm().backward()
    np.testing.assert_array_equal(ours.grad.numpy(force=True), theirs.grad.numpy(force=True))
    assert ours.grad.numpy(force=True).tolist() == [0.5] * 4


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize(
    ("dim", "keepdim"), [(None, False), (1, False), (1, True), (0, False), ((0, 2), False)]
)
def test_two_norm_vjp_on_arrays_gives_the_ops_bits(dim, keepdim, dt):
    """The 2-norm's VJP on arrays (g/‖x‖ at the norm's shape, then times x) against
    create_graph=True (unsqueeze, expand, where and the products as ops): bit for bit, a
    slice of zeros (gradient 0) and ±inf, nan in the input included."""
    x = np.random.default_rng(3).standard_normal((4, 5, 6)).astype(dt)
    x[1] = 0.0
    x[2, 0, :3] = [np.inf, np.nan, -0.0]
    shape = np.linalg.norm(x, axis=dim, keepdims=keepdim).shape
    g = np.random.default_rng(4).standard_normal(shape).astype(dt)
    vjp_bits_on_arrays(
        lambda L, t: L.linalg.vector_norm(t, dim=dim, keepdim=keepdim), [x], np.asarray(g)
    )
