"""Scatters with PyTorch's signatures and errors: scatter_reduce (sum, prod, mean, amax,
amin, with or without input's own values), select_scatter, slice_scatter and
diagonal_scatter (a copy of input with src written into a slice, a selected index or a
diagonal; src cast to input's dtype)."""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from ...ops import gather_scatter
from .indexing import _check_index
from .shapes import _dim

_REDUCES = ("sum", "prod", "mean", "amax", "amin")


def scatter_reduce(
    input: Tensor,
    dim: int,
    index: Tensor,
    src: Tensor,
    reduce: str,
    *,
    include_self: bool = True,
    out: Any = None,
) -> Tensor:
    """A copy of input with src's elements reduced into the places index names along dim:
    ``reduce`` is sum, prod, mean, amax or amin; input's own value takes part unless
    ``include_self`` is False."""
    if reduce not in _REDUCES:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    if src._dtype is not input._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    d, index = _check_index(input, dim, index, "scatter_reduce", src)
    return gather_scatter.scatter_reduce(
        input, index, src, dim=d, reduce=reduce, include_self=include_self
    )


def _region_check(src: Tensor, region: tuple) -> None:
    if tuple(src.shape) != region:
        raise RuntimeError(
            "expected src to have a size equal to the slice of self. src size = "
            f"{list(src.shape)}, slice size = {list(region)}"
        )


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """A copy of input with src written at ``index`` along ``dim`` (src: that slice's shape)."""
    d = _dim(dim, input.ndim)
    size = input.shape[d]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
            f"dimension {dim}"
        )
    key = (slice(None),) * d + (index % size,)
    _region_check(src, tuple(input._data[key].shape))
    return gather_scatter.select_scatter(input, src.to(input.dtype), key=key)


def slice_scatter(
    input: Tensor,
    src: Tensor,
    dim: int = 0,
    start: int | None = None,
    end: int | None = None,
    step: int = 1,
) -> Tensor:
    """A copy of input with src written into input[start:end:step] along ``dim``."""
    d = _dim(dim, input.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    key = (slice(None),) * d + (slice(start, end, step),)
    _region_check(src, tuple(input._data[key].shape))
    return gather_scatter.slice_scatter(input, src.to(input.dtype), key=key)


def diagonal_scatter(
    input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1
) -> Tensor:
    """A copy of input with src written on its diagonal (offset, over dims dim1, dim2)."""
    d1, d2 = _dim(dim1, input.ndim), _dim(dim2, input.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    region = input._data.diagonal(offset, d1, d2).shape
    _region_check(src, tuple(region))
    return gather_scatter.diagonal_scatter(
        input, src.to(input.dtype), offset=offset, dim1=d1, dim2=d2
    )


def fill_diagonal_(self: Tensor, fill_value: float, wrap: bool = False) -> Tensor:
    """Write fill_value on the main diagonal in place (every dim of equal length, or a
    matrix; ``wrap``: a tall matrix's diagonal restarts below every square block)."""
    from ..._backend import xp
    from ..._tensor import _make
    from .indexing import setitem

    shape = tuple(self.shape)
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    if len(shape) == 2:
        rows, cols = shape
        n = rows * cols if wrap and rows > cols + 1 else min(rows, cols) * (cols + 1)
        flat = xp.arange(0, min(n, rows * cols), cols + 1)
        key = tuple(_make(a.astype(xp.int64), _int64()) for a in (flat // cols, flat % cols))
    else:
        k = _make(xp.arange(shape[0], dtype=xp.int64), _int64())
        key = (k,) * len(shape)
    from ...autograd import grad_mode

    if self.requires_grad and self.grad_fn is None and grad_mode.is_grad_enabled():
        # (PyTorch writes through a strided view of self, so its message names a view)
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation."
        )
    setitem(self, key, fill_value)
    return self


def _int64():
    from ... import _dtypes

    return _dtypes.int64
