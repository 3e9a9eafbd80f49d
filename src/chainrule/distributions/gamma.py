"""``Gamma(concentration, rate)``: density β^α x^(α-1) e^(-βx) / Γ(α) on x >= 0, and its KL
divergences with the Exponential, Normal, Uniform, Laplace, Gumbel, Pareto families."""

from __future__ import annotations

import math
from typing import Any

from . import constraints
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gumbel import Gumbel
from .kl import _infinite_like, register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .uniform import Uniform
from .utils import broadcast_all

__all__ = ["Gamma"]

_EULER = 0.57721566490153286061  # γ, Euler's constant


class Gamma(ExponentialFamily):
    """Gamma distributions of shape α (``concentration``) and rate β (``rate``);
    ``rsample`` is G/β with G ~ Gamma(α, 1) (``_standard_gamma``), differentiable in both
    (dG/dα by implicit differentiation of the CDF). As an exponential family:
    η = (α - 1, -β), A(η) = log Γ(η₁ + 1) + (η₁ + 1) log(-1/η₂), carrier measure 0."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration: Any, rate: Any, validate_args: Any = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.size(), validate_args=validate_args)

    @property
    def mean(self) -> Any:
        return self.concentration / self.rate

    @property
    def mode(self) -> Any:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Any:
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape: Any = ()) -> Any:
        from .. import _standard_gamma, finfo

        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=finfo(value.dtype).tiny)  # (not recorded: G/β's gradient)
        return value

    def log_prob(self, value: Any) -> Any:
        """α log β + (α - 1) log x - βx - log Γ(α)"""
        from .. import as_tensor, xlogy

        value = as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (
            xlogy(self.concentration, self.rate)
            + xlogy(self.concentration - 1, value)
            - self.rate * value
            - self.concentration.lgamma()
        )

    def entropy(self) -> Any:
        """α - log β + log Γ(α) + (1 - α) ψ(α)"""
        a = self.concentration
        return a - self.rate.log() + a.lgamma() + (1.0 - a) * a.digamma()

    @property
    def _natural_params(self) -> tuple:
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x: Any, y: Any) -> Any:
        """A(η₁, η₂) = log Γ(η₁ + 1) + (η₁ + 1) log(-1/η₂)"""
        return (x + 1).lgamma() + (x + 1) * (-y.reciprocal()).log()

    def cdf(self, value: Any) -> Any:
        """P(α, βx), the regularized lower incomplete gamma function"""
        from .. import special

        if self._validate_args:
            self._validate_sample(value)
        return special.gammainc(self.concentration, self.rate * value)


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> Any:
    """αq log(βp/βq) + log Γ(αq) - log Γ(αp) + (αp - αq) ψ(αp) + (βq - βp) αp/βp"""
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = q.concentration.lgamma() - p.concentration.lgamma()
    t3 = (p.concentration - q.concentration) * p.concentration.digamma()
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p: Exponential, q: Gamma) -> Any:
    """-α log(βq/λ) + βq/λ + log Γ(α) + αγ - (1 + γ), γ Euler's constant"""
    ratio = q.rate / p.rate
    t1 = -q.concentration * ratio.log()
    return t1 + ratio + q.concentration.lgamma() + q.concentration * _EULER - (1 + _EULER)


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p: Gamma, q: Exponential) -> Any:
    """-H(p) - log λ + λ α/β"""
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p: Gamma, q: Normal) -> Any:
    """-H(p) + E_p[(x - μ)²]/(2σ²) + log(σ√(2π)), with E x = α/β, E x² = α(α + 1)/β²"""
    var_normal = q.scale.pow(2)
    beta_sqr = p.rate.pow(2)
    a = p.concentration
    t1 = 0.5 * (beta_sqr * var_normal * 2 * math.pi).log() - a - a.lgamma()
    t2 = 0.5 * (a.pow(2) + a) / beta_sqr
    t3 = q.loc * a / p.rate
    t4 = 0.5 * q.loc.pow(2)
    return t1 + (a - 1) * a.digamma() + (t2 - t3 + t4) / var_normal


@register_kl(Gamma, Pareto)
@register_kl(Gamma, Uniform)
def _kl_gamma_uniform(p: Gamma, q: Any) -> Any:
    """inf: p puts mass outside every bounded interval (and, for a Pareto, PyTorch's value
    for every pair: its support [scale, ∞) need not cover (0, ∞))"""
    return _infinite_like(p.concentration)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p: Uniform, q: Gamma) -> Any:
    """-log(b - a) + log Γ(α) - α log β + (1 - α) E_p[log x] + β (a + b)/2; inf where the
    interval reaches below 0"""
    from .. import special

    width = p.high - p.low
    t1 = width.log()
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    x_log_x = special.xlogy(p.high, p.high) - special.xlogy(p.low, p.low)
    t3 = (1 - q.concentration) * (x_log_x - width) / width
    t4 = q.rate * (p.high + p.low) / 2
    result = -t1 + t2 + t3 + t4
    return result.masked_fill(p.low < q.support.lower_bound, float("inf"))


@register_kl(Normal, Gamma)
def _kl_normal_gamma(p: Normal, q: Gamma) -> Any:
    """inf: p puts mass below 0"""
    return _infinite_like(p.loc)


@register_kl(Laplace, Gamma)
def _kl_laplace_gamma(p: Laplace, q: Gamma) -> Any:
    """inf: p puts mass below 0"""
    return _infinite_like(p.loc)


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p: Gamma, q: Gumbel) -> Any:
    """(α - 1) ψ(α) - log Γ(α) - α + log(βr) + α/(βr) + e^(μ/β) (1 + 1/(βr))^(-α) - μ/β,
    p = Gamma(α, r), q = Gumbel(μ, β) (E_p e^(-x/β) is the Gamma's moment generating
    function)"""
    rate_scale = p.rate * q.scale
    loc_scale = q.loc / q.scale
    a = p.concentration
    t1 = (a - 1) * a.digamma() - a.lgamma() - a
    t2 = rate_scale.log() + a / rate_scale
    t3 = loc_scale.exp() * (1 + rate_scale.reciprocal()).pow(-a) - loc_scale
    return t1 + t2 + t3


@register_kl(Gumbel, Gamma)
def _kl_gumbel_gamma(p: Gumbel, q: Gamma) -> Any:
    """inf: p puts mass below 0"""
    return _infinite_like(p.loc)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p: Pareto, q: Gamma) -> Any:
    """log(α/x_m) - 1/α - 1 + log Γ(a) - a log r + (1 - a)(log x_m + 1/α) + r α x_m/(α - 1),
    p = Pareto(x_m, α), q = Gamma(a, r) (E_p log x = log x_m + 1/α); inf where α <= 1"""
    mean_log = p.scale.log() + p.alpha.reciprocal()
    t1 = p.alpha.log() - mean_log
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * mean_log
    t4 = q.rate * p.alpha * p.scale / (p.alpha - 1)
    result = t1 + t2 + t3 + t4 - 1
    return result.masked_fill(p.alpha <= 1, math.inf)
