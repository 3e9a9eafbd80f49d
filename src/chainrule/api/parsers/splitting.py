"""PyTorch's splitting and reordering names that are compositions of slicing, ``split``,
``reshape``, ``flip`` and ``transpose``: ``tensor_split`` and ``hsplit``/``vsplit``/
``dsplit`` (slices along a dim, each a view with ``SliceBackward0``), ``split_with_sizes``,
``ravel``, ``fliplr``/``flipud``, ``adjoint`` and the ``mT``/``mH``/``H`` properties."""

from __future__ import annotations

import operator
import warnings
from collections.abc import Sequence
from typing import Any

from ..._tensor import Tensor
from ...ops import complex_parts, joining, shapes
from .shapes import _dim, contiguous, split, transpose

_ANY = object()  # (a keyword not given)


def _pieces(input: Tensor, d: int, bounds: Sequence[int]) -> tuple[Tensor, ...]:
    """input cut along dim ``d`` at ``bounds``: Python slices [0:b0], [b0:b1], ..., [bk:]
    (negative bounds wrap, bounds past the end clamp), each a view."""
    n = input._data.shape[d]
    pieces = []
    for s, e in zip((None, *bounds), (*bounds, None)):
        start, stop, _ = slice(s, e).indices(n)
        pieces.append(shapes.narrow(input, dim=d, start=start, length=max(stop - start, 0)))
    return tuple(pieces)


def _bounds_of_sections(n: int, sections: int) -> list[int]:
    """Where ``sections`` near-equal pieces of ``n`` end: the first ``n % sections`` pieces
    get one element more."""
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
    q, r = divmod(n, sections)
    bounds, at = [], 0
    for i in range(sections - 1):
        at += q + (i < r)
        bounds.append(at)
    return bounds


def tensor_split(
    input: Tensor,
    indices_or_sections: Any = _ANY,
    dim: int = 0,
    *,
    sections: Any = _ANY,
    indices: Any = _ANY,
    tensor_indices_or_sections: Any = _ANY,
) -> tuple[Tensor, ...]:
    """input split along ``dim`` into ``sections`` near-equal pieces, or at ``indices``
    (a list, or a 0-d/1-d long tensor): views of input."""
    given = [a for a in (indices_or_sections, sections, indices, tensor_indices_or_sections)
             if a is not _ANY]  # fmt: skip
    if len(given) != 1:
        raise TypeError("tensor_split() missing required argument 'indices_or_sections'")
    arg = given[0]
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    d = _dim(dim, nd)
    if isinstance(arg, Tensor):
        if arg._dtype.name != "int64":
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to have dtype of long, but "
                f"got {arg._dtype.scalar_name}"
            )
        if arg._data.ndim > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                f"one-dimensional tensor, but got a tensor with {arg._data.ndim} dims"
            )
        arg = int(arg._data) if arg._data.ndim == 0 else [int(i) for i in arg._data]
    if isinstance(arg, (list, tuple)):
        return _pieces(input, d, [operator.index(i) for i in arg])
    return _pieces(input, d, _bounds_of_sections(input._data.shape[d], operator.index(arg)))


def _split_at(name: str, input: Tensor, arg: Any, d: int, min_dims: int) -> tuple[Tensor, ...]:
    """hsplit/vsplit/dsplit: tensor_split along ``d``, sections that must divide evenly."""
    nd = input._data.ndim
    if nd < min_dims:
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a "
            f"tensor with {nd} dimensions!"
        )
    if isinstance(arg, Tensor) or not isinstance(arg, (int, list, tuple)):
        kind = type(arg).__name__
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got (Tensor, {kind}), but "
            f"expected one of:\n * (Tensor input, int sections)\n      didn't match because "
            f"some of the arguments have invalid types: (Tensor, !{kind}!)\n * (Tensor input, "
            f"tuple of ints indices)\n      didn't match because some of the arguments have "
            f"invalid types: (Tensor, !{kind}!)\n"
        )
    if isinstance(arg, int):
        size = input._data.shape[d]
        if arg == 0 or size % arg:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {d}, but the size of the "
                f"dimension {size} is not divisible by the split_size {arg}!"
            )
    return tensor_split(input, arg, d)


def hsplit(input: Tensor, indices_or_sections: int | Sequence[int]) -> tuple[Tensor, ...]:
    """tensor_split along dim 1 (dim 0 of a 1-d tensor), in equal sections or at indices."""
    d = 1 if input._data.ndim > 1 else 0
    return _split_at("hsplit", input, indices_or_sections, d, 1)


def vsplit(input: Tensor, indices_or_sections: int | Sequence[int]) -> tuple[Tensor, ...]:
    """tensor_split along dim 0 of a tensor of at least 2 dims."""
    return _split_at("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input: Tensor, indices_or_sections: int | Sequence[int]) -> tuple[Tensor, ...]:
    """tensor_split along dim 2 of a tensor of at least 3 dims."""
    return _split_at("dsplit", input, indices_or_sections, 2, 3)


def split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    """input cut along ``dim`` into pieces of ``split_sizes`` (which sum to its size)."""
    sizes = [operator.index(s) for s in split_sizes]
    if any(s < 0 for s in sizes):
        raise RuntimeError(
            "split_with_sizes expects split_sizes have only non-negative entries, but got "
            f"split_sizes={sizes}"
        )
    return split(input, sizes, dim)


def ravel(input: Tensor) -> Tensor:
    """input flattened to one dim: a view when its memory allows, else a copy."""
    if not input._data.flags.c_contiguous:  # PyTorch: contiguous() (a clone), then a view
        input = contiguous(input)
    return shapes.view(input, shape=(input._data.size,))


def fliplr(input: Tensor) -> Tensor:
    """input with the order of its columns (dim 1) reversed."""
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return joining.flip(input, dims=(1,))


def flipud(input: Tensor) -> Tensor:
    """input with the order of its rows (dim 0) reversed."""
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return joining.flip(input, dims=(0,))


def _matrices(input: Tensor, what: str) -> bool:
    """Whether input has matrices; PyTorch's error for a 1-d input, its deprecation
    warning for a 0-d one (where the transposes are the identity)."""
    nd = input._data.ndim
    if nd == 0:
        hint = "This function is the identity in these cases."
        if what != "mT":
            hint = "Consider using x.conj()."
        name = what if what.endswith(")") else f"Tensor.{what}"
        warnings.warn(f"{name} is deprecated on 0-D tensors. {hint}", UserWarning, stacklevel=3)
        return False
    if nd < 2:
        raise RuntimeError(
            f"tensor.{what} is only supported on matrices or batches of matrices. Got {nd}-D "
            "tensor."
        )
    return True


def _conj(t: Tensor) -> Tensor:
    """t's conjugates for a complex t (computed: chainrule has no lazy conjugate view);
    a real t itself."""
    return complex_parts.conj_physical(t) if t._dtype._category == 3 else t


def adjoint(input: Tensor) -> Tensor:
    """The conjugate transpose of the last two dims (real tensors: their transpose), a view."""
    if not _matrices(input, "adjoint()"):
        return _conj(input)
    return _conj(transpose(input, -2, -1))


def mT(self: Tensor) -> Tensor:  # noqa: N802 - PyTorch's name
    """The transpose of the last two dims, a view."""
    if not _matrices(self, "mT"):
        return self
    return transpose(self, -2, -1)


def mH(self: Tensor) -> Tensor:  # noqa: N802
    """The conjugate transpose of the last two dims (real tensors: mT), a view."""
    if not _matrices(self, "mH"):
        return _conj(self)
    return _conj(transpose(self, -2, -1))


def H(self: Tensor) -> Tensor:  # noqa: N802
    """The conjugate transpose of a matrix (real tensors: its transpose), a view."""
    nd = self._data.ndim
    if nd == 2:
        return _conj(transpose(self, 0, 1))
    if nd == 0:
        warnings.warn(
            "Tensor.H is deprecated on 0-D tensors. Consider using x.conj().",
            UserWarning,
            stacklevel=2,
        )
        return self
    tail = " For batches of matrices, consider using tensor.mH" if nd > 2 else ""
    raise RuntimeError(
        f"tensor.H is only supported on matrices (2-D tensors). Got {nd}-D tensor.{tail}"
    )
