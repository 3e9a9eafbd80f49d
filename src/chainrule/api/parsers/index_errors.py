"""PyTorch's error for a key that fails, found by walking the key as PyTorch does: first
the ints and slices, one at a time, on a view that grows with each None and bool (an int
names the dim of that view); then the masks, against that view; then the broadcast of
the index tensors; then their values."""

from __future__ import annotations

from typing import Any

import numpy

from ..._backend import is_array, ndarray


def _is_array(p: Any) -> bool:
    return isinstance(p, ndarray) or is_array(p)


def key_error(parts: tuple, shape: tuple) -> IndexError | None:
    """The IndexError PyTorch raises for ``parts`` (a key's parts, as NumPy takes them) on
    a tensor of ``shape``, or None when this walk finds none (the caller's error)."""
    if not shape:
        return None
    used = sum(
        p.ndim if _is_array(p) and p.dtype == bool else 1
        for p in parts
        if p is not None and p is not Ellipsis and not isinstance(p, bool)
    )
    if used > len(shape):
        return IndexError(f"too many indices for tensor of dimension {len(shape)}")
    view: list[int] = []  # the shape PyTorch's basic steps leave
    indices: list[tuple[Any, int]] = []  # (index array or mask, its first dim in view)
    dim = 0
    for i, p in enumerate(parts):
        if p is None:
            view.append(1)
        elif isinstance(p, bool) or _is_array(p) and p.dtype == bool and not p.ndim:
            indices.append((numpy.asarray([bool(p)]), len(view)))
            view.append(1)
        elif p is Ellipsis:
            span = len(shape) - used
            view.extend(shape[dim : dim + span])
            view.extend([0] * (dim + span - len(shape)))  # (a second one: past the end)
            dim += span
        elif dim >= len(shape):  # (after a second Ellipsis)
            if not isinstance(p, slice):
                return None if isinstance(p, int) else _past_the_end(indices, p, view)
            n = len(view)
            return IndexError(
                f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {n})"
            )
        elif isinstance(p, int):  # (PyTorch names the part's place in the key)
            size = shape[dim]
            if not -size <= p < size:
                return IndexError(f"index {p} is out of bounds for dimension {i} with size {size}")
            dim += 1
        elif isinstance(p, slice):
            view.append(len(range(*p.indices(shape[dim]))))
            dim += 1
        else:
            n = p.ndim if p.dtype == bool else 1
            indices.append((p, len(view)))
            view.extend(shape[dim : dim + n])
            dim += n
    view.extend(shape[dim:])
    return _tensor_error(indices, view)


def _past_the_end(indices: list, p: Any, view: list) -> IndexError:
    """PyTorch's error for an index tensor placed past the last dim (by a second Ellipsis)."""
    n = p.ndim if p.dtype == bool else 1
    return IndexError(f"too many indices for tensor of dimension {len(view)} (got {len(view) + n})")


def _tensor_error(indices: list, view: list) -> IndexError | None:
    """PyTorch's error for the index tensors: a mask's shape, their broadcast, their values."""
    arrays, sizes = [], []
    for p, at in indices:
        p = numpy.asarray(p)
        if p.dtype == bool:
            for j, n in enumerate(p.shape):
                if n != view[at + j]:
                    return IndexError(
                        f"The shape of the mask {list(p.shape)} at index {j} does not match "
                        f"the shape of the indexed tensor {view} at index {at + j}"
                    )
            arrays.extend(p.nonzero())
            sizes.extend(view[at : at + p.ndim])
        else:
            arrays.append(p)
            sizes.append(view[at])
    try:
        arrays = numpy.broadcast_arrays(*arrays)
    except ValueError:
        shapes = ", ".join(str(list(a.shape)) for a in arrays)
        return IndexError(
            "shape mismatch: indexing tensors could not be broadcast together with shapes " + shapes
        )
    if any(n == 0 and a.size for a, n in zip(arrays, sizes)):
        return IndexError("index is out of bounds for dimension with size 0")
    covered = {at + j for p, at in indices for j in range(max(numpy.ndim(p), 1))}
    rest = [n for d, n in enumerate(view) if d not in covered]
    if not arrays or not arrays[0].size or not all(rest):  # (no element: no check)
        return None
    flat = numpy.stack([a.reshape(-1) for a in arrays])
    bounds = numpy.asarray(sizes)[:, None]
    bad = (flat < -bounds) | (flat >= bounds)
    if not bad.any():
        return None
    at = int(bad.any(axis=0).argmax())  # (the first element, then the first index tensor)
    k = int(bad[:, at].argmax())
    return IndexError(
        f"index {int(flat[k, at])} is out of bounds for dimension {k} with size {sizes[k]}"
    )
