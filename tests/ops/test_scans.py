"""Scans against PyTorch: cumsum, cumprod (exact with zeros), cummax, cummin and
logcumsumexp along every dim: values, dtypes, node names, gradients, finite
differences, tangents (chainrule's pinned to central differences where PyTorch's
forward mode is not the spec), second derivatives, in-place variants, errors.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import cases
import chainrule as cr
from oracle import (
    DT_IDS,
    FLOATS,
    assert_same_bits,
    check,
    check_double_backward,
    check_fd,
    check_raises,
    cr_tangent,
    distinct,
    randn,
    same_node,
    tangent,
    vjp_bits_on_arrays,
)

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


# ----- cummax, cummin, logcumsumexp -------------------------------------------------------


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
    # for the entries far below it (-5e3 and 2 here, vs 5e3), whose tangents it loses.
    # In float64 only: torch's float32 gradient rounds log|g| - y at the scale of y (1e4),
    # 3e-4 off; chainrule's is formed in float64 (test_float32_accuracy_vs_torch.py)
    check(lambda L, x: x.logcumsumexp(1), big, dtype=np.float64, forward=False)
    check_fd(lambda L, x: x.logcumsumexp(1), x)
    for a, d in ((x, 0), (big, 1)):  # chainrule's tangent: float64 central differences
        a = a.astype(dtype)
        t, h = randn(a.shape, seed=27).astype(dtype), 1e-4
        a64, t64 = a.astype(np.float64), t.astype(np.float64)
        up, down = (np.logaddexp.accumulate(a64 + s * h * t64, d) for s in (1, -1))
        tangent = cr_tangent(lambda L, x, d=d: x.logcumsumexp(d), a, t)
        np.testing.assert_allclose(tangent, (up - down) / (2 * h), rtol=1e-6)
    check_double_backward(lambda L, x: x.logcumsumexp(0), x)


def test_bool_inputs():
    b = np.array([[True, False], [True, True]])
    for fn in (
        lambda L, x: x.cummax(1).indices,
        lambda L, x: x.cumsum(0),
    ):
        check(fn, b)
    for fn in (lambda L, x: x.logcumsumexp(0),):
        check_raises(fn, b)
    check_raises(lambda L, x: x.logcumsumexp(0), np.arange(3))


# ----- forward mode and second derivatives ------------------------------------------------


FORWARD = {
    "cumsum": (lambda L, a: a.cumsum(1), (3, 4)),
    "cumprod": (lambda L, a: a.cumprod(0), (3, 4)),
    "logcumsumexp": (lambda L, a: a.logcumsumexp(1), (3, 4)),
    "cummax": (lambda L, a: a.cummax(1).values, (3, 4)),
    "cummin": (lambda L, a: a.cummin(0).values, (3, 4)),
}

test_forward_mode_tangents = cases.forward_mode_tangents(FORWARD)


def test_forward_mode_of_cumprod_with_zeros():
    zeros = np.array([[2.0, 0.0, 3.0, 0.5], [0.0, 1.0, 0.0, 2.0]])
    t = randn((2, 4), seed=21)
    for fn, x in ((lambda L, a: a.cumprod(1), zeros),):
        ours, theirs = tangent(cr, fn, [x], [t]), tangent(torch, fn, [x], [t])
        np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10, atol=1e-12)


DOUBLE_BACKWARD = {
    "cumprod": lambda L, x: x.cumprod(1),
    "cumsum": lambda L, x: x.cumsum(0) ** 2,
}

test_double_backward = cases.double_backward(DOUBLE_BACKWARD)


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_cumsum_vjp_on_arrays_gives_the_ops_bits(dim, dt):
    """cumsum's VJP on arrays (g reversed summed into out reversed) against
    create_graph=True (flip, cumsum, flip as ops): the same sums in the same order, ±inf
    and nan in the gradient included."""
    from chainrule.ops import scans

    x = np.random.default_rng(7).standard_normal((3, 4, 5)).astype(dt)
    g = np.random.default_rng(8).standard_normal((3, 4, 5)).astype(dt)
    g[1, 2, :3] = [np.inf, np.nan, -np.inf]
    vjp_bits_on_arrays(lambda L, t: scans.cumsum(t, dim=dim), [x], g)


# float32 cumsums by blocks and BLAS (_backend.running_sums): rows (the dim last), columns
# (16 or more elements after the dim), an axis of blocks of 8, and shapes that keep the loop
# (a small array, an odd axis, 2 to 15 elements after the dim)
BLOCKED = [((64, 256), 1), ((64, 256), 0), ((2, 96, 32), 1), ((8, 1000), 1), ((8, 96, 16), 1)]
LOOPED = [((16, 128), 1), ((64, 257), 1), ((8, 96, 4), 1), ((3, 4), 1)]


@pytest.mark.parametrize("shape, dim", BLOCKED + LOOPED)
def test_float32_cumsum_is_pytorchs_bit_for_bit(shape, dim):
    """PyTorch's CPU kernel sums float32 in double from +0: the blocks' float64 sums rounded
    to float32 give its bits, forward and backward (where NumPy's float32 cumsum differs in
    most elements), and never -0."""
    rng = np.random.default_rng(31)
    x = rng.standard_normal(shape).astype(np.float32)
    x.reshape(-1)[:5] = -0.0
    g = rng.standard_normal(shape).astype(np.float32)
    t = torch.from_numpy(x).requires_grad_()
    c = cr.from_numpy(x).requires_grad_()
    want, got = torch.cumsum(t, dim), cr.cumsum(c, dim)
    want.backward(torch.from_numpy(g))
    got.backward(cr.from_numpy(g))
    assert_same_bits(got.detach().numpy(), want.detach().numpy())
    assert_same_bits(c.grad.numpy(), t.grad.numpy())
    assert not np.signbit(got.detach().numpy().reshape(-1)[:5]).any()


@pytest.mark.parametrize("shape, dim", BLOCKED + LOOPED)
def test_float32_cumsum_vjp_on_arrays_gives_the_ops_bits(shape, dim):
    """The VJP on arrays (a reversed copy summed by blocks) is flip, cumsum, flip's bits."""
    from chainrule.ops import scans

    x = np.random.default_rng(32).standard_normal(shape).astype(np.float32)
    g = np.random.default_rng(33).standard_normal(shape).astype(np.float32)
    vjp_bits_on_arrays(lambda L, t: scans.cumsum(t, dim=dim), [x], g)


def test_running_sums_takes_the_blocked_shapes_and_leaves_the_rest():
    """Which arrays the blocks take (the others get None: the caller's loop), their sums
    against float64's sequential ones, and non-finite inputs left to the loop."""
    from chainrule import _backend

    rng = np.random.default_rng(34)
    for shape, dim in BLOCKED:
        x = rng.standard_normal(shape).astype(np.float32)
        got = _backend.running_sums(x, dim)
        assert got is not None and got.dtype == np.float64, shape
        np.testing.assert_allclose(got, np.cumsum(x, dim, dtype=np.float64), rtol=1e-13, atol=1e-12)
    for shape, dim in LOOPED:
        assert _backend.running_sums(rng.standard_normal(shape).astype(np.float32), dim) is None
    x = rng.standard_normal((64, 256)).astype(np.float32)
    assert _backend.running_sums(x[:, ::2].copy(), 1) is not None
    assert _backend.running_sums(x.T, 0) is None  # (not C-contiguous)
    for bad in (np.inf, -np.inf, np.nan):
        y = x.copy()
        y[3, 100] = bad
        assert _backend.running_sums(y, 1) is None
        want = torch.cumsum(torch.from_numpy(y), 1).numpy()
        assert_same_bits(cr.cumsum(cr.from_numpy(y), 1).numpy(), want)
