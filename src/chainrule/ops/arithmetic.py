"""Arithmetic: add, sub, mul, div, neg, reciprocal, pow, and the rounding divisions
(remainder, fmod, floor_divide, div with rounding_mode).

Each op is one ``defop`` entry (see docs/architecture.md): the forward on arrays, then one
VJP and one JVP per input, the derivative in a comment beside each. A VJP returns the
gradient at the broadcast shape; the engine sums it back to each input's shape."""

from __future__ import annotations

import cmath
import math

from .. import _dtypes
from .._backend import is_array, ndarray, scalar, xp
from .._dtypes import bool as _bool
from .._dtypes import float16 as _float16
from .._dtypes import get_default_dtype
from .._promotion import result_type
from .._tensor import Tensor
from ..autograd.recording import FLOAT, array_of, defop, not_differentiable
from . import complex_parts, copies, logical, unary
from ._scratch import SMALL, lent, writable

# NumPy's dtype singletons, compared by identity on the forward paths
F16 = xp.dtype(xp.float16)

BOOL = xp.dtype(xp.bool_)

# ----- add, sub, mul, div, neg, reciprocal, pow ----------------------------------------------


_ONE = 1  # the default alpha: small ints are one object, so `alpha is _ONE` is exact


def _add(a, b, alpha=1):
    """a + alpha * b"""
    if alpha is _ONE:
        return a + b
    return a + _scaled(a, b, alpha)


def _sub(a, b, alpha=1):
    """a - alpha * b"""
    if alpha is _ONE:
        return a - b
    return a - _scaled(a, b, alpha)


def _scaled(a, b, alpha):
    """alpha * b, with PyTorch's checks of alpha against the result's dtype."""
    kind = xp.result_type(a, b).kind
    if alpha.__class__ is bool:
        if kind != "b":
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
        return b if alpha else xp.zeros_like(b)
    if kind in "biu" and isinstance(alpha, (float, complex)):
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )
    if kind != "c" and isinstance(alpha, complex):
        raise RuntimeError(
            "For non-complex input tensors, argument alpha must not be a complex number."
        )
    if kind == "b":  # a nonzero alpha is True for bool results
        return b if alpha else xp.zeros_like(b)
    if kind in "iu" and alpha.__class__ is int:  # wraps into b's dtype (uint8: -1 is 255)
        alpha = xp.asarray(alpha).astype(b.dtype)
    return alpha * b


def check_scalar_fits(value, dtype) -> None:
    """PyTorch's error for a Python number a dtype cannot hold, where PyTorch takes a scalar
    argument (pow's exponent, clamp's bounds, where's value): an int out of an integer
    dtype's range (an unsigned dtype also takes negatives down to -max: they wrap), or a
    finite number beyond float16's largest."""
    if dtype is _float16 and value.__class__ in (int, float):
        if math.isfinite(value) and unary.abs(value) > 65504:
            raise RuntimeError("value cannot be converted to type c10::Half without overflow")
        return
    if value.__class__ is not int or dtype._category != 1:
        return
    info = xp.iinfo(dtype.np)
    if not (-info.max if info.min == 0 else info.min) <= value <= info.max:
        raise RuntimeError(f"value cannot be converted to type {dtype.c_name} without overflow")


def as_float(a):
    """An integer or bool array as the default float dtype, as PyTorch computes ln, 2^x ...
    of integers (NumPy would use float16 for 8-bit ones); anything else unchanged."""
    if is_array(a) and a.dtype.kind in "biu":  # (a host or device array; not a number)
        return a.astype(get_default_dtype().np)
    return a


def wrap_int(value, x):
    """A Python int as x's integer dtype (wrapping, as PyTorch's casts do); else unchanged."""
    if value.__class__ is int and x.dtype.kind in "iu":
        return xp.asarray(value).astype(x.dtype)
    return value


def _sub_dtype(args, params):
    """PyTorch's promotion; a bool operand (tensor or Python bool) raises, as PyTorch's ``-``."""
    operands = (args[0], params["other"]) if "other" in params else args
    bools = sum(1 for v in operands if getattr(v, "_dtype", None) is _bool or v.__class__ is bool)
    if bools == 2:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if bools:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return result_type(operands)


def _neg(x):
    """-x"""
    if x.dtype is BOOL:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return xp.negative(x)


add = defop(
    "add",
    _add,
    args=("a", "b"),
    plain=xp.add,  # (alpha 1)
    vjp=(
        lambda g: g,  # d(a + αb)/da = 1
        lambda g, alpha: g if alpha == 1 else g * alpha.conjugate(),  # d(a + αb)/db = α: ᾱ g
    ),
    jvp=(
        lambda t: t,  # as the VJP
        lambda t, alpha: t if alpha == 1 else t * alpha,  # d(a + αb)/db = α
    ),
    complex="wirtinger",
)

sub = defop(
    "sub",
    _sub,
    args=("a", "b"),
    plain=xp.subtract,  # (alpha 1)
    dtypes=_sub_dtype,
    vjp=(
        lambda g: g,  # d(a - αb)/da = 1
        lambda g, alpha: -g if alpha == 1 else -g * alpha.conjugate(),  # d(a - αb)/db = -α: -ᾱ g
    ),
    jvp=(
        lambda t: t,  # as the VJP
        lambda t, alpha: -t if alpha == 1 else -t * alpha,  # d(a - αb)/db = -α
    ),
    complex="wirtinger",
)


def _rsub(x, other=0, alpha=1):
    """other - alpha * x"""
    if other.__class__ is bool:  # a float x skips the dtype rule: raise its error here
        _sub_dtype((x, other), {})
    if other.__class__ is int and x.dtype.kind in "iu":  # wraps into x's dtype, as PyTorch's
        other = xp.asarray(other).astype(x.dtype)
    if alpha is _ONE:
        return other - x
    return other - _scaled(other, x, alpha)


rsub = defop(
    "rsub",
    _rsub,
    node="RsubBackward1",
    dtypes=_sub_dtype,
    vjp=lambda g, alpha: -g if alpha == 1 else -g * alpha.conjugate(),  # d(c - αx)/dx = -α: -ᾱ g
    jvp=lambda t, alpha: -t if alpha == 1 else -t * alpha,  # d(c - αx)/dx = -α
    complex="wirtinger",
)


def _mul_vjp_a(g, b):
    """d(ab)/da = b

    For a number b, multiplied into g's memory when g is private (ops/_scratch.py), as a
    kept 0-d array of g's dtype (the same operand, converted once: _backend.scalar). For g
    the broadcast of one (a sum's gradient), b itself, lent (ops/_scratch.py)."""
    if g.__class__ is ndarray:
        if b.__class__ is float or b.__class__ is int:
            if g.size >= SMALL and writable(g):  # (the size first: a small g is never written)
                g *= scalar(b, g.dtype)
                return g
            return g * scalar(b, g.dtype)
        if g.size >= SMALL:
            same = lent(g, b)
            if same is not None:
                return same
    return g * b


def _mul_vjp_b(g, a):
    """d(ab)/db = a (for g the broadcast of one, a itself, lent: ops/_scratch.py)"""
    if g.__class__ is ndarray and g.size >= SMALL:
        same = lent(g, a)
        if same is not None:
            return same
    return g * a


mul = defop(
    "mul",
    xp.multiply,
    args=("a", "b"),
    doc="a · b",
    vjp=(
        _mul_vjp_a,
        _mul_vjp_b,
    ),
    jvp=(
        lambda t, b: t * b,  # d(ab)/da = b
        lambda t, a: a * t,  # d(ab)/db = a
    ),
    complex="holomorphic",
)

div = defop(
    "div",
    xp.true_divide,
    args=("a", "b"),
    doc="a / b",
    dtypes=FLOAT,
    vjp=(
        lambda g, b: g / b,  # d(a/b)/da = 1/b
        lambda g, a, b: -g * ((a / b) / b),  # d(a/b)/db = -a/b²
    ),
    jvp=(
        lambda t, b: t / b,  # as the VJP
        lambda t, a, b: -t * ((a / b) / b),  # as the VJP
    ),
    complex="holomorphic",
)

neg = defop("neg", _neg, vjp=lambda g: -g, jvp=lambda t: -t, complex="wirtinger")  # d(-x)/dx = -1

reciprocal = defop(
    "reciprocal",
    xp.reciprocal,
    doc="1 / x",
    dtypes=FLOAT,
    vjp=lambda g, ans: -g * (ans * ans),  # d(1/x)/dx = -1/x²
    jvp=lambda t, ans: -t * (ans * ans),  # as the VJP
    complex="holomorphic",
)


def _pow(x, exponent=1):
    """x ** exponent, exponent a Python number"""
    dtype = x.dtype
    if dtype.kind in "biu":
        if isinstance(exponent, int) and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if exponent.__class__ is bool and dtype is BOOL:  # NumPy gives int8; PyTorch bool
            return x.copy() if exponent else xp.ones_like(x)
    elif dtype.kind == "c":
        return _complex_power(x, exponent)
    elif exponent.__class__ is complex:  # (a float tensor skips the dtype rule: cast here)
        return _complex_power(x.astype(xp.result_type(x, exponent)), exponent)
    elif dtype is F16:  # (float tensors skip the dtype rule, which checks the rest)
        check_scalar_fits(exponent, _float16)
    if exponent == -0.5 and dtype.kind == "f" and dtype is not F16:
        return xp.reciprocal(xp.sqrt(x))  # PyTorch's 1/√x: nan at -inf, -inf at -0
    return xp.power(x, exponent)


def _complex_power(z, c):
    """z ** c for complex z and a number c, as PyTorch computes it: its special exponents
    by their own kernels (√z for 1/2, 1/z for -1, ...: inf at 0, not NumPy's nan), any
    other as e^(c ln z)"""
    if c == 0:
        return xp.ones_like(z)
    if c == 1:
        return z.copy()
    if c == 2:
        return xp.power(z, 2)
    if c == 3:
        return z * z * z
    if c == 0.5:
        return xp.sqrt(z)
    if c == -0.5:
        return xp.reciprocal(xp.sqrt(z))
    if c == -1:
        return xp.reciprocal(z)
    if c == -2:
        return xp.reciprocal(z * z)
    return xp.exp(c * xp.log(z))


def _pow_tensors(a, b):
    """a ** b elementwise; integer b < 0 gives PyTorch's integer results (1/a truncated);
    complex: e^(b ln a), as PyTorch computes it (0^0 is nan there)"""
    if getattr(a, "dtype", None) is not None and a.dtype.kind == "c":
        return xp.exp(b * xp.log(a))
    if getattr(b, "dtype", xp.float64).kind in "iu" and getattr(a, "dtype", None) is not None:
        if a.dtype.kind in "iu" and (b < 0).any():
            pos = xp.power(a, xp.maximum(b, 0))
            odd = xp.where(b % 2 == 0, 1, -1)
            neg = xp.where(a == 1, 1, xp.where(a == -1, odd, 0)).astype(pos.dtype)
            return xp.where(b < 0, neg, pos)
    return xp.power(a, b)


def _pow_dtype(args, params):
    exponent = params.get("exponent", 1)
    dtype = result_type((args[0], exponent))
    check_scalar_fits(exponent, dtype)
    return dtype


def _pow_operands_dtype(args, params):
    """Promotion of base and exponent (tensors, or a Python base); bool ** bool raises."""
    dtype = result_type((*args, params.get("base")))
    if dtype is _bool:
        raise NotImplementedError("\"pow\" not implemented for 'Bool'")
    return dtype


def _pow_scalar_vjp(g, x, exponent):
    """d(x^c)/dx = c x^(c-1); PyTorch gives 0 for c == 0 (even at x == 0)"""
    if exponent == 0:
        return copies.zero(g)  # zeros, not g * 0: a nan gradient stays out, as in PyTorch
    if exponent == 0.5:  # x^(-1/2) as the forward computes it (1/√x: nan at -inf)
        return g * (0.5 * pow_scalar(x, exponent=-0.5))
    return g * (exponent * x ** (exponent - 1))


_REAL_TANGENT = (
    "Forward mode: a real operand of a complex power pushes its complete complex tangent "
    "(PyTorch's keeps only its real part, which is not the derivative)."
)

pow_scalar = defop(
    "pow",
    _pow,
    node="PowBackward0",
    dtypes=_pow_dtype,
    vjp=_pow_scalar_vjp,
    jvp=_pow_scalar_vjp,  # linear in its first argument, so the same rule pushes tangents
    conventions="d/dx x^0 = 0 everywhere, x = 0 included. " + _REAL_TANGENT,
    complex="holomorphic",
)


def _pow_tensor_base_vjp(g, a, b):
    """d(a^b)/da = b a^(b-1), taken as 0 where b == 0"""
    return logical.where(b == 0, 0.0, g * (b * a ** (b - 1)))


def _pow_tensor_exp_vjp(g, a, b, ans):
    """d(a^b)/db = a^b ln a, taken as 0 where a == 0 and b >= 0 (the limit for b > 0)

    (A real base of a complex power: ln a of the complex a, ln |a| + iπ for a < 0.)"""
    base = as_float(a)
    if complex_parts.is_complex_value(ans) and not complex_parts.is_complex_value(base):
        base = base.to(ans.dtype) if isinstance(base, Tensor) else base.astype(ans.dtype)
    grad = g * (ans * unary.log(base))
    return logical.where(array_of(a) == 0, logical.where(_nonnegative(b), 0.0, grad), grad)


def _nonnegative(b):
    """b >= 0 as a mask; for complex b, a real b >= 0 (imaginary part 0), as PyTorch's"""
    b = array_of(b)
    if getattr(b, "dtype", None) is not None and b.dtype.kind == "c":
        return xp.logical_and(b.imag == 0, b.real >= 0)
    return xp.greater_equal(b, 0)


pow_tensor = defop(
    "pow_tensor",
    _pow_tensors,
    args=("a", "b"),
    node="PowBackward1",
    dtypes=_pow_operands_dtype,
    vjp=(_pow_tensor_base_vjp, _pow_tensor_exp_vjp),
    jvp=(_pow_tensor_base_vjp, _pow_tensor_exp_vjp),  # elementwise: VJP and JVP coincide
    conventions="d/da a^b = 0 where b = 0; d/db a^b = 0 where a = 0 and b >= 0. " + _REAL_TANGENT,
    complex="holomorphic",
)


def _rpow(x, base=1):
    """base ** x, base a Python number"""
    if (base.__class__ is int or base.__class__ is bool) and x.dtype.kind in "iu":
        base = xp.asarray(base).astype(x.dtype)  # wraps into x's dtype, as PyTorch's
        if x.dtype.kind == "i" and (x < 0).any():
            return _pow_tensors(base, x)  # (PyTorch's integer powers for x < 0)
    if x.dtype.kind == "c":  # e^(x ln c), as PyTorch's power of two tensors
        return xp.exp(x * xp.log(xp.asarray(base, x.dtype)))
    return xp.power(base, x)


def _rpow_vjp(g, x, ans, base):
    """d(c^x)/dx = c^x ln c; for c = 0, 0 where x >= 0 and -inf where x < 0

    (ln c of a complex c, or of a real c when the power is complex: ln |c| + iπ for c < 0.)"""
    if base == 0:
        return logical.where(_nonnegative(x), 0.0, g * (ans * -math.inf))
    if isinstance(base, complex) or complex_parts.is_complex_value(ans):
        return g * (ans * cmath.log(base))
    return g * (ans * math.log(base))


pow_scalar_base = defop(
    "pow_scalar_base",
    _rpow,
    node="PowBackward2",
    dtypes=_pow_operands_dtype,
    vjp=_rpow_vjp,
    jvp=_rpow_vjp,
    conventions=_REAL_TANGENT,
    complex="holomorphic",
)


def rdiv(input, other):
    """other / input, as PyTorch computes it: other * input.reciprocal()."""
    if isinstance(other, Tensor):
        return div(other, input)
    return mul(reciprocal(input), other)


def rpow(input, base):
    if isinstance(base, Tensor):
        return pow_tensor(base, input)
    return pow_scalar_base(input, base=base)


# ----- remainder, fmod, floor and truncating division -------------------------------------


def _integer_divisor_check(a, b):
    """PyTorch raises for an integer division by zero (NumPy returns 0 and warns); an
    empty result divides nothing."""
    if xp.result_type(a, b).kind in "iu" and xp.any(xp.asarray(b) == 0) and xp.size(a):
        raise RuntimeError("ZeroDivisionError")


def _divides(kernel: str):
    """Division-like dtype rule: promotion, with bool and complex not implemented."""

    def rule(args, params):
        dtype = result_type(args)
        if dtype._category == 0 or dtype._category == 3:
            raise _dtypes.not_implemented(kernel.format(params.get("rounding_mode")), dtype)
        return dtype

    return rule


def _remainder(a, b):
    """a - b ⌊a/b⌋: the remainder with the divisor's sign (Python's %)"""
    _integer_divisor_check(a, b)
    if xp.result_type(a, b).kind != "f":
        return xp.remainder(a, b)
    # PyTorch's: fmod, moved by b where its sign differs from b's; a zero keeps a's sign
    mod = xp.fmod(a, b)
    return xp.where((mod != 0) & ((xp.asarray(b) < 0) != (mod < 0)), mod + b, mod)


def _fmod(a, b):
    """a - b trunc(a/b): the remainder with the dividend's sign (C's fmod)"""
    _integer_divisor_check(a, b)
    return xp.fmod(a, b)


def _floor_divide(a, b):
    """⌊a / b⌋ (for floats as PyTorch and Python compute it, from fmod)"""
    _integer_divisor_check(a, b)
    return xp.floor_divide(a, b)


def _trunc_divide(a, b):
    """trunc(a / b): the quotient rounded toward zero"""
    _integer_divisor_check(a, b)
    if xp.result_type(a, b).kind == "f":
        return xp.trunc(xp.true_divide(a, b))
    q = xp.floor_divide(a, b)
    inexact = (q * b != a) & ((xp.asarray(a) < 0) != (xp.asarray(b) < 0))
    return q + inexact.astype(q.dtype)


def _div_rounding(a, b, rounding_mode="floor"):
    """a / b rounded toward -inf ('floor') or toward zero ('trunc')"""
    return (_floor_divide if rounding_mode == "floor" else _trunc_divide)(a, b)


def _remainder_node(a, b):
    return "RemainderBackward1" if hasattr(b, "shape") else "RemainderBackward0"


def _fmod_node(a, b):
    return "FmodBackward1" if hasattr(b, "shape") else "FmodBackward0"


remainder = defop(
    "remainder",
    _remainder,
    args=("a", "b"),
    dtypes=_divides("remainder_cpu"),
    node=_remainder_node,
    vjp=(
        lambda g: g,  # d/da (a - b⌊a/b⌋) = 1 (almost everywhere)
        lambda g, a, b: -g * div_rounding(a, b, rounding_mode="floor"),  # d/db = -⌊a/b⌋
    ),
    jvp=(
        lambda t: t,  # as the VJP
        lambda t, a, b: -t * div_rounding(a, b, rounding_mode="floor"),  # as the VJP
    ),
    conventions="d/da = 1 and d/db = -⌊a/b⌋ everywhere, the jumps where b divides a included.",
)

fmod = defop(
    "fmod",
    _fmod,
    args=("a", "b"),
    dtypes=_divides("fmod_cpu"),
    node=_fmod_node,
    vjp=(
        lambda g: g,  # d/da (a - b trunc(a/b)) = 1 (almost everywhere)
        lambda g, a, b: -g * div_rounding(a, b, rounding_mode="trunc"),  # d/db = -trunc(a/b)
    ),
    jvp=(
        lambda t: t,  # as the VJP
        lambda t, a, b: -t * div_rounding(a, b, rounding_mode="trunc"),  # as the VJP
    ),
    conventions="d/da = 1 and d/db = -trunc(a/b) everywhere, the jumps included.",
)

div_rounding = defop(
    "div_rounding",
    _div_rounding,
    args=("a", "b"),
    dtypes=_divides("div_{}_cpu"),
    node="DivBackward2",
    vjp=(
        lambda g: copies.zero(g),  # d/da ⌊a/b⌋ = 0 (almost everywhere)
        lambda g: copies.zero(g),  # d/db ⌊a/b⌋ = 0 (almost everywhere)
    ),
    jvp=(
        lambda t: copies.zero(t),  # as the VJP
        lambda t: copies.zero(t),  # as the VJP
    ),
    conventions="The derivative is 0 everywhere, as PyTorch's div(rounding_mode=...) gives.",
)

_FLOOR_DIVIDE = not_differentiable("floor_divide")

floor_divide = defop(
    "floor_divide",
    _floor_divide,
    args=("a", "b"),
    dtypes=_divides("div_floor_cpu"),
    node="NotImplemented",
    vjp=(_FLOOR_DIVIDE[0], _FLOOR_DIVIDE[0]),
    jvp=(_FLOOR_DIVIDE[1], _FLOOR_DIVIDE[1]),
    conventions="No derivative: backward raises, as in PyTorch (use div(rounding_mode='floor')"
    " for a zero gradient).",
)

_REMAINDER = not_differentiable("remainder")

remainder_scalar_tensor = defop(
    "remainder_scalar_tensor",
    _remainder,
    args=("a", "b"),
    dtypes=_divides("remainder_cpu"),
    node="NotImplemented",
    vjp=(_REMAINDER[0], _REMAINDER[0]),
    jvp=(_REMAINDER[1], _REMAINDER[1]),
    conventions="remainder(number, tensor) has no derivative in PyTorch: backward raises.",
)


# ----- conf-names: addcmul, addcdiv ------------------------------------------------------


def _addcmul(x, t1, t2, value=1):
    """x + value·t1·t2"""
    return x + value * (t1 * t2)


addcmul = defop(
    "addcmul",
    _addcmul,
    args=("x", "t1", "t2"),
    vjp=(
        lambda g: g,  # ∂/∂x = 1
        lambda g, t2, value: g * t2 * value,  # ∂/∂t1 = value·t2
        lambda g, t1, value: g * t1 * value,  # ∂/∂t2 = value·t1
    ),
    jvp=(
        lambda t: t,  # as the VJP
        lambda t, t2, value: t * t2 * value,  # as the VJP
        lambda t, t1, value: t * t1 * value,  # as the VJP
    ),
    complex="holomorphic",
)


def _addcdiv(x, t1, t2, value=1):
    """x + value·t1/t2"""
    return x + value * (t1 / t2)


addcdiv = defop(
    "addcdiv",
    _addcdiv,
    args=("x", "t1", "t2"),
    vjp=(
        lambda g: g,  # ∂/∂x = 1
        lambda g, t2, value: g * value / t2,  # ∂/∂t1 = value/t2
        lambda g, t1, t2, value: -g * value * t1 / (t2 * t2),  # ∂/∂t2 = -value·t1/t2²
    ),
    jvp=(
        lambda t: t,  # as the VJP
        lambda t, t2, value: t * value / t2,  # as the VJP
        lambda t, t1, t2, value: -t * value * t1 / (t2 * t2),  # as the VJP
    ),
    complex="holomorphic",
)


# ----- conf2: gcd, lcm ------------------------------------------------------------------


def _integers_only(kernel: str):
    """A dtype rule: PyTorch's promotion, and its NotImplementedError for a float or bool
    result (``"gcd_cpu" not implemented for 'Float'``)."""

    def rule(args, params):
        dtype = result_type(args)
        if dtype._category != 1:
            raise _dtypes.not_implemented(kernel, dtype)
        return dtype

    return rule


def _gcd(a, b):
    """the greatest common divisor of |a| and |b| (0 for gcd(0, 0))"""
    _check_integers("gcd_cpu", a, b)
    return xp.gcd(a, b)


def _check_integers(kernel: str, a, b) -> None:
    for v in (a, b):
        if getattr(v, "dtype", None) is not None and v.dtype.kind not in "iu":
            raise _dtypes.not_implemented(kernel, _dtypes._FROM_NP[v.dtype])


gcd = defop(
    "gcd",
    _gcd,
    args=("a", "b"),
    dtypes=_integers_only("gcd_cpu"),
    vjp=(None, None),
)


def _lcm(a, b):
    """|a / gcd(a, b) · b|, 0 if either is 0 (wrapping on overflow, as PyTorch's)"""
    _check_integers("lcm_cpu", a, b)
    g = xp.gcd(a, b)
    with xp.errstate(all="ignore"):
        out = xp.abs(xp.floor_divide(a, xp.where(g == 0, 1, g)) * b)
    return xp.where(g == 0, xp.zeros((), out.dtype), out).astype(out.dtype, copy=False)


lcm = defop(
    "lcm",
    _lcm,
    args=("a", "b"),
    dtypes=_integers_only("lcm_cpu"),
    vjp=(None, None),
)
