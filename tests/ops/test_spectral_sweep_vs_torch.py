"""torch.fft, stft and torch.special against PyTorch: a compact grid of the transforms'
options (n, s, dim, norm, dtypes) with values and gradients, and each case a sweep found
wrong: error order and messages, out= checks, fftfreq's edge sizes, stft's messages and
half precision, the special functions' half-precision errors, logit's eps, lgamma near its
zeros, the incomplete gamma functions' edges and large a, polygamma far below 0, and the
gradients of i1, i1e and sinc at tiny x.
"""

from __future__ import annotations

import math
import warnings

import mpmath
import numpy as np
import pytest
import torch

import chainrule as cr


def _cr(t: torch.Tensor) -> cr.Tensor:
    return cr.tensor(t.detach().numpy().copy())


def _np(t) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        return t.detach().resolve_conj().numpy()
    return t.detach().numpy()


def _raises_same(fn_t, fn_c) -> None:
    with pytest.raises(Exception) as expected:
        fn_t()
    with pytest.raises(type(expected.value)) as got:
        fn_c()
    assert str(got.value) == str(expected.value)


# ----- torch.fft: a compact grid ---------------------------------------------------------------

_ONE = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
_REAL_IN = {"rfft", "ihfft", "rfftn", "rfft2", "ihfftn", "ihfft2"}


@pytest.mark.parametrize("name", _ONE)
@pytest.mark.parametrize("n", [None, 3, 8])
@pytest.mark.parametrize("norm", [None, "forward", "ortho"])
def test_one_dim_values_and_grads(name: str, n, norm) -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 5))
    if name not in _REAL_IN:
        a = a + 1j * rng.standard_normal((3, 5))
    xt = torch.tensor(a, requires_grad=True)
    xc = cr.tensor(a, requires_grad=True)
    yt = getattr(torch.fft, name)(xt, n=n, dim=0, norm=norm)
    yc = getattr(cr.fft, name)(xc, n=n, dim=0, norm=norm)
    assert str(yc.dtype) == str(yt.dtype) and tuple(yc.shape) == tuple(yt.shape)
    np.testing.assert_allclose(_np(yc), _np(yt), rtol=1e-12, atol=1e-12)
    w1, w2 = rng.standard_normal(tuple(yt.shape)), rng.standard_normal(tuple(yt.shape))
    if yt.is_complex():
        lt = (yt.real * torch.tensor(w1) + yt.imag * torch.tensor(w2)).sum()
        lc = (yc.real * cr.tensor(w1) + yc.imag * cr.tensor(w2)).sum()
    else:
        lt, lc = (yt * torch.tensor(w1)).sum(), (yc * cr.tensor(w1)).sum()
    (gt,) = torch.autograd.grad(lt, xt)
    (gc,) = cr.autograd.grad(lc, xc)
    np.testing.assert_allclose(_np(gc), _np(gt), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"])
@pytest.mark.parametrize(("s", "dim"), [(None, None), ((4, 5), (-1, 0)), ((1, -1), None)])
def test_n_dim_values(name: str, s, dim) -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 4, 2))
    if name not in _REAL_IN:
        a = a + 1j * rng.standard_normal((3, 4, 2))
    yt = getattr(torch.fft, name)(torch.tensor(a), s=s, dim=dim, norm="ortho")
    yc = getattr(cr.fft, name)(cr.tensor(a), s=s, dim=dim, norm="ortho")
    assert str(yc.dtype) == str(yt.dtype)
    np.testing.assert_allclose(_np(yc), _np(yt), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"])
def test_two_dim_refuses_dim_none(name: str) -> None:
    x = torch.ones(2, 3)
    _raises_same(
        lambda: getattr(torch.fft, name)(x, dim=None),
        lambda: getattr(cr.fft, name)(_cr(x), dim=None),
    )


@pytest.mark.parametrize(
    ("name", "dtype"),
    [("hfftn", torch.float16), ("ihfftn", torch.float16), ("ihfftn", torch.complex128)],
)
def test_error_order_of_dtype_and_norm(name: str, dtype) -> None:
    x = torch.ones(3, 4, dtype=dtype)
    c = cr.ones(3, 4, dtype=getattr(cr, str(dtype).split(".")[1]))
    _raises_same(
        lambda: getattr(torch.fft, name)(x, norm="x"),
        lambda: getattr(cr.fft, name)(c, norm="x"),
    )


@pytest.mark.parametrize(
    ("name", "in_dtype", "out_dtype"),
    [
        ("ifft", torch.float64, torch.complex64),
        ("ihfft", torch.float64, torch.complex64),
        ("ifftn", torch.float64, torch.float64),
        ("ifft2", torch.complex128, torch.float32),
    ],
)
def test_out_checks(name: str, in_dtype, out_dtype) -> None:
    x = torch.ones(2, 4, dtype=in_dtype)
    c = cr.ones(2, 4, dtype=getattr(cr, str(in_dtype).split(".")[1]))
    o_dt = getattr(cr, str(out_dtype).split(".")[1])
    _raises_same(
        lambda: getattr(torch.fft, name)(x, out=torch.empty(0, dtype=out_dtype)),
        lambda: getattr(cr.fft, name)(c, out=cr.empty(0, dtype=o_dt)),
    )


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize(("n", "d"), [(0, 1.0), (4, 0.0), (1, 0.0), (-1, 1.0), (-5, 1.0)])
def test_frequencies_edges(name: str, n: int, d: float) -> None:
    try:
        expected = getattr(torch.fft, name)(n, d)
    except RuntimeError as error:
        with pytest.raises(RuntimeError, match=str(error).replace("[", r"\[")):
            getattr(cr.fft, name)(n, d)
        return
    got = getattr(cr.fft, name)(n, d)
    np.testing.assert_array_equal(_np(got), _np(expected))


# ----- stft -----------------------------------------------------------------------------------


def test_stft_message_names_complex_types() -> None:
    x = torch.ones(32, dtype=torch.complex128)
    w = torch.ones(8, dtype=torch.complex128)
    _raises_same(
        lambda: torch.stft(x, 7, win_length=8, window=w, return_complex=True),
        lambda: cr.stft(_cr(x), 7, win_length=8, window=_cr(w), return_complex=True),
    )


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_stft_half_precision_refused(dtype) -> None:
    x = torch.ones(32, dtype=dtype)
    c = cr.ones(32, dtype=getattr(cr, str(dtype).split(".")[1]))
    w = torch.ones(8, dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _raises_same(
            lambda: torch.stft(x, 8, window=w, return_complex=True),
            lambda: cr.stft(c, 8, window=cr.ones(8, dtype=c.dtype), return_complex=True),
        )
        got = cr.stft(c, 8, window=cr.ones(8), return_complex=True)  # (promoted by the window)
        assert got.dtype == cr.complex64


@pytest.mark.parametrize("center", [True, False])
@pytest.mark.parametrize("onesided", [True, False])
def test_stft_istft_round_trip_grads(center: bool, onesided: bool) -> None:
    rng = np.random.default_rng(2)
    a = rng.standard_normal((2, 30))
    wt = torch.hamming_window(8, dtype=torch.float64)
    wc = cr.hamming_window(8, dtype=cr.float64)
    xt, xc = torch.tensor(a, requires_grad=True), cr.tensor(a, requires_grad=True)
    kw = dict(hop_length=2, center=center, onesided=onesided, return_complex=True)
    st = torch.stft(xt, 8, window=wt, **kw)
    sc = cr.stft(xc, 8, window=wc, **kw)
    np.testing.assert_allclose(_np(sc), _np(st), rtol=1e-12, atol=1e-12)
    back = dict(hop_length=2, center=center, onesided=onesided, length=24)
    yt = torch.istft(st, 8, window=wt, **back)
    yc = cr.istft(sc, 8, window=wc, **back)
    np.testing.assert_allclose(_np(yc), _np(yt), rtol=1e-10, atol=1e-12)
    w = rng.standard_normal(tuple(yt.shape))
    (gt,) = torch.autograd.grad((yt * torch.tensor(w)).sum(), xt)
    (gc,) = cr.autograd.grad((yc * cr.tensor(w)).sum(), xc)
    np.testing.assert_allclose(_np(gc), _np(gt), rtol=1e-10, atol=1e-12)


# ----- torch.special --------------------------------------------------------------------------

_DOUBLE_ONLY = [
    "airy_ai", "bessel_j0", "bessel_y1", "modified_bessel_i0", "modified_bessel_k1",
    "scaled_modified_bessel_k0", "spherical_bessel_j0", "erfcx", "log_ndtr", "ndtri",
]  # fmt: skip


@pytest.mark.parametrize("name", _DOUBLE_ONLY)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_refused(name: str, dtype: str) -> None:
    x = torch.tensor([0.5]).to(getattr(torch, dtype))
    c = cr.tensor([0.5]).to(getattr(cr, dtype))
    _raises_same(lambda: getattr(torch.special, name)(x), lambda: getattr(cr.special, name)(c))


@pytest.mark.parametrize("name", ["chebyshev_polynomial_t", "legendre_polynomial_p", "zeta"])
def test_half_precision_refused_binary(name: str) -> None:
    x = torch.tensor([0.5]).half()
    _raises_same(
        lambda: getattr(torch.special, name)(x, x),
        lambda: getattr(cr.special, name)(_cr(x.float()).half(), _cr(x.float()).half()),
    )


@pytest.mark.parametrize("eps", [None, 0.1, 0.6, -0.1])
def test_logit_eps_values_and_grads(eps) -> None:
    a = [0.0, 1.0, 0.5, 0.2, -1.0, 2.0, 0.61]
    xt = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    xc = cr.tensor(a, dtype=cr.float64, requires_grad=True)
    yt, yc = torch.special.logit(xt, eps=eps), cr.special.logit(xc, eps=eps)
    np.testing.assert_allclose(_np(yc), _np(yt), rtol=1e-14)
    (gt,) = torch.autograd.grad(yt.sum(), xt)
    (gc,) = cr.autograd.grad(yc.sum(), xc)
    np.testing.assert_allclose(_np(gc), _np(gt), rtol=1e-14)


def test_gammaln_near_its_zeros() -> None:
    x = [0.999999, 1.000001, 1 + 1e-12, 2 - 1e-10, 2 + 1e-9, 0.6, 1.7, 2.4]
    got = _np(cr.special.gammaln(cr.tensor(x, dtype=cr.float64)))
    exact = [float(mpmath.loggamma(v)) for v in x]
    np.testing.assert_allclose(got, exact, rtol=1e-14)
    np.testing.assert_allclose(
        got, _np(torch.special.gammaln(torch.tensor(x, dtype=torch.float64))), rtol=1e-9
    )


_V = [0.0, math.inf, math.nan, -1.0, 1.0, 1e300, 50.0]


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_incomplete_gamma_edges(name: str) -> None:
    a, x = np.meshgrid(_V, _V, indexing="ij")
    ta, tx = torch.tensor(a.ravel()), torch.tensor(x.ravel())
    got = _np(getattr(cr.special, name)(_cr(ta), _cr(tx)))
    np.testing.assert_allclose(got, _np(getattr(torch.special, name)(ta, tx)), rtol=1e-9)


def test_incomplete_gamma_large_a() -> None:
    # the lower tail at a = 1e7 against the exact value: PyTorch's (Cephes') is 3% off there
    a, x = 1e7, 1e7 - 5 * math.sqrt(1e7)
    got = cr.special.gammainc(
        cr.tensor([a], dtype=cr.float64), cr.tensor([x], dtype=cr.float64)
    ).item()
    assert got == pytest.approx(2.829105758297979e-07, rel=1e-12)
    for a in [1e9, 1e20]:  # Temme's expansion, against PyTorch at the centre
        xs = torch.tensor([a, a + 2 * math.sqrt(a), a - math.sqrt(a)], dtype=torch.float64)
        at = torch.full_like(xs, a)
        for name in ["gammainc", "gammaincc"]:
            got = _np(getattr(cr.special, name)(_cr(at), _cr(xs)))
            expected = _np(getattr(torch.special, name)(at, xs))
            np.testing.assert_allclose(got, expected, rtol=5e-6 if a > 1e10 else 1e-10)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_polygamma_far_below_zero(n: int) -> None:
    poles = cr.special.polygamma(n, cr.tensor([-1e5, -1e300], dtype=cr.float64))
    assert (_np(poles) == (math.inf if n % 2 else -math.inf)).all()  # (as at -1, -2, ...)
    x = [-20000.3, -1000000.7, -123456.25]
    got = _np(cr.special.polygamma(n, cr.tensor(x, dtype=cr.float64)))
    exact = [float(mpmath.psi(n, v)) for v in x]
    np.testing.assert_allclose(got, exact, rtol=1e-9)


@pytest.mark.parametrize(("name", "value"), [("i1", 0.5), ("i1e", 0.5), ("sinc", 0.0)])
@pytest.mark.parametrize("x", [5e-324, 1e-300, -1e-300])
def test_gradient_at_tiny_x(name: str, value: float, x: float) -> None:
    xc = cr.tensor([x], dtype=cr.float64, requires_grad=True)
    (g,) = cr.autograd.grad(getattr(cr.special, name)(xc).sum(), xc)
    assert g.item() == pytest.approx(value, abs=1e-15)
