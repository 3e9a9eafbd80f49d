"""``ExpRelaxedCategorical`` and ``RelaxedOneHotCategorical(temperature, probs=None,
logits=None)``: the Concrete (Gumbel-softmax) relaxation of a one-hot categorical draw,
softmax((η + g)/τ) with g iid standard Gumbel, η the logits, τ the temperature."""

from __future__ import annotations

from typing import Any

from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import broadcast_all, clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    """The log of a relaxed one-hot categorical of K categories: x = log softmax((η + g)/τ).
    log p(x) = log Γ(K) + (K - 1) log τ + Σ_k (η_k - τx_k - logsumexp_j(η_j - τx_j));
    ``rsample`` is differentiable in η and τ. Its support is all of R^K (PyTorch's), though
    the values lie on the surface logsumexp(x) = 0."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: Any = None
    ) -> None:
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        super().__init__(
            self._categorical.batch_shape,
            self._categorical.param_shape[-1:],
            validate_args=validate_args,
        )

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        new = super().expand(batch_shape, _instance)
        new.temperature = self.temperature  # (shared, not broadcast, as PyTorch keeps it)
        return new

    @property
    def param_shape(self) -> Any:
        return self._categorical.param_shape

    @property
    def logits(self) -> Any:
        return self._categorical.logits

    @property
    def probs(self) -> Any:
        return self._categorical.probs

    def rsample(self, sample_shape: Any = ()) -> Any:
        from .. import rand

        shape = self._extended_shape(sample_shape)
        u = clamp_probs(rand(shape, dtype=self.logits.dtype))
        gumbels = -(-u.log()).log()
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value: Any) -> Any:
        """log Γ(K) + (K - 1) log τ + Σ_k log softmax(η - τx)_k"""
        from .. import full_like

        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = full_like(self.temperature, float(k)).lgamma() + (k - 1) * (
            self.temperature.log()
        )
        score = logits - value.mul(self.temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """e^X for X ~ ExpRelaxedCategorical(temperature, probs, logits): points of the simplex
    that approach one-hot draws as τ → 0, with reparameterized samples."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex  # type: ignore[assignment]
    has_rsample = True  # type: ignore[assignment]

    def __init__(
        self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: Any = None
    ) -> None:
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    @property
    def temperature(self) -> Any:
        return self.base_dist.temperature

    @property
    def logits(self) -> Any:
        return self.base_dist.logits

    @property
    def probs(self) -> Any:
        return self.base_dist.probs
