"""``Binomial(total_count=1, probs=None, logits=None)``: the number of successes in n
independent trials of success probability p, C(n, k) p^k (1 - p)^(n - k)."""

from __future__ import annotations

from typing import Any

from . import constraints
from .distribution import Distribution
from .kl import register_kl
from .utils import BinaryProbs, broadcast_all

__all__ = ["Binomial"]


def _relu_half_at_zero(x: Any) -> Any:
    """max(x, 0) as (x + |x|)/2, whose derivative at x = 0 is 1/2 (PyTorch's choice)"""
    return (x + x.abs()) / 2


class Binomial(BinaryProbs, Distribution):
    """Binomial distributions of ``total_count`` n trials (a tensor broadcast with the
    probabilities, of their dtype) and success ``probs`` p or ``logits`` log(p/(1 - p)).
    ``entropy`` and ``enumerate_support`` sum over {0, ..., n} and so need one n for the
    whole batch."""

    arg_constraints = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(
        self,
        total_count: Any = 1,
        probs: Any = None,
        logits: Any = None,
        validate_args: Any = None,
    ) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            total_count, self.probs = broadcast_all(total_count, probs)
            self._param = self.probs
        else:
            total_count, self.logits = broadcast_all(total_count, logits)
            self._param = self.logits
        self.total_count = total_count.type_as(self._param)
        super().__init__(self._param.size(), validate_args=validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.integer_interval(0, self.total_count)

    @property
    def param_shape(self) -> Any:
        return self._param.size()

    @property
    def mean(self) -> Any:
        return self.total_count * self.probs

    @property
    def mode(self) -> Any:
        """⌊(n + 1) p⌋, at most n"""
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Any:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Any:
        from .. import binomial, no_grad

        shape = self._extended_shape(sample_shape)
        with no_grad():
            return binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value: Any) -> Any:
        """k·logit - log k! - log (n - k)! - (n log(1 + e^logit) - log n!), the
        softplus as max(logit, 0) + log1p(e^-|logit|) so that no exponential overflows"""
        if self._validate_args:
            self._validate_sample(value)
        n, logits = self.total_count, self.logits
        # (n - k first: a value not broadcastable with the batch fails as in PyTorch)
        log_factorial_k, log_factorial_nmk = (value + 1).lgamma(), (n - value + 1).lgamma()
        log_normalizer = (
            n * _relu_half_at_zero(logits) + n * (-logits.abs()).exp().log1p() - (n + 1).lgamma()
        )
        return value * logits - log_factorial_k - log_factorial_nmk - log_normalizer

    def entropy(self) -> Any:
        """-Σ_{k=0}^{n} P(k) log P(k)"""
        n = self._homogeneous_total_count("entropy")
        log_pmf = self.log_prob(self._support_values(n))
        return -(log_pmf.exp() * log_pmf).sum(0)

    def enumerate_support(self, expand: bool = True) -> Any:
        values = self._support_values(self._homogeneous_total_count("enumerate_support"))
        return values.expand((-1, *self._batch_shape)) if expand else values

    def _homogeneous_total_count(self, what: str) -> int:
        n = int(self.total_count.max())
        if not self.total_count.min() == n:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return n

    def _support_values(self, n: int) -> Any:
        """0, ..., n along a new leading dim, broadcastable with the batch"""
        from .. import arange

        values = arange(1 + n, dtype=self._param.dtype, device=self._param.device)
        return values.view((-1,) + (1,) * len(self._batch_shape))


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p: Binomial, q: Binomial) -> Any:
    """n (p log(p/q) + (1 - p) log((1 - p)/(1 - q))) for equal n; inf where n_p > n_q
    (p reaches counts q cannot); n_p < n_q is not implemented"""
    if (p.total_count < q.total_count).any():
        raise NotImplementedError(
            "KL between Binomials where q.total_count > p.total_count is not implemented"
        )
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    return kl.masked_fill(p.total_count > q.total_count, float("inf"))
