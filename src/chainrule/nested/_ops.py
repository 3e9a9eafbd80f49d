"""The ops on nested tensors, each written with dense chainrule ops on the components
(strided) or on the values (jagged), so autograd needs no rule of its own.

Which op runs on which layout follows PyTorch 2.13: the jagged layout takes every
pointwise op, a dense operand broadcast over the non-batch dims, reductions over the
last dims or the ragged dim, ``transpose`` of non-batch dims and
``scaled_dot_product_attention``; the strided layout takes the smaller set PyTorch's
NestedTensorCPU backend has (no ``exp``, ``sigmoid``, ``pow``, ``log_softmax``, ...).
Other ops raise PyTorch's errors: NotImplementedError ``aten.<op>.default`` (jagged),
"Could not run 'aten::<op>' with arguments from the 'NestedTensorCPU' backend..."
(strided; PyTorch's message goes on with the list of backends, left out here).

Where chainrule differs from PyTorch: a strided nested tensor's ``grad_fn`` is its first
component's (``MulBackward0`` for ``nt * 2``, as PyTorch's; others can differ), a jagged
one's its values' (``AliasBackward0`` for ``nested_tensor_from_jagged``, PyTorch's
``NestedViewFromJaggedBackward0``); ``to_padded_tensor`` gives ``StackBackward0``
(PyTorch's ``ToPaddedTensorBackward0``); a jagged ``values()`` is the values tensor
itself, not a view of it; jagged ``stride()`` raises (PyTorch's: ``(3*j1, 3, 1)``); the
ragged size ``j<n>`` is numbered by chainrule's own count and does no arithmetic; gradients
of strided ops PyTorch cannot differentiate (``tanh``) are computed.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import chainrule as cr
import chainrule.nn.functional as F

from .._tensor import Tensor
from ._tensor import (
    HANDLERS,
    NestedTensor,
    components,
    dim,
    jagged,
    nested_repr,
    same_offsets,
    sizes_error,
    strided,
    tensors,
)

_WARNED = [False]
PROTOTYPE_WARNING = (
    "The PyTorch API of nested tensors is in prototype stage and will change in the near "
    "future. We recommend specifying layout=torch.jagged when constructing a nested tensor, "
    "as this layout receives active development, has better operator coverage, and works "
    "with torch.compile."
)

# ----- errors -----------------------------------------------------------------------------

# the ATen overload PyTorch names for a Python name, where it is not the name itself
_ATEN = {
    "__rsub__": "rsub.Scalar",
    "__rtruediv__": "reciprocal",
    "__pow__": "pow.Tensor_Scalar",
    "pow": "pow.Tensor_Scalar",
    "__rpow__": "pow.Scalar",
    "__lt__": "lt.Scalar",
    "lt": "lt.Scalar",
    "__le__": "le.Scalar",
    "le": "le.Scalar",
    "__ne__": "ne.Scalar",
    "ne": "ne.Scalar",
    "mean": "mean.dim",
    "split": "split.Tensor",
    "log_softmax": "_log_softmax",
    "square": "pow.Tensor_Scalar",
    "selu": "elu",
    "celu": "elu",
    "relu6": "hardtanh",
}


def _aten(name: str) -> str:
    return _ATEN.get(name, name.strip("_"))


def not_on_nested(
    name: str, jagged_layout: bool, backend: str = "NestedTensorCPU"
) -> NotImplementedError:
    """PyTorch's error for an op a nested tensor of that layout does not have."""
    if jagged_layout:
        return NotImplementedError(f"aten.{name.strip('_')}.default")
    op = _aten(name)
    return NotImplementedError(
        f"Could not run 'aten::{op}' with arguments from the '{backend}' backend. This "
        "could be because the operator doesn't exist for this backend, or was omitted during "
        "the selective/custom build process (if using custom build). If you are a Facebook "
        "employee using PyTorch on mobile, please visit https://fburl.com/ptmfixes for "
        f"possible resolutions. 'aten::{op}' is only available for these backends: [...]."
    )


def _shape_text(nt: NestedTensor) -> str:
    return "(" + ", ".join(repr(s) for s in nt.shape) + ")"


# ----- making nested tensors ---------------------------------------------------------------


def _as_tensor(t: Any, dtype: Any) -> Tensor:
    t = t if isinstance(t, Tensor) else cr.tensor(t)
    return t if dtype is None or t.dtype is dtype else t.to(dtype)


def _check_parts(parts: list[Tensor]) -> None:
    for i, p in enumerate(parts):
        if p.dim() != parts[0].dim():
            raise RuntimeError(
                "All Tensors given to nested_tensor must have the same dimension. Found "
                f"dimension {p.dim()} for Tensor at index {i} and dimension {parts[0].dim()} "
                "for Tensor at index 0."
            )


def _layout_kind(layout: Any) -> str:
    if layout is None or layout is cr.strided:
        return "strided"
    if layout is cr.jagged:
        return "jagged"
    raise RuntimeError(f"Specified layout is unsupported for nested tensors: {layout!r}")


def _jagged_of(parts: list[Tensor]) -> NestedTensor:
    """The jagged tensor of ``parts``: concatenated along the one dim where they differ."""
    if not parts:
        raise RuntimeError("Cannot construct a nested tensor from an empty tensor list")
    ragged = [d for d in range(parts[0].dim()) if len({p.shape[d] for p in parts}) > 1] or [0]
    if len(ragged) > 1 or parts[0].dim() == 0:
        raise RuntimeError(
            "Cannot represent given tensor list as a nested tensor with the jagged layout. "
            "Note that the jagged layout only allows for a single ragged dimension. For "
            "example: (B, *, D_0, D_1, ..., D_N), with ragged * dim."
        )
    r = ragged[0]
    sizes = [p.shape[r] for p in parts]
    offsets = cr.tensor([0, *sizes]).cumsum(0)
    return jagged(cr.cat(parts, r), offsets, None, r + 1)


def _warn_prototype() -> None:
    if not _WARNED[0]:
        _WARNED[0] = True
        warnings.warn(PROTOTYPE_WARNING, UserWarning, stacklevel=4)


def nested_tensor(
    tensor_list: Any,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> NestedTensor:
    """A nested tensor of copies of the tensors (a leaf)."""
    kind = _layout_kind(layout)
    cr.empty(0, device=device)  # (PyTorch's error for a device chainrule lacks)
    parts = [_as_tensor(t, dtype).detach().clone() for t in tensor_list]
    _check_parts(parts)
    if parts and dtype is None:  # (the first component's dtype for all)
        parts = [p.to(parts[0].dtype) for p in parts]
    if kind == "jagged":
        nt = _jagged_of(parts)
    else:
        _warn_prototype()
        nt = strided(parts)
    if requires_grad:
        nt.requires_grad_(True)
    return nt


def as_nested_tensor(
    ts: Any, dtype: Any = None, device: Any = None, layout: Any = None
) -> NestedTensor:
    """A nested tensor of the tensors ``ts`` (or of a tensor's slices along dim 0), in
    their graph."""
    kind = _layout_kind(layout)
    if isinstance(ts, NestedTensor):
        return ts
    parts = [_as_tensor(t, dtype) for t in (ts.unbind(0) if isinstance(ts, Tensor) else ts)]
    parts = [t[...] if t.requires_grad else t for t in parts]  # (the nested tensor: no leaf)
    _check_parts(parts)
    if kind == "jagged":
        return _jagged_of(parts)
    _warn_prototype()
    return strided(parts)


def from_jagged(
    values: Tensor, offsets: Tensor | None, lengths: Tensor | None, jagged_dim: int | None
) -> NestedTensor:
    """``nested_tensor_from_jagged``: ``values`` cut at ``offsets`` (or by ``lengths``)."""
    if offsets is None:
        if lengths is None:
            raise RuntimeError(
                "nested_tensor_from_jagged(): At least one of offsets or lengths is required."
            )
        offsets, lengths = cr.cat([cr.zeros(1, dtype=cr.int64), lengths.cumsum(0)]), None
    if values.requires_grad:
        values = values[...]  # (an alias: the nested tensor is not the values' leaf)
    return jagged(values, offsets, lengths, 1 if jagged_dim is None else jagged_dim)


def narrow(tensor: Tensor, dim_: int, start: Any, length: Any, layout: Any) -> NestedTensor:
    """``torch.nested.narrow``: a jagged view of rows ``start[i]:start[i]+length[i]``."""
    if dim_ != 1 or layout is not cr.jagged:
        raise RuntimeError(f"narrow(): only dim=0 supported for nested tensors, but got: {dim_}")
    b, n = tensor.shape[0], tensor.shape[1]
    start = start if isinstance(start, Tensor) else cr.full((b,), start, dtype=cr.int64)
    length = length if isinstance(length, Tensor) else cr.full((b,), length, dtype=cr.int64)
    starts = start + cr.arange(b) * n
    offsets = cr.cat([starts, starts[-1:] + length[-1:]])
    return jagged(tensor.flatten(0, 1), offsets, length, 1)


def masked_select(tensor: Tensor, mask: Tensor) -> NestedTensor:
    """``torch.nested.masked_select``: each row's elements where ``mask`` holds."""
    mask = mask.expand_as(tensor)
    counts = mask.reshape(tensor.shape[0], -1).sum(1)
    offsets = cr.cat([cr.zeros(1, dtype=cr.int64), counts.cumsum(0)])
    return jagged(tensor[mask], offsets, None, 1)


# ----- what a nested tensor says about itself -----------------------------------------------


def unbind(nt: NestedTensor, dim: int = 0) -> tuple[Tensor, ...]:
    """The components, in the graph."""
    if dim != 0 and nt._kind == "strided":
        raise RuntimeError(
            f"NestedTensor can only be unbound along dimension 0 got dimension {dim} instead."
        )
    if dim != 0:
        raise RuntimeError("unbind(): only supported for NestedTensor on dim=0")
    return tuple(components(nt))


def size(nt: NestedTensor, d: int | None = None) -> Any:
    """The size (jagged), or along ``d`` when the components agree on it (strided)."""
    if d is None:
        return nt.shape
    n = dim(nt)
    if not -n <= d < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})"
        )
    d %= n
    if nt._kind == "jagged":
        return nt.shape[d]
    if d == 0:
        return len(nt._parts)
    sizes = {p.shape[d - 1] for p in nt._parts}
    if len(sizes) != 1:
        raise RuntimeError(f"Given dimension {d} is irregular and does not have a size.")
    return sizes.pop()


def numel(nt: NestedTensor) -> int:
    return sum(t.numel() for t in tensors(nt))


def values(nt: NestedTensor) -> Tensor:
    """The values (jagged: the components concatenated along the ragged dim; strided: all
    elements in one row)."""
    if nt._kind == "jagged":
        return nt._vals
    return cr.cat([p.reshape(-1) for p in nt._parts])


def _jagged_only(nt: NestedTensor, name: str) -> None:
    if nt._kind == "strided":
        raise AttributeError(f"'Tensor' object has no attribute '{name}'")


def offsets(nt: NestedTensor) -> Tensor:
    _jagged_only(nt, "offsets")
    return nt._offsets


def lengths_(nt: NestedTensor) -> Tensor | None:
    _jagged_only(nt, "lengths")
    return nt._lengths


def nested_size(nt: NestedTensor) -> Tensor:
    """``_nested_tensor_size``: one row of sizes per component (strided)."""
    if nt._kind == "jagged":
        raise NotImplementedError("aten._nested_tensor_size.default")
    return cr.tensor([list(p.shape) for p in nt._parts], dtype=cr.int64)


def is_contiguous(nt: NestedTensor, memory_format: Any = None) -> bool:
    if nt._kind == "strided":
        return True
    return nt._lengths is None and nt._vals.is_contiguous()


def _len(nt: NestedTensor) -> int:
    if nt._kind == "strided":
        raise sizes_error()
    return len(nt._offsets) - 1


def _stride(nt: NestedTensor, *_: Any) -> Any:
    if nt._kind == "strided":
        raise RuntimeError(
            "Internal error: NestedTensorImpl doesn't support strides. Please file an issue."
        )
    raise not_on_nested("stride", True)


def _numpy(nt: NestedTensor, *_: Any, **__: Any) -> Any:
    if nt._kind == "strided":
        raise sizes_error()
    raise RuntimeError(".numpy() is not supported for tensor subclasses.")


def _tolist(nt: NestedTensor) -> Any:
    if nt._kind == "strided":
        _stride(nt)
    raise RuntimeError(".tolist() is not supported for tensor subclasses, got NestedTensor")


def _item(nt: NestedTensor) -> Any:
    n = numel(nt)
    if n != 1:
        raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
    return tensors(nt)[0].item()


def _format(nt: NestedTensor, spec: str) -> str:
    return nested_repr(nt) if not spec else format(_item(nt), spec)


def _getitem(nt: NestedTensor, key: Any) -> Tensor:
    """A component (``nt[i]``), or each row's element ``i`` of the last dim (``nt[..., i]``)."""
    jag = nt._kind == "jagged"
    if isinstance(key, int):
        b = nt.size(0)
        if not -b <= key < b:
            raise IndexError(
                "tuple index out of range"
                if jag
                else f"index {key} is out of bounds for dimension 0 with size {b}"
            )
        return components(nt)[key]
    if isinstance(key, tuple) and len(key) == 2 and key[0] is Ellipsis:
        if jag and nt._ragged < dim(nt) - 1:
            return same_offsets(nt, nt._vals[..., key[1]])
        if not jag:
            return strided([p[..., key[1]] for p in nt._parts])
    first = key[0] if isinstance(key, tuple) and key else key
    if isinstance(first, slice):
        if jag:
            raise RuntimeError("slice(): not supported for NestedTensor on dim=0")
        raise not_on_nested("slice.Tensor", False)
    raise not_on_nested("index.Tensor", jag)


def _is_floating_point(nt: NestedTensor) -> bool:
    return nt.dtype.is_floating_point


def _dim(nt: NestedTensor) -> int:
    return dim(nt)


# ----- autograd ---------------------------------------------------------------------------


def _map(nt: NestedTensor, f: Callable[[Tensor], Tensor]) -> NestedTensor:
    """``f`` of each tensor holding ``nt``'s elements, as a nested tensor like ``nt``."""
    if nt._kind == "jagged":
        return same_offsets(nt, f(nt._vals))
    return strided([f(p) for p in nt._parts])


def requires_grad_(nt: NestedTensor, requires_grad: bool = True) -> NestedTensor:
    for t in tensors(nt):
        t.requires_grad_(requires_grad)
    return nt


def backward(
    nt: NestedTensor,
    gradient: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Any = None,
) -> None:
    """Back-propagate ``gradient`` (a nested tensor like ``nt``) into the components."""
    if gradient is None:
        raise RuntimeError("grad can be implicitly created only for scalar outputs")
    if nt._kind == "jagged" and gradient.shape[nt._ragged] is not nt._j:
        raise RuntimeError(
            f"Mismatch in shape: grad_output[0] has a shape of {gradient.shape!r} and "
            f"output[0] has a shape of {nt.shape!r}."
        )
    if not nt.requires_grad:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    pairs = [(t, g) for t, g in zip(tensors(nt), tensors(gradient)) if t.requires_grad]
    if inputs is not None:
        inputs = [x for i in inputs for x in (tensors(i) if isinstance(i, NestedTensor) else [i])]
    cr.autograd.backward(
        [t for t, _ in pairs],
        [g for _, g in pairs],
        retain_graph=retain_graph,
        create_graph=create_graph,
        inputs=inputs,
    )


def detach(nt: NestedTensor) -> NestedTensor:
    return _map(nt, lambda t: t.detach())


def clone(nt: NestedTensor, *, memory_format: Any = None) -> NestedTensor:
    return _map(nt, lambda t: t.clone())


def contiguous(nt: NestedTensor, memory_format: Any = None) -> NestedTensor:
    if is_contiguous(nt):
        return nt
    return _jagged_like(nt, [c.contiguous() for c in components(nt)])


def to(nt: NestedTensor, *args: Any, **kwargs: Any) -> NestedTensor:
    return _map(nt, lambda t: t.to(*args, **kwargs))


def _cast(dtype: Any) -> Callable:
    def cast(nt: NestedTensor, *_: Any, **__: Any) -> NestedTensor:
        return _map(nt, lambda t: t.to(dtype))

    return cast


def to_padded_tensor(nt: NestedTensor, padding: float, output_size: Any = None) -> Tensor:
    """The components padded with ``padding`` to the largest size (or ``output_size``) and
    stacked; the gradient reaches the components' elements."""
    if not isinstance(nt, NestedTensor):
        raise not_on_nested("to_padded_tensor", False, "CPU")
    if nt._lengths is not None:
        raise RuntimeError("to_padded_tensor(): not supported for nested tensors with holes")
    parts = components(nt)
    n = dim(nt) - 1
    top = [max((p.shape[d] for p in parts), default=0) for d in range(n)]
    if output_size is not None and nt._kind == "jagged":  # (only the ragged dim's is used)
        top[nt._ragged - 1] = max(top[nt._ragged - 1], output_size[nt._ragged])
    elif output_size is not None:
        wanted = list(output_size)[1:]
        if any(w < t for w, t in zip(wanted, top)):
            raise RuntimeError(
                "Value in output_size is less than NestedTensor padded size. Truncation is "
                "not supported."
            )
        top = wanted
    if not parts:
        return cr.zeros(0, dtype=nt.dtype)
    padded = [F.pad(p, _pad_widths(p.shape, top), value=padding) for p in parts]
    out = cr.stack(padded)
    if output_size is not None and nt._kind == "strided" and output_size[0] > len(parts):
        extra = cr.full((output_size[0] - len(parts), *top), padding, dtype=out.dtype)
        out = cr.cat([out, extra])
    return out


def _pad_widths(shape: Any, top: list[int]) -> list[int]:
    widths: list[int] = []
    for s, t in reversed(list(zip(shape, top))):
        widths += [0, t - s]
    return widths


def _jagged_like(nt: NestedTensor, parts: list[Tensor], ragged: int | None = None) -> NestedTensor:
    """Components of the sizes of ``nt``'s (along the ragged dim), concatenated into values
    with ``nt``'s offsets: the result of a per-component op."""
    r = nt._ragged if ragged is None else ragged
    return jagged(cr.cat(parts, r - 1), _packed_offsets(nt), None, r, nt._j)


def _packed_offsets(nt: NestedTensor) -> Tensor:
    if nt._lengths is None:
        return nt._offsets
    return cr.cat([cr.zeros(1, dtype=cr.int64), nt._lengths.cumsum(0)])


# ----- pointwise ops -------------------------------------------------------------------------

# the unary and binary ops both layouts take (PyTorch's NestedTensorCPU kernels)
POINTWISE_BOTH = {
    "relu", "relu_", "sin", "cos", "neg", "__neg__", "negative", "abs", "__abs__", "tanh",
    "sqrt", "sgn", "logical_not", "isnan", "isinf", "positive", "gelu", "silu", "softsign",
    "tanhshrink", "dropout", "add", "__add__", "__radd__", "__iadd__", "add_", "sub",
    "__sub__", "__isub__", "sub_", "mul", "__mul__", "__rmul__", "__imul__", "mul_", "div",
    "__truediv__", "__itruediv__", "div_", "gt", "__gt__", "ge", "__ge__", "eq", "__eq__",
    "masked_fill", "masked_fill_", "zeros_like", "ones_like", "empty_like", "where",
    "threshold", "clone", "abs_", "neg_", "sin_", "cos_", "tanh_", "sqrt_",
}  # fmt: skip
# the further ones of the jagged layout (PyTorch's Python NestedTensor)
POINTWISE_JAGGED = {
    "tan", "exp", "log", "sigmoid", "rsqrt", "exp2", "expm1", "log1p", "log2", "log10",
    "floor", "ceil", "round", "trunc", "sign", "reciprocal", "square", "erf", "asin", "acos",
    "atan", "sinh", "cosh", "asinh", "atanh", "acosh", "frac", "signbit", "nan_to_num",
    "mish", "hardsigmoid", "leaky_relu", "elu", "selu", "celu", "softplus", "relu6",
    "hardtanh", "__rsub__", "rsub", "__rtruediv__", "pow", "__pow__", "__rpow__", "maximum",
    "minimum", "lt", "__lt__", "le", "__le__", "ne", "__ne__", "atan2", "clamp", "clip",
    "bitwise_not", "logical_and", "logical_or", "exp_", "sigmoid_", "pow_", "clamp_",
    "float_power", "fmod", "remainder", "__mod__", "floor_divide", "__floordiv__",
    "full_like", "rand_like", "randn_like", "erfinv", "isfinite", "lerp", "addcmul",
    "addcdiv", "logical_xor",
}  # fmt: skip
_INPLACE_RESULT = {"__iadd__", "__isub__", "__imul__", "__itruediv__"}


def _nested_args(args: tuple, kwargs: dict) -> list[NestedTensor]:
    found = [a for a in args if isinstance(a, NestedTensor)]
    return found + [v for v in kwargs.values() if isinstance(v, NestedTensor)]


def pointwise(name: str, func: Callable, args: tuple, kwargs: dict) -> Any:
    """``func`` on the values (jagged) or each component (strided), with the other
    operands matched to them."""
    nts = _nested_args(args, kwargs)
    first = nts[0]
    if first._kind == "jagged":
        out = _pointwise_jagged(name, func, first, nts, args, kwargs)
    else:
        out = _pointwise_strided(name, func, first, nts, args, kwargs)
    inplace = name in _INPLACE_RESULT or (name.endswith("_") and not name.endswith("__"))
    return args[0] if inplace else out


def _pointwise_jagged(
    name: str, func: Callable, nt: NestedTensor, nts: list, args: tuple, kwargs: dict
) -> NestedTensor:
    for other in nts:
        if other._kind != "jagged" or other._j is not nt._j:
            other_shape = _shape_text(other) if other._kind == "jagged" else None
            if other_shape is None:
                raise sizes_error()
            raise RuntimeError(
                f"cannot call binary pointwise function {_aten(name)}.Tensor with inputs of "
                f"shapes {_shape_text(nt)} and {other_shape}"
            )
    n = dim(nt)
    dense = [a for a in (*args, *kwargs.values()) if _is_dense(a) and a.dim() >= n]
    if not dense:
        return same_offsets(nt, func(*_swap(args, nt, None), **_swap(kwargs, nt, None)))
    parts = []
    for b in range(len(nt._offsets) - 1):
        parts.append(func(*_swap(args, nt, b, n), **_swap(kwargs, nt, b, n)))
    return _jagged_like(nt, parts)


def _is_dense(a: Any) -> bool:
    return isinstance(a, Tensor) and not isinstance(a, NestedTensor)


def _swap(items: Any, nt: NestedTensor, b: int | None, n: int = 0) -> Any:
    """``items`` with each nested tensor replaced by its values (``b`` None) or its
    component ``b``, and each dense tensor of ``n`` dims by its slice ``b``."""

    def one(a: Any) -> Any:
        if isinstance(a, NestedTensor):
            return a._vals if b is None else components(a)[b]
        if b is not None and _is_dense(a) and a.dim() >= n:
            return a[b if a.shape[0] > 1 else 0]
        return a

    if isinstance(items, dict):
        return {k: one(v) for k, v in items.items()}
    return tuple(one(a) for a in items)


def _pointwise_strided(
    name: str, func: Callable, nt: NestedTensor, nts: list, args: tuple, kwargs: dict
) -> NestedTensor:
    if name not in POINTWISE_BOTH:
        raise not_on_nested(name, False)
    if name in ("eq", "__eq__") and len(nts) > 1:
        raise RuntimeError("eq does not support nested tensor as other value.")
    for a in (*args, *kwargs.values()):
        if _is_dense(a) and a.dim() > 0:
            raise RuntimeError(
                "Expected both self and other to be nested, but got a nested self and "
                "non-nested other"
            )
    parts = []
    for i in range(len(nt._parts)):
        swap = {id(t): t._parts[i] for t in nts}
        parts.append(
            func(
                *(swap.get(id(a), a) for a in args),
                **{k: swap.get(id(v), v) for k, v in kwargs.items()},
            )
        )
    return strided(parts)


# ----- reductions, normalisation ---------------------------------------------------------------


def _arg(args: tuple, kwargs: dict, i: int, name: str, default: Any = None) -> Any:
    return args[i] if len(args) > i else kwargs.get(name, default)


def _softmax_of(name: str) -> Callable:
    def softmax(*args: Any, **kwargs: Any) -> NestedTensor:
        nt = args[0]
        d = _arg(args, kwargs, 1, "dim")
        dtype = _arg(args, kwargs, 3 if name != "softmax" or len(args) > 3 else 2, "dtype")
        f = getattr(F, name)
        d %= dim(nt)
        if nt._kind == "strided":
            if name != "softmax":
                raise not_on_nested(name, False)
            if d == 0:
                raise RuntimeError("Cannot apply softmax across nested dimension 0")
            return strided([f(p, d - 1, dtype=dtype) for p in nt._parts])
        if d == 0:
            raise RuntimeError(
                f"{name}(): not supported when reducing across the batch dimension for NestedTensor"
            )
        if d == nt._ragged and name == "log_softmax":
            raise RuntimeError(
                "log_softmax(): not supported when reducing along the ragged dimension for "
                "NestedTensor"
            )
        if d == nt._ragged:
            return _jagged_like(nt, [f(c, d - 1, dtype=dtype) for c in components(nt)])
        return same_offsets(nt, f(nt._vals, d - 1, dtype=dtype))

    softmax.__name__ = name
    return softmax


def _reduction(name: str) -> Callable:
    def reduce(nt: NestedTensor, *args: Any, **kwargs: Any) -> Any:
        d = _arg(args, kwargs, 0, "dim")
        keepdim = _arg(args, kwargs, 1, "keepdim", False)
        dtype = kwargs.get("dtype")
        if nt._kind == "strided":
            return _reduce_strided(name, nt, d, keepdim, dtype)
        return _reduce_jagged(name, nt, d, keepdim, dtype)

    reduce.__name__ = name
    return reduce


def _reduce_strided(name: str, nt: NestedTensor, d: Any, keepdim: bool, dtype: Any) -> Any:
    if name != "sum" or d is None:
        raise not_on_nested(name, False)
    dims = [d] if isinstance(d, int) else list(d)
    n = dim(nt)
    if len(dims) != 1:
        raise RuntimeError("NestedTensor only allows reduction of a single dimension for now.")
    if dims[0] % n != n - 1:
        raise RuntimeError(
            "NestedTensor can only be reduced across the last dimension for now got "
            f"dimension {dims[0]} instead."
        )
    if not keepdim:
        raise RuntimeError("NestedTensor always requires keepdim=True for now.")
    return strided([p.sum(-1, keepdim=True, dtype=dtype) for p in nt._parts])


def _reduce_jagged(name: str, nt: NestedTensor, d: Any, keepdim: bool, dtype: Any) -> Any:
    f = getattr(cr, name)
    extra = {} if dtype is None else {"dtype": dtype}
    if d is None:
        return f(nt._vals, **extra)
    n = dim(nt)
    dims = sorted({x % n for x in ([d] if isinstance(d, int) else d)})
    if 0 in dims and nt._ragged not in dims:
        raise RuntimeError(
            f"{name}(): reducing along the batch dimension but not the ragged dimension is "
            "not supported for nested tensors"
        )
    if nt._ragged in dims:
        if dims != [nt._ragged]:
            raise RuntimeError(
                f"{name}(): reducing along a ragged and non-batch dimension is not "
                "supported for nested tensors"
            )
        r = nt._ragged - 1
        return cr.stack([f(c, r, keepdim=keepdim, **extra) for c in components(nt)])
    out = f(nt._vals, [x - 1 for x in dims], keepdim=keepdim, **extra)
    ragged = nt._ragged - (0 if keepdim else sum(x < nt._ragged for x in dims))
    return same_offsets(nt, out, ragged)


def layer_norm(
    input: NestedTensor,
    normalized_shape: Any,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> NestedTensor:
    """Layer norm over the last dims of each row."""
    if input._kind == "strided":
        if weight is None or bias is None:
            raise ValueError("NestedTensor layer_norm requires weight and bias")
        return strided([F.layer_norm(p, normalized_shape, weight, bias, eps) for p in input._parts])
    return same_offsets(input, F.layer_norm(input._vals, normalized_shape, weight, bias, eps))


def linear(input: NestedTensor, weight: Tensor, bias: Tensor | None = None) -> NestedTensor:
    """x W^T + b on each row."""
    if input._kind == "strided":
        return strided([F.linear(p, weight, bias) for p in input._parts])
    if input._ragged == dim(input) - 1 or not input._vals.is_contiguous():
        raise ValueError(
            "NestedTensor linear_default(input: jt, weight: t, bias: t?): expected input to be "
            "a contiguous jagged layout NestedTensor"
        )
    return same_offsets(input, F.linear(input._vals, weight, bias))


def matmul(a: Any, b: Any) -> NestedTensor:
    """Nested @ nested (strided, per component) or jagged @ dense matrix."""
    if isinstance(a, NestedTensor) and a._kind == "strided":
        if not isinstance(b, NestedTensor):
            raise RuntimeError(
                "Expected both to be nested, but got a nested self and non-nested other"
            )
        return strided([x @ y for x, y in zip(a._parts, b._parts)])
    if isinstance(a, NestedTensor) and _is_dense(b) and a._ragged < dim(a) - 1:
        return same_offsets(a, a._vals @ b)
    shape_b = _shape_text(b) if isinstance(b, NestedTensor) else f"{b.shape!r}"
    if isinstance(b, NestedTensor) and b._kind == "jagged":
        shape_b = repr(b.shape)
    raise RuntimeError(
        f"matmul(): not supported between inputs of shapes {_shape_text(a)} and {shape_b}"
    )


def transpose(nt: NestedTensor, dim0: int, dim1: int) -> NestedTensor:
    """Swap two dims: the values' (jagged, not the batch dim) or each component's."""
    n = dim(nt)
    d0, d1 = dim0 % n, dim1 % n
    if nt._kind == "strided":
        if 0 in (d0, d1):
            raise not_on_nested("transpose", False)
        return strided([p.transpose(d0 - 1, d1 - 1) for p in nt._parts])
    if 0 in (d0, d1):
        raise ValueError("Transpose is not supported on the batch dimension for jagged NT")
    r = nt._ragged
    ragged = d1 if r == d0 else d0 if r == d1 else r
    return same_offsets(nt, nt._vals.transpose(d0 - 1, d1 - 1), ragged)


def scaled_dot_product_attention(
    query: NestedTensor, key: NestedTensor, value: NestedTensor, *args: Any, **kwargs: Any
) -> NestedTensor:
    """Attention of each batch element's (H, n_b, D) query, key and value, dense."""
    if query._kind != "jagged":
        raise not_on_nested("_scaled_dot_product_attention", False)
    # (PyTorch's CPU kernel for nested inputs: rows contiguous before the transpose)
    for t in (query, key, value):
        if not t._vals.transpose(0, t._ragged - 1).is_contiguous():
            raise RuntimeError("No viable backend for scaled_dot_product_attention was found.")
    out = [
        F.scaled_dot_product_attention(q, k, v, *args, **kwargs)
        for q, k, v in zip(components(query), components(key), components(value))
    ]
    return _jagged_like(query, out)


# ----- shapes (jagged: on the values, keeping the batch and ragged dims) -------------------------


def _shifted(nt: NestedTensor, d: int, by: int) -> int:
    """The ragged dim after dims are inserted (``by`` > 0) or removed at ``d``."""
    return nt._ragged + by if d <= nt._ragged and by > 0 or d < nt._ragged else nt._ragged


def _plain_dim(nt: NestedTensor, d: int, what: str, n: int | None = None) -> int:
    """``d`` in range, and neither the batch nor the ragged dim (PyTorch's error if so)."""
    d %= dim(nt) if n is None else n
    if d == 0:
        raise RuntimeError(f"{what}(): not supported for NestedTensor on dim=0")
    if d == nt._ragged:
        raise RuntimeError(f"{what}(): not supported for NestedTensor on ragged dim")
    return d


def unsqueeze(nt: NestedTensor, d: int) -> NestedTensor:
    """A size-1 dim inserted at ``d`` (not 0)."""
    d %= dim(nt) + 1
    if nt._kind == "strided":
        if d == 0:
            raise not_on_nested("unsqueeze", False)
        return strided([p.unsqueeze(d - 1) for p in nt._parts])
    if d == 0:
        raise RuntimeError("unsqueeze(): not supported for NestedTensor on dim=0")
    return same_offsets(nt, nt._vals.unsqueeze(d - 1), _shifted(nt, d, 1))


def squeeze(nt: NestedTensor, d: int) -> NestedTensor:
    """The size-1 dim ``d`` (neither the batch nor the ragged one) removed."""
    _need_jagged(nt, "squeeze.dim")
    d = _plain_dim(nt, d, "squeeze")
    return same_offsets(nt, nt._vals.squeeze(d - 1), _shifted(nt, d, -1))


def unflatten(nt: NestedTensor, d: int, sizes: Any) -> NestedTensor:
    """Dim ``d`` split into ``sizes``."""
    if nt._kind == "strided":
        raise sizes_error()
    d = _plain_dim(nt, d, "unflatten")
    ragged = nt._ragged + (len(sizes) - 1 if d < nt._ragged else 0)
    return same_offsets(nt, nt._vals.unflatten(d - 1, sizes), ragged)


def flatten(nt: NestedTensor, start_dim: int = 0, end_dim: int = -1) -> NestedTensor:
    """Dims ``start_dim`` to ``end_dim`` (neither the batch nor the ragged one) as one."""
    if nt._kind == "strided":
        raise sizes_error()
    n = dim(nt)
    s, e = start_dim % n, end_dim % n
    if s <= nt._ragged <= e or s == 0:
        raise RuntimeError("flatten(): not supported for NestedTensor on ragged dim")
    ragged = nt._ragged - (e - s if e < nt._ragged else 0)
    return same_offsets(nt, nt._vals.flatten(s - 1, e - 1), ragged)


def reshape(nt: NestedTensor, *shape: Any) -> NestedTensor:
    """The same batch and ragged dim, the other dims reshaped (``view``, ``reshape``)."""
    _need_jagged(nt, "view")
    sizes = list(shape[0]) if len(shape) == 1 and not isinstance(shape[0], int) else list(shape)
    r = nt._ragged
    if r != 1 or len(sizes) < 2 or sizes[0] not in (-1, len(nt._offsets) - 1):
        raise RuntimeError(f"view(): cannot view shape {_shape_text(nt)} as {sizes}")
    inner = 1
    for k in sizes[2:]:
        inner *= k
    if sizes[1] not in (-1, nt._j) or inner != nt._vals[:1].numel():
        raise RuntimeError(f"view(): cannot view shape {_shape_text(nt)} as {sizes}")
    return same_offsets(nt, nt._vals.reshape(nt._vals.shape[0], *sizes[2:]))


def _pieces(name: str) -> Callable:
    def pieces(nt: NestedTensor, size: Any, dim: int = 0) -> tuple[NestedTensor, ...]:
        dim_ = dim
        n = nt.dim()
        if nt._kind == "strided":
            if dim_ % n == 0:
                raise not_on_nested(name, False)
            cut = [getattr(p, name)(size, dim_ % n - 1) for p in nt._parts]
            return tuple(strided(list(group)) for group in zip(*cut))
        d = _plain_dim(nt, dim_, name)
        return tuple(same_offsets(nt, v) for v in getattr(nt._vals, name)(size, d - 1))

    pieces.__name__ = name
    return pieces


def select(nt: NestedTensor, d: int, index: int) -> Any:
    """Component ``index`` (``d`` = 0), or the values' slice at ``index`` along ``d``."""
    if d % dim(nt) == 0:
        return components(nt)[index]
    if nt._kind == "strided":
        return strided([p.select(d % dim(nt) - 1, index) for p in nt._parts])
    d = _plain_dim(nt, d, "select")
    return same_offsets(nt, nt._vals.select(d - 1, index), _shifted(nt, d, -1))


def cat(tensors: Any, dim: int = 0) -> NestedTensor:
    """Jagged tensors of the same offsets joined along a dim that is neither the batch nor
    the ragged one."""
    first = tensors[0]
    if not isinstance(first, NestedTensor):
        raise not_on_nested("cat", True)
    _need_jagged(first, "cat")
    d = _plain_dim(first, dim, "cat")
    return same_offsets(first, cr.cat([t._vals for t in tensors], d - 1))


def stack(tensors: Any, dim: int = 0) -> NestedTensor:
    """Jagged tensors of the same offsets stacked at a new dim (not 0)."""
    first = tensors[0]
    if not isinstance(first, NestedTensor):
        raise not_on_nested("stack", True)
    _need_jagged(first, "stack")
    d = dim % (first.dim() + 1)
    if d == 0:
        raise RuntimeError("stack(): not supported for NestedTensor on dim=0")
    return same_offsets(first, cr.stack([t._vals for t in tensors], d - 1), _shifted(first, d, 1))


def permute(nt: NestedTensor, *dims: Any) -> NestedTensor:
    """The dims in the order ``dims`` (the batch dim first)."""
    _need_jagged(nt, "permute")
    order = [d % dim(nt) for d in (dims[0] if len(dims) == 1 else dims)]
    if order[0] != 0:
        raise ValueError("Permute is not supported on the batch dimension for jagged NT")
    return same_offsets(nt, nt._vals.permute(*[d - 1 for d in order[1:]]), order.index(nt._ragged))


def _need_jagged(nt: NestedTensor, name: str) -> None:
    if nt._kind == "strided":
        raise not_on_nested(name, False)


def dispatch(name: str, func: Callable, args: tuple, kwargs: dict) -> Any:
    """An op without a handler: the pointwise ones, or PyTorch's error."""
    nts = _nested_args(args, kwargs)
    if name in POINTWISE_BOTH or name in POINTWISE_JAGGED:
        return pointwise(name, func, args, kwargs)
    raise not_on_nested(name, bool(nts) and nts[0]._kind == "jagged")


OPS: dict[str, Callable] = {
    "__repr__": nested_repr,
    "__str__": nested_repr,
    "__format__": _format,
    "__len__": _len,
    "__getitem__": _getitem,
    "unbind": unbind,
    "size": size,
    "dim": _dim,
    "ndimension": _dim,
    "numel": numel,
    "nelement": numel,
    "values": values,
    "offsets": offsets,
    "lengths": lengths_,
    "_nested_tensor_size": nested_size,
    "is_contiguous": is_contiguous,
    "contiguous": contiguous,
    "stride": _stride,
    "numpy": _numpy,
    "tolist": _tolist,
    "item": _item,
    "is_floating_point": _is_floating_point,
    "requires_grad_": requires_grad_,
    "backward": backward,
    "detach": detach,
    "clone": clone,
    "to": to,
    "float": _cast(cr.float32),
    "double": _cast(cr.float64),
    "half": _cast(cr.float16),
    "to_padded_tensor": to_padded_tensor,
    "softmax": _softmax_of("softmax"),
    "log_softmax": _softmax_of("log_softmax"),
    "sum": _reduction("sum"),
    "mean": _reduction("mean"),
    "layer_norm": layer_norm,
    "linear": linear,
    "matmul": matmul,
    "__matmul__": matmul,
    "bmm": matmul,
    "transpose": transpose,
    "swapaxes": transpose,
    "swapdims": transpose,
    "scaled_dot_product_attention": scaled_dot_product_attention,
    "unsqueeze": unsqueeze,
    "squeeze": squeeze,
    "unflatten": unflatten,
    "flatten": flatten,
    "view": reshape,
    "reshape": reshape,
    "chunk": _pieces("chunk"),
    "split": _pieces("split"),
    "select": select,
    "cat": cat,
    "concat": cat,
    "stack": stack,
    "permute": permute,
    "amax": _reduction("amax"),
    "amin": _reduction("amin"),
}


def _install() -> None:
    """The handlers above, as NestedTensor's methods too (some of Tensor's methods are
    not dispatched through ``__torch_function__``)."""
    HANDLERS.update(OPS)
    for name, handler in OPS.items():
        setattr(NestedTensor, name, handler)
    NestedTensor.__hash__ = Tensor.__hash__


_install()
