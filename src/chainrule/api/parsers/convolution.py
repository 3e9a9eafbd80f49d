"""``torch.nn.functional``'s convolutions (conv1d/2d/3d, conv_transpose1d/2d/3d) and
unfold/fold: their arguments as PyTorch reads them (an int or a list per dim, padding
'same' and 'valid', unbatched inputs) and PyTorch's checks and errors, in its order."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

from ... import _memory_format
from ..._dtypes import not_implemented, type_meta_name
from ..._tensor import Tensor
from ...autograd import recording
from ...ops import convolution as conv_ops
from ...ops import padding as pad_ops
from ...ops import shapes
from ..args import require_tensor

IntOrTuple = int | Sequence[int]


def expand_param(value: IntOrTuple, name: str, dim: int) -> tuple:
    """An int or a list of one becomes ``dim`` values; a list of ``dim`` stays (PyTorch's
    expand_param_if_needed)."""
    values = [value] if isinstance(value, int) else list(value)
    if len(values) == 1:
        return tuple(values) * dim
    if len(values) != dim:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {dim} values to match "
            f"the convolution dimensions, but got {name}={values}"
        )
    return tuple(int(v) for v in values)


def _spread(value: IntOrTuple, n: int) -> IntOrTuple:
    """An int argument of conv{n}d as its n values (PyTorch's IntArrayRef[n] parsing)."""
    return [value] * n if isinstance(value, int) else value


def batchify(input: Tensor, spatial: int, fn: str) -> tuple[Tensor, bool]:
    """input with a batch dim (unbatched inputs get one), and whether it had one."""
    if input.ndim not in (spatial + 1, spatial + 2):
        raise RuntimeError(
            f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to {fn}, "
            f"but got input of size: {list(input.shape)}"
        )
    if input.ndim == spatial + 2:
        return input, True
    return shapes.unsqueeze(input, dim=0), False


def _unbatch(y: Tensor, batched: bool) -> Tensor:
    return y if batched else shapes.squeeze(y, dims=(0,), variant=1)


def _check_shapes(input: Tensor, weight: Tensor, bias: Tensor | None, params: dict) -> None:
    """PyTorch's check_shape_forward: the parameters, then the shapes of input, weight and
    bias against each other."""
    ws = list(weight.shape)
    groups = params["groups"]
    if any(p < 0 for p in params["padding"]):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in params["output_padding"]):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in params["stride"]):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in params["dilation"]):
        raise RuntimeError("dilation should be greater than zero")
    if len(ws) != input.ndim:
        raise RuntimeError(
            f"Expected {len(ws)}-dimensional input for {len(ws)}-dimensional weight {ws}, but "
            f"got {input.ndim}-dimensional input of size {list(input.shape)} instead"
        )
    if ws[0] < groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, "
            f"but got weight of size {ws} instead"
        )
    if ws[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension "
            f"0, but got weight of size [{ws}] instead"
        )
    if params["transposed"]:
        _check_transposed(input, ws, bias, params)
        return
    if input.shape[1] != ws[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {ws}, expected input{list(input.shape)} to "
            f"have {ws[1] * groups} channels, but got {input.shape[1]} channels instead"
        )
    _check_bias(bias, ws, ws[0], "")
    padded = [n + 2 * p for n, p in zip(input.shape[2:], params["padding"])]
    kernel = [d * (k - 1) + 1 for d, k in zip(params["dilation"], ws[2:])]
    if any(n < k for n, k in zip(padded, kernel)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
            f"Kernel size: ({' x '.join(map(str, kernel))}). Kernel size can't be greater "
            "than actual input size"
        )


def _check_bias(bias: Tensor | None, ws: list, channels: int, transposed: str) -> None:
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != channels):
        raise RuntimeError(
            f"Given {transposed}weight of size {ws}, expected bias to be 1-dimensional with "
            f"{channels} elements, but got bias of size {list(bias.shape)} instead"
        )


_AXES = {1: ("width",), 2: ("height", "width"), 3: ("depth", "height", "width")}


def _check_transposed(input: Tensor, ws: list, bias: Tensor | None, params: dict) -> None:
    groups = params["groups"]
    if input.shape[1] != ws[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {ws}, expected input{list(input.shape)} to "
            f"have {ws[0]} channels, but got {input.shape[1]} channels instead"
        )
    _check_bias(bias, ws, ws[1] * groups, "transposed=1, ")
    stride, dilation, output_padding = (
        params["stride"],
        params["dilation"],
        params["output_padding"],
    )
    batch = input.shape[0] > 0  # (an empty batch skips PyTorch's kernels and their checks)
    if batch and any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        axes = _AXES[max(len(stride), 2)]  # (PyTorch runs 1-d as 2-d, height 1)
        parts = [f"output_padding_{a}: {v}" for a, v in zip(axes, _as_2d(output_padding, 0))]
        parts += [f"stride_{a}: {v}" for a, v in zip(axes, _as_2d(stride, 1))]
        parts += [f"dilation_{a}: {v}" for a, v in zip(axes, _as_2d(dilation, 1))]
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got "
            + " ".join(parts)
        )
    out = [
        (n - 1) * s - 2 * p + d * (k - 1) + op + 1
        for n, s, p, d, k, op in zip(
            input.shape[2:], stride, params["padding"], dilation, ws[2:], output_padding
        )
    ]
    # (PyTorch's oneDNN kernel, and an empty batch, give an empty output; the others fail)
    if min(out) < 0 or (min(out) == 0 and batch and not _onednn(input, ws, params)):
        sizes = _as_2d(list(input.shape[2:]), 1)
        raise RuntimeError(
            f"Given input size per channel: ({' x '.join(map(str, sizes))}). "
            f"Calculated output size per channel: ({' x '.join(map(str, _as_2d(out, 1)))}). "
            "Output size is too small"
        )


def _onednn(input: Tensor, ws: list, params: dict) -> bool:
    """Whether PyTorch runs this convolution with oneDNN: float16 and bfloat16 (where the
    CPU has them) unless output_padding reaches the stride, float32 (and complex64 as its
    float32 parts) by oneDNN's size rules too."""
    keys = ("stride", "dilation", "transposed", "output_padding", "groups")
    if input.dtype.name in ("float16", "bfloat16"):
        return not any(op >= s for op, s in zip(params["output_padding"], params["stride"]))
    if input.dtype.name in ("float32", "complex64"):
        return conv_ops.onednn_sizes(input.shape, ws, *(params[k] for k in keys))
    return False


def _check_empty_input(input: Tensor) -> None:
    """An empty input may be empty in its batch or channels only (PyTorch's check)."""
    if input.shape[0] and input.shape[1] and 0 in input.shape:
        raise RuntimeError(
            "Only zero batch or zero channel inputs are supported, but got input shape: "
            f"{list(input.shape)}"
        )


def _check_kernel_dtype(input: Tensor, params: dict) -> None:
    """PyTorch's CPU kernels for integer types: int64 everywhere, the others only in the
    plain (undilated, not transposed) convolution, and bool in none (their errors)."""
    dtype = input.dtype
    if dtype.is_floating_point or dtype.is_complex or dtype.name == "int64":
        return
    dim = len(params["stride"])
    if params["transposed"]:
        kernel = f"slow_conv_transpose{3 if dim == 3 else 2}d_out_cpu"
    elif any(d != 1 for d in params["dilation"]):
        kernel = "slow_conv_dilated<>"
    elif dtype.name == "bool":
        kernel = "compute_columns3d" if dim == 3 else "slow_conv2d_cpu"
    else:
        return
    raise not_implemented(kernel, dtype)


def _as_2d(values, height: int) -> list:
    """A 1-d convolution's per-dim values as PyTorch's 2-d kernels report them"""
    values = list(values)
    return [height] + values if len(values) == 1 else values


def _check_zero_dilation(input: Tensor, params: dict) -> None:
    """A dilation of 0 passes PyTorch's common checks and fails in its kernel: the message
    is the float32 (oneDNN) kernel's or the other dtypes' (slow_conv) kernel's."""
    dilation = params["dilation"]
    if all(dilation):
        return
    if params["transposed"]:
        axes = _AXES[max(len(dilation), 2)]
        got = ", ".join(f"dilation_{a}: {d}" for a, d in zip(axes, _as_2d(dilation, 1)))
        raise RuntimeError(f"dilation should be greater than zero, but got {got}")
    if input.dtype.name == "float32":
        raise RuntimeError("non-positive dilation is not supported")
    raise RuntimeError(f"dilation should be greater than zero, but got {_as_2d(dilation, 1)}")


def _check_empty_kernel(weight: Tensor, transposed: bool) -> None:
    """A kernel with a dimension of 0, or a transposed one with no output channels, passes
    PyTorch's common checks and fails in its kernels (the message is their float64 one)."""
    kernel = list(weight.shape[2:])
    no_planes = transposed and weight.shape[1] == 0  # (no output channels)
    if no_planes and len(kernel) < 3:
        got = list(weight.shape[:2]) + _as_2d(kernel, 1)
        raise RuntimeError(f"non-empty 2D or 4D weight tensor expected, but got: {got}")
    if all(kernel) and not no_planes:
        return
    if len(kernel) == 3:
        if transposed:
            raise RuntimeError(
                "non-empty 5D (n_output_plane x n_input_plane x kernel_depth x kernel_height x "
                f"kernel_width) tensor expected for weight, but got: {list(weight.shape)}"
            )
        got = " x ".join(map(str, kernel))
        raise RuntimeError(f"kernel size should be greater than zero, but got: {got} (TxHxW)")
    height, width = ([1] + kernel)[-2:]
    raise RuntimeError(
        "kernel size should be greater than zero, but got kernel_height: "
        f"{height} kernel_width: {width}"
    )


def _check_dtypes(input: Tensor, weight: Tensor, bias: Tensor | None) -> None:
    if bias is not None and bias.dtype is not input.dtype:
        names = type_meta_name(input.dtype), type_meta_name(bias.dtype)
        raise RuntimeError(f"Input type ({names[0]}) and bias type ({names[1]}) should be the same")


def _check_weight_dtype(input: Tensor, weight: Tensor) -> None:
    if weight.dtype is not input.dtype:
        if input.dtype.name in ("float16", "bfloat16"):  # (PyTorch's oneDNN path's words)
            name = "CPUBFloat16Type" if input.dtype.name == "bfloat16" else "torch.HalfTensor"
            raise RuntimeError(
                f"Input type ({name}) and weight type ({weight.dtype.legacy_type}) should be "
                "the same or input should be a MKLDNN tensor and weight is a dense tensor"
            )
        raise RuntimeError(
            f"expected scalar type {input.dtype.scalar_name} but found {weight.dtype.scalar_name}"
        )


def convolution(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: IntOrTuple,
    padding: IntOrTuple,
    dilation: IntOrTuple,
    transposed: bool,
    output_padding: IntOrTuple,
    groups: int,
) -> Tensor:
    """aten::convolution: the (transposed) convolution of input by weight, plus bias
    (ConvolutionBackward0), with PyTorch's checks."""
    require_tensor("convolution", input)
    require_tensor("convolution", weight, 2, "weight")
    if recording.AUTOCAST[0] is not None:  # (autocast casts before the dtype checks)
        from ...amp import policy

        input, weight, bias = policy.cast_early("convolution", input, weight, bias)
    dim = weight.ndim - 2
    if dim <= 0:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    params = {
        "stride": expand_param(stride, "stride", dim),
        "padding": expand_param(padding, "padding", dim),
        "dilation": expand_param(dilation, "dilation", dim),
        "transposed": bool(transposed),
        "output_padding": expand_param(output_padding, "output_padding", dim),
        "groups": int(groups),
    }
    _check_shapes(input, weight, bias, params)
    _check_empty_input(input)
    _check_empty_kernel(weight, params["transposed"])
    if input.shape[0]:  # (the checks of PyTorch's kernels, which an empty batch skips)
        _check_zero_dilation(input, params)
        _check_weight_dtype(input, weight)
        _check_kernel_dtype(input, params)
    return conv_ops.convolution(input, weight, bias, **params)


def _same_padding(input: Tensor, weight: Tensor, dilation: IntOrTuple, stride: IntOrTuple):
    """padding='same': the symmetric part of the padding, and input padded on the right
    by one more where the total is odd (PyTorch's _convolution_mode)."""
    dim = weight.ndim - 2
    stride = expand_param(stride, "stride", dim)
    dilation = expand_param(dilation, "dilation", dim)
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    totals = [d * (k - 1) for d, k in zip(dilation, weight.shape[2:])]
    left = [t // 2 for t in totals]
    if all(t % 2 == 0 for t in totals):
        return input, tuple(left)
    warnings.warn(
        "Using padding='same' with even kernel lengths and odd dilation may require a "
        "zero-padded copy of the input be created",
        UserWarning,
        stacklevel=4,
    )
    pad: list[int] = [0] * (2 * dim)
    for i, (t, lo) in enumerate(zip(totals, left)):
        pad[2 * (dim - 1 - i) + 1] = t - 2 * lo  # one more on the right where t is odd
    padded = pad_ops.constant_pad_nd(input, pad=tuple(pad), value=0.0)
    # (PyTorch's padded copy keeps a channels-last input's layout, and so its output's)
    return _memory_format.follow_result(padded, input._data), tuple(left)


def _conv(
    fn: str,
    spatial: int,
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: IntOrTuple,
    padding: IntOrTuple | str,
    dilation: IntOrTuple,
    groups: int,
) -> Tensor:
    require_tensor(fn, input)
    require_tensor(fn, weight, 2, "weight")
    input, batched = batchify(input, spatial, fn)
    stride, dilation = _spread(stride, spatial), _spread(dilation, spatial)
    if isinstance(padding, str):
        if padding == "same":
            input, padding = _same_padding(input, weight, dilation, stride)
        elif padding == "valid":
            padding = 0
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    padding = _spread(padding, spatial)
    if recording.AUTOCAST[0] is None:  # (F.convNd checks bias first; autocast casts it)
        _check_dtypes(input, weight, bias)
    y = convolution(input, weight, bias, stride, padding, dilation, False, 0, groups)
    return _unbatch(y, batched)


def conv1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntOrTuple = 1,
    padding: IntOrTuple | str = 0,
    dilation: IntOrTuple = 1,
    groups: int = 1,
) -> Tensor:
    """The 1-d convolution (cross-correlation) of input (N, C, L) by weight (F, C/groups, k)."""
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntOrTuple = 1,
    padding: IntOrTuple | str = 0,
    dilation: IntOrTuple = 1,
    groups: int = 1,
) -> Tensor:
    """The 2-d convolution of input (N, C, H, W) by weight (F, C/groups, kh, kw)."""
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntOrTuple = 1,
    padding: IntOrTuple | str = 0,
    dilation: IntOrTuple = 1,
    groups: int = 1,
) -> Tensor:
    """The 3-d convolution of input (N, C, D, H, W) by weight (F, C/groups, kd, kh, kw)."""
    return _conv("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


def _conv_transpose(
    fn: str,
    spatial: int,
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: IntOrTuple,
    padding: IntOrTuple,
    output_padding: IntOrTuple,
    groups: int,
    dilation: IntOrTuple,
) -> Tensor:
    # ('same' and 'valid' are the forward convolutions' only; a ConvTranspose module built
    # with one holds its letters, as PyTorch's does)
    if isinstance(padding, str):
        raise TypeError(f"{fn}(): argument 'padding' must be tuple of ints, not str")
    sequence = padding if isinstance(padding, (tuple, list)) else ()
    texts = [i for i, p in enumerate(sequence) if isinstance(p, str)]
    if texts:
        raise TypeError(
            f"{fn}(): argument 'padding' (position 5) must be tuple of ints, but found element "
            f"of type str at pos {texts[0]}"
        )
    require_tensor(fn, input)
    require_tensor(fn, weight, 2, "weight")
    input, batched = batchify(input, spatial, fn)
    stride, padding, output_padding, dilation = (
        _spread(v, spatial) for v in (stride, padding, output_padding, dilation)
    )
    y = convolution(input, weight, bias, stride, padding, dilation, True, output_padding, groups)
    return _unbatch(y, batched)


def conv_transpose1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntOrTuple = 1,
    padding: IntOrTuple = 0,
    output_padding: IntOrTuple = 0,
    groups: int = 1,
    dilation: IntOrTuple = 1,
) -> Tensor:
    """The transpose of conv1d in its input: input (N, C, L), weight (C, F/groups, k)."""
    return _conv_transpose(
        "conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups,
        dilation,
    )  # fmt: skip


def conv_transpose2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntOrTuple = 1,
    padding: IntOrTuple = 0,
    output_padding: IntOrTuple = 0,
    groups: int = 1,
    dilation: IntOrTuple = 1,
) -> Tensor:
    """The transpose of conv2d in its input: input (N, C, H, W), weight (C, F/groups, kh, kw)."""
    return _conv_transpose(
        "conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups,
        dilation,
    )  # fmt: skip


def conv_transpose3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntOrTuple = 1,
    padding: IntOrTuple = 0,
    output_padding: IntOrTuple = 0,
    groups: int = 1,
    dilation: IntOrTuple = 1,
) -> Tensor:
    """The transpose of conv3d in its input: input (N, C, D, H, W), weight (C, F/groups, k...)."""
    return _conv_transpose(
        "conv_transpose3d", 3, input, weight, bias, stride, padding, output_padding, groups,
        dilation,
    )  # fmt: skip


# ----- unfold and fold (im2col, col2im) ------------------------------------------------------


def _pair(value: IntOrTuple) -> tuple:
    return (value, value) if isinstance(value, int) else tuple(value)


def _check_blocks(kernel_size, dilation, padding, stride) -> None:
    if any(k <= 0 for k in kernel_size):
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kernel_height: {kernel_size[0]} "
            f"kernel_width: {kernel_size[1]}"
        )
    if any(d <= 0 for d in dilation):
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilation_height: {dilation[0]} "
            f"dilation_width: {dilation[1]}"
        )
    if any(p < 0 for p in padding):
        raise RuntimeError(
            f"padding should be non-negative, but got pad_height: {padding[0]} pad_width: "
            f"{padding[1]}"
        )
    if any(s <= 0 for s in stride):
        raise RuntimeError(
            f"stride should be greater than zero, but got stride_height: {stride[0]} "
            f"stride_width: {stride[1]}"
        )


def _blocks(size, kernel_size, dilation, padding, stride) -> list[int]:
    return [
        (n + 2 * p - (d * (k - 1) + 1)) // s + 1
        for n, k, d, p, s in zip(size, kernel_size, dilation, padding, stride)
    ]


def unfold(
    input: Tensor,
    kernel_size: IntOrTuple,
    dilation: IntOrTuple = 1,
    padding: IntOrTuple = 0,
    stride: IntOrTuple = 1,
) -> Tensor:
    """im2col: each sliding block of input (N, C, H, W) as a column, (N, C·kh·kw, L)."""
    require_tensor("unfold", input)
    kernel_size, dilation, padding, stride = map(_pair, (kernel_size, dilation, padding, stride))
    _check_blocks(kernel_size, dilation, padding, stride)
    if input.ndim not in (3, 4) or any(n == 0 for n in input.shape[input.ndim - 3 :]):
        if input.ndim < 3:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-input.ndim}, "
                f"{input.ndim - 1}], but got {input.ndim})"
            )
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other "
            f"non-zero dimensions for input, but got: {list(input.shape)}"
        )
    size = input.shape[-2:]
    blocks = _blocks(size, kernel_size, dilation, padding, stride)
    if any(b < 1 for b in blocks):
        raise RuntimeError(
            f"Given input with spatial size {tuple(size)}, kernel_size={kernel_size}, "
            f"dilation={dilation}, padding={padding}, calculated shape of the array of "
            f"sliding blocks as {tuple(blocks)}, but its components must be at least one."
        )
    return conv_ops.im2col(
        input, kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride
    )


def fold(
    input: Tensor,
    output_size: IntOrTuple,
    kernel_size: IntOrTuple,
    dilation: IntOrTuple = 1,
    padding: IntOrTuple = 0,
    stride: IntOrTuple = 1,
) -> Tensor:
    """col2im: columns (N, C·kh·kw, L) summed back into (N, C, *output_size)."""
    require_tensor("fold", input)
    output_size, kernel_size, dilation, padding, stride = map(
        _pair, (output_size, kernel_size, dilation, padding, stride)
    )
    if any(n <= 0 for n in output_size):
        raise RuntimeError(
            f"Expected output spatial size to be positive, but got: output_size={output_size}"
        )
    _check_blocks(kernel_size, dilation, padding, stride)
    if input.ndim not in (2, 3) or any(n == 0 for n in input.shape[input.ndim - 2 :]):
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and non-zero "
            f"dimensions for input, but got: {list(input.shape)}"
        )
    channels = input.shape[-2]
    taps = math.prod(kernel_size)
    if channels % taps:
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={channels} and kernel_size={kernel_size}."
        )
    blocks = _blocks(output_size, kernel_size, dilation, padding, stride)
    if blocks[0] < 1 or blocks[1] < 1 or input.shape[-1] != blocks[0] * blocks[1]:
        raise RuntimeError(
            f"Given output_size={output_size}, kernel_size={kernel_size}, "
            f"dilation={dilation}, padding={padding}, stride={stride}, expected size of "
            f"input's dimension 2 to match the calculated number of sliding blocks "
            f"{blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
            f"input.size(2)={input.shape[-1]}."
        )
    return conv_ops.col2im(
        input,
        output_size=output_size,
        kernel_size=kernel_size,
        dilation=dilation,
        padding=padding,
        stride=stride,
    )
