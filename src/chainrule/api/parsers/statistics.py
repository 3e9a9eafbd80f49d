"""Pairwise distances and second moments, as compositions of differentiable ops with
PyTorch's signatures and errors: cdist (the p-norms of every row difference), cov (the
covariance of the rows' variables, with frequency and analytic weights), corrcoef
(Pearson's correlation coefficients)."""

from __future__ import annotations

from typing import Any

from ... import _dtypes
from ..._tensor import Tensor
from ...amp.policy import runs_in_float32
from ...ops import complex_parts


@runs_in_float32  # (inside a CPU autocast: float32 as a whole, as PyTorch)
def cdist(
    x1: Tensor,
    x2: Tensor,
    p: float = 2.0,
    compute_mode: str = "use_mm_for_euclid_dist_if_necessary",
) -> Tensor:
    """The p-norm distance between each row of x1 and each row of x2 (batched over the
    leading dims, which broadcast): ``out[..., i, j] = ‖x1[..., i, :] - x2[..., j, :]‖_p``.
    At a zero distance the gradient is 0 (the norm's subgradient)."""
    if isinstance(p, complex):
        raise TypeError("cdist(): argument 'p' (position 3) must be float, not complex")
    if x1.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}"
        )
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    for name, t in (("X1", x1), ("X2", x2)):
        if not t.dtype.is_floating_point:
            raise RuntimeError(
                f"cdist only supports floating-point dtypes, {name} got: {t.dtype.scalar_name}"
            )
    from ... import linalg

    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    return linalg.vector_norm(diff, p, dim=-1)


def _check_2d(name: str, input: Tensor) -> None:
    if input.ndim > 2:
        raise RuntimeError(
            f"{name}(): expected input to have two or fewer dimensions but got an input with "
            f"{input.ndim} dimensions"
        )


def cov(
    input: Tensor,
    *,
    correction: int = 1,
    fweights: Tensor | None = None,
    aweights: Tensor | None = None,
) -> Tensor:
    """The covariance matrix of the variables in input's rows (observations in its
    columns; a 1-D input is one variable): Σ wᵢ (xᵢ - x̄)(xᵢ - x̄)ᴴ / (Σ wᵢ - correction·…),
    w the product of the frequency and analytic weights."""
    _check_2d("cov", input)
    x = input.reshape(1, -1) if input.ndim < 2 else input
    if x._dtype._category < 2:  # (floating and complex inputs keep their dtype)
        x = x.to(_dtypes.get_default_dtype())
    n_obs = x.shape[1]
    w = None
    for name, weights in (("fweights", fweights), ("aweights", aweights)):
        if weights is None:
            continue
        if weights.ndim > 1:
            raise RuntimeError(
                f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
                f"{weights.ndim} dimensions"
            )
        if name == "fweights" and weights.dtype.is_floating_point:
            raise RuntimeError(
                "cov(): expected fweights to have integral dtype but got fweights with "
                f"{weights.dtype.scalar_name} dtype"
            )
        if name == "aweights" and not weights.dtype.is_floating_point:
            raise RuntimeError(
                "cov(): expected aweights to have floating point dtype but got aweights with "
                f"{weights.dtype.scalar_name} dtype"
            )
        if weights.numel() != n_obs:
            raise RuntimeError(
                f"cov(): expected {name} to have the same numel as there are observations in "
                f"the input but got {weights.numel()} != {n_obs}"
            )
        if weights.numel() and bool((weights < 0).any()):
            raise RuntimeError(f"cov(): {name} cannot be negative")
        w = weights if w is None else w * weights
    if w is None:
        total: Any = n_obs
        mean = x.mean(1, keepdim=True)
        norm = n_obs - correction
    else:
        total = w.sum()
        mean = (x * w).sum(1, keepdim=True) / total
        if aweights is None or correction == 0:
            norm = total - correction
        else:
            norm = total - correction * (w * aweights).sum() / total
    xm = x - mean
    xw = xm if w is None else xm * w
    c = (xw @ xm.mH) / (norm if not isinstance(norm, (int, float)) else max(norm, 0))
    return c.squeeze() if input.ndim < 2 else c


def corrcoef(input: Tensor) -> Tensor:
    """Pearson's correlation coefficients of the variables in input's rows: the covariance
    divided by both standard deviations, clipped to [-1, 1]."""
    _check_2d("corrcoef", input)
    c = cov(input)
    if c.ndim == 0:
        return c / c
    std = c.diagonal().sqrt()
    c = c / std.unsqueeze(1)
    c = c / std.unsqueeze(0)
    if c._dtype._category == 3:  # each part clipped
        return complex_parts.complex_from_parts(c.real.clip(-1, 1), c.imag.clip(-1, 1))
    return c.clip(-1, 1)
