"""QR in LAPACK's Householder form: ``geqrf`` (the reflectors packed below R, and their
scales τ), ``linalg.householder_product``/``orgqr`` (the Q they make) and ``ormqr`` (Q
applied to a matrix).

The reflector i is H_i = I - τ_i v_i v_iᴴ, v_i being column i of the packed matrix below
the diagonal with a 1 on it; Q = H_1 H_2 ... H_k (v_iᴴ = v_iᵀ for real matrices; for complex
ones τ_i is complex and H_iᴴ = I - τ̄_i v_i v_iᴴ). The products are compositions of
chainrule's own ops (k rank-one updates), so their gradients of any order come from those
ops: the graph holds the updates, not one node as PyTorch's does."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._dtypes import not_implemented
from ..._tensor import Tensor
from ...autograd import grad_mode
from ...ops.linalg import factorizations
from ..args import require_tensor, return_type

if TYPE_CHECKING:
    from ..args import HouseholderTau

__all__ = ["geqrf", "householder_product", "orgqr", "ormqr"]

_GEQRF = return_type("geqrf", ("a", "tau"))


def geqrf(input: Tensor, *, out: object = None) -> HouseholderTau:
    """(a, τ): R on and above a's diagonal, the reflectors' vectors below it (LAPACK's
    geqrf); no derivative, as in PyTorch."""
    from .linalg import _sharing

    input = require_tensor("geqrf", input)
    if input.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if input._dtype._category < 2 or input._dtype.itemsize < 4:
        raise not_implemented("geqrf_cpu", input._dtype)
    if input._dtype._category == 3 and input._requires_grad and grad_mode.is_grad_enabled():
        raise RuntimeError(
            "geqrf does not support automatic differentiation for outputs with complex dtype."
        )
    with _sharing():
        return _GEQRF(factorizations.geqrf_a(input), factorizations.geqrf_tau(input))


def householder_product(A: Tensor, tau: Tensor, *, out: object = None) -> Tensor:
    """The first n columns of Q = H_1 ... H_k (A m×n, k = len(τ) reflectors)."""
    name = "torch.linalg.householder_product"
    A = require_tensor("linalg_householder_product", A, name="A")
    tau = require_tensor("linalg_householder_product", tau, 2, name="tau")
    if A.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    m, n = A.shape[-2], A.shape[-1]
    if m < n:
        raise RuntimeError(
            f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]"
        )
    if tau.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if n < tau.shape[-1]:
        raise RuntimeError(
            f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]"
        )
    _check_batch(name, A, tau, "tau")
    if tau._dtype is not A._dtype:
        raise RuntimeError(
            f"{name}: tau dtype {tau._dtype.scalar_name} does not match input dtype "
            f"{A._dtype.scalar_name}"
        )
    if A._dtype._category < 2 or A._dtype.itemsize < 4:
        raise not_implemented("orgqr_cpu", A._dtype)
    from ... import eye

    q = eye(m, n, dtype=A.dtype, device=A.device).expand(*A.shape)
    return _reflect(A, tau, q, left=True, reverse=True)


def orgqr(input: Tensor, tau: Tensor) -> Tensor:
    """``linalg.householder_product`` under LAPACK's name."""
    return householder_product(input, tau)


def ormqr(
    input: Tensor,
    tau: Tensor,
    other: Tensor,
    left: bool = True,
    transpose: bool = False,
    *,
    out: object = None,
) -> Tensor:
    """Q·C, Qᴴ·C, C·Q or C·Qᴴ (``left``, ``transpose``) for Q = H_1 ... H_k of ``input``'s
    reflectors (m×m, m = input's rows), without forming Q."""
    name = "torch.ormqr"
    input = require_tensor("ormqr", input)
    tau = require_tensor("ormqr", tau, 2, name="input2")
    other = require_tensor("ormqr", other, 3, name="input3")
    if input.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if other.ndim < 2:
        raise RuntimeError(f"{name}: other must have at least 2 dimensions.")
    side = -2 if left else -1
    if other.shape[side] != input.shape[-2]:
        raise RuntimeError(f"{name}: other.shape[{side}] must be equal to input.shape[-2]")
    if tau.shape[-1] != min(other.shape[side], input.shape[-1]):
        raise RuntimeError(
            f"{name}: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])"
        )
    _check_batch(name, input, tau, "tau")
    if other.ndim != input.ndim:
        raise RuntimeError(
            f"{name}: Expected other to have the same number of dimensions as input, but got "
            f"other.ndim equal to {other.ndim} and input.ndim is equal to {input.ndim}"
        )
    if tuple(other.shape[:-2]) != tuple(input.shape[:-2]):
        raise RuntimeError(
            f"{name}: Expected batch dimensions of other to be equal to input.shape[:-2], but "
            f"got {list(other.shape[:-2])}"
        )
    for what, t in (("tau", tau), ("other", other)):
        if t._dtype is not input._dtype:
            raise RuntimeError(
                f"{name}: Expected input and {what} to have the same dtype, but input has "
                f"dtype{input._dtype.scalar_name} and {what} has dtype {t._dtype.scalar_name}"
            )
    if input._dtype._category < 2:
        raise not_implemented("ormqr_cpu", input._dtype)
    # Q C applies H_k first; Qᴴ C and C Q apply H_1 first; C Qᴴ applies H_k first
    return _reflect(input, tau, other, left=left, reverse=left != transpose, adjoint=transpose)


def _check_batch(name: str, A: Tensor, tau: Tensor, what: str) -> None:
    if tau.ndim != A.ndim - 1:
        raise RuntimeError(
            f"{name}: Expected {what} to have one dimension less than input, but got "
            f"{what}.ndim equal to {tau.ndim} and input.ndim is equal to {A.ndim}"
        )
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(
            f"{name}: Expected batch dimensions of {what} to be equal to input.shape[:-2], but "
            f"got {list(tau.shape[:-1])}"
        )


def _reflect(
    A: Tensor, tau: Tensor, C: Tensor, *, left: bool, reverse: bool, adjoint: bool = False
) -> Tensor:
    """C with the reflectors H_i = I - τ_i v_i v_iᴴ (their adjoints I - τ̄_i v_i v_iᴴ when
    ``adjoint``) applied one by one, from the left (H_i C = C - τ_i v_i (v_iᴴ C)) or the
    right (C H_i = C - τ_i (C v_i) v_iᴴ), H_1 first, or H_k first when ``reverse``."""
    from ... import eye

    k = tau.shape[-1]
    m = A.shape[-2]
    V = A[..., :k].tril(-1) + eye(m, k, dtype=A.dtype, device=A.device)
    if adjoint and tau.is_complex():
        tau = tau.conj_physical()
    for i in reversed(range(k)) if reverse else range(k):
        v = V[..., i : i + 1]  # m×1
        t = tau[..., i, None, None]
        if left:
            C = C - t * (v @ (v.mH @ C))
        else:
            C = C - t * ((C @ v) @ v.mH)
    return C
