"""``MultivariateNormal(loc, covariance_matrix | precision_matrix | scale_tril)``: the
Gaussian over vectors, worked through the Cholesky factor L of the covariance (Σ = L Lᵀ):
log p(x) = -(k log 2π + |L⁻¹(x - μ)|²)/2 - Σ log diag L."""

from __future__ import annotations

import math
from typing import Any

from . import constraints
from .distribution import Distribution
from .utils import lazy_property

__all__ = ["MultivariateNormal"]


def _mahalanobis(L: Any, x: Any) -> Any:
    """|L⁻¹x|² over the last dim, L and x broadcast over their batch dims."""
    from .. import broadcast_shapes, linalg

    n = x.shape[-1]
    batch = broadcast_shapes(tuple(L.shape[:-2]), tuple(x.shape[:-1]))
    y = linalg.solve_triangular(
        L.expand(*batch, n, n), x.expand(*batch, n).unsqueeze(-1), upper=False
    )
    return y.squeeze(-1).pow(2).sum(-1)


def _precision_to_scale_tril(P: Any) -> Any:
    """The lower Cholesky factor of P⁻¹, from the Cholesky factor of P with its rows and
    columns reversed (no inverse of P formed)."""
    from .. import eye, linalg

    Lf = linalg.cholesky(P.flip(-2, -1))
    L_inv = Lf.flip(-2, -1).transpose(-2, -1)
    identity = eye(P.shape[-1], dtype=P.dtype, device=P.device)
    return linalg.solve_triangular(L_inv, identity, upper=False)


class MultivariateNormal(Distribution):
    """Multivariate normal distributions of mean ``loc`` given by exactly one of
    ``covariance_matrix``, ``precision_matrix`` or ``scale_tril`` (the others computed when
    first read); ``rsample`` is μ + L ε, ε ~ N(0, I)."""

    arg_constraints = {
        "loc": constraints.independent(constraints.real, 1),
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.independent(constraints.real, 1)
    has_rsample = True

    def __init__(
        self,
        loc: Any,
        covariance_matrix: Any = None,
        precision_matrix: Any = None,
        scale_tril: Any = None,
        validate_args: Any = None,
    ) -> None:
        from .. import broadcast_shapes, linalg

        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m is not None for m in (covariance_matrix, precision_matrix, scale_tril)]
        if sum(given) != 1:
            raise ValueError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        name, matrix = next(
            (n, m)
            for n, m in (
                ("scale_tril", scale_tril),
                ("covariance_matrix", covariance_matrix),
                ("precision_matrix", precision_matrix),
            )
            if m is not None
        )
        if matrix.dim() < 2:
            raise ValueError(
                f"{name} matrix must be at least two-dimensional, with optional leading batch "
                "dimensions"
                if name == "scale_tril"
                else f"{name} must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        batch = broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1]))
        setattr(self, name, matrix.expand(*batch, -1, -1))
        self.loc = loc.expand(*batch, -1)
        super().__init__(batch, self.loc.shape[-1:], validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = linalg.cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(matrix)

    @lazy_property
    def scale_tril(self) -> Any:
        return self._unbroadcasted_scale_tril.expand(
            *self._batch_shape, *self._event_shape, *self._event_shape
        )

    @lazy_property
    def covariance_matrix(self) -> Any:
        L = self._unbroadcasted_scale_tril
        return (L @ L.mT).expand(*self._batch_shape, *self._event_shape, *self._event_shape)

    @lazy_property
    def precision_matrix(self) -> Any:
        from .. import cholesky_inverse

        return cholesky_inverse(self._unbroadcasted_scale_tril).expand(
            *self._batch_shape, *self._event_shape, *self._event_shape
        )

    @property
    def mean(self) -> Any:
        return self.loc

    @property
    def mode(self) -> Any:
        return self.loc

    @property
    def variance(self) -> Any:
        return (
            self._unbroadcasted_scale_tril.pow(2)
            .sum(-1)
            .expand(*self._batch_shape, *self._event_shape)
        )

    def rsample(self, sample_shape: Any = ()) -> Any:
        from .. import randn

        shape = self._extended_shape(sample_shape)
        eps = randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value: Any) -> Any:
        """-(k log 2π + |L⁻¹(x - μ)|²)/2 - Σ log diag L"""
        if self._validate_args:
            self._validate_sample(value)
        m = _mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + m) - half_log_det

    def entropy(self) -> Any:
        """k (1 + log 2π)/2 + Σ log diag L"""
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        h = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        return h if len(self._batch_shape) == 0 else h.expand(*self._batch_shape)
