"""``LogitRelaxedBernoulli`` and ``RelaxedBernoulli(temperature, probs=None, logits=None)``:
the binary Concrete (Gumbel-softmax) relaxation of a Bernoulli. Its logit is
y = (log(u/(1 - u)) + η)/τ, u ~ U(0, 1), η the logits, τ the temperature; the relaxed value
is σ(y) in (0, 1)."""

from __future__ import annotations

from typing import Any

from . import constraints
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import BinaryProbs, broadcast_all, clamp_probs

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(BinaryProbs, Distribution):
    """The logit y of a relaxed Bernoulli of ``probs`` p (or ``logits`` η) at
    ``temperature`` τ: log p(y) = log τ + (η - τy) - 2 log(1 + e^(η - τy)), the logistic
    density of y τ around η; ``rsample`` is (logit(u) + η)/τ, differentiable in η and τ
    (though ``has_rsample`` is False, as PyTorch leaves it for this class)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(
        self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: Any = None
    ) -> None:
        self.temperature = temperature
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            self._param = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            self._param = self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        new = super().expand(batch_shape, _instance)
        new.temperature = self.temperature  # (shared, not broadcast, as PyTorch keeps it)
        return new

    @property
    def param_shape(self) -> Any:
        return self._param.size()

    def rsample(self, sample_shape: Any = ()) -> Any:
        from .. import rand

        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        u = clamp_probs(rand(shape, dtype=probs.dtype))
        return (u.log() - (-u).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value: Any) -> Any:
        """log τ + (η - τy) - 2 log(1 + e^(η - τy))"""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """σ(Y) for Y ~ LogitRelaxedBernoulli(temperature, probs, logits): values in (0, 1) that
    approach Bernoulli draws as τ → 0, with reparameterized samples."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval  # type: ignore[assignment]
    has_rsample = True  # type: ignore[assignment]

    def __init__(
        self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: Any = None
    ) -> None:
        base = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    @property
    def temperature(self) -> Any:
        return self.base_dist.temperature

    @property
    def logits(self) -> Any:
        return self.base_dist.logits

    @property
    def probs(self) -> Any:
        return self.base_dist.probs
