"""Depthwise convolutions by banded products (``ops/depthwise.py``): a 2-d convolution with
one input channel and one filter per group, stride 1 down the rows. Each case gives
PyTorch's values, gradients, tangents and nodes (``oracle.check``, float32 and float64),
second derivatives by finite differences, the values of the windows' general path, and
the general path's nan and inf where an input is not finite."""

from __future__ import annotations

import numpy as np
import pytest

import chainrule as cr
from chainrule.ops import depthwise
from oracle import check, randn, same_node

# name -> (x's shape, m filters per channel, keyword arguments of conv2d but groups)
CASES = {
    "mobilenet_3x3": ((2, 4, 6, 7), 1, {"kernel": (3, 3), "padding": 1}),
    "odd_sizes": ((2, 3, 5, 9), 1, {"kernel": (3, 3), "padding": 1}),
    "blocked_rows": ((1, 2, 4, 64), 1, {"kernel": (3, 3), "padding": 1}),  # 2 blocks of 32
    "convnext_7x7": ((1, 2, 9, 12), 1, {"kernel": (7, 7), "padding": 3}),
    "dilated_strided_row": (
        (1, 3, 9, 20),
        1,
        {"kernel": (3, 5), "stride": (1, 2), "padding": (2, 1), "dilation": (2, 1)},
    ),
    "no_padding_even_kernel": ((3, 2, 6, 6), 1, {"kernel": (2, 2)}),
}


def _inputs(case):
    x_shape, m, kw = case
    c = x_shape[1]
    return randn(x_shape, seed=1), randn((c * m, 1, *kw["kernel"]), seed=2), randn((c * m,), seed=3)


def _kwargs(case):
    kw = {k: v for k, v in case[2].items() if k != "kernel"}
    return {**kw, "groups": case[0][1]}


def _calls(monkeypatch) -> dict:
    """Counts of the banded products' functions that ran (returned an array)."""
    counts = {}
    for name in ("correlate", "correlate_transpose", "correlate_weight"):
        run = getattr(depthwise, name)

        def counted(*args, _run=run, _name=name):
            out = _run(*args)
            counts[_name] = counts.get(_name, 0) + (out is not None)
            return out

        monkeypatch.setattr(depthwise, name, counted)
    return counts


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_depthwise_convolution_is_pytorchs(case, dtype, monkeypatch):
    counts = _calls(monkeypatch)
    kwargs = _kwargs(case)
    fn = lambda L, x, w, b: L.nn.functional.conv2d(x, w, b, **kwargs)  # noqa: E731
    same_node(check(fn, *_inputs(case), dtype=dtype))
    assert counts["correlate"] and counts["correlate_transpose"] and counts["correlate_weight"]


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_depthwise_transposed_convolution_is_pytorchs(case, monkeypatch):
    """ConvTranspose2d with groups = its output channels, one per group (the weight
    (C·m, 1, kh, kw)), on an input of the forward's output shape."""
    counts = _calls(monkeypatch)
    x, w, _ = _inputs(case)
    kwargs = _kwargs(case)
    y = cr.nn.functional.conv2d(cr.tensor(x), cr.tensor(w), **kwargs)
    fn = lambda L, y, w, b: L.nn.functional.conv_transpose2d(y, w, b, **kwargs)  # noqa: E731
    same_node(check(fn, randn(tuple(y.shape), seed=4), w, randn((x.shape[1],), seed=5)))
    assert counts["correlate_transpose"]


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_second_derivatives_by_finite_differences(case):
    x, w, b = (
        cr.tensor(a[:1] if i == 0 else a, requires_grad=True) for i, a in enumerate(_inputs(case))
    )
    kwargs = _kwargs(case)
    conv = cr.nn.functional.conv2d
    assert cr.autograd.gradgradcheck(lambda x, w, b: conv(x, w, b, **kwargs), (x, w, b))


def _run(case, x=None):
    x0, w0, b0 = _inputs(case)
    x = cr.tensor(x0 if x is None else x, requires_grad=True)
    w, b = cr.tensor(w0, requires_grad=True), cr.tensor(b0, requires_grad=True)
    kwargs = _kwargs(case)
    y = cr.nn.functional.conv2d(x, w, b, **kwargs)
    y.backward(cr.tensor(randn(tuple(y.shape), seed=6)))
    t = cr.nn.functional.conv_transpose2d(y.detach(), w.detach(), **kwargs)
    return [a.numpy() for a in (y.detach(), x.grad, w.grad, b.grad, t)]


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_the_bands_give_the_general_paths_values(case, monkeypatch):
    fast = _run(case)
    monkeypatch.setattr(depthwise, "applies", lambda *args: False)
    for got, want in zip(fast, _run(case)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan])
def test_a_non_finite_input_gives_the_general_paths_values(value, monkeypatch):
    """A band's zero times inf would be nan across a whole row: such inputs go to the
    windows (their nan and inf where PyTorch has them)."""
    case = CASES["odd_sizes"]
    x = _inputs(case)[0].copy()
    x[0, 1, 2, 3] = value
    fast = _run(case, x)
    monkeypatch.setattr(depthwise, "applies", lambda *args: False)
    for got, want in zip(fast, _run(case, x)):
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_several_filters_per_channel_stay_on_the_windows(monkeypatch):
    """m = 2 filters per input channel: the windows (measured as fast), PyTorch's values."""
    counts = _calls(monkeypatch)
    fn = lambda L, x, w: L.nn.functional.conv2d(x, w, padding=1, groups=3)  # noqa: E731
    check(fn, randn((2, 3, 5, 6), seed=1), randn((6, 1, 3, 3), seed=2))
    assert not any(counts.values())


def test_rows_the_blocks_cannot_cut_stay_on_the_windows():
    """A long row without a divisor near the block's size (a prime width) is not banded."""
    assert depthwise._block(32) == 32 and depthwise._block(56) == 28
    assert depthwise._block(61) == 61  # (short enough for one block)
    assert depthwise._block(67) == 0
    x = np.zeros((1, 2, 3, 67), np.float32)
    assert depthwise.correlate(x, np.ones((2, 1, 3, 3), np.float32), (1, 1), (1, 1), (1, 1)) is None
