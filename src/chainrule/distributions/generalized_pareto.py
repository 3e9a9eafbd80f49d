"""``GeneralizedPareto(loc, scale, concentration)``: the generalized Pareto law of location
μ, scale σ and shape ξ, survival function (1 + ξ(x - μ)/σ)^(-1/ξ) (e^(-(x-μ)/σ) at ξ = 0),
on [μ, ∞) for ξ >= 0 and [μ, μ - σ/ξ] for ξ < 0."""

from __future__ import annotations

from typing import Any

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """Generalized Pareto distributions: density (1/σ)(1 + ξz)^(-1/ξ - 1), z = (x - μ)/σ
    (e^(-z)/σ at ξ = 0, where |ξ| <= 1e-8 counts as 0, as ``isclose`` has it);
    ``rsample`` is ``icdf`` of a uniform draw. Its mean (nan for ξ >= 1) and variance (nan
    for ξ >= 1/2) are PyTorch's.

    Unlike PyTorch's (whose ``log_prob``, ``cdf`` and ``log_survival_function`` compare
    the concentration with a float32 zero and so fail on float64 parameters unless the
    default dtype is float64), these work in the parameters' own dtype."""

    arg_constraints = {
        "loc": constraints.real,
        "scale": constraints.positive,
        "concentration": constraints.real,
    }
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, concentration: Any, validate_args: Any = None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(self.loc.size(), validate_args=validate_args)

    def _zero_and_safe_concentration(self) -> tuple:
        """Where ξ counts as 0, and ξ with those entries replaced by 1 (so that no branch of
        a ``where`` divides by 0)."""
        from .. import isclose, ones_like, where, zeros_like

        xi = self.concentration
        eq_zero = isclose(xi, zeros_like(xi))
        return eq_zero, where(eq_zero, ones_like(xi), xi)

    def _z(self, value: Any) -> Any:
        return (value - self.loc) / self.scale

    def rsample(self, sample_shape: Any = ()) -> Any:
        from .. import rand

        shape = self._extended_shape(sample_shape)
        return self.icdf(rand(shape, dtype=self.loc.dtype, device=self.loc.device))

    def log_prob(self, value: Any) -> Any:
        """-log σ - (1/ξ + 1) log(1 + ξz), -log σ - z at ξ = 0"""
        from .. import ones_like, where

        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, xi = self._zero_and_safe_concentration()
        y = 1 / xi + ones_like(z)
        nonzero = where(y == 0, y, y * (xi * z).log1p())  # (ξ = -1: uniform, y log(..) = 0)
        return -self.scale.log() - where(eq_zero, z, nonzero)

    def log_survival_function(self, value: Any) -> Any:
        """log P(X > x) = -log(1 + ξz)/ξ, -z at ξ = 0"""
        from .. import where

        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, xi = self._zero_and_safe_concentration()
        return where(eq_zero, -z, -(xi * z).log1p() / xi)

    def log_cdf(self, value: Any) -> Any:
        """log(1 - P(X > x))"""
        return (-self.log_survival_function(value).exp()).log1p()

    def cdf(self, value: Any) -> Any:
        """1 - (1 + ξz)^(-1/ξ)"""
        return self.log_cdf(value).exp()

    def icdf(self, value: Any) -> Any:
        """μ + σ ((1 - u)^(-ξ) - 1)/ξ, μ - σ log(1 - u) at ξ = 0"""
        from .. import where

        eq_zero, xi = self._zero_and_safe_concentration()
        log1mu = (-value).log1p()
        nonzero = self.loc + self.scale / xi * (-xi * log1mu).expm1()
        return where(eq_zero, self.loc - self.scale * log1mu, nonzero)

    @property
    def mean(self) -> Any:
        """μ + σ/(1 - ξ)"""
        from .. import where

        valid = self.concentration < 1
        xi = where(valid, self.concentration, 0.5)
        return where(valid, self.loc + self.scale / (1 - xi), float("nan"))

    @property
    def variance(self) -> Any:
        """σ²/((1 - ξ)² (1 - 2ξ))"""
        from .. import where

        valid = self.concentration < 0.5
        xi = where(valid, self.concentration, 0.25)
        return where(valid, self.scale**2 / ((1 - xi) ** 2 * (1 - 2 * xi)), float("nan"))

    @property
    def mode(self) -> Any:
        return self.loc

    def entropy(self) -> Any:
        """log σ + ξ + 1"""
        from .. import broadcast_to

        return broadcast_to(self.scale.log() + self.concentration + 1, self._batch_shape)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        """[μ, μ - σ/ξ] where ξ < 0, [μ, ∞) elsewhere"""
        from .. import where

        lower = self.loc
        upper = where(self.concentration < 0, lower - self.scale / self.concentration, float("inf"))
        return constraints.interval(lower, upper)
