"""Functions that find, count and bin values, with PyTorch's signatures and errors:
nonzero, argwhere, unique, unique_consecutive, bincount, histc, histogram, searchsorted,
bucketize. Their results are indices or counts, so they have no gradient (as in PyTorch);
each is one vectorized pass over the array."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ... import _dtypes, _promotion
from ..._backend import on_device_of, xp
from ..._tensor import Tensor, _make
from ...amp.policy import runs_in_float32
from ..args import return_type
from ..variants import composite_out, out_dtype
from . import histogramdd
from .shapes import _dim

_LONG = _dtypes.int64


def _long(arr: Any) -> Tensor:
    return _make(xp.asarray(arr, dtype=xp.int64), _LONG)


# ----- where the nonzero elements are --------------------------------------------------------


def nonzero(input: Tensor, *, as_tuple: bool = False, out: Any = None) -> Any:
    """The indices of the nonzero elements: an (N, ndim) int64 tensor, one row per element
    in row-major order, or (``as_tuple``) one 1-D tensor per dim."""
    data = input._data
    with on_device_of(data):  # the indices where the input is
        if as_tuple:
            if data.ndim == 0:
                return (_long(xp.zeros(int(bool(data)), dtype=xp.int64)),)
            return tuple(_long(i) for i in xp.nonzero(data))
        if data.ndim == 0:
            return _long(xp.zeros((int(bool(data)), 0), dtype=xp.int64))
        return _long(xp.argwhere(data))


# (PyTorch's message has no space before the dtype)
out_dtype(
    nonzero,
    "same",
    "nonzero: Expected out tensor to have scalar type Long but got scalar type{out.scalar_name}",
)


def argwhere(input: Tensor) -> Tensor:
    """The indices of the nonzero elements as an (N, ndim) int64 tensor."""
    return nonzero(input)


# ----- distinct values -------------------------------------------------------------------------


def unique(
    input: Tensor,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    """The distinct values (slices along dim) in ascending order; with ``return_inverse``
    where each element of input went, with ``return_counts`` how often each occurs."""
    if input._dtype._category == 3:  # (no order on complex numbers)
        raise _dtypes.not_implemented("unique" if dim is None else "unique_dim", input._dtype)
    data = input._data
    with on_device_of(data):  # the results where the input is
        if dim is None:
            first, inverse, counts = _distinct_rows(data.reshape(-1, 1))
            values = data.reshape(-1)[first]
            inverse = inverse.reshape(data.shape)
        else:
            d = _dim_of_unique(dim, data.ndim)
            if data.size == 0:
                _check_empty_dims(data.shape, d)
                values, inverse, counts = data, xp.zeros(0, xp.int64), xp.zeros(0, xp.int64)
            else:
                moved = xp.moveaxis(data, d, 0)
                first, inverse, counts = _distinct_rows(moved.reshape(moved.shape[0], -1))
                values = xp.take(data, first, axis=d)
        kind = "unique" if dim is None else "unique_dim"
        return _results(input, values, inverse, counts, return_inverse, return_counts, kind)


def _dim_of_unique(dim: int, ndim: int) -> int:
    if ndim == 0:  # (PyTorch's message for a dim of a 0-d tensor)
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return _dim(dim, ndim)


def _distinct_rows(rows: Any) -> tuple:
    """The distinct rows of a 2-D array in ascending (lexicographic) order: each one's first
    occurrence (a stable sort, so of equal values such as -0.0 and 0.0 the first is kept,
    as in PyTorch), the group of every row, and each group's size. Each nan is distinct."""
    n = rows.shape[0]
    if rows.dtype.kind == "b":
        rows = rows.view(xp.uint8)
    order = xp.arange(n)
    for c in range(rows.shape[1] - 1, -1, -1):  # (least significant column first)
        order = order[xp.argsort(rows[order, c], kind="stable")]
    ranked = rows[order]
    starts = xp.ones(n, dtype=bool)
    starts[1:] = (ranked[1:] != ranked[:-1]).any(axis=1)
    inverse = xp.empty(n, dtype=xp.int64)
    inverse[order] = xp.cumsum(starts) - 1
    first = xp.flatnonzero(starts)
    counts = xp.diff(xp.append(first, n))
    return order[first], inverse, counts


def _check_empty_dims(shape: tuple, d: int) -> None:
    """PyTorch's unique along dim d of a tensor with no elements: only d may have size 0."""
    zeros = [k for k, n in enumerate(shape) if n == 0]
    if len(zeros) > 1:
        raise RuntimeError(
            f"Number of zero sized dimensions is more than one, so unique cannot be applied "
            f"(shape {list(shape)}): at most one dim, the one given, may have size 0"
        )
    if zeros != [d]:
        raise RuntimeError(
            "There are 0 sized dimensions, and they aren't selected, so unique cannot be "
            f"applied (shape {list(shape)}, dim {d}): pass dim={zeros[0]}"
        )


# the kernel PyTorch names in its error on differentiating each, and its node
_UNIQUE = {
    "unique": ("_unique2", "Unique2Backward0"),
    "unique_dim": ("unique_dim", "UniqueDimBackward0"),
    "unique_consecutive": ("unique_consecutive", "UniqueConsecutiveBackward0"),
}


def _results(input: Tensor, values, inverse, counts, want_inverse: bool, want_counts: bool, kind):
    out = _make(xp.ascontiguousarray(values), input._dtype)
    out = histogramdd.recorded(out, (input,), *_UNIQUE[kind])
    extra = [_long(inverse)] if want_inverse else []
    if want_counts:
        extra.append(_long(counts))
    return (out, *extra) if extra else out


def unique_consecutive(
    input: Tensor,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    """The input with each run of equal consecutive values (slices along dim) made one;
    ``return_inverse``: the run of each element, ``return_counts``: each run's length."""
    if input._dtype._category == 3:  # (PyTorch's kernel compares by order)
        raise _dtypes.not_implemented("unique", input._dtype)
    data = input._data
    with on_device_of(data):  # the results where the input is
        if dim is None:
            flat = data.reshape(-1)
            starts = xp.ones(flat.size, dtype=bool)
            starts[1:] = flat[1:] != flat[:-1]
            inverse = (xp.cumsum(starts) - 1).reshape(data.shape)
            values = flat[starts]
        elif data.size == 0:
            _check_empty_dims(data.shape, _dim_of_unique(dim, data.ndim))
            values, inverse, counts = data, xp.zeros(0, xp.int64), xp.zeros(0, xp.int64)
            return _results(
                input, values, inverse, counts, return_inverse, return_counts, "unique_consecutive"
            )
        else:
            d = _dim_of_unique(dim, data.ndim)
            moved = xp.moveaxis(data, d, 0).reshape(data.shape[d], -1)
            starts = xp.ones(moved.shape[0], dtype=bool)
            starts[1:] = (moved[1:] != moved[:-1]).any(axis=1)
            inverse = xp.cumsum(starts) - 1
            values = xp.compress(starts, data, axis=d)
        first = xp.flatnonzero(starts)
        counts = xp.diff(xp.append(first, starts.size))
        return _results(
            input, values, inverse, counts, return_inverse, return_counts, "unique_consecutive"
        )


# ----- counting and binning --------------------------------------------------------------------


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """How often each value 0, 1, ..., max occurs in a 1-D non-negative integer tensor (the
    sum of the weights where given)."""
    if input._dtype._category != 1:
        raise _dtypes.not_implemented("bincount_cpu", input._dtype)
    data = input._data
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if data.ndim != 1 or (data.size and data.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    with on_device_of(data):  # the counts where the input is
        if weights is None or not data.size:  # (no input: int64 zeros, weights or not)
            return _long(xp.bincount(data, minlength=minlength))
        if weights._data.ndim != 1 or weights._data.shape[0] != data.shape[0]:
            raise RuntimeError("weights should be 1-d and have the same length as input")
        # float32 weights sum to float32; any other (float16 and bfloat16 too) to float64
        dt = _dtypes.float32 if weights._dtype is _dtypes.float32 else _dtypes.float64
        counts = xp.bincount(data, weights._data.astype(xp.float64), minlength=minlength)
        return histogramdd.recorded(_make(counts.astype(dt.np), dt), (weights,), "aten::bincount")


def histc(
    input: Tensor, bins: int = 100, min: float = 0, max: float = 0, *, out: Any = None
) -> Tensor:
    """Counts in ``bins`` equal bins over [min, max] (the data's range when min = max);
    elements outside are ignored. In input's (floating) dtype."""
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if input._dtype._category == 3:  # (PyTorch's histc first looks for the range)
        raise _dtypes.not_implemented("aminmax_cpu", input._dtype)
    data = input._data.reshape(-1)
    lo, hi = float(min), float(max)
    with on_device_of(data):  # the counts where the input is
        if lo == hi and data.size:  # the data's range (NaN if it holds one)
            lo, hi = float(data.min()), float(data.max())
        if lo == hi:
            lo, hi = lo - 1, hi + 1
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(
                f"torch.histc: range of [{lo:g}, {hi:g}] is not finite: give finite min and "
                "max, or remove the input's NaN and infinite values"
            )
        if lo > hi:
            raise RuntimeError("torch.histc: max must be larger than min")
        if not input._dtype.is_floating_point:  # (after the range and the edges, as PyTorch)
            if input._dtype is _dtypes.bool:
                raise _dtypes.not_implemented("linspace_cpu", input._dtype)
            for v in (lo, hi):  # (the edges are made in the input's dtype first)
                _dtypes.checked_fill(v, input._dtype)
            raise _dtypes.not_implemented("histogram_cpu", input._dtype)
        # PyTorch's bin: (x - min) * bins / (max - min), each step rounded to the input's
        # dtype (float16 and bfloat16 too), truncated
        t = data.dtype.type
        left, right = t(lo), t(hi)
        inside = data[(data >= left) & (data <= right)]
        place = ((inside - left) * t(bins) / (right - left)).astype(xp.int64)
        counts = xp.bincount(xp.minimum(place, bins - 1), minlength=bins)
        return _make(counts.astype(input._dtype.np), input._dtype)


_Histogram = return_type("histogram", ("hist", "bin_edges"))


def histogram(
    input: Tensor,
    bins: int | Tensor = 100,
    *,
    range: Sequence[float] | None = None,  # noqa: A002 - PyTorch's name
    weight: Tensor | None = None,
    density: bool = False,
    out: Any = None,
) -> Any:
    """(hist, bin_edges): counts (or summed weights; a density if asked) in ``bins`` equal
    bins over range (the data's by default), or between the given edges: histogramdd of
    the flattened input as 1-D points."""
    column = input.reshape(-1, 1)
    w = None if weight is None else weight.reshape(-1)
    with on_device_of(input._data):  # the edges and counts where the input is
        if isinstance(bins, Tensor):
            if range is not None:  # (no signature of PyTorch's takes both)
                raise TypeError(
                    "histogram() received an invalid combination of arguments - got (Tensor, "
                    "Tensor, range=tuple), but expected range only with bins as an int"
                )
            histogramdd.check_inputs(column, [bins], w)
            edges = bins._data
        else:
            if bins <= 0:
                raise RuntimeError(
                    f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0"
                )
            (edges,) = histogramdd.even_edges(column._data, [bins], range, input._dtype)
            histogramdd.check_inputs(column, [edges], w)
        wd = None if w is None else w._data
        hist = histogramdd.bin_counts(column._data, [edges], wd, density, input._dtype)
        edge_dtype = bins._dtype if isinstance(bins, Tensor) else input._dtype
        results = (_make(hist, input._dtype), _make(xp.array(edges), edge_dtype))
        inputs = (input, weight, bins)
        return _Histogram(*(histogramdd.recorded(r, inputs, "aten::histogram") for r in results))


# (an input requiring grad: PyTorch writes out, which then requires grad, as the result)
composite_out(histogram)


# ----- sorted search -----------------------------------------------------------------------------


def _search(seq: Any, values: Any, right: bool) -> Any:
    """For each value, the number of elements of its row of seq below it (at or below it
    when ``right``): the insertion place that keeps the row sorted."""
    if seq.shape[-1] and (_has_nan(seq[..., -1:]) or _has_nan(values)):
        return _bisect(seq, values, right)  # (nan sorts last: a row with nan ends in one)
    if seq.ndim <= 1:
        return xp.searchsorted(seq, values, side="right" if right else "left")
    cmp = seq[..., None, :] <= values[..., None] if right else seq[..., None, :] < values[..., None]
    return cmp.sum(axis=-1)


def _has_nan(a: Any) -> bool:
    """Whether a floating array (bfloat16 too) holds a nan."""
    return a.size > 0 and (a.dtype.kind == "f" or a.dtype.name == "bfloat16") and xp.isnan(a).any()


def _bisect(seq: Any, values: Any, right: bool) -> Any:
    """PyTorch's binary search, step by step, for a seq with nan (where NumPy's order, nan
    the largest, gives other places): the place moves right of each middle element not
    at or above the value (not above it with ``right``); every comparison with nan fails."""
    n = seq.shape[-1]
    rows = seq.reshape(-1, n)
    vals = values.reshape(rows.shape[0], -1) if seq.ndim > 1 else values.reshape(1, -1)
    r = xp.arange(rows.shape[0])[:, None]
    start = xp.zeros(vals.shape, dtype=xp.int64)
    end = xp.full(vals.shape, n, dtype=xp.int64)
    active = start < end
    while active.any():
        mid = (start + end) // 2
        m = rows[r, xp.minimum(mid, n - 1)]
        left_of = (m > vals) if right else (m >= vals)
        start = xp.where(active & ~left_of, mid + 1, start)
        end = xp.where(active & left_of, mid, end)
        active = start < end
    return start.reshape(values.shape)


def searchsorted(
    sorted_sequence: Tensor,
    input: Tensor | float,
    *,
    out_int32: bool = False,
    right: bool = False,
    side: str | None = None,
    sorter: Tensor | None = None,
    out: Any = None,
) -> Tensor:
    """Where each value of input would go in the innermost dim of sorted_sequence to keep
    it sorted (the first such place, the last with ``right``/``side='right'``). Both are
    compared in their promoted dtype (a number or 0-d value takes the sequence's)."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(
                f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}"
            )
        if right and side == "left":
            raise RuntimeError(
                "torch.searchsorted(): side and right can't be set to opposites, got side of "
                "left while right was True"
            )
        right = side == "right"
    seq = sorted_sequence._data
    if sorter is not None:
        _check_sorter(seq, sorter)
    scalar = not isinstance(input, Tensor)
    if seq.ndim != 1 and (scalar or input._data.ndim == 0):
        raise RuntimeError(
            "torch.searchsorted(): input value can be a scalar only when boundaries tensor "
            f"dimension is 1, but we got boundaries tensor dim({seq.ndim}) and input "
            "value's dim(0) numel(1)"
        )
    if seq.ndim == 0:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
            "dimension"
        )
    with on_device_of(seq):  # the places where the sequence is
        values = xp.asarray(input) if scalar else input._data
        if seq.ndim > 1 and seq.shape[:-1] != values.shape[:-1]:
            raise RuntimeError(
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                "dimensions of boundaries tensor and input value tensor must match, but we got "
                f"boundaries tensor {list(seq.shape)} and input value tensor "
                f"{list(values.shape)}"
            )
        common = _promotion.result_type([sorted_sequence, input])
        if common._category == 3 or common is _dtypes.bool:  # (no order on these)
            raise _dtypes.not_implemented("searchsorted_out_cpu", common)
        if sorter is not None:
            seq = xp.take_along_axis(seq, sorter._data, axis=-1)
        # (a number wraps into an integer sequence's dtype, as PyTorch's cast does)
        seq = seq.astype(common.np, copy=False)
        values = xp.asarray(values).astype(common.np, copy=False)
        where = _search(seq, values, right)
        dt = _dtypes.int32 if out_int32 else _LONG
        return _make(xp.asarray(where).astype(dt.np), dt)


def _check_sorter(seq: Any, sorter: Tensor) -> None:
    """PyTorch's checks of searchsorted's sorter: int64, seq's shape, indices in range."""
    if sorter._dtype is not _LONG:
        raise RuntimeError(
            "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
            f"{sorter._dtype.scalar_name}"
        )
    idx = sorter._data
    if idx.shape != seq.shape:
        raise RuntimeError(
            "torch.searchsorted(): boundary and sorter must have the same size, but got "
            f"boundary tensor {list(seq.shape)}and got sorter tensor {list(idx.shape)}"
        )
    n = seq.shape[-1] if seq.ndim else 1
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise RuntimeError("torch.searchsorted(): sorter index out of range")


out_dtype(
    searchsorted,
    "same",
    "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or Long(int64) "
    "depending on whether out_int32 flag is True, but we got output tensor's dtype "
    "{out.scalar_name} for a {result.scalar_name} result",
)


def bucketize(
    input: Tensor | float,
    boundaries: Tensor,
    *,
    out_int32: bool = False,
    right: bool = False,
    out: Any = None,
) -> Tensor:
    """The bucket of each value of input among the 1-D sorted boundaries (the index of the
    first boundary at or above it; strictly above with ``right``)."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


out_dtype(bucketize, "same", searchsorted.out_dtype[1])


# ----- quantiles ----------------------------------------------------------------------------------

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(
    name: str,
    input: Tensor,
    q: Tensor | float,
    dim: int | None,
    keepdim: bool,
    interpolation: str,
    ignore_nan: bool,
) -> Tensor:
    """The q-th quantiles along dim: sort, then interpolate between the two order
    statistics around rank q·(n-1) (n the non-nan count for nanquantile). A composition of
    sort, gather and lerp, so the gradient flows to the one or two elements picked."""
    # (PyTorch's order of checks: interpolation, a number q's range, emptiness, q's rank,
    # the dtypes, dim, then a tensor q's values)
    if interpolation not in _INTERPOLATIONS:  # (PyTorch names quantile() for both)
        raise RuntimeError(
            "quantile() interpolation must be one of linear, lower, higher, midpoint or "
            f"nearest, but got {interpolation}"
        )
    if not isinstance(q, Tensor) and not 0 <= q <= 1:
        raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q:g}")
    if input.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if isinstance(q, Tensor) and q.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if input._dtype not in (_dtypes.float32, _dtypes.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if isinstance(q, Tensor) and q._dtype is not input._dtype:
        raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
    if dim is not None:
        _dim(dim, max(input.ndim, 1))
    with on_device_of(input._data):  # q and the ranks where the input is
        if isinstance(q, Tensor):
            qa, scalar_q = q._data.astype(xp.float64), q.ndim == 0
        else:
            qa, scalar_q = xp.asarray(float(q)), True
        if qa.size and not ((qa >= 0) & (qa <= 1)).all():
            raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
        if dim is None:
            x = input.reshape(-1)
            out_shape = (1,) * input.ndim if keepdim else ()
        else:
            d = _dim(dim, max(input.ndim, 1))
            x = input.reshape(1) if input.ndim == 0 else input.movedim(d, -1)
            shape = list(input.shape) if input.ndim else [1]
            shape[d] = 1
            out_shape = tuple(shape) if keepdim else tuple(shape[:d] + shape[d + 1 :])
            if not input.ndim:
                out_shape = ()  # (a 0-d input keeps no dim, keepdim or not)
        srt = x.sort(-1).values
        batch, n = tuple(srt.shape[:-1]), srt.shape[-1]
        nan = xp.isnan(srt._data)
        qv = qa.reshape((-1,) + (1,) * len(batch))  # (Q, 1, ...)
        if ignore_nan:
            ranks = qv * ((~nan).sum(-1) - 1)
            ranks = xp.where(ranks < 0, 0.0, ranks)
        else:
            ranks = xp.where(nan.any(-1), float(n - 1), qv * (n - 1))
        ranks = xp.broadcast_to(ranks, (qv.shape[0],) + batch)
        if interpolation == "lower":
            ranks = xp.floor(ranks)
        elif interpolation == "higher":
            ranks = xp.ceil(ranks)
        elif interpolation == "nearest":
            ranks = xp.round(ranks)
        below = xp.floor(ranks).astype(xp.int64)
        expanded = srt.expand(qv.shape[0], *srt.shape)

        def pick(idx: Any) -> Tensor:
            return expanded.gather(-1, _long(idx[..., None])).squeeze(-1)

        result = pick(below)
        if interpolation in ("linear", "midpoint"):
            weights = xp.full(ranks.shape, 0.5) if interpolation == "midpoint" else ranks - below
            w = _make(weights.astype(input._dtype.np), input._dtype)
            result = result.lerp(pick(xp.ceil(ranks).astype(xp.int64)), w)
        full_shape = out_shape if scalar_q else (qa.shape[0], *out_shape)
        return result.reshape(full_shape)


@runs_in_float32  # (inside a CPU autocast: float32 as a whole, as PyTorch)
def quantile(
    input: Tensor,
    q: Tensor | float,
    dim: int | None = None,
    keepdim: bool = False,
    *,
    interpolation: str = "linear",
    out: Any = None,
) -> Tensor:
    """The q-th quantiles of input along dim (of all elements when dim is None); q a number
    or 1-D tensor in [0, 1] (a leading dim per q); nan if a slice has a nan."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


@runs_in_float32  # (inside a CPU autocast: float32 as a whole, as PyTorch)
def nanquantile(
    input: Tensor,
    q: Tensor | float,
    dim: int | None = None,
    keepdim: bool = False,
    *,
    interpolation: str = "linear",
    out: Any = None,
) -> Tensor:
    """As quantile, ignoring nans (nan only where a slice is all nan); its errors name
    quantile(), as PyTorch's."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, True)
