"""float32 accuracy where a naive formula loses digits: chainrule's error, in ulps of float32,
against an mpmath (or float64) reference, bounded outright and never worse than PyTorch's
beyond that bound. Each case is a place a formula once cancelled, overflowed or underflowed:
sinc' near 0, gelu(approximate='tanh') in its left tail, the gradients of log_ndtr, erfcx,
expm1, i1, i1e and logaddexp2 in their tails, var and std of large, tiny and offset
values, cumprod and logcumsumexp along long rows (accumulated in float64, as PyTorch's CPU
kernels)."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
import torch

import chainrule as cr

mp.mp.dps = 60


def ulps(value, reference) -> np.ndarray:
    """|value - reference| in float32 ulps of the reference (inf where a finite reference
    gets a non-finite value)."""
    value = np.asarray(value, dtype=np.float64)
    reference = np.asarray(reference, dtype=np.float64)
    spacing = np.spacing(np.abs(reference).astype(np.float32)).astype(np.float64)
    with np.errstate(invalid="ignore"):
        err = np.abs(value - reference) / np.maximum(spacing, 1e-45)
    return np.where(np.isfinite(value), err, np.inf)


def value_and_grad(lib, fn, x: np.ndarray):
    """fn's float32 value at x and the gradient of its sum."""
    t = lib.tensor(x, dtype=lib.float32, requires_grad=True)
    y = fn(lib, t)
    y.sum().backward()
    return y.detach().numpy(), t.grad.numpy()


def mp_map(f, x: np.ndarray) -> np.ndarray:
    return np.array([float(f(mp.mpf(float(v)))) for v in x.ravel()]).reshape(x.shape)


def assert_accurate(fn, x, reference, bound: float, which: int) -> None:
    """chainrule's value (which=0) or gradient (which=1) within ``bound`` ulps of the
    reference, and no further from it than PyTorch's where PyTorch's is further than
    ``bound``."""
    x = np.asarray(x, dtype=np.float32)
    ours = ulps(value_and_grad(cr, fn, x)[which], reference)
    theirs = ulps(value_and_grad(torch, fn, x)[which], reference)
    assert ours.max() <= bound, (x[ours.argmax()], ours.max(), theirs[ours.argmax()])
    assert (ours <= np.maximum(theirs, bound)).all()


# ----- pointwise: (fn, inputs, reference function, value or gradient, bound in ulps) ----------


def _sinc(x):
    return mp.sin(mp.pi * x) / (mp.pi * x) if x else mp.mpf(1)


def _gelu_tanh(x):
    return x / 2 * (1 + mp.tanh(mp.sqrt(2 / mp.pi) * (x + mp.mpf(0.044715) * x**3)))


def _erfcx(x):
    return mp.exp(x * x) * mp.erfc(x)


def _i1_slope(x):
    return (mp.besseli(0, x) + mp.besseli(2, x)) / 2 if x else mp.mpf(0.5)


def _i1e_slope(x):
    return mp.exp(-abs(x)) * (_i1_slope(x) - mp.sign(x) * mp.besseli(1, x))


POINTWISE = {
    # the closed form cancels below |πx| = 1, and is 0/0 (nan) where πx² underflows
    "sinc_grad_small": (
        lambda L, x: L.sinc(x),
        [1e-30, -1e-38, 3e-9, 0.005, 0.05, -0.2, 0.31],
        lambda x: mp.diff(_sinc, x),
        1,
        3,
    ),
    # x/2 (1 + tanh u): 1 + tanh u cancels as u -> -inf (PyTorch's is 0 or off by 10^7
    # ulps below x = -5); x σ(2u) does not, and is left with the rounding of u in float32,
    # an ulp of |2u| (up to 80) relative
    "gelu_tanh_left_tail": (
        lambda L, x: L.nn.functional.gelu(x, approximate="tanh"),
        [-9.5, -8.0, -6.0, -5.3757443, -5.0, -4.0, -3.0],
        _gelu_tanh,
        0,
        64,
    ),
    "gelu_tanh_grad_left_tail": (
        lambda L, x: L.nn.functional.gelu(x, approximate="tanh"),
        [-9.0, -7.18, -6.0, -5.3757443, -5.0, -4.0],
        lambda x: mp.diff(_gelu_tanh, x),
        1,
        64,
    ),
    # σ(2u)σ(-2u) formed before its product with x·2u' (inf beyond |x| = 1e15): not 0·inf
    "gelu_tanh_grad_huge": (
        lambda L, x: L.nn.functional.gelu(x, approximate="tanh"),
        [1e15, -1e15, 1e10, -1e10, 30.0, -30.0],
        lambda x: mp.diff(_gelu_tanh, x),
        1,
        1,
    ),
    # φ/Φ as e^(-x²/2 - ln Φ) loses every digit once x²/2 is large
    "log_ndtr_grad_left_tail": (
        lambda L, x: L.special.log_ndtr(x),
        [-60618.99, -32737.852, -1000.0, -40.0, -4.4711637, -1.5],
        lambda x: mp.npdf(x) / mp.ncdf(x),
        1,
        4,
    ),
    # 2x erfcx(x) - 2/√π cancels to -1/(√π x²)
    "erfcx_grad_large": (
        lambda L, x: L.special.erfcx(x),
        [2.0, 10.0, 27.9, 28.0, 100.0, 1e4, 1e8, 1e15],
        lambda x: 2 * x * _erfcx(x) - 2 / mp.sqrt(mp.pi),
        1,
        4,
    ),
    # ans + 1 cancels where expm1(x) is near -1
    "expm1_grad_negative": (
        lambda L, x: L.expm1(x),
        [-5.596973, -5.854242, -3.995365, -10.0, -30.0],
        mp.exp,
        1,
        2,
    ),
    # I1(x)/x underflows (and 1/x overflows) for tiny float32 x
    "i1_grad_tiny": (
        lambda L, x: L.special.i1(x),
        [1e-45, -1e-45, 1e-40, 1e-30, 1e-7, 0.5],
        _i1_slope,
        1,
        2,
    ),
    "i1e_grad_tiny": (
        lambda L, x: L.special.i1e(x),
        [1e-45, -1e-45, 1e-40, -1e-40, 1e-30, 1e-7, 0.5],
        _i1e_slope,
        1,
        2,
    ),
}


@pytest.mark.parametrize("name", sorted(POINTWISE))
def test_pointwise_accuracy(name):
    fn, x, f, which, bound = POINTWISE[name]
    x = np.asarray(x, dtype=np.float32)
    assert_accurate(fn, x, mp_map(f, x), bound, which)


def _logaddexp2_slope(a, b):
    return 1 / (1 + mp.mpf(2) ** (mp.mpf(float(b)) - mp.mpf(float(a))))


@pytest.mark.parametrize("which", [0, 1])
def test_logaddexp2_grad_far_tail(which):
    """σ((a - b) ln 2) rounds the product at the scale of a - b; 1/(1 + 2^(b-a)) does not."""
    a = np.array([-184.3476, -160.35188, -129.00868, -88.7, 3.5e-7, 43.47306], np.float32)
    b = np.array([-76.24889, -59.252693, -18.84095, 15.0, 104.0, -30.0], np.float32)
    pair = (a, b) if which == 0 else (b, a)
    reference = np.array([float(_logaddexp2_slope(p, q)) for p, q in zip(*pair)])
    grads = []
    for lib in (cr, torch):
        ta, tb = (lib.tensor(v, requires_grad=True) for v in (a, b))
        lib.logaddexp2(ta, tb).sum().backward()
        grads.append((ta, tb)[which].grad.numpy())
    ours, theirs = ulps(grads[0], reference), ulps(grads[1], reference)
    assert ours.max() <= 4
    assert (ours <= np.maximum(theirs, 4)).all()


# ----- reductions and scans, against float64 (normwise: ulps of the largest |reference|) ------


def _normwise(value, reference) -> float:
    reference = np.asarray(reference, np.float64)
    spacing = float(np.spacing(np.float32(np.abs(reference).max())))
    if not np.isfinite(np.asarray(value)).all():
        return np.inf
    return float(np.abs(np.asarray(value, np.float64) - reference).max() / spacing)


def _data(kind: str, shape) -> np.ndarray:
    r = np.random.default_rng(7)
    scale, offset = {"huge": (1e19, 0), "tiny": (1e-22, 0), "offset": (1, 1e4), "normal": (1, 0)}[
        kind
    ]
    return (r.standard_normal(shape) * scale + offset).astype(np.float32)


REDUCTIONS = {
    "var": lambda L, x: x.var(-1),
    "var_correction0": lambda L, x: x.var(-1, correction=0),
    "std": lambda L, x: x.std(-1),
    "std_mean": lambda L, x: L.std_mean(x, -1, correction=2)[0],
    "std_all": lambda L, x: x.std(),
}


@pytest.mark.parametrize("kind", ["huge", "tiny", "offset"])
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_moments_accumulate_in_float64(name, kind):
    """float32 squares of |x| > 1e19 overflow and of |x| < 1e-19 underflow; PyTorch's CPU
    kernel accumulates in float64, and so does chainrule's."""
    fn = REDUCTIONS[name]
    x = _data(kind, (3, 5000))
    reference = fn(torch, torch.tensor(x, dtype=torch.float64)).numpy()
    ours = _normwise(fn(cr, cr.tensor(x)).numpy(), reference)
    theirs = _normwise(fn(torch, torch.tensor(x)).numpy(), reference)
    assert ours <= max(1.0, theirs)
    # the gradient (of the std: 1/(2 std) at the scale of the data)
    tc, tt = cr.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    t64 = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    for lib, t in ((cr, tc), (torch, tt), (torch, t64)):
        lib.std(t, -1).sum().backward()
    ours = _normwise(tc.grad.numpy(), t64.grad.numpy())
    assert ours <= max(4.0, _normwise(tt.grad.numpy(), t64.grad.numpy()))


def _scan_errors(name: str, x, g, which: int) -> tuple:
    """The normwise errors of chainrule's and PyTorch's float32 ``name(x, 1)`` (which=0) or
    its gradient for ``g`` (which=1), against PyTorch's float64."""
    results = []
    for lib, dtype in ((cr, cr.float32), (torch, torch.float32), (torch, torch.float64)):
        t = lib.tensor(x, dtype=dtype, requires_grad=True)
        y = getattr(lib, name)(t, 1)
        y.backward(lib.tensor(g, dtype=dtype))
        results.append((y.detach().numpy(), t.grad.numpy())[which])
    return _normwise(results[0], results[2]), _normwise(results[1], results[2])


@pytest.mark.parametrize("shape", [(2, 20000), (40, 500)])
@pytest.mark.parametrize("which", [0, 1])
def test_cumprod_accumulates_in_float64(shape, which):
    x = _data("normal", shape)
    x = (1 + 0.01 * x / np.abs(x).max()).astype(np.float32)
    g = np.cos(np.arange(x.size) * 0.7).reshape(x.shape)
    ours, theirs = _scan_errors("cumprod", x, g, which)
    assert ours <= max(2.0, 4 * theirs)


@pytest.mark.parametrize("kind", ["normal", "offset", "tiny"])
@pytest.mark.parametrize("which", [0, 1])
def test_logcumsumexp_accumulates_in_float64(kind, which):
    x = _data(kind, (2, 20000)) * 10 if kind != "tiny" else _data(kind, (2, 20000))
    g = np.cos(np.arange(x.size) * 0.7).reshape(x.shape)
    ours, theirs = _scan_errors("logcumsumexp", x, g, which)
    assert ours <= max(2.0, theirs)


# ----- second derivatives of the new formulas: float64 finite differences ---------------------

SECOND = {
    "sinc": (lambda L, x: L.sinc(x), [1e-3, -0.2, 0.5, 2.5]),
    "gelu_tanh": (lambda L, x: L.nn.functional.gelu(x, approximate="tanh"), [-6.0, -1.0, 0.3, 2]),
    "erfcx": (lambda L, x: L.special.erfcx(x), [-1.0, 0.5, 20.0, 30.0, 100.0]),
    "log_ndtr": (lambda L, x: L.special.log_ndtr(x), [-50.0, -3.0, 0.0, 4.0]),
    "expm1": (lambda L, x: L.expm1(x), [-6.0, 0.0, 1.5]),
    "i1": (lambda L, x: L.special.i1(x), [1e-3, 0.5, -2.0]),
    "i1e": (lambda L, x: L.special.i1e(x), [1e-8, 0.5, -2.0]),
    "logaddexp2": (lambda L, x: L.logaddexp2(x, x.flip(0) * 0.5), [-30.0, -1.0, 0.5, 4.0]),
}


@pytest.mark.parametrize("name", sorted(SECOND))
def test_second_derivative_matches_torch_float64(name):
    fn, x = SECOND[name]
    hessians = []
    for lib in (cr, torch):
        t = lib.tensor(np.array(x), dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(fn(lib, t).sum(), t, create_graph=True)
        (h,) = lib.autograd.grad((g * lib.arange(1.0, len(x) + 1, dtype=lib.float64)).sum(), t)
        hessians.append(h.numpy())
    np.testing.assert_allclose(hessians[0], hessians[1], rtol=1e-7, atol=1e-12)


# ----- float64 at the extremes: overflow and underflow in intermediates --------------------------

EXTREMES = {
    # math.lgamma raises OverflowError past 2.5e305; Stirling's form is finite to 2.6e305
    "lgamma_huge": (lambda L, x: L.lgamma(x), [1e299, 1e300, 2e305, 2.6e305, 1.7e308, 30.0]),
    # 2π·x overflows in e^-x I_nu(x)'s asymptotic series (0 or nan instead of 3e-155 or inf)
    "i0e_huge": (lambda L, x: L.special.i0e(x), [1.7e308, -1.7e308, 1e308, 1e10]),
    "i1e_huge": (lambda L, x: L.special.i1e(x), [1.7e308, -1.7e308, 1e308, 1e10]),
    "i1_huge": (lambda L, x: L.special.i1(x), [1.7e308, -1.7e308, 700.0]),
    "i0_huge": (lambda L, x: L.special.i0(x), [1.7e308, -1.7e308, 700.0]),
    # the slope of logit at -0 is +inf (logit increases), not 1/(-0) = -inf
    "logit_grad_at_zero": (lambda L, x: L.logit(x), [-0.0, 0.0, 0.25, 1.0]),
    # ζ(x, q) at poles (q a nonpositive integer) among other q: no direct sum of 1e300 steps
    "zeta_poles": (
        lambda L, x: L.special.zeta(L.full_like(x, 2.0), x),
        [-1.7e308, -1e300, -1e10, -3.0, 0.5, 30.0],
    ),
}


@pytest.mark.parametrize("name", sorted(EXTREMES))
def test_float64_extremes_match_torch(name):
    fn, x = EXTREMES[name]
    results = []
    for lib in (cr, torch):
        t = lib.tensor(np.array(x), dtype=lib.float64, requires_grad=True)
        y = fn(lib, t)
        y.sum().backward() if y.requires_grad else None
        results.append((y.detach().numpy(), None if t.grad is None else t.grad.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-13, atol=0)
    if results[1][1] is not None:
        np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-13, atol=0)
