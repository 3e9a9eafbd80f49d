"""Embeddings: rows of a weight matrix looked up by index (embedding), and summed,
averaged or maximized over bags of indices (embedding_bag).

The gradient of the weight is the output gradient's rows added back at the indices they
were read from (index_add: repeated indices add up), none to padding_idx; the indices
themselves have none. The bags are given to the ops as each index's bag number."""

from __future__ import annotations

from .._backend import ndarray, xp
from ..autograd.recording import KEEP, array_of, defop, floating_only
from . import gather_scatter, indexing, logical, reductions, shapes

# ----- embedding -------------------------------------------------------------------------------


def _embedding(weight, indices=None, padding_idx=-1, scale_grad_by_freq=False):
    """weight's rows at indices: out[..., :] = weight[indices[...], :]"""
    return weight[indices]


def _row_scales(indices, padding_idx, scale_grad_by_freq, dtype):
    """Per index: 0 at padding_idx, 1/(its count among the indices) with
    scale_grad_by_freq, else 1 (None when every scale is 1)."""
    if padding_idx < 0 and not scale_grad_by_freq:
        return None
    scale = xp.ones(indices.shape, dtype=dtype)
    if scale_grad_by_freq:
        _, where, counts = xp.unique(indices, return_inverse=True, return_counts=True)
        scale = scale / counts[where.reshape(indices.shape)]
    if padding_idx >= 0:
        scale = xp.where(indices == padding_idx, 0, scale).astype(dtype)
    return scale


def _embedding_vjp(g, weight_shape, indices, padding_idx, scale_grad_by_freq):
    """∂/∂weight: g's rows added at their indices (repeats add up), none at padding_idx;
    with scale_grad_by_freq each row ÷ its index's count"""
    flat = indices.reshape(-1)
    if g.__class__ is ndarray and padding_idx < 0 and not scale_grad_by_freq:
        # arrays: the rows added into zeros directly (index_add's rounds, without its copy
        # of the zeros and its op: the same bits, tests/nn/test_layer_sparse.py)
        out = xp.zeros(weight_shape, dtype=g.dtype)
        indexing.add_rows_at(out, flat, g.reshape(flat.size, weight_shape[1]), zeros=True)
        return out
    rows = shapes.reshape(g, (flat.size, weight_shape[1]))
    scale = _row_scales(flat, padding_idx, scale_grad_by_freq, array_of(g).dtype)
    if scale is not None:
        rows = rows * scale[:, None]
    zeros = xp.zeros(weight_shape, dtype=array_of(g).dtype)
    return gather_scatter.index_add(zeros, flat, rows)


embedding = defop(
    "embedding",
    _embedding,
    args=("weight",),
    node="EmbeddingBackward0",
    dtypes=KEEP,  # (any weight, as PyTorch's: integers, bools, complex numbers too)
    vjp=_embedding_vjp,
    jvp=lambda t, indices: indexing.getitem(t, key=indices),  # J t = t's rows at indices
    conventions="No backward on complex values (PyTorch refuses it); forward mode takes them.",
    complex="refuse",
)

# ----- embedding_bag: bags of indices ------------------------------------------------------------


def _bag_weights(indices, bags, n_bags, mode, padding_idx, dtype):
    """Per index: its share of its bag's sum (1/count for 'mean'), 0 at padding_idx."""
    kept = indices != padding_idx if padding_idx is not None else xp.ones(indices.shape, bool)
    share = kept.astype(dtype)
    if mode == "mean":
        counts = xp.bincount(bags[kept], minlength=n_bags)
        share = (share / xp.maximum(counts, 1)[bags]).astype(dtype)
    return share, kept


def _segment_sum(rows, bags, n_bags: int, width: int):
    """Σ of the rows in each bag: (n_bags, width), 0 for an empty bag"""
    zeros = xp.zeros((n_bags, width), dtype=array_of(rows).dtype)
    return gather_scatter.index_add(zeros, bags, rows)


def _bag_maxima(rows, bags, n_bags: int, kept):
    """The max of each bag per column, 0 for an empty bag, and the position (into the
    indices) it was read from (n where the bag is empty)."""
    n, width = rows.shape
    out = xp.full((n_bags, width), -xp.inf, dtype=rows.dtype)
    xp.maximum.at(out, bags[kept], rows[kept])
    hit = (rows == out[bags]) & kept[:, None]
    positions = xp.where(hit, xp.arange(n)[:, None], n)
    first = xp.full((n_bags, width), n)
    xp.minimum.at(first, bags, positions)
    return xp.where(first < n, out, 0).astype(rows.dtype), first


def _embedding_bag(
    weight,
    per_sample_weights,
    indices=None,
    bags=None,
    n_bags=0,
    mode="mean",
    padding_idx=None,
    scale_grad_by_freq=False,
):
    """Per bag, the sum ('sum', each row times its per-sample weight), mean or max of the
    rows of weight at its indices, padding_idx left out; an empty bag gives 0"""
    rows = weight[indices]
    share, kept = _bag_weights(indices, bags, n_bags, mode, padding_idx, weight.dtype)
    if mode == "max":
        return _bag_maxima(rows, bags, n_bags, kept)[0]
    if per_sample_weights is not None:
        share = share * per_sample_weights
    return _segment_sum(rows * share[:, None], bags, n_bags, weight.shape[1])


def _max_reads(indices, bags, n_bags, padding_idx, weight):
    """For 'max': per (bag, column), whether it read a row, and the weight's row it read."""
    share, kept = _bag_weights(indices, bags, n_bags, "max", padding_idx, weight.dtype)
    _, first = _bag_maxima(weight[indices], bags, n_bags, kept)
    read = first < indices.size
    if not indices.size:  # (no row read: every bag empty)
        return read, xp.zeros(first.shape, dtype=indices.dtype)
    return read, indices[xp.where(read, first, 0)]


def _bag_weight_vjp(
    g, weight, per_sample_weights, indices, bags, n_bags, mode, padding_idx, scale_grad_by_freq
):
    """∂/∂weight: each bag's gradient added at the rows it read ('max': only the row each
    column's max came from), times the index's share (per-sample weight, 1/count), none
    at padding_idx; ÷ the index's count with scale_grad_by_freq"""
    wa = array_of(weight)
    dtype = array_of(g).dtype
    if mode == "max":
        read, rows = _max_reads(indices, bags, n_bags, padding_idx, wa)
        cols = xp.broadcast_to(xp.arange(wa.shape[1]), read.shape)
        zeros = xp.zeros(wa.shape, dtype=dtype)
        picked = indexing.getitem(g, key=(read,))
        return gather_scatter.index_put_accumulate(zeros, picked, key=(rows[read], cols[read]))
    share, _ = _bag_weights(indices, bags, n_bags, mode, padding_idx, dtype)
    if scale_grad_by_freq:
        share = share * _row_scales(indices, -1, True, dtype)
    rows = indexing.getitem(g, key=bags) * share[:, None]
    if per_sample_weights is not None:
        rows = rows * shapes.unsqueeze(per_sample_weights, dim=1)
    return gather_scatter.index_add(xp.zeros(wa.shape, dtype=dtype), indices, rows)


def _bag_weight_jvp(t, weight, per_sample_weights, indices, bags, n_bags, mode, padding_idx):
    """J t = the same sum, mean or (at the rows the max came from) max of t's rows"""
    wa = array_of(weight)
    if mode == "max":
        read, rows = _max_reads(indices, bags, n_bags, padding_idx, wa)
        cols = xp.broadcast_to(xp.arange(wa.shape[1]), read.shape)
        return logical.select(read, indexing.getitem(t, key=(rows, cols)), 0.0)
    share, _ = _bag_weights(indices, bags, n_bags, mode, padding_idx, wa.dtype)
    rows = indexing.getitem(t, key=indices) * share[:, None]
    if per_sample_weights is not None:
        rows = rows * shapes.unsqueeze(per_sample_weights, dim=1)
    return _segment_sum(rows, bags, n_bags, wa.shape[1])


def _kept(indices, padding_idx, dtype):
    if padding_idx is None:
        return xp.ones(indices.shape, dtype=dtype)
    return (indices != padding_idx).astype(dtype)


embedding_bag = defop(
    "embedding_bag",
    _embedding_bag,
    args=("weight", "per_sample_weights"),
    node="EmbeddingBagBackward0",
    dtypes=floating_only("embedding_bag"),
    vjp=(
        _bag_weight_vjp,
        lambda g, weight, indices, bags, padding_idx: (
            reductions.sum(
                indexing.getitem(g, key=bags) * indexing.getitem(weight, key=indices), dim=1
            )
            * _kept(indices, padding_idx, array_of(g).dtype)
        ),  # ∂/∂w_i = g[bag_i]·weight[index_i]
    ),
    jvp=(
        _bag_weight_jvp,
        lambda t, weight, indices, bags, n_bags, padding_idx: _segment_sum(
            indexing.getitem(weight, key=indices)
            * shapes.unsqueeze(t * _kept(indices, padding_idx, array_of(t).dtype), dim=1),
            bags,
            n_bags,
            array_of(weight).shape[1],
        ),  # J t = Σ over each bag of t_i·weight[index_i]
    ),
    conventions="'max' sends each column's gradient to the first row that attains the max; "
    "an empty bag gives 0 and sends none.",
)
