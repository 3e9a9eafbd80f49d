"""``Weibull(scale, concentration)``: density (k/λ)(x/λ)^(k-1) e^(-(x/λ)^k) on x > 0."""

from __future__ import annotations

from typing import Any

from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .utils import broadcast_all, euler_constant

__all__ = ["Weibull"]


class Weibull(TransformedDistribution):
    """Weibull distributions of scale λ and concentration (shape) k: λ E^(1/k),
    E ~ Exponential(1); ``rsample`` differentiable in both."""

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive  # type: ignore[assignment]

    def __init__(self, scale: Any, concentration: Any, validate_args: Any = None) -> None:
        from .. import ones_like

        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(ones_like(self.scale), validate_args=validate_args)
        transforms = [
            PowerTransform(exponent=self.concentration_reciprocal),
            AffineTransform(loc=0, scale=self.scale),
        ]
        super().__init__(base, transforms, validate_args=validate_args)

    @property
    def mean(self) -> Any:
        """λ Γ(1 + 1/k)"""
        return self.scale * (1 + self.concentration_reciprocal).lgamma().exp()

    @property
    def mode(self) -> Any:
        """λ ((k - 1)/k)^(1/k) (nan for k < 1)"""
        k = self.concentration
        return self.scale * ((k - 1) / k) ** k.reciprocal()

    @property
    def variance(self) -> Any:
        """λ² (Γ(1 + 2/k) - Γ(1 + 1/k)²)"""
        r = self.concentration_reciprocal
        return self.scale.pow(2) * ((1 + 2 * r).lgamma().exp() - (2 * (1 + r).lgamma()).exp())

    def entropy(self) -> Any:
        """γ (1 - 1/k) + log(λ/k) + 1"""
        r = self.concentration_reciprocal
        return euler_constant * (1 - r) + (self.scale * r).log() + 1
