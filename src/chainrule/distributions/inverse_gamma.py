"""``InverseGamma(concentration, rate)``: the law of 1/X for X ~ Gamma(α, β), density
β^α x^(-α-1) e^(-β/x)/Γ(α) on x > 0."""

from __future__ import annotations

from typing import Any

from . import constraints
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    """Inverse gamma distributions of shape α (``concentration``) and rate β (``rate``), a
    Gamma(α, β) pushed through x -> x^(-1); ``rsample`` is 1/G, reparameterized through
    the gamma draw. The mean β/(α - 1) is inf for α <= 1, the variance
    β²/((α - 1)²(α - 2)) inf for α <= 2, as in PyTorch."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration: Any, rate: Any, validate_args: Any = None) -> None:
        base = Gamma(concentration, rate, validate_args=validate_args)
        minus_one = -base.rate.new_ones(())
        super().__init__(base, PowerTransform(minus_one), validate_args=validate_args)

    @property
    def concentration(self) -> Any:
        return self.base_dist.concentration

    @property
    def rate(self) -> Any:
        return self.base_dist.rate

    @property
    def mean(self) -> Any:
        from .. import where

        return where(self.concentration > 1, self.rate / (self.concentration - 1), float("inf"))

    @property
    def mode(self) -> Any:
        """β/(α + 1)"""
        return self.rate / (self.concentration + 1)

    @property
    def variance(self) -> Any:
        from .. import where

        a = self.concentration
        result = self.rate.square() / ((a - 1).square() * (a - 2))
        return where(a > 2, result, float("inf"))

    def entropy(self) -> Any:
        """α + log β + log Γ(α) - (1 + α) ψ(α)"""
        a = self.concentration
        return a + self.rate.log() + a.lgamma() - (1 + a) * a.digamma()
