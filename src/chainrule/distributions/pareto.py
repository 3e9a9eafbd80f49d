"""``Pareto(scale, alpha)``: the Pareto type I law, density α x_m^α / x^(α+1) on x >= x_m;
and its KL divergences with other families."""

from __future__ import annotations

import math
from typing import Any

from . import constraints
from .exponential import Exponential
from .gumbel import Gumbel
from .kl import _infinite_like, register_kl
from .laplace import Laplace
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import broadcast_all

__all__ = ["Pareto"]


class Pareto(TransformedDistribution):
    """Pareto distributions of scale x_m and shape α: x_m e^E, E ~ Exponential(α). The
    mean (α x_m/(α - 1)) and variance use α clamped to >= 1 and >= 2, so they are inf
    where they diverge, as in PyTorch."""

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale: Any, alpha: Any, validate_args: Any = None) -> None:
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base = Exponential(self.alpha, validate_args=validate_args)
        transforms = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    @property
    def mean(self) -> Any:
        """α x_m/(α - 1)"""
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self) -> Any:
        return self.scale

    @property
    def variance(self) -> Any:
        """x_m² α/((α - 1)² (α - 2))"""
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.greater_than_eq(self.scale)

    def entropy(self) -> Any:
        """log(x_m/α) + 1 + 1/α"""
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p: Pareto, q: Pareto) -> Any:
    """αq log(x_p/x_q) - log(αq/αp) + αq/αp - 1; inf where x_p < x_q"""
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * (p.scale / q.scale).log() - alpha_ratio.log() + alpha_ratio - 1
    return result.masked_fill(p.scale < q.scale, math.inf)


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p: Pareto, q: Exponential) -> Any:
    """log(α/(x_m λ)) - 1/α + α x_m λ/(α - 1) - 1; inf where α <= 1"""
    scale_rate = p.scale * q.rate
    t1 = (p.alpha / scale_rate).log()
    result = t1 - p.alpha.reciprocal() + p.alpha * scale_rate / (p.alpha - 1) - 1
    return result.masked_fill(p.alpha <= 1, math.inf)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p: Pareto, q: Normal) -> Any:
    """log(√(2π) σ α/x_m) - 1/α + (Var_p + (E_p - μ)²)/(2σ²) - 1; inf where α <= 2"""
    two_var = 2 * q.scale.pow(2)
    c = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t3 = p.alpha * c.pow(2) / (p.alpha - 2)
    t4 = (p.alpha * c - q.loc).pow(2)
    result = t1 - p.alpha.reciprocal() + (t3 + t4) / two_var - 1
    return result.masked_fill(p.alpha <= 2, math.inf)


@register_kl(Pareto, Uniform)
def _kl_pareto_infinity(p: Pareto, q: Any) -> Any:
    """inf: p's tail leaves every bounded interval"""
    return _infinite_like(p.scale)


@register_kl(Gumbel, Pareto)
def _kl_gumbel_pareto(p: Gumbel, q: Pareto) -> Any:
    """inf: p puts mass below q's scale"""
    return _infinite_like(p.loc)


@register_kl(Exponential, Pareto)
def _kl_exponential_pareto(p: Exponential, q: Pareto) -> Any:
    """inf: p puts mass below q's scale"""
    return _infinite_like(p.rate)


@register_kl(Laplace, Pareto)
@register_kl(Normal, Pareto)
def _kl_real_pareto(p: Any, q: Pareto) -> Any:
    """inf: p puts mass on the whole line"""
    return _infinite_like(p.loc)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p: Uniform, q: Pareto) -> Any:
    """(αq + 1)(b log b - a log a - (b - a))/(b - a) - log(αq x_m^αq (b - a)); inf where
    a < x_m"""
    from .. import special

    width = p.high - p.low
    t1 = (q.alpha * q.scale.pow(q.alpha) * width).log()
    t2 = (special.xlogy(p.high, p.high) - special.xlogy(p.low, p.low) - width) / width
    result = t2 * (q.alpha + 1) - t1
    return result.masked_fill(p.low < q.scale, math.inf)
