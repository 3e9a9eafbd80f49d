"""chainrule op -> ONNX nodes: one translation per public function, in ``TABLE``.

A translation gets the graph, the call's ``args``/``kwargs`` as the model gave them, and the
call's result ``out`` (the op has run: the shapes and dtypes of everything are known), and
returns the name of the value holding each tensor of ``out`` (a list for several). Shapes an
op reads from its inputs are written as constants, except where ONNX can copy them at run
time (``Reshape``'s 0 for a leading dimension kept as it is, ``Shape`` of an input).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._tensor import Tensor
from ._graph import INT64_MAX, Graph, array_of
from ._symint import SymInt
from .errors import UnsupportedOperatorError

Translation = Callable[[Graph, tuple, dict, Any], Any]
TABLE: dict[str, Translation] = {}


def _register(*names: str) -> Callable[[Translation], Translation]:
    def add(fn: Translation) -> Translation:
        for name in names:
            TABLE[name] = fn
        return fn

    return add


# ----- helpers -----------------------------------------------------------------------------


def _arg(args: tuple, kwargs: dict, i: int, name: str, default: Any = None) -> Any:
    """Argument ``i`` (positional) or ``name`` (keyword)."""
    if len(args) > i:
        return args[i]
    return kwargs.get(name, default)


def _dtype(t: Tensor) -> np.dtype:
    return array_of(t).dtype


def _shape(t: Tensor) -> tuple[int, ...]:
    return tuple(int(s) for s in t.shape)


def _axis(d: int, rank: int) -> int:
    return d + rank if d < 0 else d


def _sizes(rest: tuple) -> list[Any]:
    """The shape of ``view(2, 3)``, ``view((2, 3))`` or ``reshape(x, [2, 3])``."""
    if len(rest) == 1 and isinstance(rest[0], (tuple, list)):
        rest = tuple(rest[0])
    return [s if isinstance(s, SymInt) else int(s) for s in rest]


def _tuple(v: Any, n: int) -> list[int]:
    """An int or a sequence of ints as ``n`` ints (stride=2 -> [2, 2])."""
    if isinstance(v, (list, tuple)):
        return [int(x) for x in v] if len(v) == n else [int(v[0])] * n
    return [int(v)] * n


def _unsupported(g: Graph, name: str) -> UnsupportedOperatorError:
    return UnsupportedOperatorError(f"aten::{name}", g.opset, None)


def _float(dtype: np.dtype) -> bool:
    return np.issubdtype(dtype, np.floating)


def _reshape_kept(g: Graph, x: str, in_shape: tuple, target: list[int]) -> str:
    """``Reshape`` to ``target``, leaving the leading dimensions that stay as they are to be
    copied at run time (ONNX's 0), so that a dynamic batch dimension stays dynamic."""
    spec = list(target)
    for i, (a, b) in enumerate(zip(in_shape, target)):
        if a != b or a == 0:
            break
        spec[i] = 0
    return g.op("Reshape", x, g.ints(spec), hint="view")


# ----- elementwise arithmetic --------------------------------------------------------------


def _binary(op_type: str, hint: str, swap: bool = False) -> Translation:
    def tr(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
        a = _arg(args, kwargs, 0, "input")
        b = _arg(args, kwargs, 1, "other", kwargs.get("exponent"))
        if swap:
            a, b = b, a
        dt = _dtype(out)
        alpha = kwargs.get("alpha", args[2] if len(args) > 2 else 1)
        nb = g.as_type(b, dt)
        if alpha != 1:
            nb = g.op("Mul", nb, g.as_type(alpha, dt), hint="mul")
        return g.op(op_type, g.as_type(a, dt), nb, hint=hint, dtype=dt)

    return tr


_register("add", "__add__", "__radd__", "__iadd__", "add_")(_binary("Add", "add"))
_register("sub", "subtract", "__sub__", "__isub__", "sub_")(_binary("Sub", "sub"))
_register("__rsub__", "rsub")(_binary("Sub", "rsub", swap=True))
_register("mul", "multiply", "__mul__", "__rmul__", "__imul__", "mul_")(_binary("Mul", "mul"))
_register("pow", "__pow__", "__ipow__", "pow_", "float_power")(_binary("Pow", "pow"))
_register("__rpow__")(_binary("Pow", "pow", swap=True))
_register("maximum", "fmax")(_binary("Max", "maximum"))
_register("minimum", "fmin")(_binary("Min", "minimum"))


def _divide(g: Graph, a: Any, b: Any, out: Tensor, mode: str | None) -> str:
    dt = _dtype(out)
    work = dt if _float(dt) else np.dtype(np.float64)
    q = g.op("Div", g.as_type(a, work), g.as_type(b, work), hint="div", dtype=work)
    if mode == "floor":
        q = g.op("Floor", q, dtype=work)
    elif mode == "trunc":
        q = g.op("Mul", g.op("Sign", q), g.op("Floor", g.op("Abs", q)), dtype=work)
    return g.as_type(q, dt)


@_register("div", "divide", "true_divide", "__truediv__", "__itruediv__", "div_")
def _div(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    mode = _arg(args, kwargs, 2, "rounding_mode")
    return _divide(g, args[0], _arg(args, kwargs, 1, "other"), out, mode)


@_register("__rtruediv__")
def _rdiv(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    return _divide(g, args[1], args[0], out, None)


@_register("floor_divide", "__floordiv__")
def _floordiv(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    return _divide(g, args[0], args[1], out, "floor")


@_register("remainder", "__mod__")
def _remainder(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    dt = _dtype(out)
    a, b = g.as_type(args[0], dt), g.as_type(args[1], dt)
    if not _float(dt):
        return g.op("Mod", a, b, fmod=0, hint="remainder")
    q = g.op("Floor", g.op("Div", a, b))
    return g.op("Sub", a, g.op("Mul", q, b), hint="remainder")


def _compare(op_type: str, negate: bool = False) -> Translation:
    def tr(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
        import chainrule

        a, b = args[0], _arg(args, kwargs, 1, "other")
        dt = np.dtype(array_of(chainrule.empty(0, dtype=chainrule.result_type(a, b))).dtype)
        r = g.op(op_type, g.as_type(a, dt), g.as_type(b, dt), dtype=np.bool_)
        return g.op("Not", r, dtype=np.bool_) if negate else r

    return tr


_register("eq", "__eq__", "equal")(_compare("Equal"))
_register("ne", "__ne__", "not_equal")(_compare("Equal", negate=True))
_register("lt", "__lt__", "less")(_compare("Less"))
_register("le", "__le__", "less_equal")(_compare("LessOrEqual"))
_register("gt", "__gt__", "greater")(_compare("Greater"))
_register("ge", "__ge__", "greater_equal")(_compare("GreaterOrEqual"))


def _logical(op_type: str, bitwise: str | None) -> Translation:
    def tr(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
        dt = _dtype(out)
        if dt == np.bool_ or bitwise is None:
            a, b = g.as_type(args[0], np.bool_), g.as_type(args[1], np.bool_)
            return g.as_type(g.op(op_type, a, b, dtype=np.bool_), dt)
        return g.op(bitwise, g.as_type(args[0], dt), g.as_type(args[1], dt))

    return tr


_register("logical_and")(_logical("And", None))
_register("logical_or")(_logical("Or", None))
_register("logical_xor")(_logical("Xor", None))
_register("__and__", "bitwise_and")(_logical("And", "BitwiseAnd"))
_register("__or__", "bitwise_or")(_logical("Or", "BitwiseOr"))
_register("__xor__", "bitwise_xor")(_logical("Xor", "BitwiseXor"))


@_register("logical_not", "__invert__", "bitwise_not")
def _not(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    dt = _dtype(out)
    if dt == np.bool_:
        return g.op("Not", g.as_type(args[0], np.bool_), dtype=np.bool_)
    return g.op("BitwiseNot", g.value(args[0]))


@_register("where")
def _where(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    cond = _arg(args, kwargs, 0, "condition")
    a, b = _arg(args, kwargs, 1, "input"), _arg(args, kwargs, 2, "other")
    dt = _dtype(out)
    return g.op(
        "Where", g.as_type(cond, np.bool_), g.as_type(a, dt), g.as_type(b, dt), hint="where"
    )


@_register("masked_fill", "masked_fill_")
def _masked_fill(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x, mask, value = args[0], _arg(args, kwargs, 1, "mask"), _arg(args, kwargs, 2, "value")
    dt = _dtype(out)
    return g.op(
        "Where",
        g.as_type(mask, np.bool_),
        g.as_type(value, dt),
        g.as_type(x, dt),
        hint="masked_fill",
    )


@_register("clamp", "clip", "clamp_", "clip_")
def _clamp(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    dt = _dtype(out)
    x = g.as_type(args[0], dt)
    lo = _arg(args, kwargs, 1, "min")
    hi = _arg(args, kwargs, 2, "max")
    if isinstance(lo, Tensor) or isinstance(hi, Tensor):
        if lo is not None:
            x = g.op("Max", x, g.as_type(lo, dt))
        if hi is not None:
            x = g.op("Min", x, g.as_type(hi, dt))
        return x
    return g.op(
        "Clip",
        x,
        g.as_type(lo, dt) if lo is not None else "",
        g.as_type(hi, dt) if hi is not None else "",
        hint="clamp",
    )


@_register("clamp_max")
def _clamp_max(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    dt = _dtype(out)
    hi = _arg(args, kwargs, 1, "max")
    return g.op("Min", g.as_type(args[0], dt), g.as_type(hi, dt), hint="clamp_max")


@_register("clamp_min")
def _clamp_min(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    dt = _dtype(out)
    lo = _arg(args, kwargs, 1, "min")
    return g.op("Max", g.as_type(args[0], dt), g.as_type(lo, dt), hint="clamp_min")


# ----- unary functions ---------------------------------------------------------------------

_UNARY = {
    "relu": "Relu",
    "relu_": "Relu",
    "sigmoid": "Sigmoid",
    "tanh": "Tanh",
    "exp": "Exp",
    "log": "Log",
    "sqrt": "Sqrt",
    "abs": "Abs",
    "__abs__": "Abs",
    "neg": "Neg",
    "negative": "Neg",
    "__neg__": "Neg",
    "floor": "Floor",
    "ceil": "Ceil",
    "round": "Round",
    "sign": "Sign",
    "sin": "Sin",
    "cos": "Cos",
    "tan": "Tan",
    "asin": "Asin",
    "acos": "Acos",
    "atan": "Atan",
    "sinh": "Sinh",
    "cosh": "Cosh",
    "erf": "Erf",
    "reciprocal": "Reciprocal",
    "softsign": "Softsign",
    "selu": "Selu",
    "isnan": "IsNaN",
    "isinf": "IsInf",
}


def _unary(op_type: str, name: str) -> Translation:
    def tr(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
        dt = _dtype(out)
        x = args[0] if args else kwargs["input"]
        xin = g.value(x) if dt == np.bool_ else g.as_type(x, dt)
        return g.op(op_type, xin, hint=name.strip("_").rstrip("_"), dtype=dt)

    return tr


for _name, _op in _UNARY.items():
    TABLE[_name] = _unary(_op, _name)


def _composite(fn: Callable[[Graph, str, np.dtype, tuple, dict], str], *names: str) -> None:
    """Register a unary function built from several nodes: ``fn(g, x, dtype, args, kwargs)``."""

    def tr(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
        dt = _dtype(out)
        x = args[0] if args else kwargs["input"]
        return fn(g, g.as_type(x, dt), dt, args, kwargs)

    for name in names:
        TABLE[name] = tr


def _c(g: Graph, v: float, dt: np.dtype) -> str:
    return g.const(np.asarray(v, dtype=dt))


_composite(lambda g, x, dt, a, k: g.op("Reciprocal", g.op("Sqrt", x), hint="rsqrt"), "rsqrt")
_composite(lambda g, x, dt, a, k: g.op("Mul", x, x, hint="square"), "square")
_composite(lambda g, x, dt, a, k: g.op("Log", g.op("Add", x, _c(g, 1, dt))), "log1p")
_composite(lambda g, x, dt, a, k: g.op("Sub", g.op("Exp", x), _c(g, 1, dt)), "expm1")
_composite(lambda g, x, dt, a, k: g.op("Div", g.op("Log", x), _c(g, math.log(2), dt)), "log2")
_composite(lambda g, x, dt, a, k: g.op("Div", g.op("Log", x), _c(g, math.log(10), dt)), "log10")
_composite(
    lambda g, x, dt, a, k: g.op("Mul", g.op("Sign", x), g.op("Floor", g.op("Abs", x))),
    "trunc",
    "fix",
)
_composite(lambda g, x, dt, a, k: g.op("Mul", x, g.op("Sigmoid", x), hint="silu"), "silu")
_composite(
    lambda g, x, dt, a, k: g.op("Mul", x, g.op("Tanh", g.op("Softplus", x)), hint="mish"), "mish"
)
_composite(lambda g, x, dt, a, k: g.op("HardSwish", x, hint="hardswish"), "hardswish")
_composite(
    lambda g, x, dt, a, k: g.op("HardSigmoid", x, alpha=1 / 6, beta=0.5, hint="hardsigmoid"),
    "hardsigmoid",
)
_composite(
    lambda g, x, dt, a, k: g.op("Clip", x, _c(g, 0, dt), _c(g, 6, dt), hint="relu6"), "relu6"
)
_composite(
    lambda g, x, dt, a, k: g.op("Neg", g.op("Softplus", g.op("Neg", x)), hint="logsigmoid"),
    "logsigmoid",
)
_composite(lambda g, x, dt, a, k: g.op("Sub", x, g.op("Tanh", x), hint="tanhshrink"), "tanhshrink")
_composite(
    lambda g, x, dt, a, k: g.op(
        "Clip",
        x,
        _c(g, _arg(a, k, 1, "min_val", -1.0), dt),
        _c(g, _arg(a, k, 2, "max_val", 1.0), dt),
        hint="hardtanh",
    ),
    "hardtanh",
    "hardtanh_",
)
_composite(
    lambda g, x, dt, a, k: g.op(
        "LeakyRelu", x, alpha=float(_arg(a, k, 1, "negative_slope", 0.01)), hint="leaky_relu"
    ),
    "leaky_relu",
    "leaky_relu_",
)
_composite(
    lambda g, x, dt, a, k: g.op("Elu", x, alpha=float(_arg(a, k, 1, "alpha", 1.0)), hint="elu"),
    "elu",
    "elu_",
)
_composite(
    lambda g, x, dt, a, k: g.op("Celu", x, alpha=float(_arg(a, k, 1, "alpha", 1.0)), hint="celu"),
    "celu",
)


@_register("gelu")
def _gelu(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    dt = _dtype(out)
    x = g.as_type(args[0], dt)
    approximate = _arg(args, kwargs, 1, "approximate", "none")
    if g.opset >= 20:
        return g.op("Gelu", x, approximate=approximate, hint="gelu")
    if approximate == "tanh":
        inner = g.op(
            "Mul",
            _c(g, math.sqrt(2 / math.pi), dt),
            g.op("Add", x, g.op("Mul", _c(g, 0.044715, dt), g.op("Mul", x, g.op("Mul", x, x)))),
        )
        half = g.op("Add", _c(g, 1, dt), g.op("Tanh", inner))
    else:
        half = g.op("Add", _c(g, 1, dt), g.op("Erf", g.op("Div", x, _c(g, math.sqrt(2), dt))))
    return g.op("Mul", g.op("Mul", x, _c(g, 0.5, dt)), half, hint="gelu")


@_register("softplus")
def _softplus(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    dt = _dtype(out)
    x = g.as_type(args[0], dt)
    beta = float(_arg(args, kwargs, 1, "beta", 1.0))
    threshold = float(_arg(args, kwargs, 2, "threshold", 20.0))
    bx = g.op("Mul", x, _c(g, beta, dt)) if beta != 1 else x
    soft = g.op("Softplus", bx)
    if beta != 1:
        soft = g.op("Div", soft, _c(g, beta, dt))
    linear = g.op("Greater", bx, _c(g, threshold, dt), dtype=np.bool_)
    return g.op("Where", linear, x, soft, hint="softplus")


@_register("prelu")
def _prelu(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x, w = args[0], _arg(args, kwargs, 1, "weight")
    rank = len(_shape(x))
    slope = g.value(w)
    if rank > 2 and w.numel() > 1:
        slope = g.op("Reshape", slope, g.ints([-1] + [1] * (rank - 2)))
    return g.op("PRelu", g.value(x), slope, hint="prelu")


def _softmax_dim(args: tuple, kwargs: dict, rank: int) -> int:
    dim = _arg(args, kwargs, 1, "dim")
    if dim is None:  # PyTorch's implicit choice
        dim = 0 if rank in (0, 1, 3) else 1
    return int(dim)


def _softmax(op_type: str, hint: str) -> Translation:
    def tr(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
        dt = _dtype(out)
        x = args[0] if args else kwargs["input"]
        dim = _softmax_dim(args, kwargs, len(_shape(x)))
        return g.op(op_type, g.as_type(x, dt), axis=dim, hint=hint)

    return tr


_register("softmax", "_softmax")(_softmax("Softmax", "softmax"))
_register("log_softmax")(_softmax("LogSoftmax", "log_softmax"))


@_register("softmin")
def _softmin(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    dt = _dtype(out)
    dim = _softmax_dim(args, kwargs, len(_shape(args[0])))
    return g.op("Softmax", g.op("Neg", g.as_type(args[0], dt)), axis=dim, hint="softmin")


@_register("glu")
def _glu(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    dim = _axis(int(_arg(args, kwargs, 1, "dim", -1)), len(_shape(x)))
    half = _shape(x)[dim] // 2
    a, b = g.node("Split", [g.value(x), g.ints([half, half])], n_out=2, axis=dim)
    return g.op("Mul", a, g.op("Sigmoid", b), hint="glu")


@_register("normalize")
def _normalize(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    dt = _dtype(out)
    x = g.as_type(args[0], dt)
    p = float(_arg(args, kwargs, 1, "p", 2.0))
    dim = int(_arg(args, kwargs, 2, "dim", 1))
    eps = float(_arg(args, kwargs, 3, "eps", 1e-12))
    if p not in (1.0, 2.0):
        raise _unsupported(g, "normalize")
    norm = g.op("ReduceL2" if p == 2 else "ReduceL1", x, g.ints([dim]), keepdims=1)
    return g.op("Div", x, g.op("Max", norm, _c(g, eps, dt)), hint="normalize")


# ----- casts and aliases -------------------------------------------------------------------


@_register(
    "float",
    "double",
    "half",
    "int",
    "long",
    "short",
    "bool",
    "byte",
    "char",
    "to",
    "type",
    "type_as",
    "contiguous",
    "clone",
    "detach",
    "detach_",
    "cpu",
    "cuda",
    "requires_grad_",
    "data.__get__",
    "alias",
    "__pos__",
    "positive",
    "copy",
)
def _cast(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    return g.as_type(args[0], _dtype(out))


# ----- linear algebra ----------------------------------------------------------------------


@_register("matmul", "mm", "bmm", "__matmul__")
def _matmul(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    dt = _dtype(out)
    a, b = args[0], _arg(args, kwargs, 1, "other", kwargs.get("mat2"))
    return g.op("MatMul", g.as_type(a, dt), g.as_type(b, dt), hint="matmul")


@_register("__rmatmul__")
def _rmatmul(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    dt = _dtype(out)
    return g.op("MatMul", g.as_type(args[1], dt), g.as_type(args[0], dt), hint="matmul")


@_register("linear")
def _linear(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x, w = args[0], _arg(args, kwargs, 1, "weight")
    b = _arg(args, kwargs, 2, "bias")
    dt = _dtype(out)
    xn, wn = g.as_type(x, dt), g.as_type(w, dt)
    if len(_shape(x)) == 2:
        inputs = [xn, wn] + ([g.as_type(b, dt)] if b is not None else [])
        return g.node("Gemm", inputs, hint="linear", transB=1)[0]
    y = g.op("MatMul", xn, g.op("Transpose", wn, perm=[1, 0]), hint="linear" if b is None else None)
    if b is not None:
        y = g.op("Add", y, g.as_type(b, dt), hint="linear")
    return y


@_register("addmm")
def _addmm(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    dt = _dtype(out)
    c, a, b = args[0], _arg(args, kwargs, 1, "mat1"), _arg(args, kwargs, 2, "mat2")
    return g.node(
        "Gemm",
        [g.as_type(a, dt), g.as_type(b, dt), g.as_type(c, dt)],
        hint="addmm",
        alpha=float(kwargs.get("alpha", 1)),
        beta=float(kwargs.get("beta", 1)),
    )[0]


@_register("einsum")
def _einsum(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    operands = args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    dt = _dtype(out)
    return g.op("Einsum", *[g.as_type(o, dt) for o in operands], equation=args[0], hint="einsum")


# ----- reductions --------------------------------------------------------------------------


def _dims(dim: Any, rank: int) -> list[int] | None:
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return None
    dims = list(dim) if isinstance(dim, (list, tuple)) else [dim]
    return [_axis(int(d), rank) for d in dims]


def _reduce_node(g: Graph, op_type: str, x: str, dims: list[int] | None, keepdim: bool) -> str:
    if dims is None:
        return g.op(op_type, x, keepdims=int(keepdim), hint=op_type[6:].lower())
    return g.op(op_type, x, g.ints(dims), keepdims=int(keepdim), hint=op_type[6:].lower())


def _reduce(op_type: str) -> Translation:
    def tr(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
        x = args[0] if args else kwargs["input"]
        dims = _dims(_arg(args, kwargs, 1, "dim", kwargs.get("axis")), len(_shape(x)))
        keepdim = bool(_arg(args, kwargs, 2, "keepdim", False))
        return _reduce_node(g, op_type, g.as_type(x, _dtype(out)), dims, keepdim)

    return tr


_register("sum")(_reduce("ReduceSum"))
_register("mean")(_reduce("ReduceMean"))
_register("amax")(_reduce("ReduceMax"))
_register("amin")(_reduce("ReduceMin"))
_register("logsumexp")(_reduce("ReduceLogSumExp"))


@_register("prod")
def _prod(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    dim = _arg(args, kwargs, 1, "dim")
    dims = None if dim is None else [_axis(int(dim), len(_shape(x)))]
    keepdim = bool(_arg(args, kwargs, 2, "keepdim", False))
    return _reduce_node(g, "ReduceProd", g.as_type(x, _dtype(out)), dims, keepdim)


def _max_min(reduce: str, arg: str, elementwise: str) -> Translation:
    def tr(g: Graph, args: tuple, kwargs: dict, out: Any) -> Any:
        x = args[0]
        second = _arg(args, kwargs, 1, "dim", kwargs.get("other"))
        if isinstance(second, Tensor):
            dt = _dtype(out)
            return g.op(elementwise, g.as_type(x, dt), g.as_type(second, dt))
        xn = g.value(x)
        if second is None:
            return _reduce_node(g, reduce, xn, None, False)
        dim = _axis(int(second), len(_shape(x)))
        keepdim = int(bool(_arg(args, kwargs, 2, "keepdim", False)))
        values = _reduce_node(g, reduce, xn, [dim], bool(keepdim))
        indices = g.op(arg, xn, axis=dim, keepdims=keepdim, dtype=np.int64)
        return [values, indices]

    return tr


_register("max")(_max_min("ReduceMax", "ArgMax", "Max"))
_register("min")(_max_min("ReduceMin", "ArgMin", "Min"))


def _arg_reduce(op_type: str) -> Translation:
    def tr(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
        x = args[0]
        dim = _arg(args, kwargs, 1, "dim")
        keepdim = int(bool(_arg(args, kwargs, 2, "keepdim", False)))
        xn = g.value(x)
        if dim is None:
            flat = g.op("Reshape", xn, g.ints([-1]))
            r = g.op(op_type, flat, axis=0, keepdims=0, hint=op_type.lower())
            if keepdim:
                r = g.op("Reshape", r, g.ints([1] * len(_shape(x))))
            return r
        return g.op(
            op_type,
            xn,
            axis=_axis(int(dim), len(_shape(x))),
            keepdims=keepdim,
            hint=op_type.lower(),
        )

    return tr


_register("argmax")(_arg_reduce("ArgMax"))
_register("argmin")(_arg_reduce("ArgMin"))


def _var_std(sqrt: bool) -> Translation:
    def tr(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
        x = args[0]
        shape = _shape(x)
        dim = _arg(args, kwargs, 1, "dim")
        unbiased = True
        if isinstance(dim, bool):  # var(x, unbiased)
            unbiased, dim = dim, None
        else:
            unbiased = bool(_arg(args, kwargs, 2, "unbiased", True))
        keepdim = bool(kwargs.get("keepdim", args[3] if len(args) > 3 else False))
        correction = kwargs.get("correction")
        correction = (1 if unbiased else 0) if correction is None else float(correction)
        dims = _dims(dim, len(shape))
        dt = _dtype(out)
        xn = g.as_type(x, dt)
        n = math.prod(shape[d] for d in (dims if dims is not None else range(len(shape))))
        mean = _reduce_node(g, "ReduceMean", xn, dims, True)
        d = g.op("Sub", xn, mean)
        ss = _reduce_node(g, "ReduceSum", g.op("Mul", d, d), dims, keepdim)
        v = g.op("Div", ss, _c(g, max(n - correction, 0), dt), hint="var")
        return g.op("Sqrt", v, hint="std") if sqrt else v

    return tr


_register("var")(_var_std(False))
_register("std")(_var_std(True))


@_register("flip")
def _flip(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    rank = len(_shape(x))
    dims = _sizes(args[1:]) if len(args) > 1 else list(kwargs["dims"])
    axes = [_axis(int(d), rank) for d in dims]
    n = len(axes)
    return g.op(
        "Slice",
        g.value(x),
        g.ints([-1] * n),
        g.ints([-INT64_MAX] * n),
        g.ints(axes),
        g.ints([-1] * n),
        hint="flip",
    )


def _norm_node(g: Graph, x: str, ord: Any, dims: list[int] | None, keepdim: bool) -> str:
    if ord in (2, 2.0, "fro", None):
        return _reduce_node(g, "ReduceL2", x, dims, keepdim)
    if ord in (1, 1.0):
        return _reduce_node(g, "ReduceL1", x, dims, keepdim)
    if ord in (math.inf, "inf"):
        return _reduce_node(g, "ReduceMax", g.op("Abs", x), dims, keepdim)
    raise UnsupportedOperatorError(f"aten::linalg_vector_norm (ord={ord})", g.opset, None)


@_register("vector_norm", "linalg.vector_norm")
def _vector_norm(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    ord = _arg(args, kwargs, 1, "ord", 2)
    dims = _dims(_arg(args, kwargs, 2, "dim"), len(_shape(x)))
    keepdim = bool(_arg(args, kwargs, 3, "keepdim", False))
    return _norm_node(g, g.as_type(x, _dtype(out)), ord, dims, keepdim)


@_register("norm")
def _norm(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    p = _arg(args, kwargs, 1, "p", "fro")
    dims = _dims(_arg(args, kwargs, 2, "dim"), len(_shape(x)))
    keepdim = bool(_arg(args, kwargs, 3, "keepdim", False))
    return _norm_node(g, g.as_type(x, _dtype(out)), p, dims, keepdim)


@_register("cosine_similarity")
def _cosine_similarity(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    dt = _dtype(out)
    a, b = g.as_type(args[0], dt), g.as_type(_arg(args, kwargs, 1, "x2"), dt)
    dim = int(_arg(args, kwargs, 2, "dim", 1))
    eps = float(_arg(args, kwargs, 3, "eps", 1e-8))
    dot = g.op("ReduceSum", g.op("Mul", a, b), g.ints([dim]), keepdims=0)
    na = g.op("Max", g.op("ReduceL2", a, g.ints([dim]), keepdims=0), _c(g, eps, dt))
    nb = g.op("Max", g.op("ReduceL2", b, g.ints([dim]), keepdims=0), _c(g, eps, dt))
    return g.op("Div", dot, g.op("Mul", na, nb), hint="cosine_similarity")


@_register("one_hot")
def _one_hot(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    depth = _shape(out)[-1]
    values = g.const(np.asarray([0, 1], dtype=_dtype(out)))
    return g.op(
        "OneHot",
        g.as_type(args[0], np.int64),
        g.const(np.int64(depth)),
        values,
        axis=-1,
        hint="one_hot",
    )


def _sort(want: str) -> Translation:
    def tr(g: Graph, args: tuple, kwargs: dict, out: Any) -> Any:
        x = args[0]
        dim = _axis(int(_arg(args, kwargs, 1, "dim", -1)), len(_shape(x)))
        descending = bool(_arg(args, kwargs, 2, "descending", False))
        k = _shape(x)[dim]
        values, indices = g.node(
            "TopK", [g.value(x), g.ints([k])], n_out=2, axis=dim, largest=int(descending), sorted=1
        )
        return indices if want == "indices" else [values, indices]

    return tr


_register("sort")(_sort("both"))
_register("argsort")(_sort("indices"))


@_register("cumsum")
def _cumsum(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    dim = _axis(int(_arg(args, kwargs, 1, "dim")), len(_shape(args[0])))
    return g.op("CumSum", g.as_type(args[0], _dtype(out)), g.const(np.int64(dim)), hint="cumsum")


@_register("topk")
def _topk(g: Graph, args: tuple, kwargs: dict, out: Any) -> list[str]:
    x = args[0]
    k = int(_arg(args, kwargs, 1, "k"))
    dim = _axis(int(_arg(args, kwargs, 2, "dim", -1)), len(_shape(x)))
    largest = int(bool(_arg(args, kwargs, 3, "largest", True)))
    return g.node("TopK", [g.value(x), g.ints([k])], n_out=2, axis=dim, largest=largest, sorted=1)


# the other families register their translations in TABLE as they load
from . import _ops_nn, _ops_shapes  # noqa: E402, F401
