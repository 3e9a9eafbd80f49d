"""binary: TODO docstring."""

from __future__ import annotations

import math

from .._backend import xp
from .._dtypes import float16
from .._promotion import result_type
from .._tensor import Tensor
from ..autograd.recording import FLOAT, KEEP, defop, floating_only, not_differentiable
from . import activations, arithmetic, copies, logical, unary

# ----- clamping -------------------------------------------------------------------------


def _clamp(x, lo=None, hi=None):
    """min(max(x, lo), hi), a bound left out when None; lo > hi gives hi, as in PyTorch"""
    if x.dtype is arithmetic.F16:  # (float tensors skip the dtype rule, which checks the rest)
        arithmetic.check_scalar_fits(lo, float16)
        arithmetic.check_scalar_fits(hi, float16)
    lo, hi = arithmetic.wrap_int(lo, x), arithmetic.wrap_int(hi, x)
    if lo is not None:
        x = xp.maximum(x, lo)
    if hi is not None:
        x = xp.minimum(x, hi)
    return x


def _inside(x, lo, hi):
    """lo <= x <= hi, a missing bound always satisfied: where the gradient passes."""
    if lo is None:
        return x <= hi
    if hi is None:
        return x >= lo
    return logical.logical_and_op(x >= lo, x <= hi)


def _clamp_scalar(x, min=None, max=None):  # noqa: A002
    """min(max(x, min), max) with Python-number bounds"""
    return _clamp(x, min, max)


_CLAMP = (
    "The gradient passes where min <= x <= max, at the bounds themselves included "
    "(PyTorch's convention); it is 0 everywhere when min > max."
)


def _clamp_scalar_dtype(args, params):
    """Promotion of input and bounds; PyTorch has no kernel for bool."""
    lo, hi = params.get("min"), params.get("max")
    dtype = result_type((args[0], lo, hi))
    arithmetic.check_scalar_fits(lo, dtype)
    arithmetic.check_scalar_fits(hi, dtype)
    if dtype._category == 0:
        kernel = "clamp_max_scalar_cpu" if lo is None else "clamp_min_scalar_cpu"
        raise unary._not_implemented(
            "clamp_scalar_cpu" if lo is not None and hi is not None else kernel, dtype
        )
    return dtype


clamp_scalar = defop(
    "clamp",
    _clamp_scalar,
    node="ClampBackward1",
    dtypes=_clamp_scalar_dtype,
    vjp=lambda g, x, min, max: unary._where(
        _inside(x, min, max), g, 0
    ),  # d/dx clamp = [min ≤ x ≤ max]
    jvp=lambda t, x, min, max: unary._where(_inside(x, min, max), t, 0),
    conventions=_CLAMP,
)


def _clamp_lo_vjp(g, x, lo, hi):
    # d/dlo clamp = [x < lo] (and lo < hi when both bounds are given)
    if hi is None:
        return unary._where(x < lo, g, 0)
    return unary._where(logical.logical_and_op(x < lo, lo < hi), g, 0)


def _clamp_hi_vjp(g, x, lo, hi):
    # d/dhi clamp = [x > hi] (or hi < lo: then the result is hi everywhere)
    if lo is None:
        return unary._where(x > hi, g, 0)
    return unary._where(logical.logical_or_op(x > hi, hi < lo), g, 0)


# Forward mode follows PyTorch's clamp_jvp, which differs from backward at ties: with one
# tensor bound, x = lo takes lo's tangent and x = hi takes hi's; with both, x < lo = hi
# takes lo's tangent (where backward gives no input a gradient).
def _clamp_x_jvp(t, x, lo, hi):
    if lo is None:
        return unary._where(x < hi, t, 0)
    if hi is None:
        return unary._where(x > lo, t, 0)
    return unary._where(_inside(x, lo, hi), t, 0)


def _clamp_lo_jvp(t, x, lo, hi):
    if hi is None:
        return unary._where(x > lo, 0, t)
    return unary._where(logical.logical_and_op(x < lo, lo <= hi), t, 0)


def _clamp_hi_jvp(t, x, lo, hi):
    if lo is None:
        return unary._where(x < hi, 0, t)
    return unary._where(
        logical.logical_or_op(lo > hi, logical.logical_and_op(x >= lo, x > hi)), t, 0
    )


clamp_tensor = defop(
    "clamp_tensor",
    _clamp,
    args=("x", "lo", "hi"),
    node="ClampBackward0",
    vjp=(
        lambda g, x, lo, hi: unary._where(_inside(x, lo, hi), g, 0),  # d/dx = [lo ≤ x ≤ hi]
        _clamp_lo_vjp,
        _clamp_hi_vjp,
    ),
    jvp=(_clamp_x_jvp, _clamp_lo_jvp, _clamp_hi_jvp),
    conventions=_CLAMP + " A bound gets the gradient where it is the result: x < lo < hi "
    "for lo, x > hi or hi < lo for hi (at lo = hi > x, no input gets it, as in PyTorch).",
)


def _nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """x with nan, +inf and -inf replaced (the infinities by the dtype's largest values)"""
    if x.dtype.kind != "f":
        return x.copy()
    return xp.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


nan_to_num_op = defop(
    "nan_to_num",
    _nan_to_num,
    node="NanToNumBackward0",
    vjp=lambda g, x: unary._where(
        logical.isfinite_op(x), g, 0
    ),  # d/dx = 1 where x is finite, else 0
    jvp=lambda t, x: unary._where(logical.isfinite_op(x), t, 0),
    conventions="The gradient is 0 where x is nan or ±inf (the value was replaced).",
)

# ----- maximum and minimum ----------------------------------------------------------------

_TIES = (
    "Where a = b the gradient is split, g/2 to each; where one is nan, both get g "
    "(PyTorch's masks compare false)."
)

maximum_op = defop(
    "maximum",
    xp.maximum,
    args=("a", "b"),
    vjp=(
        lambda g, a, b: unary._where(
            a == b, g / 2, unary._where(a < b, 0, g)
        ),  # d/da max = [a > b]
        lambda g, a, b: unary._where(
            a == b, g / 2, unary._where(a > b, 0, g)
        ),  # d/db max = [b > a]
    ),
    # PyTorch: other_t + where(a == b, 1/2, a > b) (self_t - other_t)
    jvp=(
        lambda t, a, b: unary._where(a == b, t / 2, unary._where(a > b, t, 0)),
        lambda t, a, b: unary._where(a == b, t / 2, unary._where(a > b, 0, t)),
    ),
    conventions=_TIES + " Forward mode: a nan takes b's tangent.",
)

minimum_op = defop(
    "minimum",
    xp.minimum,
    args=("a", "b"),
    vjp=(
        lambda g, a, b: unary._where(
            a == b, g / 2, unary._where(a > b, 0, g)
        ),  # d/da min = [a < b]
        lambda g, a, b: unary._where(
            a == b, g / 2, unary._where(a < b, 0, g)
        ),  # d/db min = [b < a]
    ),
    jvp=(
        lambda t, a, b: unary._where(a == b, t / 2, unary._where(a < b, t, 0)),
        lambda t, a, b: unary._where(a == b, t / 2, unary._where(a < b, 0, t)),
    ),
    conventions=_TIES + " Forward mode: a nan takes b's tangent.",
)


def _fmax_picks_a(a, b):
    # backward: a where a >= b or b is nan (ties go to a)
    return logical.logical_or_op(a >= b, logical.isnan_op(b))


def _fmin_picks_a(a, b):
    return logical.logical_or_op(a <= b, logical.isnan_op(b))


def _fmax_jvp_picks_a(a, b):
    # PyTorch's forward formula: a where a > b or b is nan (ties go to b)
    return logical.logical_or_op(a > b, logical.isnan_op(b))


fmax_op = defop(
    "fmax",
    xp.fmax,
    args=("a", "b"),
    vjp=(
        lambda g, a, b: unary._where(_fmax_picks_a(a, b), g, 0),  # d/da fmax = [a ≥ b or b is nan]
        lambda g, a, b: unary._where(_fmax_picks_a(a, b), 0, g),  # d/db fmax = the rest
    ),
    jvp=(
        lambda t, a, b: unary._where(_fmax_jvp_picks_a(a, b), t, 0),
        lambda t, a, b: unary._where(_fmax_jvp_picks_a(a, b), 0, t),
    ),
    conventions="nan is ignored (the other input gets the gradient). Ties: the whole "
    "gradient goes to a; in forward mode the tangent is b's (PyTorch's formulas).",
)

fmin_op = defop(
    "fmin",
    xp.fmin,
    args=("a", "b"),
    vjp=(
        lambda g, a, b: unary._where(_fmin_picks_a(a, b), g, 0),  # d/da fmin = [a ≤ b or b is nan]
        lambda g, a, b: unary._where(_fmin_picks_a(a, b), 0, g),  # d/db fmin = the rest
    ),
    jvp=(
        lambda t, a, b: unary._where(_fmin_picks_a(a, b), t, 0),
        lambda t, a, b: unary._where(_fmin_picks_a(a, b), 0, t),
    ),
    conventions="nan is ignored (the other input gets the gradient). Ties: the whole "
    "gradient (and tangent) goes to a.",
)

# ----- atan2, hypot, lerp ------------------------------------------------------------


def _atan2_a(g, a, b):
    # d/da atan2(a, b) = b / (a² + b²)
    return g * (b / (a * a + b * b))


def _atan2_b(g, a, b):
    # d/db atan2(a, b) = -a / (a² + b²)   (negated last: a may be a bool)
    return -(g * (a / (a * a + b * b)))


atan2_op = defop(
    "atan2",
    xp.arctan2,
    args=("a", "b"),
    dtypes=FLOAT,
    vjp=(_atan2_a, _atan2_b),
    jvp=(_atan2_a, _atan2_b),  # elementwise: VJP and JVP coincide
    conventions="At a = b = 0 the gradient is nan (0/0), as in PyTorch.",
)

hypot_op = defop(
    "hypot",
    xp.hypot,
    args=("a", "b"),
    dtypes=floating_only("hypot_cpu"),
    vjp=(
        lambda g, a, ans: g * (a / ans),  # d/da √(a² + b²) = a / hypot
        lambda g, b, ans: g * (b / ans),  # d/db √(a² + b²) = b / hypot
    ),
    jvp=(lambda t, a, ans: t * (a / ans), lambda t, b, ans: t * (b / ans)),
    conventions="At a = b = 0 the gradient is nan (0/0), as in PyTorch.",
)


def _lerp(start, end, weight):
    """start + weight (end - start), as PyTorch evaluates it: from end when |weight| >= 1/2"""
    diff = end - start
    return xp.where(xp.abs(weight) < 0.5, start + weight * diff, end - diff * (1 - weight))


def _lerp_dtype(args, params):
    start, end, weight = args
    dtype = start._dtype
    if dtype._category != 2:
        kind = "tensor" if isinstance(weight, Tensor) else "scalar"
        raise unary._not_implemented(f"lerp_kernel_{kind}", dtype)
    for name, v in (("end", end), ("weight", weight)):
        if isinstance(v, Tensor) and v._dtype is not dtype and (name == "end" or v.ndim):
            raise RuntimeError(
                f"expected dtype {unary._C10_NAME[dtype]} for `{name}` but got dtype "
                f"{unary._C10_NAME.get(v._dtype, v._dtype.name)}"
            )
    return dtype


lerp_op = defop(
    "lerp",
    _lerp,
    args=("start", "end", "weight"),
    dtypes=_lerp_dtype,
    node=lambda start, end, weight: (
        "LerpBackward1" if hasattr(weight, "shape") else "LerpBackward0"
    ),
    vjp=(
        lambda g, weight: g * (1 - weight),  # d/dstart = 1 - w
        lambda g, weight: g * weight,  # d/dend = w
        lambda g, start, end: g * (end - start),  # d/dw = end - start
    ),
    jvp=(
        lambda t, weight: t * (1 - weight),
        lambda t, weight: t * weight,
        lambda t, start, end: t * (end - start),
    ),
)


def _clamp_min(x, min=0.0):  # noqa: A002 - PyTorch's name
    """max(x, min), min a Python number"""
    if x.dtype is arithmetic.F16:
        arithmetic.check_scalar_fits(min, float16)
    return xp.maximum(x, arithmetic.wrap_int(min, x))


def _clamp_max(x, max=0.0):  # noqa: A002
    """min(x, max), max a Python number"""
    if x.dtype is arithmetic.F16:
        arithmetic.check_scalar_fits(max, float16)
    return xp.minimum(x, arithmetic.wrap_int(max, x))


def _one_bound_dtype(name: str):
    def rule(args, params):
        bound = params.get(name)
        dtype = result_type((args[0], bound))
        arithmetic.check_scalar_fits(bound, dtype)
        return dtype

    return rule


def _clamp_lo(x, lo):
    """max(x, lo), lo a tensor"""
    return xp.maximum(x, lo)


def _clamp_hi(x, hi):
    """min(x, hi), hi a tensor"""
    return xp.minimum(x, hi)


def _logaddexp(a, b):
    """ln(e^a + e^b), without overflow"""
    return xp.logaddexp(a, b)


def _copysign(a, b):
    """|a| with the sign of b"""
    return xp.copysign(a, b)


_ONE_SIDED = "The gradient passes at the bound itself (x = bound), as in PyTorch."

clamp_min_scalar = defop(
    "clamp_min",
    _clamp_min,
    node="ClampMinBackward0",
    dtypes=_one_bound_dtype("min"),
    vjp=lambda g, x, min: unary._where(x >= min, g, 0),  # d/dx max(x, m) = [x ≥ m]
    jvp=lambda t, x, min: unary._where(x >= min, t, 0),
    conventions=_ONE_SIDED,
)

clamp_max_scalar = defop(
    "clamp_max",
    _clamp_max,
    node="ClampMaxBackward0",
    dtypes=_one_bound_dtype("max"),
    vjp=lambda g, x, max: unary._where(x <= max, g, 0),  # d/dx min(x, m) = [x ≤ m]
    jvp=lambda t, x, max: unary._where(x <= max, t, 0),
    conventions=_ONE_SIDED,
)

clamp_min_tensor = defop(
    "clamp_min_tensor",
    _clamp_lo,
    args=("x", "lo"),
    node="ClampMinBackward1",
    vjp=(
        lambda g, x, lo: unary._where(x >= lo, g, 0),  # d/dx max(x, lo) = [x ≥ lo]
        lambda g, x, lo: unary._where(x < lo, g, 0),  # d/dlo max(x, lo) = [x < lo]
    ),
    jvp=(lambda t, x, lo: unary._where(x >= lo, t, 0), lambda t, x, lo: unary._where(x < lo, t, 0)),
    conventions=_ONE_SIDED + " The bound gets the gradient where x < lo.",
)

clamp_max_tensor = defop(
    "clamp_max_tensor",
    _clamp_hi,
    args=("x", "hi"),
    node="ClampMaxBackward1",
    vjp=(
        lambda g, x, hi: unary._where(x <= hi, g, 0),  # d/dx min(x, hi) = [x ≤ hi]
        lambda g, x, hi: unary._where(x > hi, g, 0),  # d/dhi min(x, hi) = [x > hi]
    ),
    jvp=(lambda t, x, hi: unary._where(x <= hi, t, 0), lambda t, x, hi: unary._where(x > hi, t, 0)),
    conventions=_ONE_SIDED + " The bound gets the gradient where x > hi.",
)


def _xlogy(a, b):
    """a · ln b, 0 where a = 0 (unless b is nan)"""
    if not hasattr(b, "dtype"):  # a Python number: computed in a's (floating) dtype
        b = xp.asarray(b, dtype=a.dtype if a.dtype.kind == "f" else xp.float64)
    out = a * xp.log(arithmetic.as_float(b))
    return xp.where((xp.asarray(a) == 0) & ~xp.isnan(b), xp.zeros_like(out), out)


def _xlogy_node(a, b):
    if not hasattr(a, "shape"):
        return "XlogyBackward1"
    return "XlogyBackward0" if hasattr(b, "shape") else "XlogyBackward2"


def _xlogy_da(g, a, b):
    # d/da a ln b = ln b, 0 where a = 0 (PyTorch's xlogy(a != 0, b)). A Python number b
    # is taken in g's dtype, as the forward takes it in a's: xlogy(bool, 2.5) alone would
    # compute ln 2.5 in the default float32.
    if not hasattr(b, "dtype"):
        b = xp.asarray(b, dtype=(g._data if isinstance(g, Tensor) else xp.asarray(g)).dtype)
    return g * xlogy_op(a != 0, b)


xlogy_op = defop(
    "xlogy",
    _xlogy,
    args=("a", "b"),
    dtypes=FLOAT,
    node=_xlogy_node,
    vjp=(
        _xlogy_da,  # d/da a ln b = ln b (0 where a = 0)
        lambda g, a, b: g * (a / b),  # d/db a ln b = a / b
    ),
    jvp=(_xlogy_da, lambda t, a, b: t * (a / b)),
    conventions="d/da at a = 0 is 0 (PyTorch's xlogy(a != 0, b)).",
)


def _logaddexp2(a, b):
    """log2(2^a + 2^b)"""
    return xp.logaddexp2(a, b)


logaddexp_op = defop(
    "logaddexp",
    _logaddexp,
    args=("a", "b"),
    dtypes=floating_only("logaddexp_cpu"),
    vjp=(
        lambda g, a, b: g * activations.sigmoid(a - b),  # d/da ln(e^a + e^b) = σ(a - b)
        lambda g, a, b: g * activations.sigmoid(b - a),
    ),
    jvp=(
        lambda t, a, b: t * activations.sigmoid(a - b),
        lambda t, a, b: t * activations.sigmoid(b - a),
    ),
)

logaddexp2_op = defop(
    "logaddexp2",
    _logaddexp2,
    args=("a", "b"),
    dtypes=floating_only("logaddexp2_cpu"),
    vjp=(
        lambda g, a, b: (
            g * activations.sigmoid((a - b) * unary._LN2)
        ),  # d/da log2(2^a + 2^b) = σ((a-b) ln 2)
        lambda g, a, b: g * activations.sigmoid((b - a) * unary._LN2),
    ),
    jvp=(
        lambda t, a, b: t * activations.sigmoid((a - b) * unary._LN2),
        lambda t, a, b: t * activations.sigmoid((b - a) * unary._LN2),
    ),
)


def _logit(x, eps=None):
    """ln(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps is given"""
    if eps is not None:
        x = xp.clip(x, eps, 1 - eps)
    return xp.log(x / (1 - x))


def _logit_vjp(g, x, eps):
    # d/dx ln(x / (1 - x)) = 1 / (x (1 - x)); outside [eps, 1 - eps] 0 (nan outside [0, 1]
    # without eps), as PyTorch
    inside = g / (x * (1 - x))
    lo, hi, outside = (0.0, 1.0, math.nan) if eps is None else (eps, 1 - eps, 0.0)
    return unary._where(logical.logical_or_op(x < lo, x > hi), outside, inside)


logit_op = defop(
    "logit",
    _logit,
    dtypes=FLOAT,
    vjp=_logit_vjp,
    jvp=_logit_vjp,
    conventions="With eps, the gradient is 0 where x < eps or x > 1 - eps (the clamped "
    "region, its bounds excluded); without, nan outside [0, 1].",
)


def _copysign_node(a, b):
    return "CopysignBackward0" if hasattr(b, "shape") else "CopysignBackward1"


def _copysign_vjp(g, a, ans):
    # d/da copysign(a, b) = ±1: the result's sign over a's (0 where a = 0, as PyTorch)
    return unary._where(a == 0, 0.0, g * (ans / unary._where(a == 0, 1.0, a)))


copysign_op = defop(
    "copysign",
    _copysign,
    args=("a", "b"),
    dtypes=FLOAT,
    node=_copysign_node,
    vjp=(_copysign_vjp, lambda g: copies.zero(g)),  # d/db = 0
    jvp=(_copysign_vjp, lambda t: copies.zero(t)),
    conventions="d/da is 0 at a = 0; the sign source b has gradient 0.",
)

_DEG = math.pi / 180.0


def _deg2rad(x):
    """x · π/180"""
    return x * x.dtype.type(_DEG)


def _rad2deg(x):
    """x · 180/π"""
    return x * x.dtype.type(1 / _DEG)


deg2rad_op = defop(
    "deg2rad",
    _deg2rad,
    dtypes=FLOAT,
    node="Deg2RadBackward0",
    vjp=lambda g: g * _DEG,  # d/dx (π/180) x = π/180
    jvp=lambda t: t * _DEG,
)

rad2deg_op = defop(
    "rad2deg",
    _rad2deg,
    dtypes=FLOAT,
    node="Rad2DegBackward0",
    vjp=lambda g: g * (1 / _DEG),  # d/dx (180/π) x = 180/π
    jvp=lambda t: t * (1 / _DEG),
)


def _sinc(x):
    """sin(πx) / (πx), 1 at x = 0"""
    px = x * x.dtype.type(math.pi)
    return xp.where(x == 0, xp.ones_like(px), xp.sin(px) / xp.where(x == 0, 1, px))


def _sinc_vjp(g, x):
    # d/dx sin(πx)/(πx) = (πx cos(πx) - sin(πx)) / (πx²), 0 at x = 0 (x = 1 stands in there,
    # so no 0/0 reaches a higher derivative)
    zero = x == 0
    safe = unary._where(zero, 1.0, x)
    px = safe * math.pi
    return unary._where(zero, 0.0, g * ((px * unary.cos(px) - unary.sin(px)) / (px * safe)))


sinc_op = defop(
    "sinc",
    _sinc,
    dtypes=FLOAT,
    vjp=_sinc_vjp,
    jvp=_sinc_vjp,
    conventions="sinc'(0) = 0.",
)


def _ldexp(a, b):
    """a · 2^b"""
    return a * xp.exp2(b)


ldexp_op = defop(
    "ldexp",
    _ldexp,
    args=("a", "b"),
    dtypes=FLOAT,
    vjp=(
        lambda g, b: g * unary.exp2_op(arithmetic.as_float(b)),  # d/da a 2^b = 2^b
        lambda g, ans: g * (ans * unary._LN2),  # d/db a 2^b = a 2^b ln 2
    ),
    jvp=(
        lambda t, b: t * unary.exp2_op(arithmetic.as_float(b)),
        lambda t, ans: t * (ans * unary._LN2),
    ),
)


def _same_dtype(message: str):
    """A dtype rule: both inputs must have one dtype (PyTorch's RuntimeError otherwise)."""

    def rule(args, params):
        a, b = args
        if a._dtype is not b._dtype:
            raise RuntimeError(
                message.format(
                    a=unary._SCALAR_TYPE[a._dtype.name], b=unary._SCALAR_TYPE[b._dtype.name]
                )
            )
        return a._dtype

    return rule


def _heaviside(x, values):
    """0 for x < 0, values for x = 0, 1 for x > 0"""
    return xp.where(x == 0, values, (x > 0).astype(x.dtype)).astype(x.dtype)


_HEAVISIDE = not_differentiable("heaviside")

heaviside_op = defop(
    "heaviside",
    _heaviside,
    args=("x", "values"),
    node="NotImplemented",
    dtypes=_same_dtype("heaviside is not yet implemented for tensors with different dtypes."),
    vjp=(_HEAVISIDE[0], _HEAVISIDE[0]),
    jvp=(_HEAVISIDE[1], _HEAVISIDE[1]),
    conventions="No derivative: backward raises, as in PyTorch.",
)


def _signbit(x):
    """True where x's sign bit is set (-0.0 and -nan included)"""
    return xp.signbit(x)


def _isposinf(x):
    """True where x is +inf"""
    return xp.isposinf(x)


def _isneginf(x):
    """True where x is -inf"""
    return xp.isneginf(x)


signbit_op = defop("signbit", _signbit, dtypes=KEEP, vjp=None)

isposinf_op = defop("isposinf", _isposinf, dtypes=KEEP, vjp=None)

isneginf_op = defop("isneginf", _isneginf, dtypes=KEEP, vjp=None)


def _isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol |b| (infinities equal only to themselves)"""
    return xp.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


isclose_op = defop(
    "isclose",
    _isclose,
    args=("a", "b"),
    vjp=(None, None),
    dtypes=_same_dtype("{a} did not match {b}"),
)


def _nextafter(a, b):
    """the next floating value after a in the direction of b"""
    return xp.nextafter(a, b)


nextafter_op = defop(
    "nextafter",
    _nextafter,
    args=("a", "b"),
    dtypes=floating_only("nextafter_cpu"),
    vjp=(lambda g: g, lambda g: copies.zero(g)),  # d/da = 1, d/db = 0 (PyTorch's: a step of an ulp)
    jvp=(lambda t: t, lambda t: copies.zero(t)),
)


def _shift(name: str, left: bool):
    def forward(a, b):
        dtype = xp.result_type(a, b)
        if dtype.kind == "b":
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'Bool'")
        if dtype.kind == "f":
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'Float'")
        a = xp.asarray(a).astype(dtype)
        b = xp.asarray(b).astype(dtype)
        bits = dtype.itemsize * 8
        wide = b >= bits  # shifting by the width or more: 0, or the sign, as PyTorch
        b = xp.where(wide, 0, b)
        if left:
            return xp.where(wide, 0, xp.left_shift(a, b)).astype(dtype)
        return xp.where(wide, xp.where(a < 0, -1, 0), xp.right_shift(a, b)).astype(dtype)

    forward.__doc__ = f"a {'<<' if left else '>>'} b on integers"
    return defop(
        f"bitwise_{'left' if left else 'right'}_shift", forward, args=("a", "b"), vjp=(None, None)
    )


bitwise_left_shift_op = _shift("lshift", True)

bitwise_right_shift_op = _shift("rshift", False)
