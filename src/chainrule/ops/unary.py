"""Functions of one input: exponentials and logarithms, powers and roots,
trigonometric and hyperbolic functions, abs and sign, rounding, and the other elementwise
maps (nan_to_num, deg2rad, sinc).

The Jacobian of an elementwise op is diagonal: each JVP multiplies the tangent by the same
local derivative the VJP multiplies the gradient by. The comment beside the VJP gives that
derivative; the JVP's says "as the VJP"."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .. import _dtypes
from .._backend import REDUCED, xp
from .._promotion import result_type
from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd.recording import FLOAT, KEEP, array_of, defop, floating_only, no_bool, np_dtype
from . import arithmetic, complex_parts, copies, logical
from ._scratch import lined_up, scale_in_place, scale_into, writable

# ----- dtype rules for functions of real numbers (PyTorch's errors for complex input) ----------
# (here, the first of the pointwise families to be defined: arithmetic, binary, logical,
# special and activations use them too)


def _rule_after(rule, dtype, args, params):
    """What dtype rule ``rule`` gives for a real result type ``dtype``: the promoted dtype
    itself (None), the default float dtype for integers and bools (FLOAT), or its own."""
    if rule is None:
        return dtype
    if rule is FLOAT:
        return dtype if dtype._category == 2 else _dtypes.get_default_dtype()
    return rule(args, params)


def real_only(kernel: str, rule: Any = FLOAT) -> Callable:
    """A dtype rule for a function PyTorch has no complex kernel for: ``rule``'s (FLOAT by
    default, None for promotion), and PyTorch's NotImplementedError for a complex result
    type (``"erf_vml_cpu" not implemented for 'ComplexFloat'``)."""

    def checked(args, params):
        dtype = result_type(args)
        if dtype._category == 3:
            raise _dtypes.not_implemented(kernel, dtype)
        return _rule_after(rule, dtype, args, params)

    return checked


def no_complex(message: str, error: type = RuntimeError, rule: Any = None) -> Callable:
    """A dtype rule: ``rule``'s (promotion when None; FLOAT), and PyTorch's ``error`` with
    ``message`` for a complex result type ("maximum not implemented for complex tensors.")."""

    def checked(args, params):
        dtype = result_type(args)
        if dtype._category == 3:
            raise error(message)
        return _rule_after(rule, dtype, args, params)

    return checked


def no_complex_grad(name: str, rule: Any = None) -> Callable:
    """A dtype rule: ``rule``'s for real inputs (promotion when None); complex values
    PyTorch computes but refuses to differentiate: its RuntimeError when an input requires
    grad."""

    def checked(args, params):
        dtype = result_type(args)
        if dtype._category != 3:
            return _rule_after(rule, dtype, args, params)
        if grad_mode.is_grad_enabled() and any(
            isinstance(a, Tensor) and a._requires_grad for a in args
        ):
            raise RuntimeError(
                f"{name} does not support automatic differentiation for outputs with complex dtype."
            )
        return dtype

    return checked


# ----- exp, log, sin, cos, tanh, sqrt, sign, abs ---------------------------------------------

# For an elementwise op, the Jacobian is diagonal: the JVP multiplies the tangent by
# the same local derivative the VJP multiplies the gradient by.
exp = defop(
    "exp",
    xp.exp,
    doc="e^x",
    dtypes=FLOAT,
    vjp=lambda g, ans: g * ans,  # d/dx e^x = e^x
    jvp=lambda t, ans: t * ans,  # as the VJP
    complex="holomorphic",
)

log = defop(
    "log",
    xp.log,
    doc="ln x",
    dtypes=FLOAT,
    vjp=lambda g, x: g / x,  # d/dx ln x = 1/x
    jvp=lambda t, x: t / x,  # as the VJP
    complex="holomorphic",
)

sin = defop(
    "sin",
    xp.sin,
    doc="sin x",
    dtypes=FLOAT,
    vjp=lambda g, x: g * cos(x),  # d/dx sin x = cos x
    jvp=lambda t, x: t * cos(x),  # as the VJP
    complex="holomorphic",
)

cos = defop(
    "cos",
    xp.cos,
    doc="cos x",
    dtypes=FLOAT,
    vjp=lambda g, x: g * -sin(x),  # d/dx cos x = -sin x
    jvp=lambda t, x: t * -sin(x),  # as the VJP
    complex="holomorphic",
)


def _sech2(ans, out=None):
    """1 - ans², into ``out`` when given (arrays: a block of scale_in_place's)"""
    if out is None:
        return 1 - ans * ans
    xp.multiply(ans, ans, out=out)
    return xp.subtract(1, out, out=out)


def _tanh_vjp(g, ans):
    """d/dx tanh x = 1 - tanh² x

    (ans is tanh x) Multiplied into g's memory when g is private, else into a new array,
    block by block (ops/_scratch.py)."""
    if writable(g, ans):
        return scale_in_place(g, _sech2, ans)
    if lined_up(g, ans):
        return scale_into(xp.empty_like(g), g, _sech2, ans)
    return g * _sech2(ans)


tanh = defop(
    "tanh",
    xp.tanh,
    doc="tanh x",
    dtypes=FLOAT,
    vjp=_tanh_vjp,
    jvp=lambda t, ans: t * (1 - ans * ans),  # d/dx tanh x = 1 - tanh² x
    complex="holomorphic",
)

sqrt = defop(
    "sqrt",
    xp.sqrt,
    doc="√x",
    dtypes=FLOAT,
    vjp=lambda g, ans: g / (2 * ans),  # d/dx √x = 1/(2√x)
    jvp=lambda t, ans: t / (2 * ans),  # as the VJP
    conventions="At x = 0 the gradient is inf (g / 0), as in PyTorch.",
    complex="holomorphic",
)


def _sign(x):
    """-1, 0 or 1 by the sign of x; 0 for nan, as in PyTorch (a bool stays bool)"""
    if x.dtype is arithmetic.BOOL:
        return x.copy()
    if x.dtype.kind == "c":
        raise NotImplementedError(
            "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use "
            "torch.sgn instead."
        )
    out = xp.sign(x)
    if out.dtype.kind == "f":
        out = xp.where(out != out, xp.zeros((), out.dtype), out)
    return out


sign = defop(
    "sign",
    _sign,
    vjp=lambda g: copies.zero(g),  # d/dx sign x = 0 (almost everywhere)
    jvp=lambda t: copies.zero(t),  # as the VJP
)


def _abs_jvp(t, x):
    """t · sign x; Re(t · conj(sgn z)) for complex z"""
    if complex_parts.is_complex_value(x):
        return complex_parts.real(t * complex_parts.conj_physical(complex_parts.sgn(x)))
    return t * sign(x)


abs = defop(  # noqa: A001
    "abs",
    xp.abs,
    doc="|x|",
    dtypes=no_bool("\"abs_cpu\" not implemented for 'Bool'", NotImplementedError),
    complex="wirtinger",
    vjp=lambda g, x: g * complex_parts.sgn(x),  # d/dx |x| = sign x; ∇|z| = z/|z| for complex z
    jvp=_abs_jvp,
    conventions="abs'(0) = 0 (sign(0) = 0), and abs'(nan) = 0 (sign(nan) = 0, PyTorch's).",
)


_LN2 = math.log(2.0)

_LN10 = math.log(10.0)

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)

# PyTorch's names of its scalar types, as its "not implemented for 'Long'" errors print them


# ----- exponentials and logarithms ---------------------------------------------------

# Elementwise ops have diagonal Jacobians: each JVP multiplies the tangent by the same
# local derivative its VJP multiplies the gradient by.
exp2 = defop(
    "exp2",
    xp.exp2,
    doc="2^x",
    dtypes=FLOAT,
    vjp=lambda g, ans: g * (ans * _LN2),  # d/dx 2^x = 2^x ln 2
    jvp=lambda t, ans: t * (ans * _LN2),  # as the VJP
    complex="holomorphic",
)

expm1 = defop(
    "expm1",
    xp.expm1,
    doc="e^x - 1, accurate for x near 0",
    dtypes=FLOAT,
    # (e^x itself, not ans + 1: that cancels where ans is near -1, x below -2)
    vjp=lambda g, x: g * exp(x),  # d/dx (e^x - 1) = e^x
    jvp=lambda t, x: t * exp(x),  # as the VJP
    complex="holomorphic",
)

log2 = defop(
    "log2",
    xp.log2,
    doc="log2 x = ln x / ln 2",
    dtypes=FLOAT,
    vjp=lambda g, x: g / (x * _LN2),  # d/dx log2 x = 1 / (x ln 2)
    jvp=lambda t, x: t / (x * _LN2),  # as the VJP
    complex="holomorphic",
)

log10 = defop(
    "log10",
    xp.log10,
    doc="log10 x = ln x / ln 10",
    dtypes=FLOAT,
    vjp=lambda g, x: g / (x * _LN10),  # d/dx log10 x = 1 / (x ln 10)
    jvp=lambda t, x: t / (x * _LN10),  # as the VJP
    complex="holomorphic",
)

log1p = defop(
    "log1p",
    xp.log1p,
    doc="ln(1 + x), accurate for x near 0",
    dtypes=FLOAT,
    node="Log1PBackward0",
    vjp=lambda g, x: g / (x + 1),  # d/dx ln(1 + x) = 1 / (1 + x)
    jvp=lambda t, x: t / (x + 1),  # as the VJP
    complex="holomorphic",
)


def _rsqrt(x):
    """1 / √x"""
    return xp.reciprocal(xp.sqrt(x))


rsqrt = defop(
    "rsqrt",
    _rsqrt,
    dtypes=FLOAT,
    vjp=lambda g, ans: g * (ans * ans * ans * -0.5),  # d/dx x^(-1/2) = -x^(-3/2) / 2
    jvp=lambda t, ans: t * (ans * ans * ans * -0.5),  # as the VJP
    conventions="At x = 0 the gradient is -inf, as in PyTorch.",
    complex="holomorphic",
)

# ----- trigonometric and hyperbolic -------------------------------------------------------

tan = defop(
    "tan",
    xp.tan,
    doc="tan x",
    dtypes=FLOAT,
    vjp=lambda g, ans: g * (ans * ans + 1),  # d/dx tan x = 1 + tan² x
    jvp=lambda t, ans: t * (ans * ans + 1),  # as the VJP
    complex="holomorphic",
)

asin = defop(
    "asin",
    xp.arcsin,
    doc="asin x, the angle in [-π/2, π/2] whose sine is x",
    dtypes=FLOAT,
    vjp=lambda g, x: g * rsqrt(1 - x * x),  # d/dx asin x = 1 / √(1 - x²)
    jvp=lambda t, x: t * rsqrt(1 - x * x),  # as the VJP
    complex="holomorphic",
)

acos = defop(
    "acos",
    xp.arccos,
    doc="acos x, the angle in [0, π] whose cosine is x",
    dtypes=FLOAT,
    vjp=lambda g, x: g * -rsqrt(1 - x * x),  # d/dx acos x = -1 / √(1 - x²)
    jvp=lambda t, x: t * -rsqrt(1 - x * x),  # as the VJP
    complex="holomorphic",
)

atan = defop(
    "atan",
    xp.arctan,
    doc="atan x, the angle in (-π/2, π/2) whose tangent is x",
    dtypes=FLOAT,
    vjp=lambda g, x: g / (x * x + 1),  # d/dx atan x = 1 / (1 + x²)
    jvp=lambda t, x: t / (x * x + 1),  # as the VJP
    complex="holomorphic",
)

sinh = defop(
    "sinh",
    xp.sinh,
    doc="sinh x = (e^x - e^-x)/2",
    dtypes=FLOAT,
    vjp=lambda g, x: g * cosh(x),  # d/dx sinh x = cosh x
    jvp=lambda t, x: t * cosh(x),  # as the VJP
    complex="holomorphic",
)

cosh = defop(
    "cosh",
    xp.cosh,
    doc="cosh x = (e^x + e^-x)/2",
    dtypes=FLOAT,
    vjp=lambda g, x: g * sinh(x),  # d/dx cosh x = sinh x
    jvp=lambda t, x: t * sinh(x),  # as the VJP
    complex="holomorphic",
)

asinh = defop(
    "asinh",
    xp.arcsinh,
    doc="asinh x = ln(x + √(x² + 1))",
    dtypes=FLOAT,
    vjp=lambda g, x: g * rsqrt(x * x + 1),  # d/dx asinh x = 1 / √(x² + 1)
    jvp=lambda t, x: t * rsqrt(x * x + 1),  # as the VJP
    complex="holomorphic",
)


def _acosh_slope(x):
    """d/dx acosh x = 1 / √(x² - 1); for complex x, 1 / (√(x - 1) √(x + 1)), the
    derivative of the principal branch (√(x² - 1) takes the other sign for Re x < 0)"""
    if complex_parts.is_complex_value(x):
        return rsqrt(x - 1) * rsqrt(x + 1)
    return rsqrt(x * x - 1)


acosh = defop(
    "acosh",
    xp.arccosh,
    doc="acosh x = ln(x + √(x² - 1))",
    dtypes=FLOAT,
    vjp=lambda g, x: g * _acosh_slope(x),  # d/dx acosh x = 1 / √(x² - 1)
    jvp=lambda t, x: t * _acosh_slope(x),  # as the VJP
    complex="holomorphic",
)

atanh = defop(
    "atanh",
    xp.arctanh,
    doc="atanh x = ln((1 + x)/(1 - x))/2",
    dtypes=FLOAT,
    vjp=lambda g, x: g / (1 - x * x),  # d/dx atanh x = 1 / (1 - x²)
    jvp=lambda t, x: t / (1 - x * x),  # as the VJP
    complex="holomorphic",
)

# ----- rounding ------------------------------------------------------------------------


def _rounding_dtype(kernel: str):
    """Rounding keeps the dtype (integers are already whole); bool and complex are not
    implemented."""

    def rule(args, params):
        dtype = args[0]._dtype
        if dtype._category == 3:  # (PyTorch: floor, ceil and trunc by name, round its kernel)
            if kernel.startswith("round"):
                kernel_c = "round_cpu" if params.get("decimals") else kernel
                raise _dtypes.not_implemented(kernel_c, dtype)
            raise NotImplementedError(
                f"{kernel.partition('_')[0]} is not supported for complex inputs"
            )
        if "decimals" in params and dtype._category != 2:  # round(int, decimals=...) raises
            raise _dtypes.not_implemented("round_cpu" if params["decimals"] else kernel, dtype)
        if dtype._category == 0:
            raise _dtypes.not_implemented(kernel, dtype)
        return dtype

    return rule


def _whole(fn):
    def forward(x):
        return fn(x) if x.dtype.kind == "f" else x.copy()

    forward.__doc__ = f"{fn.__name__}(x); integer tensors are returned as a copy"
    return forward


_STEP = "The derivative is 0 everywhere, the jumps included (PyTorch's zeros_like(grad))."

floor = defop(
    "floor",
    _whole(xp.floor),
    dtypes=_rounding_dtype("floor_vml_cpu"),
    vjp=lambda g: copies.zero(g),  # d/dx ⌊x⌋ = 0 (almost everywhere)
    jvp=lambda t: copies.zero(t),  # as the VJP
    conventions=_STEP,
)

ceil = defop(
    "ceil",
    _whole(xp.ceil),
    dtypes=_rounding_dtype("ceil_vml_cpu"),
    vjp=lambda g: copies.zero(g),  # d/dx ⌈x⌉ = 0 (almost everywhere)
    jvp=lambda t: copies.zero(t),  # as the VJP
    conventions=_STEP,
)

trunc = defop(
    "trunc",
    _whole(xp.trunc),
    dtypes=_rounding_dtype("trunc_vml_cpu"),
    vjp=lambda g: copies.zero(g),  # d/dx trunc x = 0 (almost everywhere)
    jvp=lambda t: copies.zero(t),  # as the VJP
    conventions=_STEP,
)


def _round(x, decimals=0):
    """x rounded half to even, to ``decimals`` decimal places (negative: tens, hundreds)

    As PyTorch computes it, in x's dtype: rint(x * 10^d) / 10^d, or rint(x / 10^-d) * 10^-d.
    """
    if x.dtype.kind != "f":
        return x.copy()
    if decimals == 0:
        return xp.rint(x)
    scale = x.dtype.type(10.0 ** (decimals if decimals > 0 else -decimals))
    if decimals > 0:
        return xp.rint(x * scale) / scale
    return xp.rint(x / scale) * scale


round = defop(
    "round",
    _round,
    dtypes=_rounding_dtype("round_vml_cpu"),
    node=lambda x, **params: "RoundBackward1" if "decimals" in params else "RoundBackward0",
    vjp=lambda g: copies.zero(g),  # d/dx round(x) = 0 (almost everywhere)
    jvp=lambda t: copies.zero(t),  # as the VJP
    conventions=_STEP + " Ties round half to even.",
)


def _frac(x):
    """x - trunc(x): the fractional part, with x's sign"""
    return x - xp.trunc(x)


frac = defop(
    "frac",
    _frac,
    dtypes=floating_only("frac_cpu"),
    vjp=lambda g: g,  # d/dx (x - trunc x) = 1 (almost everywhere)
    jvp=lambda t: t,  # as the VJP
    conventions="The derivative is 1 everywhere, the jumps at integers included.",
)


def _nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """x with nan, +inf and -inf replaced (the infinities by the dtype's largest values);
    complex x: in each part"""
    if x.dtype.kind == "c":
        re, im = (xp.nan_to_num(p, nan=nan, posinf=posinf, neginf=neginf) for p in (x.real, x.imag))
        return complex_parts.complex_from_parts.forward(re, im)  # (no inf · i: no nan made)
    if x.dtype.kind != "f":
        if x.dtype in REDUCED:  # bfloat16: its own largest values, replacements rounded
            big = xp.finfo(x.dtype)
            posinf = float(big.max) if posinf is None else posinf
            neginf = float(big.min) if neginf is None else neginf
            wide = xp.nan_to_num(x.astype(xp.float32), nan=nan, posinf=posinf, neginf=neginf)
            return wide.astype(x.dtype)
        return x.copy()
    return xp.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


nan_to_num = defop(
    "nan_to_num",
    _nan_to_num,
    node="NanToNumBackward0",
    storage=True,  # (bfloat16 as it is: its largest values are not float32's)
    dtypes=no_complex_grad("nan_to_num"),
    vjp=lambda g, x: logical.select(
        logical.isfinite(x), g, 0
    ),  # d/dx = 1 where x is finite, else 0
    jvp=lambda t, x: logical.select(logical.isfinite(x), t, 0),  # as the VJP
    conventions="The gradient is 0 where x is nan or ±inf (the value was replaced).",
)

# ----- sgn, nan_to_num, degrees and radians, sinc ------------------------------------------


_DEG = math.pi / 180.0


def _deg2rad(x):
    """x · π/180"""
    return x * x.dtype.type(_DEG)


def _rad2deg(x):
    """x · 180/π"""
    return x * x.dtype.type(1 / _DEG)


deg2rad = defop(
    "deg2rad",
    _deg2rad,
    dtypes=no_complex("deg2rad is not supported for complex tensors.", rule=FLOAT),
    node="Deg2RadBackward0",
    vjp=lambda g: g * _DEG,  # d/dx (π/180) x = π/180
    jvp=lambda t: t * _DEG,  # as the VJP
)

rad2deg = defop(
    "rad2deg",
    _rad2deg,
    dtypes=no_complex("rad2deg is not supported for complex tensors.", rule=FLOAT),
    node="Rad2DegBackward0",
    vjp=lambda g: g * (1 / _DEG),  # d/dx (180/π) x = 180/π
    jvp=lambda t: t * (1 / _DEG),  # as the VJP
)


def _sinc(x):
    """sin(πx) / (πx), 1 at x = 0"""
    px = x * x.dtype.type(math.pi)
    return xp.where(x == 0, xp.ones_like(px), xp.sin(px) / xp.where(x == 0, 1, px))


# f(u) = (u cos u - sin u)/u² = Σ_{k≥1} (-1)^k 2k u^(2k-1)/(2k+1)!: its coefficients of u^(2k-1),
# for |u| < 1, where the closed form cancels (and πx² underflows for tiny x)
_SINC_SERIES = tuple((-1) ** k * 2 * k / math.factorial(2 * k + 1) for k in range(1, 11))


def _sinc_vjp(g, x):
    """d/dx sin(πx)/(πx) = π f(πx), f(u) = (u cos u - sin u)/u², 0 at x = 0; by f's Taylor
    series -u/3 + u³/30 - ... where |πx| < 1 (the closed form cancels there)

    (u = 1 stands in for the closed form where the series is used, so no 0/0 reaches a
    higher derivative.)"""
    u = x * math.pi
    small = abs(array_of(u)) < 1
    safe = logical.select(small, 1.0, u)
    closed = (safe * cos(safe) - sin(safe)) / (safe * safe)
    u_small = logical.select(small, u, 0.0)
    u2 = u_small * u_small
    series = _SINC_SERIES[-1]
    for c in reversed(_SINC_SERIES[:-1]):
        series = series * u2 + c
    return g * (logical.select(small, series * u_small, closed) * math.pi)


sinc = defop(
    "sinc",
    _sinc,
    dtypes=FLOAT,
    vjp=_sinc_vjp,
    jvp=_sinc_vjp,
    conventions="sinc'(0) = 0.",
    complex="holomorphic",
)


# ----- conf2: frexp ---------------------------------------------------------------------


def _frexp(x):
    """m with x = m · 2^e, 0.5 <= |m| < 1 (m = x for 0, ±inf and nan); the exponent e is
    ``frexp_exponent``"""
    if x.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return xp.frexp(x)[0]


def frexp_exponent(x):
    """e with x = m · 2^e (an int32 array; 0 for 0, ±inf and nan): no gradient"""
    return xp.frexp(x)[1].astype(xp.int32)


def _frexp_scale(x):
    """2^-e, e the exponent of x: the constant slope of x ↦ m on each binade"""
    exponent = xp.frexp(array_of(x))[1]
    with xp.errstate(over="ignore"):  # 2^1074 for subnormals: inf, as PyTorch's
        return xp.ldexp(xp.ones((), dtype=np_dtype(x)), -exponent)


frexp = defop(
    "frexp",
    _frexp,
    dtypes=KEEP,
    vjp=lambda g, x: g * _frexp_scale(x),  # ∂m/∂x = 2^-e (e piecewise constant)
    jvp=lambda t, x: t * _frexp_scale(x),  # as the VJP
)
