"""``Kumaraswamy(concentration1, concentration0)``: density a b x^(a-1) (1 - x^a)^(b-1)
on (0, 1)."""

from __future__ import annotations

import math
from typing import Any

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all, euler_constant

__all__ = ["Kumaraswamy"]


def _moment(a: Any, b: Any, n: int) -> Any:
    """E[X^n] = b B(1 + n/a, b) = b Γ(1 + n/a) Γ(b)/Γ(1 + n/a + b)"""
    arg = 1 + n / a
    return b * (arg.lgamma() + b.lgamma() - (arg + b).lgamma()).exp()


class Kumaraswamy(TransformedDistribution):
    """Kumaraswamy distributions of concentrations a (``concentration1``) and b
    (``concentration0``): (1 - U^(1/b))^(1/a), U ~ U(0, 1); ``rsample`` differentiable in
    both."""

    arg_constraints = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval  # type: ignore[assignment]
    has_rsample = True  # type: ignore[assignment]

    def __init__(self, concentration1: Any, concentration0: Any, validate_args: Any = None):
        from .. import full_like

        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base = Uniform(
            full_like(self.concentration0, 0),
            full_like(self.concentration0, 1),
            validate_args=validate_args,
        )
        transforms = [
            PowerTransform(exponent=self.concentration0.reciprocal()),
            AffineTransform(loc=1.0, scale=-1.0),
            PowerTransform(exponent=self.concentration1.reciprocal()),
        ]
        super().__init__(base, transforms, validate_args=validate_args)

    @property
    def mean(self) -> Any:
        return _moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self) -> Any:
        """((a - 1)/(a b - 1))^(1/a), nan where a < 1 or b < 1"""
        from .. import where

        a, b = self.concentration1, self.concentration0
        log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
        return where((b < 1) | (a < 1), math.nan, log_mode).exp()

    @property
    def variance(self) -> Any:
        return _moment(self.concentration1, self.concentration0, 2) - self.mean.pow(2)

    def entropy(self) -> Any:
        """(1 - 1/b) + (1 - 1/a) H_b - log a - log b, H_b = ψ(b + 1) + γ"""
        a, b = self.concentration1, self.concentration0
        harmonic = (b + 1).digamma() + euler_constant
        return (1 - b.reciprocal()) + (1 - a.reciprocal()) * harmonic - a.log() - b.log()
