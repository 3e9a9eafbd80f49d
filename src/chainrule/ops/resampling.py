"""Resampling: upsampling (nearest, nearest-exact, linear/bilinear/trilinear, bicubic),
pixel_shuffle and pixel_unshuffle, channel_shuffle, grid_sampler and
affine_grid_generator.

- **Upsampling** is separable: along each spatial dim, output o reads a few taps of the
  input with weights (one tap for nearest, two for linear, four for cubic), computed from
  PyTorch's source index of o (``*_taps``). So each mode is a ``windows.axis_gather_pair``,
  whose VJP adds each output's gradient back into its taps.
- **uint8 images** (bilinear, bicubic, lanczos) are resampled as PyTorch's CPU kernels do,
  in fixed point: one rounded pass per dim with integer weights (``upsample_uint8``, no
  derivative).
- **Shuffles** are permutations of the elements: each one's VJP is its inverse.
- **grid_sampler** reads x at the points of a grid (bilinear: the 2^d corners around each
  point, weighted by the distances; nearest: the nearest one). Its VJPs are written with
  chainrule's gathers and scatters, so they are differentiable again in x, grid and g.
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import Any

from .._backend import xp
from .._creation import _linspace_real
from .._memory_format import follow
from .._tensor import Tensor, _make
from ..autograd.recording import KEEP, array_of, defop, not_differentiable, np_dtype
from . import gather_scatter, indexing, joining, reductions, shapes
from .windows import axis_gather_pair, gather_axes

# ----- upsampling: source indices and weights per dim ---------------------------------------


def _scale(n_in: int, n_out: int, align_corners: bool, scale: float | None) -> float:
    """PyTorch's area_pixel_compute_scale: how far apart in x consecutive outputs read."""
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else n_in / n_out


def nearest_taps(
    n_in: int, n_out: int, scale: float | None, exact: bool = False, same_or_double: bool = True
) -> tuple:
    """Nearest: o reads ⌊o·s⌋ (exact: ⌊(o + 1/2)·s⌋), s = 1/scale or n_in/n_out in float32,
    as PyTorch computes it; at most n_in - 1. With same_or_double (PyTorch's 2-d nearest),
    an output of the input's size, or twice it, reads o or ⌊o/2⌋ whatever the scale."""
    o = xp.arange(n_out)
    if not exact and same_or_double and n_out == n_in:
        index = o
    elif not exact and same_or_double and n_out == 2 * n_in:
        index = o >> 1
    else:
        s = (
            xp.float32(1.0 / scale)
            if scale is not None and scale > 0
            else xp.float32(xp.float32(n_in) / xp.float32(n_out))
        )
        if exact:
            src = ((o + 0.5) * xp.float64(s)).astype(xp.float32)
        else:
            src = o.astype(xp.float32) * s
        index = xp.minimum(xp.floor(src).astype(xp.int64), n_in - 1)
    return (index[None, :].astype(xp.intp), None)


def _read_only(*arrays) -> tuple:
    """The arrays, made read-only: taps kept by a cache are shared by every call."""
    for a in arrays:
        a.flags.writeable = False
    return arrays


# (made once per size and scale: building them costs a dozen small NumPy calls per dim, a
# few percent of upsampling a small batch)
@functools.lru_cache(maxsize=256)
def linear_taps(n_in: int, n_out: int, align_corners: bool, scale: float | None) -> tuple:
    """Linear: o reads i0 = ⌊src⌋ and i0 + 1 (i0 at the last element) with weights 1 - λ
    and λ, src = s·o (align_corners) or s·(o + 1/2) - 1/2 clipped at 0, λ = src - i0."""
    o = xp.arange(n_out)
    if n_out == n_in:
        index, lam = o, xp.zeros(n_out)
    else:
        s = _scale(n_in, n_out, align_corners, scale)
        src = s * o if align_corners else xp.maximum(s * (o + 0.5) - 0.5, 0.0)
        index = xp.minimum(xp.floor(src).astype(xp.int64), n_in - 1)
        lam = xp.clip(src - index, 0.0, 1.0)
    upper = index + (index < n_in - 1)
    return _read_only(xp.stack([index, upper]).astype(xp.intp), xp.stack([1.0 - lam, lam]))


_CUBIC_A = -0.75


def _cubic_near(t):
    """Keys' cubic convolution kernel for |t| ≤ 1: ((A + 2)t - (A + 3))t² + 1"""
    return ((_CUBIC_A + 2) * t - (_CUBIC_A + 3)) * t * t + 1


def _cubic_far(t):
    """Keys' cubic convolution kernel for 1 < |t| < 2: ((At - 5A)t + 8A)t - 4A"""
    return ((_CUBIC_A * t - 5 * _CUBIC_A) * t + 8 * _CUBIC_A) * t - 4 * _CUBIC_A


def cubic_taps(n_in: int, n_out: int, align_corners: bool, scale: float | None) -> tuple:
    """Bicubic: o reads ⌊src⌋ - 1 .. ⌊src⌋ + 2 (clamped to the input) with Keys' cubic
    weights (A = -0.75) of t = src - ⌊src⌋; src is not clipped at 0."""
    o = xp.arange(n_out)
    s = _scale(n_in, n_out, align_corners, scale)
    src = s * o if align_corners else s * (o + 0.5) - 0.5
    base = xp.floor(src)
    t = src - base
    weights = xp.stack([_cubic_far(t + 1), _cubic_near(t), _cubic_near(1 - t), _cubic_far(2 - t)])
    index = xp.clip(base.astype(xp.int64)[None, :] + xp.arange(-1, 3)[:, None], 0, n_in - 1)
    return (index.astype(xp.intp), weights)


def _triangle(x):
    """The linear filter: 1 - |x| inside (-1, 1)"""
    x = xp.abs(x)
    return xp.where(x < 1, 1 - x, 0.0)


def _keys_half(x):
    """Keys' cubic filter with A = -0.5 (what antialiased bicubic uses), 0 past |x| = 2"""
    a, x = -0.5, xp.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return xp.where(x < 1, near, xp.where(x < 2, far, 0.0))


def _lanczos(x):
    """The Lanczos filter of order 3: sinc(x)·sinc(x/3) inside (-3, 3)"""
    return xp.where(xp.abs(x) < 3, xp.sinc(x) * xp.sinc(x / 3), 0.0)


# PyTorch's antialiasing filters and the width each reads at scale 1
AA_FILTERS = {"bilinear": (_triangle, 2), "bicubic": (_keys_half, 4), "lanczos": (_lanczos, 6)}


def _window_taps(n_in: int, n_out: int, s: float, support: float, stretch: float, kernel,
                 taps: int, delta: float = 0.0) -> tuple:  # fmt: skip
    """PyTorch's windowed taps: output o reads the inputs within ``support`` of its centre
    c = s·(o + 1/2 - delta) (at most ``taps`` of them), input j weighted by the filter at
    (j - c + 1/2 - delta)·stretch, the weights normalized to sum to 1."""
    centre = s * (xp.arange(n_out) + 0.5 - delta)
    start = xp.maximum((centre - support + 0.5 + delta).astype(xp.int64), 0)
    stop = xp.minimum((centre + support + 0.5 + delta).astype(xp.int64), n_in)
    length = xp.clip(stop - start, 0, taps)
    j = xp.arange(taps)[:, None]
    weight = kernel((j + start - centre + 0.5 - delta) * stretch)
    weight = xp.where(j < length, weight, 0.0)
    total = weight.sum(axis=0)
    weight = weight / xp.where(total != 0, total, 1.0)
    return (xp.minimum(start + j, n_in - 1).astype(xp.intp), weight)


def antialias_taps(n_in: int, n_out: int, align_corners: bool, scale: float | None,
                   mode: str) -> tuple:  # fmt: skip
    """Antialiased resampling (PyTorch's _upsample_*_aa): output o averages the inputs
    within the filter's support around its centre s·(o + 1/2), the filter stretched by s
    when downsampling (s ≥ 1), its weights normalized to sum to 1."""
    if n_out == n_in:  # PyTorch copies a dim of unchanged size, whatever the scale
        return (xp.arange(n_out)[None, :].astype(xp.intp), xp.ones((1, n_out)))
    kernel, width = AA_FILTERS[mode]
    s = _scale(n_in, n_out, align_corners, scale)
    support = width / 2 * s if s >= 1 else width / 2
    stretch = 1 / s if s >= 1 else 1.0
    return _window_taps(n_in, n_out, s, support, stretch, kernel, int(math.ceil(support)) * 2 + 1)


_LINEAR_NODES = {1: "UpsampleLinear1D", 2: "UpsampleBilinear2D", 3: "UpsampleTrilinear3D"}

upsample_nearest, upsample_nearest_backward = axis_gather_pair(
    "upsample_nearest",
    lambda nd: f"UpsampleNearest{nd}DBackward0",
    "each output position reads the input at ⌊o·in/out⌋ along each dim",
)

upsample_nearest_exact, upsample_nearest_exact_backward = axis_gather_pair(
    "upsample_nearest_exact",
    lambda nd: f"UpsampleNearestExact{nd}DBackward0",
    "each output position reads the input at ⌊(o + 1/2)·in/out⌋ along each dim",
)

upsample_linear, upsample_linear_backward = axis_gather_pair(
    "upsample_linear",
    lambda nd: f"{_LINEAR_NODES[nd]}Backward0",
    "linear interpolation along each dim between the two inputs around the source point",
)

upsample_bicubic, upsample_bicubic_backward = axis_gather_pair(
    "upsample_bicubic",
    lambda nd: f"UpsampleBicubic{nd}DBackward0",
    "cubic convolution (A = -0.75) along each dim over the four inputs around the source point",
)

upsample_bilinear_aa, upsample_bilinear_aa_backward = axis_gather_pair(
    "upsample_bilinear_aa",
    lambda nd: f"UpsampleBilinear{nd}DAaBackward0",
    "antialiased bilinear resampling: each output the normalized mean of the inputs under "
    "the triangle filter, stretched to the output's spacing when downsampling",
)

upsample_bicubic_aa, upsample_bicubic_aa_backward = axis_gather_pair(
    "upsample_bicubic_aa",
    lambda nd: f"UpsampleBicubic{nd}DAaBackward0",
    "antialiased bicubic resampling: as bilinear, with Keys' cubic filter (A = -0.5)",
)

upsample_lanczos_aa, upsample_lanczos_aa_backward = axis_gather_pair(
    "upsample_lanczos_aa",
    lambda nd: f"UpsampleLanczos{nd}DAaBackward0",
    "antialiased Lanczos resampling: as bilinear, with the Lanczos filter of order 3",
)

# ----- uint8 images: fixed-point resampling ---------------------------------------------------

# PyTorch's fixed-point weights: at most 2^22, twice the largest one below 2^15 (an int16)
_MAX_PRECISION = 22


@functools.lru_cache(maxsize=256)
def fixed_point_taps(n_in: int, n_out: int, mode: str, antialias: bool, align_corners: bool,
                     scale: float | None) -> tuple:  # fmt: skip
    """uint8 resampling's taps along one dim, as PyTorch's CPU kernels make them:
    (index, integer weights, p). The real weights are the windowed filters' (antialiased:
    ``antialias_taps``'; plain bilinear: the triangle over ±1, centred at s·o with
    align_corners) or plain bicubic's four clamped taps (A = -0.75, repeated taps merged);
    times 2^p, rounded half away from zero, p the largest precision (up to 22) at which twice
    the largest weight still fits an int16."""
    s = _scale(n_in, n_out, align_corners, scale)
    if mode == "bicubic" and not antialias:
        index, weight = cubic_taps(n_in, n_out, align_corners, scale)
        weight = weight.copy()
        for t in range(1, len(index)):  # a run of clamped taps reads one input: one weight
            same = index[t] == index[t - 1]
            weight[t] = xp.where(same, weight[t - 1] + weight[t], weight[t])
            weight[t - 1] = xp.where(same, 0.0, weight[t - 1])
    else:
        kernel, width = AA_FILTERS[mode]
        support = width / 2 * s if antialias and s >= 1 else width / 2
        stretch = 1 / s if antialias and s >= 1 else 1.0
        taps = int(math.ceil(support)) * 2 + 1 if antialias else width
        delta = 0.5 if align_corners and not antialias else 0.0
        index, weight = _window_taps(n_in, n_out, s, support, stretch, kernel, taps, delta)
    largest = float(weight.max())
    precision = 0
    while precision < _MAX_PRECISION and int(0.5 + largest * (1 << (precision + 1))) < 1 << 15:
        precision += 1
    scaled = weight * float(1 << precision)
    fixed = xp.where(scaled < 0, xp.trunc(scaled - 0.5), xp.trunc(scaled + 0.5))
    return (*_read_only(index, fixed), precision)


def _upsample_uint8(x, taps=()):
    """uint8 images resampled in fixed point along their trailing dims, the last first: per
    dim, y = clamp(⌊(Σ_t w_t·x_t + 2^(p-1)) / 2^p⌋, 0, 255) with ``fixed_point_taps``'
    integer weights w; a dim whose taps are None is left as it is"""
    y = x.astype(xp.float64)  # (integers below 2^53 throughout: exact)
    nd = len(taps)
    for i in reversed(range(nd)):
        if taps[i] is None:
            continue
        index, weight, precision = taps[i]
        along = tuple((index, weight) if d == i else None for d in range(nd))
        acc = gather_axes(y, along) + float(1 << (precision - 1))
        y = xp.clip(xp.floor(acc / float(1 << precision)), 0.0, 255.0)
    return y.astype(xp.uint8)


# (no derivative: its values are integers, as in PyTorch, which resamples uint8 so)
upsample_uint8 = defop("upsample_uint8", _upsample_uint8, dtypes=KEEP, vjp=None)

# ----- pixel and channel shuffles --------------------------------------------------------------


def _pixel_shuffle(x, upscale_factor=1):
    """(..., C·r², H, W) → (..., C, H·r, W·r): y[c, h·r + i, w·r + j] = x[c·r² + i·r + j, h, w]"""
    r = upscale_factor
    *lead, c, h, w = x.shape
    y = x.reshape(tuple(lead) + (c // (r * r), r, r, h, w))
    n = len(lead)
    y = y.transpose(tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2))
    return follow(y.reshape(tuple(lead) + (c // (r * r), h * r, w * r)), x)


def _pixel_unshuffle(x, downscale_factor=1):
    """(..., C, H·r, W·r) → (..., C·r², H, W), the inverse of pixel_shuffle"""
    r = downscale_factor
    *lead, c, h, w = x.shape
    y = x.reshape(tuple(lead) + (c, h // r, r, w // r, r))
    n = len(lead)
    y = y.transpose(tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3))
    return follow(y.reshape(tuple(lead) + (c * r * r, h // r, w // r)), x)


pixel_shuffle = defop(
    "pixel_shuffle",
    _pixel_shuffle,
    dtypes=KEEP,
    vjp=lambda g, upscale_factor: pixel_unshuffle(
        g, downscale_factor=upscale_factor
    ),  # Jᵀg = pixel_unshuffle(g): the inverse permutation
    jvp=lambda t, upscale_factor: pixel_shuffle(
        t, upscale_factor=upscale_factor
    ),  # J t = pixel_shuffle(t)
)

pixel_unshuffle = defop(
    "pixel_unshuffle",
    _pixel_unshuffle,
    dtypes=KEEP,
    vjp=lambda g, downscale_factor: pixel_shuffle(
        g, upscale_factor=downscale_factor
    ),  # Jᵀg = pixel_shuffle(g): the inverse permutation
    jvp=lambda t, downscale_factor: pixel_unshuffle(
        t, downscale_factor=downscale_factor
    ),  # J t = pixel_unshuffle(t)
)


def _channel_shuffle(x, groups=1):
    """(N, g·k, ...) → (N, k·g, ...): channel i·k + j moves to j·g + i"""
    n, c = x.shape[:2]
    rest = x.shape[2:]
    y = x.reshape((n, groups, c // groups) + rest).swapaxes(1, 2)
    return y.reshape(x.shape)


channel_shuffle = defop(
    "channel_shuffle",
    _channel_shuffle,
    dtypes=KEEP,
    vjp=lambda g, x_shape, groups: channel_shuffle(
        g, groups=x_shape[1] // groups
    ),  # Jᵀg = the inverse permutation: channel_shuffle with C/groups groups
    jvp=lambda t, groups: channel_shuffle(t, groups=groups),  # J t = channel_shuffle(t)
)

_NATIVE_SHUFFLE = not_differentiable("native_channel_shuffle")

# torch.native_channel_shuffle: the same permutation, with no derivative in PyTorch
native_channel_shuffle = defop(
    "native_channel_shuffle",
    _channel_shuffle,
    dtypes=KEEP,
    node="NotImplemented",
    vjp=_NATIVE_SHUFFLE[0],
    jvp=_NATIVE_SHUFFLE[1],
    conventions="No derivative: backward raises, as in PyTorch (channel_shuffle has one).",
)

# ----- affine_grid_generator ---------------------------------------------------------------------


def _grid_axis(n: int, align_corners: bool, dtype) -> Any:
    """n evenly spaced points of [-1, 1] (align_corners) or the n pixels' centres in it, with
    PyTorch's bits: its linspace in the grid's dtype, then times n - 1 and over n, each
    rounded to the dtype (so an identity θ samples exactly PyTorch's coordinates)."""
    if n <= 1:
        return xp.zeros(n, dtype)
    axis = _linspace_real(-1.0, 1.0, n, dtype)
    if not align_corners:
        axis = axis * dtype.type(n - 1) / dtype.type(n)
    return axis


def base_grid(size, align_corners: bool, dtype) -> Any:
    """(*spatial, d + 1): at each point its normalized coordinates (x first) and a 1: the
    evenly spaced points of [-1, 1] (align_corners) or of the pixels' centres."""
    spatial = size[2:]
    dtype = xp.dtype(dtype)
    axes = [_grid_axis(n, align_corners, dtype) for n in spatial]
    mesh = xp.meshgrid(*axes, indexing="ij")
    columns = [mesh[i] for i in reversed(range(len(spatial)))] + [xp.ones(tuple(spatial), dtype)]
    return xp.stack(columns, axis=-1)


def _affine_grid(theta, size=(), align_corners=False):
    """grid[n, p] = θ[n] · (the point p's coordinates, 1): (N, *spatial, d)"""
    base = base_grid(size, align_corners, theta.dtype)
    flat = base.reshape(-1, base.shape[-1])
    grid = xp.matmul(flat[None], theta.swapaxes(-1, -2))  # (N, P, d)
    return grid.reshape((theta.shape[0],) + tuple(size[2:]) + (theta.shape[1],))


def _affine_grid_backward(x, size=(), align_corners=False):
    """gθ[n] = Σ_p g[n, p] ⊗ (the point p's coordinates, 1): (N, d, d + 1)"""
    base = base_grid(size, align_corners, x.dtype)
    flat = base.reshape(-1, base.shape[-1])
    g = x.reshape(x.shape[0], -1, x.shape[-1])
    return xp.matmul(g.swapaxes(-1, -2), flat[None])


affine_grid_generator = defop(
    "affine_grid_generator",
    _affine_grid,
    dtypes=KEEP,
    node="AffineGridGeneratorBackward0",
    vjp=lambda g, size, align_corners: affine_grid_generator_backward(
        g, size=size, align_corners=align_corners
    ),  # Jᵀg = Σ over the points of g times the point's coordinates
    jvp=lambda t, size, align_corners: affine_grid_generator(
        t, size=size, align_corners=align_corners
    ),  # J t = the grid of t (linear in θ)
)

affine_grid_generator_backward = defop(
    "affine_grid_generator_backward",
    _affine_grid_backward,
    dtypes=KEEP,
    node="AffineGridGeneratorBackwardBackward0",
    vjp=lambda g, size, align_corners: affine_grid_generator(
        g, size=size, align_corners=align_corners
    ),  # Jᵀg = the grid of g
    jvp=lambda t, size, align_corners: affine_grid_generator_backward(
        t, size=size, align_corners=align_corners
    ),  # J t = the same sum over t
)

# ----- grid_sampler ----------------------------------------------------------------------------

ZEROS, BORDER, REFLECTION = 0, 1, 2
BILINEAR, NEAREST, BICUBIC = 0, 1, 2


def _reflect(u, low2: int, high2: int) -> tuple[Any, Any]:
    """u reflected into [low2/2, high2/2] (again and again), and d(reflected)/du = ±1."""
    if low2 == high2:
        return xp.zeros_like(u), xp.zeros_like(u)
    low, span = low2 / 2, (high2 - low2) / 2
    shifted = u - low
    sign = xp.where(shifted < 0, -1.0, 1.0)
    shifted = xp.abs(shifted)
    extra = xp.fmod(shifted, span)
    flips = xp.floor(shifted / span)
    even = flips % 2 == 0
    return xp.where(even, extra + low, span - extra + low), xp.where(even, sign, -sign)


def _source(u, size: int, padding_mode: int, align_corners: bool) -> tuple[Any, Any]:
    """The source coordinate of the unnormalized u after padding_mode, and its slope in u
    (PyTorch's: 1 inside, 0 where clipped and on the border itself; ±1 where reflected)."""
    if padding_mode == ZEROS:
        return u, xp.ones_like(u)
    slope = xp.ones_like(u)
    if padding_mode == REFLECTION:
        u, slope = (
            _reflect(u, 0, 2 * (size - 1)) if align_corners else _reflect(u, -1, 2 * size - 1)
        )
    inside = (u > 0) & (u < size - 1)  # (a coordinate on the border counts as outside)
    return xp.clip(u, 0, size - 1), xp.where(inside, slope, 0.0)


def _like(a, ref) -> Any:
    """The constant a in ref's dtype: a tensor beside a tensor (inside a graph), else an array."""
    a = xp.asarray(a, dtype=np_dtype(ref))
    return _make(a, ref._dtype) if isinstance(ref, Tensor) else a


def _coordinates(grid, spatial, padding_mode, align_corners):
    """Per spatial dim of x: (source coordinate as an expression of grid, its value, its
    derivative in the grid's component). grid's last axis lists x first: reversed dims.
    padding_mode None: the unnormalized coordinate, not padded (bicubic pads each tap)."""
    nd = len(spatial)
    values = array_of(grid)
    out = []
    for d, n in enumerate(spatial):
        comp = indexing.getitem(grid, key=(Ellipsis, nd - 1 - d))
        # in the grid's precision (float32 for the narrower ones) and PyTorch's order, so a
        # coordinate that is a tie for nearest's rounding is the tie PyTorch rounds
        c = values[..., nd - 1 - d]
        c = c.astype(xp.float64 if c.dtype == xp.float64 else xp.float32)
        mul = (n - 1) / 2 if align_corners else n / 2
        u = (c + 1) / 2 * (n - 1) if align_corners else ((c + 1) * n - 1) / 2
        src, slope = (
            (u, xp.ones_like(u))
            if padding_mode is None
            else _source(u, n, padding_mode, align_corners)
        )
        rate = mul * slope  # d src / d grid component
        # src as an expression of the component, exact in value and slope
        expr = comp * _like(rate, grid) + _like(src - c * rate, grid)
        out.append((expr, src, rate))
    return out


def _cubic_slope_near(t):
    """d/dt of Keys' kernel for |t| ≤ 1: 3(A + 2)t² - 2(A + 3)t"""
    return (3 * (_CUBIC_A + 2) * t - 2 * (_CUBIC_A + 3)) * t


def _cubic_slope_far(t):
    """d/dt of Keys' kernel for 1 < |t| < 2: 3At² - 10At + 8A"""
    return (3 * _CUBIC_A * t - 10 * _CUBIC_A) * t + 8 * _CUBIC_A


def _taps_1d(mode, frac):
    """Per tap along one dim: (offset from ⌊src⌋, weight, d weight / d src) as expressions
    of frac = src - ⌊src⌋."""
    if mode == BICUBIC:
        return [
            (-1, _cubic_far(frac + 1), _cubic_slope_far(frac + 1)),
            (0, _cubic_near(frac), _cubic_slope_near(frac)),
            (1, _cubic_near(1 - frac), -_cubic_slope_near(1 - frac)),
            (2, _cubic_far(2 - frac), -_cubic_slope_far(2 - frac)),
        ]
    return [(0, 1 - frac, -1.0), (1, frac, 1.0)]


def _bounded(pos, n: int, padding_mode: int, align_corners: bool) -> Any:
    """A bicubic tap's integer position after padding_mode (PyTorch's get_value_bounded)."""
    if padding_mode == ZEROS:
        return pos
    src, _ = _source(pos.astype(xp.float64), n, padding_mode, align_corners)
    return src.astype(xp.int64)


def _corners(grid, spatial, mode, padding_mode, align_corners):
    """The points x is read at for each grid point: per corner, (flat index, in-bounds
    mask, weight as an expression of grid, per dim the weight's derivative in the source
    coordinate as an expression). Arrays are (N, *out). Bilinear reads the 2^d corners
    around the point, bicubic the 4^d around it (each tap padded by padding_mode)."""
    coords = _coordinates(grid, spatial, None if mode == BICUBIC else padding_mode, align_corners)
    mult = [math.prod(spatial[d + 1 :]) for d in range(len(spatial))]
    if mode == NEAREST:
        pos = [xp.round(src).astype(xp.int64) for _, src, _ in coords]
        inside = _inside(pos, spatial)
        index = sum(xp.clip(p, 0, n - 1) * m for p, n, m in zip(pos, spatial, mult))
        return [(index, inside, None, None)], coords
    corners = []
    floors = [xp.floor(src) for _, src, _ in coords]
    taps = [_taps_1d(mode, expr - _like(f, grid)) for (expr, _, _), f in zip(coords, floors)]
    for combo in itertools.product(*taps):
        pos = [f.astype(xp.int64) + offset for f, (offset, _, _) in zip(floors, combo)]
        if mode == BICUBIC:
            pos = [_bounded(p, n, padding_mode, align_corners) for p, n in zip(pos, spatial)]
        inside = _inside(pos, spatial)
        index = sum(xp.clip(p, 0, n - 1) * m for p, n, m in zip(pos, spatial, mult))
        weights = [w for _, w, _ in combo]
        slopes = [
            _product(weights[:d] + weights[d + 1 :] + [slope])
            for d, (_, _, slope) in enumerate(combo)
        ]
        corners.append((index, inside, _product(weights), slopes))
    return corners, coords


def _inside(pos, spatial) -> Any:
    ok = True
    for p, n in zip(pos, spatial):
        ok = ok & (p >= 0) & (p < n)
    return ok


def _product(parts) -> Any:
    """The product of expressions (tensors, arrays or numbers)."""
    out = 1.0
    for p in parts:
        out = p if isinstance(out, float) else out * p
    return out


def _read(x, index, inside):
    """x (N, C, *S) read at each corner's flat index, 0 outside: (N, C, P)."""
    xs = array_of(x).shape
    n, c, pts = xs[0], xs[1], _points(index)
    flat = shapes.reshape(x, (n, c, math.prod(xs[2:])))
    idx = xp.ascontiguousarray(xp.broadcast_to(index.reshape(n, 1, pts), (n, c, pts)))
    return gather_scatter.gather(flat, idx, dim=2) * _like(inside.reshape(n, 1, pts), x)


def _points(a) -> int:
    """The number of grid points per sample of an (N, *out) array (explicit: N may be 0)."""
    return math.prod(a.shape[1:])


def _grid_sampler(x, grid, interpolation_mode=0, padding_mode=0, align_corners=False):
    """x read at each grid point: bilinear (Σ over the 2^d corners around the point, each
    weighted by the product of 1 - distance along each dim), bicubic (Σ over the 4×4
    around it, Keys' weights, A = -0.75) or nearest; 0 outside x (zeros), or the point
    clipped (border) or reflected (reflection) into x"""
    spatial = x.shape[2:]
    corners, _ = _corners(grid, spatial, interpolation_mode, padding_mode, align_corners)
    n, c = x.shape[:2]
    out = 0.0
    for index, inside, weight, _ in corners:
        value = _read(x, index, inside)
        if weight is not None:
            value = value * weight.reshape(n, 1, _points(index)).astype(x.dtype, copy=False)
        out = out + value
    return out.reshape((n, c) + grid.shape[1:-1])


def _grid_sampler_x_grad(g, x_shape, grid, interpolation_mode, padding_mode, align_corners):
    """Jᵀg in x: each output's gradient, times its corner's weight, added at the corner"""
    n, c = x_shape[:2]
    spatial = tuple(x_shape[2:])
    corners, _ = _corners(grid, spatial, interpolation_mode, padding_mode, align_corners)
    pts = _points(array_of(grid)[..., 0])
    gf = shapes.reshape(g, (n, c, pts))
    total = xp.zeros((n, c, math.prod(spatial)), dtype=np_dtype(g))
    for index, inside, weight, _ in corners:
        w = _like(inside.reshape(n, 1, pts), g)
        if weight is not None:
            w = w * shapes.reshape(weight, (n, 1, pts))
        idx = xp.ascontiguousarray(xp.broadcast_to(index.reshape(n, 1, pts), (n, c, pts)))
        total = gather_scatter.scatter_add(total, idx, gf * w, dim=2)
    return shapes.reshape(total, x_shape)


def _grid_sampler_grid_grad(g, x, grid, interpolation_mode, padding_mode, align_corners):
    """Jᵀg in grid: Σ over the channels of g times d(output)/d(source coordinate) times
    d(source coordinate)/d(grid) (0 for nearest)"""
    xs = array_of(x).shape
    if interpolation_mode == NEAREST:
        return xp.zeros(array_of(grid).shape, dtype=np_dtype(g))
    n, c = xs[:2]
    corners, coords = _corners(grid, xs[2:], interpolation_mode, padding_mode, align_corners)
    pts = _points(array_of(grid)[..., 0])
    gf = shapes.reshape(g, (n, c, pts))
    parts = []
    for d in reversed(range(len(coords))):  # grid lists x (the last dim) first
        slope = None
        for index, inside, _, slopes in corners:
            term = _read(x, index, inside) * shapes.reshape(slopes[d], (n, 1, pts))
            slope = term if slope is None else slope + term
        rate = _like(coords[d][2].reshape(n, pts), g)
        parts.append(reductions.sum(gf * slope, dim=(1,)) * rate)
    return shapes.reshape(joining.stack(parts, dim=2), array_of(grid).shape)


def _grid_sampler_grid_jvp(t, x, grid, interpolation_mode, padding_mode, align_corners):
    """J t in grid: Σ over dims of d(output)/d(source coordinate) · rate · t's component"""
    xs = array_of(x).shape
    n, c = xs[:2]
    out_shape = (n, c) + tuple(array_of(grid).shape[1:-1])
    if interpolation_mode == NEAREST:
        return xp.zeros(out_shape, dtype=np_dtype(x))
    corners, coords = _corners(grid, xs[2:], interpolation_mode, padding_mode, align_corners)
    nd = len(coords)
    total = None
    pts = _points(array_of(grid)[..., 0])
    for d in range(nd):
        comp = shapes.reshape(indexing.getitem(t, key=(Ellipsis, nd - 1 - d)), (n, 1, pts))
        rate = _like(coords[d][2].reshape(n, 1, pts), t)
        for index, inside, _, slopes in corners:
            term = _read(x, index, inside) * (shapes.reshape(slopes[d], (n, 1, pts)) * rate * comp)
            total = term if total is None else total + term
    return shapes.reshape(total, out_shape)


grid_sampler = defop(
    "grid_sampler",
    _grid_sampler,
    args=("x", "grid"),
    dtypes=KEEP,
    node=lambda x, grid, **_: f"GridSampler{x.ndim - 2}DBackward0",
    vjp=(_grid_sampler_x_grad, _grid_sampler_grid_grad),
    jvp=(
        lambda t, grid, interpolation_mode, padding_mode, align_corners: grid_sampler(
            t,
            grid,
            interpolation_mode=interpolation_mode,
            padding_mode=padding_mode,
            align_corners=align_corners,
        ),  # J t = x's tangent sampled at the grid (linear in x)
        _grid_sampler_grid_jvp,
    ),
    conventions=(
        "At a clipped (border) or reflected coordinate the slope is PyTorch's: 0 beyond the "
        "border and on it; ±1 by the number of reflections. Nearest has no grid gradient."
    ),
)
