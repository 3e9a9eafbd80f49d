"""``torch._weight_norm`` and ``torch.norm_except_dim``: weight normalization w = g·v/‖v‖,
the norm over every dim of v but ``dim``. Where ``dim`` is the first or the last dim, one op
(``WeightNormInterfaceBackward0``, as PyTorch's fused kernel); otherwise composed as PyTorch
composes it, v·(g/norm_except_dim(v)) (``MulBackward0``); ``dim=-1`` is the norm over all."""

from __future__ import annotations

from ..._tensor import Tensor, _wrap_dim
from ...ops import normalizations, reductions, unary


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """‖v‖_pow over every dim but ``dim``, dims kept (``dim=-1``: over all dims, a 0-d
    tensor)."""
    if dim == -1:
        return reductions.vector_norm(v, ord=pow)
    dim = _wrap_dim(dim, v.ndim)
    others = tuple(i for i in range(v.ndim) if i != dim)
    if not others:  # a 1-d v: the norm of each entry alone
        return unary.abs(v)
    return reductions.vector_norm(v, ord=pow, dim=others, keepdim=True)


def weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """g·v/‖v‖ (PyTorch's ``torch._weight_norm``)."""
    _wrap_dim(dim, v.ndim)
    if dim == 0 or dim == v.ndim - 1:
        return normalizations.weight_norm_interface(v, g, dim=dim)
    return v * (g / norm_except_dim(v, 2, dim))
