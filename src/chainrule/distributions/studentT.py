"""``StudentT(df, loc=0, scale=1)``: Student's t distribution of ``df`` degrees of freedom,
shifted by ``loc`` and scaled by ``scale``."""

from __future__ import annotations

import math
from typing import Any

from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t of ν = ``df`` degrees of freedom, location μ and scale σ; ``rsample``
    is μ + σ X/√(Z/ν), X ~ N(0, 1), Z ~ χ²(ν) (``_chi2``, reparameterized), so it is
    differentiable in all three."""

    arg_constraints = {
        "df": constraints.positive,
        "loc": constraints.real,
        "scale": constraints.positive,
    }
    support = constraints.real
    has_rsample = True

    def __init__(self, df: Any, loc: Any = 0.0, scale: Any = 1.0, validate_args: Any = None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    @property
    def mean(self) -> Any:
        """μ, nan where ν <= 1"""
        return self.loc.masked_fill(self.df <= 1, math.nan)

    @property
    def mode(self) -> Any:
        return self.loc

    @property
    def variance(self) -> Any:
        """σ² ν/(ν - 2) for ν > 2, inf for 1 < ν <= 2, nan for ν <= 1"""
        finite = self.df > 2
        df = self.df.where(finite, 3.0)  # (a stand-in where the formula does not apply)
        value = self.scale.pow(2) * df / (df - 2)
        value = value.masked_fill((self.df <= 2) & (self.df > 1), math.inf)
        return value.masked_fill(self.df <= 1, math.nan)

    def rsample(self, sample_shape: Any = ()) -> Any:
        from .. import randn

        shape = self._extended_shape(sample_shape)
        x = randn(shape, dtype=self.df.dtype, device=self.df.device)
        z = self._chi2.rsample(sample_shape)
        y = x * (z / self.df).rsqrt()
        return self.loc + self.scale * y

    def log_prob(self, value: Any) -> Any:
        """-(ν + 1)/2 log(1 + y²/ν) - log σ - log(ν π)/2 - log Γ(ν/2) + log Γ((ν + 1)/2),
        y = (x - μ)/σ"""
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        norm = (
            self.scale.log()
            + 0.5 * self.df.log()
            + 0.5 * math.log(math.pi)
            + (0.5 * self.df).lgamma()
            - (0.5 * (self.df + 1.0)).lgamma()
        )
        return -0.5 * (self.df + 1.0) * (y**2.0 / self.df).log1p() - norm

    def entropy(self) -> Any:
        """log σ + (ν + 1)/2 (ψ((ν + 1)/2) - ψ(ν/2)) + log(ν)/2 + log B(ν/2, 1/2)"""
        df = self.df
        lbeta = (0.5 * df).lgamma() + math.lgamma(0.5) - (0.5 * (df + 1)).lgamma()
        return (
            self.scale.log()
            + 0.5 * (df + 1) * ((0.5 * (df + 1)).digamma() - (0.5 * df).digamma())
            + 0.5 * df.log()
            + lbeta
        )
