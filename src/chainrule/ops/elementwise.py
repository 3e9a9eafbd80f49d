"""Elementwise ops. Each entry: forward on arrays, then one VJP per input.

Broadcasting and dtype casts of gradients are undone by the engine, so a VJP
here returns the gradient at the broadcast shape.
"""

from __future__ import annotations

import math

from .._backend import xp
from .._op import FLOAT, KEEP, defop, result_type

# ----- arithmetic ----------------------------------------------------------------


def _add(a, b, alpha=1):
    """a + alpha * b"""
    return a + b if alpha == 1 else a + alpha * b


def _sub(a, b, alpha=1):
    """a - alpha * b"""
    if _is_bool(a) and _is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    return a - b if alpha == 1 else a - alpha * b


def _is_bool(a) -> bool:
    return getattr(a, "dtype", None) == xp.bool_ or isinstance(a, bool)


def _neg(x):
    """-x"""
    if x.dtype == xp.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return xp.negative(x)


add = defop(
    "add", _add, args=("a", "b"),
    vjp=(
        lambda g: g,  # d(a + αb)/da = 1
        lambda g, alpha: g if alpha == 1 else g * alpha,  # d(a + αb)/db = α
    ),
    jvp=(lambda t: t, lambda t, alpha: t if alpha == 1 else t * alpha),
)
sub = defop(
    "sub", _sub, args=("a", "b"),
    vjp=(
        lambda g: g,  # d(a - αb)/da = 1
        lambda g, alpha: -g if alpha == 1 else -g * alpha,  # d(a - αb)/db = -α
    ),
    jvp=(lambda t: t, lambda t, alpha: -t if alpha == 1 else -t * alpha),
)


def _rsub(x, other=0, alpha=1):
    """other - alpha * x"""
    return other - x if alpha == 1 else other - alpha * x


rsub = defop(
    "rsub", _rsub, node="RsubBackward1",
    dtypes=lambda args, params: result_type((args[0], params.get("other", 0))),
    vjp=lambda g, alpha: -g if alpha == 1 else -g * alpha,  # d(c - αx)/dx = -α
    jvp=lambda t, alpha: -t if alpha == 1 else -t * alpha,
)
mul = defop(
    "mul", xp.multiply, args=("a", "b"),
    vjp=(
        lambda g, b: g * b,  # d(ab)/da = b
        lambda g, a: g * a,  # d(ab)/db = a
    ),
    jvp=(lambda t, b: t * b, lambda t, a: a * t),
)
div = defop(
    "div", xp.true_divide, args=("a", "b"), dtypes=FLOAT,
    vjp=(
        lambda g, b: g / b,  # d(a/b)/da = 1/b
        lambda g, a, b: -g * ((a / b) / b),  # d(a/b)/db = -a/b²
    ),
    jvp=(lambda t, b: t / b, lambda t, a, b: -t * ((a / b) / b)),
)
neg = defop("neg", _neg, vjp=lambda g: -g, jvp=lambda t: -t)  # d(-x)/dx = -1
reciprocal = defop(
    "reciprocal", xp.reciprocal, dtypes=FLOAT,
    vjp=lambda g, ans: -g * (ans * ans),  # d(1/x)/dx = -1/x²
    jvp=lambda t, ans: -t * (ans * ans),
)


def _pow(x, exponent=1):
    """x ** exponent, exponent a Python number"""
    if x.dtype.kind in "biu" and isinstance(exponent, int) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return xp.power(x, exponent)


def _pow_tensors(a, b):
    """a ** b elementwise; integer b < 0 gives PyTorch's integer results (1/a truncated)"""
    if getattr(b, "dtype", xp.float64).kind in "iu" and getattr(a, "dtype", None) is not None:
        if a.dtype.kind in "iu" and (b < 0).any():
            pos = xp.power(a, xp.maximum(b, 0))
            odd = xp.where(b % 2 == 0, 1, -1)
            neg = xp.where(a == 1, 1, xp.where(a == -1, odd, 0)).astype(pos.dtype)
            return xp.where(b < 0, neg, pos)
    return xp.power(a, b)


def _pow_dtype(args, params):
    return result_type((args[0], params.get("exponent", 1)))


def _pow_scalar_vjp(g, x, exponent):
    # d(x^c)/dx = c x^(c-1); PyTorch gives 0 for c == 0 (even at x == 0)
    if exponent == 0:
        return g * 0
    return g * (exponent * x ** (exponent - 1))


pow_scalar = defop(
    "pow", _pow, node="PowBackward0", dtypes=_pow_dtype, vjp=_pow_scalar_vjp,
    jvp=_pow_scalar_vjp,  # linear in its first argument, so the same rule pushes tangents
    conventions="d/dx x^0 = 0 everywhere, x = 0 included.",
)


def _pow_tensor_base_vjp(g, a, b):
    # d(a^b)/da = b a^(b-1), taken as 0 where b == 0
    return where(b == 0, 0.0, g * (b * a ** (b - 1)))


def _pow_tensor_exp_vjp(g, a, b, ans):
    # d(a^b)/db = a^b ln a, taken as 0 where a == 0 and b >= 0 (the limit for b > 0)
    grad = g * (ans * log(a))
    return where(a == 0, where(b >= 0, 0.0, grad), grad)


pow_tensor = defop(
    "pow_tensor", _pow_tensors, args=("a", "b"), node="PowBackward1",
    vjp=(_pow_tensor_base_vjp, _pow_tensor_exp_vjp),
    jvp=(_pow_tensor_base_vjp, _pow_tensor_exp_vjp),  # elementwise: VJP and JVP coincide
    conventions="d/da a^b = 0 where b = 0; d/db a^b = 0 where a = 0 and b >= 0.",
)


def _rpow(x, base=1):
    """base ** x, base a Python number"""
    return xp.power(base, x)


def _rpow_vjp(g, x, ans, base):
    # d(c^x)/dx = c^x ln c; for c == 0, 0 where x >= 0 (and ±inf where x < 0)
    if base == 0:
        return where(x >= 0, 0.0, g * (ans * -math.inf))
    return g * (ans * math.log(base))


pow_scalar_base = defop(
    "pow_scalar_base", _rpow, node="PowBackward2",
    dtypes=lambda args, params: result_type((args[0], params.get("base", 1))),
    vjp=_rpow_vjp,
    jvp=_rpow_vjp,
)


# ----- one-input functions ----------------------------------------------------------

# For an elementwise op, the Jacobian is diagonal: the JVP multiplies the tangent by
# the same local derivative the VJP multiplies the gradient by.
exp = defop(
    "exp", xp.exp, dtypes=FLOAT,
    vjp=lambda g, ans: g * ans,  # d/dx e^x = e^x
    jvp=lambda t, ans: t * ans,
)
log = defop(
    "log", xp.log, dtypes=FLOAT,
    vjp=lambda g, x: g / x,  # d/dx ln x = 1/x
    jvp=lambda t, x: t / x,
)
sin = defop(
    "sin", xp.sin, dtypes=FLOAT,
    vjp=lambda g, x: g * cos(x),  # d/dx sin x = cos x
    jvp=lambda t, x: t * cos(x),
)
cos = defop(
    "cos", xp.cos, dtypes=FLOAT,
    vjp=lambda g, x: g * -sin(x),  # d/dx cos x = -sin x
    jvp=lambda t, x: t * -sin(x),
)
tanh = defop(
    "tanh", xp.tanh, dtypes=FLOAT,
    vjp=lambda g, ans: g * (1 - ans * ans),  # d/dx tanh x = 1 - tanh² x
    jvp=lambda t, ans: t * (1 - ans * ans),
)


def _sigmoid(x):
    """1 / (1 + e^-x); e^-x overflowing to inf gives the right limit, 0"""
    return 1 / (1 + xp.exp(-x))


sigmoid = defop(
    "sigmoid", _sigmoid, dtypes=FLOAT,
    vjp=lambda g, ans: g * ((1 - ans) * ans),  # d/dx σ(x) = σ(x)(1 - σ(x))
    jvp=lambda t, ans: t * ((1 - ans) * ans),
)
sqrt = defop(
    "sqrt", xp.sqrt, dtypes=FLOAT,
    vjp=lambda g, ans: g / (2 * ans),  # d/dx √x = 1/(2√x)
    jvp=lambda t, ans: t / (2 * ans),
    conventions="At x = 0 the gradient is inf (g / 0), as in PyTorch.",
)


def _relu(x):
    """max(x, 0)"""
    return xp.maximum(x, 0)


relu = defop(
    "relu", _relu,
    vjp=lambda g, ans: where(ans > 0, g, 0),  # d/dx max(x, 0) = [x > 0]
    jvp=lambda t, ans: where(ans > 0, t, 0),
    conventions="relu'(0) = 0.",
)
sign = defop(
    "sign", xp.sign,
    vjp=lambda g: g * 0,  # d/dx sign x = 0 (almost everywhere)
    jvp=lambda t: t * 0,
)
abs = defop(  # noqa: A001
    "abs", xp.abs,
    vjp=lambda g, x: g * sign(x),  # d/dx |x| = sign x
    jvp=lambda t, x: t * sign(x),
    conventions="abs'(0) = 0 (sign(0) = 0).",
)


def _where(a, b, condition=True):
    """a where condition else b (condition a bool array)"""
    return xp.where(condition, a, b)


_where_op = defop(
    "where", _where, args=("a", "b"), node="WhereBackward0",
    vjp=(
        lambda g, condition: where(condition, g, 0),  # d/da = [condition]
        lambda g, condition: where(condition, 0, g),  # d/db = [not condition]
    ),
    jvp=(
        lambda t, condition: where(condition, t, 0),
        lambda t, condition: where(condition, 0, t),
    ),
)


def where(condition, a, b):
    """a where condition else b; the condition has no gradient, so it is no input of the node."""
    if hasattr(condition, "_data"):
        condition = condition._data
    if not hasattr(a, "_data") and not hasattr(b, "_data"):  # two Python numbers
        from .._creation import tensor

        a = tensor(a)
    return _where_op(a, b, condition=condition)

# ----- copies and casts --------------------------------------------------------------


def _clone(x, memory_format=None):
    """a copy of x"""
    return x.copy()


clone = defop("clone", _clone, dtypes=KEEP, vjp=lambda g: g, jvp=lambda t: t)  # d/dx x = 1


def _to_dtype(x, dtype=None):
    """x cast to dtype"""
    return x.astype(dtype.np)


to_dtype = defop(
    "to_dtype", _to_dtype, dtypes=KEEP, node="ToCopyBackward0",
    vjp=lambda g: g,  # the engine casts the gradient back to x's dtype
    jvp=lambda t: t,  # and the tangent to the output's dtype
)


def _fill(x, value=0):
    """an array of x's shape full of value"""
    return xp.full_like(x, value._data if hasattr(value, "_data") else value)


fill = defop(
    "fill", _fill, dtypes=KEEP, node="FillBackward2",
    vjp=lambda g: g * 0,  # the old values are gone
    jvp=lambda t: t * 0,
)


def _zero(x):
    """zeros of x's shape"""
    return xp.zeros_like(x)


zero = defop("zero", _zero, dtypes=KEEP, vjp=lambda g: g * 0, jvp=lambda t: t * 0)


def _copy_from(dst, src):
    """src broadcast to dst's shape and cast to its dtype"""
    return xp.array(xp.broadcast_to(src, dst.shape), dtype=dst.dtype)


copy_from = defop(
    "copy_from", _copy_from, args=("dst", "src"), dtypes=KEEP, node="CopyBackwards",
    vjp=(
        lambda g: g * 0,  # dst is overwritten
        lambda g: g,  # the engine sums it to src's shape and casts to src's dtype
    ),
    jvp=(lambda t: t * 0, lambda t: t),
)

# ----- comparisons: bool results, no gradient --------------------------------------


def _comparison(name: str, fn):
    return defop(name, fn, args=("a", "b"), vjp=(None, None))


eq = _comparison("eq", xp.equal)
ne = _comparison("ne", xp.not_equal)
lt = _comparison("lt", xp.less)
le = _comparison("le", xp.less_equal)
gt = _comparison("gt", xp.greater)
ge = _comparison("ge", xp.greater_equal)
