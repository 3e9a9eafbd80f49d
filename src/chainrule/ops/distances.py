"""Distances between rows: pdist, the p-norm distance of every pair of rows of a matrix.

(The pairwise distance and cosine similarity of two tensors are compositions of ops, as in
PyTorch: ``api/parsers/distances.py``.)"""

from __future__ import annotations

from .._backend import xp
from ..autograd.recording import array_of, defop, floating_only
from . import gather_scatter, indexing, reductions, shapes


def _pairs(n: int) -> tuple:
    """The row indices (i, j) of every pair i < j, in PyTorch's order (row-major)."""
    return xp.triu_indices(n, k=1)


def _pdist(x, p=2.0):
    """‖x_i - x_j‖_p for each pair of rows i < j, in row-major order of the pairs"""
    i, j = _pairs(x.shape[0])
    return reductions._vector_norm(x[i] - x[j], ord=p, dim=-1)


def _differences(x):
    """x_i - x_j for every pair, as an expression (differentiable for create_graph)."""
    i, j = _pairs(array_of(x).shape[0])
    return indexing.getitem(x, key=(i,)) - indexing.getitem(x, key=(j,)), i, j


def _pdist_vjp(g, x, ans, p):
    """∂/∂x_i = Σ over the pairs (i, j) of ∂‖d‖_p/∂d at d = x_i - x_j, minus the same over
    the pairs (j, i)"""
    d, i, j = _differences(x)
    gd = reductions._vector_norm_vjp(g, d, ans, p, -1, False)
    zeros = shapes._zeros(array_of(x).shape, gd)
    return gather_scatter.index_add(zeros, i, gd) - gather_scatter.index_add(zeros, j, gd)


def _pdist_jvp(t, x, ans, p):
    """J t = Σ_k ∂‖d‖_p/∂d_k·(t_i - t_j)_k per pair (i, j), d = x_i - x_j"""
    d, i, j = _differences(x)
    td = indexing.getitem(t, key=(i,)) - indexing.getitem(t, key=(j,))
    slope = reductions._vector_norm_vjp(ans * 0 + 1, d, ans, p, -1, False)
    return reductions.sum(slope * td, dim=-1)


pdist = defop(
    "pdist",
    _pdist,
    node="PdistBackward0",
    dtypes=floating_only("pdist"),
    vjp=_pdist_vjp,
    jvp=_pdist_jvp,
    conventions="A pair at distance 0 gets no gradient (vector_norm's rule).",
)
