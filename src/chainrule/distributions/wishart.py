"""``Wishart(df, covariance_matrix | precision_matrix | scale_tril)``: the law of
Σ_k x_k x_kᵀ for ν independent x_k ~ N(0, Σ) (ν real > p - 1), density
|X|^((ν-p-1)/2) e^(-tr(Σ⁻¹X)/2) / (2^(νp/2) |Σ|^(ν/2) Γ_p(ν/2)) on p x p positive definite
X; worked through the Cholesky factor L of Σ."""

from __future__ import annotations

import math
import warnings
from typing import Any

from . import constraints
from .chi2 import Chi2
from .distribution import Distribution, _size
from .exp_family import ExponentialFamily
from .multivariate_normal import _precision_to_scale_tril
from .utils import lazy_property

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x: Any, p: int) -> Any:
    """ψ_p(x) = Σ_{i<p} ψ(x - i/2), the derivative of log Γ_p, defined for x > (p - 1)/2."""
    from .. import arange

    if not bool(x.gt((p - 1) / 2).all()):
        raise AssertionError("Wrong domain for multivariate digamma function.")
    halves = arange(p, dtype=x.dtype, device=x.device).div(2)
    return (x.unsqueeze(-1) - halves.expand(tuple(x.shape) + (-1,))).digamma().sum(-1)


class Wishart(ExponentialFamily):
    """Wishart distributions of ``df`` = ν and scale Σ given by exactly one of
    ``covariance_matrix``, ``precision_matrix`` or ``scale_tril`` (the others computed when
    first read). ``rsample`` is the Bartlett decomposition: X = (L A)(L A)ᵀ, A lower
    triangular with A_ii = √χ²(ν - i) (``_dist_chi2``, clamped to >= eps) and standard
    normal A_ij below the diagonal, reparameterized through the χ² draws.

    ``rsample(sample_shape, max_try_correction=10)`` redraws the samples (whole batches)
    that are not positive definite up to ``max_try_correction`` times, warning "Singular
    sample detected." first. Unlike PyTorch's (which, inverting the check, warns and
    redraws once whenever a sample is *not* singular), the warning and redraws here happen
    only for singular samples."""

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        return {
            "covariance_matrix": constraints.positive_definite,
            "precision_matrix": constraints.positive_definite,
            "scale_tril": constraints.lower_cholesky,
            "df": constraints.greater_than(self.event_shape[-1] - 1),
        }

    def __init__(
        self,
        df: Any,
        covariance_matrix: Any = None,
        precision_matrix: Any = None,
        scale_tril: Any = None,
        validate_args: Any = None,
    ) -> None:
        from .. import broadcast_shapes, linalg, tensor

        given = (covariance_matrix, precision_matrix, scale_tril)
        if sum(m is not None for m in given) != 1:
            raise AssertionError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        param = next(m for m in given if m is not None)
        if param.dim() < 2:
            raise ValueError(
                "scale_tril must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        if isinstance(df, (bool, int, float)):
            batch_shape = _size(param.shape[:-2])
            self.df = tensor(df, dtype=param.dtype, device=param.device)
        else:
            batch_shape = _size(broadcast_shapes(tuple(param.shape[:-2]), tuple(df.shape)))
            self.df = df.expand(batch_shape)
        event_shape = _size(param.shape[-2:])
        p = event_shape[-1]
        if bool(self.df.le(p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        full = tuple(batch_shape) + (-1, -1)
        if scale_tril is not None:
            self.scale_tril = param.expand(full)
        elif covariance_matrix is not None:
            self.covariance_matrix = param.expand(full)
        else:
            self.precision_matrix = param.expand(full)
        if bool(self.df.lt(p).any()):
            warnings.warn(
                "Low df values detected. Singular samples are highly likely to occur for "
                "ndim - 1 < df < ndim.",
                stacklevel=2,
            )
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        self._dist_chi2 = self._chi2_of_the_diagonal()

    def _chi2_of_the_diagonal(self) -> Chi2:
        """χ²(ν - i), i = 0..p-1: the squares of the Bartlett factor's diagonal."""
        from .. import arange

        L = self._unbroadcasted_scale_tril
        p = self._event_shape[-1]
        steps = arange(p, dtype=L.dtype, device=L.device).expand(tuple(self._batch_shape) + (-1,))
        return Chi2(df=self.df.unsqueeze(-1) - steps)

    @property
    def _batch_dims(self) -> list[int]:
        return [-(k + 1) for k in range(len(self._batch_shape))]

    def expand(self, batch_shape: Any, _instance: Any = None) -> Wishart:
        """The same Wisharts broadcast to ``batch_shape`` (views of the parameters)."""
        new = _instance if _instance is not None else type(self).__new__(type(self))
        batch_shape = _size(batch_shape)
        cov_shape = tuple(batch_shape) + tuple(self._event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._dist_chi2 = new._chi2_of_the_diagonal()
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self) -> Any:
        return self._unbroadcasted_scale_tril.expand(
            tuple(self._batch_shape) + tuple(self._event_shape)
        )

    @lazy_property
    def covariance_matrix(self) -> Any:
        L = self._unbroadcasted_scale_tril
        return (L @ L.transpose(-2, -1)).expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def precision_matrix(self) -> Any:
        from .. import cholesky_solve, eye

        L = self._unbroadcasted_scale_tril
        identity = eye(self._event_shape[-1], dtype=L.dtype, device=L.device)
        return cholesky_solve(identity, L).expand(
            tuple(self._batch_shape) + tuple(self._event_shape)
        )

    def _df_as_matrices(self) -> Any:
        return self.df.view(tuple(self._batch_shape) + (1, 1))

    @property
    def mean(self) -> Any:
        """ν Σ"""
        return self._df_as_matrices() * self.covariance_matrix

    @property
    def mode(self) -> Any:
        """(ν - p - 1) Σ, nan where ν <= p + 1"""
        from .. import where

        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = where(factor <= 0, float("nan"), factor)
        return factor.view(tuple(self._batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def variance(self) -> Any:
        """Var X_ij = ν (Σ_ij² + Σ_ii Σ_jj)"""
        V = self.covariance_matrix
        d = V.diagonal(dim1=-2, dim2=-1)
        return self._df_as_matrices() * (V.pow(2) + d.unsqueeze(-1) * d.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape: Any = ()) -> Any:
        """(L A)(L A)ᵀ for one Bartlett factor A per sample."""
        from .. import finfo, randn, tril_indices

        p = self._event_shape[-1]
        diag = self._dist_chi2.rsample(sample_shape).sqrt()
        noise = diag.clamp(min=finfo(diag.dtype).eps).diag_embed(dim1=-2, dim2=-1)
        i, j = tril_indices(p, p, offset=-1)
        shape = tuple(_size(sample_shape)) + tuple(self._batch_shape) + (p * (p - 1) // 2,)
        noise[..., i, j] = randn(shape, dtype=noise.dtype, device=noise.device)
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.transpose(-2, -1)

    def _is_singular(self, sample: Any) -> Any:
        """Per sample (over the batch): whether any matrix of it is not positive definite."""
        singular = ~self.support.check(sample)
        return singular.amax(self._batch_dims) if self._batch_dims else singular

    def rsample(self, sample_shape: Any = (), max_try_correction: Any = None) -> Any:
        """Bartlett samples, the singular ones redrawn up to ``max_try_correction`` (10)
        times; samples that stay singular are returned as they are (their ``log_prob`` may
        be -inf)."""
        if max_try_correction is None:
            max_try_correction = 10
        sample = self._bartlett_sampling(_size(sample_shape))
        singular = self._is_singular(sample)
        if bool(singular.any()):
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                redrawn = self._bartlett_sampling(singular[singular].shape)
                sample[singular] = redrawn
                singular[singular.clone()] = self._is_singular(redrawn)
                if not bool(singular.any()):
                    break
        return sample

    def log_prob(self, value: Any) -> Any:
        """-ν (p log 2/2 + log|L|) - log Γ_p(ν/2) + (ν - p - 1)/2 log|X| - tr(Σ⁻¹X)/2"""
        from .. import cholesky_solve, linalg, mvlgamma

        if self._validate_args:
            self._validate_sample(value)
        nu, p = self.df, self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        log_det_l = L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace = cholesky_solve(value, L).diagonal(dim1=-2, dim2=-1).sum(dim=-1)
        return (
            -nu * (p * _LOG_2 / 2 + log_det_l)
            - mvlgamma(nu / 2, p=p)
            + (nu - p - 1) / 2 * linalg.slogdet(value).logabsdet
            - trace / 2
        )

    def entropy(self) -> Any:
        """(p + 1)(p log 2/2 + log|L|) + log Γ_p(ν/2) - (ν - p - 1)/2 ψ_p(ν/2) + νp/2"""
        from .. import mvlgamma

        nu, p = self.df, self._event_shape[-1]
        log_det_l = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return (
            (p + 1) * (p * _LOG_2 / 2 + log_det_l)
            + mvlgamma(nu / 2, p=p)
            - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p)
            + nu * p / 2
        )

    @property
    def _natural_params(self) -> tuple:
        """η = (-Σ⁻¹/2, (ν - p - 1)/2)"""
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x: Any, y: Any) -> Any:
        """A(η) = (y + (p + 1)/2)(p log 2 - log|-2x|) + log Γ_p(y + (p + 1)/2)"""
        from .. import linalg, mvlgamma

        p = self._event_shape[-1]
        half = y + (p + 1) / 2
        return half * (-linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p) + mvlgamma(half, p=p)
