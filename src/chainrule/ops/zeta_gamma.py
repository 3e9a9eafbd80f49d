"""Hurwitz's zeta function, the regularized incomplete gamma functions P(a, x) and Q(a, x)
(``igamma``/``igammac``, ``special.gammainc``/``gammaincc``) and the multivariate
log-gamma function (``mvlgamma``, ``special.multigammaln``).

The forwards run in float64 and are cast to the result dtype, elementwise with PyTorch's
special values. ζ(x, q) sums its first terms and adds the Euler-Maclaurin tail (Cephes'
method); P and Q use the power series of P, the continued fraction of Q and, for small x,
the series of Q (the methods of Cephes' ``igam.c``), with the prefactor x^a e^-x / Γ(a)
taken from Stirling's series so it keeps its accuracy for large a. Near x ≈ a for large a,
where PyTorch switches to Temme's uniform expansion, the series and continued fraction run
longer (about √a terms) and are accurate to ~1e-13.

PyTorch differentiates ζ(x, q) only in q, and P, Q only in x (and has no forward mode for
either): the other input raises its NotImplementedError.
"""

from __future__ import annotations

import math
from fractions import Fraction

from .._backend import xp
from ..autograd.recording import defop, floating_only, no_forward_ad
from . import special, unary

_EPS = 2.0**-53  # the unit roundoff: a term below it relative to the sum changes nothing


def _f64(x):
    return xp.asarray(x, dtype=xp.float64)


def _torch_no_derivative(name: str):
    """The VJP of an input PyTorch has no derivative for: its NotImplementedError."""

    def vjp(g):
        """No derivative: raises PyTorch's NotImplementedError."""
        raise NotImplementedError(f"the derivative for '{name}' is not implemented.")

    return vjp


# ----- Hurwitz zeta ---------------------------------------------------------------------------

_B2K = [Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30), Fraction(5, 66)]
_B2K += [Fraction(-691, 2730), Fraction(7, 6), Fraction(-3617, 510), Fraction(43867, 798)]
_B2K += [Fraction(-174611, 330), Fraction(854513, 138), Fraction(-236364091, 2730)]
# (2k)! / B_2k, k = 1..12: the Euler-Maclaurin denominators
_EM = tuple(float(math.factorial(2 * k + 2) / b) for k, b in enumerate(_B2K))


def _zeta64(x, q):
    """ζ(x, q) = Σ_{k >= 0} (k + q)^-x in float64, by Euler-Maclaurin (Cephes' zeta)."""
    x, q = xp.broadcast_arrays(_f64(x), _f64(q))
    with xp.errstate(all="ignore"):
        s = xp.power(q, -x)
        a = q.copy()
        b = xp.zeros(s.shape)
        done = xp.zeros(s.shape, dtype=bool)
        # (the direct sum's length is set by the q it is needed for: not a pole's or a nan
        # result's, as q = -1e300 is, whose 1e300 steps would never end)
        pole = (x == 1.0) | ((q <= 0) & (q == xp.floor(q)))
        bad = (x < 1.0) | ((q <= 0) & (q != xp.floor(q)) & (x != xp.floor(x)))
        finite_q = xp.where(xp.isfinite(q) & ~pole & ~bad & ~xp.isnan(x), q, 0.0)
        steps = int(max(9, math.ceil(9 - float(finite_q.min(initial=9.0))) + 1))
        for i in range(1, steps + 1):  # direct sum until 9 terms and q + n > 9
            active = ~done & ((i <= 9) | (a <= 9.0))
            a = xp.where(active, a + 1.0, a)
            b = xp.where(active, xp.power(a, -x), b)
            s = xp.where(active, s + b, s)
            done = done | (active & (xp.abs(b / s) < _EPS))
            done = done | ~active
        tail = ~(xp.abs(b / s) < _EPS)  # not converged by the direct sum: add the tail
        w = a
        s = xp.where(tail, s + b * w / (x - 1.0) - 0.5 * b, s)
        fac = xp.ones(s.shape)
        k = 0.0
        open_ = tail.copy()
        for em in _EM:  # Σ B_2k/(2k)! x(x+1)...(x+2k-2) / w^(x+2k-1)
            fac = fac * (x + k)
            b = b / w
            t = fac * b / em
            s = xp.where(open_, s + t, s)
            open_ = open_ & ~(xp.abs(t / s) < _EPS)
            k += 1.0
            fac = fac * (x + k)
            b = b / w
            k += 1.0
    out = xp.where(pole, xp.inf, s)
    return xp.where(bad & ~(x == 1.0), xp.nan, out)


def _zeta(x, q):
    """ζ(x, q) = Σ_{k >= 0} (k + q)^-x, Hurwitz's zeta function (nan for x < 1)"""
    ref = x if hasattr(x, "dtype") else q
    return _zeta64(x, q).astype(ref.dtype)


def _zeta_node(x, q):
    if not hasattr(x, "shape"):
        return "SpecialZetaBackward1"
    return "SpecialZetaBackward0" if hasattr(q, "shape") else "SpecialZetaBackward2"


zeta = defop(
    "special_zeta",
    _zeta,
    args=("x", "q"),
    dtypes=special.double_kernels("zeta_cpu"),
    node=_zeta_node,
    vjp=(
        _torch_no_derivative("zeta"),
        lambda g, x, q: g * (-x * zeta(x + 1.0, q)),  # ∂/∂q ζ(x, q) = -x ζ(x + 1, q)
    ),
    jvp=(no_forward_ad("special_zeta"), no_forward_ad("special_zeta")),
    conventions="No derivative in x and no forward mode (PyTorch has neither).",
)

# ----- the regularized incomplete gamma functions -----------------------------------------

_LN_SQRT_2PI = 0.5 * math.log(2 * math.pi)
# lgamma(1 + a) = -γa + Σ_{k>=2} (-1)^k ζ(k) a^k / k for |a| <= 1/2: ζ(k) - 1 from _zeta64
_EULER = 0.57721566490153286061
_ZETA_K = tuple(float(v) for v in _zeta64(xp.arange(2.0, 60.0), 2.0))  # ζ(k) - 1


def _lgam1p(a):
    """ln Γ(1 + a), accurate for small a (a Taylor series where |a| <= 1/2)."""
    a = _f64(a)
    small = xp.abs(a) <= 0.5
    s = xp.where(small, a, 0.0)
    acc = xp.zeros(a.shape)
    for k in range(len(_ZETA_K) + 1, 1, -1):  # from the smallest term
        acc = acc * s + (-1.0) ** k * (_ZETA_K[k - 2] + 1.0) / k
    taylor = (acc * s - _EULER) * s
    rest = special._lgamma(1.0 + xp.where(small, 2.0, a))  # (2.0: a placeholder, unused)
    return xp.where(small, taylor, rest)


def _log1pmx(t):
    """ln(1 + t) - t, accurate for small t (its series below |t| = 1/2)."""
    small = xp.abs(t) < 0.5
    s = xp.where(small, t, 0.0)
    acc = xp.zeros(t.shape)
    for k in range(60, 1, -1):
        acc = acc * s + (-1.0) ** (k + 1) / k
    with xp.errstate(all="ignore"):
        direct = xp.log1p(t) - t
    return xp.where(small, acc * s * s, direct)


def _stirling_correction(a):
    """ln Γ(a) - ((a - 1/2) ln a - a + ln √(2π)), by its series in 1/a (a >= 10)."""
    inv = 1.0 / a
    inv2 = inv * inv
    acc = xp.zeros(a.shape)
    for k in range(len(_B2K), 0, -1):
        acc = acc * inv2 + float(_B2K[k - 1]) / (2 * k * (2 * k - 1))
    return acc * inv


def _igam_fac(a, x):
    """x^a e^-x / Γ(a); for a >= 10 through Stirling's series, a ln(x/a) + a - x taken as
    a (ln(1 + t) - t), t = (x - a)/a, where x is near a."""
    with xp.errstate(all="ignore"):
        direct = xp.exp(a * xp.log(x) - x - special._lgamma(a))
        big = a >= 10
        ab = xp.where(big, a, 10.0)
        t = (x - ab) / ab
        near = xp.abs(t) < 0.5
        exponent = xp.where(
            near, ab * _log1pmx(xp.where(near, t, 0.0)), ab * xp.log(x / ab) - (x - ab)
        )
        stirling = xp.sqrt(ab) * xp.exp(exponent - _stirling_correction(ab) - _LN_SQRT_2PI)
    return xp.where(big, stirling, direct)


_MAX_TERMS = 100000


def _p_series(a, x):
    """P(a, x) = x^a e^-x / Γ(a + 1) Σ x^n / ((a + 1) ... (a + n))."""
    r = a.copy()
    c = xp.ones(a.shape)
    total = xp.ones(a.shape)
    open_ = xp.ones(a.shape, dtype=bool)
    with xp.errstate(all="ignore"):
        for n in range(_MAX_TERMS):
            r = r + 1.0
            c = xp.where(open_, c * x / r, 0.0)
            total = total + c
            open_ = open_ & (c > _EPS * total)
            if n % 32 == 31 and not open_.any():
                break
        return total * _igam_fac(a, x) / a


def _q_continued_fraction(a, x):
    """Q(a, x) = x^a e^-x / Γ(a) times Legendre's continued fraction 1/(x + 1 - a - ...)."""
    with xp.errstate(all="ignore"):
        y = 1.0 - a
        z = x + y + 1.0
        c = xp.zeros(a.shape)
        pkm2 = xp.ones(a.shape)
        qkm2 = x.copy()
        pkm1 = x + 1.0
        qkm1 = z * x
        ans = pkm1 / qkm1
        open_ = xp.ones(a.shape, dtype=bool)
        big, biginv = 2.0**52, 2.0**-52
        for n in range(_MAX_TERMS):
            c = c + 1.0
            y = y + 1.0
            z = z + 2.0
            yc = y * c
            pk = pkm1 * z - pkm2 * yc
            qk = qkm1 * z - qkm2 * yc
            ok = qk != 0
            r = pk / xp.where(ok, qk, 1.0)
            t = xp.where(ok, xp.abs((ans - r) / r), 1.0)
            ans = xp.where(open_ & ok, r, ans)
            open_ = open_ & ~(t <= _EPS)
            pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
            rescale = xp.abs(pk) > big
            pkm2 = xp.where(rescale, pkm2 * biginv, pkm2)
            pkm1 = xp.where(rescale, pkm1 * biginv, pkm1)
            qkm2 = xp.where(rescale, qkm2 * biginv, qkm2)
            qkm1 = xp.where(rescale, qkm1 * biginv, qkm1)
            if n % 32 == 31 and not open_.any():
                break
        return ans * _igam_fac(a, x)


def _q_series(a, x):
    """Q(a, x) for small x: 1 - x^a/Γ(a + 1) + x^a/Γ(a) Σ_{n>=1} (-x)^n / (n! (a + n))."""
    fac = xp.ones(a.shape)
    total = xp.zeros(a.shape)
    open_ = xp.ones(a.shape, dtype=bool)
    with xp.errstate(all="ignore"):
        for n in range(1, 2000):
            fac = fac * -x / n
            term = fac / (a + n)
            total = xp.where(open_, total + term, total)
            open_ = open_ & ~(xp.abs(term) <= _EPS * xp.abs(total))
            if n % 32 == 31 and not open_.any():
                break
        logx = xp.log(x)
        head = -xp.expm1(a * logx - _lgam1p(a))
        return head - xp.exp(a * logx - special._lgamma(a)) * total


_TEMME_A = 1e8  # (above it the series and fraction need too many terms; Temme's two are exact)


def _igamma_temme(a, x):
    """(P, Q) for large a by Temme's uniform expansion: Q = erfc(η √(a/2))/2 + R, P = 1 - Q
    (the erfc of -η for P), R = e^(-aη²/2)/√(2πa) (C0(η) + C1(η)/a), λ = x/a,
    η = sign(λ - 1) √(2(λ - 1 - ln λ)); the error, O(1/a²), is below double precision."""
    with xp.errstate(all="ignore"):
        d = x / a - 1.0
        eta = xp.sign(d) * xp.sqrt(-2.0 * _log1pmx(d))
        small = xp.abs(eta) < 1e-3
        e = xp.where(small, 1.0, eta)
        dd = xp.where(small, 1.0, d)
        c0 = xp.where(small, -1 / 3 + eta / 12 - 2 * eta**2 / 135 + eta**3 / 864, 1 / dd - 1 / e)
        c1 = xp.where(
            small,
            -1 / 540 - eta / 288 + eta**2 / 378,
            1 / e**3 - 1 / dd**3 - 1 / dd**2 - 1 / (12 * dd),
        )
        r = xp.exp(-a * eta * eta / 2) / xp.sqrt(2 * math.pi * a) * (c0 + c1 / a)
        root = eta * xp.sqrt(a / 2)
        return special._erfc64(-root) / 2 - r, special._erfc64(root) / 2 + r


def _igamma_pq(a, x):
    """(P(a, x), Q(a, x)) in float64, each computed where it is the accurate one."""
    a, x = xp.broadcast_arrays(_f64(a), _f64(x))
    p = xp.full(a.shape, xp.nan)
    q = xp.full(a.shape, xp.nan)
    regular = (a > 0) & (x > 0) & xp.isfinite(a) & xp.isfinite(x)
    aa, xx = a[regular], x[regular]
    pp = xp.empty(aa.shape)
    qq = xp.empty(aa.shape)
    # P by its series where x <= max(1, a) (Q = 1 - P); elsewhere Q by its continued
    # fraction (x > 1.1) or its small-x series, and P = 1 - Q
    temme = aa > _TEMME_A
    with xp.errstate(all="ignore"):  # x^a e^-x / Γ(a) below the smallest double: Q is 0
        gone = ~temme & (xx > aa) & (aa * xp.log(xx) - xx - special._lgamma(aa) < -800)
    use_p = ~temme & ~gone & ((xx <= 1.0) | (xx <= aa))
    small_x_q = ~temme & ~gone & ~use_p & (xx <= 1.1)
    cf = ~temme & ~gone & ~use_p & ~small_x_q
    if temme.any():
        pp[temme], qq[temme] = _igamma_temme(aa[temme], xx[temme])
    pp[gone], qq[gone] = 1.0, 0.0
    if use_p.any():
        pp[use_p] = _p_series(aa[use_p], xx[use_p])
        qq[use_p] = 1.0 - pp[use_p]
        # where P is near 1 its complement loses digits: Q directly where the methods allow
        near_one = use_p & (pp > 0.9) & (xx > 1.1)
        if near_one.any():
            qq[near_one] = _q_continued_fraction(aa[near_one], xx[near_one])
        tiny_x = use_p & (pp > 0.9) & (xx <= 1.1)
        if tiny_x.any():
            qq[tiny_x] = _q_series(aa[tiny_x], xx[tiny_x])
    if small_x_q.any():
        qq[small_x_q] = _q_series(aa[small_x_q], xx[small_x_q])
        pp[small_x_q] = 1.0 - qq[small_x_q]
    if cf.any():
        qq[cf] = _q_continued_fraction(aa[cf], xx[cf])
        pp[cf] = 1.0 - qq[cf]
    p[regular] = pp
    q[regular] = qq
    # PyTorch's special values, its tests in its order (so a nan a with x = 0 gives P = 0)
    nan = xp.nan
    for where, pv, qv in reversed(
        (
            ((x < 0) | (a < 0), nan, nan),
            (a == 0, xp.where(x > 0, 1.0, nan), xp.where(x > 0, 0.0, nan)),
            (x == 0, 0.0, 1.0),
            (xp.isinf(a), xp.where(xp.isinf(x), nan, 0.0), xp.where(xp.isinf(x), nan, 1.0)),
            (xp.isinf(x), 1.0, 0.0),
        )
    ):
        p = xp.where(where, pv, p)
        q = xp.where(where, qv, q)
    return p, q


def _igamma(a, x):
    """P(a, x) = γ(a, x)/Γ(a) = 1/Γ(a) ∫₀ˣ t^(a-1) e^-t dt, the regularized lower incomplete
    gamma function"""
    return _igamma_pq(a, x)[0].astype(a.dtype)


def _igammac(a, x):
    """Q(a, x) = 1 - P(a, x) = 1/Γ(a) ∫ₓ^∞ t^(a-1) e^-t dt"""
    return _igamma_pq(a, x)[1].astype(a.dtype)


def _igamma_dx(g, a, x):
    """∂/∂x P(a, x) = x^(a-1) e^-x / Γ(a)"""
    return g * unary.exp((a - 1) * unary.log(x) - x - special.lgamma(a))


igamma = defop(
    "igamma",
    _igamma,
    args=("a", "x"),
    dtypes=floating_only("igamma_cpu"),
    vjp=(_torch_no_derivative("igamma: input"), _igamma_dx),
    jvp=(no_forward_ad("igamma"), no_forward_ad("igamma")),
    conventions="No derivative in a and no forward mode (PyTorch has neither).",
)

igammac = defop(
    "igammac",
    _igammac,
    args=("a", "x"),
    dtypes=floating_only("igammac_cpu"),
    vjp=(
        _torch_no_derivative("igammac: input"),
        lambda g, a, x: -_igamma_dx(g, a, x),  # ∂/∂x Q(a, x) = -x^(a-1) e^-x / Γ(a)
    ),
    jvp=(no_forward_ad("igammac"), no_forward_ad("igammac")),
    conventions="No derivative in a and no forward mode (PyTorch has neither).",
)

# ----- the multivariate log-gamma function ---------------------------------------------------


def _mvlgamma(x, p=1):
    """ln Γ_p(x) = p(p - 1)/4 ln π + Σ_{j<p} ln Γ(x - j/2)"""
    x64 = _f64(x)
    total = xp.full(x64.shape, p * (p - 1) / 4 * math.log(math.pi))
    for j in range(p):
        total = total + special._lgamma(x64 - j / 2)
    return total.astype(x.dtype)


def _mvlgamma_grad(g, x, p):
    """d/dx ln Γ_p(x) = Σ_{j<p} ψ(x - j/2)"""
    total = special.digamma(x)
    for j in range(1, p):
        total = total + special.digamma(x - j / 2)
    return g * total


mvlgamma = defop(
    "mvlgamma",
    _mvlgamma,
    dtypes=unary.real_only("arange_cpu"),  # (PyTorch's error names the arange it builds)
    vjp=_mvlgamma_grad,
    jvp=_mvlgamma_grad,
)
