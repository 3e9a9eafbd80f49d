"""``HalfCauchy(scale)``: |X| for X ~ Cauchy(0, scale), density 2/(πγ (1 + (x/γ)²)) on
x >= 0."""

from __future__ import annotations

import math
from typing import Any

from .cauchy import Cauchy
from .folded import _Folded

__all__ = ["HalfCauchy"]


class HalfCauchy(_Folded):
    """Half-Cauchy distributions: the absolute value of a centred Cauchy of scale γ. The
    mean is inf and the variance the Cauchy's (inf), as in PyTorch."""

    def __init__(self, scale: Any, validate_args: Any = None) -> None:
        super().__init__(Cauchy(0, scale, validate_args=False), validate_args=validate_args)

    @property
    def mean(self) -> Any:
        from .. import full

        shape = self._extended_shape()
        return full(shape, math.inf, dtype=self.scale.dtype, device=self.scale.device)

    @property
    def variance(self) -> Any:
        return self.base_dist.variance
