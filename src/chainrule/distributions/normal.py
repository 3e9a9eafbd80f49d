"""``Normal(loc, scale)``: the Gaussian, log p(x) = -(x - μ)²/(2σ²) - log σ - log √(2π)."""

from __future__ import annotations

import math
from typing import Any

from .distribution import _LocationScale
from .exp_family import ExponentialFamily

__all__ = ["Normal"]


class Normal(_LocationScale, ExponentialFamily):
    """Normal (Gaussian) distributions of mean ``loc`` and standard deviation ``scale``;
    ``rsample`` is loc + scale·ε, ε ~ N(0, 1), differentiable in both. As an exponential
    family: η = (μ/σ², -1/(2σ²)), A(η) = -η₁²/(4η₂) + log(-π/η₂)/2, carrier measure 0."""

    _mean_carrier_measure = 0

    @property
    def stddev(self) -> Any:
        return self.scale

    @property
    def variance(self) -> Any:
        return self.scale.pow(2)

    def rsample(self, sample_shape: Any = ()) -> Any:
        from .. import randn

        shape = self._extended_shape(sample_shape)
        eps = randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def sample(self, sample_shape: Any = ()) -> Any:
        from .. import no_grad, normal

        shape = self._extended_shape(sample_shape)
        with no_grad():
            return normal(self.loc.expand(shape), self.scale.expand(shape))

    def log_prob(self, value: Any) -> Any:
        """-(x - μ)²/(2σ²) - log σ - log √(2π)"""
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale**2
        log_scale = self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value: Any) -> Any:
        """(1 + erf((x - μ)/(σ√2)))/2"""
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + ((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)).erf())

    def icdf(self, value: Any) -> Any:
        """μ + σ√2 erfinv(2p - 1)"""
        return self.loc + self.scale * (2 * value - 1).erfinv() * math.sqrt(2)

    def entropy(self) -> Any:
        """1/2 + log(√(2π) σ)"""
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()

    @property
    def _natural_params(self) -> tuple:
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x: Any, y: Any) -> Any:
        """A(η₁, η₂) = -η₁²/(4η₂) + log(-π/η₂)/2"""
        return -0.25 * x.pow(2) / y + 0.5 * (-math.pi / y).log()
