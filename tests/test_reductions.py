"""The reductions against PyTorch: sum, mean, prod, max/min, amax/amin, argmax/argmin,
var/std, cumsum/cumprod, sort, topk, median, all/any, logsumexp and the norms. Forward
values, output dtypes, node names and gradients (float32 and float64, dims as int,
negative int and tuple, keepdim, 0-d and empty inputs), float64 finite differences,
forward-mode tangents, second derivatives, the conventions at ties and zeros, and
property-based tests over random shapes and dims.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import chainrule as cr
from oracle import (
    DT_IDS,
    FLOATS,
    NoGrad,
    check,
    check_double_backward,
    check_fd,
    check_raises,
    compare_tangents,
    cr_tangent,
    distinct,
    randn,
    same_node,
    tangent,
)

# ----- sum and mean -----------------------------------------------------------------------

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


# ----- prod ------------------------------------------------------------------------------


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


# ----- max, min, amax, amin, argmax, argmin ---------------------------------------------------


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


# ----- var and std ---------------------------------------------------------------------


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


# ----- cumsum and cumprod -----------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_cumulative(name, dtype):
    x = np.random.default_rng(11).uniform(0.5, 1.5, (2, 3, 4))
    for dim in (0, 1, -1):
        same_node(check(lambda L, x, dim=dim: getattr(L, name)(x, dim), x, dtype=dtype))
        same_node(check(lambda L, x, dim=dim: getattr(x, name)(dim=dim), x, dtype=dtype))
    check(lambda L, x: getattr(x, name)(0), randn(()), dtype=dtype)
    check(lambda L, x: getattr(x, name)(-1), randn(()), dtype=dtype)
    check(lambda L, x: getattr(x, name)(0), randn((0, 3)), dtype=dtype)
    check(lambda L, x: getattr(x, name)(1, dtype=L.float64), x, dtype=dtype)
    ints = np.array([[1, -2, 3], [4, 5, -6]], dtype=np.int32)
    check(lambda L, x: getattr(x, name)(1), ints)
    check(lambda L, x: getattr(x, name)(0), ints > 0)
    check(lambda L, x: getattr(x, name)(1, dtype=L.float32), ints)
    check_raises(lambda L, x: getattr(x, name)(2), x[0])


@pytest.mark.parametrize(
    "values",
    [[2.0, 0.0, 3.0, 4.0], [2.0, 0.0, 0.0, 3.0], [0.0, 1.5, -2.0, 0.5], [1.5, -2.0, 0.5, 0.0]],
    ids=["one_zero", "two_zeros", "first", "last"],
)
def test_cumprod_with_zeros_is_exact(values):
    x = np.array(values)
    check(lambda L, x: x.cumprod(0), x)
    m = np.stack([x, x[::-1], np.array([1.0, 2.0, 3.0, 0.5])])
    check(lambda L, x: x.cumprod(1), m)
    check(lambda L, x: x.cumprod(0), m.T.copy())
    check_fd(lambda L, x: x.cumprod(1), m)
    check_double_backward(lambda L, x: x.cumprod(1), m)


def test_cumulative_finite_differences():
    x = randn((3, 4), seed=12)
    check_fd(lambda L, x: x.cumsum(1), x)
    check_fd(lambda L, x: x.cumsum(0), x)
    check_fd(lambda L, x: x.cumprod(-1), x)
    check_fd(lambda L, x: x.cumprod(0), x)


def test_cumulative_in_place():
    for name in ("cumsum", "cumprod"):
        check(lambda L, x, name=name: getattr(x * 1, name + "_")(1), randn((2, 3), seed=13))


# ----- sort, argsort, topk, median ----------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_sort(dtype):
    x = distinct((3, 4, 5), seed=14)
    for dim in (-1, 0, 1):
        for descending in (False, True):
            same_node(
                check(
                    lambda L, x, descending=descending, dim=dim: L.sort(x, dim, descending)[0],
                    x,
                    dtype=dtype,
                )
            )
            check(
                lambda L, x, descending=descending, dim=dim: (
                    x.sort(dim=dim, descending=descending).indices
                ),
                x,
                dtype=dtype,
            )
            check(
                lambda L, x, descending=descending, dim=dim: x.argsort(dim, descending),
                x,
                dtype=dtype,
            )
    check(lambda L, x: x.sort(stable=True).values, x, dtype=dtype)
    check(lambda L, x: L.msort(x), x, dtype=dtype)
    check(lambda L, x: x.sort()[0], randn(()), dtype=dtype)
    check(lambda L, x: x.sort()[1], randn(()), dtype=dtype)
    check(lambda L, x: x.sort(0).values, randn((0, 3)), dtype=dtype)
    check(lambda L, x: x.sort().values, np.array([3, 1, 2]))
    check(lambda L, x: x.sort(descending=True).indices, np.array([True, False, True]))


def test_sort_ties_and_nan_are_stable():
    x = np.array([[2.0, 1.0, 2.0, 1.0, 2.0], [np.nan, 1.0, np.nan, 0.0, 1.0]])
    for descending in (False, True):
        for stable in (False, True):
            check(
                lambda L, x, descending=descending, stable=stable: (
                    x.sort(descending=descending, stable=stable).values
                ),
                x,
            )
            check(
                lambda L, x, descending=descending, stable=stable: (
                    x.sort(descending=descending, stable=stable).indices
                ),
                x,
            )
    r = cr.tensor(x).sort()
    assert repr(r).startswith("torch.return_types.sort(\nvalues=")


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_topk(dtype):
    x = distinct((3, 6), seed=15)
    for k, dim, largest in (
        (2, -1, True),
        (3, 1, False),
        (1, 0, True),
        (3, 0, False),
        (0, 1, True),
    ):
        same_node(
            check(
                lambda L, x, dim=dim, k=k, largest=largest: L.topk(x, k, dim, largest)[0],
                x,
                dtype=dtype,
            )
        )
        check(
            lambda L, x, dim=dim, k=k, largest=largest: x.topk(k, dim=dim, largest=largest).indices,
            x,
            dtype=dtype,
        )
    check(lambda L, x: x.topk(1).values, randn(()), dtype=dtype)
    check(lambda L, x: x.topk(4, sorted=True).values, x, dtype=dtype)
    check_raises(lambda L, x: x.topk(7), x)
    check(lambda L, x: x.topk(2).indices, np.array([[3, 1, 2], [9, 8, 7]]))


def test_topk_ties_convention():
    """chainrule's documented choice among ties: the lowest indices first. The values are
    PyTorch's; the gradient lands on the returned indices."""
    x = np.array([2.0, 1.0, 2.0, 1.0, 2.0])
    ours = cr.tensor(x, requires_grad=True)
    theirs = torch.tensor(x).topk(2)
    got = ours.topk(2)
    assert got.values.tolist() == theirs.values.tolist()
    assert got.indices.tolist() == [0, 2]
    got.values.sum().backward()
    assert ours.grad.tolist() == [1.0, 0.0, 1.0, 0.0, 0.0]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_median(dtype):
    x = distinct((3, 5), seed=16)
    same_node(check(lambda L, x: x.median(), x, dtype=dtype))
    same_node(check(lambda L, x: L.median(x[:, :4]), x, dtype=dtype))  # the lower median
    for dim, keepdim in ((1, False), (-1, True), (0, False)):
        same_node(
            check(
                lambda L, x, dim=dim, keepdim=keepdim: L.median(x, dim, keepdim)[0], x, dtype=dtype
            )
        )
        check(
            lambda L, x, dim=dim, keepdim=keepdim: x.median(dim=dim, keepdim=keepdim).indices,
            x,
            dtype=dtype,
        )
        check(
            lambda L, x, dim=dim, keepdim=keepdim: x[:2].median(dim, keepdim=keepdim).values,
            x,
            dtype=dtype,
        )
    check(lambda L, x: x.median(), randn(()), dtype=dtype)
    check(lambda L, x: x.median(0).values, randn(()), dtype=dtype)
    check(lambda L, x: x.median(), randn((0,)), dtype=dtype)
    check(lambda L, x: x.median(1).values, randn((0, 3)), dtype=dtype)
    check_raises(lambda L, x: x.median(0), randn((0, 3)))
    check(lambda L, x: x.median(1).values, np.array([[3, 1, 2, 7], [9, 8, 7, 7]]))


def test_median_ties_and_nan():
    x = np.array([[2.0, 1.0, 2.0, 2.0, 3.0], [5.0, 5.0, 5.0, 5.0, 5.0], [1.0, 2.0, 1.0, 2.0, 0.0]])
    check(lambda L, x: x.median(), x)  # ties share the gradient
    check(lambda L, x: x.median(1).values, x)  # the gradient goes to the index
    check(lambda L, x: x.median(1).indices, x)
    check(lambda L, x: x.median(0).indices, x)
    n = np.array([[2.0, np.nan, 1.0, np.nan], [0.0, 1.0, 2.0, 3.0]])
    # torch's forward-mode median() gives nan at a nan result, while its own backward
    # shares the gradient among the nan entries; chainrule's JVP shares as its VJP does
    check(lambda L, x: x.median(), n, forward=False)
    t = randn(n.shape, seed=5)
    np.testing.assert_allclose(cr_tangent(lambda L, x: x.median(), n, t), (t[0, 1] + t[0, 3]) / 2)
    check(lambda L, x: x.median(1).values, n)
    check(lambda L, x: x.median(1).indices, n)


def test_nanmedian():
    x = np.array(
        [
            [3.0, np.nan, 1.0, np.nan, 2.0],
            [np.nan] * 5,
            [2.0, 2.0, np.nan, 2.0, 1.0],
            [5.0, 4.0, 3.0, 2.0, 1.0],
        ]
    )
    for dtype in FLOATS:
        same_node(check(lambda L, x: x.nanmedian(), x, dtype=dtype))
        same_node(check(lambda L, x: L.nanmedian(x, 1)[0], x, dtype=dtype))
        check(lambda L, x: x.nanmedian(1, keepdim=True).indices, x, dtype=dtype)
        check(lambda L, x: x.nanmedian(dim=0).values, x, dtype=dtype)
        # all nan: torch's forward mode gives nan, its backward shares the gradient among
        # the nan entries, as chainrule's JVP shares the tangents (pinned below)
        check(lambda L, x: x.nanmedian(), np.array([np.nan, np.nan]), dtype=dtype, forward=False)
        check(lambda L, x: x.nanmedian(), np.array([2.0, np.nan, 2.0, 1.0]), dtype=dtype)
    np.testing.assert_allclose(
        cr_tangent(lambda L, x: x.nanmedian(), np.array([np.nan, np.nan]), np.array([1.0, 2.0])),
        1.5,
    )
    check(lambda L, x: x.nanmedian(0).values, np.array([[3, 1, 2], [1, 1, 1]]))
    check_fd(lambda L, x: x.nanmedian(1).values + x.nanmedian(), distinct((3, 5), seed=29))


def test_selection_finite_differences():
    x = distinct((3, 4), seed=17)
    check_fd(lambda L, x: x.sort(1).values * L.arange(4.0, dtype=L.float64), x)
    check_fd(lambda L, x: x.sort(0, descending=True).values, x)
    check_fd(lambda L, x: x.topk(2).values, x)
    check_fd(lambda L, x: x.median(), x)
    check_fd(lambda L, x: x.median(0).values, x)


# ----- all and any ----------------------------------------------------------------------


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


# ----- logsumexp --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_logsumexp(dtype):
    x = randn((2, 3, 4), seed=18) * 3
    for dim, keepdim in ((1, False), (-1, True), ((0, 2), False), ((-1, 0), True), ([0, 1], False)):
        same_node(
            check(
                lambda L, x, dim=dim, keepdim=keepdim: L.logsumexp(x, dim, keepdim), x, dtype=dtype
            )
        )
        check(
            lambda L, x, dim=dim, keepdim=keepdim: x.logsumexp(dim=dim, keepdim=keepdim),
            x,
            dtype=dtype,
        )
    check(lambda L, x: x.logsumexp(0), randn(()), dtype=dtype)
    # an empty slice: torch's forward-mode logsumexp divides 0 by 0 (nan); the tangent of a
    # function of no entries is an empty sum, 0, which chainrule gives
    check(lambda L, x: x.logsumexp(0), randn((0, 3)), dtype=dtype, forward=False)
    np.testing.assert_array_equal(
        cr_tangent(lambda L, x: x.logsumexp(0), randn((0, 3)), randn((0, 3))), np.zeros(3)
    )
    check(lambda L, x: x.logsumexp(1), np.array([[1, 2, 3], [4, 5, 6]]))
    big = np.array([[1e4, 1e4 - 1.0, -1e4], [-np.inf, -np.inf, -np.inf], [np.inf, 1.0, 2.0]])
    check(lambda L, x: x.logsumexp(1), big[:2], dtype=dtype)
    check(lambda L, x: x.logsumexp(1), NoGrad(big), dtype=dtype)
    check_fd(lambda L, x: L.logsumexp(x, (0, 1)), x[0])


# ----- norms ------------------------------------------------------------------------------

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
            assert not result.cr_inputs[0].grad.numpy().any()
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


# ----- forward mode and second derivatives ---------------------------------------------------

FORWARD = {
    "prod": (lambda L, a: a.prod(1), (3, 4)),
    "prod_all": (lambda L, a: a.prod(), (3, 4)),
    "max": (lambda L, a: a.max(), (3, 4)),
    "max_dim": (lambda L, a: a.max(1).values, (3, 4)),
    "amin": (lambda L, a: a.amin((0, 1)), (3, 4)),
    "var": (lambda L, a: a.var(1), (3, 4)),
    "std": (lambda L, a: a.std(0, correction=0), (3, 4)),
    "cumsum": (lambda L, a: a.cumsum(1), (3, 4)),
    "cumprod": (lambda L, a: a.cumprod(0), (3, 4)),
    "sort": (lambda L, a: a.sort(1, descending=True).values, (3, 4)),
    "topk": (lambda L, a: a.topk(2).values, (3, 4)),
    "median": (lambda L, a: a.median(), (3, 4)),
    "median_dim": (lambda L, a: a.median(0).values, (3, 4)),
    "logsumexp": (lambda L, a: a.logsumexp((0, 1)), (3, 4)),
    "logcumsumexp": (lambda L, a: a.logcumsumexp(1), (3, 4)),
    "cummax": (lambda L, a: a.cummax(1).values, (3, 4)),
    "cummin": (lambda L, a: a.cummin(0).values, (3, 4)),
    "kthvalue": (lambda L, a: a.kthvalue(2, 0).values, (3, 4)),
    "mode": (lambda L, a: a.mode(1).values, (3, 4)),
    "nansum": (lambda L, a: a.nansum(1), (3, 4)),
    "aminmax": (lambda L, a: L.aminmax(a, dim=1).max, (3, 4)),
    "amax_tuple_keep": (lambda L, a: a.amax((0, 2), keepdim=True), (2, 3, 4)),
}


@pytest.mark.parametrize("name", sorted(FORWARD))
def test_forward_mode_tangents(name):
    fn, shape = FORWARD[name]
    primal = distinct(shape, seed=len(name))
    tangent = randn(shape, seed=len(name) + 1)
    compare_tangents(fn, [primal], [tangent])


def test_forward_mode_with_zeros_and_ties():
    zeros = np.array([[2.0, 0.0, 3.0, 0.5], [0.0, 1.0, 0.0, 2.0]])
    ties = np.array([[1.0, 3.0, 3.0, 2.0], [2.0, 2.0, 2.0, 2.0]])
    t = randn((2, 4), seed=21)
    for fn, x in (
        (lambda L, a: a.prod(1), zeros),
        (lambda L, a: a.cumprod(1), zeros),
        (lambda L, a: a.amax(1), ties),
        (lambda L, a: a.max(), ties),
    ):
        ours, theirs = tangent(cr, fn, [x], [t]), tangent(torch, fn, [x], [t])
        np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, x: x.prod(1),
        lambda L, x: x.var(0),
        lambda L, x: x.std(1),
        lambda L, x: x.cumprod(1),
        lambda L, x: x.cumsum(0) ** 2,
        lambda L, x: x.sort(1).values ** 2,
        lambda L, x: x.amax(1) ** 2,
        lambda L, x: x.max(0).values ** 3,
        lambda L, x: L.logsumexp(x, (0, 1)),
    ],
    ids=["prod", "var", "std", "cumprod", "cumsum", "sort", "amax", "max_dim", "logsumexp"],
)
def test_double_backward(fn):
    check_double_backward(fn, distinct((3, 4), seed=22) * 0.5)


# ----- property-based: random shapes and dims --------------------------------------------------


@st.composite
def shape_and_dims(draw, max_dims=3):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=max_dims)))
    ndim = len(shape)
    dims = draw(
        st.lists(
            st.integers(-ndim, ndim - 1), min_size=1, max_size=ndim, unique_by=lambda d: d % ndim
        )
    )
    keepdim = draw(st.booleans())
    seed = draw(st.integers(0, 2**16))
    return shape, tuple(dims), keepdim, seed


@settings(max_examples=25, deadline=None)
@given(
    shape_and_dims(),
    st.sampled_from(["sum", "mean", "amax", "amin", "var", "std", "logsumexp", "nansum"]),
)
def test_property_multi_dim_reductions(case, name):
    shape, dims, keepdim, seed = case
    x = distinct(shape, seed)
    if name in ("var", "std"):
        fn = lambda L, x: getattr(x, name)(dims, keepdim=keepdim, correction=0)  # noqa: E731
    else:
        fn = lambda L, x: getattr(L, name)(x, dims, keepdim)  # noqa: E731
    check(fn, x)


@settings(max_examples=25, deadline=None)
@given(shape_and_dims(), st.sampled_from(["prod", "cumsum", "cumprod"]), st.booleans())
def test_property_one_dim_reductions(case, name, zero):
    shape, dims, keepdim, seed = case
    x = np.random.default_rng(seed).uniform(0.5, 1.5, shape)
    if zero:
        x.reshape(-1)[seed % x.size] = 0.0
    dim = dims[0]
    if name == "prod":
        check(lambda L, x: x.prod(dim, keepdim=keepdim), x)
    else:
        check(lambda L, x: getattr(L, name)(x, dim), x)


# ----- kthvalue, mode, cummax/cummin, logcumsumexp, nansum/nanmean, aminmax, count_nonzero --


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_kthvalue(dtype):
    x = distinct((3, 5), seed=23)
    for k, dim, keepdim in ((1, -1, False), (3, 1, True), (2, 0, False), (5, 1, False)):
        same_node(
            check(lambda L, x, k=k, d=dim, kd=keepdim: L.kthvalue(x, k, d, kd)[0], x, dtype=dtype)
        )
        check(lambda L, x, k=k, d=dim, kd=keepdim: x.kthvalue(k, d, kd).indices, x, dtype=dtype)
    check(lambda L, x: x.kthvalue(1).values, randn(()), dtype=dtype)
    check_raises(lambda L, x: x.kthvalue(6), x)
    check_raises(lambda L, x: x.kthvalue(0), x)
    ties = np.array([[3.0, 1.0, 3.0, 1.0, 2.0]])  # distinct ranks for k = 1..5 in PyTorch too
    for k in (1, 2, 3, 4, 5):
        check(lambda L, x, k=k: x.kthvalue(k).values, ties)
    check_fd(lambda L, x: x.kthvalue(2, 0).values, x)


def test_mode():
    x = np.array([[3.0, 1.0, 3.0, 1.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0], [1.0, 2.0, 3.0, 4.0, 5.0]])
    for dtype in FLOATS:
        same_node(check(lambda L, x: x.mode().values, x, dtype=dtype))
        check(lambda L, x: L.mode(x, 1, True).indices, x, dtype=dtype)
        check(lambda L, x: x.mode(0).values, x, dtype=dtype)
        check(lambda L, x: x.mode(dim=0).indices, x, dtype=dtype)
    check(lambda L, x: x.mode().values, np.array([1, 2, 2, 3, 3]))
    check(lambda L, x: x.mode().indices, np.array([1, 2, 2, 3, 3]))
    check(lambda L, x: x.mode(0).values, randn(()))


def test_bool_inputs():
    b = np.array([[True, False], [True, True]])
    for fn in (
        lambda L, x: x.max(0).values,
        lambda L, x: x.min(1).indices,
        lambda L, x: x.max(),
        lambda L, x: x.amax(0),
        lambda L, x: x.mode(1).values,
        lambda L, x: x.cummax(1).indices,
        lambda L, x: x.prod(),
        lambda L, x: x.cumsum(0),
        lambda L, x: x.sort(0).values,
        lambda L, x: x.count_nonzero(),
    ):
        check(fn, b)
    for fn in (
        lambda L, x: x.median(),
        lambda L, x: x.median(0),
        lambda L, x: x.topk(1),
        lambda L, x: x.kthvalue(1),
        lambda L, x: x.argmax(),
        lambda L, x: x.var(),
        lambda L, x: x.mean(),
        lambda L, x: x.logcumsumexp(0),
    ):
        check_raises(fn, b)
    check_raises(lambda L, x: x.logcumsumexp(0), np.arange(3))


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_cummax_cummin(name):
    ties = np.array(
        [[3.0, 1.0, 3.0, 1.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0], [1.0, 2.0, 3.0, 4.0, 5.0]]
    )
    for dtype in FLOATS:
        for dim in (1, 0, -1):
            same_node(check(lambda L, x, d=dim: getattr(L, name)(x, d)[0], ties, dtype=dtype))
            check(lambda L, x, d=dim: getattr(x, name)(d).indices, ties, dtype=dtype)
        check(lambda L, x: getattr(x, name)(0).values, randn(()), dtype=dtype)
        check(lambda L, x: getattr(x, name)(1).values, randn((0, 3)), dtype=dtype)
    nan = np.array([3.0, np.nan, 1.0, np.nan, 5.0])
    check(lambda L, x: getattr(x, name)(0).values, nan)
    check(lambda L, x: getattr(x, name)(0).indices, nan)
    check(lambda L, x: getattr(x, name)(1).values, np.array([[3, 1, 4], [1, 5, 9]]))
    check_fd(lambda L, x: getattr(x, name)(1).values, distinct((3, 4), seed=24))
    check_double_backward(lambda L, x: getattr(x, name)(1).values ** 2, distinct((3, 4), seed=25))


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_logcumsumexp(dtype):
    x = randn((3, 4), seed=26) * 3
    for dim in (0, 1, -1):
        # torch's forward-mode logcumsumexp is ~1e-8 off in float64 (chainrule's tangent
        # agrees with finite differences to 1e-10): compare tangents in float32 only
        same_node(
            check(
                lambda L, x, d=dim: L.logcumsumexp(x, d),
                x,
                dtype=dtype,
                forward=dtype == np.float32,
            )
        )
    check(lambda L, x: x.logcumsumexp(0), randn(()), dtype=dtype)
    # an empty slice: torch's forward mode raises IndexError (amax of an empty dim), which
    # the harness does not skip
    check(lambda L, x: x.logcumsumexp(0), randn((0, 2)), dtype=dtype, forward=False)
    big = np.array([[1e4, 1e4 - 1.0, -1e4, 3.0], [-5e3, 2.0, 5e3, 5e3]])
    # torch's forward mode scales by the max over the whole dim: e^(x - max) underflows to 0
    # for the entries far below it (-5e3 and 2 here, vs 5e3), whose tangents it loses
    check(lambda L, x: x.logcumsumexp(1), big, dtype=dtype, forward=False)
    check_fd(lambda L, x: x.logcumsumexp(1), x)
    for a, d in ((x, 0), (big, 1)):  # chainrule's tangent: float64 central differences
        a = a.astype(dtype)
        t, h = randn(a.shape, seed=27).astype(dtype), 1e-4
        a64, t64 = a.astype(np.float64), t.astype(np.float64)
        up, down = (np.logaddexp.accumulate(a64 + s * h * t64, d) for s in (1, -1))
        tangent = cr_tangent(lambda L, x, d=d: x.logcumsumexp(d), a, t)
        np.testing.assert_allclose(tangent, (up - down) / (2 * h), rtol=1e-6)
    check_double_backward(lambda L, x: x.logcumsumexp(0), x)


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


def test_aminmax():
    ties = np.array([[1.0, 3.0, 3.0, 2.0], [2.0, 2.0, 2.0, 2.0], [-1.0, 0.5, 4.0, -1.0]])
    for dtype in FLOATS:
        for field in ("min", "max"):
            same_node(check(lambda L, x, f=field: getattr(L.aminmax(x), f), ties, dtype=dtype))
            check(lambda L, x, f=field: getattr(x.aminmax(dim=1), f), ties, dtype=dtype)
            check(lambda L, x, f=field: L.aminmax(x, dim=-2, keepdim=True)[f == "max"], ties)
    r = cr.aminmax(cr.tensor(ties))
    assert repr(r).startswith("torch.return_types.aminmax(\nmin=tensor(")


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


@settings(max_examples=25, deadline=None)
@given(shape_and_dims(), st.sampled_from(["max", "median", "sort", "topk", "cummax"]))
def test_property_selecting_reductions(case, name):
    """Values, indices and the gradient at the returned index, on inputs with many ties."""
    shape, dims, keepdim, seed = case
    x = np.random.default_rng(seed).integers(0, 3, shape).astype(np.float64)
    dim = dims[0]
    if name in ("max", "median"):
        fns = [lambda L, x, k=k: getattr(x, name)(dim, keepdim)[k] for k in (0, 1)]
    elif name == "sort":  # stable=True: PyTorch's unstable order differs among ties
        fns = [lambda L, x, k=k: x.sort(dim=dim, stable=True)[k] for k in (0, 1)]
    elif name == "topk":  # the values only: among ties the indices are not PyTorch's
        x = NoGrad(x)
        fns = [lambda L, x: x.topk(max(1, shape[dim] // 2), dim).values]
    else:
        fns = [lambda L, x, k=k: x.cummax(dim)[k] for k in (0, 1)]
    for fn in fns:
        check(fn, x)
