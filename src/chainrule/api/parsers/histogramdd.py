"""``torch.histogramdd``, and the binning that ``torch.histogram`` shares with it: the
histogram of points in D dimensions (the last dim of input holds the coordinates), binned
as PyTorch's CPU kernel bins them. Each point goes to the bin whose edges hold it (the
last bin of a dim holds its right edge too); a point outside the outer edges of any dim,
or with a nan coordinate, is left out. The counts (or summed weights) are in the input's
dtype; a density divides them by their total and by each bin's volume."""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

from ... import _dtypes
from ..._backend import on_device_of, xp
from ..._creation import _linspace_real
from ..._tensor import Tensor, _make
from ...ops import sorting
from ..args import return_type

_HistogramDD = return_type("histogramdd", ("hist", "bin_edges"))

# the names PyTorch's dtype checks print (C++ type names)
_CPP = {"int64": "long int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char"}


def _cpp(d: Any) -> str:
    return _CPP.get(d.name, d.c_name)


def recorded(value: Tensor, inputs: Sequence[Any], kernel: str, node: str = "NotImplemented"):
    """value as PyTorch records it: requiring grad where a floating input does, with a
    backward that raises PyTorch's error for ``kernel`` (which has no derivative)."""
    for t in inputs:
        if isinstance(t, Tensor) and t.requires_grad and t._dtype._category == 2:
            return sorting.underivable(t, value=value._data, kernel=kernel, node=node)
    return value


def outer_edges(points: Any, range: Sequence[float] | None, dt: Any) -> list:  # noqa: A002
    """Each dim's (leftmost, rightmost) edge: from ``range`` (2 numbers a dim), else the
    points' own min and max (0 and 1 without points); an empty range widened by 1/2 on
    each side, as NumPy's."""
    n = points.shape[1]
    if range is not None:
        if len(range) != 2 * n:
            raise RuntimeError(
                f"torch.histogramdd: for a {n}-dimensional histogram range should have "
                f"{2 * n} elements, but got {len(range)}"
            )
        pairs = [(float(range[2 * i]), float(range[2 * i + 1])) for i in builtins.range(n)]
    elif points.size:
        if dt not in (_dtypes.float32, _dtypes.float64):  # (PyTorch's min and max kernel)
            raise _dtypes.not_implemented("histogramdd", dt)
        lows, highs = points.min(axis=0), points.max(axis=0)
        pairs = [(float(lows[i]), float(highs[i])) for i in builtins.range(n)]
    else:
        pairs = [(0.0, 1.0)] * n
    out = []
    for i, (lo, hi) in enumerate(pairs):
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(
                f"torch.histogramdd: dimension {i}'s range [{lo:g}, {hi:g}] is not finite"
            )
        if lo > hi:
            raise RuntimeError(
                f"torch.histogramdd: min should not exceed max, but got min {lo:g} max {hi:g} "
                f"for dimension {i}"
            )
        out.append((lo - 0.5, hi + 0.5) if lo == hi else (lo, hi))
    return out


def even_edges(points: Any, counts: Sequence[int], range: Any, dt: Any) -> list:  # noqa: A002
    """``counts[i]`` equal bins a dim over its outer edges: torch.linspace's points in the
    input's dtype."""
    pairs = outer_edges(points, range, dt)
    return [
        _linspace_real(lo, hi, max(int(c) + 1, 0), dt.np)
        for (lo, hi), c in zip(pairs, counts, strict=True)
    ]


def check_inputs(input: Tensor, edges: Sequence[Any], weight: Tensor | None) -> None:  # noqa: A002
    """PyTorch's checks of the bin edges (given as tensors, or made) and the weight."""
    if input.ndim < 2:
        raise RuntimeError(
            f"torch.histogramdd: input tensor should have at least 2 dimensions, but got "
            f"{input.ndim}"
        )
    n = input.shape[-1]
    if len(edges) != n:
        raise RuntimeError(
            f"torch.histogramdd: expected {n} sequences of bin edges for a {n}-dimensional "
            f"histogram but got {len(edges)}"
        )
    for i, e in enumerate(edges):
        if isinstance(e, Tensor):
            if e._dtype is not input._dtype:
                raise RuntimeError(
                    "torch.histogramdd: input tensor and bins tensors should have the same "
                    f"dtype, but got input with dtype {_cpp(input._dtype)} and bins for "
                    f"dimension {i} with dtype {_cpp(e._dtype)}"
                )
            e = e._data
        if e.ndim != 1:
            raise RuntimeError(
                "torch.histogramdd: bins tensor should have one dimension, but got "
                f"{e.ndim} dimensions in the bins tensor for dimension {i}"
            )
        if e.size == 0:
            raise RuntimeError(
                "torch.histogramdd: bins tensor should have at least 1 element, but got 0 "
                f"elements in the bins tensor for dimension {i}"
            )
    if weight is not None:
        if weight._dtype is not input._dtype:
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided, input tensor and weight "
                f"tensor should have the same dtype, but got input({_cpp(input._dtype)}), and "
                f"weight({_cpp(weight._dtype)})"
            )
        if (tuple(weight.shape) or (1,)) != tuple(input.shape[:-1]):
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided it should have the same shape "
                "as the input tensor excluding its innermost dimension, but got input with "
                f"shape {list(input.shape)} and weight with shape {list(weight.shape)}"
            )
    for i, e in enumerate(edges):
        size = (e._data if isinstance(e, Tensor) else e).shape[0]
        if size < 2:
            raise RuntimeError(
                f"torch.histogram(): bins must be > 0, but got {size - 1} for dimension {i}"
            )


def bin_counts(points: Any, edges: Sequence[Any], weights: Any, density: bool, dt: Any) -> Any:
    """The (M, D) points binned by the D edge arrays (each increasing): counts, or summed
    weights, in dt, of shape (len(edges[0]) - 1, ...); a density if asked."""
    if dt._category != 2:
        raise _dtypes.not_implemented("histogram_cpu", dt)
    shape = tuple(e.shape[0] - 1 for e in edges)
    m = points.shape[0]
    keep = xp.ones(m, dtype=bool)
    flat = xp.zeros(m, dtype=xp.int64)
    for d, e in enumerate(edges):
        column = points[:, d]
        keep &= (column >= e[0]) & (column <= e[-1])  # (nan: never inside)
        place = xp.searchsorted(e, column, side="right") - 1
        flat = flat * shape[d] + xp.minimum(place, shape[d] - 1)  # (right edge: last bin)
    size = math.prod(shape)
    picked = flat[keep]
    if weights is None:
        hist = xp.bincount(picked, minlength=size).astype(dt.np)
    else:  # summed in dt, in order, as PyTorch's kernel
        hist = xp.zeros(size, dtype=dt.np)
        xp.add.at(hist, picked, weights.reshape(-1)[keep])
    hist = hist.reshape(shape)
    if density:
        with xp.errstate(invalid="ignore", divide="ignore"):  # (no points: nan, as PyTorch)
            hist = hist / hist.sum(dtype=dt.np)
            for d, e in enumerate(edges):
                widths = xp.diff(e).reshape((1,) * d + (-1,) + (1,) * (len(edges) - d - 1))
                hist = hist / widths
    return hist.astype(dt.np, copy=False)


def histogramdd(
    input: Tensor,  # noqa: A002
    bins: int | Sequence[int] | Sequence[Tensor],
    *,
    range: Sequence[float] | None = None,  # noqa: A002 - PyTorch's name
    weight: Tensor | None = None,
    density: bool = False,
) -> Any:
    """(hist, bin_edges): the counts (or summed weights; a density if asked) of the points
    input[..., :] in a D-dimensional grid of bins: ``bins`` equal bins a dim (an int, or
    one a dim) over range (the points' own by default), or between the given edges."""
    if isinstance(bins, Tensor):
        raise TypeError(
            "histogramdd() received an invalid combination of arguments - got (Tensor, Tensor), "
            "but expected bins as an int, a sequence of ints or a sequence of Tensors"
        )
    given = not isinstance(bins, int) and all(isinstance(b, Tensor) for b in bins)
    if input.ndim < 2 and not given:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    n = input.shape[-1] if input.ndim else 0
    points = input._data.reshape(-1, n) if n else input._data.reshape(0, 0)
    dt = input._dtype
    with on_device_of(points):  # the edges and counts where the points are
        if given:
            check_inputs(input, list(bins), weight)
            edges = [b._data for b in bins]
        else:
            counts = [bins] * n if isinstance(bins, int) else list(bins)
            if len(counts) != n:
                raise RuntimeError(
                    "histogramdd: The size of bins must be equal to the innermost dimension of "
                    "the input."
                )
            edges = even_edges(points, counts, range, dt)
            check_inputs(input, edges, weight)
        w = None if weight is None else weight._data
        hist = _make(bin_counts(points, edges, w, density, dt), dt)
        if given:  # (the edges given, themselves)
            kernel = "aten::_histogramdd_from_bin_tensors"
            out_edges = tuple(bins)
        else:
            kernel = "aten::_histogramdd_from_bin_cts"
            made = [_make(xp.array(e), dt) for e in edges]
            out_edges = tuple(
                recorded(e, (input, weight), "aten::_histogramdd_bin_edges") for e in made
            )
        hist = recorded(hist, (input, weight, *(bins if given else ())), kernel)
        return _HistogramDD(hist, out_edges)
