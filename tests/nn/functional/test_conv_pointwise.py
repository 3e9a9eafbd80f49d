"""Pointwise convolutions (one tap, unstrided, unpadded: ``windows._pointwise``): the
forward, the transposed convolution and both gradients are products per sample, without
windows. Each case gives PyTorch's values, gradients, tangents and nodes (``oracle.check``,
float32 and float64), second derivatives by finite differences, and the values of the
windows' general paths it stands for."""

from __future__ import annotations

import numpy as np
import pytest

import chainrule as cr
from chainrule.ops import windows
from oracle import check, randn, same_node

# name -> (x's shape without the batch, the weight's shape, keyword arguments)
CASES = {
    "conv2d": ((8, 5, 7), (4, 8, 1, 1), {}),
    "groups": ((4, 3, 3), (6, 2, 1, 1), {"groups": 2}),
    "short_rows": ((16, 4, 4), (8, 16, 1, 1), {}),
    "dilated": ((4, 9), (6, 4, 1), {"dilation": 2}),
    "conv3d": ((4, 3, 3, 2), (2, 4, 1, 1, 1), {}),
}


def _conv(lib, nd, transposed=False):
    return getattr(lib.nn.functional, f"conv{'_transpose' if transposed else ''}{nd}d")


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_the_products_are_taken(case):
    nd = len(case[1]) - 2
    assert windows._pointwise(case[1][2:], (1,) * nd, (0,) * nd)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_pointwise_convolution_is_pytorchs(case, dtype):
    nd = len(case[1]) - 2
    w = randn(case[1], seed=2)
    fn = lambda L, x, w, b: _conv(L, nd)(x, w, b, **case[2])  # noqa: E731
    x = randn((3, *case[0]), seed=1)
    same_node(check(fn, x, w, randn((w.shape[0],), seed=3), dtype=dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_pointwise_transposed_convolution_is_pytorchs(case, dtype):
    nd = len(case[1]) - 2
    w = randn(case[1], seed=4)  # (in = y's channels, out / groups, 1, ...)
    groups = case[2].get("groups", 1)
    y = randn((2, w.shape[0], *case[0][1:]), seed=5)
    b = randn((w.shape[1] * groups,), seed=6)
    fn = lambda L, y, w, b: _conv(L, nd, True)(y, w, b, **case[2])  # noqa: E731
    same_node(check(fn, y, w, b, dtype=dtype))


def test_an_empty_batch():
    fn = lambda L, x, w: L.nn.functional.conv2d(x, w)  # noqa: E731
    check(fn, np.zeros((0, 4, 3, 3)), randn((6, 4, 1, 1), seed=2))


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_second_derivatives_by_finite_differences(case):
    nd = len(case[1]) - 2
    x = cr.tensor(randn((1, *case[0]), seed=1), requires_grad=True)
    w = cr.tensor(randn(case[1], seed=2), requires_grad=True)
    conv = _conv(cr, nd)
    assert cr.autograd.gradgradcheck(lambda x, w: conv(x, w, **case[2]), (x, w))


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_the_products_give_the_general_paths_values(case, monkeypatch):
    """The forward, the input's and the weight's gradients, and the transposed
    convolution, with and without the products."""
    nd = len(case[1]) - 2

    def run():
        x = cr.tensor(randn((3, *case[0]), seed=1), requires_grad=True)
        w = cr.tensor(randn(case[1], seed=2), requires_grad=True)
        b = cr.tensor(randn((case[1][0],), seed=3), requires_grad=True)
        y = _conv(cr, nd)(x, w, b, **case[2])
        y.backward(cr.tensor(randn(tuple(y.shape), seed=6)))
        t = _conv(cr, nd, True)(y.detach(), w.detach(), **case[2])
        return [a.numpy() for a in (y.detach(), x.grad, w.grad, b.grad, t)]

    fast = run()
    monkeypatch.setattr(windows, "_pointwise", lambda *args: False)
    for got, want in zip(fast, run()):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_not_taken_with_more_taps_a_stride_or_padding():
    assert not windows._pointwise((1, 3), (1, 1), (0, 0))
    assert not windows._pointwise((1, 1), (2, 1), (0, 0))
    assert not windows._pointwise((1, 1), (1, 1), (0, 1))
