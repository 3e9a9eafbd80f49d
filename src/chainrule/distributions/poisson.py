"""``Poisson(rate)``: counts k = 0, 1, 2, ... with probability λ^k e^(-λ)/k!, and the KL
divergences PyTorch registers between a Poisson and another count family."""

from __future__ import annotations

from typing import Any

from . import constraints
from .bernoulli import Bernoulli
from .binomial import Binomial
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .kl import register_kl
from .utils import broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """Poisson distributions of rate λ >= 0: mean and variance λ, mode ⌊λ⌋. As an
    exponential family: η = log λ, A(η) = e^η; the carrier measure -log k! has no closed
    mean, so none is given and ``entropy()`` raises NotImplementedError (as PyTorch's)."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Any, validate_args: Any = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.size(), validate_args=validate_args)

    @property
    def mean(self) -> Any:
        return self.rate

    @property
    def mode(self) -> Any:
        return self.rate.floor()

    @property
    def variance(self) -> Any:
        return self.rate

    def sample(self, sample_shape: Any = ()) -> Any:
        from .. import no_grad, poisson

        shape = self._extended_shape(sample_shape)
        with no_grad():
            return poisson(self.rate.expand(shape))

    def log_prob(self, value: Any) -> Any:
        """k log λ - λ - log Γ(k + 1), with 0 log 0 = 0 (xlogy)"""
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self) -> tuple:
        return (self.rate.log(),)

    def _log_normalizer(self, x: Any) -> Any:
        """A(η) = e^η"""
        return x.exp()


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson) -> Any:
    """λp log(λp/λq) - (λp - λq)"""
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p: Bernoulli, q: Poisson) -> Any:
    """-H(p) - E_p[log q] = -H(p) - (p log λ - λ) (log q(0) = -λ, log q(1) = log λ - λ)"""
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Poisson, Bernoulli)
@register_kl(Poisson, Binomial)
def _kl_poisson_bounded(p: Poisson, q: Distribution) -> Any:
    """inf: a Poisson puts mass on every count, beyond q's bounded support"""
    from .. import full_like

    return full_like(p.rate, float("inf"))
