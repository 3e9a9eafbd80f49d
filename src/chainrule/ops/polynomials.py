"""The classical orthogonal polynomials of ``torch.special``, evaluated at x for a degree n:
Chebyshev T, U, V, W and their shifted forms on [0, 1], Hermite H (physicists') and He
(probabilists'), Laguerre L and Legendre P.

Each is its three-term recurrence, run for every element at once up to the largest degree
(an element whose degree is reached keeps its value), with PyTorch's special cases: 0 for
a negative degree, the closed values at the ends of the interval, and for Chebyshev
polynomials of high degree inside (-1, 1) their trigonometric forms (T_n(cos θ) = cos nθ,
...), as PyTorch computes them. The degree is n truncated to an integer. PyTorch has no
derivative for any of them: their outputs never require grad. Computed in the result dtype,
as PyTorch does (in float32 the recurrences overflow where PyTorch's do).
"""

from __future__ import annotations

from .._backend import xp
from ..autograd.recording import defop
from . import special


def _recurrence(x, n, p0, p1, step):
    """p_n from p_0, p_1 and p_(k+1) = step(k, p_k, p_(k-1)), for every element's own n."""
    out = xp.where(n == 0, p0, p1)
    top = int(n.max(initial=0))
    prev, cur = p0, p1
    with xp.errstate(all="ignore"):
        for k in range(1, top):
            prev, cur = cur, step(k, cur, prev)
            out = xp.where(n == k + 1, cur, out)
    return out


def _prepare(x, n):
    """x as an array of its dtype, n truncated to integers, broadcast together."""
    x, n = xp.broadcast_arrays(xp.asarray(x), xp.asarray(n))
    with xp.errstate(invalid="ignore"):
        ni = xp.where(xp.isfinite(n), n, 0).astype(xp.int64)  # truncated, as C++'s cast
    return x, ni


def _parity(n, even, odd):
    return xp.where(n % 2 == 0, even, odd)


def _chebyshev_t(x, n):
    """T_n(x): T_0 = 1, T_1 = x, T_(k+1) = 2x T_k - T_(k-1); cos(n arccos x) for n > 6, |x| < 1"""
    x, n = _prepare(x, n)
    rec = _recurrence(x, n, xp.ones(x.shape, x.dtype), x, lambda k, q, p: (x + x) * q - p)
    with xp.errstate(invalid="ignore"):
        trig = xp.cos(n.astype(x.dtype) * xp.arccos(x))
    out = xp.where((n > 6) & (xp.abs(x) < 1), trig, rec)
    out = xp.where(xp.abs(x) == 1, xp.where((x > 0) | (n % 2 == 0), 1.0, -1.0), out)
    return xp.where(n < 0, 0.0, out)


def _chebyshev_u(x, n):
    """U_n(x): U_0 = 1, U_1 = 2x, U_(k+1) = 2x U_k - U_(k-1); sin((n+1)θ)/sin θ for n > 8"""
    x, n = _prepare(x, n)
    rec = _recurrence(x, n, xp.ones(x.shape, x.dtype), x + x, lambda k, q, p: (x + x) * q - p)
    n = n.astype(x.dtype)
    with xp.errstate(all="ignore"):
        theta = xp.arccos(x)
        s = xp.sin(theta)
        trig = xp.where(s != 0, xp.sin((n + 1) * theta) / s, (n + 1) * xp.cos((n + 1) * theta) / x)
    out = xp.where((n > 8) & (xp.abs(x) < 1), trig, rec)
    ends = xp.where((x > 0) | (n % 2 == 0), n + 1.0, -(n + 1.0))
    out = xp.where(xp.abs(x) == 1, ends, out)
    return xp.where(n < 0, 0.0, out)


def _chebyshev_v(x, n):
    """V_n(x): V_0 = 1, V_1 = 2x - 1, V_(k+1) = 2x V_k - V_(k-1); cos((n+½)θ)/cos(θ/2) for
    n > 8"""
    x, n = _prepare(x, n)
    rec = _recurrence(x, n, xp.ones(x.shape, x.dtype), x + x - 1, lambda k, q, p: (x + x) * q - p)
    n = n.astype(x.dtype)
    odd_end = _parity(n, n + n + 1.0, -(n + n + 1.0))
    with xp.errstate(all="ignore"):
        theta = xp.arccos(x)
        trig = xp.where(
            xp.sin(theta / 2) != 1, xp.cos((n + 0.5) * theta) / xp.cos(theta / 2), odd_end
        )
    out = xp.where((n > 8) & (xp.abs(x) < 1), trig, rec)
    out = xp.where(xp.abs(x) == 1, xp.where(x > 0, 1.0, odd_end), out)
    return xp.where(n < 0, 0.0, out)


def _chebyshev_w(x, n):
    """W_n(x): W_0 = 1, W_1 = 2x + 1, W_(k+1) = 2x W_k - W_(k-1); sin((n+½)θ)/sin(θ/2) for
    n > 8"""
    x, n = _prepare(x, n)
    rec = _recurrence(x, n, xp.ones(x.shape, x.dtype), x + x + 1, lambda k, q, p: (x + x) * q - p)
    n = n.astype(x.dtype)
    ends = xp.where(x > 0, n + n + 1.0, _parity(n, 1.0, -1.0))
    with xp.errstate(all="ignore"):
        theta = xp.arccos(x)
        trig = xp.where(xp.cos(theta / 2) != 1, xp.sin((n + 0.5) * theta) / xp.sin(theta / 2), ends)
    out = xp.where((n > 8) & (xp.abs(x) < 1), trig, rec)
    out = xp.where(xp.abs(x) == 1, ends, out)
    return xp.where(n < 0, 0.0, out)


def _shifted(kind):
    """The polynomial of the same kind at 2x - 1 (the ends 0 and 1 of [0, 1] map to ±1)."""

    def shifted(x, n):
        x = xp.asarray(x)
        return kind(x + x - 1, n)

    shifted.__doc__ = kind.__doc__.replace("(x)", "(2x - 1)", 1)
    return shifted


def _hermite_h(x, n):
    """H_n(x): H_0 = 1, H_1 = 2x, H_(k+1) = 2x H_k - 2k H_(k-1)"""
    x, n = _prepare(x, n)
    rec = _recurrence(
        x, n, xp.ones(x.shape, x.dtype), x + x, lambda k, q, p: (x + x) * q - 2 * k * p
    )
    return xp.where(n < 0, 0.0, rec)


def _hermite_he(x, n):
    """He_n(x): He_0 = 1, He_1 = x, He_(k+1) = x He_k - k He_(k-1)"""
    x, n = _prepare(x, n)
    rec = _recurrence(x, n, xp.ones(x.shape, x.dtype), x, lambda k, q, p: x * q - k * p)
    return xp.where(n < 0, 0.0, rec)


def _laguerre_l(x, n):
    """L_n(x): L_0 = 1, L_1 = 1 - x, (k+1) L_(k+1) = (2k + 1 - x) L_k - k L_(k-1); 1 at x = 0"""
    x, n = _prepare(x, n)
    rec = _recurrence(
        x,
        n,
        xp.ones(x.shape, x.dtype),
        1 - x,
        lambda k, q, p: ((k + k + (1 - x)) * q - k * p) / (k + 1),
    )
    rec = xp.where(x == 0, 1.0, rec)
    return xp.where(n < 0, 0.0, rec)


def _legendre_p(x, n):
    """P_n(x): P_0 = 1, P_1 = x, (k+1) P_(k+1) = (2k+1) x P_k - k P_(k-1); ±1 at x = ±1"""
    x, n = _prepare(x, n)
    rec = _recurrence(
        x, n, xp.ones(x.shape, x.dtype), x, lambda k, q, p: ((k + k + 1) * x * q - k * p) / (k + 1)
    )
    ends = xp.where(x > 0, 1.0, _parity(n, 1.0, -1.0))
    rec = xp.where(xp.abs(x) == 1, ends, rec)
    return xp.where(n < 0, 0.0, rec)


def _in_dtype(kernel):
    """The kernel run in the result dtype, as PyTorch's (float32 overflows as float32)."""

    def forward(x, n):
        ref = (x if hasattr(x, "dtype") else n).dtype
        x = xp.asarray(x, dtype=ref)
        return kernel(x, xp.asarray(n, dtype=ref)).astype(ref, copy=False)

    forward.__doc__ = kernel.__doc__
    return forward


def _polynomial(name: str, kernel) -> object:
    # (complex input: PyTorch's error names its CPU kernel, "hermite_polynomial_h_cpu")
    rule = special.double_kernels(name.removeprefix("special_") + "_cpu")
    return defop(name, _in_dtype(kernel), args=("x", "n"), dtypes=rule, vjp=(None, None))


chebyshev_polynomial_t = _polynomial("special_chebyshev_polynomial_t", _chebyshev_t)
chebyshev_polynomial_u = _polynomial("special_chebyshev_polynomial_u", _chebyshev_u)
chebyshev_polynomial_v = _polynomial("special_chebyshev_polynomial_v", _chebyshev_v)
chebyshev_polynomial_w = _polynomial("special_chebyshev_polynomial_w", _chebyshev_w)
shifted_chebyshev_polynomial_t = _polynomial(
    "special_shifted_chebyshev_polynomial_t", _shifted(_chebyshev_t)
)
shifted_chebyshev_polynomial_u = _polynomial(
    "special_shifted_chebyshev_polynomial_u", _shifted(_chebyshev_u)
)
shifted_chebyshev_polynomial_v = _polynomial(
    "special_shifted_chebyshev_polynomial_v", _shifted(_chebyshev_v)
)
shifted_chebyshev_polynomial_w = _polynomial(
    "special_shifted_chebyshev_polynomial_w", _shifted(_chebyshev_w)
)
hermite_polynomial_h = _polynomial("special_hermite_polynomial_h", _hermite_h)
hermite_polynomial_he = _polynomial("special_hermite_polynomial_he", _hermite_he)
laguerre_polynomial_l = _polynomial("special_laguerre_polynomial_l", _laguerre_l)
legendre_polynomial_p = _polynomial("special_legendre_polynomial_p", _legendre_p)
