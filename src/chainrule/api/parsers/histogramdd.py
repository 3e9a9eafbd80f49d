"""``torch.histogramdd``: the histogram of points in D dimensions (the last dim of input
holds the coordinates), with NumPy's binning rules, which are PyTorch's."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from ..._backend import on_device_of, xp
from ..._tensor import Tensor, _make
from ..args import return_type

_HistogramDD = return_type("histogramdd", ("hist", "bin_edges"))


def _edges(column: Any, bins: Any, lo_hi: tuple | None, np_dt: Any) -> Any:
    """The bin edges of one coordinate: given, or ``bins`` equal bins over its range."""
    if isinstance(bins, Tensor):
        return bins._data.astype(np_dt)
    if lo_hi is None:
        lo, hi = (float(column.min()), float(column.max())) if column.size else (0.0, 0.0)
    else:
        lo, hi = lo_hi
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5  # NumPy's and PyTorch's choice for an empty range
    return xp.linspace(lo, hi, int(bins) + 1).astype(np_dt)


def histogramdd(
    input: Tensor,
    bins: int | Sequence[int] | Sequence[Tensor],
    *,
    range: Sequence[float] | None = None,  # noqa: A002 - PyTorch's name
    weight: Tensor | None = None,
    density: bool = False,
) -> Any:
    """(hist, bin_edges): the counts (or summed weights; a density if asked) of the points
    input[..., :] in a D-dimensional grid of bins."""
    if not input._dtype.is_floating_point:
        raise NotImplementedError(
            f"\"histogramdd\" not implemented for '{input._dtype.scalar_name}'"
        )
    if input._data.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    n_dims = input._data.shape[-1]
    points = input._data.reshape(-1, n_dims)
    per_dim = [bins] * n_dims if isinstance(bins, int) else list(bins)
    if len(per_dim) != n_dims:
        raise RuntimeError(
            "histogramdd: The size of bins must be equal to the innermost dimension of the input."
        )
    np_dt = input._dtype.np
    ranges = (
        [None] * n_dims
        if range is None
        else [(float(range[2 * i]), float(range[2 * i + 1])) for i in builtins.range(n_dims)]
    )
    with on_device_of(points):  # the edges and counts where the points are
        edges = [_edges(points[:, i], per_dim[i], ranges[i], np_dt) for i in builtins.range(n_dims)]
        w = None if weight is None else weight._data.reshape(-1)
        hist, _ = xp.histogramdd(
            points, bins=[e.astype(xp.float64) for e in edges], weights=w, density=density
        )
        dt = input._dtype
        return _HistogramDD(_make(hist.astype(np_dt), dt), tuple(_make(e, dt) for e in edges))
