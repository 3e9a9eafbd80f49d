"""The functions TorchScript code may call, as chainrule callables: the whitelist of
``torch.jit.load``. Code names an operator as ``torch.<op>`` or ``ops.aten.<op>`` (ATen's
schema: arguments in order, dtypes as ScalarType numbers) and the interpreter's own helpers
as ``ops.prim.<op>``. The same name serves tensors and TorchScript's ints, floats and lists
(``torch.add(2, 3)`` is 5, ``torch.len(xs)`` a list's length). A name not in these tables
is refused with a RuntimeError naming it."""

from __future__ import annotations

import math
import operator
import re
import warnings
from collections.abc import Callable
from typing import Any

import chainrule as _cr

from ..._tensor import Tensor
from ...nn import functional as F

# ATen's ScalarType numbers, as code passes them (``dtype=7`` is float64)
_SCALAR_TYPES = ("uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
                 None, "complex64", "complex128", "bool", None, None, None, "bfloat16")  # fmt: skip
DTYPES: dict[int, Any] = {
    i: getattr(_cr, name) for i, name in enumerate(_SCALAR_TYPES) if name and hasattr(_cr, name)
}
DTYPE_CODES = {dt: i for i, dt in DTYPES.items()}


class TorchScriptError(RuntimeError):
    """An exception raised by TorchScript code (``ops.prim.RaiseException``)."""


def to_dtype(value: Any) -> Any:
    """A dtype from a ScalarType number (or a dtype, or None)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return value
    if value not in DTYPES:
        raise RuntimeError(f"torch.jit.load: ScalarType {value} has no chainrule dtype")
    return DTYPES[value]


def _dtype_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments with ``dtype`` as a dtype and the ones chainrule has no use for
    (``layout``, ``pin_memory``, ``memory_format``) dropped."""
    out = {k: v for k, v in kwargs.items() if k not in ("layout", "pin_memory", "memory_format")}
    if "dtype" in out:
        out["dtype"] = to_dtype(out["dtype"])
    return out


def _factory(fn: Callable) -> Callable:
    """A factory with ATen's keyword arguments (``dtype=7, layout=None, pin_memory=False``)."""

    def run(*args: Any, **kwargs: Any) -> Tensor:
        return fn(*args, **_dtype_kwargs(kwargs))

    return run


def _like(fn: Callable) -> Callable:
    """A ``*_like`` factory with ATen's keyword arguments."""

    def run(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return fn(input, *args, **_dtype_kwargs(kwargs))

    return run


def _reduction(fn: Callable) -> Callable:
    """``sum``/``mean`` with ATen's order: (self, dim, keepdim, dtype)."""

    def run(input: Tensor, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
        if isinstance(dim, (list, tuple)):  # (an empty list reduces over every dim)
            dim = tuple(dim) if dim else None
        return fn(input, dim, keepdim, dtype=to_dtype(dtype))

    return run


def _softmax(fn: Callable) -> Callable:
    """``softmax``/``log_softmax`` with ATen's (self, dim, dtype)."""

    def run(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
        return fn(input, dim, dtype=to_dtype(dtype))

    return run


def _convolution(
    input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,
    dilation: Any, transposed: bool, output_padding: Any, groups: int, *flags: Any,
) -> Tensor:  # fmt: skip
    """``aten::_convolution``: the convolution; the backend flags after ``groups`` are
    ignored."""
    return _cr.convolution(
        input, weight, bias, stride, padding, dilation, transposed, output_padding, groups
    )


def _slice(
    input: Any, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1
) -> Any:
    """``aten::slice``: elements start:end:step along dim (of a tensor, or of a list)."""
    if isinstance(input, (list, str)):  # (aten::slice.t: a list has no dim argument)
        start, end, step = dim, start, end if end is not None else 1
        return input[start:end:step]
    index = [slice(None)] * (dim % input.dim()) + [slice(start, end, step)]
    return input[tuple(index)]


def _to(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``aten::to``: to a dtype (a ScalarType number), a device, or another tensor's."""
    kwargs = _dtype_kwargs(kwargs)
    kwargs.pop("non_blocking", None)
    copy = kwargs.pop("copy", False)
    first = args[0] if args else None
    if isinstance(first, Tensor):
        out = input.to(first)
    elif isinstance(first, int) and not isinstance(first, bool):
        out = input.to(to_dtype(first))
    elif first is not None:  # (device, dtype, non_blocking, copy, memory_format)
        dtype = to_dtype(args[1]) if len(args) > 1 and args[1] is not None else None
        out = input.to(first) if dtype is None else input.to(first, dtype)
        copy = bool(args[3]) if len(args) > 3 else copy
    else:
        out = input.to(**kwargs) if kwargs else input
    return out.clone() if copy and out is input else out


def _view(input: Tensor, size: Any) -> Tensor:
    if isinstance(size, int) and not isinstance(size, bool):  # view.dtype
        return input.view(to_dtype(size))
    return input.view(list(size))


def _size(input: Tensor, dim: int | None = None) -> Any:
    """``aten::size``: every size as a list of ints, or one size."""
    return list(input.shape) if dim is None else int(input.shape[dim])


def _num_to_tensor(value: Any) -> Tensor:
    """``prim::NumToTensor``: a 0-d tensor of an int (int64), float (float64) or bool."""
    if isinstance(value, Tensor):
        return value
    dtype = (
        _cr.bool
        if isinstance(value, bool)
        else _cr.int64
        if isinstance(value, int)
        else _cr.float64
    )
    return _cr.tensor(value, dtype=dtype)


def _raise(message: Any = "Exception", *rest: Any) -> None:
    raise TorchScriptError(str(message))


def _warn(message: Any, stacklevel: int = 2) -> None:
    warnings.warn(str(message), UserWarning, stacklevel=2)


def _item_sequence(xs: Any) -> Any:
    return list(xs)


# operators on TorchScript's ints, floats, bools, strings and lists (no tensor among the
# arguments: ``torch.ne(sizes, [1, 2])`` compares lists, ``torch.add(xs, ys)`` joins them)
SCALAR_OPS: dict[str, Callable] = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv,
    "floordiv": operator.floordiv, "remainder": operator.mod, "pow": operator.pow,
    "neg": operator.neg, "gt": operator.gt, "lt": operator.lt, "ge": operator.ge,
    "le": operator.le, "eq": operator.eq, "ne": operator.ne, "abs": abs,
    "floor": math.floor, "ceil": math.ceil, "sqrt": math.sqrt, "exp": math.exp,
    "log": math.log, "__and__": operator.and_, "__or__": operator.or_,
    "__xor__": operator.xor, "__not__": operator.not_, "min": min, "max": max,
    "any": any, "all": all, "sum": sum, "round": round,
}  # fmt: skip


def safe_format(template: str, *args: Any) -> str:
    """``str.format`` with plain ``{}`` fields only: a field that reads attributes or items
    (``{0.__class__}``) is refused."""
    if re.search(r"\{[^}]*[.\[!:]", template):
        raise RuntimeError(f"torch.jit.load: the format string {template!r} is not supported")
    return template.format(*args)


def _append(xs: list, value: Any) -> list:
    xs.append(value)
    return xs


def _extend(xs: list, values: Any) -> None:
    xs.extend(values)


def _insert(xs: list, index: int, value: Any) -> None:
    xs.insert(index, value)


def _pop(xs: Any, index: Any = -1) -> Any:
    return xs.pop(index)


def _len(value: Any) -> int:
    return int(value.shape[0]) if isinstance(value, Tensor) else len(value)


# operators on TorchScript's lists, dicts and strings (whatever the element types)
CONTAINER_OPS: dict[str, Callable] = {
    "len": _len, "append": _append, "extend": _extend, "insert": _insert, "pop": _pop,
    "list": _item_sequence, "keys": lambda d: list(d.keys()), "values": lambda d: list(d.values()),
    "items": lambda d: list(d.items()), "__contains__": lambda c, v: v in c,
    "__getitem__": operator.getitem, "_set_item": operator.setitem,
    "copy": lambda c: c.copy(), "clear": lambda c: c.clear(), "format": lambda s, *a: safe_format(s, *a),
}  # fmt: skip

# ``torch.<name>`` that are chainrule's function of the same name and argument order
_SAME_NAME = """
relu relu_ tanh sigmoid exp log sqrt rsqrt abs neg sin cos erf reciprocal sign floor ceil
round trunc add sub rsub mul div true_divide floor_divide remainder pow fmod atan2 maximum
minimum clamp clamp_min clamp_max matmul mm bmm addmm baddbmm addbmm einsum t flatten
transpose select unflatten unsqueeze squeeze permute reshape stack cat chunk split narrow
batch_norm layer_norm group_norm instance_norm lstm gru rnn_tanh rnn_relu embedding dropout
max_pool1d max_pool2d max_pool3d avg_pool1d convolution conv1d conv2d conv3d
conv_transpose1d conv_transpose2d conv_transpose3d gt lt ge le eq ne where masked_fill
max min argmax argmin amax amin cumsum cumprod prod var std logsumexp norm all any
detach clone index_select gather expand_copy repeat_interleave tril triu roll flip
logical_not logical_and logical_or bitwise_not hardtanh threshold prelu celu selu
numel diag outer dot erfc log1p expm1 square lerp tile alpha_dropout feature_dropout
""".split()

TORCH_OPS: dict[str, Callable] = {
    name: getattr(_cr, name) for name in _SAME_NAME if hasattr(_cr, name)
}
TORCH_OPS.update({
    "linear": F.linear, "_convolution": _convolution, "slice": _slice, "to": _to,
    "view": _view, "size": _size, "dim": lambda x: x.dim(),
    "contiguous": lambda x, memory_format=0: x.contiguous(),
    "expand": lambda x, size, implicit=False: x.expand(*size),
    "expand_as": lambda x, other: x.expand_as(other),
    "view_as": lambda x, other: x.view_as(other), "reshape_as": lambda x, o: x.reshape_as(o),
    "repeat": lambda x, sizes: x.repeat(*sizes), "type_as": lambda x, o: x.type_as(o),
    "adaptive_avg_pool1d": F.adaptive_avg_pool1d, "adaptive_avg_pool2d": F.adaptive_avg_pool2d,
    "adaptive_avg_pool3d": F.adaptive_avg_pool3d, "adaptive_max_pool2d": F.adaptive_max_pool2d,
    "avg_pool2d": F.avg_pool2d, "avg_pool3d": F.avg_pool3d,
    "scaled_dot_product_attention": F.scaled_dot_product_attention,
    "gelu": F.gelu, "silu": F.silu, "hardswish": F.hardswish, "hardsigmoid": F.hardsigmoid,
    "leaky_relu": F.leaky_relu, "elu": F.elu, "softplus": F.softplus, "mish": F.mish,
    "log_sigmoid": F.logsigmoid, "glu": F.glu, "pad": F.pad,
    "softmax": _softmax(_cr.softmax), "log_softmax": _softmax(_cr.log_softmax),
    "sum": _reduction(_cr.sum), "mean": _reduction(_cr.mean),
    "zeros": _factory(_cr.zeros), "ones": _factory(_cr.ones), "empty": _factory(_cr.zeros),
    "full": _factory(_cr.full), "arange": _factory(_cr.arange), "tensor": _factory(_cr.tensor),
    "zeros_like": _like(_cr.zeros_like), "ones_like": _like(_cr.ones_like),
    "full_like": _like(_cr.full_like), "empty_like": _like(_cr.zeros_like),
    "device": _cr.device, "IntImplicit": int, "FloatImplicit": float,
    "ScalarImplicit": lambda t: t.item(), "Int": int, "Float": float, "Bool": bool,
    "index": lambda x, indices: x[tuple(indices)],
    "is_grad_enabled": _cr.is_grad_enabled, "is_autocast_enabled": lambda *a: False,
    "is_floating_point": lambda x: x.is_floating_point(), "warn": _warn,
    "dropout_": lambda x, p, train: x.dropout_(p, train) if train and p > 0 else x,
    "masked_fill_": lambda x, mask, value: x.masked_fill_(mask, value),
    "add_": lambda x, other, alpha=1: x.add_(other, alpha=alpha),
    "mul_": lambda x, other: x.mul_(other), "copy_": lambda x, src, non_blocking=False: x.copy_(src),
    "zero_": lambda x: x.zero_(), "fill_": lambda x, value: x.fill_(value),
})  # fmt: skip

PRIM_OPS: dict[str, Callable] = {
    "NumToTensor": _num_to_tensor, "device": lambda x: x.device,
    "dtype": lambda x: DTYPE_CODES[x.dtype], "shape": lambda x: list(x.shape),
    "data": lambda x: x.detach(), "requires_grad": lambda x: x.requires_grad,
    "is_cuda": lambda x: x.is_cuda, "unchecked_unwrap_optional": lambda x: x,
    "RaiseException": _raise, "min": min, "max": max, "abs": abs,
    "Uninitialized": lambda: None, "is_nested": lambda x: bool(getattr(x, "is_nested", False)),
    "is_cpu": lambda x: x.device.type == "cpu", "type": lambda d: d.type, "is_sparse": lambda x: x.is_sparse,
    "is_meta": lambda x: x.device.type == "meta", "layout": lambda x: 0,
    "grad": lambda x: x.grad, "is_quantized": lambda x: False, "is_mkldnn": lambda x: False,
}  # fmt: skip

# methods code may call on a tensor (``x.size(0)``, ``x.view(...)``)
TENSOR_METHODS = frozenset(
    """
size dim view reshape contiguous transpose permute unsqueeze squeeze flatten mean sum float
double long int bool half to t expand expand_as repeat numel item tolist detach clone
softmax log_softmax matmul masked_fill chunk split type_as view_as relu tanh sigmoid exp
neg abs max min argmax add sub mul div pow select narrow unflatten new_zeros new_ones
""".split()
)

# attributes code may read from a tensor
TENSOR_ATTRS = frozenset({"shape", "dtype", "device", "requires_grad", "is_cuda", "ndim", "T"})

MATH_OPS: dict[str, Any] = {
    "sqrt": math.sqrt, "exp": math.exp, "log": math.log, "floor": math.floor,
    "ceil": math.ceil, "pi": math.pi, "inf": math.inf, "isnan": math.isnan, "fabs": math.fabs,
}  # fmt: skip


def _upsample(mode: str) -> Callable:
    """``aten::upsample_<mode>.vec``: (input, output_size, [align_corners,] scale_factors)."""

    def run(input: Tensor, output_size: Any, *rest: Any) -> Tensor:
        scales = rest[-1] if rest else None
        align = rest[0] if len(rest) == 2 else None
        size = None if output_size is None else list(output_size)
        factor = None if scales is None else list(scales)
        return F.interpolate(input, size=size, scale_factor=factor, mode=mode, align_corners=align)

    return run


def _all_dims(fn: Callable) -> Callable:
    """``amax``/``amin``: an empty list of dims reduces over every dim."""

    def run(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
        dims = tuple(range(input.dim())) if not dim and not isinstance(dim, int) else dim
        return fn(input, dims, keepdim)

    return run


def _numbers(fn: Callable) -> Callable:
    """A factory whose numbers may come as 0-d tensors (``torch.arange(n)`` of a size)."""

    def run(*args: Any, **kwargs: Any) -> Tensor:
        args = tuple(a.item() if isinstance(a, Tensor) and a.dim() == 0 else a for a in args)
        return fn(*args, **_dtype_kwargs(kwargs))

    return run


TORCH_OPS.update({
    "upsample_nearest1d": _upsample("nearest"), "upsample_nearest2d": _upsample("nearest"),
    "upsample_nearest3d": _upsample("nearest"), "upsample_linear1d": _upsample("linear"),
    "upsample_bilinear2d": _upsample("bilinear"), "upsample_bicubic2d": _upsample("bicubic"),
    "upsample_trilinear3d": _upsample("trilinear"), "amax": _all_dims(_cr.amax),
    "amin": _all_dims(_cr.amin), "arange": _numbers(_cr.arange), "full": _numbers(_cr.full),
})  # fmt: skip


def _new(method: str) -> Callable:
    """``new_zeros``/``new_ones``/``new_full``/``new_empty``: the tensor's dtype unless the
    code names one."""

    def run(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        kwargs = _dtype_kwargs(kwargs)
        if kwargs.get("dtype") is None:
            kwargs.pop("dtype", None)
        return getattr(input, method)(*args, **kwargs)

    return run


TORCH_OPS.update({m: _new(m) for m in ("new_zeros", "new_ones", "new_full", "new_empty")})

# operators on any values
GENERIC_OPS: dict[str, Callable] = {"__is__": operator.is_, "__isnot__": operator.is_not}


def _aten_overloads(name: str) -> Callable | None:
    """An operator outside the tables above that ``chainrule.export`` implements (the
    operators chainrule's ``torch.jit.trace`` writes): its overload picked as TorchScript
    would, a Tensor or a number as the second argument choosing ``.Tensor``/``.Scalar``, a
    ``stable`` keyword ``.stable``, ``.default`` otherwise; dtypes given as ScalarType
    numbers."""
    from ...export._aten_table import TABLE

    overloads = {
        key.partition(".")[2]: fn for key, fn in TABLE.items() if key.partition(".")[0] == name
    }
    if not overloads:
        return None

    def run(*args: Any, **kwargs: Any) -> Any:
        if len(overloads) == 1:
            fn = next(iter(overloads.values()))
        elif "Tensor" in overloads and "Scalar" in overloads and len(args) > 1:
            fn = overloads["Tensor" if isinstance(args[1], Tensor) else "Scalar"]
        elif "stable" in overloads and "stable" in kwargs:  # (sort.stable, argsort.stable)
            fn = overloads["stable"]
        elif "default" in overloads:
            fn = overloads["default"]
        else:
            raise RuntimeError(f"torch.jit.load: no overload of aten::{name} fits the call")
        if "dtype" in kwargs:
            kwargs["dtype"] = to_dtype(kwargs["dtype"])
        return fn(*args, **kwargs)

    return run


def torch_op(name: str) -> Callable:
    """``torch.<name>`` (or ``ops.aten.<name>``): a function of the arguments that picks the
    operator on ints and floats, on containers, or on tensors; RuntimeError if the name is
    outside the whitelist."""
    if name in GENERIC_OPS:
        return GENERIC_OPS[name]
    scalar = SCALAR_OPS.get(name)
    container = CONTAINER_OPS.get(name)
    tensor = TORCH_OPS.get(name) or _aten_overloads(name)
    if scalar is None and container is None and tensor is None:
        raise RuntimeError(
            f"torch.jit.load: the TorchScript operator torch.{name} (aten::{name}) is not "
            "supported by chainrule's TorchScript interpreter"
        )

    def run(*args: Any, **kwargs: Any) -> Any:
        if container is not None and args and isinstance(args[0], (list, tuple, dict, str)):
            return container(*args, **kwargs)
        if scalar is not None and not kwargs and not any(isinstance(a, Tensor) for a in args):
            return scalar(*args)
        if tensor is not None:
            return tensor(*args, **kwargs)
        if container is not None:
            return container(*args, **kwargs)
        raise RuntimeError(
            f"torch.jit.load: torch.{name} on {[type(a).__name__ for a in args]} is not "
            "supported by chainrule's TorchScript interpreter"
        )

    return run


def prim_op(name: str) -> Callable:
    """``ops.prim.<name>``; RuntimeError if it is outside the whitelist."""
    if name not in PRIM_OPS:
        raise RuntimeError(
            f"torch.jit.load: the TorchScript operator ops.prim.{name} (prim::{name}) is "
            "not supported by chainrule's TorchScript interpreter"
        )
    return PRIM_OPS[name]
