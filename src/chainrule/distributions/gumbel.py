"""``Gumbel(loc, scale)``: the type-I extreme value law, log p(x) = z - e^z - log β with
z = (μ - x)/β; and its KL divergences with other families."""

from __future__ import annotations

import math
from typing import Any

from . import constraints
from .exponential import Exponential
from .kl import _infinite_like, register_kl
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import broadcast_all, euler_constant

__all__ = ["Gumbel"]


class Gumbel(TransformedDistribution):
    """Gumbel distributions of location μ and scale β: μ - β log(-log U), U ~ U(0, 1)
    (kept inside [tiny, 1 - eps]), built as PyTorch builds it, so ``cdf``/``icdf`` and
    ``rsample`` come through the transforms."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real  # type: ignore[assignment]

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None) -> None:
        from .. import finfo, full_like, ones_like

        self.loc, self.scale = broadcast_all(loc, scale)
        f = finfo(self.loc.dtype)
        if isinstance(loc, (int, float)) and isinstance(scale, (int, float)):
            base = Uniform(f.tiny, 1 - f.eps, validate_args=validate_args)
        else:
            base = Uniform(
                full_like(self.loc, f.tiny),
                full_like(self.loc, 1 - f.eps),
                validate_args=validate_args,
            )
        transforms = [
            ExpTransform().inv,
            AffineTransform(loc=0, scale=-ones_like(self.scale)),
            ExpTransform().inv,
            AffineTransform(loc=loc, scale=-self.scale),
        ]
        super().__init__(base, transforms, validate_args=validate_args)

    def log_prob(self, value: Any) -> Any:
        """z - e^z - log β, z = (μ - x)/β"""
        if self._validate_args:
            self._validate_sample(value)
        z = (self.loc - value) / self.scale
        return (z - z.exp()) - self.scale.log()

    @property
    def mean(self) -> Any:
        """μ + β γ"""
        return self.loc + self.scale * euler_constant

    @property
    def mode(self) -> Any:
        return self.loc

    @property
    def stddev(self) -> Any:
        """π β/√6"""
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self) -> Any:
        return self.stddev.pow(2)

    def entropy(self) -> Any:
        """log β + 1 + γ"""
        return self.scale.log() + (1 + euler_constant)


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p: Gumbel, q: Gumbel) -> Any:
    """-log(βp/βq) + (μp - μq)/βq + γ βp/βq + e^((μq - μp)/βq) Γ(1 + βp/βq) - 1 - γ"""
    ratio = p.scale / q.scale
    q_loc, p_loc = q.loc / q.scale, p.loc / q.scale
    t1 = -ratio.log() - q_loc + p_loc
    t3 = (q_loc + (1 + ratio).lgamma() - p_loc).exp()
    return t1 + ratio * euler_constant + t3 - (1 + euler_constant)


@register_kl(Gumbel, Exponential)
@register_kl(Gumbel, Uniform)
def _kl_gumbel_infinity(p: Gumbel, q: Any) -> Any:
    """inf: p puts mass where q has none"""
    return _infinite_like(p.loc)


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p: Gumbel, q: Normal) -> Any:
    """-log(βp/(σ√(2π))) + (π βp/σ)²/12 + ((μp + γ βp - μq)/σ)²/2 - γ - 1"""
    ratio = p.scale / q.scale
    t1 = (ratio / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * ratio * 0.5).pow(2) / 3
    t3 = ((p.loc + p.scale * euler_constant - q.loc) / q.scale).pow(2) * 0.5
    return -t1 + t2 + t3 - (euler_constant + 1)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p: Exponential, q: Gumbel) -> Any:
    """log(λβ) - 1 - μ/β + e^(μ/β) λβ/(λβ + 1) + 1/(λβ)"""
    rate_scale = p.rate * q.scale
    loc_scale = q.loc / q.scale
    t2 = loc_scale.exp() * rate_scale / (rate_scale + 1)
    return rate_scale.log() - 1 - loc_scale + t2 + rate_scale.reciprocal()


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p: Normal, q: Gumbel) -> Any:
    """-log(σ/β) + (μp - μq)/β + e^(-(μp - μq)/β + σ²/(2β²)) - (1 + log 2π)/2"""
    mean_ratio = p.loc / q.scale
    var_ratio = (p.scale / q.scale).pow(2)
    loc_ratio = q.loc / q.scale
    t3 = (-mean_ratio + 0.5 * var_ratio + loc_ratio).exp()
    return -0.5 * var_ratio.log() + mean_ratio - loc_ratio + t3 - 0.5 * (1 + math.log(2 * math.pi))


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p: Uniform, q: Gumbel) -> Any:
    """log(β/(b - a)) + (zb + za)/2 - β/(b - a) (e^(-zb) - e^(-za)), z = (x - μ)/β"""
    ratio = q.scale / (p.high - p.low)
    z_high = (p.high - q.loc) / q.scale
    z_low = (p.low - q.loc) / q.scale
    t1 = ratio.log() + 0.5 * (z_high + z_low)
    return t1 - ratio * ((-z_high).exp() - (-z_low).exp())
