"""``kl_divergence(p, q)``: KL(p ‖ q) = E_p[log p - log q] in closed form, for the pairs of
families registered (``register_kl`` adds more)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .bernoulli import Bernoulli
from .categorical import Categorical
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
