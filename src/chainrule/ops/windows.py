"""Sliding windows and gathers along axes: the array machinery that convolution, pooling,
padding and resampling share. No ops are defined here, only array functions, and one
factory of op pairs (``axis_gather_pair``).

- **Windows.** ``windows`` views x's sliding windows without copying (a strided view of
  shape ``(N, C, *kernel, *out)``); ``add_windows`` is its transpose, adding each window's
  values back where the window came from (col2im). The convolutions are one matrix product
  on the windows (``correlate``), its transpose in the input (``correlate_transpose``) and
  in the weight (``correlate_weight``).
- **Taps.** A linear map that acts on each trailing dim separately (padding by reflection,
  interpolation, average pooling) is, along each dim, a weighted sum of ``T`` gathers:
  ``y[o] = Σ_t w[t, o] · x[index[t, o]]``. ``gather_axes`` applies such maps (one per dim);
  ``scatter_axes`` is their transpose, summing each output's value back into the inputs it
  was taken from (with the same weights).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

from .._backend import like, ndarray, xp
from ..autograd.recording import KEEP, Op, defop
from .upsampling_rows import gather_phases, phased, phases, scatter_phases

# ----- sizes ---------------------------------------------------------------------------------


def out_size(size: int, kernel: int, stride: int, pad_lo: int, pad_hi: int, dilation: int) -> int:
    """How many windows of ``kernel`` taps ``dilation`` apart fit, ``stride`` apart, in
    ``size`` padded by ``pad_lo`` and ``pad_hi``: ⌊(size + pads - d(k-1) - 1)/s⌋ + 1."""
    return (size + pad_lo + pad_hi - dilation * (kernel - 1) - 1) // stride + 1


def pad_array(x: Any, pads: Sequence[tuple[int, int]], value: float = 0.0) -> Any:
    """x with its trailing dims padded by ``pads`` ((before, after) per dim) of ``value``."""
    if not any(lo or hi for lo, hi in pads):
        return x
    widths = [(0, 0)] * (x.ndim - len(pads)) + [tuple(p) for p in pads]
    # (a filled array with x written inside: what np.pad does, without its Python)
    out = xp.empty(tuple(n + lo + hi for n, (lo, hi) in zip(x.shape, widths)), dtype=x.dtype)
    out.fill(value)
    out[tuple(slice(lo, lo + n) for n, (lo, _) in zip(x.shape, widths))] = x
    return out


# ----- sliding windows --------------------------------------------------------------------


def windows(x: Any, kernel: Sequence[int], stride: Sequence[int], dilation: Sequence[int],
            out: Sequence[int] | None = None, axis: int | None = None) -> Any:  # fmt: skip
    """The read-only view of x's sliding windows over ``len(kernel)`` dims from ``axis``
    (default: the trailing dims): shape (..., *kernel, *out, ...) with
    ``view[..., k, o, ...] = x[..., o·stride + k·dilation, ...]`` (no copy). ``out``
    (default: as many as fit) takes only the first windows."""
    nd = len(kernel)
    axis = x.ndim - nd if axis is None else axis
    spatial = x.shape[axis : axis + nd]
    steps = x.strides[axis : axis + nd]
    if out is None:
        out = [out_size(n, k, s, 0, 0, d) for n, k, s, d in zip(spatial, kernel, stride, dilation)]
    shape = x.shape[:axis] + tuple(kernel) + tuple(out) + x.shape[axis + nd :]
    strides = (
        x.strides[:axis]
        + tuple(st * d for st, d in zip(steps, dilation))
        + tuple(st * s for st, s in zip(steps, stride))
        + x.strides[axis + nd :]
    )
    return xp.lib.stride_tricks.as_strided(x, shape, strides, writeable=False)


def add_windows(cols: Any, size: Sequence[int], stride: Sequence[int], dilation: Sequence[int],
                axis: int | None = None) -> Any:  # fmt: skip
    """The transpose of ``windows``: ``cols`` (..., *kernel, *out, ...), the kernel's dims
    from ``axis`` (default: the kernel and out dims last), added into zeros of
    (..., *size, ...) where each window was read from (col2im; one strided add per tap)."""
    nd = len(size)
    axis = cols.ndim - 2 * nd if axis is None else axis
    kernel = cols.shape[axis : axis + nd]
    out = cols.shape[axis + nd : axis + 2 * nd]
    lead, tail = cols.shape[:axis], cols.shape[axis + 2 * nd :]
    result = xp.zeros(tuple(lead) + tuple(size) + tuple(tail), dtype=cols.dtype)
    every = (slice(None),) * len(lead)
    for tap in itertools.product(*(range(k) for k in kernel)):
        key = tuple(
            slice(t * d, t * d + (o - 1) * s + 1, s) if o else slice(0, 0)
            for t, d, s, o in zip(tap, dilation, stride, out)
        )
        result[every + key] += cols[every + tap]
    return result


# ----- convolution as a matrix product on windows ------------------------------------------
# Four layouts, chosen by shape (the thresholds below measured on LeNet's and a grid of
# other shapes: batch 1 to 256, 1 to 64 channels, kernels 3 and 5, strides, groups):
# - x's own, (N, C, *spatial): the windows' rows run along x's rows; for long rows.
# - Batch last, (C, *spatial, N): a window's row runs over (width, batch) contiguously, so
#   copies and adds move long runs even for short rows (at the price of transposes).
# - Position major, (*spatial, C, N): each output position's patches are one (C·K, N)
#   matrix, and the forward a batch of small products, one per position (with few filters,
#   OpenBLAS runs that batch up to twice as fast as the one wide product of batch last:
#   LeNet's second convolution, 64 products 16 x 150 x 64 in 0.17 ms against 0.25 ms for
#   16 x 150 x 4096); the input's gradient adds each tap's products back in runs of whole
#   positions.
# - Row major, (H, C, K1, N, OW), 2-d: x's windows along the last dim only (K1 copies of x,
#   not K0·K1), each output row's windows a contiguous block of K0 rows of it. It moves the
#   least memory, which counts most where a step starts with cold caches (as after the
#   gc.collect() of the benchmarks: LeNet's second convolution 0.85 ms against 1.04 position
#   major; its first, warm, 0.26 ms against 0.39 in x's own layout). The weight gradients
#   with few filters take x's windows along the last dim only too.

# Rows shorter than this many outputs are worked in a short-row layout (measured on small
# images: the forward's final transpose costs more than the input gradient's, so its
# threshold is lower; the weight's gradient shares the forward's)
_SHORT_ROW = 12
_SHORT_ROW_BACKWARD = 32
# Position major for fewer filters than this (with more, the one wide product is as fast or
# faster), and in the forward for batches of at least _POSITION_BATCH (each position's
# product that many columns wide: narrower, OpenBLAS's cost per call outweighs the gain)
_POSITION_FILTERS = 64
_POSITION_BATCH = 64
# The forward goes row major (2-d, no groups, stride and dilation 1 down the rows) with at
# least _ROWS_PER_FILTER window rows per filter (the copy of x's windows it saves then
# outweighs the transposing copy of y it costs) and _ROW_COLUMNS columns (N·OW) per row
_ROWS_PER_FILTER = 2
_ROW_COLUMNS = 256
# A 2-d weight gradient with at most this many filters takes x's windows along the last
# dim only: its products then read y once per row of taps, which costs little while y has
# few filters (with short rows, also with at least _ROW_COLUMNS columns per row of y)
_FEW_FILTERS = 16

# Transposing copies go in strips of this many along the source's first axis: a whole
# transposing copy reads far-apart elements for every one it writes (two to three times
# slower on LeNet's shapes); a strip's reads stay in cache while its writes fill whole lines.
_STRIP = 16


def _transposed(a: Any, axes: Sequence[int], pads: Sequence[tuple[int, int]] = (),
                strip: int = _STRIP) -> Any:  # fmt: skip
    """``a.transpose(axes)`` as a contiguous array, copied in strips of ``strip`` along a's
    first axis; with ``pads`` ((before, after) per leading dim of the result), zero-padded."""
    padded = any(lo or hi for lo, hi in pads)
    if a.shape[0] <= strip and not padded:  # one strip
        return xp.ascontiguousarray(a.transpose(axes))
    shape = [a.shape[i] for i in axes]
    if padded:
        size = [m + lo + hi for m, (lo, hi) in zip(shape, pads)] + shape[len(pads) :]
        out = xp.zeros(size, dtype=a.dtype)
        inner = out[tuple(slice(lo, lo + m) for m, (lo, _) in zip(shape, pads))]
    else:
        out = inner = xp.empty(shape, dtype=a.dtype)
    dest = inner.transpose([list(axes).index(i) for i in range(a.ndim)])  # in a's axis order
    for start in range(0, a.shape[0], strip):
        dest[start : start + strip] = a[start : start + strip]
    return out


def _batch_last(x: Any, padding: Sequence[int] = ()) -> Any:
    """x (N, C, *S) as (C, *S_padded, N), zero-padded by ``padding`` (one copy)."""
    return _transposed(x, tuple(range(1, x.ndim)) + (0,), [(0, 0)] + [(p, p) for p in padding])


def _batch_first(y: Any) -> Any:
    """y (C, *S, N) as a contiguous (N, C, *S)."""
    return _transposed(y, (y.ndim - 1,) + tuple(range(y.ndim - 1)))


def _position_major(x: Any, pads: Sequence[tuple[int, int]] = ()) -> Any:
    """x (N, C, *S) as (*S_padded, C, N), zero-padded by ``pads`` (one copy)."""
    return _transposed(x, tuple(range(2, x.ndim)) + (1, 0), pads)


def _batch_major(y: Any) -> Any:
    """y (*S, C, N) as a contiguous (N, C, *S) (copied in strips of about _STRIP positions)."""
    nd = y.ndim - 2
    rows = -(-_STRIP // max(1, math.prod(y.shape[1:nd])))  # whole rows of the first dim
    return _transposed(y, (nd + 1, nd) + tuple(range(nd)), strip=rows)


def _tap_major(w: Any, groups: int) -> Any:
    """The weight (F, Cg, *K) as (G, Fg, K·Cg): each filter's taps outer, channels inner
    (the row order of position-major windows)."""
    f, cg = w.shape[:2]
    wg = w.reshape(groups, f // groups, cg, math.prod(w.shape[2:]))
    return xp.moveaxis(wg, 2, -1).reshape(groups, f // groups, -1)


def _out(x_shape, kernel, stride, padding, dilation) -> tuple:
    return tuple(
        out_size(n, k, s, p, p, d)
        for n, k, s, p, d in zip(x_shape[2:], kernel, stride, padding, dilation)
    )


def _pointwise(kernel, stride, padding) -> bool:
    """A kernel of one tap (1x1), unstrided and unpadded: each output position mixes its own
    input position's channels only, so the convolution and its transposes are products per
    sample, (F, C) by (C, positions), with no windows (its gradient in x: 2-4x faster than
    through the col2im layouts; a forward with short rows up to 7x)."""
    return all(k == 1 for k in kernel) and all(s == 1 for s in stride) and not any(padding)


def _suffix_strides(dims: Sequence[int], unit: int) -> tuple:
    """The strides of a C-ordered block of ``dims`` whose innermost step is ``unit`` bytes."""
    strides, step = [], unit
    for d in reversed(dims):
        strides.append(step)
        step *= d
    return tuple(reversed(strides))


def _stacked(view: Any, lead: int, rows: int, ones: bool = False) -> Any:
    """``view``'s dims as a contiguous (∏ the first ``lead``, ∏ the next ``rows``, ∏ the
    rest) array (one copy); with ``ones``, one more row after those, of ones: the columns of
    a product whose weight carries the bias as one more column (see ``correlate``)."""
    shape = view.shape
    a = math.prod(shape[:lead])
    r = math.prod(shape[lead : lead + rows])
    t = math.prod(shape[lead + rows :])
    if not ones:
        return xp.ascontiguousarray(view).reshape(a, r, t)
    out = xp.empty((a, r + 1, t), dtype=view.dtype)
    item = out.itemsize
    strides = (
        _suffix_strides(shape[:lead], (r + 1) * t * item)
        + _suffix_strides(shape[lead : lead + rows], t * item)
        + _suffix_strides(shape[lead + rows :], item)
    )
    xp.lib.stride_tricks.as_strided(out, shape, strides)[...] = view  # out[:, :r]
    out[:, r] = 1
    return out


def _windows_nchw(x, kernel, stride, padding, dilation, groups, out):
    """x's windows as a view (N, G, Cg, *kernel, *out)."""
    n, c = x.shape[:2]
    win = windows(pad_array(x, [(p, p) for p in padding]), kernel, stride, dilation, out)
    return win.reshape((n, groups, c // groups) + win.shape[2:])


def _windows_batch_last(x, kernel, stride, padding, dilation, groups, out, ones=False):
    """x's windows as the (G, Cg·K (+ 1 row of ones), O·N) matrix of im2col, batch last
    (one copy)."""
    n, c = x.shape[:2]
    win = windows(_batch_last(x, padding), kernel, stride, dilation, out, axis=1)
    win = win.reshape((groups, c // groups) + win.shape[1:])  # (G, Cg, *K, *O, N)
    return _stacked(win, 1, 1 + len(kernel), ones)


def _windows_position_major(x, kernel, stride, padding, dilation, groups, out, ones=False):
    """x's windows as (O, G, K·Cg (+ 1 row of ones), N): per output position and group, the
    matrix of its patches, taps outer and channels inner, batch last (one copy)."""
    n, c = x.shape[:2]
    nd = len(kernel)
    xpm = _position_major(x, [(p, p) for p in padding])  # (*S_padded, C, N)
    win = windows(xpm, kernel, stride, dilation, out, axis=0)  # (*K, *O, C, N)
    win = win.reshape(win.shape[: 2 * nd] + (groups, c // groups, n))
    order = (*range(nd, 2 * nd), 2 * nd, *range(nd), 2 * nd + 1, 2 * nd + 2)
    cols = _stacked(win.transpose(order), nd + 1, nd + 1, ones)  # (*O, G, *K, Cg, N)
    return cols.reshape(math.prod(out), groups, -1, n)


def correlate(x: Any, w: Any, stride, padding, dilation, groups: int, bias: Any = None) -> Any:
    """y[n, f, o] = bias[f] + Σ_{c,k} w[f, c, k] · x_padded[n, g(f)·Cg + c, o·stride +
    k·dilation]: the windows of x times the weight, one matrix product (batched over the
    groups). The bias, when given, is one more column of the weight, against a row of ones
    under the windows (rather than a second pass over y to add it)."""
    n, c = x.shape[:2]
    f, kernel = w.shape[0], w.shape[2:]
    out = _out(x.shape, kernel, stride, padding, dilation)
    rows = c // groups * math.prod(kernel)
    ones = bias is not None

    def with_bias(wm):  # (G, Fg, R) -> (G, Fg, R + 1), the bias last
        return wm if bias is None else xp.concatenate((wm, bias.reshape(wm.shape[:2] + (1,))), 2)

    if _pointwise(kernel, stride, padding):  # (G, Fg, Cg) @ (N, G, Cg, O) -> (N, G, Fg, O)
        y = xp.matmul(
            w.reshape(groups, f // groups, rows), x.reshape(n, groups, rows, math.prod(out))
        )
        if bias is not None:
            y += bias.reshape(groups, f // groups, 1)
        return y.reshape((n, f) + out)

    if (
        len(out) == 2
        and groups == 1
        and stride[0] == dilation[0] == 1
        and rows >= _ROWS_PER_FILTER * f
        and n * out[-1] >= _ROW_COLUMNS
    ):
        return _correlate_rows(x, w, stride, padding, dilation, out, bias)
    if out and out[-1] < _SHORT_ROW and n >= _POSITION_BATCH and f < _POSITION_FILTERS:
        cols = _windows_position_major(x, kernel, stride, padding, dilation, groups, out, ones)
        y = xp.matmul(with_bias(_tap_major(w, groups)), cols)  # (O, G, Fg, N)
        return _batch_major(y.reshape(out + (f, n)))
    wm = with_bias(w.reshape(groups, f // groups, rows))
    if out and out[-1] < _SHORT_ROW:
        cols = _windows_batch_last(x, kernel, stride, padding, dilation, groups, out, ones)
        y = xp.matmul(wm, cols)  # (G, Fg, O·N)
        return _batch_first(y.reshape((f,) + out + (n,)))
    win = _windows_nchw(x, kernel, stride, padding, dilation, groups, out)
    cols = _stacked(win, 2, 1 + len(kernel), ones).reshape(n, groups, -1, math.prod(out))
    y = xp.matmul(wm, cols)  # (N, G, Fg, O)
    return y.reshape((n, f) + out)


def _correlate_rows(x: Any, w: Any, stride, padding, dilation, out, bias) -> Any:
    """``correlate`` in 2-d without groups, undilated down the rows, row major: x's windows
    along the last dim only, laid (H_padded, C, K1, N, OW) (K1 copies of x, not K0·K1).
    Output row i's windows are then the rows i·s ... i·s + K0 - 1 of that, one contiguous
    (K0·C·K1, N·OW) block, and y's row i is one product with the weight (its taps down the
    rows outer), laid back (N, F, OH, OW) in one copy (LeNet's first convolution: 0.39 ->
    0.26 ms)."""
    n, c = x.shape[:2]
    f, _, k0, k1 = w.shape
    oh, ow = out
    laid = _laid_rows(x, k1, stride[1], dilation[1], padding, ow)  # (H_padded, C, K1, N, OW)
    step, row, item = laid.strides[0], laid.strides[2], laid.strides[4]
    # block i: the rows i·s ... i·s + K0 - 1 (their (C, K1) rows merge: d = 1 down the rows)
    blocks = xp.lib.stride_tricks.as_strided(
        laid, (oh, k0 * c * k1, n * ow), (stride[0] * step, row, item), writeable=False
    )
    y = xp.matmul(xp.moveaxis(w, 2, 1).reshape(f, -1), blocks)  # (OH, F, N·OW)
    if bias is not None:  # (on y's contiguous rows: several times faster than in the copy)
        y += bias.reshape(f, 1)
    result = xp.empty((n, f, oh, ow), dtype=y.dtype)
    result.transpose(2, 1, 0, 3)[...] = y.reshape(oh, f, n, ow)
    return result


def _laid_rows(x: Any, k1: int, s1: int, d1: int, padding, ow: int, order=(0, 1, 2, 3, 4)) -> Any:
    """x's (N, C, H, W) windows along its last dim, (H_padded, C, K1, N, OW) laid in memory
    as ``order`` says (the dims of that array in memory order; returned in it): tap k of
    output column o reads x's column o·s1 + k·d1 - p1, zero where that is padding. Written
    tap by tap from x itself (K1 transposing copies, the padding's zeros set apart), not
    from a padded copy of x (a 3x3 on (32, 16, 16, 16): 171 -> 131 µs); unpadded, in one
    copy of x's windows."""
    n, c, h, w = x.shape
    p0, p1 = padding
    shape = (h + 2 * p0, c, k1, n, ow)
    out = xp.empty(tuple(shape[d] for d in order), dtype=x.dtype)
    laid = out.transpose(tuple(order.index(d) for d in range(5)))  # (H_padded, C, K1, N, OW)
    if not (p0 or p1):  # x's own windows in one copy (per tap: as fast, LeNet's 5% slower)
        laid[...] = windows(x, (k1,), (s1,), (d1,), (ow,)).transpose(2, 1, 3, 0, 4)
        return out
    if p0:
        laid[:p0] = 0
        laid[p0 + h :] = 0
    rows = x.transpose(2, 1, 0, 3)  # (H, C, N, W)
    inner = laid[p0 : p0 + h]
    for k in range(k1):
        start = k * d1 - p1  # the column output 0 reads
        lo = min(ow, max(0, -(start // s1)))  # the first output reading a column of x
        hi = max(lo, min(ow, -(-(w - start) // s1)))  # ... and one past the last
        tap = inner[:, :, k]
        if hi > lo:
            tap[..., lo:hi] = rows[..., start + lo * s1 : start + (hi - 1) * s1 + 1 : s1]
        if lo:
            tap[..., :lo] = 0
        if hi < ow:
            tap[..., hi:] = 0
    return out


def correlate_transpose(y: Any, w: Any, stride, padding, dilation, groups: int,
                        output_padding) -> Any:  # fmt: skip
    """The transpose of ``correlate`` in x: each output's value times the weight added back
    where its window was read (a matrix product, then col2im), cropped by ``padding``; the
    result is (o - 1)·s - 2p + d(k - 1) + output_padding + 1 long in each dim."""
    n, f = y.shape[:2]
    kernel, out = w.shape[2:], y.shape[2:]
    cg = w.shape[1]
    wt = w.reshape(groups, f // groups, cg * math.prod(kernel)).transpose(0, 2, 1)
    full = [
        (o - 1) * s + d * (k - 1) + 1 + op
        for o, s, d, k, op in zip(out, stride, dilation, kernel, output_padding)
    ]
    crop = tuple(slice(p, m - p) for p, m in zip(padding, full))
    if _pointwise(kernel, stride, padding) and not any(output_padding):
        x = xp.matmul(wt, y.reshape(n, groups, f // groups, math.prod(out)))  # (N, G, Cg, O)
        return x.reshape((n, cg * groups) + tuple(out))
    if _as_forward(y, w, groups, stride, padding, dilation, output_padding):
        pads = tuple(d * (k - 1) - p for p, d, k in zip(padding, dilation, kernel))
        return correlate(y, _flipped(w, groups), stride, pads, dilation, groups)
    if out and out[-1] < _SHORT_ROW_BACKWARD and y.size and all(s == 1 for s in stride):
        if groups == 1 and dilation[-1] == 1 and kernel[-1] > 1 and f < _POSITION_FILTERS:
            x = _correlate_transpose_rows(y, w, dilation, full)  # (*full, C, N)
            return _batch_major(x[crop])
        x = _correlate_transpose_wide(y, wt, kernel, dilation, full)  # (C, *full, N)
        return _batch_first(x[(slice(None),) + crop])
    if out and out[-1] < _SHORT_ROW_BACKWARD:
        ym = _batch_last(y).reshape(groups, f // groups, math.prod(out) * n)
        cols = xp.matmul(wt, ym)  # (G, Cg·K, O·N)
        cols = cols.reshape((cg * groups,) + tuple(kernel) + tuple(out) + (n,))
        x = add_windows(cols, full, stride, dilation, axis=1)  # (C, *full, N)
        return _batch_first(x[(slice(None),) + crop])
    cols = xp.matmul(wt, y.reshape(n, groups, f // groups, math.prod(out)))  # (N, G, CgK, O)
    cols = cols.reshape((n, cg * groups) + tuple(kernel) + tuple(out))
    x = add_windows(cols, full, stride, dilation)  # (N, C, *full)
    return xp.ascontiguousarray(x[(slice(None), slice(None)) + crop])


def _as_forward(y: Any, w: Any, groups: int, stride, padding, dilation, output_padding) -> bool:
    """Whether ``correlate_transpose`` runs as ``correlate`` with the kernel flipped
    (``_flipped``), padded by d·(k - 1) - p: unstrided, 2-d, rows of at least
    _SHORT_ROW_BACKWARD, and at least 16 result channels, half of y's or more. There its
    own path would make every window's products and add them back (col2im) and the forward's
    row-major layout is 1.5-3x faster (a 3x3 on (8, 32, 32, 32): 3.8 -> 2.1 ms; 32 of y's
    16 channels on (8, 16, 32, 32): 3.2 -> 1.2 ms); with fewer result channels its products
    have too few rows (3 from 32 on (16, 32, 64, 64): 4.4 -> 8.0 ms)."""
    kernel = w.shape[2:]
    channels = groups * w.shape[1]
    return (
        y.__class__ is ndarray
        and len(kernel) == 2
        and y.shape[-1] >= _SHORT_ROW_BACKWARD
        and channels >= 16
        and 2 * channels >= w.shape[0]
        and all(s == 1 for s in stride)
        and not any(output_padding)
        and all(p <= d * (k - 1) for p, d, k in zip(padding, dilation, kernel))
    )


def _flipped(w: Any, groups: int) -> Any:
    """The kernel (F, Cg, *K) of a convolution as its transpose's (C, Fg, *K), each tap
    mirrored: w'[g·Cg + c, f, k] = w[g·Fg + f, c, K - 1 - k]."""
    f, cg = w.shape[:2]
    kernel = w.shape[2:]
    wg = w.reshape(groups, f // groups, cg, *kernel).swapaxes(1, 2)
    wg = wg[(Ellipsis,) + (slice(None, None, -1),) * len(kernel)]
    return xp.ascontiguousarray(wg).reshape(groups * cg, f // groups, *kernel)


def _correlate_transpose_wide(y: Any, wt: Any, kernel, dilation, full) -> Any:
    """``correlate_transpose`` at stride 1, batch last: (C, *full, N). y's rows are laid in
    zeros as long as the result's rows, so that in the flattened result each tap's columns
    land on one contiguous run (a shift): the col2im is one long add per tap, at the price of
    a product over the padded rows (NumPy adds short strided runs several times slower)."""
    n, f = y.shape[:2]
    out = y.shape[2:]
    groups = wt.shape[0]
    taps = math.prod(kernel)
    step = [math.prod(full[d + 1 :]) for d in range(len(full))]  # the full grid's flat strides
    length = sum((o - 1) * m for o, m in zip(out, step)) + 1  # flat positions from the first
    pads = [(0, 0), (0, 0)] + [(0, m - o) for m, o in zip(full[1:], out[1:])]
    rows = _transposed(y, tuple(range(1, y.ndim)) + (0,), pads)  # (F, out[0], *full[1:], N)
    ym = rows.reshape(groups, f // groups, -1)[..., : length * n]
    cols = xp.matmul(wt, ym)  # (G, Cg·K, length·N)
    c = groups * wt.shape[1] // taps
    cols = cols.reshape(c, taps, length * n)  # (C, K, length·N)
    x = xp.zeros((c, math.prod(full) * n), dtype=y.dtype)
    for k, tap in enumerate(itertools.product(*(range(kk) for kk in kernel))):
        start = sum(t * d * m for t, d, m in zip(tap, dilation, step)) * n
        part = x[:, start : start + length * n]
        part += cols[:, k]
    return x.reshape((c,) + tuple(full) + (n,))


def _correlate_transpose_rows(y: Any, w: Any, dilation, full) -> Any:
    """``correlate_transpose`` at stride 1 without groups, the last dim undilated, position
    major: (*full, C, N).

    As in ``_correlate_transpose_wide``, y's rows are laid in zeros as long as the result's
    rows, so that each tap's products land on one contiguous run of the flattened positions.
    Position major, the last dim's taps go into the product too: for a flattened position u,
    y's positions u - K + 1 ... u are one contiguous (K·F, N) block, so one product per
    position, with the weight's last-dim taps reversed, covers that dim's whole window, and
    only the other dims' taps are added (LeNet's 5x5 kernel: 5 long adds instead of 25, and
    OpenBLAS runs the batch of small products about twice as fast as one wide one)."""
    n, f = y.shape[:2]
    out, kernel = y.shape[2:], w.shape[2:]
    c, inner = w.shape[1], kernel[-1]
    # wt[(k', c), (j, f)] = w[f, c, k', inner - 1 - j], k' the other dims' taps
    wt = w[..., ::-1].reshape(f, c, -1, inner).transpose(2, 1, 3, 0).reshape(-1, inner * f)
    step = [math.prod(full[d + 1 :]) for d in range(len(full))]  # the full grid's flat strides
    length = sum((o - 1) * m for o, m in zip(out, step)) + 1  # flat positions from the first
    lead = inner - 1  # zero positions needed before y's first (and after its last)
    block = -(-lead // step[0])  # as whole rows of the first dim
    pads = [(block, block)] + [(0, m - o) for m, o in zip(full[1:], out[1:])]
    ym = _position_major(y, pads).reshape(-1, f, n)[block * step[0] - lead :]
    span = length + lead  # the products' positions u = 0 ... span - 1
    item = ym.itemsize
    # position u's block, ym[u : u + inner] as one (inner·F, N) matrix (overlapping views)
    blocks = xp.lib.stride_tricks.as_strided(
        ym, (span, inner * f, n), (f * n * item, n * item, item), writeable=False
    )
    cols = xp.matmul(wt, blocks).reshape(span, -1, c * n)  # (span, K', C·N)
    x = xp.zeros((math.prod(full), c * n), dtype=y.dtype)
    for k, tap in enumerate(itertools.product(*(range(kk) for kk in kernel[:-1]))):
        start = sum(t * d * m for t, d, m in zip(tap, dilation, step))
        part = x[start : start + span]
        part += cols[:, k]
    return x.reshape(tuple(full) + (c, n))


def correlate_weight(x: Any, y: Any, stride, padding, dilation, groups: int, kernel) -> Any:
    """The transpose of ``correlate`` in w: gw[f, c, k] = Σ_{n,o} y[n, f, o] ·
    x_padded[n, g(f)·Cg + c, o·stride + k·dilation] (one matrix product per group), over
    y's windows only."""
    n, f = y.shape[:2]
    out = tuple(y.shape[2:])
    fg, cg = f // groups, x.shape[1] // groups
    rows, positions = cg * math.prod(kernel), math.prod(out)
    rows_ok = len(out) == 2 and stride[0] == 1 and f <= _FEW_FILTERS
    if _pointwise(kernel, stride, padding):  # Σ_n y_n x_nᵀ, (N, G, Fg, O) by (N, G, Cg, O)
        if tuple(x.shape[2:]) != out:  # (x runs past the windows: a transposed output_padding)
            x = x[(Ellipsis,) + tuple(slice(0, o) for o in out)]
        ym, xm = y.reshape(n, groups, fg, positions), x.reshape(n, groups, cg, positions)
        gw = _product_nt(ym, xm).sum(axis=0)
        return gw.reshape((f, cg) + tuple(kernel))
    if out and out[-1] < _SHORT_ROW and rows_ok and n * out[-1] >= _ROW_COLUMNS:
        return _correlate_weight_rows_batch_last(x, y, padding, stride, dilation, groups, kernel)
    if out and out[-1] < _SHORT_ROW:
        cols = _windows_batch_last(x, kernel, stride, padding, dilation, groups, out)
        ym = _batch_last(y).reshape(groups, fg, positions * n)
        gw = _product_nt(ym, cols)  # (G, Fg, Cg·K)
    elif rows_ok and groups == 1:
        return _correlate_weight_rows(x, y, stride, padding, dilation, kernel)
    else:  # per batch element in x's own layout (no transposes), then summed over the batch
        win = _windows_nchw(x, kernel, stride, padding, dilation, groups, out)
        cols = win.reshape(n, groups, rows, positions)
        gw = _product_nt(y.reshape(n, groups, fg, positions), cols).sum(axis=0)
    return gw.reshape((f, cg) + tuple(kernel))


def _correlate_weight_rows(x: Any, y: Any, stride, padding, dilation, kernel) -> Any:
    """``correlate_weight`` in 2-d, stride 1 down the rows, no groups: x's windows along the
    last dim only, (N, C·K1, H_padded·OW); for each row of taps kh, the windows of the
    output's rows are one contiguous block of those, kh·dilation rows down, and
    gw[:, :, kh] = Σ_n y_n times that block (LeNet's first convolution: 5 copies of x
    instead of 25, the weight gradient 0.42 -> 0.29 ms)."""
    n, c = x.shape[:2]
    f, oh, ow = y.shape[1:]
    k0, k1 = kernel
    # (N, C, K1, H_padded, OW): x's windows along the last dim
    rows = _laid_rows(x, k1, stride[1], dilation[1], padding, ow, order=(3, 1, 2, 0, 4))
    rows = rows.reshape(n, c * k1, (x.shape[2] + 2 * padding[0]) * ow)
    ym = y.reshape(n, f, oh * ow)
    gw = xp.empty((k0, f, c * k1), dtype=y.dtype)
    for kh in range(k0):
        start = kh * dilation[0] * ow
        gw[kh] = _product_nt(ym, rows[:, :, start : start + oh * ow]).sum(axis=0)
    return xp.ascontiguousarray(gw.reshape(k0, f, c, k1).transpose(1, 2, 0, 3))


def _correlate_weight_rows_batch_last(x: Any, y: Any, padding, stride, dilation, groups: int,
                                      kernel) -> Any:  # fmt: skip
    """``correlate_weight`` in 2-d with short rows and stride 1 down the rows, batch last: x's
    windows along the last dim only, (G, Cg·K1, H_padded·OW·N) (K1 copies of x, not K0·K1);
    for each row of taps kh, the windows of the output's rows are the contiguous columns
    from kh·dilation rows down, and gw[:, :, kh] is y (batch last) times those (LeNet's
    second convolution: the same time warm, a fifth less right after a gc.collect())."""
    n, f = y.shape[:2]
    c = x.shape[1]
    cg, fg = c // groups, f // groups
    oh, ow = y.shape[2:]
    k0, k1 = kernel
    win = windows(_batch_last(x, padding), (k1,), stride[1:], dilation[1:], (ow,), axis=2)
    rows = xp.ascontiguousarray(win.transpose(0, 2, 1, 3, 4))  # (C, K1, H_padded, OW, N)
    rows = rows.reshape(groups, cg * k1, -1)
    ym = _batch_last(y).reshape(groups, fg, oh * ow * n)
    gw = xp.empty((k0, groups, fg, cg * k1), dtype=y.dtype)
    for kh in range(k0):
        start = kh * dilation[0] * ow * n
        gw[kh] = _product_nt(ym, rows[..., start : start + oh * ow * n])
    return xp.ascontiguousarray(gw.reshape(k0, f, cg, k1).transpose(1, 2, 0, 3))


# A weight gradient contracts over every batch element and position: a long axis P with a
# small result. OpenBLAS runs such a product several times faster as (b aᵀ)ᵀ and in slices
# of P than as one a bᵀ (LeNet's first convolution, 6 x 36864 x 25: 1.1 ms in one
# product, 0.26 ms in slices of 2048).
_SLICE = 2048


def _product_nt(a: Any, b: Any) -> Any:
    """a bᵀ over the last axis of both, (..., M, P) and (..., K, P) -> (..., M, K): the sum
    over slices of P of (b aᵀ)ᵀ."""
    p = a.shape[-1]
    total = xp.matmul(b[..., :_SLICE], a[..., :_SLICE].swapaxes(-1, -2))
    for start in range(_SLICE, p, _SLICE):
        total += xp.matmul(
            b[..., start : start + _SLICE], a[..., start : start + _SLICE].swapaxes(-1, -2)
        )
    return total.swapaxes(-1, -2)


# ----- gathers along axes, and their transposes --------------------------------------------

# A tap map along one dim: (index, weight), index an int array (T, O) of input positions
# and weight a float array (T, O) or None (all ones); None for a dim left as it is.


def _axis_weights(weight, dtype, axis_from_end: int):
    """weight (T, O) in x's dtype, shaped to broadcast along its axis."""
    return weight.astype(dtype, copy=False).reshape(weight.shape + (1,) * axis_from_end)


def _on_device_of(x: Any, index: Any, weight: Any) -> tuple:
    """A tap map (made on the host, as op parameters are) on x's device."""
    if x.__class__ is ndarray:
        return index, weight
    return like(x, index), None if weight is None else like(x, weight)


# index patterns the fast paths below compare with, made once per shape: ("blocks", k, out)
# for _block_size, ("repeats", size, k) for _repeats
_PATTERNS: dict = {}


def _pattern(key: tuple, make: Callable[[], Any]) -> Any:
    """The index pattern ``key`` names, made by ``make`` the first time (a few hundred kept)."""
    found = _PATTERNS.get(key)
    if found is None:
        found = make()
        if len(_PATTERNS) < 256:
            _PATTERNS[key] = found
    return found


def _along(axis: int, part: Any) -> tuple:
    """The indexing key that applies ``part`` (a slice or an int) to dim ``axis``."""
    return (slice(None),) * axis + (part,)


def _block_size(index: Any, n: int) -> int:
    """k where ``index`` (k, out) reads x's consecutive blocks of k from the start,
    index[t, o] = o·k + t within n positions (non-overlapping average pooling, an adaptive
    pooling that divides), else 0."""
    if index.__class__ is not ndarray or index.ndim != 2:
        return 0
    k, out = index.shape
    if k < 2 or not out or out * k > n:
        return 0
    blocks = _pattern(
        ("blocks", k, out), lambda: xp.arange(0, out * k, k)[None, :] + xp.arange(k)[:, None]
    )
    return k if xp.array_equal(index, blocks) else 0


def gather_axes(x: Any, taps: Sequence) -> Any:
    """x mapped along each of its trailing ``len(taps)`` dims: along dim i,
    ``y[o] = Σ_t weight[t, o] · x[index[t, o]]``."""
    nd = len(taps)
    for i, tap in enumerate(taps):
        if tap is None:
            continue
        index, weight = _on_device_of(x, *tap)
        axis = x.ndim - nd + i
        k = _block_size(index, x.shape[axis]) if x.__class__ is ndarray else 0
        if k:  # blocks: each tap's positions a strided view, no gather (the same sums)
            w = None if weight is None else _axis_weights(weight, x.dtype, nd - 1 - i)
            out = index.shape[1]
            acc = None
            for t in range(k):
                part = x[_along(axis, slice(t, out * k, k))]
                part = (
                    part.copy() if w is None and acc is None else part if w is None else part * w[t]
                )
                acc = part if acc is None else xp.add(acc, part, out=acc)
            x = acc
            continue
        if weight is None and len(index) == 1:
            x = xp.take(x, index[0], axis=axis)
            continue
        plan = phases(index, weight, x.shape[axis]) if phased(x) else None
        x = gather_phases(x, axis, plan) if plan else _gather(x, index, weight, axis)
    return x


def _gather(x: Any, index: Any, weight: Any, axis: int) -> Any:
    """``y[o] = Σ_t weight[t, o] · x[index[t, o]]`` along ``axis``: one gather of every tap,
    weighted, summed over the taps (in turn: ((t0 + t1) + t2) + ...)."""
    picked = xp.take(x, index.reshape(-1), axis=axis)
    picked = picked.reshape(x.shape[:axis] + index.shape + x.shape[axis + 1 :])
    if weight is not None:
        picked = picked * _axis_weights(weight, x.dtype, x.ndim - 1 - axis)
    return picked.sum(axis=axis)


def _repeats(index: Any, size: int) -> int:
    """k where ``index`` reads each of ``size`` positions k times in a row (k up to 8), else
    0."""
    n = index.shape[0] if index.__class__ is ndarray and index.ndim == 1 else 0
    if not n or n % size or n == size:
        return 0
    k = n // size
    if k > 8:
        return 0
    expected = _pattern(("repeats", size, k), lambda: xp.repeat(xp.arange(size), k))
    return k if xp.array_equal(index, expected) else 0


def _padded_run(index: Any, size: int) -> tuple | None:
    """(lo, left, right) where ``index`` reads 0 ... size - 1 in order from position lo, and
    at most 8 other positions (a padding's edges: reflection, circular), each a different
    input position (so not replication's, which repeat x's first and last): left and right the
    (position, target) pairs before and after the run; None otherwise."""
    n = index.shape[0] if index.__class__ is ndarray and index.ndim == 1 else 0
    if not size or n <= size or n > size + 8:
        return None
    lo = int(xp.flatnonzero(index == 0)[0]) if (index == 0).any() else -1
    if lo < 0 or lo + size > n or not xp.array_equal(index[lo : lo + size], xp.arange(size)):
        return None
    left = [(o, int(index[o])) for o in range(lo)]
    right = [(o, int(index[o])) for o in range(lo + size, n)]
    targets = [t for _, t in left] + [t for _, t in right]
    if len(set(targets)) != len(targets) or not all(0 <= t < size for t in targets):
        return None
    return lo, left, right


def sum_into(g: Any, index: Any, size: int, axis: int) -> Any:
    """The transpose of ``take(x, index, axis)``: out[j] = Σ_{o: index[o] = j} g[o] along
    axis, out ``size`` long (a sort of the index, then one add.reduceat)."""
    shape = g.shape[:axis] + (size,) + g.shape[axis + 1 :]
    if not index.size or not g.size:
        return xp.zeros(shape, dtype=g.dtype)
    k = _repeats(index, size) if g.__class__ is ndarray else 0
    if k:  # each position read k times in a row (nearest upsampling): k strided slices
        # add.reduceat's order: a segment's first element plus the sum of the others, in
        # turn (pairwise beyond 8 elements: _repeats takes at most 8)
        rest = g[_along(axis, slice(1, None, k))].copy()
        for t in range(2, k):
            rest += g[_along(axis, slice(t, None, k))]
        return xp.add(g[_along(axis, slice(0, None, k))], rest, out=rest)
    edges = _padded_run(index, size) if g.__class__ is ndarray else None
    if edges is not None:  # x read in order once, plus a few edges (padding by reflection)
        lo, left, right = edges
        out = g[_along(axis, slice(lo, lo + size))].copy()
        # add.reduceat's order per position: an edge before x's run first, x's value, then
        # an edge after it (no position takes two edges: _padded_run)
        for o, t in left:
            out[_along(axis, t)] = g[_along(axis, o)] + out[_along(axis, t)]
        for o, t in right:
            out[_along(axis, t)] += g[_along(axis, o)]
        return out
    order = xp.argsort(index, kind="stable")
    ordered = index[order]
    starts = xp.flatnonzero(xp.concatenate(([True], ordered[1:] != ordered[:-1])))
    targets = ordered[starts]
    if not (order[1:] > order[:-1]).all():
        g = xp.take(g, order, axis=axis)
    sums = xp.add.reduceat(g, starts, axis=axis)
    if len(targets) == size:  # every position is reached: targets is 0..size-1
        return sums
    out = xp.zeros(shape, dtype=g.dtype)
    out[_along(axis, targets)] = sums
    return out


def scatter_axes(g: Any, taps: Sequence, shape: Sequence[int]) -> Any:
    """The transpose of ``gather_axes(x, taps)`` for x of ``shape``: along dim i, each
    output's value, times its weight, summed into the input positions it was taken from."""
    nd = len(taps)
    for i, tap in enumerate(taps):
        if tap is None:
            continue
        index, weight = _on_device_of(g, *tap)
        axis = g.ndim - nd + i
        k = _block_size(index, shape[axis]) if g.__class__ is ndarray else 0
        if k:  # blocks: each input position takes one output's value (written, not summed)
            w = None if weight is None else _axis_weights(weight, g.dtype, nd - 1 - i)
            out = index.shape[1]
            spread_shape = g.shape[:axis] + (shape[axis],) + g.shape[axis + 1 :]
            make = xp.zeros if out * k < shape[axis] else xp.empty
            spread = make(spread_shape, dtype=g.dtype)
            for t in range(k):
                spread[_along(axis, slice(t, out * k, k))] = g if w is None else g * w[t]
            g = spread
            continue
        if weight is None and len(index) == 1:
            g = sum_into(g, index[0], shape[axis], axis)
            continue
        plan = phases(index, weight, shape[axis]) if phased(g) else None
        if plan and plan.shift.size <= 8:  # each input's sum of at most 8: add.reduceat's order
            g = scatter_phases(g, axis, plan)
            continue
        g = sum_into(_spread(g, index, weight, axis), index.reshape(-1), shape[axis], axis)
    return g


def _spread(g: Any, index: Any, weight: Any, axis: int) -> Any:
    """g's value at each output once per tap, times the tap's weight, laid (..., T·O, ...)
    along ``axis`` in index.reshape(-1)'s order."""
    spread = xp.expand_dims(g, axis)  # (..., 1, O, ...)
    if weight is not None:
        spread = spread * _axis_weights(weight, g.dtype, g.ndim - 1 - axis)
    else:
        spread = xp.broadcast_to(spread, g.shape[:axis] + index.shape + g.shape[axis + 1 :])
    return spread.reshape(g.shape[:axis] + (index.size,) + g.shape[axis + 1 :])


def axis_gather_pair(name: str, node: Callable[[int], str], doc: str,
                     conventions: str = "") -> tuple[Op, Op]:  # fmt: skip
    """A linear op that maps x along its trailing dims by taps (``gather_axes``), and its
    transpose (``scatter_axes``): each other's VJP. ``node(nd)`` is PyTorch's node name for
    ``nd`` mapped dims; the transpose's node is that name's ``...BackwardBackward0``."""

    def forward(x, taps=()):
        return gather_axes(x, taps)

    def adjoint(x, taps=(), shape=()):
        return scatter_axes(x, taps, shape)

    forward.__doc__ = doc
    adjoint.__doc__ = f"the transpose of {name}: each output summed back into its sources"

    op = defop(
        name,
        forward,
        dtypes=KEEP,
        node=lambda x, taps=(): node(len(taps)),
        vjp=lambda g, x_shape, taps: back(
            g, taps=taps, shape=x_shape
        ),  # Jᵀg = each output's gradient, times its weight, added back where it was taken from
        jvp=lambda t, taps: op(t, taps=taps),  # J t = the same map applied to t (it is linear)
        conventions=conventions,
        complex="wirtinger",  # (real weights: linear over the reals)
    )
    back = defop(
        name + "_backward",
        adjoint,
        dtypes=KEEP,
        node=lambda x, taps=(), shape=(): node(len(taps)).replace("Backward0", "BackwardBackward0"),
        vjp=lambda g, taps: op(g, taps=taps),  # Jᵀg = the forward map applied to g
        jvp=lambda t, taps, shape: back(t, taps=taps, shape=shape),  # J t = the same sum of t
        complex="wirtinger",
    )
    return op, back
