"""``TransformedDistribution(base, transforms)``: the distribution of f(X), X ~ base, for
elementwise bijections f: log p(y) = log p_base(f⁻¹(y)) - Σ log |df/dx| along the way.
``LogNormal`` is one (exp of a normal)."""

from __future__ import annotations

from typing import Any

from . import constraints
from .distribution import Distribution
from .normal import Normal
from .transforms import ExpTransform, Transform

__all__ = ["LogNormal", "TransformedDistribution"]


class TransformedDistribution(Distribution):
    """``base_distribution`` pushed through ``transforms`` (one Transform or a list, applied
    in order); elementwise transforms only (chainrule's transforms keep event shapes)."""

    arg_constraints: dict = {}

    def __init__(self, base_distribution: Distribution, transforms: Any, validate_args=None):
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        self.base_dist = base_distribution
        super().__init__(
            base_distribution.batch_shape, base_distribution.event_shape, validate_args
        )

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        return self.base_dist.has_rsample

    @property
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self.event_shape) > support.event_dim:
            support = constraints.independent(support, len(self.event_shape) - support.event_dim)
        return support

    def sample(self, sample_shape: Any = ()) -> Any:
        from .. import no_grad

        with no_grad():
            x = self.base_dist.sample(sample_shape)
            for t in self.transforms:
                x = t(x)
            return x

    def rsample(self, sample_shape: Any = ()) -> Any:
        x = self.base_dist.rsample(sample_shape)
        for t in self.transforms:
            x = t(x)
        return x

    def log_prob(self, value: Any) -> Any:
        """log p_base(x) - Σ_t log |dt/dx|, x the value pulled back through the transforms"""
        from .independent import _sum_rightmost

        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self.event_shape)
        log_prob: Any = 0.0
        y = value
        for t in reversed(self.transforms):
            x = t.inv(y)
            log_prob = log_prob - _sum_rightmost(t.log_abs_det_jacobian(x, y), event_dim)
            y = x
        base = self.base_dist.log_prob(y)
        return log_prob + _sum_rightmost(base, event_dim - len(self.base_dist.event_shape))


class LogNormal(TransformedDistribution):
    """e^X for X ~ Normal(loc, scale)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive  # type: ignore[assignment]
    has_rsample = True  # type: ignore[assignment]

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None) -> None:
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(),
                         validate_args=validate_args)  # fmt: skip

    @property
    def loc(self) -> Any:
        return self.base_dist.loc

    @property
    def scale(self) -> Any:
        return self.base_dist.scale

    @property
    def mean(self) -> Any:
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self) -> Any:
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self) -> Any:
        s2 = self.scale.pow(2)
        return s2.expm1() * (2 * self.loc + s2).exp()

    def entropy(self) -> Any:
        """the normal's entropy + μ"""
        return self.base_dist.entropy() + self.loc
