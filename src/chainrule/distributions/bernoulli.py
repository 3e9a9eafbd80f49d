"""``Bernoulli(probs=None, logits=None)``: 1 with probability p, else 0."""

from __future__ import annotations

from typing import Any

from . import constraints
from .exp_family import ExponentialFamily
from .utils import BinaryProbs, broadcast_all

__all__ = ["Bernoulli"]


def _one_of(probs: Any, logits: Any) -> None:
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


class Bernoulli(BinaryProbs, ExponentialFamily):
    """Bernoulli distributions given by ``probs`` p or by ``logits`` log(p/(1 - p)) (the
    other computed when first read); log p(x) = -BCE(logits, x). As an exponential family:
    η = logit(p), A(η) = log(1 + e^η), carrier measure 0."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Any = None):
        _one_of(probs, logits)
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            shape = self.probs.size()
        else:
            (self.logits,) = broadcast_all(logits)
            shape = self.logits.size()
        super().__init__(shape, validate_args=validate_args)

    @property
    def param_shape(self) -> Any:
        return (self.probs if "probs" in self.__dict__ else self.logits).size()

    @property
    def mean(self) -> Any:
        return self.probs

    @property
    def mode(self) -> Any:
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return mode.masked_fill(self.probs == 0.5, float("nan"))

    @property
    def variance(self) -> Any:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Any:
        from .. import bernoulli, no_grad

        shape = self._extended_shape(sample_shape)
        with no_grad():
            return bernoulli(self.probs.expand(shape))

    def log_prob(self, value: Any) -> Any:
        """x log p + (1 - x) log(1 - p), as -BCE with logits"""
        from ..nn.functional import binary_cross_entropy_with_logits

        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Any:
        """-p log p - (1 - p) log(1 - p)"""
        from ..nn.functional import binary_cross_entropy_with_logits

        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    @property
    def _natural_params(self) -> tuple:
        from .. import logit

        return (logit(self.probs),)

    def _log_normalizer(self, x: Any) -> Any:
        """A(η) = log(1 + e^η)"""
        return x.exp().log1p()

    def enumerate_support(self, expand: bool = True) -> Any:
        from .. import arange

        values = arange(2, dtype=self._param_dtype(), device=self._param_device())
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1, *self._batch_shape)) if expand else values

    def _param_dtype(self) -> Any:
        return (self.probs if "probs" in self.__dict__ else self.logits).dtype

    def _param_device(self) -> Any:
        return (self.probs if "probs" in self.__dict__ else self.logits).device
