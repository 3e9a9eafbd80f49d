"""``LKJCholesky(dim, concentration)``: the LKJ law over lower Cholesky factors L of
dim x dim correlation matrices, the correlation matrix L Lᵀ having density ∝ det(L Lᵀ)^(η-1)
(uniform at η = 1); sampled by the onion method (Lewandowski, Kurowicka and Joe, 2009)."""

from __future__ import annotations

import math
from typing import Any

from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """LKJ distributions of Cholesky factors, of shape η (``concentration``): on the factor,
    log p(L) = Σ_{i=2..d} (2(η - 1) + d - i) log L_ii - log c(d, η), with
    log c = (d-1)/2 log π + log Γ_{d-1}(η + (d-2)/2) - (d-1) log Γ(η + (d-1)/2).

    ``sample`` grows the factor row by row (the onion method): row i (from 1) is
    √y_i u_i + √(1 - y_i) e_i, u_i uniform on the unit sphere of the first i - 1
    coordinates, y_i ~ Beta((i - 1)/2, η + (d - 2)/2 - (i - 2)/2) (``_beta``, whose first
    entry belongs to the first row and is unused). No ``rsample``, as in PyTorch.

    Unlike PyTorch's, whose first Beta concentrations grow by 1 a row where the onion method
    has 1/2 (so that for d >= 3 its samples' correlations, but the first, are not LKJ's,
    whose every off-diagonal correlation r has (r + 1)/2 ~ Beta(η - 1 + d/2, η - 1 + d/2)),
    the samples here follow the density of ``log_prob``.
    ``sample_method`` is not taken: PyTorch's LKJCholesky has only the onion method.
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim: int, concentration: Any = 1.0, validate_args: Any = None) -> None:
        from .. import arange, cat

        if dim < 2:
            raise ValueError(
                f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}."
            )
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        c = self.concentration
        marginal = c + 0.5 * (dim - 2)
        offset = arange(dim - 1, dtype=c.dtype, device=c.device)
        offset = cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(0.5 * offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(c.size(), (dim, dim), validate_args)

    def sample(self, sample_shape: Any = ()) -> Any:
        from .. import arange, diag_embed, finfo, randn, where

        y = self._beta.sample(sample_shape).unsqueeze(-1)
        u = randn(self._extended_shape(sample_shape), dtype=y.dtype, device=y.device).tril(-1)
        norm = u.norm(dim=-1, keepdim=True)
        # the first row has no entries below the diagonal: its direction is 0, not 0/0
        first = (arange(self.dim, device=u.device) == 0).unsqueeze(-1)
        direction = where(first, 0.0, u / where(first, 1.0, norm))
        w = y.sqrt() * direction
        diag = (1 - w.pow(2).sum(-1)).clamp(min=finfo(w.dtype).tiny).sqrt()
        return w + diag_embed(diag)

    def log_prob(self, value: Any) -> Any:
        """Σ_{i=2..d} (2(η - 1) + d - i) log L_ii - log c(d, η)"""
        from .. import arange, mvlgamma

        if self._validate_args:
            self._validate_sample(value)
        diag = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = (order * diag.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        log_norm = 0.5 * dm1 * math.log(math.pi) + mvlgamma(alpha - 0.5, dm1) - alpha.lgamma() * dm1
        return unnormalized - log_norm
