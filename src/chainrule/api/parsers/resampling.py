"""``torch.nn.functional``'s resampling: interpolate (and the deprecated upsample*),
pixel_shuffle, pixel_unshuffle, channel_shuffle, grid_sample and affine_grid, with
PyTorch's argument handling (size or scale_factor, recompute_scale_factor, align_corners)
and its errors."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from ... import _memory_format
from ..._dtypes import not_implemented, uint8
from ..._tensor import Tensor
from ...ops import resampling
from ..args import require_tensor
from . import pooling as p_pooling

_AXES = {1: ("W",), 2: ("H", "W"), 3: ("D", "H", "W")}
_NEAREST = ("nearest", "nearest-exact", "area")


def _output_size(input: Tensor, size: Any, scale_factor: Any, dim: int) -> tuple[list, list]:
    """F.interpolate's size / scale_factor handling: (output size, scales or Nones)."""
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size "
                    f"of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                    "and output size in (o1, o2, ...,oK) format."
                )
            if not all(isinstance(s, int) for s in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size with types {[type(s) for s in size]}"
                )
            return list(size), [None] * dim
        return [size] * dim, [None] * dim
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (list, tuple)):
        if len(scale_factor) != dim:
            raise ValueError(
                "Input and scale_factor must have the same number of spatial dimensions, but "
                f"got input with spatial dimensions of {list(input.shape[2:])} and "
                f"scale_factor of shape {scale_factor}. Please provide input tensor in (N, C, "
                "d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
            )
        scales = [float(s) for s in scale_factor]
    else:
        scales = [float(scale_factor)] * dim
    return [int(n * s) for n, s in zip(input.shape[2:], scales)], scales


def _check_sizes(input: Tensor, out: list, dim: int) -> None:
    """PyTorch's upsample_*_common_check: every size positive, and some channels."""
    shape = input.shape
    spatial = list(shape[2:])
    if shape[1] and all(n > 0 for n in spatial) and all(o > 0 for o in out):
        return
    if all(n > 0 for n in spatial) and all(o > 0 for o in out):
        raise RuntimeError(
            f"Non-empty {input.ndim}D data tensor expected but got a tensor with sizes "
            f"{list(shape)}"
        )
    axes = _AXES[dim]
    given = ", ".join(f"{a}: {n}" for a, n in zip(axes, spatial))
    wanted = ", ".join(f"{a}: {o}" for a, o in zip(axes, out))
    joiner = ") and output" if dim == 1 else ") output"
    raise RuntimeError(
        f"Input and output sizes should be greater than 0, but got input ({given}"
        f"{joiner} ({wanted})"
    )


def interpolate(
    input: Tensor,
    size: int | Sequence[int] | None = None,
    scale_factor: float | Sequence[float] | None = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    """input resampled to ``size`` (or scaled by ``scale_factor``) along its spatial dims:
    mode nearest, nearest-exact, linear, bilinear, bicubic, trilinear or area."""
    require_tensor("interpolate", input)
    if mode in _NEAREST:
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    dim = input.ndim - 2
    out, scales = _output_size(input, size, scale_factor, dim)
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        scales = [None] * dim
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and "
            "requires a 4-D tensor as input"
        )
    wanted = {"linear": 3, "bilinear": 4, "trilinear": 5}.get(mode)
    if mode == "area" and input.ndim in (3, 4, 5):
        pool = (
            p_pooling.adaptive_avg_pool1d,
            p_pooling.adaptive_avg_pool2d,
            p_pooling.adaptive_avg_pool3d,
        )[dim - 1]
        return pool(input, out if dim > 1 else out[0])
    if mode in ("nearest", "nearest-exact") and input.ndim in (3, 4, 5):
        _check_sizes(input, out, dim)
        if not input.is_floating_point() and input.dtype is not uint8:
            kernel = (  # (PyTorch's kernels take uint8 images, refuse other integers and bools)
                "upsample_nearest2d_channels_last"
                if dim == 2
                else "compute_indices_weights_nearest"
            )
            raise not_implemented(kernel, input.dtype)
        exact = mode == "nearest-exact"
        taps = tuple(
            resampling.nearest_taps(n, o, s, exact, same_or_double=dim == 2)
            for n, o, s in zip(input.shape[2:], out, scales)
        )
        op = resampling.upsample_nearest_exact if exact else resampling.upsample_nearest
        return _memory_format.follow_result(op(input, taps=taps), input._data)
    if mode == "bicubic" and input.ndim == 4:
        wanted = 4
    if antialias and input.ndim == 4 and mode in ("bilinear", "bicubic"):
        return _antialiased(input, out, scales, mode, align_corners)
    if wanted is not None and input.ndim == wanted:
        _check_sizes(input, out, dim)
        if not input.is_floating_point():
            if input.dtype is uint8 and dim == 2:
                return _fixed_point(input, out, scales, mode, align_corners, antialias=False)
            raise not_implemented(_INTEGER_REFUSALS[mode], input.dtype)
        build = resampling.cubic_taps if mode == "bicubic" else resampling.linear_taps
        taps = tuple(build(n, o, align_corners, s) for n, o, s in zip(input.shape[2:], out, scales))
        op = resampling.upsample_bicubic if mode == "bicubic" else resampling.upsample_linear
        return _memory_format.follow_result(op(input, taps=taps), input._data)
    if mode == "lanczos" and input.ndim == 4:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
        return _antialiased(input, out, scales, mode, align_corners)
    if wanted is not None and mode != "bicubic" and input.ndim in (3, 4, 5):
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {wanted}D input")
    raise NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
        "the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
        f"nearest-exact (got {mode})"
    )


# the kernel that refuses each mode's integer inputs in PyTorch (uint8 4-D aside)
_INTEGER_REFUSALS = {
    "linear": "compute_indices_weights_linear",
    "trilinear": "compute_indices_weights_linear",
    "bilinear": "upsample_bilinear2d_channels_last",
    "bicubic": "compute_indices_weights_cubic",
}

_AA_OPS = {
    "bilinear": resampling.upsample_bilinear_aa,
    "bicubic": resampling.upsample_bicubic_aa,
    "lanczos": resampling.upsample_lanczos_aa,
}


def _antialiased(input: Tensor, out: list, scales: list, mode: str, align_corners: bool) -> Tensor:
    """interpolate(antialias=True) of a 4-D input: bilinear, bicubic or lanczos."""
    _check_sizes(input, out, 2)
    if not input.is_floating_point():
        if input.dtype is uint8:
            return _fixed_point(input, out, scales, mode, align_corners, antialias=True)
        raise not_implemented("compute_index_ranges_weights", input.dtype)
    taps = tuple(
        resampling.antialias_taps(n, o, align_corners, s, mode)
        for n, o, s in zip(input.shape[2:], out, scales)
    )
    return _memory_format.follow_result(_AA_OPS[mode](input, taps=taps), input._data)


def _fixed_point(
    input: Tensor, out: list, scales: list, mode: str, align_corners: bool, antialias: bool
) -> Tensor:
    """interpolate of a 4-D uint8 input (bilinear, bicubic, lanczos): in PyTorch's fixed-point
    arithmetic, each dim whose size changes resampled in turn (the width first)."""
    taps = tuple(
        None if n == o else resampling.fixed_point_taps(n, o, mode, antialias, align_corners, s)
        for n, o, s in zip(input.shape[2:], out, scales)
    )
    return _memory_format.follow_result(resampling.upsample_uint8(input, taps=taps), input._data)


def upsample(
    input: Tensor,
    size: int | Sequence[int] | None = None,
    scale_factor: float | Sequence[float] | None = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
) -> Tensor:
    """Deprecated: interpolate(input, size, scale_factor, mode, align_corners)."""
    warnings.warn(
        "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(
    input: Tensor,
    size: int | Sequence[int] | None = None,
    scale_factor: float | Sequence[float] | None = None,
) -> Tensor:
    """Deprecated: interpolate(input, size, scale_factor, mode='nearest')."""
    warnings.warn(
        "`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(
    input: Tensor,
    size: int | Sequence[int] | None = None,
    scale_factor: float | Sequence[float] | None = None,
) -> Tensor:
    """Deprecated: interpolate(input, size, scale_factor, mode='bilinear', align_corners=True)."""
    warnings.warn(
        "`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ----- shuffles -----------------------------------------------------------------------------------


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C·r², H, W) → (*, C, H·r, W·r): each channel block of r² spread over r×r pixels."""
    require_tensor("pixel_shuffle", input)
    if input.ndim < 3:
        raise RuntimeError(
            "pixel_shuffle expects input to have at least 3 dimensions, but got input with "
            f"{input.ndim} dimension(s)"
        )
    if upscale_factor <= 0:
        raise RuntimeError(
            f"pixel_shuffle expects a positive upscale_factor, but got {upscale_factor}"
        )
    c = input.shape[-3]
    if c % (upscale_factor * upscale_factor):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
            f"square of upscale_factor, but input.size(-3)={c} is not divisible by "
            f"{upscale_factor * upscale_factor}"
        )
    return resampling.pixel_shuffle(input, upscale_factor=int(upscale_factor))


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H·r, W·r) → (*, C·r², H, W): the inverse of pixel_shuffle."""
    require_tensor("pixel_unshuffle", input)
    if input.ndim < 3:
        raise RuntimeError(
            "pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
            f"{input.ndim} dimension(s)"
        )
    if downscale_factor <= 0:
        raise RuntimeError(
            f"pixel_unshuffle expects a positive downscale_factor, but got {downscale_factor}"
        )
    for what, d in (("height", -2), ("width", -1)):
        if input.shape[d] % downscale_factor:
            raise RuntimeError(
                f"pixel_unshuffle expects {what} to be divisible by downscale_factor, but "
                f"input.size({d})={input.shape[d]} is not divisible by {downscale_factor}"
            )
    return resampling.pixel_unshuffle(input, downscale_factor=int(downscale_factor))


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """(N, g·k, *) → (N, k·g, *): the channels dealt out group by group."""
    _check_channel_shuffle(input, groups)
    return resampling.channel_shuffle(input, groups=int(groups))


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """channel_shuffle without a derivative (PyTorch's: backward raises)."""
    _check_channel_shuffle(input, groups)
    return resampling.native_channel_shuffle(input, groups=int(groups))


def _check_channel_shuffle(input: Tensor, groups: int) -> None:
    require_tensor("channel_shuffle", input)
    if input.ndim <= 2:
        raise RuntimeError(
            f"channel_shuffle expects input with > 2 dims, but got input with sizes "
            f"{list(input.shape)}"
        )
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    if input.shape[1] % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {input.shape[1]} channels "
            f"and {groups} groups."
        )


# ----- grid_sample, affine_grid --------------------------------------------------------------------

_GRID_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}
_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since "
    "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
    "documentation of grid_sample for details."
)


def grid_sampler(
    input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool
) -> Tensor:
    """torch.grid_sampler: input read at the grid's points (modes as integers)."""
    require_tensor("grid_sampler", input)
    require_tensor("grid_sampler", grid, 2, "grid")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input "
            f"with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {input.ndim - 2} in last dimension, "
            f"but got grid with sizes {list(grid.shape)}"
        )
    for i in range(2, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError(
                "grid_sampler(): expected input to have non-empty spatial dimensions, but "
                f"input has sizes {list(input.shape)} with dimension {i} being empty"
            )
    if input.ndim not in (4, 5) or input.ndim != grid.ndim:
        raise RuntimeError(
            f"grid_sampler(): expected {4 if input.ndim != 5 else 5}D input and grid with same "
            f"number of dimensions, but got input with sizes {list(input.shape)} and grid with "
            f"sizes {list(grid.shape)}"
        )
    if interpolation_mode == 2 and input.ndim == 5:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input.dtype is not grid.dtype:
        raise RuntimeError(
            f"expected scalar type {input.dtype.scalar_name} but found {grid.dtype.scalar_name}"
        )
    return resampling.grid_sampler(
        input,
        grid,
        interpolation_mode=int(interpolation_mode),
        padding_mode=int(padding_mode),
        align_corners=bool(align_corners),
    )


def grid_sample(
    input: Tensor,
    grid: Tensor,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners: bool | None = None,
) -> Tensor:
    """input read at each point of grid (normalized to [-1, 1]): bilinear (trilinear for 5-D),
    nearest or bicubic (4-D), with padding_mode zeros, border or reflection outside."""
    if mode not in _GRID_MODES:
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'"
        )
    if padding_mode not in _PADDING_MODES:
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    return grid_sampler(input, grid, _GRID_MODES[mode], _PADDING_MODES[padding_mode], align_corners)


def affine_grid_generator(theta: Tensor, size: Sequence[int], align_corners: bool) -> Tensor:
    """torch.affine_grid_generator: the sampling grid of the affine maps theta."""
    require_tensor("affine_grid_generator", theta)
    if len(size) not in (4, 5):
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    return resampling.affine_grid_generator(
        theta, size=tuple(int(s) for s in size), align_corners=bool(align_corners)
    )


def affine_grid(theta: Tensor, size: Sequence[int], align_corners: bool | None = None) -> Tensor:
    """The grid (N, *spatial, d) of the affine maps theta (N, d, d + 1) over the points of
    an output of ``size``, for grid_sample."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.ndim != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                f"{size}. Got {theta.shape}."
            )
        spatial = list(size)[-2:]
    elif len(size) == 5:
        if theta.ndim != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                f"{size}. Got {theta.shape}."
            )
        spatial = list(size)[-3:]
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}."
        )
    if align_corners and min(spatial) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an intended use case of affine_grid. See the "
            "documentation of affine_grid for details.",
            UserWarning,
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return affine_grid_generator(theta, size, align_corners)
