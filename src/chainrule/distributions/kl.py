"""``kl_divergence(p, q)``: KL(p ‖ q) = E_p[log p - log q] in closed form, for the pairs of
families registered (``register_kl`` adds more)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .bernoulli import Bernoulli
from .categorical import Categorical
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .independent import Independent
from .laplace import Laplace
from .multivariate_normal import MultivariateNormal, _mahalanobis
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import sum_rightmost

__all__ = ["kl_divergence", "register_kl"]

_KL: dict[tuple[type, type], Callable] = {}
_KL_REGISTRY = _KL  # (PyTorch's name for the registry: (type_p, type_q) -> fn)


def register_kl(type_p: type, type_q: type) -> Callable[[Callable], Callable]:
    """Decorator: register ``fn(p, q)`` as KL(p ‖ q) for these two families."""

    def decorator(fn: Callable) -> Callable:
        _KL[type_p, type_q] = fn
        return fn

    return decorator


def kl_divergence(p: Any, q: Any) -> Any:
    """KL(p ‖ q), one value per batch element; NotImplementedError for an unregistered pair
    (the most specific registered pair of base classes otherwise)."""
    fn = _KL.get((type(p), type(q)))
    if fn is None:
        matches = [(tp, tq) for tp, tq in _KL if isinstance(p, tp) and isinstance(q, tq)]
        if not matches:
            raise NotImplementedError(
                f"No KL(p || q) is implemented for p type {type(p).__name__} and q type "
                f"{type(q).__name__}"
            )
        fn = _KL[
            min(matches, key=lambda m: (type(p).__mro__.index(m[0]), type(q).__mro__.index(m[1])))
        ]
    return fn(p, q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Any:
    """(σp²/σq² + (μp - μq)²/σq² - 1 - log(σp²/σq²))/2"""
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Any:
    """Σ_k p_k (log p_k - log q_k); inf where q_k = 0 < p_k, 0 terms where p_k = 0"""
    t = p.probs * (p.logits - q.logits)
    t = t.masked_fill((q.probs == 0).expand_as(t), float("inf"))
    t = t.masked_fill((p.probs == 0).expand_as(t), 0)
    return t.sum(-1)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Any:
    """p log(p/q) + (1 - p) log((1 - p)/(1 - q)), through softplus of the logits"""
    from ..nn.functional import softplus

    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1 = t1.masked_fill(q.probs == 0, float("inf")).masked_fill(p.probs == 0, 0)
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2 = t2.masked_fill(q.probs == 1, float("inf")).masked_fill(p.probs == 1, 0)
    return t1 + t2


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Any:
    """log((q.high - q.low)/(p.high - p.low)); inf where p's interval leaves q's"""
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return result.masked_fill((q.low > p.low) | (q.high < p.high), float("inf"))


@register_kl(Normal, Uniform)
def _kl_normal_uniform(p: Normal, q: Uniform) -> Any:
    """inf: p puts mass outside every bounded interval"""
    return _infinite_like(p.loc)


def _infinite_like(t: Any) -> Any:
    from .. import full_like

    return full_like(t, float("inf"))


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Any:
    """λq/λp - 1 - log(λq/λp)"""
    ratio = q.rate / p.rate
    return -ratio.log() + ratio - 1


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Any:
    """log(bq/bp) + |μp - μq|/bq + (bp/bq) e^(-|μp - μq|/bp) - 1"""
    ratio = p.scale / q.scale
    gap = (p.loc - q.loc).abs()
    return -ratio.log() + gap / q.scale + ratio * (-gap / p.scale).exp() - 1


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Any:
    """Σ over the reinterpreted dims of the bases' KL"""
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p: MultivariateNormal, q: MultivariateNormal) -> Any:
    """log(|Lq|/|Lp|) + (tr((Lq⁻¹Lp)(Lq⁻¹Lp)ᵀ) + |Lq⁻¹(μq - μp)|² - k)/2"""
    from .. import broadcast_shapes, linalg

    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two Multivariate Normals with                          "
            "different event shapes cannot be computed"
        )
    lp, lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = lq.diagonal(dim1=-2, dim2=-1).log().sum(-1) - lp.diagonal(
        dim1=-2, dim2=-1
    ).log().sum(-1)
    n = p.event_shape[0]
    batch = broadcast_shapes(tuple(lq.shape[:-2]), tuple(lp.shape[:-2]))
    m = linalg.solve_triangular(lq.expand(*batch, n, n), lp.expand(*batch, n, n), upper=False)
    term2 = m.pow(2).sum((-2, -1))
    term3 = _mahalanobis(lq, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p: TransformedDistribution, q: TransformedDistribution) -> Any:
    """the bases' KL, when both push them through the same bijections (KL is invariant)"""
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p: ExponentialFamily, q: ExponentialFamily) -> Any:
    """The Bregman divergence of the log normalizer A: A(ηq) - A(ηp) - ⟨ηq - ηp, ∇A(ηp)⟩,
    ∇A by autograd at p's detached η (so, as in PyTorch, no gradient reaches p's
    parameters); both must be of one family."""
    from .. import autograd

    if type(p) is not type(q):
        raise NotImplementedError(
            "The cross KL-divergence between different exponential families cannot "
            + " " * 28
            + "be computed using Bregman divergences"
        )
    p_etas = [eta.detach().requires_grad_() for eta in p._natural_params]
    q_etas = q._natural_params
    log_normalizer = p._log_normalizer(*p_etas)
    grads = autograd.grad(log_normalizer.sum(), p_etas, create_graph=True)
    result = q._log_normalizer(*q_etas) - log_normalizer
    for p_eta, q_eta, grad in zip(p_etas, q_etas, grads):
        result = result - sum_rightmost((q_eta - p_eta) * grad, len(q.event_shape))
    return result


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p: Exponential, q: Normal) -> Any:
    """log(λσ√(2π)) - 1 + (2/λ² - 2μ/λ + μ²)/(2σ²), from E x = 1/λ, E x² = 2/λ²"""
    var_normal = q.scale.pow(2)
    rate_sqr = p.rate.pow(2)
    t1 = 0.5 * (rate_sqr * var_normal * 2 * math.pi).log()
    t2 = rate_sqr.reciprocal()
    t3 = q.loc / p.rate
    t4 = 0.5 * q.loc.pow(2)
    return t1 - 1 + (t2 - t3 + t4) / var_normal


@register_kl(Exponential, Uniform)
@register_kl(Laplace, Exponential)
@register_kl(Laplace, Uniform)
@register_kl(Normal, Exponential)
def _kl_unbounded_infinity(p: Any, q: Any) -> Any:
    """inf: p puts mass where q has none (beyond a bounded interval, or below 0)"""
    return _infinite_like(p.rate if isinstance(p, Exponential) else p.loc)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p: Laplace, q: Normal) -> Any:
    """-log(b√2/(σ√π)) + b²/σ² + (μp - μq)²/(2σ²) - 1, from E_p (x - μq)² = 2b² + (μp - μq)²"""
    var_normal = q.scale.pow(2)
    ratio = p.scale.pow(2) / var_normal
    t1 = 0.5 * (2 * ratio / math.pi).log()
    t2 = 0.5 * p.loc.pow(2)
    t3 = p.loc * q.loc
    t4 = 0.5 * q.loc.pow(2)
    return -t1 + ratio + (t2 - t3 + t4) / var_normal - 1


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p: Normal, q: Laplace) -> Any:
    """-log(σ/b) + (σ√(2/π) e^(-d²/(2σ²)) + d erf(d/(σ√2)))/b - (1 + log(π/2))/2, d = μp - μq
    (E_p |x - μq| the folded normal's mean)"""
    gap = p.loc - q.loc
    ratio = p.scale / q.scale
    z = gap / p.scale
    t1 = ratio.log()
    t2 = math.sqrt(2 / math.pi) * p.scale * (-0.5 * z.pow(2)).exp()
    t3 = gap * (math.sqrt(0.5) * z).erf()
    return -t1 + (t2 + t3) / q.scale - 0.5 * (1 + math.log(0.5 * math.pi))


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p: Uniform, q: Exponential) -> Any:
    """λ (a + b)/2 - log((b - a)λ); inf where a < 0"""
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return result.masked_fill(p.low < q.support.lower_bound, float("inf"))


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p: Uniform, q: Normal) -> Any:
    """log(σ√(2π)/(b - a)) + ((b - a)²/12 + ((a + b)/2 - μ)²)/(2σ²)"""
    width = p.high - p.low
    t1 = (math.sqrt(2 * math.pi) * q.scale / width).log()
    t2 = width.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)
