"""``Cauchy(loc, scale)``: the Lorentz distribution, density 1/(πγ (1 + ((x - x₀)/γ)²))."""

from __future__ import annotations

import math
from typing import Any

from .distribution import _LocationScale
from .kl import register_kl

__all__ = ["Cauchy"]


class Cauchy(_LocationScale):
    """Cauchy distributions of median ``loc`` (x₀) and half width at half maximum
    ``scale`` (γ). It has no moments: ``mean`` is nan and ``variance`` inf, as in PyTorch.
    ``rsample`` is x₀ + γ tan(π(u - 1/2)), u ~ U(0, 1) (its icdf), differentiable in both
    parameters (PyTorch draws through ``Tensor.cauchy_``: the same law, another stream)."""

    @property
    def mean(self) -> Any:
        from .. import full

        shape = self._extended_shape()
        return full(shape, math.nan, dtype=self.loc.dtype, device=self.loc.device)

    @property
    def variance(self) -> Any:
        from .. import full

        shape = self._extended_shape()
        return full(shape, math.inf, dtype=self.loc.dtype, device=self.loc.device)

    def rsample(self, sample_shape: Any = ()) -> Any:
        from .. import empty

        shape = self._extended_shape(sample_shape)
        eps = empty(shape, dtype=self.loc.dtype, device=self.loc.device).cauchy_()
        return self.loc + eps * self.scale  # (PyTorch's draws)

    def log_prob(self, value: Any) -> Any:
        """-log π - log γ - log(1 + ((x - x₀)/γ)²)"""
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - (z**2).log1p()

    def cdf(self, value: Any) -> Any:
        """atan((x - x₀)/γ)/π + 1/2"""
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value: Any) -> Any:
        """x₀ + γ tan(π(p - 1/2))"""
        return (math.pi * (value - 0.5)).tan() * self.scale + self.loc

    def entropy(self) -> Any:
        """log(4π γ)"""
        return math.log(4 * math.pi) + self.scale.log()


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p: Cauchy, q: Cauchy) -> Any:
    """log(((γp + γq)² + (x₀p - x₀q)²)/(4 γp γq))"""
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    return t1 - (4 * p.scale * q.scale).log()
