"""``_Folded``: |X| for X of a distribution symmetric about 0 with a ``scale`` (the base of
``HalfNormal`` and ``HalfCauchy``): density 2 p(x) on x >= 0, CDF 2F(x) - 1, quantile
F⁻¹((p + 1)/2), entropy H(X) - log 2, mode 0."""

from __future__ import annotations

import math
from typing import Any

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__: list[str] = []


class _Folded(TransformedDistribution):
    """The absolute value of ``base`` (centred, symmetric, with a ``scale``)."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative  # type: ignore[assignment]
    has_rsample = True  # type: ignore[assignment]

    def __init__(self, base: Any, validate_args: Any = None) -> None:
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    @property
    def scale(self) -> Any:
        return self.base_dist.scale

    @property
    def mode(self) -> Any:
        from .. import zeros_like

        return zeros_like(self.scale)

    def log_prob(self, value: Any) -> Any:
        """log 2 + the base's log density for x >= 0, -inf below"""
        from .. import as_tensor, where

        if self._validate_args:
            self._validate_sample(value)
        value = as_tensor(value, dtype=self.scale.dtype, device=self.scale.device)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return where(value >= 0, log_prob, -math.inf)

    def cdf(self, value: Any) -> Any:
        """2F(x) - 1"""
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob: Any) -> Any:
        """F⁻¹((p + 1)/2)"""
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self) -> Any:
        """the base's entropy - log 2"""
        return self.base_dist.entropy() - math.log(2)
