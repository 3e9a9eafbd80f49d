"""``renorm`` (each slice's p-norm capped at maxnorm) and the deprecated spellings of
``torch.linalg``'s norms that PyTorch still exports: ``nuclear_norm``, ``frobenius_norm``."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..._tensor import Tensor
from ...ops import reductions
from .linalg import matrix_norm
from .shapes import _dim, _dims


def renorm(
    input: Tensor, p: float, dim: int, maxnorm: float, *, out: Tensor | None = None
) -> Tensor:
    """input with each slice along ``dim`` whose p-norm exceeds maxnorm scaled down to it."""
    for name, value in (("p", p), ("maxnorm", maxnorm)):
        if isinstance(value, complex):
            raise RuntimeError(f"renorm: {name} must be real-valued")
    nd = input._data.ndim
    if nd < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {nd} dimensions")
    d = _dim(dim, nd)
    if not p > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    p = math.inf if p == math.inf else float(p)
    return reductions.renorm(input, p=p, dim=d, maxnorm=float(maxnorm))


def nuclear_norm(
    input: Tensor,
    dim: Sequence[int] | bool | None = None,
    keepdim: bool = False,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The sum of the singular values of the matrices over ``dim`` (the last two)."""
    if isinstance(dim, bool):  # nuclear_norm(input, keepdim)
        dim, keepdim = None, dim
    return matrix_norm(input, "nuc", (-2, -1) if dim is None else tuple(dim), keepdim)


def frobenius_norm(
    input: Tensor,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The 2-norm of the entries over ``dim`` (ATen's norm, NormBackward1)."""
    if dim is None:
        raise TypeError('frobenius_norm() missing 1 required positional arguments: "dim"')
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    dims = _dims(dims, input._data.ndim)
    return reductions.vector_norm(input, ord=2, dim=dims, keepdim=keepdim, variant=1)
