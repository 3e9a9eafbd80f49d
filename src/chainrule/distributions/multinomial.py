"""``Multinomial(total_count=1, probs=None, logits=None)``: the counts of each of K
categories in n independent categorical draws, n!/(x_1!···x_K!) Π p_k^x_k."""

from __future__ import annotations

from typing import Any

from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Multinomial distributions of an int ``total_count`` n over the K categories of the
    last dim of ``probs`` or ``logits`` (normalized as ``Categorical`` does; event shape
    (K,)). ``log_prob`` takes n from each value's sum, so n matters only to sampling, the
    support, the moments and the entropy.

    Differs from PyTorch: ``expand`` also expands the per-category ``Binomial`` the entropy
    sums over, so an expanded Multinomial has an entropy (PyTorch's raises AttributeError).
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(
        self,
        total_count: int = 1,
        probs: Any = None,
        logits: Any = None,
        validate_args: Any = None,
    ) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        # (category k's count is Binomial(n, p_k): the entropy sums over its support)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        param_shape = self._categorical.param_shape
        super().__init__(
            self._categorical.batch_shape, param_shape[-1:], validate_args=validate_args
        )

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.multinomial(self.total_count)

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
        return self.probs * self.total_count

    @property
    def variance(self) -> Any:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Any:
        """n categorical draws per sample, counted per category with ``scatter_add``"""
        from .. import ones_like, zeros
        from .distribution import _size

        sample_shape = _size(sample_shape)
        draws = self._categorical.sample((self.total_count, *sample_shape))
        # (the draws' leading dim runs over the n trials: move it last, then count)
        draws = draws.permute(*range(1, draws.dim()), 0)
        counts = zeros(self._extended_shape(sample_shape), dtype=draws.dtype)
        counts.scatter_add_(-1, draws, ones_like(draws))
        return counts.type_as(self.probs)

    def log_prob(self, value: Any) -> Any:
        """log n! - Σ_k log x_k! + Σ_k x_k log p_k (n = Σ_k x_k; 0·log 0 = 0)"""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = (value.sum(-1) + 1).lgamma()
        log_factorial_xs = (value + 1).lgamma().sum(-1)
        logits = logits.masked_fill((value == 0) & (logits == float("-inf")), 0)
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)

    def entropy(self) -> Any:
        """n H(Categorical(p)) - log n! + Σ_k Σ_{x=1}^{n} Binomial(n, p_k)(x) log x!
        (log n! taken of an int64 tensor, so in the default float dtype, as PyTorch)"""
        from .. import tensor

        n = tensor(self.total_count)
        term1 = n * self._categorical.entropy() - (n + 1).lgamma()
        counts = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = self._binomial.log_prob(counts).exp()
        term2 = (binomial_probs * (counts + 1).lgamma()).sum([0, -1])
        return term1 + term2
