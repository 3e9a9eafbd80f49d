"""``ContinuousBernoulli(probs=None, logits=None, lims=(0.499, 0.501))``: the density on
[0, 1] proportional to λ^x (1 - λ)^(1 - x), with its normalizing constant
C(λ) = 2 artanh(1 - 2λ)/(1 - 2λ) (2 at λ = 1/2), and the KL divergences PyTorch registers
for it."""

from __future__ import annotations

import math
from typing import Any

from . import constraints
from .beta import Beta
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import Gumbel
from .kl import _infinite_like, register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .uniform import Uniform
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """Continuous Bernoulli distributions of parameter ``probs`` λ in (0, 1) (or ``logits``
    log(λ/(1 - λ)); neither a probability nor log-odds here): p(x) = C(λ) λ^x (1 - λ)^(1 - x)
    on [0, 1]. Near λ = 1/2 (inside ``lims``) the log normalizer, mean and variance are
    their Taylor expansions in λ - 1/2 and the CDF is the uniform's, as PyTorch computes
    them; ``rsample`` is the inverse CDF of a uniform draw, differentiable in λ. λ is
    clamped to [eps, 1 - eps] (as in PyTorch, before the default check, so a ``probs``
    outside [0, 1] is refused only when ``validate_args`` is passed). As an exponential
    family: η = the logits, A(η) = log((e^η - 1)/η) (its Taylor expansion
    η/2 + η²/24 - η⁴/2880 for η inside ``lims`` - 1/2, as PyTorch), carrier measure 0."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(
        self,
        probs: Any = None,
        logits: Any = None,
        lims: tuple = (0.499, 0.501),
        validate_args: Any = None,
    ) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            # (PyTorch checks probs before clamping only when validate_args is given)
            if (
                validate_args is not None
                and not self.arg_constraints["probs"].check(self.probs).all()
            ):
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
            self._param = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            self._param = self.logits
        self._lims = lims
        super().__init__(self._param.size(), validate_args=validate_args)

    @lazy_property
    def logits(self) -> Any:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Any:
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self) -> Any:
        return self._param.size()

    def _outside_unstable_region(self) -> Any:
        """λ ≤ lims[0] or λ > lims[1]: where the closed forms are used."""
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self) -> Any:
        """λ, replaced by lims[0] inside the unstable region (its closed forms unused there)."""
        from .. import where

        return where(self._outside_unstable_region(), self.probs, self._lims[0])

    def _cont_bern_log_norm(self) -> Any:
        """log C(λ) = log|log(1 - λ) - log λ| - log|1 - 2λ|; near 1/2,
        log 2 + (4/3 + 104/45 (λ - 1/2)²)(λ - 1/2)²"""
        from .. import where

        cut = self._cut_probs()
        below = where(cut <= 0.5, cut, 0.0)
        above = where(cut >= 0.5, cut, 1.0)
        log_norm = ((-cut).log1p() - cut.log()).abs().log() - where(
            cut <= 0.5, (-2.0 * below).log1p(), (2.0 * above - 1.0).log()
        )
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self) -> Any:
        """λ/(2λ - 1) + 1/(log(1 - λ) - log λ); near 1/2, 1/2 + (1/3 + 16/45 (λ - 1/2)²)(λ - 1/2)"""
        from .. import where

        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / ((-cut).log1p() - cut.log())
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return where(self._outside_unstable_region(), mus, taylor)

    @property
    def variance(self) -> Any:
        """λ(λ - 1)/(1 - 2λ)² + 1/(log(1 - λ) - log λ)²; near 1/2,
        1/12 - (1/15 - 128/945 (λ - 1/2)²)(λ - 1/2)²"""
        from .. import where

        cut = self._cut_probs()
        var = cut * (cut - 1.0) / (1.0 - 2.0 * cut).pow(2) + 1.0 / ((-cut).log1p() - cut.log()).pow(
            2
        )
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return where(self._outside_unstable_region(), var, taylor)

    def sample(self, sample_shape: Any = ()) -> Any:
        from .. import no_grad, rand

        u = rand(self._extended_shape(sample_shape), dtype=self.probs.dtype)
        with no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape: Any = ()) -> Any:
        from .. import rand

        u = rand(self._extended_shape(sample_shape), dtype=self.probs.dtype)
        return self.icdf(u)

    def log_prob(self, value: Any) -> Any:
        """x log λ + (1 - x) log(1 - λ) + log C(λ)"""
        from ..nn.functional import binary_cross_entropy_with_logits

        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        bce = binary_cross_entropy_with_logits(logits, value, reduction="none")
        return -bce + self._cont_bern_log_norm()

    def cdf(self, value: Any) -> Any:
        """(λ^x (1 - λ)^(1 - x) + λ - 1)/(2λ - 1) (x near λ = 1/2), 0 below 0, 1 above 1"""
        from .. import ones_like, where, zeros_like

        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = (cut.pow(value) * (1.0 - cut).pow(1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = where(self._outside_unstable_region(), cdfs, value)
        return where(
            value <= 0.0, zeros_like(value), where(value >= 1.0, ones_like(value), unbounded)
        )

    def icdf(self, value: Any) -> Any:
        """(log(1 - λ + u(2λ - 1)) - log(1 - λ))/(log λ - log(1 - λ)) (u near λ = 1/2)"""
        from .. import where

        cut = self._cut_probs()
        inverse = ((-cut + value * (2.0 * cut - 1.0)).log1p() - (-cut).log1p()) / (
            cut.log() - (-cut).log1p()
        )
        return where(self._outside_unstable_region(), inverse, value)

    def entropy(self) -> Any:
        """E[x](log(1 - λ) - log λ) - log C(λ) - log(1 - λ)"""
        log_q, log_p = (-self.probs).log1p(), self.probs.log()
        return self.mean * (log_q - log_p) - self._cont_bern_log_norm() - log_q

    @property
    def _natural_params(self) -> tuple:
        return (self.logits,)

    def _log_normalizer(self, x: Any) -> Any:
        """A(η) = log|e^η - 1| - log|η|; η/2 + η²/24 - η⁴/2880 where η ≤ lims[0] - 1/2 fails
        and η > lims[1] - 1/2 fails (PyTorch's test on η, with the bounds of λ)"""
        from .. import special, where

        outside = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = where(outside, x, self._lims[0] - 0.5)
        log_norm = special.expm1(cut).abs().log() - cut.abs().log()
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return where(outside, log_norm, taylor)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(
    p: ContinuousBernoulli, q: ContinuousBernoulli
) -> Any:
    """E_p[x](ηp - ηq) + log Cp + log(1 - λp) - log Cq - log(1 - λq), η the logits"""
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + (-p.probs).log1p()
    t3 = -q._cont_bern_log_norm() - (-q.probs).log1p()
    return t1 + t2 + t3


@register_kl(ContinuousBernoulli, Pareto)
def _kl_continuous_bernoulli_pareto(p: ContinuousBernoulli, q: Pareto) -> Any:
    """inf: PyTorch's value for every pair (its support [scale, ∞) need not cover [0, 1])"""
    return _infinite_like(p.probs)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p: ContinuousBernoulli, q: Exponential) -> Any:
    """-H(p) - log r + r E_p[x]"""
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p: ContinuousBernoulli, q: Normal) -> Any:
    """-H(p) + log(√(2π) σ) + (Var_p + E_p[x]² - 2μ E_p[x] + μ²)/(2σ²)"""
    t1 = -p.entropy()
    t2 = 0.5 * (math.log(2.0 * math.pi) + (q.loc / q.scale).square()) + q.scale.log()
    t3 = (p.variance + p.mean.square() - 2.0 * q.loc * p.mean) / (2.0 * q.scale.square())
    return t1 + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p: ContinuousBernoulli, q: Uniform) -> Any:
    """-H(p) + log(b - a); inf where low ≥ 0 or high ≤ 1 (PyTorch's test, the ends
    included)"""
    from .. import where

    result = -p.entropy() + (q.high - q.low).log()
    outside = (q.low >= p.support.lower_bound) | (q.high <= p.support.upper_bound)
    return where(outside, float("inf"), result)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p: Uniform, q: ContinuousBernoulli) -> Any:
    """-H(p) - E_p[x] η - log(1 - λ) - log C(λ); inf where [a, b] reaches past [0, 1]
    (PyTorch's test: high ≥ 1 or low ≤ 0)"""
    from .. import where

    result = -p.entropy() - p.mean * q.logits - (-q.probs).log1p() - q._cont_bern_log_norm()
    outside = (p.high >= q.support.upper_bound) | (p.low <= q.support.lower_bound)
    return where(outside, float("inf"), result)


@register_kl(Exponential, ContinuousBernoulli)
def _kl_exponential_continuous_bernoulli(p: Exponential, q: ContinuousBernoulli) -> Any:
    """inf: p puts mass above 1"""
    return _infinite_like(p.rate)


@register_kl(Pareto, ContinuousBernoulli)
def _kl_pareto_continuous_bernoulli(p: Pareto, q: ContinuousBernoulli) -> Any:
    """inf: p puts mass above 1"""
    return _infinite_like(p.scale)


@register_kl(Gumbel, ContinuousBernoulli)
@register_kl(Laplace, ContinuousBernoulli)
@register_kl(Normal, ContinuousBernoulli)
def _kl_real_line_continuous_bernoulli(p: Any, q: ContinuousBernoulli) -> Any:
    """inf: p puts mass outside [0, 1]"""
    return _infinite_like(p.loc)


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p: Beta, q: ContinuousBernoulli) -> Any:
    """-H(p) - E_p[x] η - log(1 - λ) - log C(λ), η the logits"""
    return -p.entropy() - p.mean * q.logits - (-q.probs).log1p() - q._cont_bern_log_norm()


@register_kl(Gamma, ContinuousBernoulli)
def _kl_gamma_continuous_bernoulli(p: Gamma, q: ContinuousBernoulli) -> Any:
    """inf: p puts mass above 1"""
    return _infinite_like(p.concentration)
