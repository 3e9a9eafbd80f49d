"""``Exponential(rate)``: density λ e^(-λx) on x >= 0."""

from __future__ import annotations

from typing import Any

from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """Exponential distributions of rate λ; ``rsample`` is E/λ with E ~ Exp(1). As an
    exponential family: η = -λ, A(η) = -log(-η), carrier measure 0."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate: Any, validate_args: Any = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.size(), validate_args=validate_args)

    @property
    def mean(self) -> Any:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Any:
        from .. import zeros_like

        return zeros_like(self.rate)

    @property
    def stddev(self) -> Any:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Any:
        return self.rate.pow(-2)

    def rsample(self, sample_shape: Any = ()) -> Any:
        from .. import empty

        shape = self._extended_shape(sample_shape)
        draws = empty(shape, dtype=self.rate.dtype, device=self.rate.device).exponential_()
        return draws / self.rate

    def log_prob(self, value: Any) -> Any:
        """log λ - λx"""
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Any) -> Any:
        """1 - e^(-λx)"""
        if self._validate_args:
            self._validate_sample(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value: Any) -> Any:
        """-log(1 - p)/λ"""
        return -(-value).log1p() / self.rate

    def entropy(self) -> Any:
        """1 - log λ"""
        return 1.0 - self.rate.log()

    @property
    def _natural_params(self) -> tuple:
        return (-self.rate,)

    def _log_normalizer(self, x: Any) -> Any:
        """A(η) = -log(-η)"""
        return -(-x).log()
