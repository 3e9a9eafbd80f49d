"""logical: TODO docstring."""

from __future__ import annotations

from .._backend import xp
from .._promotion import result_type
from ..autograd.recording import KEEP, defop
from . import arithmetic, copies, unary


def _where(a, b, condition=True):
    """a where condition else b (condition a bool array)"""
    return xp.where(condition, a, b)


def _where_dtype(args, params):
    dtype = result_type(args)
    if dtype._category == 1:  # an int scalar must fit an integer result
        for v in args:
            arithmetic.check_scalar_fits(v, dtype)
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

builtins_bool = True.__class__

# ----- logical, bitwise and predicates: no gradient ----------------------------------------

logical_and_op = defop(
    "logical_and", xp.logical_and, args=("a", "b"), dtypes=KEEP, vjp=(None, None)
)

logical_or_op = defop("logical_or", xp.logical_or, args=("a", "b"), dtypes=KEEP, vjp=(None, None))

logical_xor_op = defop(
    "logical_xor", xp.logical_xor, args=("a", "b"), dtypes=KEEP, vjp=(None, None)
)

logical_not_op = defop("logical_not", xp.logical_not, dtypes=KEEP, vjp=None)

isnan_op = defop("isnan", xp.isnan, dtypes=KEEP, vjp=None)

isinf_op = defop("isinf", xp.isinf, dtypes=KEEP, vjp=None)

isfinite_op = defop("isfinite", xp.isfinite, dtypes=KEEP, vjp=None)


def _bitwise(name: str, fn):
    def forward(a, b):
        dtype = xp.result_type(a, b)
        if dtype.kind == "f":
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'Float'")
        a = a.astype(dtype) if hasattr(a, "astype") else xp.asarray(a).astype(dtype)
        b = b.astype(dtype) if hasattr(b, "astype") else xp.asarray(b).astype(dtype)
        return fn(a, b)

    forward.__doc__ = f"{name}(a, b): logical on bools, bitwise on integers"
    return defop(name, forward, args=("a", "b"), vjp=(None, None))


bitwise_and_op = _bitwise("bitwise_and", xp.bitwise_and)

bitwise_or_op = _bitwise("bitwise_or", xp.bitwise_or)

bitwise_xor_op = _bitwise("bitwise_xor", xp.bitwise_xor)


def _bitwise_not(x):
    """~x: logical not on bools, two's complement not on integers"""
    if x.dtype.kind == "f":
        raise unary._not_implemented("bitwise_not_cpu", _dtype_of(x))
    return xp.invert(x)


def _dtype_of(arr):
    from .._dtypes import _FROM_NP

    return _FROM_NP[arr.dtype]


bitwise_not_op = defop("bitwise_not", _bitwise_not, dtypes=KEEP, vjp=None)


def _comparison_inplace(name: str, fn):
    """``x.eq_(y)``: the comparison written into x; for a float x, its gradient is 0."""

    def forward(a, b, dtype=None):
        out = fn(a, b)
        return out if dtype is None else out.astype(dtype)

    forward.__doc__ = f"{name}(a, b), as 1 and 0 of ``dtype`` when given"
    return defop(
        f"{name}_",
        forward,
        args=("a", "b"),
        node=f"{name.capitalize()}Backward0",
        vjp=(lambda g: copies.zero(g), lambda g: copies.zero(g)),  # a step function of a and b
        jvp=(lambda t: copies.zero(t), lambda t: copies.zero(t)),
        conventions="The gradient is 0 everywhere, as PyTorch's.",
    )


_COMPARE_INPLACE = {
    op.name: _comparison_inplace(op.name, op.forward) for op in (eq, ne, lt, le, gt, ge)
}
