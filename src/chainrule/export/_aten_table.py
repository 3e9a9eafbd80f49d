"""The ATen overloads torch.export emits, each as a chainrule function taking the
overload's schema arguments in order, with the schema's defaults.

Keyword-only schema arguments that only place a tensor (``layout``, ``pin_memory``,
``non_blocking``, ``memory_format``) are accepted and have no effect on CPU arrays.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import chainrule as torch
import chainrule.nn.functional as F

from ._data_dependent import DATA_DEPENDENT_TABLE
from ._translations_direct import DIRECT_TABLE
from ._translations_factories import FACTORIES_TABLE
from ._translations_indices import INDICES_TABLE
from ._translations_losses import LOSSES_TABLE
from ._translations_resample import RESAMPLE_TABLE
from ._translations_sorting import SORTING_TABLE

Tensor = torch.Tensor
_NOT_NEEDED = ("layout", "pin_memory", "non_blocking", "memory_format")


def _factory(fn: Callable) -> Callable:
    """A creation function with ATen's keyword-only placement arguments dropped."""

    def run(*args: Any, **kwargs: Any) -> Tensor:
        for key in _NOT_NEEDED:
            kwargs.pop(key, None)
        return fn(*args, **{k: v for k, v in kwargs.items() if v is not None})

    return run


def _elu(self: Tensor, alpha: Any = 1, scale: Any = 1, input_scale: Any = 1) -> Tensor:
    """ATen's elu: scale·x for x > 0, scale·alpha·(exp(input_scale·x) - 1) else (selu's
    scales, celu's alpha)."""
    if scale == 1 and input_scale == 1:
        return F.elu(self, alpha)
    return torch.where(self > 0, self * scale, torch.expm1(self * input_scale) * (scale * alpha))


def _method(name: str) -> Callable:
    """``self.<name>(*args)``."""
    return lambda self, *args, **kwargs: getattr(self, name)(*args, **kwargs)


def _slice(
    self: Tensor, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1
) -> Tensor:
    """``self`` sliced along ``dim`` (a view)."""
    dim = dim % max(self.dim(), 1)
    return self[(slice(None),) * dim + (slice(start, end, step),)]


def _sum(self: Tensor, *, dtype: Any = None) -> Tensor:
    return torch.sum(self, dtype=dtype)


def _sum_dim(
    self: Tensor, dim: Sequence[int] | None, keepdim: bool = False, *, dtype: Any = None
) -> Tensor:
    if dim is None or len(dim) == 0:
        return (
            torch.sum(self, dtype=dtype)
            if not keepdim
            else self.sum(tuple(range(self.dim())), keepdim=True, dtype=dtype)
        )
    return torch.sum(self, tuple(dim), keepdim=keepdim, dtype=dtype)


def _mean(self: Tensor, *, dtype: Any = None) -> Tensor:
    return torch.mean(self, dtype=dtype)


def _mean_dim(
    self: Tensor, dim: Sequence[int] | None, keepdim: bool = False, *, dtype: Any = None
) -> Tensor:
    if dim is None or len(dim) == 0:
        dim = tuple(range(self.dim()))
    return torch.mean(self, tuple(dim), keepdim=keepdim, dtype=dtype)


def _amax(self: Tensor, dim: Sequence[int] = (), keepdim: bool = False) -> Tensor:
    return torch.amax(self, tuple(dim) or tuple(range(self.dim())), keepdim=keepdim)


def _amin(self: Tensor, dim: Sequence[int] = (), keepdim: bool = False) -> Tensor:
    return torch.amin(self, tuple(dim) or tuple(range(self.dim())), keepdim=keepdim)


def _var(
    self: Tensor, dim: Sequence[int] | None = None, *, correction: Any = None, keepdim: bool = False
) -> Tensor:
    return torch.var(self, dim, correction=1 if correction is None else correction, keepdim=keepdim)


def _std(
    self: Tensor, dim: Sequence[int] | None = None, *, correction: Any = None, keepdim: bool = False
) -> Tensor:
    return torch.std(self, dim, correction=1 if correction is None else correction, keepdim=keepdim)


def _pool_stride(kernel_size: Sequence[int], stride: Sequence[int]) -> Any:
    return list(stride) if stride else None


def _max_pool(n: int, indices: bool) -> Callable:
    pool = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}[n]

    def run(
        self: Tensor,
        kernel_size: Sequence[int],
        stride: Sequence[int] = (),
        padding: Any = 0,
        dilation: Any = 1,
        ceil_mode: bool = False,
    ) -> Any:
        out = pool(
            self,
            kernel_size,
            _pool_stride(kernel_size, stride),
            padding,
            dilation,
            ceil_mode=ceil_mode,
            return_indices=indices,
        )
        return tuple(out) if indices else out

    return run


def _avg_pool(n: int) -> Callable:
    pool = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}[n]

    def run(
        self: Tensor,
        kernel_size: Sequence[int],
        stride: Sequence[int] = (),
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> Tensor:
        extra = {} if n == 1 else {"divisor_override": divisor_override}
        return pool(
            self,
            kernel_size,
            _pool_stride(kernel_size, stride),
            padding,
            ceil_mode,
            count_include_pad,
            **extra,
        )

    return run


def _no_stats(input: Tensor) -> Tensor:
    return torch.empty((0,), dtype=input.dtype)


def _bn_no_training(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor,
    running_var: Tensor,
    momentum: float,
    eps: float,
) -> tuple[Tensor, Tensor, Tensor]:
    """Batch norm with the running statistics; the saved statistics are empty."""
    out = F.batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    return out, _no_stats(input), _no_stats(input)


def _bn_functional(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor,
    running_var: Tensor,
    training: bool,
    momentum: float,
    eps: float,
) -> tuple[Tensor, ...]:
    """Batch norm that leaves the running statistics alone and returns their new values."""
    new_mean, new_var = running_mean.detach().clone(), running_var.detach().clone()
    out, mean, rstd = torch.native_batch_norm(
        input, weight, bias, new_mean, new_var, training, momentum, eps
    )
    return out, mean, rstd, new_mean, new_var


def _bn_legit(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor,
    running_var: Tensor,
    training: bool,
    momentum: float,
    eps: float,
) -> tuple[Tensor, Tensor, Tensor]:
    """Batch norm updating the running statistics in place when training."""
    return torch.native_batch_norm(
        input, weight, bias, running_mean, running_var, training, momentum, eps
    )


def _bn_legit_no_stats(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
) -> tuple[Tensor, Tensor, Tensor]:
    """Batch norm without running statistics (the batch's own)."""
    return torch.native_batch_norm(input, weight, bias, None, None, training, momentum, eps)


def _embedding(
    weight: Tensor,
    indices: Tensor,
    padding_idx: int = -1,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    # ATen's -1 means "no padding row" (F.embedding's None)
    return F.embedding(
        indices,
        weight,
        None if padding_idx == -1 else padding_idx,
        scale_grad_by_freq=scale_grad_by_freq,
        sparse=sparse,
    )


def _to_copy(self: Tensor, *, dtype: Any = None, device: Any = None, **_: Any) -> Tensor:
    return self.to(dtype=dtype or self.dtype, device=device, copy=True)


def _to_dtype(
    self: Tensor,
    dtype: Any,
    non_blocking: bool = False,
    copy: bool = False,
    memory_format: Any = None,
) -> Tensor:
    return self.to(dtype, copy=copy)


def _to_dtype_layout(
    self: Tensor, *, dtype: Any = None, device: Any = None, copy: bool = False, **_: Any
) -> Tensor:
    return self.to(dtype=dtype or self.dtype, device=device, copy=copy)


def _to_device(
    self: Tensor,
    device: Any,
    dtype: Any,
    non_blocking: bool = False,
    copy: bool = False,
    memory_format: Any = None,
) -> Tensor:
    return self.to(device=device, dtype=dtype, copy=copy)


def _softmax(fn: Callable) -> Callable:
    def run(self: Tensor, dim: int, dtype: Any = None) -> Tensor:
        return fn(self, dim, dtype=dtype)

    return run


def _softmax_half(fn: Callable) -> Callable:
    def run(self: Tensor, dim: int, half_to_float: bool) -> Tensor:
        return fn(self, dim)

    return run


def _sdpa(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    *,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    return F.scaled_dot_product_attention(
        query, key, value, attn_mask, dropout_p, is_causal, scale=scale, enable_gqa=enable_gqa
    )


def _layer_norm(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
    cudnn_enable: bool = True,
) -> Tensor:
    return F.layer_norm(input, list(normalized_shape), weight, bias, eps)


def _group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
    cudnn_enabled: bool = True,
) -> Tensor:
    return F.group_norm(input, num_groups, weight, bias, eps)


def _conv(fn: Callable) -> Callable:
    def run(
        input: Tensor,
        weight: Tensor,
        bias: Tensor | None = None,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
    ) -> Tensor:
        return fn(input, weight, bias, stride, padding, dilation, groups)

    return run


def _conv_transpose(fn: Callable) -> Callable:
    def run(
        input: Tensor,
        weight: Tensor,
        bias: Tensor | None = None,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        dilation: Any = 1,
    ) -> Tensor:
        return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)

    return run


def _dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return F.dropout(input, p, train)


def _alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return F.alpha_dropout(input, p, train)


def _add(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    return torch.add(self, other, alpha=alpha)


def _add_scalar(self: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    return torch.add(self, other, alpha=alpha)


def _sub(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    return torch.sub(self, other, alpha=alpha)


def _sub_scalar(self: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    return torch.sub(self, other, alpha=alpha)


def _rsub(self: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    return torch.rsub(self, other, alpha=alpha)


def _add_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    return self.add_(other, alpha=alpha)


def _div_mode(self: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    return torch.div(self, other, rounding_mode=rounding_mode)


def _addmm(fn: Callable) -> Callable:
    def run(self: Tensor, a: Tensor, b: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        return fn(self, a, b, beta=beta, alpha=alpha)

    return run


def _gelu(self: Tensor, *, approximate: str = "none") -> Tensor:
    return F.gelu(self, approximate=approximate)


def _expand(self: Tensor, size: Sequence[int], *, implicit: bool = False) -> Tensor:
    return self.expand(list(size))


def _contiguous(self: Tensor, *, memory_format: Any = None) -> Tensor:
    return self.contiguous()


def _clone(self: Tensor, *, memory_format: Any = None) -> Tensor:
    if memory_format is None:
        return self.clone()
    return self.clone(memory_format=memory_format)


def _view(self: Tensor, size: Sequence[int]) -> Tensor:
    """A view of ``self`` with sizes ``size``; a copy where chainrule's strides (which may
    differ from PyTorch's after some ops) allow no view."""
    try:
        return self.view(list(size))
    except RuntimeError:
        return self.reshape(list(size))


def _copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    return self.copy_(src)


def _pad(
    self: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None
) -> Tensor:
    return F.pad(self, list(pad), mode, value)


def _constant_pad(self: Tensor, pad: Sequence[int], value: Any = 0) -> Tensor:
    return F.pad(self, list(pad), "constant", value)


def _adaptive_avg(n: int) -> Callable:
    pool = {1: F.adaptive_avg_pool1d, 2: F.adaptive_avg_pool2d, 3: F.adaptive_avg_pool3d}[n]
    return lambda self, output_size: pool(self, list(output_size))


def _adaptive_max(n: int) -> Callable:
    pool = {1: F.adaptive_max_pool1d, 2: F.adaptive_max_pool2d, 3: F.adaptive_max_pool3d}[n]
    return lambda self, output_size: tuple(pool(self, list(output_size), return_indices=True))


def _assert_tensor_metadata(
    a: Tensor, size: Any = None, stride: Any = None, dtype: Any = None, **_: Any
) -> None:
    return None


def _assert_scalar(cond: Any, assert_msg: str) -> None:
    """A runtime check of a symbol's range (``u0 >= 0``): RuntimeError when it fails."""
    if not cond:
        raise RuntimeError(assert_msg)


def _max_dim(self: Tensor, dim: int, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    return tuple(torch.max(self, dim, keepdim))


def _min_dim(self: Tensor, dim: int, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    return tuple(torch.min(self, dim, keepdim))


def _einsum(equation: str, tensors: Sequence[Tensor], *, path: Any = None) -> Tensor:
    return torch.einsum(equation, *tensors)


def _index(self: Tensor, indices: Sequence[Tensor | None]) -> Tensor:
    return self[tuple(slice(None) if i is None else i for i in indices)]


def _sort_stable(
    self: Tensor, *, stable: bool | None, dim: int = -1, descending: bool = False
) -> tuple[Tensor, Tensor]:
    return tuple(torch.sort(self, dim=dim, descending=descending, stable=bool(stable)))


def _pin_memory(self: Tensor, device: Any = None) -> Tensor:
    """Pinning needs an accelerator: PyTorch's CPU build raises this RuntimeError."""
    raise RuntimeError("Cannot access accelerator device when none is available.")


def _sparse_addmm(
    self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1
) -> Tensor:
    return torch.sparse.addmm(self, mat1, mat2, beta=beta, alpha=alpha)


def _vector_norm(
    self: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
) -> Tensor:
    return torch.linalg.vector_norm(self, ord, dim, keepdim, dtype=dtype)


def _list(fn: Callable) -> Callable:
    """A function returning a sequence of tensors, as a list (ATen's Tensor[])."""
    return lambda *args, **kwargs: list(fn(*args, **kwargs))


def _unary(name: str) -> Callable:
    fn = getattr(torch, name)
    return lambda self: fn(self)


_UNARY = """abs acos asin atan ceil cos cosh erf exp exp2 expm1 floor log log10 log1p log2
neg reciprocal relu round rsqrt sigmoid sign sin sinh sqrt tan tanh trunc logical_not
isnan isinf bitwise_not""".split()
_BINARY = "mul div remainder fmod eq ne gt lt ge le bitwise_and bitwise_or".split()
_BINARY_DEFAULT = "maximum minimum atan2 logical_and logical_or".split()


def _cross_entropy_loss(
    self: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    reduction: int = 1,
    ignore_index: int = -100,
    label_smoothing: float = 0.0,
) -> Tensor:
    mode = ("none", "mean", "sum")[reduction]
    return F.cross_entropy(
        self,
        target,
        weight,
        ignore_index=ignore_index,
        reduction=mode,
        label_smoothing=label_smoothing,
    )


TABLE: dict[str, Callable] = {
    **{f"{n}.default": _unary(n) for n in _UNARY},
    **{f"{n}.Tensor": getattr(torch, n) for n in _BINARY},
    **{f"{n}.Scalar": getattr(torch, n) for n in _BINARY},
    **{f"{n}.default": getattr(torch, n) for n in _BINARY_DEFAULT},
    "pow.Tensor_Scalar": torch.pow,
    "pow.Tensor_Tensor": torch.pow,
    "pow.Scalar": torch.pow,
    "add.Tensor": _add,
    "add.Scalar": _add_scalar,
    "add_.Tensor": _add_,
    "sub.Tensor": _sub,
    "subtract.Tensor": _sub,
    "sub.Scalar": _sub_scalar,
    "rsub.Scalar": _rsub,
    "rsub.Tensor": _rsub,
    "mul_.Tensor": _method("mul_"),
    "sub_.Tensor": _method("sub_"),
    "relu6.default": lambda self: F.relu6(self),
    "__and__.Tensor": torch.bitwise_and,
    "__or__.Tensor": torch.bitwise_or,
    "div_.Tensor": _method("div_"),
    "max.other": torch.maximum,
    "min.other": torch.minimum,
    "prod.dim_int": lambda self, dim, keepdim=False, *, dtype=None: torch.prod(
        self, dim, keepdim, dtype=dtype
    ),
    "numpy_T.default": lambda self: self.permute(*reversed(range(self.dim()))),
    "cross_entropy_loss.default": _cross_entropy_loss,
    "div.Tensor_mode": _div_mode,
    "relu_.default": F.relu_,
    "silu.default": lambda self: F.silu(self),
    "mish.default": lambda self: F.mish(self),
    "hardswish.default": lambda self: F.hardswish(self),
    "hardsigmoid.default": lambda self: F.hardsigmoid(self),
    "gelu.default": _gelu,
    "hardtanh.default": lambda self, min_val=-1, max_val=1: F.hardtanh(self, min_val, max_val),
    "leaky_relu.default": lambda self, negative_slope=0.01: F.leaky_relu(self, negative_slope),
    "elu.default": _elu,
    "softplus.default": lambda self, beta=1, threshold=20: F.softplus(self, beta, threshold),
    "clamp.default": lambda self, min=None, max=None: torch.clamp(self, min, max),
    "clamp.Tensor": lambda self, min=None, max=None: torch.clamp(self, min, max),
    "clamp_min.default": lambda self, min: torch.clamp_min(self, min),
    "where.self": torch.where,
    "masked_fill.Scalar": torch.masked_fill,
    "masked_fill.Tensor": torch.masked_fill,
    "masked_fill_.Scalar": lambda self, mask, value: self.masked_fill_(mask, value),
    "any.dim": lambda self, dim, keepdim=False: torch.any(self, dim, keepdim),
    "any.default": lambda self: torch.any(self),
    "all.default": lambda self: torch.all(self),
    "all.dim": lambda self, dim, keepdim=False: torch.all(self, dim, keepdim),
    "any.dims": lambda self, dim=None, keepdim=False: torch.any(self, tuple(dim), keepdim),
    "all.dims": lambda self, dim=None, keepdim=False: torch.all(self, tuple(dim), keepdim),
    # matrices
    "linear.default": lambda input, weight, bias=None: F.linear(input, weight, bias),
    "addmm.default": _addmm(torch.addmm),
    "baddbmm.default": _addmm(torch.baddbmm),
    "mm.default": torch.mm,
    "bmm.default": torch.bmm,
    "matmul.default": torch.matmul,
    "einsum.default": _einsum,
    # reductions
    "sum.default": _sum,
    "sum.dim_IntList": _sum_dim,
    "mean.default": _mean,
    "mean.dim": _mean_dim,
    "amax.default": _amax,
    "amin.default": _amin,
    "max.default": lambda self: torch.max(self),
    "min.default": lambda self: torch.min(self),
    "max.dim": _max_dim,
    "min.dim": _min_dim,
    "argmax.default": lambda self, dim=None, keepdim=False: torch.argmax(self, dim, keepdim),
    "argmin.default": lambda self, dim=None, keepdim=False: torch.argmin(self, dim, keepdim),
    "var.correction": _var,
    "var.dim": lambda self, dim, unbiased=True, keepdim=False: torch.var(
        self, dim, unbiased, keepdim
    ),
    "std.dim": lambda self, dim, unbiased=True, keepdim=False: torch.std(
        self, dim, unbiased, keepdim
    ),
    "var.default": lambda self, unbiased=True: torch.var(self, unbiased=unbiased),
    "std.default": lambda self, unbiased=True: torch.std(self, unbiased=unbiased),
    "std.correction": _std,
    "prod.default": lambda self, *, dtype=None: torch.prod(self, dtype=dtype),
    "cumsum.default": lambda self, dim, *, dtype=None: torch.cumsum(self, dim, dtype=dtype),
    "linalg_vector_norm.default": _vector_norm,
    "softmax.int": _softmax(F.softmax),
    "log_softmax.int": _softmax(F.log_softmax),
    "_softmax.default": _softmax_half(F.softmax),
    "_log_softmax.default": _softmax_half(F.log_softmax),
    # shapes and views
    "view.default": _view,
    "_unsafe_view.default": lambda self, size: self.reshape(list(size)),
    "reshape.default": lambda self, shape: self.reshape(list(shape)),
    "reshape_as.default": lambda self, other: self.reshape_as(other),
    "permute.default": lambda self, dims: self.permute(list(dims)),
    "movedim.int": torch.movedim,
    "movedim.intlist": torch.movedim,
    "transpose.int": torch.transpose,
    "t.default": torch.t,
    "unsqueeze.default": torch.unsqueeze,
    "squeeze.dim": lambda self, dim: torch.squeeze(self, dim),
    "squeeze.dims": lambda self, dim: torch.squeeze(self, tuple(dim)),
    "squeeze.default": lambda self: torch.squeeze(self),
    "flatten.using_ints": lambda self, start_dim=0, end_dim=-1: torch.flatten(
        self, start_dim, end_dim
    ),
    "unflatten.int": lambda self, dim, sizes: torch.unflatten(self, dim, list(sizes)),
    "expand.default": _expand,
    "expand_as.default": lambda self, other: self.expand_as(other),
    "select.int": torch.select,
    "slice.Tensor": _slice,
    "narrow.default": torch.narrow,
    "chunk.default": _list(torch.chunk),
    "broadcast_tensors.default": lambda tensors: list(torch.broadcast_tensors(*tensors)),
    "split.Tensor": _list(torch.split),
    "split_with_sizes.default": _list(
        lambda self, sizes, dim=0: torch.split(self, list(sizes), dim)
    ),
    "unbind.int": _list(torch.unbind),
    "cat.default": lambda tensors, dim=0: torch.cat(list(tensors), dim),
    "stack.default": lambda tensors, dim=0: torch.stack(list(tensors), dim),
    "flip.default": lambda self, dims: torch.flip(self, list(dims)),
    "roll.default": lambda self, shifts, dims=(): torch.roll(
        self, list(shifts), list(dims) or None
    ),
    "repeat.default": lambda self, repeats: self.repeat(list(repeats)),
    "index.Tensor": _index,
    "index_select.default": torch.index_select,
    "sort.default": lambda self, dim=-1, descending=False: tuple(torch.sort(self, dim, descending)),
    "sort.stable": _sort_stable,
    "_pin_memory.default": _pin_memory,
    "_sparse_addmm.default": _sparse_addmm,
    "diagonal.default": torch.diagonal,
    "triu.default": torch.triu,
    "tril.default": torch.tril,
    "contiguous.default": _contiguous,
    "clone.default": _clone,
    "alias.default": lambda self: self.view(self.shape),
    "detach.default": lambda self: self.detach(),
    "lift_fresh_copy.default": lambda self: self.clone(),
    "copy_.default": _copy_,
    "copy.default": lambda self, src, non_blocking=False: self.clone().copy_(src),
    "_to_copy.default": _to_copy,
    "to.dtype": _to_dtype,
    "to.dtype_layout": _to_dtype_layout,
    "to.device": _to_device,
    "type_as.default": lambda self, other: self.type_as(other),
    "pad.default": _pad,
    "constant_pad_nd.default": _constant_pad,
    "_assert_tensor_metadata.default": _assert_tensor_metadata,
    "sym_size.int": lambda self, dim: self.size(dim),
    "sym_numel.default": lambda self: self.numel(),
    "_assert_scalar.default": _assert_scalar,
    "sym_constrain_range_for_size.default": lambda size, min=None, max=None: None,
    "item.default": lambda self: self.item(),
    # creation
    "zeros.default": _factory(torch.zeros),
    "ones.default": _factory(torch.ones),
    "empty.memory_format": _factory(torch.zeros),
    "full.default": _factory(torch.full),
    "zeros_like.default": _factory(torch.zeros_like),
    "ones_like.default": _factory(torch.ones_like),
    "full_like.default": _factory(torch.full_like),
    "arange.default": _factory(torch.arange),
    "arange.start": _factory(torch.arange),
    "arange.start_step": _factory(torch.arange),
    "scalar_tensor.default": _factory(torch.scalar_tensor),
    "new_zeros.default": _factory(lambda self, size, **kw: self.new_zeros(list(size), **kw)),
    "new_ones.default": _factory(lambda self, size, **kw: self.new_ones(list(size), **kw)),
    # neural network layers
    "conv1d.default": _conv(F.conv1d),
    "conv2d.default": _conv(F.conv2d),
    "conv3d.default": _conv(F.conv3d),
    "conv1d.padding": _conv(F.conv1d),
    "conv2d.padding": _conv(F.conv2d),
    "conv3d.padding": _conv(F.conv3d),
    "conv_transpose1d.default": _conv_transpose(F.conv_transpose1d),
    "conv_transpose2d.input": _conv_transpose(F.conv_transpose2d),
    "conv_transpose3d.input": _conv_transpose(F.conv_transpose3d),
    "convolution.default": torch.convolution,
    "batch_norm.default": torch.batch_norm,
    "native_batch_norm.default": torch.native_batch_norm,
    "_native_batch_norm_legit_no_training.default": _bn_no_training,
    "_native_batch_norm_legit_functional.default": _bn_functional,
    "_native_batch_norm_legit.default": _bn_legit,
    "_native_batch_norm_legit.no_stats": _bn_legit_no_stats,
    "layer_norm.default": _layer_norm,
    "native_layer_norm.default": torch.native_layer_norm,
    "group_norm.default": _group_norm,
    "native_group_norm.default": torch.native_group_norm,
    "max_pool1d.default": _max_pool(1, False),
    "max_pool2d.default": _max_pool(2, False),
    "max_pool3d.default": _max_pool(3, False),
    "max_pool2d_with_indices.default": _max_pool(2, True),
    "max_pool3d_with_indices.default": _max_pool(3, True),
    "avg_pool1d.default": _avg_pool(1),
    "avg_pool2d.default": _avg_pool(2),
    "avg_pool3d.default": _avg_pool(3),
    "adaptive_avg_pool1d.default": _adaptive_avg(1),
    "adaptive_avg_pool2d.default": _adaptive_avg(2),
    "adaptive_avg_pool3d.default": _adaptive_avg(3),
    "_adaptive_avg_pool2d.default": _adaptive_avg(2),
    "_adaptive_avg_pool3d.default": _adaptive_avg(3),
    "adaptive_max_pool2d.default": _adaptive_max(2),
    "dropout.default": _dropout,
    "alpha_dropout.default": _alpha_dropout,
    "native_dropout.default": torch.native_dropout,
    "embedding.default": _embedding,
    "scaled_dot_product_attention.default": _sdpa,
    "lstm.input": torch.lstm,
    "gru.input": torch.gru,
    "rnn_tanh.input": torch.rnn_tanh,
    "rnn_relu.input": torch.rnn_relu,
    "gather.default": lambda self, dim, index, sparse_grad=False: torch.gather(self, dim, index),
}

TABLE.update(RESAMPLE_TABLE)  # (upsample_nearest2d.vec ...: F.interpolate's)
TABLE.update(SORTING_TABLE)  # (argsort, topk, prelu)
TABLE.update(DATA_DEPENDENT_TABLE)  # (nonzero, masked_select, bincount, ...)
TABLE.update(FACTORIES_TABLE)  # (empty_like, new_full, fill_, zero_, ...)
TABLE.update(LOSSES_TABLE)  # (mse_loss, nll_loss_nd, kl_div, ...)
TABLE.update({k: v for k, v in DIRECT_TABLE.items() if k not in TABLE})  # (addmm, selu ...)
TABLE.update({k: v for k, v in INDICES_TABLE.items() if k not in TABLE})  # (max_unpool2d ...)

# Python-level targets of a graph (``operator.getitem`` on a multi-output node, and the
# arithmetic of symbolic sizes), by their serialized names
PYTHON_TARGETS: dict[str, Callable] = {
    f"_operator.{name}": getattr(operator, name)
    for name in "getitem add sub mul floordiv truediv mod neg eq ne lt le gt ge".split()
}
