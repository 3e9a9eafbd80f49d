"""``TransformedDistribution(base, transforms)``: the distribution of f(X), X ~ base, for
bijections f, elementwise or coupling (and reshaping) event dims: log p(y) =
log p_base(f⁻¹(y)) - Σ log |det J| along the way, each term summed over the event dims it
does not couple itself. ``LogNormal`` is one (exp of a normal)."""

from __future__ import annotations

from typing import Any

from . import constraints
from .distribution import Distribution, _size
from .normal import Normal
from .transforms import ComposeTransform, ExpTransform, Transform
from .utils import sum_rightmost

__all__ = ["LogNormal", "TransformedDistribution"]


class TransformedDistribution(Distribution):
    """``base_distribution`` pushed through ``transforms`` (one Transform or a list, applied
    in order). The shapes are PyTorch's: the base is expanded to the batch the
    transforms broadcast it to, base batch dims a transform couples become event dims
    (``Independent``), and of the transformed shape the rightmost
    max(codomain event dims, base event dims + the change in event dims) are the event."""

    arg_constraints: dict = {}

    def __init__(self, base_distribution: Distribution, transforms: Any, validate_args=None):
        from .independent import Independent

        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        base_shape = _size(
            tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        )
        base_event_dim = len(base_distribution.event_shape)
        transform = ComposeTransform(self.transforms)
        if len(base_shape) < transform.domain.event_dim:
            raise ValueError(
                "base_distribution needs to have shape with size at least "
                f"{transform.domain.event_dim}, but got {base_shape}."
            )
        forward_shape = transform.forward_shape(base_shape)
        expanded_base_shape = transform.inverse_shape(forward_shape)
        if tuple(base_shape) != tuple(expanded_base_shape):
            cut = len(expanded_base_shape) - base_event_dim
            base_distribution = base_distribution.expand(expanded_base_shape[:cut])
        reinterpreted = transform.domain.event_dim - base_event_dim
        if reinterpreted > 0:
            base_distribution = Independent(base_distribution, reinterpreted)
        self.base_dist = base_distribution
        change = transform.codomain.event_dim - transform.domain.event_dim
        event_dim = max(transform.codomain.event_dim, base_event_dim + change)
        cut = len(forward_shape) - event_dim
        super().__init__(forward_shape[:cut], forward_shape[cut:], validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        """The base expanded to the batch the transforms pull ``batch_shape`` back to (the
        transforms are shared); a subclass's own parameters of the batch shape (Pareto's
        ``scale``, ...) are expanded with it."""
        from .._tensor import Tensor

        new = _instance if _instance is not None else type(self).__new__(type(self))
        batch_shape = _size(batch_shape)
        shape = _size(tuple(batch_shape) + tuple(self.event_shape))
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        old_batch = tuple(self.batch_shape)
        n = len(old_batch)
        for name, value in self.__dict__.items():
            if name in ("base_dist", "transforms", "_batch_shape", "_event_shape"):
                continue
            if isinstance(value, Tensor) and tuple(value.shape[:n]) == old_batch:
                value = value.expand(tuple(batch_shape) + tuple(value.shape[n:]))
            new.__dict__[name] = value
        new.base_dist = self.base_dist.expand(shape[: len(shape) - len(self.base_dist.event_shape)])
        new.transforms = self.transforms
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        return self.base_dist.has_rsample

    @constraints.dependent_property(is_discrete=False)
    def support(self) -> constraints.Constraint:
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
        """log p_base(x) - Σ_t log |det dt/dx|, x the value pulled back through the
        transforms, each term summed over the event dims beyond the transform's own"""
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self.event_shape)
        log_prob: Any = 0.0
        y = value
        for t in reversed(self.transforms):
            x = t.inv(y)
            event_dim += t.domain.event_dim - t.codomain.event_dim
            log_prob = log_prob - sum_rightmost(
                t.log_abs_det_jacobian(x, y), event_dim - t.domain.event_dim
            )
            y = x
        base = self.base_dist.log_prob(y)
        return log_prob + sum_rightmost(base, event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value: Any) -> Any:
        """``value``, or 1 - ``value`` where the transforms together decrease."""
        sign: Any = 1
        for t in self.transforms:
            sign = sign * t.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value: Any) -> Any:
        """F_base(f⁻¹(y)), flipped where f decreases"""
        for t in reversed(self.transforms):
            value = t.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value: Any) -> Any:
        """f(F_base⁻¹(p)), p flipped where f decreases"""
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for t in self.transforms:
            value = t(value)
        return value


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
