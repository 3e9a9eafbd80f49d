"""``Beta(concentration1, concentration0)``: density x^(α-1) (1 - x)^(β-1) / B(α, β) on
[0, 1], kept as the first coordinate of a Dirichlet(α, β) (as PyTorch does), and its KL
divergences with the Exponential, Gamma, Normal, Uniform, Laplace, Pareto, Gumbel
families."""

from __future__ import annotations

import math
from typing import Any

from . import constraints
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import Gumbel
from .kl import _infinite_like, register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .uniform import Uniform
from .utils import broadcast_all

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """Beta distributions of concentrations α (``concentration1``) and β
    (``concentration0``), through ``_dirichlet``, the Dirichlet of (α, β): ``rsample`` is
    its first coordinate, ``log_prob(x)`` its log density at (x, 1 - x). As an exponential
    family: η = (α, β), A(η) = log Γ(η₁) + log Γ(η₂) - log Γ(η₁ + η₂); no carrier measure
    is given (as in PyTorch), so only the explicit ``entropy`` works."""

    arg_constraints = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any, validate_args: Any = None):
        from .. import stack, tensor

        numbers = (int, float)
        if isinstance(concentration1, numbers) and isinstance(concentration0, numbers):
            both = tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            both = stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    @property
    def concentration1(self) -> Any:
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self) -> Any:
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self) -> Any:
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Any:
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self) -> Any:
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape: Any = ()) -> Any:
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value: Any) -> Any:
        """(α - 1) log x + (β - 1) log(1 - x) - log B(α, β)"""
        from .. import stack

        if self._validate_args:
            self._validate_sample(value)
        return self._dirichlet.log_prob(stack([value, 1.0 - value], -1))

    def entropy(self) -> Any:
        """log B(α, β) - (α - 1) ψ(α) - (β - 1) ψ(β) + (α + β - 2) ψ(α + β)"""
        return self._dirichlet.entropy()

    @property
    def _natural_params(self) -> tuple:
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x: Any, y: Any) -> Any:
        """A(η₁, η₂) = log Γ(η₁) + log Γ(η₂) - log Γ(η₁ + η₂)"""
        return x.lgamma() + y.lgamma() - (x + y).lgamma()


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Any:
    """log B(αq, βq) - log B(αp, βp) + (αp - αq) ψ(αp) + (βp - βq) ψ(βp)
    + (αq + βq - αp - βp) ψ(αp + βp)"""
    sum_p = p.concentration1 + p.concentration0
    sum_q = q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + sum_p.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + sum_q.lgamma()
    t3 = (p.concentration1 - q.concentration1) * p.concentration1.digamma()
    t4 = (p.concentration0 - q.concentration0) * p.concentration0.digamma()
    t5 = (sum_q - sum_p) * sum_p.digamma()
    return t1 - t2 + t3 + t4 + t5


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p: Beta, q: Exponential) -> Any:
    """-H(p) - log λ + λ α/(α + β)"""
    mean = p.concentration1 / (p.concentration1 + p.concentration0)
    return -p.entropy() - q.rate.log() + q.rate * mean


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p: Beta, q: Gamma) -> Any:
    """-H(p) + log Γ(a) - a log r - (a - 1)(ψ(α) - ψ(α + β)) + r α/(α + β), q = Gamma(a, r)"""
    total = p.concentration1 + p.concentration0
    t1 = -p.entropy()
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (q.concentration - 1) * (p.concentration1.digamma() - total.digamma())
    t4 = q.rate * p.concentration1 / total
    return t1 + t2 - t3 + t4


@register_kl(Beta, Normal)
def _kl_beta_normal(p: Beta, q: Normal) -> Any:
    """-H(p) + log(σ√(2π)) + E_p[(x - μ)²]/(2σ²), E_p x² = Var x + (E x)²"""
    total = p.concentration1 + p.concentration0
    mean = p.concentration1 / total
    var_normal = q.scale.pow(2)
    t1 = -p.entropy()
    t2 = 0.5 * (var_normal * 2 * math.pi).log()
    t3 = (mean * (1 - mean) / (total + 1) + mean.pow(2)) * 0.5
    t4 = q.loc * mean
    t5 = q.loc.pow(2) * 0.5
    return t1 + t2 + (t3 - t4 + t5) / var_normal


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p: Beta, q: Uniform) -> Any:
    """-H(p) + log(b - a); inf where [a, b] does not cover [0, 1]"""
    result = -p.entropy() + (q.high - q.low).log()
    support = p.support
    outside = (q.low > support.lower_bound) | (q.high < support.upper_bound)
    return result.masked_fill(outside, float("inf"))


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p: Uniform, q: Beta) -> Any:
    """-log(b - a) - (α - 1) E_p[log x] - (β - 1) E_p[log(1 - x)] + log B(α, β); inf where
    [a, b] leaves [0, 1]"""
    from .. import special

    width = p.high - p.low
    t1 = width.log()
    x_log_x = special.xlogy(p.high, p.high) - special.xlogy(p.low, p.low)
    t2 = (q.concentration1 - 1) * (x_log_x - width) / width
    hi, lo = 1 - p.high, 1 - p.low
    t3 = (q.concentration0 - 1) * (special.xlogy(hi, hi) - special.xlogy(lo, lo) + width) / width
    t4 = (
        q.concentration1.lgamma()
        + q.concentration0.lgamma()
        - (q.concentration1 + q.concentration0).lgamma()
    )
    result = t3 + t4 - t1 - t2
    support = q.support
    outside = (p.high > support.upper_bound) | (p.low < support.lower_bound)
    return result.masked_fill(outside, float("inf"))


@register_kl(Exponential, Beta)
def _kl_exponential_beta(p: Exponential, q: Beta) -> Any:
    """inf: p puts mass above 1"""
    return _infinite_like(p.rate)


@register_kl(Gamma, Beta)
def _kl_gamma_beta(p: Gamma, q: Beta) -> Any:
    """inf: p puts mass above 1"""
    return _infinite_like(p.concentration)


@register_kl(Normal, Beta)
def _kl_normal_beta(p: Normal, q: Beta) -> Any:
    """inf: p puts mass outside [0, 1]"""
    return _infinite_like(p.loc)


@register_kl(Laplace, Beta)
def _kl_laplace_beta(p: Laplace, q: Beta) -> Any:
    """inf: p puts mass outside [0, 1]"""
    return _infinite_like(p.loc)


@register_kl(Beta, Pareto)
def _kl_beta_pareto(p: Beta, q: Pareto) -> Any:
    """inf: PyTorch's value for every pair (q's support [scale, ∞) need not cover [0, 1])"""
    return _infinite_like(p.concentration1)


@register_kl(Gumbel, Beta)
def _kl_gumbel_beta(p: Gumbel, q: Beta) -> Any:
    """inf: p puts mass outside [0, 1]"""
    return _infinite_like(p.loc)


@register_kl(Pareto, Beta)
def _kl_pareto_beta(p: Pareto, q: Beta) -> Any:
    """inf: p puts mass above 1"""
    return _infinite_like(p.scale)
