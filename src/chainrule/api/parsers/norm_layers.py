"""``torch.nn.functional``'s normalization layers: batch_norm (with the running statistics
updated in place), instance_norm, layer_norm, group_norm (the ops of
``ops/norm_layers.py``), and local_response_norm and rms_norm, composed from ops as
PyTorch composes them; PyTorch's argument checks and errors."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ... import _dtypes, _memory_format
from ..._backend import ndarray, xp
from ..._creation import zeros
from ..._tensor import Tensor
from ...autograd import grad_mode
from ...ops import copies, joining, norm_layers, reductions, shapes, unary
from .shapes import cat


def _check_parameter(name: str, value: Tensor | None, channels: int, input: Tensor) -> None:
    if value is None:
        return
    if value.numel() != channels:
        raise RuntimeError(f"{name} should contain {channels} elements not {value.numel()}")
    if value.dtype is not input.dtype and input.is_floating_point():
        # (PyTorch's CPU kernel: a float32 parameter of another input "must share", any
        # other dtype is not the Float it expects)
        if value.dtype is _dtypes.float32:
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")


def _mixed_precision(input: Tensor, named: tuple) -> bool:
    """Whether batch_norm runs PyTorch's mixed-type kernel: a reduced-precision input and
    float32 parameters (every one given must then be float32)."""
    if input.dtype not in (_dtypes.bfloat16, _dtypes.float16):
        return False
    given = [value for _, value in named if value is not None]
    if not any(value.dtype is _dtypes.float32 for value in given):
        return False
    if any(value.dtype is not _dtypes.float32 for value in given):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    return True


def _more_than_one_value(shape: tuple, text: str = "torch.Size") -> None:
    size = shape[0]
    for s in shape[2:]:
        size *= s
    if size == 1:
        shown = f"torch.Size({list(shape)})" if text == "torch.Size" else str(list(shape))
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {shown}"
        )


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """(x - mean)/√(var + eps)·weight + bias per channel (dim 1) (NativeBatchNormBackward0).

    In training the statistics are the batch's (over every dim but 1), and the running ones,
    when given, are updated in place: ``running = (1 - momentum)·running + momentum·stat``,
    with the unbiased variance. In evaluation the running statistics normalize.
    """
    if training:
        _more_than_one_value(tuple(input.shape))
        if eps <= 0.0:
            raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if momentum is None:
        raise TypeError(
            "batch_norm(): argument 'momentum' (position 7) must be float, not NoneType"
        )
    # PyTorch's order: each running statistic (present, or required in evaluation), then
    # weight and bias, against the channels (0 for a 1-D input, which fails after)
    channels = input.shape[1] if input.ndim >= 2 else 0
    # (the sizes all first, the dtypes after)
    named = (
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    )
    for name, value in named:
        if value is None and not training and name.startswith("running"):
            raise RuntimeError(f"{name} must be defined in evaluation mode")
        if value is not None and value.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {value.numel()}")
    if _mixed_precision(input, named):
        # a bfloat16/float16 input with float32 parameters (autocast's convolutions feed
        # BatchNorm so): computed in float32, the result in the input's dtype, the running
        # statistics kept in float32, as PyTorch's mixed-type CPU kernel does
        out = batch_norm(
            input.float(), running_mean, running_var, weight, bias, training, momentum, eps
        )
        return out.to(input.dtype)
    for name, value in named:
        _check_parameter(name, value, channels, input)
    if input.ndim < 2:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if training:
        data = input._data
        stats = None  # the batch's mean, biased variance and invstd, as the forward has them
        if data.__class__ is ndarray and data.dtype.char in "fd":
            stats = xp.empty((3, channels), data.dtype)
        out = norm_layers.batch_norm(
            input, weight, bias, training=True, eps=float(eps), stats=stats
        )
        if (running_mean is not None or running_var is not None) and input.numel():
            # (an empty batch leaves the running statistics as they were, as PyTorch's)
            _update_running(input, running_mean, running_var, momentum, stats)
    else:
        out = norm_layers.batch_norm(
            input,
            weight,
            bias,
            training=False,
            eps=float(eps),
            running_mean=running_mean._data,
            running_var=running_var._data,
        )
    return _memory_format.follow_result(out, input._data)  # (PyTorch's kernel keeps the format)


def _update_running(input: Tensor, running_mean, running_var, momentum: float, stats=None) -> None:
    """running = (1 - momentum)·running + momentum·(the batch's statistic), written into
    the running tensors as PyTorch's kernel writes them (no version bump), the variance
    unbiased (n/(n - 1) times the biased one): from the forward's ``stats`` (its mean and
    biased variance) where given, else computed here in float64."""
    data = input._data
    n = data.size // data.shape[1]
    unbiased = n / (n - 1) if n > 1 else 1.0
    runnings = (running_mean, running_var)
    if stats is not None:  # (momentum·stat in float64: mean, var·n/(n - 1))
        steps = stats[:2].astype(xp.float64)
        steps[1] *= unbiased
        steps *= momentum
        for running, step in zip(runnings, steps):
            if running is not None:
                r = running._data
                xp.add(r * (1 - momentum), step, out=r, casting="unsafe")
        return
    axes = (0,) + tuple(range(2, input.ndim))
    batch = (
        lambda: xp.mean(data, axis=axes, dtype=xp.float64),
        lambda: xp.var(data, axis=axes, ddof=1 if n > 1 else 0, dtype=xp.float64),
    )
    for running, stat in zip(runnings, batch):
        if running is not None:
            r = running._data
            r[...] = (r * (1 - momentum) + stat() * momentum).astype(r.dtype)


def instance_norm(
    input: Tensor,
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """batch_norm of each sample's channels on their own: the input viewed as one batch of
    N·C channels (PyTorch's graph: View, NativeBatchNorm, View); the running statistics,
    when given, updated with the mean over the samples."""
    shape = tuple(input.shape)
    if use_input_stats:
        spatial = math.prod(shape[2:])
        if spatial == 1:
            raise ValueError(
                "Expected more than 1 spatial element when training, got input size "
                f"torch.Size({list(shape)})"
            )
    elif running_mean is None or running_var is None:
        raise RuntimeError(
            "Expected running_mean and running_var to be defined when use_input_stats is false"
        )
    b, c = shape[0], shape[1]
    if not b:
        return _empty_instance_norm(input, running_mean, running_var, weight, bias, use_input_stats)

    def repeated(t: Tensor | None) -> Tensor | None:
        return None if t is None else joining.repeat(t, repeats=(b,))

    if not input._data.flags.c_contiguous:  # (PyTorch's: a row-major copy to view)
        input = copies.clone(input, memory_format="contiguous")
    folded = shapes.view(input, shape=(1, b * c) + shape[2:])
    rm, rv = repeated(running_mean), repeated(running_var)
    out = batch_norm(
        folded, rm, rv, repeated(weight), repeated(bias), use_input_stats, momentum, eps
    )
    if use_input_stats:
        with grad_mode.no_grad():
            for running, folded_stat in ((running_mean, rm), (running_var, rv)):
                if running is not None:
                    running.copy_(reductions.mean(shapes.reshape(folded_stat, (b, c)), dim=0))
    return shapes.view(out, shape=shape)


def _empty_instance_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None,
    bias: Tensor | None,
    use_input_stats: bool,
) -> Tensor:
    """instance_norm of an empty batch, as PyTorch: its IndexError with a weight or a bias
    (it repeats them zero times, then reads the first), else the empty result; the running
    statistics become the mean over no samples, nan."""
    if weight is not None or bias is not None:
        raise IndexError("select(): index 0 out of range for tensor of size [0] at dimension 0")
    shape = tuple(input.shape)
    folded = shapes.view(input, shape=(1, 0) + shape[2:])
    # (eval: the running statistics repeated for no channels, as the general path does)
    rm, rv = (None, None) if use_input_stats else (running_mean, running_var)
    rm, rv = (None if t is None else joining.repeat(t, repeats=(0,)) for t in (rm, rv))
    normed = batch_norm(folded, rm, rv, None, None, use_input_stats, 0.0, 1e-5)
    out = shapes.view(normed, shape=shape)
    if use_input_stats:
        with grad_mode.no_grad():
            for running in (running_mean, running_var):
                if running is not None:
                    running.copy_(input.new_full((shape[1],), math.nan))
    return out


def _normalized_shape(normalized_shape) -> tuple:
    if isinstance(normalized_shape, int):
        raise TypeError(
            "layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not int"
        )
    shape = tuple(int(s) for s in normalized_shape)
    if not shape:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
            "one element, but got normalized_shape = []"
        )
    return shape


def _check_normalized_shape(
    input: Tensor, shape: tuple, weight: Tensor | None, bias: Tensor | None, star: str = "*, "
) -> None:
    for name, value in (("weight", weight), ("bias", bias)):
        if value is not None and tuple(value.shape) != shape:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {list(value.shape)} and normalized_shape = {list(shape)}"
            )
    if input.ndim < len(shape) or tuple(input.shape[input.ndim - len(shape) :]) != shape:
        expected = ", ".join(str(s) for s in shape)
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape [{star}{expected}], "
            f"but got input of size{list(input.shape)}"
        )


def layer_norm(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """(x - mean)/√(var + eps)·weight + bias over the trailing dims of ``normalized_shape``
    (NativeLayerNormBackward0)."""
    shape = _normalized_shape(normalized_shape)
    _check_normalized_shape(input, shape, weight, bias)
    data = input._data
    stats = None  # the rows' mean, biased variance and invstd, as the forward has them
    if data.__class__ is ndarray and data.dtype.char in "fd" and data.size:
        stats = xp.empty((3, data.size // math.prod(shape)), data.dtype)
    out = norm_layers.layer_norm(
        input, weight, bias, normalized_ndim=len(shape), eps=float(eps), stats=stats
    )
    return _memory_format.row_major_result(out)  # (PyTorch's kernel writes row-major)


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """(x - mean)/√(var + eps)·weight + bias, statistics per sample over each of num_groups
    groups of channels (and the spatial dims) (NativeGroupNormBackward0)."""
    if input.ndim < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.ndim}"
        )
    shape = tuple(input.shape)
    _more_than_one_value((shape[0] * shape[1] // num_groups, num_groups) + shape[2:], text="list")
    channels = shape[1]
    if channels % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {list(shape)} and num_groups={num_groups}"
        )
    for name, value in (("weight", weight), ("bias", bias)):
        if value is not None and (value.ndim != 1 or value.numel() != channels):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in "
                f"input, but got {name} of shape {list(value.shape)} and input of shape "
                f"{list(shape)}"
            )
    data = input._data
    stats = None  # the groups' mean, biased variance and invstd, as the forward has them
    if data.__class__ is ndarray and data.dtype.char in "fd" and data.size:
        stats = xp.empty((3, shape[0] * int(num_groups)), data.dtype)
    out = norm_layers.group_norm(
        input, weight, bias, num_groups=int(num_groups), eps=float(eps), stats=stats
    )
    return _memory_format.follow_result(out, data)  # (PyTorch's kernel keeps the format)


def local_response_norm(
    input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0
) -> Tensor:
    """x / (k + alpha·mean of x² over a window of ``size`` channels)^beta, the window
    zero-padded at the edges (size // 2 channels before, (size - 1) // 2 after)."""
    if input.ndim < 3:
        raise ValueError(
            "Expected 3D or higher dimensionality                          input (got "
            f"{input.ndim} dimensions)"
        )
    if input.numel() == 0:
        return input
    if size <= 0:  # (PyTorch's window is an avg_pool2d/3d kernel over the channels)
        kernel = f"kH: {size} kW: 1" if input.ndim == 3 else f"kT: {size} kH: 1 kW: 1"
        raise RuntimeError(f"kernel size should be greater than zero, but got {kernel}")
    square = input * input
    channels = input.shape[1]
    before, after = size // 2, (size - 1) // 2
    pad_shape = list(square.shape)
    parts = []
    for n in (before, after):
        pad_shape[1] = n
        parts.append(zeros(tuple(pad_shape), dtype=input.dtype) if n else None)
    padded = cat([p for p in (parts[0], square, parts[1]) if p is not None], dim=1)
    window = shapes.narrow(padded, dim=1, start=0, length=channels)
    for offset in range(1, size):
        window = window + shapes.narrow(padded, dim=1, start=offset, length=channels)
    div = (window / size * alpha + k) ** beta
    # (PyTorch's quotient is laid out as its first operand, input, is)
    return _memory_format.follow_result(input / div, input._data)


def rms_norm(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Tensor | None = None,
    eps: float | None = None,
) -> Tensor:
    """x / √(mean of x² over the trailing dims + eps)·weight, eps the dtype's machine epsilon
    by default; a float16 or bfloat16 x computed in float32 (float32's epsilon, the weight
    in float32 too) and its result cast back once, as PyTorch does."""
    shape = _normalized_shape(normalized_shape)
    _check_normalized_shape(input, shape, weight, None, star="*")
    if input._dtype is _dtypes.bfloat16 or input._dtype is _dtypes.float16:
        f32 = _dtypes.float32
        wide = None if weight is None else copies.to_dtype(weight, dtype=f32)
        out = rms_norm(copies.to_dtype(input, dtype=f32), shape, wide, eps)
        return copies.to_dtype(out, dtype=input._dtype)
    if eps is None:
        eps = float(xp.finfo(input._data.dtype).eps)
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    scale = unary.rsqrt(reductions.mean(input * input, dim=dims, keepdim=True) + eps)
    out = input * scale
    return out if weight is None else out * weight
