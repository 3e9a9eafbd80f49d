"""``NegativeBinomial(total_count, probs=None, logits=None)``: the number of successes
before ``total_count`` failures in Bernoulli trials of success probability p."""

from __future__ import annotations

from typing import Any

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import BinaryProbs, broadcast_all, lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(BinaryProbs, Distribution):
    """Negative binomial distributions of r = ``total_count`` (real, >= 0) and success
    probability p (``probs``, or ``logits`` log(p/(1 - p))): P(k) = C(k + r - 1, k)
    p^k (1 - p)^r. ``sample`` draws a Poisson of a Gamma(r, (1 - p)/p) rate."""

    arg_constraints = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(
        self,
        total_count: Any,
        probs: Any = None,
        logits: Any = None,
        validate_args: Any = None,
    ) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    @property
    def param_shape(self) -> Any:
        return self._param.size()

    @property
    def mean(self) -> Any:
        """r p/(1 - p)"""
        return self.total_count * self.logits.exp()

    @property
    def mode(self) -> Any:
        """⌊(r - 1) p/(1 - p)⌋, at least 0"""
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Any:
        """r p/(1 - p)²"""
        return self.mean / (-self.logits).sigmoid()

    @lazy_property
    def _gamma(self) -> Gamma:
        return Gamma(self.total_count, (-self.logits).exp(), validate_args=False)

    def sample(self, sample_shape: Any = ()) -> Any:
        from .. import no_grad, poisson

        with no_grad():
            rate = self._gamma.sample(sample_shape)
            return poisson(rate)

    def log_prob(self, value: Any) -> Any:
        """r log(1 - p) + k log p - log Γ(r + k) + log Γ(1 + k) + log Γ(r) (0 where r + k = 0)"""
        from ..nn.functional import logsigmoid

        if self._validate_args:
            self._validate_sample(value)
        r = self.total_count
        unnormalized = r * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        normalization = -(r + value).lgamma() + (1.0 + value).lgamma() + r.lgamma()
        normalization = normalization.masked_fill(r + value == 0.0, 0.0)
        return unnormalized - normalization
