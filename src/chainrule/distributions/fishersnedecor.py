"""``FisherSnedecor(df1, df2)``: the F distribution of d1 and d2 degrees of freedom, the law
of (X1/d1)/(X2/d2) for independent X1 ~ χ²(d1), X2 ~ χ²(d2)."""

from __future__ import annotations

from typing import Any

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import broadcast_all

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """F distributions of ``df1`` = d1 and ``df2`` = d2: density
    Γ((d1+d2)/2)/(Γ(d1/2)Γ(d2/2)) (d1/d2)^(d1/2) x^(d1/2-1) (1 + d1 x/d2)^(-(d1+d2)/2) on
    x > 0. ``rsample`` is G1/G2 with G_i ~ Gamma(d_i/2, d_i) (χ²(d_i)/d_i), reparameterized
    through both gamma draws; the mean (nan for d2 <= 2), mode (nan for d1 <= 2) and
    variance (nan for d2 <= 4) are PyTorch's."""

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1: Any, df2: Any, validate_args: Any = None) -> None:
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        super().__init__(self.df1.size(), validate_args=validate_args)

    @property
    def mean(self) -> Any:
        """d2/(d2 - 2)"""
        from .. import where

        df2 = where(self.df2 > 2, self.df2, float("nan"))
        return df2 / (df2 - 2)

    @property
    def mode(self) -> Any:
        """(d1 - 2)/d1 · d2/(d2 + 2)"""
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        mode[self.df1 <= 2] = float("nan")
        return mode

    @property
    def variance(self) -> Any:
        """2 d2² (d1 + d2 - 2)/(d1 (d2 - 2)² (d2 - 4))"""
        from .. import where

        df2 = where(self.df2 > 4, self.df2, float("nan"))
        return 2 * df2.pow(2) * (self.df1 + df2 - 2) / (self.df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape: Any = ()) -> Any:
        from .. import finfo

        shape = self._extended_shape(sample_shape)
        x1 = self._gamma1.rsample(sample_shape).view(shape)
        x2 = self._gamma2.rsample(sample_shape).view(shape)
        tiny = finfo(x2.dtype).tiny
        return (x1 / x2.clamp(min=tiny)).clamp(min=tiny)

    def log_prob(self, value: Any) -> Any:
        """log Γ((d1+d2)/2) - log Γ(d1/2) - log Γ(d2/2) + (d1/2) log(d1/d2)
        + (d1/2 - 1) log x - ((d1+d2)/2) log(1 + d1 x/d2)"""
        if self._validate_args:
            self._validate_sample(value)
        half1, half2 = self.df1 * 0.5, self.df2 * 0.5
        ratio = self.df1 / self.df2
        t1 = (half1 + half2).lgamma() - half1.lgamma() - half2.lgamma()
        t2 = half1 * ratio.log() + (half1 - 1) * value.log()
        t3 = (half1 + half2) * (ratio * value).log1p()
        return t1 + t2 - t3
