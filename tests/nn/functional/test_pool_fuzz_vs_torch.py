"""Pooling cases a random fuzz against PyTorch found: inf and nan next to a window (average
pooling must not read them), nan in bfloat16 max pooling, and gradients taken with
create_graph, which require grad through x (PyTorch's backward kernels read x)."""

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import assert_same

SPECIALS = (np.inf, -np.inf, np.nan)


def _specials(shape, seed: int) -> np.ndarray:
    """Random values with an inf, a -inf and a nan at random places."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    flat = a.reshape(-1)
    flat[rng.choice(flat.size, 3, replace=False)] = SPECIALS
    return a


def _run(lib, fn, a, dtype):
    x = lib.tensor(a).to(getattr(lib, dtype))
    out = fn(lib.nn.functional, x)
    return out if isinstance(out, tuple) else (out,)


def _compare(fn, a, dtype):
    for got, want in zip(_run(cr, fn, a, dtype), _run(torch, fn, a, dtype), strict=True):
        assert_same(got, want)


# windows beside an inf or nan: padding taps and adaptive windows shorter than the longest
AVERAGES = {
    "avg1d_pad": (lambda F, x: F.avg_pool1d(x, 2, 2, 1), (2, 3, 5)),
    "avg1d_ceil": (lambda F, x: F.avg_pool1d(x, 3, 2, 1, True, False), (2, 3, 6)),
    "avg2d_pad": (lambda F, x: F.avg_pool2d(x, 3, 2, 1), (1, 2, 5, 6)),
    "avg2d_div": (lambda F, x: F.avg_pool2d(x, (2, 4), 3, (1, 2), True, True, 3), (2, 5, 7)),
    "avg3d_pad": (lambda F, x: F.avg_pool3d(x, 2, 1, 1, False, False), (1, 2, 3, 4, 3)),
    "adaptive_avg1d_up": (lambda F, x: F.adaptive_avg_pool1d(x, 11), (2, 2, 4)),
    "adaptive_avg1d_down": (lambda F, x: F.adaptive_avg_pool1d(x, 3), (2, 2, 7)),
    "adaptive_avg2d": (lambda F, x: F.adaptive_avg_pool2d(x, (3, 10)), (1, 2, 9, 3)),
    "adaptive_avg3d": (lambda F, x: F.adaptive_avg_pool3d(x, (None, 6, 4)), (2, 3, 5, 5)),
    "lp2d": (lambda F, x: F.lp_pool2d(x, 2, 3, 2, True), (1, 2, 5, 7)),
}


# (bfloat16 in 1-d and 2-d: PyTorch's 3-d kernels round bfloat16 sums their own way)
AVERAGE_CASES = [
    (name, dtype)
    for name in AVERAGES
    for dtype in ("float32", "float64", "bfloat16")
    if not (dtype == "bfloat16" and "3d" in name)
]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("name", "dtype"), AVERAGE_CASES)
def test_average_pooling_reads_only_its_window(name, dtype, seed):
    fn, shape = AVERAGES[name]
    _compare(fn, _specials(shape, seed), dtype)


# max pooling of bfloat16 with nan: the nan wins, its index is PyTorch's (the last nan)
MAXIMA = {
    "max1d": lambda F, x: F.max_pool1d(x.flatten(-2), 3, 1, 1, return_indices=True),
    "max2d": lambda F, x: F.max_pool2d(x, 2, 1, return_indices=True),
    "max2d_dilated": lambda F, x: F.max_pool2d(x, 2, 2, 1, 2, True, True),
    "adaptive_max2d": lambda F, x: F.adaptive_max_pool2d(x, (4, 11), True),
    "adaptive_max1d": lambda F, x: F.adaptive_max_pool1d(x.flatten(-2), 7, True),
    "fractional2d": lambda F, x: F.fractional_max_pool2d(
        x, 2, (3, 4), return_indices=True, _random_samples=x.new_full((1, 2, 2), 0.4)
    ),
    "lp_inf1d": lambda F, x: F.lp_pool1d(x.flatten(-2), float("inf"), 3, 3, True),
}


def _nans(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((1, 2, 5, 5))
    flat = a.reshape(-1)
    flat[rng.choice(flat.size, 6, replace=False)] = np.nan
    return a


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", list(MAXIMA))
def test_bfloat16_max_pooling_takes_the_nan(name, seed):
    _compare(MAXIMA[name], _nans(seed), "bfloat16")


# a first gradient taken with create_graph requires grad through x, even for a plain upstream
# gradient, and its derivative in x is 0 (PyTorch's pooling backward kernels read x)
SECOND = {
    "max1d": (lambda F, x: F.max_pool1d(x, 3, 2, 1), (2, 3, 7)),
    "max2d": (lambda F, x: F.max_pool2d(x, 2), (1, 2, 4, 4)),
    "max3d": (lambda F, x: F.max_pool3d(x, 2, 1, ceil_mode=True), (2, 3, 3, 4)),
    "avg1d": (lambda F, x: F.avg_pool1d(x, 2, 1, 1), (2, 3, 5)),
    "avg2d": (lambda F, x: F.avg_pool2d(x, 2), (1, 2, 4, 4)),
    "avg3d": (lambda F, x: F.avg_pool3d(x, 2, 1, 1, False, False, 3), (1, 2, 3, 3, 3)),
    "adaptive_avg1d": (lambda F, x: F.adaptive_avg_pool1d(x, 3), (2, 3, 7)),
    "adaptive_avg2d": (lambda F, x: F.adaptive_avg_pool2d(x, 3), (1, 2, 4, 5)),
    "adaptive_avg3d": (lambda F, x: F.adaptive_avg_pool3d(x, (2, 3, 2)), (2, 3, 4, 3)),
    "adaptive_max1d": (lambda F, x: F.adaptive_max_pool1d(x, 3), (2, 3, 7)),
    "adaptive_max2d": (lambda F, x: F.adaptive_max_pool2d(x, 3), (1, 2, 4, 5)),
    "adaptive_max3d": (lambda F, x: F.adaptive_max_pool3d(x, 2), (2, 3, 4, 3)),
    "fractional2d": (
        lambda F, x: F.fractional_max_pool2d(
            x, 2, (2, 3), _random_samples=x.new_full((1, 2, 2), 0.3)
        ),
        (1, 2, 4, 5),
    ),
    "fractional3d": (
        lambda F, x: F.fractional_max_pool3d(
            x, 2, output_ratio=0.5, _random_samples=x.new_full((1, 2, 3), 0.6)
        ),
        (1, 2, 4, 4, 4),
    ),
}


def _second(lib, fn, a, channels_last: bool):
    x = lib.tensor(a, requires_grad=True)
    y = fn(lib.nn.functional, x.contiguous(memory_format=lib.channels_last) if channels_last else x)
    w = lib.tensor(np.random.default_rng(3).standard_normal(tuple(y.shape)))
    (g,) = lib.autograd.grad(y, x, w, create_graph=True)
    (h,) = lib.autograd.grad((g * g.detach()).sum(), x)
    return g, h


@pytest.mark.parametrize("name", list(SECOND))
def test_create_graph_gradient_requires_grad_through_x(name):
    fn, shape = SECOND[name]
    a = np.random.default_rng(1).standard_normal(shape)
    channels_last = name.endswith("2d") and "fractional" not in name
    (cg, ch), (tg, th) = (_second(lib, fn, a, channels_last) for lib in (cr, torch))
    assert cg.requires_grad and tg.requires_grad
    assert cg.grad_fn.name() == tg.grad_fn.name()
    assert_same(cg, tg.detach(), "first gradient")
    assert_same(ch, th, "second gradient")


def test_max_unpool_gradient_stays_constant_like_torch():
    """max_unpool's backward reads only the indices: PyTorch's first gradient of a plain
    upstream gradient does not require grad, so differentiating it again raises."""
    a = np.random.default_rng(0).standard_normal((1, 2, 4, 4))
    errors = []
    for lib in (cr, torch):
        x = lib.tensor(a, requires_grad=True)
        y, i = lib.nn.functional.max_pool2d(x, 2, return_indices=True)
        z = lib.nn.functional.max_unpool2d(y, i, 2)
        (g,) = lib.autograd.grad(z.sum(), y, create_graph=True)
        assert not g.requires_grad
        with pytest.raises(RuntimeError) as info:
            lib.autograd.grad(g.sum(), y)
        errors.append(str(info.value))
    assert errors[0] == errors[1]
