"""Functions of two inputs with PyTorch's tie and nan conventions: maximum, minimum,
fmax, fmin, clamp (with tensor or number bounds), atan2, hypot, lerp, xlogy, logaddexp,
copysign, ldexp, heaviside, nextafter.

Where a derivative has a kink (a tie in maximum, a bound in clamp) the subgradient chosen
is stated in the op's ``conventions``, as PyTorch chooses it."""

from __future__ import annotations

import math

from .. import _dtypes
from .._backend import ndarray, scalar, xp
from .._dtypes import float16
from .._promotion import result_type
from .._tensor import Tensor
from ..autograd.recording import FLOAT, array_of, defop, floating_only, not_differentiable
from . import activations, arithmetic, copies, logical, unary

# ----- clamping -------------------------------------------------------------------------


def _clamp(x, lo=None, hi=None):
    """min(max(x, lo), hi), a bound left out when None; lo > hi gives hi, as in PyTorch"""
    dtype = x.dtype
    if dtype.kind == "f":
        if dtype is arithmetic.F16:  # (float tensors skip the dtype rule, which checks the rest)
            arithmetic.check_scalar_fits(lo, float16)
            arithmetic.check_scalar_fits(hi, float16)
        if x.__class__ is ndarray:  # (a NumPy array: a device's library takes numbers)
            # a number bound as a kept 0-d array of x's dtype: the same operand, not
            # converted on every call (_backend.scalar)
            lo, hi = _kept(lo, dtype), _kept(hi, dtype)
    else:
        lo, hi = arithmetic.wrap_int(lo, x), arithmetic.wrap_int(hi, x)
    if lo is not None:
        x = xp.maximum(x, lo)
        if hi is not None and x.__class__ is ndarray and x.ndim and dtype.kind == "f":
            return xp.minimum(x, hi, out=x)  # (x is fresh, of the result's dtype: written)
    if hi is not None:
        x = xp.minimum(x, hi)
    return x


def _kept(value, dtype):
    """A Python float or int as the kept 0-d array of ``dtype`` it becomes beside an array of
    that dtype (a zero as the kept +0 or -0); anything else unchanged."""
    c = value.__class__
    if c is not float and c is not int:
        return value
    if value:
        return scalar(value, dtype)
    zeros = _ZEROS.get(dtype)
    if zeros is None:
        zeros = _ZEROS[dtype] = (xp.asarray(0.0, dtype), xp.asarray(-0.0, dtype))
        for zero in zeros:
            zero.flags.writeable = False
    return zeros[1] if c is float and math.copysign(1.0, value) < 0 else zeros[0]


_ZEROS: dict = {}


def _inside(x, lo, hi):
    """lo <= x <= hi, a missing bound always satisfied: where the gradient passes."""
    if lo is None:
        return x <= hi
    if hi is None:
        return x >= lo
    return logical.logical_and(x >= lo, x <= hi)


def _clamp_scalar(x, min=None, max=None):  # noqa: A002
    """min(max(x, min), max) with Python-number bounds"""
    return _clamp(x, min, max)


_CLAMP = (
    "The gradient passes where min <= x <= max, at the bounds themselves included "
    "(PyTorch's convention); it is 0 everywhere when min > max."
)


def _clamp_scalar_dtype(args, params):
    """Promotion of input and bounds; PyTorch has no kernel for bool, nor complex."""
    lo, hi = params.get("min"), params.get("max")
    dtype = result_type((args[0], lo, hi))
    if dtype._category == 3:
        raise NotImplementedError("clamp is not supported for complex types")
    arithmetic.check_scalar_fits(lo, dtype)
    arithmetic.check_scalar_fits(hi, dtype)
    if dtype._category == 0:
        kernel = "clamp_max_scalar_cpu" if lo is None else "clamp_min_scalar_cpu"
        raise _dtypes.not_implemented(
            "clamp_scalar_cpu" if lo is not None and hi is not None else kernel, dtype
        )
    return dtype


clamp_scalar = defop(
    "clamp",
    _clamp_scalar,
    node="ClampBackward1",
    dtypes=_clamp_scalar_dtype,
    vjp=lambda g, x, min, max: logical.select(
        _inside(x, min, max), g, 0
    ),  # d/dx clamp = [min ≤ x ≤ max]
    jvp=lambda t, x, min, max: logical.select(_inside(x, min, max), t, 0),  # as the VJP
    conventions=_CLAMP,
)


def _clamp_lo_vjp(g, x, lo, hi):
    """d/dlo clamp = [x < lo] (and lo < hi when both bounds are given)"""
    if hi is None:
        return logical.select(x < lo, g, 0)
    return logical.select(logical.logical_and(x < lo, lo < hi), g, 0)


def _clamp_hi_vjp(g, x, lo, hi):
    """d/dhi clamp = [x > hi] (or hi < lo: then the result is hi everywhere)"""
    if lo is None:
        return logical.select(x > hi, g, 0)
    return logical.select(logical.logical_or(x > hi, hi < lo), g, 0)


# Forward mode follows PyTorch's clamp_jvp, which differs from backward at ties: with one
# tensor bound, x = lo takes lo's tangent and x = hi takes hi's; with both, x < lo = hi
# takes lo's tangent (where backward gives no input a gradient).
def _clamp_x_jvp(t, x, lo, hi):
    """d/dx clamp = [x < hi] with hi alone, [x > lo] with lo alone, [lo ≤ x ≤ hi] with both"""
    if lo is None:
        return logical.select(x < hi, t, 0)
    if hi is None:
        return logical.select(x > lo, t, 0)
    return logical.select(_inside(x, lo, hi), t, 0)


def _clamp_lo_jvp(t, x, lo, hi):
    """d/dlo clamp = [x ≤ lo] with lo alone, [x < lo ≤ hi] with both bounds"""
    if hi is None:
        return logical.select(x > lo, 0, t)
    return logical.select(logical.logical_and(x < lo, lo <= hi), t, 0)


def _clamp_hi_jvp(t, x, lo, hi):
    """d/dhi clamp = [x ≥ hi] with hi alone, [hi < lo, or lo ≤ x and x > hi] with both"""
    if lo is None:
        return logical.select(x < hi, 0, t)
    return logical.select(logical.logical_or(lo > hi, logical.logical_and(x >= lo, x > hi)), t, 0)


def _clamp_tensor_dtype(args):
    """The promoted dtype; PyTorch's errors for complex values: the input's, or else the
    kernel's that a complex bound reaches (clamp_cpu, or maximum/minimum for one bound)."""
    dtype = result_type(args)
    if dtype._category == 3:
        x, lo, hi = args
        if x._dtype._category == 3:
            raise NotImplementedError("clamp is not supported for complex types")
        kernel = "clamp_cpu" if lo is not None and hi is not None else "maximum_cpu"
        raise _dtypes.not_implemented(
            kernel if hi is None or lo is not None else "minimum_cpu", dtype
        )
    return dtype


clamp_tensor = defop(
    "clamp_tensor",
    _clamp,
    args=("x", "lo", "hi"),
    node="ClampBackward0",
    dtypes=lambda args, params: _clamp_tensor_dtype(args),
    vjp=(
        lambda g, x, lo, hi: logical.select(_inside(x, lo, hi), g, 0),  # d/dx clamp = [lo ≤ x ≤ hi]
        _clamp_lo_vjp,
        _clamp_hi_vjp,
    ),
    jvp=(_clamp_x_jvp, _clamp_lo_jvp, _clamp_hi_jvp),
    conventions=_CLAMP + " A bound gets the gradient where it is the result: x < lo < hi "
    "for lo, x > hi or hi < lo for hi (at lo = hi > x, no input gets it, as in PyTorch).",
)

# ----- maximum and minimum ----------------------------------------------------------------

_TIES = (
    "Where a = b the gradient is split, g/2 to each; where one is nan, both get g "
    "(PyTorch's masks compare false)."
)

maximum = defop(
    "maximum",
    xp.maximum,
    args=("a", "b"),
    dtypes=unary.no_complex("maximum not implemented for complex tensors."),
    doc="max(a, b), elementwise; nan where either is nan",
    vjp=(
        lambda g, a, b: logical.select(
            a == b, g / 2, logical.select(a < b, 0, g)
        ),  # d/da max(a, b) = [a > b], 1/2 where a = b
        lambda g, a, b: logical.select(
            a == b, g / 2, logical.select(a > b, 0, g)
        ),  # d/db max(a, b) = [b > a], 1/2 where a = b
    ),
    # PyTorch: other_t + where(a == b, 1/2, a > b) (self_t - other_t)
    jvp=(
        lambda t, a, b: logical.select(
            a == b, t / 2, logical.select(a > b, t, 0)
        ),  # d/da max(a, b) = [a > b], 1/2 where a = b (0 where either is nan)
        lambda t, a, b: logical.select(a == b, t / 2, logical.select(a > b, 0, t)),  # as the VJP
    ),
    conventions=_TIES + " Forward mode: a nan takes b's tangent.",
)

minimum = defop(
    "minimum",
    xp.minimum,
    args=("a", "b"),
    dtypes=unary.no_complex("minimum not implemented for complex tensors."),
    doc="min(a, b), elementwise; nan where either is nan",
    vjp=(
        lambda g, a, b: logical.select(
            a == b, g / 2, logical.select(a > b, 0, g)
        ),  # d/da min(a, b) = [a < b], 1/2 where a = b
        lambda g, a, b: logical.select(
            a == b, g / 2, logical.select(a < b, 0, g)
        ),  # d/db min(a, b) = [b < a], 1/2 where a = b
    ),
    jvp=(
        lambda t, a, b: logical.select(
            a == b, t / 2, logical.select(a < b, t, 0)
        ),  # d/da min(a, b) = [a < b], 1/2 where a = b (0 where either is nan)
        lambda t, a, b: logical.select(a == b, t / 2, logical.select(a < b, 0, t)),  # as the VJP
    ),
    conventions=_TIES + " Forward mode: a nan takes b's tangent.",
)


def _fmax_picks_a(a, b):
    # backward: a where a >= b or b is nan (ties go to a)
    return logical.logical_or(a >= b, logical.isnan(b))


def _fmin_picks_a(a, b):
    return logical.logical_or(a <= b, logical.isnan(b))


def _fmax_jvp_picks_a(a, b):
    # PyTorch's forward formula: a where a > b or b is nan (ties go to b)
    return logical.logical_or(a > b, logical.isnan(b))


fmax = defop(
    "fmax",
    xp.fmax,
    args=("a", "b"),
    dtypes=unary.no_complex("fmax not implemented for complex tensors."),
    doc="max(a, b), elementwise, a nan ignored (nan only where both are)",
    vjp=(
        lambda g, a, b: logical.select(
            _fmax_picks_a(a, b), g, 0
        ),  # d/da fmax = [a ≥ b or b is nan]
        lambda g, a, b: logical.select(
            _fmax_picks_a(a, b), 0, g
        ),  # d/db fmax = [b > a, or a is nan and b is not]
    ),
    jvp=(
        lambda t, a, b: logical.select(
            _fmax_jvp_picks_a(a, b), t, 0
        ),  # d/da fmax = [a > b or b is nan] (ties go to b)
        lambda t, a, b: logical.select(
            _fmax_jvp_picks_a(a, b), 0, t
        ),  # d/db fmax = [b ≥ a, or a is nan and b is not] (ties go to b)
    ),
    conventions="nan is ignored (the other input gets the gradient). Ties: the whole "
    "gradient goes to a; in forward mode the tangent is b's (PyTorch's formulas).",
)

fmin = defop(
    "fmin",
    xp.fmin,
    args=("a", "b"),
    dtypes=unary.no_complex("fmin not implemented for complex tensors."),
    doc="min(a, b), elementwise, a nan ignored (nan only where both are)",
    vjp=(
        lambda g, a, b: logical.select(
            _fmin_picks_a(a, b), g, 0
        ),  # d/da fmin = [a ≤ b or b is nan]
        lambda g, a, b: logical.select(
            _fmin_picks_a(a, b), 0, g
        ),  # d/db fmin = [b < a, or a is nan and b is not]
    ),
    jvp=(
        lambda t, a, b: logical.select(_fmin_picks_a(a, b), t, 0),  # as the VJP
        lambda t, a, b: logical.select(_fmin_picks_a(a, b), 0, t),  # as the VJP
    ),
    conventions="nan is ignored (the other input gets the gradient). Ties: the whole "
    "gradient (and tangent) goes to a.",
)

# ----- atan2, hypot, lerp ------------------------------------------------------------


def _atan2_recip(a, b):
    """1 / (a² + b²), with 0 in place of the inf at a = b = 0: there PyTorch's gradient of
    atan2 is 0 (its second derivative stays nan)"""
    recip = 1 / (a * a + b * b)
    return logical.select(xp.isinf(array_of(recip)), 0.0, recip)


def _atan2_a(g, a, b):
    """d/da atan2(a, b) = b / (a² + b²), 0 at the origin"""
    return g * (b * _atan2_recip(a, b))


def _atan2_b(g, a, b):
    """d/db atan2(a, b) = -a / (a² + b²), 0 at the origin"""
    # negated last: a may be a bool
    return -(g * (a * _atan2_recip(a, b)))


def _atan2_jvp_a(t, a, b):
    """∂atan2/∂a · t = t b / (a² + b²) (nan at the origin, as PyTorch's tangent)"""
    return t * (b / (a * a + b * b))


def _atan2_jvp_b(t, a, b):
    """∂atan2/∂b · t = -t a / (a² + b²) (nan at the origin, as PyTorch's tangent)"""
    return -(t * (a / (a * a + b * b)))


atan2 = defop(
    "atan2",
    xp.arctan2,
    args=("a", "b"),
    doc="atan2(a, b): the angle of the point (b, a), in (-π, π]",
    dtypes=unary.real_only("atan2_cpu"),
    vjp=(_atan2_a, _atan2_b),
    jvp=(_atan2_jvp_a, _atan2_jvp_b),
    conventions="At a = b = 0 the gradient is 0 and the forward-mode tangent nan, as in PyTorch.",
)

hypot = defop(
    "hypot",
    xp.hypot,
    args=("a", "b"),
    doc="√(a² + b²)",
    dtypes=floating_only("hypot_cpu"),
    vjp=(
        lambda g, a, ans: g * (a / ans),  # d/da √(a² + b²) = a / hypot
        lambda g, b, ans: g * (b / ans),  # d/db √(a² + b²) = b / hypot
    ),
    jvp=(
        lambda t, a, ans: t * (a / ans),  # as the VJP
        lambda t, b, ans: t * (b / ans),  # as the VJP
    ),
    conventions="At a = b = 0 the gradient is nan (0/0), as in PyTorch.",
)


def _lerp(start, end, weight):
    """start + weight (end - start), as PyTorch evaluates it: from end when |weight| >= 1/2"""
    diff = end - start
    return xp.where(xp.abs(weight) < 0.5, start + weight * diff, end - diff * (1 - weight))


def _lerp_dtype(args, params):
    start, end, weight = args
    dtype = start._dtype
    for name, v in (("end", end), ("weight", weight)):  # (before the kernel's dtype check)
        if isinstance(v, Tensor) and v._dtype is not dtype and (name == "end" or v.ndim):
            raise RuntimeError(
                f"expected dtype {_dtypes.type_meta_name(dtype)} for `{name}` but got dtype "
                f"{_dtypes.type_meta_name(v._dtype)}"
            )
    if dtype._category < 2:
        kind = "tensor" if isinstance(weight, Tensor) else "scalar"
        raise _dtypes.not_implemented(f"lerp_kernel_{kind}", dtype)
    if isinstance(weight, complex) and dtype._category != 3:
        raise RuntimeError(f"value cannot be converted to type {dtype.c_name} without overflow")
    return dtype


lerp = defop(
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
        lambda t, weight: t * (1 - weight),  # as the VJP
        lambda t, weight: t * weight,  # as the VJP
        lambda t, start, end: t * (end - start),  # as the VJP
    ),
    complex="holomorphic",
)


def _clamp_min(x, min=0.0):  # noqa: A002 - PyTorch's name
    """max(x, min), min a Python number"""
    _no_complex_clamp(x, min)
    if x.dtype is arithmetic.F16:
        arithmetic.check_scalar_fits(min, float16)
    return xp.maximum(x, arithmetic.wrap_int(min, x))


def _clamp_max(x, max=0.0):  # noqa: A002
    """min(x, max), max a Python number"""
    _no_complex_clamp(x, max)
    if x.dtype is arithmetic.F16:
        arithmetic.check_scalar_fits(max, float16)
    return xp.minimum(x, arithmetic.wrap_int(max, x))


def _no_complex_clamp(x, bound) -> None:
    """PyTorch's error for a complex input or bound (a float tensor skips the dtype rule)."""
    if x.dtype.kind == "c" or isinstance(bound, complex):
        raise NotImplementedError("clamp is not supported for complex types")


def _one_bound_dtype(name: str):
    def rule(args, params):
        bound = params.get(name)
        dtype = result_type((args[0], bound))
        if dtype._category == 3:
            raise NotImplementedError("clamp is not supported for complex types")
        arithmetic.check_scalar_fits(bound, dtype)
        return dtype

    return rule


def _clamp_lo(x, lo):
    """max(x, lo), lo a tensor"""
    return xp.maximum(x, lo)


def _clamp_hi(x, hi):
    """min(x, hi), hi a tensor"""
    return xp.minimum(x, hi)


# (logaddexp, ldexp)
_MIXED = (
    "A real input beside a complex one gets the real part of its complex gradient (PyTorch's "
    "backward fails there, on an internal check)."
)


def _logaddexp(a, b):
    """ln(e^a + e^b), without overflow (complex: about the operand of larger real part)"""
    if xp.result_type(a, b).kind == "c":
        return _logaddexp_complex(xp.asarray(a), xp.asarray(b))
    return xp.logaddexp(a, b)


def _logaddexp_complex(a, b):
    """ln(e^a + e^b) for complex a, b, as PyTorch computes it: hi + ln(1 + e^(lo - hi)),
    hi the operand of larger real part; nan where either is nan; where both real parts
    are the same infinity, lo for -inf and ln(e^lo + e^hi) for +inf"""
    a, b = xp.broadcast_arrays(a, b)
    first = a.real < b.real
    lo, hi = xp.where(first, a, b), xp.where(first, b, a)
    out = xp.log1p(xp.exp(lo - hi)) + hi
    same_inf = (lo.real == hi.real) & xp.isinf(lo.real)
    out = xp.where(same_inf, xp.where(lo.real < 0, lo, xp.log(xp.exp(lo) + xp.exp(hi))), out)
    nan = xp.isnan(a) | xp.isnan(b)
    return xp.where(nan, xp.asarray(complex(xp.nan, xp.nan), out.dtype), out)


def _real_or_complex(kernel: str):
    """A dtype rule: promotion, and PyTorch's NotImplementedError for integers and bools."""

    def rule(args, params):
        dtype = result_type(args)
        if dtype._category < 2:
            raise _dtypes.not_implemented(kernel, dtype)
        return dtype

    return rule


def _copysign(a, b):
    """|a| with the sign of b"""
    return xp.copysign(a, b)


_ONE_SIDED = "The gradient passes at the bound itself (x = bound), as in PyTorch."

clamp_min_scalar = defop(
    "clamp_min",
    _clamp_min,
    node="ClampMinBackward0",
    dtypes=_one_bound_dtype("min"),
    vjp=lambda g, x, min: logical.select(x >= min, g, 0),  # d/dx max(x, m) = [x ≥ m]
    jvp=lambda t, x, min: logical.select(x >= min, t, 0),  # as the VJP
    conventions=_ONE_SIDED,
)

clamp_max_scalar = defop(
    "clamp_max",
    _clamp_max,
    node="ClampMaxBackward0",
    dtypes=_one_bound_dtype("max"),
    vjp=lambda g, x, max: logical.select(x <= max, g, 0),  # d/dx min(x, m) = [x ≤ m]
    jvp=lambda t, x, max: logical.select(x <= max, t, 0),  # as the VJP
    conventions=_ONE_SIDED,
)

clamp_min_tensor = defop(
    "clamp_min_tensor",
    _clamp_lo,
    args=("x", "lo"),
    node="ClampMinBackward1",
    dtypes=unary.real_only("maximum_cpu", rule=None),
    vjp=(
        lambda g, x, lo: logical.select(x >= lo, g, 0),  # d/dx max(x, lo) = [x ≥ lo]
        lambda g, x, lo: logical.select(x < lo, g, 0),  # d/dlo max(x, lo) = [x < lo]
    ),
    jvp=(
        lambda t, x, lo: logical.select(x >= lo, t, 0),  # as the VJP
        lambda t, x, lo: logical.select(x < lo, t, 0),  # as the VJP
    ),
    conventions=_ONE_SIDED + " The bound gets the gradient where x < lo.",
)

clamp_max_tensor = defop(
    "clamp_max_tensor",
    _clamp_hi,
    args=("x", "hi"),
    node="ClampMaxBackward1",
    dtypes=unary.real_only("minimum_cpu", rule=None),
    vjp=(
        lambda g, x, hi: logical.select(x <= hi, g, 0),  # d/dx min(x, hi) = [x ≤ hi]
        lambda g, x, hi: logical.select(x > hi, g, 0),  # d/dhi min(x, hi) = [x > hi]
    ),
    jvp=(
        lambda t, x, hi: logical.select(x <= hi, t, 0),  # as the VJP
        lambda t, x, hi: logical.select(x > hi, t, 0),  # as the VJP
    ),
    conventions=_ONE_SIDED + " The bound gets the gradient where x > hi.",
)


def _xlogy(a, b):
    """a · ln b, 0 where a = 0 (unless b is nan)"""
    if not hasattr(b, "dtype"):  # a Python number: computed in a's (floating) dtype
        b = xp.asarray(b, dtype=a.dtype if a.dtype.kind in "fV" else xp.float64)  # (V: bf16)
    out = a * xp.log(arithmetic.as_float(b))
    return xp.where((xp.asarray(a) == 0) & ~xp.isnan(b), xp.zeros_like(out), out)


def _xlogy_node(a, b):
    if not hasattr(a, "shape"):
        return "XlogyBackward1"
    return "XlogyBackward0" if hasattr(b, "shape") else "XlogyBackward2"


def _xlogy_da(g, a, b):
    """d/da a ln b = ln b; 0 where a = 0 and b ≤ 0 (PyTorch's xlogy(g, b) masked there)"""
    # A Python number b is taken in g's dtype, as the forward takes it in a's: xlogy(g,
    # 2.5) alone would compute ln 2.5 in the default float32.
    if not hasattr(b, "dtype"):
        b = xp.asarray(b, dtype=(g._data if isinstance(g, Tensor) else xp.asarray(g)).dtype)
    zero = (array_of(a) == 0) & (array_of(b) <= 0)
    return logical.select(zero, 0, xlogy(g, b))


xlogy = defop(
    "xlogy",
    _xlogy,
    args=("a", "b"),
    dtypes=unary.real_only("xlogy_cpu"),
    # bfloat16 as it is: ln b rounds to bfloat16 before the product, as in PyTorch's kernel
    storage=True,
    node=_xlogy_node,
    vjp=(
        _xlogy_da,
        lambda g, a, b: g * (a / b),  # d/db a ln b = a / b
    ),
    jvp=(
        _xlogy_da,
        lambda t, a, b: t * (a / b),  # as the VJP
    ),
    conventions="d/da is 0 where a = 0 and b ≤ 0 (PyTorch's).",
)


def _logaddexp2(a, b):
    """log2(2^a + 2^b)"""
    return xp.logaddexp2(a, b)


logaddexp = defop(
    "logaddexp",
    _logaddexp,
    args=("a", "b"),
    dtypes=_real_or_complex("logaddexp_cpu"),
    complex="holomorphic",
    conventions=_MIXED,
    vjp=(
        lambda g, a, b: g * activations.sigmoid(a - b),  # d/da ln(e^a + e^b) = σ(a - b)
        lambda g, a, b: g * activations.sigmoid(b - a),  # d/db ln(e^a + e^b) = σ(b - a)
    ),
    jvp=(
        lambda t, a, b: t * activations.sigmoid(a - b),  # as the VJP
        lambda t, a, b: t * activations.sigmoid(b - a),  # as the VJP
    ),
)

logaddexp2 = defop(
    "logaddexp2",
    _logaddexp2,
    args=("a", "b"),
    dtypes=floating_only("logaddexp2_cpu"),
    # (by 2^(b-a) itself, not σ((a-b) ln 2): the product by ln 2 would round at the scale
    # of a - b, tens of ulps of the gradient where it is a far tail)
    vjp=(
        lambda g, a, b: g / (1 + unary.exp2(b - a)),  # d/da log2(2^a + 2^b) = 1/(1 + 2^(b-a))
        lambda g, a, b: g / (1 + unary.exp2(a - b)),  # d/db log2(2^a + 2^b) = 1/(1 + 2^(a-b))
    ),
    jvp=(
        lambda t, a, b: t / (1 + unary.exp2(b - a)),  # as the VJP
        lambda t, a, b: t / (1 + unary.exp2(a - b)),  # as the VJP
    ),
)


def _copysign_node(a, b):
    return "CopysignBackward0" if hasattr(b, "shape") else "CopysignBackward1"


def _copysign_vjp(g, a, ans):
    """d/da copysign(a, b) = copysign(a, b) / a = ±1 (0 where a = 0, as PyTorch)"""
    return logical.select(a == 0, 0.0, g * (ans / logical.select(a == 0, 1.0, a)))


copysign = defop(
    "copysign",
    _copysign,
    args=("a", "b"),
    dtypes=unary.real_only("copysign_cpu"),
    node=_copysign_node,
    vjp=(
        _copysign_vjp,
        lambda g: copies.zero(g),  # d/db copysign(a, b) = 0 (almost everywhere)
    ),
    jvp=(
        _copysign_vjp,
        lambda t: copies.zero(t),  # as the VJP
    ),
    conventions="d/da is 0 at a = 0; the sign source b has gradient 0.",
)


def _ldexp(a, b):
    """a · 2^b"""
    return a * xp.exp2(b)


ldexp = defop(
    "ldexp",
    _ldexp,
    args=("a", "b"),
    dtypes=FLOAT,
    # bfloat16 as it is: 2^b rounds to bfloat16 before the product, as PyTorch's a * 2^b
    storage=True,
    vjp=(
        lambda g, b: g * unary.exp2(arithmetic.as_float(b)),  # d/da a 2^b = 2^b
        lambda g, ans: g * (ans * unary._LN2),  # d/db a 2^b = a 2^b ln 2
    ),
    jvp=(
        lambda t, b: t * unary.exp2(arithmetic.as_float(b)),  # as the VJP
        lambda t, ans: t * (ans * unary._LN2),  # as the VJP
    ),
    complex="holomorphic",
    conventions=_MIXED,
)


def _same_dtype(message: str, refuse_complex: str = ""):
    """A dtype rule: both inputs must have one dtype (PyTorch's RuntimeError otherwise), not
    complex where ``refuse_complex`` gives PyTorch's message for that."""

    def rule(args, params):
        a, b = args
        if refuse_complex and (a._dtype._category == 3 or b._dtype._category == 3):
            raise RuntimeError(refuse_complex)
        if a._dtype is not b._dtype:
            raise RuntimeError(message.format(a=a._dtype.scalar_name, b=b._dtype.scalar_name))
        return a._dtype

    return rule


def _heaviside(x, values):
    """0 for x < 0, values for x = 0, 1 for x > 0"""
    return xp.where(x == 0, values, (x > 0).astype(x.dtype)).astype(x.dtype)


_HEAVISIDE = not_differentiable("heaviside")

heaviside = defop(
    "heaviside",
    _heaviside,
    args=("x", "values"),
    node="NotImplemented",
    dtypes=_same_dtype(
        "heaviside is not yet implemented for tensors with different dtypes.",
        refuse_complex="heaviside is not yet implemented for complex tensors.",
    ),
    vjp=(_HEAVISIDE[0], _HEAVISIDE[0]),
    jvp=(_HEAVISIDE[1], _HEAVISIDE[1]),
    conventions="No derivative: backward raises, as in PyTorch.",
)


def _nextafter(a, b):
    """the next floating value after a in the direction of b"""
    return xp.nextafter(a, b)  # (of a's dtype: bfloat16 by a bfloat16 ulp, ml_dtypes')


nextafter = defop(
    "nextafter",
    _nextafter,
    args=("a", "b"),
    dtypes=floating_only("nextafter_cpu"),
    storage=True,  # (bfloat16 as it is: widened to float32 it would step by a float32 ulp)
    vjp=(
        lambda g, a, b: logical.select(
            array_of(a) == array_of(b), 0, g
        ),  # d/da nextafter(a, b) = 1, and 0 where a = b (the result is b there), as PyTorch's
        lambda g: copies.zero(g),  # d/db nextafter(a, b) = 0
    ),
    jvp=(
        lambda t, a, b: logical.select(array_of(a) == array_of(b), 0, t),  # as the VJP
        lambda t: copies.zero(t),  # as the VJP
    ),
)
