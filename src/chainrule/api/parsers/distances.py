"""``torch.nn.functional``'s distances: pairwise_distance and cosine_similarity, composed
from ops as PyTorch composes them, and pdist (one op, PdistBackward0)."""

from __future__ import annotations

from ..._promotion import result_type
from ..._tensor import Tensor
from ...autograd import grad_mode
from ...ops import distances, reductions, shapes
from .losses import broadcast_shape


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """‖x1 - x2 + eps‖_p over the last dim (x1 and x2 broadcast) (NormBackward1)."""
    if isinstance(p, complex):
        raise TypeError("pairwise_distance(): argument 'p' (position 3) must be float, not complex")
    dim = max(x1.ndim, x2.ndim) - 1
    return reductions.vector_norm(x1 - x2 + eps, ord=p, dim=dim, keepdim=keepdim, variant=1)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """Σ_dim (x1/‖x1‖)(x2/‖x2‖), each norm at least eps (clamped without gradient, as
    PyTorch), x1 and x2 broadcast."""
    common = result_type((x1, x2))
    if not common.is_floating_point:
        raise RuntimeError(
            f"expected common dtype to be floating point, yet common dtype is {common.scalar_name}"
        )
    x1 = x1 if x1.is_floating_point() else x1.to(common)
    x2 = x2 if x2.is_floating_point() else x2.to(common)
    shape = broadcast_shape(tuple(x1.shape), tuple(x2.shape))
    if tuple(x1.shape) != shape:
        x1 = shapes.expand(x1, shape=shape)
    if tuple(x2.shape) != shape:
        x2 = shapes.expand(x2, shape=shape)
    n1 = reductions.vector_norm(x1, ord=2, dim=dim, keepdim=True).clone()
    n2 = reductions.vector_norm(x2, ord=2, dim=dim, keepdim=True).clone()
    with grad_mode.no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return reductions.sum((x1 / n1) * (x2 / n2), dim=dim)


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """‖x_i - x_j‖_p for every pair of rows i < j of a matrix (PdistBackward0)."""
    if isinstance(p, complex):
        raise TypeError("pdist(): argument 'p' (position 2) must be float, not complex")
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return distances.pdist(input, p=float(p))
