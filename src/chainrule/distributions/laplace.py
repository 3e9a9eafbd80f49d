"""``Laplace(loc, scale)``: density e^(-|x - μ|/b)/(2b)."""

from __future__ import annotations

import math
from typing import Any

from .distribution import _LocationScale

__all__ = ["Laplace"]


class Laplace(_LocationScale):
    """Laplace distributions of location μ and scale b; ``rsample`` is
    μ - b sign(u) log(1 - |u|), u uniform on (-1, 1)."""

    @property
    def variance(self) -> Any:
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Any:
        return math.sqrt(2) * self.scale

    def rsample(self, sample_shape: Any = ()) -> Any:
        from .. import empty, finfo

        shape = self._extended_shape(sample_shape)
        eps = finfo(self.loc.dtype).eps
        u = empty(shape, dtype=self.loc.dtype, device=self.loc.device).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value: Any) -> Any:
        """-log(2b) - |x - μ|/b"""
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value: Any) -> Any:
        """1/2 - sign(x - μ)(e^(-|x - μ|/b) - 1)/2"""
        if self._validate_args:
            self._validate_sample(value)
        d = value - self.loc
        return 0.5 - 0.5 * d.sign() * (-d.abs() / self.scale).expm1()

    def icdf(self, value: Any) -> Any:
        """μ - b sign(p - 1/2) log(1 - 2|p - 1/2|)"""
        term = value - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()

    def entropy(self) -> Any:
        """1 + log(2b)"""
        return 1 + (2 * self.scale).log()
