"""``HalfNormal(scale)``: |X| for X ~ Normal(0, scale), density 2 N(x; 0, σ) on x >= 0."""

from __future__ import annotations

import math
from typing import Any

from . import constraints
from .kl import _kl_normal_normal, register_kl
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfNormal"]


class HalfNormal(TransformedDistribution):
    """Half-normal distributions: the absolute value of a centred normal of standard
    deviation ``scale``; ``rsample`` is |σ ε|, ε ~ N(0, 1)."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative  # type: ignore[assignment]
    has_rsample = True  # type: ignore[assignment]

    def __init__(self, scale: Any, validate_args: Any = None) -> None:
        base = Normal(0, scale, validate_args=False)
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    @property
    def scale(self) -> Any:
        return self.base_dist.scale

    @property
    def mean(self) -> Any:
        """σ √(2/π)"""
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self) -> Any:
        from .. import zeros_like

        return zeros_like(self.scale)

    @property
    def variance(self) -> Any:
        """σ² (1 - 2/π)"""
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def log_prob(self, value: Any) -> Any:
        """log 2 + log N(x; 0, σ) for x >= 0, -inf below"""
        from .. import where

        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return where(value >= 0, log_prob, -math.inf)

    def cdf(self, value: Any) -> Any:
        """2 Φ(x/σ) - 1"""
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob: Any) -> Any:
        """σ Φ⁻¹((p + 1)/2)"""
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self) -> Any:
        """the normal's entropy - log 2"""
        return self.base_dist.entropy() - math.log(2)


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p: HalfNormal, q: HalfNormal) -> Any:
    """the KL of the two centred normals (the fold doubles both densities alike)"""
    return _kl_normal_normal(p.base_dist, q.base_dist)
