"""norms: TODO docstring."""

from __future__ import annotations

from ..._backend import xp
from ..._tensor import Tensor
from ...autograd.recording import KEEP, defop, np_dtype
from .. import copies, logical, reductions

# ----- reductions for the matrix norms -------------------------------------------------------


def _amax(x, dim=(-1,), keepdim=False):
    """max over dim"""
    return xp.amax(x, axis=dim, keepdims=keepdim)


def _amin(x, dim=(-1,), keepdim=False):
    """min over dim"""
    return xp.amin(x, axis=dim, keepdims=keepdim)


def _extreme_vjp(g, x, ans, dim, keepdim):
    """the gradient goes to the entries equal to the extreme, shared equally among ties"""
    hit = logical.eq(x, reductions.unreduce(ans, tuple(x.shape), dim, keepdim))
    hit = hit._data if isinstance(hit, Tensor) else hit
    count = xp.sum(hit, axis=dim, keepdims=True).astype(np_dtype(x))
    return reductions.unreduce(g, tuple(x.shape), dim, keepdim) * (hit / count)


def _extreme_jvp(t, x, ans, dim, keepdim):
    """the mean of the tangent over the entries that tie for the extreme"""
    return reductions.sum(
        _extreme_vjp(copies.clone(ans) * 0 + 1, x, ans, dim, keepdim) * t, dim=dim, keepdim=keepdim
    )


_TIES = "Ties share the gradient equally, as in PyTorch's amax/amin."

norm_amax = defop(
    "norm_amax",
    _amax,
    dtypes=KEEP,
    node="AmaxBackward0",
    vjp=_extreme_vjp,
    jvp=_extreme_jvp,
    conventions=_TIES,
)

norm_amin = defop(
    "norm_amin",
    _amin,
    dtypes=KEEP,
    node="AminBackward0",
    vjp=_extreme_vjp,
    jvp=_extreme_jvp,
    conventions=_TIES,
)
