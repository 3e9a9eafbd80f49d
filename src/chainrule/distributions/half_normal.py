"""``HalfNormal(scale)``: |X| for X ~ Normal(0, scale), density 2 N(x; 0, σ) on x >= 0."""

from __future__ import annotations

import math
from typing import Any

from .folded import _Folded
from .kl import _kl_normal_normal, register_kl
from .normal import Normal

__all__ = ["HalfNormal"]


class HalfNormal(_Folded):
    """Half-normal distributions: the absolute value of a centred normal of standard
    deviation ``scale``; ``rsample`` is |σ ε|, ε ~ N(0, 1)."""

    def __init__(self, scale: Any, validate_args: Any = None) -> None:
        super().__init__(Normal(0, scale, validate_args=False), validate_args=validate_args)

    @property
    def mean(self) -> Any:
        """σ √(2/π)"""
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self) -> Any:
        """σ² (1 - 2/π)"""
        return self.scale.pow(2) * (1 - 2 / math.pi)


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p: HalfNormal, q: HalfNormal) -> Any:
    """the KL of the two centred normals (the fold doubles both densities alike)"""
    return _kl_normal_normal(p.base_dist, q.base_dist)
