"""``Geometric(probs=None, logits=None)``: the number of failures before the first success
in trials of success probability p, P(k) = (1 - p)^k p for k = 0, 1, 2, ..."""

from __future__ import annotations

from typing import Any

from . import constraints
from .distribution import Distribution
from .kl import register_kl
from .utils import BinaryProbs, broadcast_all

__all__ = ["Geometric"]


class Geometric(BinaryProbs, Distribution):
    """Geometric distributions over {0, 1, 2, ...} given by ``probs`` p in (0, 1] or by
    ``logits`` log(p/(1 - p)): mean (1 - p)/p, variance (1 - p)/p², mode 0. Samples are
    ⌊log u / log(1 - p)⌋ for u uniform on [tiny, 1), the inverse of the CDF."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Any = None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            shape = self.probs.size()
        else:
            (self.logits,) = broadcast_all(logits)
            shape = self.logits.size()
        super().__init__(shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            self._check_positive(self.probs)

    def _check_positive(self, value: Any) -> None:
        """p = 0 is in the unit interval but never succeeds: PyTorch's extra check"""
        valid = value > 0
        if not valid.all():
            raise ValueError(
                f"Expected parameter probs ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) of distribution {self!r} to be positive but found "
                f"invalid values:\n{value.detach()[~valid]}"
            )

    @property
    def mean(self) -> Any:
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Any:
        from .. import zeros_like

        return zeros_like(self.probs)

    @property
    def variance(self) -> Any:
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape: Any = ()) -> Any:
        from .. import empty, finfo, no_grad

        shape = self._extended_shape(sample_shape)
        probs = self.probs
        with no_grad():
            u = empty(shape, dtype=probs.dtype, device=probs.device)
            u = u.uniform_(finfo(probs.dtype).tiny, 1)
            return (u.log() / (-probs).log1p()).floor()

    def log_prob(self, value: Any) -> Any:
        """k log(1 - p) + log p, the first term 0 where k = 0 and p = 1"""
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.masked_fill((probs == 1) & (value == 0), 0)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self) -> Any:
        """H(Bernoulli(p))/p: -(p log p + (1 - p) log(1 - p))/p"""
        from ..nn.functional import binary_cross_entropy_with_logits

        bce = binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
        return bce / self.probs


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p: Geometric, q: Geometric) -> Any:
    """-H(p) - E_p[k] log(1 - q) - log q, written as -H(p) - log(1 - q)/p - logit(q)
    (E_p[k] = 1/p - 1)"""
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits
