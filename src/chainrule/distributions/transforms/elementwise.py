"""Elementwise bijections: exp, powers, sigmoid, softplus, tanh, |x|, affine maps and a
distribution's CDF."""

from __future__ import annotations

import math
from typing import Any

from .. import constraints
from ..utils import lazy_property, sum_rightmost
from .base import Transform, _shape_of

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "PowerTransform",
    "SigmoidTransform",
    "SoftplusTransform",
    "TanhTransform",
]


class ExpTransform(Transform):
    """y = e^x; log |dy/dx| = x."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = 1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExpTransform)

    def _call(self, x: Any) -> Any:
        return x.exp()

    def _inverse(self, y: Any) -> Any:
        return y.log()

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        return x


class PowerTransform(Transform):
    """y = x^k on (0, ∞); log |dy/dx| = log |k y / x|."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent: Any, cache_size: int = 0) -> None:
        from ..utils import broadcast_all

        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @lazy_property
    def sign(self) -> Any:  # type: ignore[override]
        return self.exponent.sign()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PowerTransform) and bool(self.exponent.eq(other.exponent).all())

    def _call(self, x: Any) -> Any:
        return x.pow(self.exponent)

    def _inverse(self, y: Any) -> Any:
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape: Any) -> Any:
        from ... import broadcast_shapes

        return broadcast_shapes(shape, _shape_of(self.exponent))

    inverse_shape = forward_shape


def _clipped_sigmoid(x: Any) -> Any:
    """σ(x) kept inside [tiny, 1 - eps] of its dtype."""
    from ... import finfo

    f = finfo(x.dtype)
    return x.sigmoid().clamp(min=f.tiny, max=1.0 - f.eps)


class SigmoidTransform(Transform):
    """y = σ(x) (kept inside (0, 1)); log |dy/dx| = -softplus(-x) - softplus(x)."""

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = 1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SigmoidTransform)

    def _call(self, x: Any) -> Any:
        return _clipped_sigmoid(x)

    def _inverse(self, y: Any) -> Any:
        from ... import finfo

        f = finfo(y.dtype)
        y = y.clamp(min=f.tiny, max=1.0 - f.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        from ...nn.functional import softplus

        return -softplus(-x) - softplus(x)


class SoftplusTransform(Transform):
    """y = log(1 + e^x) (x itself above 20); x = y + log(1 - e^(-y));
    log |dy/dx| = log σ(x) = -softplus(-x)."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = 1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SoftplusTransform)

    def _call(self, x: Any) -> Any:
        from ...nn.functional import softplus

        return softplus(x)

    def _inverse(self, y: Any) -> Any:
        return (-(-y).expm1()).log() + y

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        from ...nn.functional import softplus

        return -softplus(-x)


class TanhTransform(Transform):
    """y = tanh x; log |dy/dx| = 2 (log 2 - x - softplus(-2x)) (stable for large |x|)."""

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = 1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TanhTransform)

    def _call(self, x: Any) -> Any:
        return x.tanh()

    def _inverse(self, y: Any) -> Any:
        return y.atanh()

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        from ...nn.functional import softplus

        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))


class AbsTransform(Transform):
    """y = |x| (not injective: the inverse gives the nonnegative root, y itself)."""

    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AbsTransform)

    def _call(self, x: Any) -> Any:
        return x.abs()

    def _inverse(self, y: Any) -> Any:
        return y


class AffineTransform(Transform):
    """y = loc + scale·x, elementwise over an event of ``event_dim`` dims;
    log |det J| = Σ over the event of log |scale|."""

    bijective = True

    def __init__(self, loc: Any, scale: Any, event_dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.loc, self.scale = loc, scale
        self._event_dim = event_dim

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self._event_dim

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        if self._event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self._event_dim)

    codomain = domain

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self._event_dim, cache_size=cache_size)

    @property
    def sign(self) -> Any:
        s = self.scale
        if isinstance(s, (int, float)):
            return 1 if s > 0 else -1 if s < 0 else 0
        return s.sign()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AffineTransform):
            return False

        def same(a: Any, b: Any) -> bool:
            if isinstance(a, (int, float)) and isinstance(b, (int, float)):
                return a == b
            return bool((a == b).all())

        return same(self.loc, other.loc) and same(self.scale, other.scale)

    def _call(self, x: Any) -> Any:
        return self.loc + self.scale * x

    def _inverse(self, y: Any) -> Any:
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        from ... import full_like

        shape = tuple(x.shape)
        if isinstance(self.scale, (int, float)):
            result = full_like(x, math.log(abs(self.scale)))
        else:
            result = self.scale.abs().log()
        if self._event_dim:
            result = sum_rightmost(result, self._event_dim)
            shape = shape[: len(shape) - self._event_dim]
        return result.expand(shape)

    def forward_shape(self, shape: Any) -> Any:
        from ... import broadcast_shapes

        return broadcast_shapes(shape, _shape_of(self.loc), _shape_of(self.scale))

    inverse_shape = forward_shape


class CumulativeDistributionTransform(Transform):
    """y = F(x), F the CDF of ``distribution``; log |dy/dx| = log p(x)."""

    bijective = True
    codomain = constraints.unit_interval
    sign = 1

    def __init__(self, distribution: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return self.distribution.support

    def _call(self, x: Any) -> Any:
        return self.distribution.cdf(x)

    def _inverse(self, y: Any) -> Any:
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)


# ----- vectors and matrices ------------------------------------------------------------
