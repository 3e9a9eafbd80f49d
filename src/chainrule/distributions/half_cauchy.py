"""``HalfCauchy(scale)``: |X| for X ~ Cauchy(0, scale), density 2/(πγ (1 + (x/γ)²)) on
x >= 0."""

from __future__ import annotations

import math
from typing import Any

from . import constraints
from .cauchy import Cauchy
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfCauchy"]


class HalfCauchy(TransformedDistribution):
    """Half-Cauchy distributions: the absolute value of a centred Cauchy of scale γ. The
    mean is inf and the variance the Cauchy's (inf), as in PyTorch."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative  # type: ignore[assignment]
    has_rsample = True  # type: ignore[assignment]

    def __init__(self, scale: Any, validate_args: Any = None) -> None:
        base = Cauchy(0, scale, validate_args=False)
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    @property
    def scale(self) -> Any:
        return self.base_dist.scale

    @property
    def mean(self) -> Any:
        from .. import full

        shape = self._extended_shape()
        return full(shape, math.inf, dtype=self.scale.dtype, device=self.scale.device)

    @property
    def mode(self) -> Any:
        from .. import zeros_like

        return zeros_like(self.scale)

    @property
    def variance(self) -> Any:
        return self.base_dist.variance

    def log_prob(self, value: Any) -> Any:
        """log 2 + the Cauchy's log density for x >= 0, -inf below"""
        from .. import as_tensor, where

        if self._validate_args:
            self._validate_sample(value)
        value = as_tensor(value, dtype=self.scale.dtype, device=self.scale.device)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return where(value >= 0, log_prob, -math.inf)

    def cdf(self, value: Any) -> Any:
        """(2/π) atan(x/γ)"""
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob: Any) -> Any:
        """γ tan(πp/2)"""
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self) -> Any:
        """log(2π γ)"""
        return self.base_dist.entropy() - math.log(2)
