"""``torch.nn.functional``'s pooling: max, average, adaptive, unpooling and power-average
pooling over 1, 2 and 3 spatial dims, with PyTorch's arguments, checks and errors.

The 1-d poolings are PyTorch's: the 2-d pooling of input.unsqueeze(-2), squeezed back
(so their node is SqueezeBackward1, as in PyTorch)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ... import _backend, _memory_format, _meta
from ..._backend import on_device_of, xp
from ..._dtypes import not_implemented
from ..._tensor import Tensor, wrap
from ...ops import activations, indexing, pooling, reductions, shapes, unary
from ..args import require_tensor

IntOrTuple = int | Sequence[int]

_WORDS = {2: "two", 3: "three"}
_AXES = {2: ("H", "W"), 3: ("T", "H", "W")}


def _ints(value: Any) -> list:
    if value is None:
        return []
    return [int(value)] if isinstance(value, int) else [int(v) for v in value]


def _param(fn: str, name: str, value: Any, nd: int, omitted: bool = False) -> list:
    """An int or a list of 1 or ``nd`` ints as ``nd`` ints (PyTorch's pooling arguments)."""
    values = _ints(value)
    if len(values) not in ((0, 1, nd) if omitted else (1, nd)):
        if name == "kernel_size":
            what = f"{name} must either be a single int, or a tuple of {_WORDS[nd]} ints"
        elif name == "stride":
            what = f"{name} must either be omitted, a single int, or a tuple of {_WORDS[nd]} ints"
        elif name == "dilation":
            what = f"{name} must be either a single int, or a tuple of {_WORDS[nd]} ints"
        else:
            what = f"{name} must either be a single int, or a tuple of {_WORDS[nd]} ints"
        raise RuntimeError(f"{fn}: {what}")
    return values * nd if len(values) == 1 else values


def _out_size(n: int, k: int, s: int, p: int, d: int, ceil: bool) -> int:
    """PyTorch's pooling_output_shape, with its checks."""
    if s == 0:
        raise RuntimeError("stride should not be zero")
    if p < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
    if p > ((k - 1) * d + 1) // 2:
        raise RuntimeError(
            "pad should be at most half of effective kernel size, but got "
            f"pad={p}, kernel_size={k} and dilation={d}"
        )
    return pooling.pool_out_size(n, k, s, p, d, ceil)


def _shape_check(fn: str, input: Tensor, nd: int, kernel, stride, dilation, out) -> None:
    """PyTorch's pool2d_shape_check / pool3d_shape_check."""
    axes = _AXES[nd]
    if any(k <= 0 for k in kernel):
        got = " ".join(f"k{a}: {k}" for a, k in zip(axes, kernel))
        raise RuntimeError(f"kernel size should be greater than zero, but got {got}")
    if any(s <= 0 for s in stride):
        got = " ".join(f"d{a}: {s}" for a, s in zip(axes, stride))
        raise RuntimeError(f"stride should be greater than zero, but got {got}")
    if any(d <= 0 for d in dilation):
        got = " ".join(f"dilation{a}: {d}" for a, d in zip(axes, dilation))
        raise RuntimeError(f"dilation should be greater than zero, but got {got}")
    if any(n == 0 for n in input.shape[1:]) or (input.ndim == nd + 1 and input.shape[0] == 0):
        if nd == 3:  # (PyTorch prints the empty dim's length, 0, where its index was meant)
            name = (
                "avg_pool3d" if fn == "avg_pool3d" else "max_pool3d_with_indices_out_cpu_template"
            )
            raise RuntimeError(
                f"{name}(): Expected input's non-batch dimensions to have positive length, but "
                f"input has a shape of {list(input.shape)} and non-batch dimension 0 has length "
                "zero!"
            )
        raise RuntimeError(
            f"Expected {nd + 1}D or {nd + 2}D (batch mode) tensor with optional 0 dim batch "
            f"size for input, but got:{list(input.shape)}"
        )
    if fn == "avg_pool3d" and any(n < k for n, k in zip(input.shape[-3:], kernel)):
        # (PyTorch's avg_pool3d wants each dim at least the kernel, whatever the padding)
        t, h, w = input.shape[-3:]
        raise RuntimeError(
            f"input image (T: {t} H: {h} W: {w}) smaller than kernel size (kT: {kernel[0]} "
            f"kH: {kernel[1]} kW: {kernel[2]})"
        )
    if any(o < 1 for o in out):
        planes = input.shape[-nd - 1]
        given = "x".join(map(str, (planes,) + tuple(input.shape[-nd:])))
        calculated = "x".join(map(str, (planes,) + tuple(out)))
        raise RuntimeError(
            f"Given input size: ({given}). Calculated output size: ({calculated}). Output "
            "size is too small"
        )


def _pool_args(fn: str, input: Tensor, nd: int, kernel_size, stride, padding, dilation,
               ceil_mode: bool) -> tuple:  # fmt: skip
    kernel = _param(fn, "kernel_size", kernel_size, nd)
    stride = _param(fn, "stride", stride, nd, omitted=True) or list(kernel)
    padding = _param(fn, "padding", padding, nd)
    dilation = _param(fn, "dilation", dilation, nd)
    return kernel, stride, padding, dilation


def _with_indices(values: Tensor, index: Any, return_indices: bool) -> Any:
    if not return_indices:
        return values
    if _backend.device_type(index) == "cpu":
        index = _meta.follow((values._data,), xp.asanyarray(index, dtype=xp.int64))  # meta too
    else:
        index = index.astype(xp.int64, copy=False)
    return values, wrap(index)


# ----- max pooling -----------------------------------------------------------------------------


def _max_pool(fn: str, nd: int, input: Tensor, kernel_size, stride, padding, dilation,
              ceil_mode: bool, return_indices: bool) -> Any:  # fmt: skip
    require_tensor(fn, input)
    kernel, stride, padding, dilation = _pool_args(
        fn, input, nd, kernel_size, stride, padding, dilation, ceil_mode
    )
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for input"
        )
    spatial = input.shape[-nd:]
    out = [
        _out_size(n, k, s, p, d, ceil_mode)
        for n, k, s, p, d in zip(spatial, kernel, stride, padding, dilation)
    ]
    _shape_check(fn, input, nd, kernel, stride, dilation, out)
    if input.dtype.name == "bool":
        raise not_implemented(fn, input.dtype)
    with on_device_of(input._data):  # the indices where the input is
        index = pooling.max_pool_indices(input._data, kernel, stride, padding, dilation, ceil_mode)
    index = _memory_format.follow(index, input._data)  # (the values follow the indices)
    empty = pooling.empty_windows(spatial, kernel, stride, padding, dilation, out)
    if empty is None:
        values = pooling.max_pool(input, index=index, spatial=nd)
        return _with_indices(values, index, return_indices)
    # (windows wholly in the padding: -inf, no gradient, and PyTorch's index for them)
    mask, reported = empty
    values = pooling.max_pool(input, index=xp.where(mask, 0, index), spatial=nd)
    lowest = -math.inf if values.is_floating_point() else int(xp.iinfo(values._data.dtype).min)
    values = indexing.masked_fill(values, wrap(mask), value=lowest)
    return _with_indices(values, xp.where(mask, reported, index), return_indices)


def _check1d(fn: str, input: Tensor, names: dict) -> None:
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for "
            f"argument #1 'self' (while checking arguments for {fn})"
        )
    for name, value in names.items():
        values = _ints(value)
        if len(values) != 1 and not (name == "stride" and not values):
            raise RuntimeError(
                f"{fn}() argument '{name}' should contain one int (got {len(values)})"
            )


def _check_max_pool1d(input: Tensor, k: list, s: list, p: list, d: list, ceil_mode: bool) -> None:
    """PyTorch's check_max_pool1d."""
    for name, values, what in (
        ("kernel_size", k, "an int, list of ints or tuple of ints"),
        ("stride", s, "None, an int, list of ints, or tuple of ints"),
        ("padding", p, "an int, list of ints, or tuple of ints"),
        ("dilation", d, "an int, list of ints or tuple of ints"),
    ):
        if len(values) != 1:
            raise RuntimeError(
                f"max_pool1d() {name} must be {what} of size 1 but got size {len(values)}"
            )
    if k[0] <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k[0]}")
    if s[0] <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s[0]}")
    if p[0] < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p[0]}")
    if p[0] > k[0] // 2:
        raise RuntimeError(
            "max_pool1d() padding should be at most half of kernel size, but got "
            f"padding={p[0]} and kernel_size={k[0]}"
        )
    if d[0] <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d[0]}")
    out = pooling.pool_out_size(input.shape[-1], k[0], s[0], p[0], d[0], ceil_mode)
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")


def max_pool1d(
    input: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    dilation: IntOrTuple = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """Each window's max over the last dim (and its index with return_indices)."""
    require_tensor("max_pool1d", input)
    k, s, p, d = (_ints(v) for v in (kernel_size, stride, padding, dilation))
    if return_indices:  # (PyTorch's max_pool1d_with_indices: max_pool2d's checks after these)
        names = {"kernel_size": k, "stride": s, "padding": p, "dilation": d}
        _check1d("max_pool1d", input, names)
    else:
        if input.ndim not in (2, 3) or not all(input.shape[input.ndim - 2 :]):
            raise RuntimeError(
                "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch "
                f"size for input, but got:{list(input.shape)}"
            )
        _check_max_pool1d(input, k, s or k, p, d, ceil_mode)
    values = _max_pool(
        "max_pool2d", 2, shapes.unsqueeze(input, dim=input.ndim - 1), [1] + k,
        [1] + s if s else [], [0] + p, [1] + d, ceil_mode, True,
    )  # fmt: skip
    dim = input.ndim - 1
    out = shapes.squeeze(values[0], dims=(dim,), variant=1)
    index = values[1]._data.reshape(out.shape)
    return _with_indices(out, index, return_indices)


def max_pool2d(
    input: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    dilation: IntOrTuple = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """Each window's max over the last 2 dims (and its flat index with return_indices)."""
    return _max_pool(
        "max_pool2d", 2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices
    )


def max_pool3d(
    input: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    dilation: IntOrTuple = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """Each window's max over the last 3 dims (and its flat index with return_indices)."""
    return _max_pool(
        "max_pool3d", 3, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices
    )


def max_pool1d_with_indices(
    input: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    dilation: IntOrTuple = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> tuple:
    """(max_pool1d, its indices)."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(
    input: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    dilation: IntOrTuple = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> tuple:
    """(max_pool2d, its indices)."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(
    input: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    dilation: IntOrTuple = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> tuple:
    """(max_pool3d, its indices)."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def torch_max_pool1d(
    input: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple = (),
    padding: IntOrTuple = 0,
    dilation: IntOrTuple = 1,
    ceil_mode: bool = False,
) -> Tensor:
    """torch.max_pool1d: each window's max over the last dim."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def torch_max_pool2d(
    input: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple = (),
    padding: IntOrTuple = 0,
    dilation: IntOrTuple = 1,
    ceil_mode: bool = False,
) -> Tensor:
    """torch.max_pool2d: each window's max over the last 2 dims."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def torch_max_pool3d(
    input: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple = (),
    padding: IntOrTuple = 0,
    dilation: IntOrTuple = 1,
    ceil_mode: bool = False,
) -> Tensor:
    """torch.max_pool3d: each window's max over the last 3 dims."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


def torch_max_pool1d_with_indices(
    input: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple = (),
    padding: IntOrTuple = 0,
    dilation: IntOrTuple = 1,
    ceil_mode: bool = False,
) -> tuple:
    """torch.max_pool1d_with_indices: (each window's max, its index)."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


# ----- average pooling ----------------------------------------------------------------------------


def _avg_pool(fn: str, nd: int, input: Tensor, kernel_size, stride, padding, ceil_mode: bool,
              count_include_pad: bool, divisor_override: int | None) -> Tensor:  # fmt: skip
    require_tensor(fn, input)
    kernel = _param(fn, "kernel_size", kernel_size, nd)
    stride = _param(fn, "stride", stride, nd, omitted=True) or list(kernel)
    padding = _param(fn, "padding", padding, nd)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if input.ndim < nd + 1:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-input.ndim}, "
            f"{input.ndim - 1}], but got {-nd - 1})"
        )
    spatial = input.shape[-nd:]
    out = [
        _out_size(n, k, s, p, 1, ceil_mode) for n, k, s, p in zip(spatial, kernel, stride, padding)
    ]
    _shape_check(fn, input, nd, kernel, stride, [1] * nd, out)
    if input.dtype.name == "int64":  # PyTorch's integer kernel: sums divided, truncated
        return wrap(
            pooling.integer_avg_pool(
                input._data, kernel, stride, padding, ceil_mode, count_include_pad,
                divisor_override,
            )
        )  # fmt: skip
    if not input.is_floating_point():
        raise not_implemented(fn, input.dtype)
    taps = pooling.avg_pool_taps(
        input.shape, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override
    )
    out = pooling.avg_pool(input, taps=taps)
    if nd == 3:  # PyTorch's 3-d average pooling writes row-major, its 2-d one keeps the format
        return _memory_format.row_major_result(out)
    return _memory_format.follow_result(out, input._data)


def avg_pool1d(
    input: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """Each window's mean over the last dim."""
    require_tensor("avg_pool1d", input)
    _check1d(
        "avg_pool1d", input, {"kernel_size": kernel_size, "stride": stride, "padding": padding}
    )
    k, s, p = _ints(kernel_size), _ints(stride), _ints(padding)
    dim = input.ndim - 1
    y = _avg_pool(
        "avg_pool2d", 2, shapes.unsqueeze(input, dim=dim), [1] + k, [1] + (s or k), [0] + p,
        ceil_mode, count_include_pad, None,
    )  # fmt: skip
    return shapes.squeeze(y, dims=(dim,), variant=1)


def avg_pool2d(
    input: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """Each window's mean over the last 2 dims."""
    return _avg_pool(
        "avg_pool2d", 2, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
        divisor_override,
    )  # fmt: skip


def avg_pool3d(
    input: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """Each window's mean over the last 3 dims."""
    return _avg_pool(
        "avg_pool3d", 3, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
        divisor_override,
    )  # fmt: skip


def torch_avg_pool1d(
    input: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple = (),
    padding: IntOrTuple = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """torch.avg_pool1d: each window's mean over the last dim."""
    return avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad)


# ----- adaptive pooling --------------------------------------------------------------------------


def _adaptive_size(fn: str, input: Tensor, nd: int, output_size: Any) -> list:
    if isinstance(output_size, int) or output_size is None:
        sizes = [output_size] * nd
    else:
        sizes = list(output_size)
    if len(sizes) != nd:
        raise RuntimeError(f"{fn}: output_size must be {nd}")
    return [input.shape[i - nd] if s is None else int(s) for i, s in enumerate(sizes)]


def _adaptive_check(fn: str, input: Tensor, nd: int, colon: str) -> None:
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"{fn}(): Expected {nd + 1}D or {nd + 2}D tensor, but got{colon} {list(input.shape)}"
        )
    for i in range(input.ndim - nd - 1, input.ndim):  # the non-batch dims
        if input.shape[i] == 0:
            raise RuntimeError(
                f"{fn}(): Expected input to have non-zero size for non-batch dimensions, "
                f"but input has sizes {list(input.shape)} with dimension {i} being empty"
            )


def _adaptive_avg(fn: str, nd: int, input: Tensor, output_size: Any) -> Tensor:
    require_tensor(fn, input)
    sizes = _adaptive_size(fn, input, nd, output_size)
    if any(s < 0 for s in sizes):
        got = "{" + ", ".join(map(str, sizes)) + "}"
        if nd == 3:  # (PyTorch's 3-d message drops the last space)
            got = "{" + ", ".join(map(str, sizes[:2])) + "," + str(sizes[2]) + "}"
        raise RuntimeError(
            f"{fn}: elements of output_size must be greater than or equal to 0 but received {got}"
        )
    if all(s == 1 for s in sizes):  # PyTorch takes the mean (MeanBackward1), unchecked
        out = reductions.mean(input, dim=tuple(range(-nd, 0)), keepdim=True)
    else:
        _adaptive_check(fn, input, nd, "")
        if not input.is_floating_point():
            raise not_implemented(fn + ("_cpu" if nd == 3 else ""), input.dtype)
        taps = pooling.adaptive_avg_taps(input.shape, sizes)
        out = pooling.adaptive_avg_pool(input, taps=taps)
    if nd == 2:  # (PyTorch's 2-d kernel keeps a channels-last format, its 3-d one does not)
        return _memory_format.follow_result(out, input._data)
    return _memory_format.row_major_result(out)


def _adaptive_max(fn: str, nd: int, input: Tensor, output_size: Any, return_indices: bool) -> Any:
    require_tensor(fn, input)
    sizes = _adaptive_size(f"{fn}()", input, nd, output_size)
    _adaptive_check(fn, input, nd, ":")
    if any(s < 0 for s in sizes):
        raise RuntimeError(
            f"{fn}(): Trying to create tensor with negative dimension {min(sizes)}: "
            f"{list(input.shape[:-nd]) + sizes}"
        )
    if not input.is_floating_point():
        raise not_implemented(fn, input.dtype)
    with on_device_of(input._data):  # the indices where the input is
        index = pooling.adaptive_max_indices(input._data, sizes)
    if nd == 2:  # (as _adaptive_avg)
        index = _memory_format.follow(index, input._data)
    values = pooling.adaptive_max_pool(input, index=index, spatial=nd)
    return _with_indices(values, index, return_indices)


def _list_with_default(input: Tensor, output_size: Any) -> None:
    """PyTorch's Python-side check of a tuple output_size: one more input dim than sizes."""
    if not isinstance(output_size, int) and output_size is not None:
        if input.ndim <= len(output_size):
            raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")


def adaptive_avg_pool1d(input: Tensor, output_size: IntOrTuple) -> Tensor:
    """The mean of each of output_size near-equal windows of the last dim."""
    require_tensor("adaptive_avg_pool1d", input)
    _check1d("adaptive_avg_pool1d", input, {"output_size": output_size})
    dim = input.ndim - 1
    y = _adaptive_avg(
        "adaptive_avg_pool2d", 2, shapes.unsqueeze(input, dim=dim), [1] + _ints(output_size)
    )
    return shapes.squeeze(y, dims=(dim,), variant=1)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """The mean of each of the output_size windows of the last 2 dims."""
    require_tensor("adaptive_avg_pool2d", input)
    _list_with_default(input, output_size)
    return _adaptive_avg("adaptive_avg_pool2d", 2, input, output_size)


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """The mean of each of the output_size windows of the last 3 dims."""
    require_tensor("adaptive_avg_pool3d", input)
    _list_with_default(input, output_size)
    return _adaptive_avg("adaptive_avg_pool3d", 3, input, output_size)


def adaptive_max_pool1d(
    input: Tensor, output_size: IntOrTuple, return_indices: bool = False
) -> Any:
    """The max of each of output_size near-equal windows of the last dim (and its index)."""
    require_tensor("adaptive_max_pool1d", input)
    _check1d("adaptive_max_pool1d", input, {"output_size": output_size})
    dim = input.ndim - 1
    values, index = _adaptive_max(
        "adaptive_max_pool2d", 2, shapes.unsqueeze(input, dim=dim), [1] + _ints(output_size), True
    )
    out = shapes.squeeze(values, dims=(dim,), variant=1)
    return _with_indices(out, index._data.reshape(out.shape), return_indices)


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """The max of each of the output_size windows of the last 2 dims (and its index)."""
    require_tensor("adaptive_max_pool2d", input)
    _list_with_default(input, output_size)
    return _adaptive_max("adaptive_max_pool2d", 2, input, output_size, return_indices)


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """The max of each of the output_size windows of the last 3 dims (and its index)."""
    require_tensor("adaptive_max_pool3d", input)
    _list_with_default(input, output_size)
    return _adaptive_max("adaptive_max_pool3d", 3, input, output_size, return_indices)


def adaptive_max_pool1d_with_indices(
    input: Tensor, output_size: IntOrTuple, return_indices: bool = False
) -> tuple:
    """(adaptive_max_pool1d, its indices)."""
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> tuple:
    """(adaptive_max_pool2d, its indices)."""
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> tuple:
    """(adaptive_max_pool3d, its indices)."""
    return adaptive_max_pool3d(input, output_size, True)


def torch_adaptive_max_pool1d(input: Tensor, output_size: IntOrTuple) -> tuple:
    """torch.adaptive_max_pool1d: (each adaptive window's max, its index)."""
    return adaptive_max_pool1d(input, output_size, True)


# ----- max unpooling ---------------------------------------------------------------------------


def _unpool_size(input: Tensor, kernel, stride, padding, output_size, nd: int) -> list:
    """PyTorch's _unpool_output_size: the default size, or output_size checked against it."""
    default = [
        (input.shape[i - nd] - 1) * s + k - 2 * p
        for i, (k, s, p) in enumerate(zip(kernel, stride, padding))
    ]
    if output_size is None:
        sizes = default
    else:
        sizes = list(output_size)
        if len(sizes) == nd + 2:
            sizes = sizes[2:]
        if len(sizes) != nd:
            raise ValueError(
                f"output_size should be a sequence containing {nd} or {nd + 2} elements, but "
                f"it has a length of '{len(sizes)}'"
            )
        for d in range(nd):
            lo, hi = default[d] - stride[d], default[d] + stride[d]
            if not lo < sizes[d] < hi:
                raise ValueError(
                    f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})'
                )
    for d, size in enumerate(sizes):
        if size < 0:
            raise ValueError(
                "max_unpooling: output_size must contain non-negative spatial dimensions, but "
                f"got output_size[{d}]={size}"
            )
    return [int(s) for s in sizes]


def _max_unpool(nd: int, input: Tensor, indices: Tensor, sizes: list) -> Tensor:
    fn = f"max_unpooling{nd}d"
    if indices.dtype.name != "int64":
        raise RuntimeError(
            f"elements in indices should be type int64 but got: {indices.dtype.scalar_name}"
        )
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Input to {fn} should be a {nd + 1}d or {nd + 2}d Tensor, but got a tensor with "
            f"{input.ndim} dimensions."
        )
    if tuple(input.shape) != tuple(indices.shape):
        raise RuntimeError(
            "Expected shape of indices to be same as that of the input tensor "
            f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}"
        )
    for i in range(1, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError(
                f"{fn}_forward_out_cpu(): Expected input to have non-zero size for non-batch "
                f"dimensions, but got {list(input.shape)} with dimension {i} being empty."
            )
    index = indices._data
    plane = 1
    for s in sizes:
        plane *= s
    bad = index[(index < 0) | (index >= plane)]
    if bad.size:
        raise RuntimeError(
            f"Found an invalid max index: {int(bad.reshape(-1)[0])} (output volumes are of size "
            f"{'x'.join(map(str, sizes))})"
        )
    shape = tuple(input.shape[: input.ndim - nd]) + tuple(sizes)
    return pooling.max_unpool(input, index=index, spatial=nd, shape=shape)


def _unpool_args(fn, nd, kernel_size, stride, padding) -> tuple:
    kernel = _param(fn, "kernel_size", kernel_size, nd) if nd > 1 else _ints(kernel_size)
    stride = (_param(fn, "stride", stride, nd) if nd > 1 else _ints(stride)) if stride else kernel
    padding = _param(fn, "padding", padding, nd) if nd > 1 else _ints(padding)
    return kernel, stride, padding


def max_unpool1d(
    input: Tensor,
    indices: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    output_size: Sequence[int] | None = None,
) -> Tensor:
    """max_pool1d's values put back at their indices, zeros elsewhere."""
    kernel, stride, padding = _unpool_args("max_unpool1d", 1, kernel_size, stride, padding)
    sizes = _unpool_size(input, kernel, stride, padding, output_size, 1)
    y = _max_unpool(
        2, shapes.unsqueeze(input, dim=input.ndim), shapes.unsqueeze(indices, dim=indices.ndim),
        sizes + [1],
    )  # fmt: skip
    return shapes.squeeze(y, dims=(y.ndim - 1,), variant=1)


def max_unpool2d(
    input: Tensor,
    indices: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    output_size: Sequence[int] | None = None,
) -> Tensor:
    """max_pool2d's values put back at their indices, zeros elsewhere."""
    kernel, stride, padding = _unpool_args("max_unpool2d", 2, kernel_size, stride, padding)
    return _max_unpool(
        2, input, indices, _unpool_size(input, kernel, stride, padding, output_size, 2)
    )


def max_unpool3d(
    input: Tensor,
    indices: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    output_size: Sequence[int] | None = None,
) -> Tensor:
    """max_pool3d's values put back at their indices, zeros elsewhere."""
    kernel, stride, padding = _unpool_args("max_unpool3d", 3, kernel_size, stride, padding)
    return _max_unpool(
        3, input, indices, _unpool_size(input, kernel, stride, padding, output_size, 3)
    )


# ----- power-average pooling ---------------------------------------------------------------------


def _lp_pool(nd: int, input: Tensor, norm_type: float, kernel_size, stride, ceil_mode) -> Tensor:
    """PyTorch's lp_pool: (Σ_window x^p)^(1/p), as avg_pool(x^p)·|window|, then ^(1/p)."""
    kernel = _ints(kernel_size) * (nd if isinstance(kernel_size, int) else 1)
    pool_max = (max_pool1d, max_pool2d, max_pool3d)[nd - 1]
    pool_avg = (avg_pool1d, avg_pool2d, avg_pool3d)[nd - 1]
    if norm_type == float("inf"):
        return pool_max(unary.abs(input), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -pool_max(-unary.abs(input), kernel_size, stride, 0, 1, ceil_mode)
    out = pool_avg(input**norm_type, kernel_size, stride, 0, ceil_mode)
    size = 1
    for k in kernel:
        size *= k
    return (unary.sign(out) * activations.relu(unary.abs(out)) * size) ** (1.0 / norm_type)


def lp_pool1d(
    input: Tensor,
    norm_type: float,
    kernel_size: int,
    stride: IntOrTuple | None = None,
    ceil_mode: bool = False,
) -> Tensor:
    """The p-norm of each window of the last dim: (Σ x^p)^(1/p)."""
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(
    input: Tensor,
    norm_type: float,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    ceil_mode: bool = False,
) -> Tensor:
    """The p-norm of each window of the last 2 dims: (Σ x^p)^(1/p)."""
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(
    input: Tensor,
    norm_type: float,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    ceil_mode: bool = False,
) -> Tensor:
    """The p-norm of each window of the last 3 dims: (Σ x^p)^(1/p)."""
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)


# ----- fractional max pooling ------------------------------------------------------------------

_DIM_NAMES = {2: ("height", "width"), 3: ("time", "height", "width")}


def _fractional(
    nd: int,
    input: Tensor,
    kernel_size: Any,
    output_size: Any,
    output_ratio: Any,
    return_indices: bool,
    samples: Tensor | None,
) -> Any:
    """PyTorch's fractional max pooling: windows of ``kernel_size`` placed pseudo-randomly
    (Graham's fractional max-pooling) so that the spatial dims shrink to ``output_size``
    (or by ``output_ratio``), one draw per plane in ``samples`` (drawn here when not
    given: PyTorch's draws)."""
    from ... import rand

    fn = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{fn} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        ratio = [output_ratio] * nd if isinstance(output_ratio, (int, float)) else output_ratio
        if nd == 2 and len(ratio) > 2:
            raise ValueError(
                f"{fn} requires output_ratio to either be a single Int or tuple of Ints."
            )
        ratio = list(ratio) * nd if len(ratio) == 1 else list(ratio)
        output_size = [int(input.size(i - nd) * r) for i, r in enumerate(ratio)]
    if samples is None:
        batch = 1 if input.dim() == nd + 1 else input.size(0)
        samples = rand(batch, input.size(-nd - 1), nd, dtype=input.dtype, device=input.device)
    kernel = _param(fn, "kernel_size", kernel_size, nd)
    sizes = _param(fn, "output_size", output_size, nd)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"{fn}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(input.shape)}"
        )
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if input.ndim == nd + 2 and samples.size(0) < input.size(0):
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    where = f"{fn}()" if nd == 2 else f"{fn}_out()"
    checks = list(zip(_DIM_NAMES[nd], kernel, sizes, input.shape[-nd:]))
    if nd == 3:  # (PyTorch's 3-d kernel checks time, width, then height)
        checks = [checks[0], checks[2], checks[1]]
    for name, k, out, n in checks:
        # (its 3-d kernel also refuses windows that would just fit: out + k - 1 = n)
        if out + k - 1 > n or nd == 3 and out + k - 1 == n:
            raise RuntimeError(f"{where}: pool {name} {k} too large relative to input {name} {n}")
    if not input.is_floating_point():
        raise not_implemented(fn, input.dtype)
    with on_device_of(input._data):
        index = pooling.fractional_max_indices(input._data, kernel, sizes, samples._data)
    values = pooling.fractional_max_pool(input, index=index, spatial=nd)
    return _with_indices(values, index, return_indices)


def fractional_max_pool2d(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> Any:
    """The max of each of output_size windows of kernel_size over the last 2 dims, placed
    pseudo-randomly per plane (and its index)."""
    require_tensor("fractional_max_pool2d", input)
    return _fractional(
        2, input, kernel_size, output_size, output_ratio, return_indices, _random_samples
    )


def fractional_max_pool3d(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> Any:
    """The max of each of output_size windows of kernel_size over the last 3 dims, placed
    pseudo-randomly per plane (and its index)."""
    require_tensor("fractional_max_pool3d", input)
    return _fractional(
        3, input, kernel_size, output_size, output_ratio, return_indices, _random_samples
    )


def fractional_max_pool2d_with_indices(input: Tensor, *args: Any, **kwargs: Any) -> Any:
    """``fractional_max_pool2d`` returning (values, indices)."""
    kwargs["return_indices"] = True
    return fractional_max_pool2d(input, *args, **kwargs)


def fractional_max_pool3d_with_indices(input: Tensor, *args: Any, **kwargs: Any) -> Any:
    """``fractional_max_pool3d`` returning (values, indices)."""
    kwargs["return_indices"] = True
    return fractional_max_pool3d(input, *args, **kwargs)
