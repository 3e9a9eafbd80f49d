"""``OneHotCategorical(probs=None, logits=None)``: a categorical draw as a one-hot vector;
``OneHotCategoricalStraightThrough``, the same with straight-through gradients."""

from __future__ import annotations

from typing import Any

from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .kl import _kl_categorical_categorical, register_kl

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    """Categorical distributions whose samples are one-hot vectors over the K categories
    (event shape (K,)); ``log_prob`` reads the category a one-hot value marks."""

    arg_constraints = {
        "probs": constraints.simplex,
        "logits": constraints.independent(constraints.real, 1),
    }
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Any = None):
        self._categorical = Categorical(probs, logits)
        param = self._categorical._param
        super().__init__(param.shape[:-1], param.shape[-1:], validate_args=validate_args)

    @property
    def probs(self) -> Any:
        return self._categorical.probs

    @property
    def logits(self) -> Any:
        return self._categorical.logits

    @property
    def param_shape(self) -> Any:
        return self._categorical.param_shape

    @property
    def mean(self) -> Any:
        return self._categorical.probs

    @property
    def mode(self) -> Any:
        from ..nn.functional import one_hot

        probs = self._categorical.probs
        return one_hot(probs.argmax(-1), probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self) -> Any:
        p = self._categorical.probs
        return p * (1 - p)

    def sample(self, sample_shape: Any = ()) -> Any:
        from ..nn.functional import one_hot

        probs = self._categorical.probs
        indices = self._categorical.sample(sample_shape)
        return one_hot(indices, probs.shape[-1]).to(probs.dtype)

    def log_prob(self, value: Any) -> Any:
        """log p of the category the one-hot ``value`` marks"""
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self) -> Any:
        """-Σ_k p_k log p_k"""
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Any:
        from .. import eye

        n = self.event_shape[0]
        values = eye(n, dtype=self._categorical._param.dtype)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        return values.expand((n,) + tuple(self.batch_shape) + (n,)) if expand else values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """A one-hot categorical whose ``rsample`` is the straight-through estimator: the value
    is a one-hot draw s, the gradient that of p (s + p - stop_gradient(p)), so
    d rsample/d p = I."""

    has_rsample = True

    def rsample(self, sample_shape: Any = ()) -> Any:
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p: OneHotCategorical, q: OneHotCategorical) -> Any:
    """Σ_k p_k (log p_k - log q_k), the KL of the underlying categoricals"""
    return _kl_categorical_categorical(p._categorical, q._categorical)
