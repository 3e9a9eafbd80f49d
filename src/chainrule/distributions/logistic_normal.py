"""``LogisticNormal(loc, scale)``: the stick-breaking image of a normal vector, a
distribution on the simplex (K normal coordinates give K + 1 probabilities)."""

from __future__ import annotations

from typing import Any

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import StickBreakingTransform

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """X = StickBreakingTransform(Y), Y ~ Normal(loc, scale) over the last dim:
    log(X_k/(1 - Σ_{j<k} X_j)) recovers Y_k shifted by log(K + 1 - k)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex  # type: ignore[assignment]
    has_rsample = True  # type: ignore[assignment]

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None) -> None:
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand([1])
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    @property
    def loc(self) -> Any:
        return self.base_dist.base_dist.loc

    @property
    def scale(self) -> Any:
        return self.base_dist.base_dist.scale
