"""Elementwise ops. Each entry: forward on arrays, then one VJP per input.

Broadcasting and dtype casts of gradients are undone by the engine, so a VJP
here returns the gradient at the broadcast shape.
"""

from __future__ import annotations

import math

from .._backend import ndarray, xp
from .._dtypes import bool as _bool
from .._dtypes import float16 as _float16
from .._dtypes import get_default_dtype
from .._promotion import result_type
from ..autograd.recording import FLOAT, defop
from .copies import clone, copy_from, fill, fill_tensor, to_dtype, zero  # noqa: F401

# NumPy's dtype singletons, compared by identity on the forward paths
F16 = xp.dtype(xp.float16)
BOOL = xp.dtype(xp.bool_)

# ----- arithmetic ----------------------------------------------------------------


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
    if kind in "biu" and isinstance(alpha, float):
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )
    if kind == "b":  # a nonzero alpha is True for bool results
        return b if alpha else xp.zeros_like(b)
    return alpha * b


_C_TYPE = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t",
           "int64": "int64_t"}  # fmt: skip


def check_scalar_fits(value, dtype) -> None:
    """PyTorch's error for a Python number a dtype cannot hold, where PyTorch takes a scalar
    argument (pow's exponent, clamp's bounds, where's value): an int out of an integer
    dtype's range (an unsigned dtype also takes negatives down to -max: they wrap), or a
    finite number beyond float16's largest."""
    if dtype is _float16 and value.__class__ in (int, float):
        if math.isfinite(value) and abs(value) > 65504:
            raise RuntimeError("value cannot be converted to type c10::Half without overflow")
        return
    if value.__class__ is not int or dtype._category != 1:
        return
    info = xp.iinfo(dtype.np)
    if not (-info.max if info.min == 0 else info.min) <= value <= info.max:
        raise RuntimeError(
            f"value cannot be converted to type {_C_TYPE[dtype.name]} without overflow"
        )


def as_float(a):
    """An integer or bool array as the default float dtype, as PyTorch computes ln, 2^x ...
    of integers (NumPy would use float16 for 8-bit ones); anything else unchanged."""
    if a.__class__ is ndarray and a.dtype.kind in "biu":
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
    vjp=(
        lambda g: g,  # d(a + αb)/da = 1
        lambda g, alpha: g if alpha == 1 else g * alpha,  # d(a + αb)/db = α
    ),
    jvp=(lambda t: t, lambda t, alpha: t if alpha == 1 else t * alpha),
)
sub = defop(
    "sub",
    _sub,
    args=("a", "b"),
    dtypes=_sub_dtype,
    vjp=(
        lambda g: g,  # d(a - αb)/da = 1
        lambda g, alpha: -g if alpha == 1 else -g * alpha,  # d(a - αb)/db = -α
    ),
    jvp=(lambda t: t, lambda t, alpha: -t if alpha == 1 else -t * alpha),
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
    vjp=lambda g, alpha: -g if alpha == 1 else -g * alpha,  # d(c - αx)/dx = -α
    jvp=lambda t, alpha: -t if alpha == 1 else -t * alpha,
)
mul = defop(
    "mul",
    xp.multiply,
    args=("a", "b"),
    vjp=(
        lambda g, b: g * b,  # d(ab)/da = b
        lambda g, a: g * a,  # d(ab)/db = a
    ),
    jvp=(lambda t, b: t * b, lambda t, a: a * t),
)
div = defop(
    "div",
    xp.true_divide,
    args=("a", "b"),
    dtypes=FLOAT,
    vjp=(
        lambda g, b: g / b,  # d(a/b)/da = 1/b
        lambda g, a, b: -g * ((a / b) / b),  # d(a/b)/db = -a/b²
    ),
    jvp=(lambda t, b: t / b, lambda t, a, b: -t * ((a / b) / b)),
)
neg = defop("neg", _neg, vjp=lambda g: -g, jvp=lambda t: -t)  # d(-x)/dx = -1
reciprocal = defop(
    "reciprocal",
    xp.reciprocal,
    dtypes=FLOAT,
    vjp=lambda g, ans: -g * (ans * ans),  # d(1/x)/dx = -1/x²
    jvp=lambda t, ans: -t * (ans * ans),
)


def _pow(x, exponent=1):
    """x ** exponent, exponent a Python number"""
    dtype = x.dtype
    if dtype.kind != "f":
        if isinstance(exponent, int) and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if exponent.__class__ is bool and dtype is BOOL:  # NumPy gives int8; PyTorch bool
            return x.copy() if exponent else xp.ones_like(x)
    elif dtype is F16:  # (float tensors skip the dtype rule, which checks the rest)
        check_scalar_fits(exponent, _float16)
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
    # d(x^c)/dx = c x^(c-1); PyTorch gives 0 for c == 0 (even at x == 0)
    if exponent == 0:
        return zero(g)  # zeros, not g * 0: a nan gradient stays out, as in PyTorch
    return g * (exponent * x ** (exponent - 1))


pow_scalar = defop(
    "pow",
    _pow,
    node="PowBackward0",
    dtypes=_pow_dtype,
    vjp=_pow_scalar_vjp,
    jvp=_pow_scalar_vjp,  # linear in its first argument, so the same rule pushes tangents
    conventions="d/dx x^0 = 0 everywhere, x = 0 included.",
)


def _pow_tensor_base_vjp(g, a, b):
    # d(a^b)/da = b a^(b-1), taken as 0 where b == 0
    return where(b == 0, 0.0, g * (b * a ** (b - 1)))


def _pow_tensor_exp_vjp(g, a, b, ans):
    # d(a^b)/db = a^b ln a, taken as 0 where a == 0 and b >= 0 (the limit for b > 0)
    grad = g * (ans * log(as_float(a)))
    return where(a == 0, where(b >= 0, 0.0, grad), grad)


pow_tensor = defop(
    "pow_tensor",
    _pow_tensors,
    args=("a", "b"),
    node="PowBackward1",
    dtypes=_pow_operands_dtype,
    vjp=(_pow_tensor_base_vjp, _pow_tensor_exp_vjp),
    jvp=(_pow_tensor_base_vjp, _pow_tensor_exp_vjp),  # elementwise: VJP and JVP coincide
    conventions="d/da a^b = 0 where b = 0; d/db a^b = 0 where a = 0 and b >= 0.",
)


def _rpow(x, base=1):
    """base ** x, base a Python number"""
    if base.__class__ is int and x.dtype.kind in "iu":  # wraps into x's dtype, as PyTorch's
        base = xp.asarray(base).astype(x.dtype)
    return xp.power(base, x)


def _rpow_vjp(g, x, ans, base):
    # d(c^x)/dx = c^x ln c; for c == 0, 0 where x >= 0 (and ±inf where x < 0)
    if base == 0:
        return where(x >= 0, 0.0, g * (ans * -math.inf))
    return g * (ans * math.log(base))


pow_scalar_base = defop(
    "pow_scalar_base",
    _rpow,
    node="PowBackward2",
    dtypes=_pow_operands_dtype,
    vjp=_rpow_vjp,
    jvp=_rpow_vjp,
)


# ----- one-input functions ----------------------------------------------------------

# For an elementwise op, the Jacobian is diagonal: the JVP multiplies the tangent by
# the same local derivative the VJP multiplies the gradient by.
exp = defop(
    "exp",
    xp.exp,
    dtypes=FLOAT,
    vjp=lambda g, ans: g * ans,  # d/dx e^x = e^x
    jvp=lambda t, ans: t * ans,
)
log = defop(
    "log",
    xp.log,
    dtypes=FLOAT,
    vjp=lambda g, x: g / x,  # d/dx ln x = 1/x
    jvp=lambda t, x: t / x,
)
sin = defop(
    "sin",
    xp.sin,
    dtypes=FLOAT,
    vjp=lambda g, x: g * cos(x),  # d/dx sin x = cos x
    jvp=lambda t, x: t * cos(x),
)
cos = defop(
    "cos",
    xp.cos,
    dtypes=FLOAT,
    vjp=lambda g, x: g * -sin(x),  # d/dx cos x = -sin x
    jvp=lambda t, x: t * -sin(x),
)
tanh = defop(
    "tanh",
    xp.tanh,
    dtypes=FLOAT,
    vjp=lambda g, ans: g * (1 - ans * ans),  # d/dx tanh x = 1 - tanh² x
    jvp=lambda t, ans: t * (1 - ans * ans),
)


def _sigmoid(x):
    """1 / (1 + e^-x); e^-x overflowing to inf gives the right limit, 0"""
    return 1 / (1 + xp.exp(-x))


sigmoid = defop(
    "sigmoid",
    _sigmoid,
    dtypes=FLOAT,
    vjp=lambda g, ans: g * ((1 - ans) * ans),  # d/dx σ(x) = σ(x)(1 - σ(x))
    jvp=lambda t, ans: t * ((1 - ans) * ans),
)
sqrt = defop(
    "sqrt",
    xp.sqrt,
    dtypes=FLOAT,
    vjp=lambda g, ans: g / (2 * ans),  # d/dx √x = 1/(2√x)
    jvp=lambda t, ans: t / (2 * ans),
    conventions="At x = 0 the gradient is inf (g / 0), as in PyTorch.",
)


def _relu(x):
    """max(x, 0)"""
    return xp.maximum(x, 0)


def _no_bool(message: str, error=RuntimeError):
    """A dtype rule: PyTorch's promotion, with its error for a bool input."""

    def rule(args, params):
        if args[0]._dtype is _bool:
            raise error(message)
        return args[0]._dtype

    return rule


relu = defop(
    "relu",
    _relu,
    dtypes=_no_bool("Boolean inputs not supported for relu"),
    vjp=lambda g, ans: where(ans > 0, g, 0),  # d/dx max(x, 0) = [x > 0]
    jvp=lambda t, ans: where(ans > 0, t, 0),
    conventions="relu'(0) = 0.",
)


def _sign(x):
    """-1, 0 or 1 by the sign of x (a bool stays bool)"""
    return x.copy() if x.dtype is BOOL else xp.sign(x)


sign = defop(
    "sign",
    _sign,
    vjp=lambda g: zero(g),  # d/dx sign x = 0 (almost everywhere)
    jvp=lambda t: zero(t),
)
abs = defop(  # noqa: A001
    "abs",
    xp.abs,
    dtypes=_no_bool("\"abs_cpu\" not implemented for 'Bool'", NotImplementedError),
    vjp=lambda g, x: g * sign(x),  # d/dx |x| = sign x
    jvp=lambda t, x: t * sign(x),
    conventions="abs'(0) = 0 (sign(0) = 0).",
)


def _where(a, b, condition=True):
    """a where condition else b (condition a bool array)"""
    return xp.where(condition, a, b)


def _where_dtype(args, params):
    dtype = result_type(args)
    if dtype._category == 1:  # an int scalar must fit an integer result
        for v in args:
            check_scalar_fits(v, dtype)
    return dtype


_where_op = defop(
    "where",
    _where,
    args=("a", "b"),
    node="WhereBackward0",
    dtypes=_where_dtype,
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


# ----- comparisons: bool results, no gradient --------------------------------------


def _comparison(name: str, fn):
    return defop(name, fn, args=("a", "b"), vjp=(None, None))


eq = _comparison("eq", xp.equal)
ne = _comparison("ne", xp.not_equal)
lt = _comparison("lt", xp.less)
le = _comparison("le", xp.less_equal)
gt = _comparison("gt", xp.greater)
ge = _comparison("ge", xp.greater_equal)
