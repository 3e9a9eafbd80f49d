"""``LowRankMultivariateNormal(loc, cov_factor, cov_diag)``: the Gaussian over vectors of
covariance Σ = W Wᵀ + D (W of shape n × m, D diagonal), worked through the m × m
capacitance matrix C = I + Wᵀ D⁻¹ W: log|Σ| = log|C| + log|D| (the determinant lemma) and
Σ⁻¹ = D⁻¹ - D⁻¹ W C⁻¹ Wᵀ D⁻¹ (Woodbury); and its KL divergences with ``MultivariateNormal``."""

from __future__ import annotations

import math
from typing import Any

from . import constraints
from .distribution import Distribution, _size
from .kl import register_kl
from .multivariate_normal import MultivariateNormal, _mahalanobis
from .utils import lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _batch_mv(A: Any, x: Any) -> Any:
    """A x over the last dims, batch dims broadcast."""
    return (A @ x.unsqueeze(-1)).squeeze(-1)


def _batch_capacitance_tril(W: Any, D: Any) -> Any:
    """The lower Cholesky factor of C = I + Wᵀ D⁻¹ W."""
    from .. import eye, linalg

    m = W.shape[-1]
    K = (W.mT / D.unsqueeze(-2)) @ W + eye(m, dtype=W.dtype, device=W.device)
    return linalg.cholesky(K)


def _batch_lowrank_logdet(W: Any, D: Any, capacitance_tril: Any) -> Any:
    """log|W Wᵀ + D| = log|C| + Σ log D"""
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + D.log().sum(-1)


def _batch_lowrank_mahalanobis(W: Any, D: Any, x: Any, capacitance_tril: Any) -> Any:
    """xᵀ (W Wᵀ + D)⁻¹ x = Σ x²/D - |L_C⁻¹ Wᵀ D⁻¹ x|²"""
    Wt_Dinv_x = _batch_mv(W.mT / D.unsqueeze(-2), x)
    return (x.pow(2) / D).sum(-1) - _mahalanobis(capacitance_tril, Wt_Dinv_x)


def _batch_trace_XXT(X: Any) -> Any:  # noqa: N802 - the math's name
    """tr(X Xᵀ), the sum of the squares of X's entries"""
    return X.pow(2).sum((-2, -1))


class LowRankMultivariateNormal(Distribution):
    """Multivariate normal distributions of mean ``loc`` (batch + (n,)) and covariance
    ``cov_factor`` ``cov_factor``ᵀ + diag(``cov_diag``) (factor batch + (n, m), diagonal
    batch + (n,)). log p(x) = -(n log 2π + log|Σ| + (x - μ)ᵀ Σ⁻¹ (x - μ))/2 through the
    capacitance matrix; ``rsample`` is μ + W ε_m + √D ε_n, differentiable in all three."""

    arg_constraints = {
        "loc": constraints.real_vector,
        "cov_factor": constraints.independent(constraints.real, 2),
        "cov_diag": constraints.independent(constraints.positive, 1),
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Any, cov_factor: Any, cov_diag: Any, validate_args: Any = None):
        from .. import broadcast_tensors

        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError(
                "cov_factor must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        if tuple(cov_factor.shape[-2:-1]) != tuple(event_shape):
            raise ValueError(
                f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m"
            )
        if tuple(cov_diag.shape[-1:]) != tuple(event_shape):
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:
            loc_, self.cov_factor, cov_diag_ = broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1)
            )
        except RuntimeError as e:
            raise ValueError(
                f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, "
                f"cov_diag {cov_diag.shape}"
            ) from e
        self.loc = loc_[..., 0]
        self.cov_diag = cov_diag_[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        """The broadcast parameters expanded; the unbroadcast factor, diagonal and
        capacitance shared (their batch dims need not be the batch shape)."""
        batch = _size(batch_shape)
        new = _instance if _instance is not None else type(self).__new__(type(self))
        loc_shape = tuple(batch) + tuple(self.event_shape)
        new.loc = self.loc.expand(loc_shape)
        new.cov_diag = self.cov_diag.expand(loc_shape)
        new.cov_factor = self.cov_factor.expand(loc_shape + tuple(self.cov_factor.shape[-1:]))
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        Distribution.__init__(new, batch, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self) -> tuple:
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @property
    def mean(self) -> Any:
        return self.loc

    @property
    def mode(self) -> Any:
        return self.loc

    @lazy_property
    def variance(self) -> Any:  # type: ignore[override]
        """diag Σ = Σ_j W_ij² + D_i"""
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return (W.pow(2).sum(-1) + D).expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def scale_tril(self) -> Any:
        """L = √D chol(I + D^(-1/2) W Wᵀ D^(-1/2)), so that L Lᵀ = Σ"""
        from .. import eye, linalg

        n = self._event_shape[0]
        sqrt_d = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        V = self._unbroadcasted_cov_factor / sqrt_d
        K = V @ V.mT + eye(n, dtype=V.dtype, device=V.device)
        return (sqrt_d * linalg.cholesky(K)).expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> Any:
        """W Wᵀ + diag D"""
        from .. import diag_embed

        W = self._unbroadcasted_cov_factor
        return (W @ W.mT + diag_embed(self._unbroadcasted_cov_diag)).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Any:
        """D⁻¹ - Aᵀ A, A = L_C⁻¹ Wᵀ D⁻¹ (Woodbury)"""
        from .. import diag_embed, linalg

        D = self._unbroadcasted_cov_diag
        A = linalg.solve_triangular(
            self._capacitance_tril, self._unbroadcasted_cov_factor.mT / D.unsqueeze(-2), upper=False
        )
        return (diag_embed(D.reciprocal()) - A.mT @ A).expand(self._matrix_shape())

    def rsample(self, sample_shape: Any = ()) -> Any:
        from .. import randn

        shape = tuple(self._extended_shape(sample_shape))
        eps_W = randn(shape[:-1] + tuple(self.cov_factor.shape[-1:]), dtype=self.loc.dtype)
        eps_D = randn(shape, dtype=self.loc.dtype)
        return (
            self.loc
            + _batch_mv(self._unbroadcasted_cov_factor, eps_W)
            + self._unbroadcasted_cov_diag.sqrt() * eps_D
        )

    def log_prob(self, value: Any) -> Any:
        """-(n log 2π + log|Σ| + (x - μ)ᵀ Σ⁻¹ (x - μ))/2"""
        if self._validate_args:
            self._validate_sample(value)
        W, D, C = (
            self._unbroadcasted_cov_factor,
            self._unbroadcasted_cov_diag,
            self._capacitance_tril,
        )
        M = _batch_lowrank_mahalanobis(W, D, value - self.loc, C)
        log_det = _batch_lowrank_logdet(W, D, C)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + log_det + M)

    def entropy(self) -> Any:
        """(n (1 + log 2π) + log|Σ|)/2"""
        W, D, C = (
            self._unbroadcasted_cov_factor,
            self._unbroadcasted_cov_diag,
            self._capacitance_tril,
        )
        H = 0.5 * (
            self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + _batch_lowrank_logdet(W, D, C)
        )
        return H if len(self._batch_shape) == 0 else H.expand(self._batch_shape)


def _event_shapes_match(p: Distribution, q: Distribution, what: str) -> None:
    if p.event_shape != q.event_shape:
        raise ValueError(
            f"KL-divergence between two {what} with                          different event "
            "shapes cannot be computed"
        )


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_lowrank(p: LowRankMultivariateNormal, q: LowRankMultivariateNormal) -> Any:
    """(log|Σq|/|Σp| + tr(Σq⁻¹ Σp) + (μq - μp)ᵀ Σq⁻¹ (μq - μp) - n)/2, with
    Σq⁻¹ = Dq⁻¹ - Aᵀ A (Woodbury) expanding the trace"""
    from .. import linalg

    _event_shapes_match(p, q, "Low Rank Multivariate Normals")
    Wp, Dp = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    Wq, Dq = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag
    term1 = _batch_lowrank_logdet(Wq, Dq, q._capacitance_tril) - _batch_lowrank_logdet(
        Wp, Dp, p._capacitance_tril
    )
    term3 = _batch_lowrank_mahalanobis(Wq, Dq, q.loc - p.loc, q._capacitance_tril)
    A = linalg.solve_triangular(q._capacitance_tril, Wq.mT / Dq.unsqueeze(-2), upper=False)
    term21 = (Dp / Dq).sum(-1)
    term22 = _batch_trace_XXT(Wp * Dq.rsqrt().unsqueeze(-1))
    term23 = _batch_trace_XXT(A * Dp.sqrt().unsqueeze(-2))
    term24 = _batch_trace_XXT(A @ Wp)
    term2 = term21 + term22 - term23 - term24
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_mvn_lowrank(p: MultivariateNormal, q: LowRankMultivariateNormal) -> Any:
    """the same with Σp = Lp Lpᵀ: tr(Σq⁻¹ Σp) = |Dq^(-1/2) Lp|² - |A Lp|²"""
    from .. import linalg

    _event_shapes_match(p, q, "(Low Rank) Multivariate Normals")
    Lp = p._unbroadcasted_scale_tril
    Wq, Dq = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag
    term1 = _batch_lowrank_logdet(Wq, Dq, q._capacitance_tril) - 2 * Lp.diagonal(
        dim1=-2, dim2=-1
    ).log().sum(-1)
    term3 = _batch_lowrank_mahalanobis(Wq, Dq, q.loc - p.loc, q._capacitance_tril)
    A = linalg.solve_triangular(q._capacitance_tril, Wq.mT / Dq.unsqueeze(-2), upper=False)
    term2 = _batch_trace_XXT(Lp * Dq.rsqrt().unsqueeze(-1)) - _batch_trace_XXT(A @ Lp)
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank_mvn(p: LowRankMultivariateNormal, q: MultivariateNormal) -> Any:
    """the same with Σq = Lq Lqᵀ: tr(Σq⁻¹ Σp) = |Lq⁻¹ Wp|² + |Lq⁻¹ √Dp|²"""
    from .. import broadcast_shapes, diag_embed, linalg

    _event_shapes_match(p, q, "(Low Rank) Multivariate Normals")
    Lq = q._unbroadcasted_scale_tril
    Wp, Dp = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    term1 = 2 * Lq.diagonal(dim1=-2, dim2=-1).log().sum(-1) - _batch_lowrank_logdet(
        Wp, Dp, p._capacitance_tril
    )
    term3 = _mahalanobis(Lq, q.loc - p.loc)
    batch = tuple(broadcast_shapes(tuple(Lq.shape[:-2]), tuple(Wp.shape[:-2])))
    n = p.event_shape[0]
    Lq_b = Lq.expand(batch + (n, n))
    Wp_b = Wp.expand(batch + (n, p.cov_factor.shape[-1]))
    sqrt_Dp = diag_embed(Dp.sqrt()).expand(batch + (n, n))
    term21 = _batch_trace_XXT(linalg.solve_triangular(Lq_b, Wp_b, upper=False))
    term22 = _batch_trace_XXT(linalg.solve_triangular(Lq_b, sqrt_Dp, upper=False))
    return 0.5 * (term1 + term21 + term22 + term3 - p.event_shape[0])
