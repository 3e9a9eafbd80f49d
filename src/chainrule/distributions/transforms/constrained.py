"""Transforms onto constrained sets of vectors and matrices: the simplex (softmax, stick
breaking), lower Cholesky factors, positive-definite matrices and Cholesky factors of
correlation matrices."""

from __future__ import annotations

import math
from typing import Any

from .. import constraints
from .base import Transform, _size
from .elementwise import _clipped_sigmoid

__all__ = [
    "CorrCholeskyTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "SoftmaxTransform",
    "StickBreakingTransform",
]


def _need_dims(shape: Any, n: int) -> None:
    if len(shape) < n:
        raise ValueError("Too few dimensions on input")


class SoftmaxTransform(Transform):
    """y = e^x / Σ e^x over the last dim (onto the simplex; not injective, so no
    log |det J|); the inverse gives log y."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SoftmaxTransform)

    def _call(self, x: Any) -> Any:
        e = (x - x.max(-1, True)[0]).exp()
        return e / e.sum(-1, True)

    def _inverse(self, y: Any) -> Any:
        return y.log()

    def forward_shape(self, shape: Any) -> Any:
        _need_dims(shape, 1)
        return shape

    inverse_shape = forward_shape


def _stick_offsets(x: Any, n: int) -> Any:
    """log(K - k) for k = 1..n, K = n + 1: the shift that makes x = 0 the simplex's centre."""
    return (n + 1 - x.new_ones(n).cumsum(-1)).log()


class StickBreakingTransform(Transform):
    """x ∈ R^K -> y on the (K+1)-simplex by breaking a unit stick: z_k = σ(x_k - log(K+1-k)),
    y_k = z_k Π_{j<k} (1 - z_j), y_{K+1} = Π_j (1 - z_j);
    log |det J| = Σ_k (-x̃_k + log σ(x̃_k) + log y_k), x̃ the shifted x."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StickBreakingTransform)

    def _call(self, x: Any) -> Any:
        from ...nn.functional import pad

        z = _clipped_sigmoid(x - _stick_offsets(x, x.shape[-1]))
        left = (1 - z).cumprod(-1)
        return pad(z, [0, 1], value=1) * pad(left, [1, 0], value=1)

    def _inverse(self, y: Any) -> Any:
        from ... import finfo

        head = y[..., :-1]
        left = (1 - head.cumsum(-1)).clamp(min=finfo(y.dtype).tiny)
        return head.log() - left.log() + _stick_offsets(y, head.shape[-1])

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        from ...nn.functional import logsigmoid

        shifted = x - _stick_offsets(x, x.shape[-1])
        return (-shifted + logsigmoid(shifted) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape: Any) -> Any:
        _need_dims(shape, 1)
        return _size(tuple(shape[:-1]) + (shape[-1] + 1,))

    def inverse_shape(self, shape: Any) -> Any:
        _need_dims(shape, 1)
        return _size(tuple(shape[:-1]) + (shape[-1] - 1,))


class LowerCholeskyTransform(Transform):
    """A square matrix -> its strictly lower part plus the exp of its diagonal (a lower
    triangular matrix with a positive diagonal); the inverse takes the log of the
    diagonal. Not a bijection of the whole matrix space, so no log |det J|."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LowerCholeskyTransform)

    def _call(self, x: Any) -> Any:
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y: Any) -> Any:
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """A square matrix -> L Lᵀ, L its ``LowerCholeskyTransform``; the inverse goes through
    the Cholesky factor."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PositiveDefiniteTransform)

    def _call(self, x: Any) -> Any:
        lower = LowerCholeskyTransform()(x)
        return lower @ lower.mT

    def _inverse(self, y: Any) -> Any:
        from ... import linalg

        return LowerCholeskyTransform().inv(linalg.cholesky(y))


def _tril_positions(n: int, diag: int) -> tuple:
    """The (rows, cols) of the entries of an n×n matrix on or below diagonal ``diag``, row
    by row (the order in which a vector fills them)."""
    from ... import tril_indices

    rows, cols = tril_indices(n, n, offset=diag)
    return rows, cols


def _vec_to_tril(vec: Any, diag: int) -> Any:
    """The n×n matrix whose entries on or below diagonal ``diag`` are ``vec``, row by row
    (n the positive root of n² + (1 + 2 diag) n - |diag| (diag + 1) = 2 len(vec))."""
    from ... import arange, finfo

    b = 1 + 2 * diag
    root = (-b + (b**2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(root) - root > finfo(vec.dtype).eps:
        raise ValueError(
            f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
            "the lower triangular part of a square D x D matrix."
        )
    n = round(root)
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (n, n))
    index = arange(n, device=vec.device)
    mat[..., index < index.view(-1, 1) + (diag + 1)] = vec
    return mat


def _tril_to_vec(mat: Any, diag: int) -> Any:
    rows, cols = _tril_positions(mat.shape[-1], diag)
    return mat[..., rows, cols]


class CorrCholeskyTransform(Transform):
    """x ∈ R^(D(D-1)/2) -> the lower Cholesky factor of a D×D correlation matrix: x fills
    the strict lower triangle row by row, r = tanh x, and each row is a signed stick
    breaking of r² into a unit vector, y_ij = r_ij Π_{k<j} √(1 - r_ik²), y_ii the rest;
    log |det J| = ½ Σ_{j<i-1} log(1 - Σ_{k≤j} y_ik²) + Σ log(1 - tanh² x)."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x: Any) -> Any:
        from ... import eye, finfo
        from ...nn.functional import pad

        eps = finfo(x.dtype).eps
        r = _vec_to_tril(x.tanh().clamp(min=-1 + eps, max=1 - eps), -1)
        n = r.shape[-1]
        left = (1 - r**2).sqrt().cumprod(-1)
        r = r + eye(n, dtype=r.dtype, device=r.device)
        return r * pad(left[..., :-1], [1, 0], value=1)

    def _inverse(self, y: Any) -> Any:
        from ...nn.functional import pad

        rest = 1 - (y * y).cumsum(-1)
        rest = pad(rest[..., :-1], [1, 0], value=1)
        t = _tril_to_vec(y, -1) / _tril_to_vec(rest, -1).sqrt()
        return (t.log1p() - (-t).log1p()) / 2

    def log_abs_det_jacobian(self, x: Any, y: Any, intermediates: Any = None) -> Any:
        from ...nn.functional import softplus

        rest = _tril_to_vec(1 - (y * y).cumsum(-1), -2)
        stick = 0.5 * rest.log().sum(-1)
        tanh = -2 * (x + softplus(-2 * x) - math.log(2.0)).sum(-1)
        return stick + tanh

    def forward_shape(self, shape: Any) -> Any:
        _need_dims(shape, 1)
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return _size(tuple(shape[:-1]) + (d, d))

    def inverse_shape(self, shape: Any) -> Any:
        _need_dims(shape, 2)
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return _size(tuple(shape[:-2]) + (d * (d - 1) // 2,))
