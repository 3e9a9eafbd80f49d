"""Comparisons, selection, logical and bitwise ops, predicates: results that are
bools or integers and carry no gradient, and ``where``, whose gradient flows to the chosen
branch.

``select`` is ``where`` for use inside VJPs and JVPs: on arrays (backward without
create_graph) it is NumPy's where, on tensors the op itself."""

from __future__ import annotations

from .. import _dtypes
from .._backend import xp
from .._promotion import result_type
from .._tensor import Tensor
from ..autograd.recording import KEEP, PROMOTE, array_of, defop
from . import arithmetic, binary, copies, unary


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
        lambda t, condition: where(condition, t, 0),  # as the VJP
        lambda t, condition: where(condition, 0, t),  # as the VJP
    ),
    complex="wirtinger",
    conventions="A real input beside a complex one gets the real part of its complex gradient "
    "(PyTorch's backward fails there, on an internal check).",
)


def where(condition, a, b):
    """a where condition else b; the condition has no gradient, so it is no input of the node."""
    if hasattr(condition, "_data"):
        condition = condition._data
    if not hasattr(a, "_data") and not hasattr(b, "_data"):
        if a.__class__ in _NUMBERS and b.__class__ in _NUMBERS:  # two Python numbers
            from .._creation import tensor

            a = tensor(a)
        else:  # arrays (a VJP running on arrays): the forward alone
            return _where(a, b, condition)
    return _where_op(a, b, condition=condition)


_NUMBERS = (int, float, bool, complex)


# ----- comparisons: bool results, no gradient --------------------------------------


def _comparison(name: str, fn, doc: str, ordered: bool = True):
    """A comparison op; an ordering (<, ≤, >, ≥) refuses complex values, as PyTorch's
    kernels (``"lt_cpu" not implemented for 'ComplexFloat'``)."""
    rule = unary.real_only(f"{name}_cpu", rule=None) if ordered else PROMOTE
    return defop(name, fn, args=("a", "b"), vjp=(None, None), doc=doc, dtypes=rule)


eq = _comparison("eq", xp.equal, "a = b, elementwise", ordered=False)

ne = _comparison("ne", xp.not_equal, "a ≠ b, elementwise", ordered=False)

lt = _comparison("lt", xp.less, "a < b, elementwise")

le = _comparison("le", xp.less_equal, "a ≤ b, elementwise")

gt = _comparison("gt", xp.greater, "a > b, elementwise")

ge = _comparison("ge", xp.greater_equal, "a ≥ b, elementwise")

builtins_bool = True.__class__

# ----- logical, bitwise and predicates: no gradient ----------------------------------------

logical_and = defop(
    "logical_and",
    xp.logical_and,
    args=("a", "b"),
    dtypes=KEEP,
    vjp=(None, None),
    doc="a and b, nonzero as true",
)

logical_or = defop(
    "logical_or",
    xp.logical_or,
    args=("a", "b"),
    dtypes=KEEP,
    vjp=(None, None),
    doc="a or b, nonzero as true",
)

logical_xor = defop(
    "logical_xor",
    xp.logical_xor,
    args=("a", "b"),
    dtypes=KEEP,
    vjp=(None, None),
    doc="a xor b: true where exactly one is nonzero",
)

logical_not = defop(
    "logical_not", xp.logical_not, dtypes=KEEP, vjp=None, doc="not x: true where x is 0"
)

isnan = defop("isnan", xp.isnan, dtypes=KEEP, vjp=None, doc="True where x is nan")

isinf = defop("isinf", xp.isinf, dtypes=KEEP, vjp=None, doc="True where x is +inf or -inf")

isfinite = defop(
    "isfinite", xp.isfinite, dtypes=KEEP, vjp=None, doc="True where x is neither nan nor ±inf"
)


def _bitwise(name: str, fn):
    def forward(a, b):
        dtype = xp.result_type(a, b)
        if dtype.kind in "fc":
            raise _dtypes.not_implemented(f"{name}_cpu", _dtypes.from_numpy_dtype(dtype))
        a = a.astype(dtype) if hasattr(a, "astype") else xp.asarray(a).astype(dtype)
        b = b.astype(dtype) if hasattr(b, "astype") else xp.asarray(b).astype(dtype)
        return fn(a, b)

    forward.__doc__ = f"{name}(a, b): logical on bools, bitwise on integers"
    return defop(name, forward, args=("a", "b"), vjp=(None, None))


bitwise_and = _bitwise("bitwise_and", xp.bitwise_and)

bitwise_or = _bitwise("bitwise_or", xp.bitwise_or)

bitwise_xor = _bitwise("bitwise_xor", xp.bitwise_xor)


def _bitwise_not(x):
    """~x: logical not on bools, two's complement not on integers"""
    if x.dtype.kind in "fc":
        raise _dtypes.not_implemented("bitwise_not_cpu", _dtypes.from_numpy_dtype(x.dtype))
    return xp.invert(x)


bitwise_not = defop("bitwise_not", _bitwise_not, dtypes=KEEP, vjp=None)


def _signbit(x):
    """True where x's sign bit is set (-0.0 and -nan included)"""
    if x.dtype.kind == "c":
        raise NotImplementedError("signbit is not implemented for complex tensors.")
    return xp.signbit(x)


def _isposinf(x):
    """True where x is +inf"""
    if x.dtype.kind == "c":
        raise RuntimeError("isposinf does not support complex inputs.")
    return xp.isposinf(x)


def _isneginf(x):
    """True where x is -inf"""
    if x.dtype.kind == "c":
        raise RuntimeError("isneginf does not support complex inputs.")
    return xp.isneginf(x)


signbit = defop("signbit", _signbit, dtypes=KEEP, vjp=None)

isposinf = defop("isposinf", _isposinf, dtypes=KEEP, vjp=None)

isneginf = defop("isneginf", _isneginf, dtypes=KEEP, vjp=None)


def _isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol |b| (infinities equal only to themselves)"""
    return xp.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


isclose = defop(
    "isclose",
    _isclose,
    args=("a", "b"),
    vjp=(None, None),
    dtypes=binary._same_dtype("{a} did not match {b}"),
)


def _comparison_inplace(name: str, fn):
    """``x.eq_(y)``: the comparison written into x; for a float x, its gradient is 0."""

    def forward(a, b, dtype=None):
        out = fn(a, b)
        return out if dtype is None else out.astype(dtype)

    forward.__doc__ = f"{name}(a, b), as 1 and 0 of ``dtype`` when given"
    ordered = name not in ("eq", "ne")
    return defop(
        f"{name}_",
        forward,
        args=("a", "b"),
        dtypes=unary.real_only(f"{name}_cpu", rule=None) if ordered else PROMOTE,
        node=f"{name.capitalize()}Backward0",
        vjp=(
            lambda g: copies.zero(g),  # d/da cmp(a, b) = 0 (a step function)
            lambda g: copies.zero(g),  # d/db cmp(a, b) = 0 (a step function)
        ),
        jvp=(
            lambda t: copies.zero(t),  # as the VJP
            lambda t: copies.zero(t),  # as the VJP
        ),
        conventions="The gradient is 0 everywhere, as PyTorch's.",
        complex="wirtinger",
    )


_COMPARE_INPLACE = {
    op.name: _comparison_inplace(op.name, op.forward) for op in (eq, ne, lt, le, gt, ge)
}


def _shift(name: str, left: bool):
    def forward(a, b):
        dtype = xp.result_type(a, b)
        if dtype.kind in "bfc":
            raise _dtypes.not_implemented(f"{name}_cpu", _dtypes.from_numpy_dtype(dtype))
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


bitwise_left_shift = _shift("lshift", True)

bitwise_right_shift = _shift("rshift", False)


def select(condition, a, b):
    """a where condition else b, inside VJPs and JVPs: the where op when a or b is a tensor
    (create_graph), NumPy's where on arrays (backward without create_graph)."""
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return where(condition, a, b)
    return xp.where(array_of(condition), a, b)
