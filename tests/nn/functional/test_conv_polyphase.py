"""Strided convolutions through their phases (``ops/polyphase.py``): where every strided
dim's kernel is a multiple of its stride and nothing is dilated, the forward, the
transposed convolution and the weight's gradient run unstrided on x's phases. Each case
gives PyTorch's values, gradients, tangents and nodes (``oracle.check``, float32 and
float64), second derivatives by finite differences, and the values of the strided general
path (``windows``) it stands for."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from chainrule.ops import convolution, polyphase
from oracle import check, randn, same_node

# name -> (dims, x's shape, the weight's shape, keyword arguments); all taken by the phases
CASES = {
    "dcgan_2d": ((6, 12, 12), (8, 6, 4, 4), {"stride": 2, "padding": 1}),
    "one_dim_strided": ((2, 11, 9), (4, 2, 4, 3), {"stride": (2, 1), "padding": (1, 1)}),
    "stride_3_groups": ((4, 13, 13), (6, 2, 6, 6), {"stride": 3, "padding": 2, "groups": 2}),
    "padding_past_kernel": ((2, 3, 3), (3, 2, 4, 4), {"stride": 2, "padding": 5}),
    "conv1d": ((3, 12), (4, 3, 4), {"stride": 2, "padding": 1}),
    "conv3d": ((2, 8, 5, 7), (3, 2, 4, 4, 2), {"stride": (2, 2, 1), "padding": (1, 1, 1)}),
}


def _x(case, batch=2):
    return randn((batch, *case[0]), seed=1)


def _conv(lib, nd):
    return getattr(lib.nn.functional, f"conv{nd}d")


def _conv_t(lib, nd):
    return getattr(lib.nn.functional, f"conv_transpose{nd}d")


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_the_phases_are_taken(case):
    x, w = _x(case), randn(case[1], seed=2)
    stride = case[2]["stride"]
    stride = (stride,) * (x.ndim - 2) if isinstance(stride, int) else stride
    assert polyphase.applies(x, w.shape[2:], stride, (1,) * len(stride))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_strided_convolution_is_pytorchs(case, dtype):
    nd = len(case[1]) - 2
    w = randn(case[1], seed=2)
    fn = lambda L, x, w, b: _conv(L, nd)(x, w, b, **case[2])  # noqa: E731
    same_node(check(fn, _x(case), w, randn((w.shape[0],), seed=3), dtype=dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_strided_transposed_convolution_is_pytorchs(case, dtype):
    """The transposed convolution of y (an output of the forward's shape), with an
    output_padding where the stride leaves room for one."""
    nd = len(case[1]) - 2
    w = randn(case[1], seed=2)
    kwargs = dict(case[2])
    stride = kwargs["stride"]
    kwargs["output_padding"] = (
        stride - 1 if isinstance(stride, int) else tuple(s - 1 for s in stride)
    )
    groups = kwargs.get("groups", 1)
    y_shape = _conv(torch, nd)(torch.zeros(_x(case).shape), torch.zeros(w.shape), **case[2]).shape
    wt = randn((w.shape[0], w.shape[1], *w.shape[2:]), seed=4)  # (in = y's channels, out / g)
    fn = lambda L, y, w: _conv_t(L, nd)(y, w, **kwargs)  # noqa: E731
    assert groups == 1 or wt.shape[0] % groups == 0
    same_node(check(fn, randn(tuple(y_shape), seed=5), wt, dtype=dtype))


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_second_derivatives_by_finite_differences(case):
    nd = len(case[1]) - 2
    x = cr.tensor(_x(case, batch=1), requires_grad=True)
    w = cr.tensor(randn(case[1], seed=2), requires_grad=True)
    conv = _conv(cr, nd)
    assert cr.autograd.gradgradcheck(lambda x, w: conv(x, w, **case[2]), (x, w))


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_the_phases_give_the_general_paths_values(case, monkeypatch):
    """The forward, the input's and the weight's gradients, and the transposed
    convolution, with and without the phases."""
    nd = len(case[1]) - 2

    def run():
        x = cr.tensor(_x(case), requires_grad=True)
        w = cr.tensor(randn(case[1], seed=2), requires_grad=True)
        y = _conv(cr, nd)(x, w, **case[2])
        y.backward(cr.tensor(randn(tuple(y.shape), seed=6)))
        t = _conv_t(cr, nd)(y.detach(), w.detach(), **case[2])
        return [a.numpy() for a in (y.detach(), x.grad, w.grad, t)]

    fast = run()
    monkeypatch.setattr(polyphase, "applies", lambda *args: False)
    for got, want in zip(fast, run()):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_not_taken_where_the_phases_would_add_zero_taps():
    """A kernel that is not a multiple of its stride (3 at stride 2) or only as long as it
    (non-overlapping windows), a dilation, or no stride at all stay on ``windows``' own
    paths."""
    x = np.zeros((1, 1, 8, 8))
    assert not polyphase.applies(x, (3, 3), (2, 2), (1, 1))
    assert not polyphase.applies(x, (2, 4), (2, 2), (1, 1))
    assert polyphase.applies(x, (3, 4), (1, 2), (1, 1))
    assert not polyphase.applies(x, (4, 4), (2, 2), (2, 1))
    assert not polyphase.applies(x, (4, 4), (1, 1), (1, 1))
    assert convolution.polyphase is polyphase
