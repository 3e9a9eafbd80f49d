"""``run_decompositions`` rule of ``scaled_dot_product_attention``: PyTorch's math form,
softmax((q √s)(kᵀ √s) + mask) v with s = 1/√E by default, its softmax made zero on rows
that are all ``-inf``, the output laid out as the CPU kernel lays it out. With
``enable_gqa`` each key and value head serves ``Hq / Hk`` query heads; with ``dropout_p``
the weights go through ``native_dropout`` and the output keeps the math form's layout."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import chainrule

from ..fx import Node
from ._decompose import Writer
from ._decompose_products import matmul


def _safe_softmax(w: Writer, scores: Node) -> Node:
    """softmax over the last dimension, 0 on rows with no finite score."""
    soft = w.call("_softmax.default", scores, -1, False)
    finite = w.call("logical_not.default", w.call("eq.Scalar", scores, -math.inf))
    empty = w.call("logical_not.default", w.call("any.dim", finite, -1, True))
    zeros = w.call(
        "full_like.default",
        soft,
        0,
        pin_memory=False,
        memory_format=chainrule.preserve_format,
    )
    return w.call("where.self", empty, zeros, soft)


def _additive(w: Writer, keep: Node, dtype: Any) -> Node:
    """A boolean mask as 0 where it keeps a score, -inf where it drops it."""
    cpu = chainrule.device("cpu")
    drop = w.call("scalar_tensor.default", -math.inf, dtype=dtype, device=cpu)
    zero = w.call("scalar_tensor.default", 0.0, dtype=dtype, layout=chainrule.strided, device=cpu)
    return w.call("where.self", keep, zero, drop)


def _lower(w: Writer, rows: int, columns: int) -> Node:
    """The causal mask of ``rows`` queries and ``columns`` keys: column - row <= 0."""
    cpu = chainrule.device("cpu")
    where = {"layout": chainrule.strided, "device": cpu, "pin_memory": False}
    ones = w.call("full.default", [rows, columns], True, dtype=chainrule.bool, **where)
    column = w.call("unsqueeze.default", w.call("arange.start_step", 0, columns, **where), -2)
    row = w.call("unsqueeze.default", w.call("arange.start_step", 0, rows, **where), -1)
    lower = w.call("le.Scalar", w.call("sub.Tensor", column, row), 0)
    return w.call("logical_and.default", lower, ones)


def _repeat_heads(w: Writer, x: Node, heads: int) -> Node:
    """``x`` (N, Hk, L, E) with each head repeated to make ``heads`` heads in all
    (``repeat_interleave`` on dim -3 as PyTorch writes it)."""
    n, h, length, e = w.values[x].shape
    if h == heads:
        return x
    grown = w.call(
        "expand.default", w.call("unsqueeze.default", x, 2), [n, h, heads // h, length, e]
    )
    grown = w.call("clone.default", grown, memory_format=chainrule.contiguous_format)
    return w.call("view.default", grown, [n, heads, length, e])


def _sdpa(
    w: Writer,
    q: Node,
    k: Node,
    v: Node,
    attn_mask: Node | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Node:
    rank = w.values[q].dim()
    same = [w.values[t].dim() for t in (k, v)] == [rank, rank]
    if not same or rank < 3 or (is_causal and attn_mask is not None) or (enable_gqa and rank != 4):
        raise NotImplementedError(
            "run_decompositions: scaled_dot_product_attention is written for query, key "
            "and value of one rank (3 or more; 4 with enable_gqa), with is_causal or "
            "attn_mask (not both), so far"
        )
    dtype = w.values[q].dtype
    if attn_mask is not None and w.values[attn_mask].dtype == chainrule.bool:
        attn_mask = _additive(w, attn_mask, dtype)
    e = w.values[q].shape[-1]
    root = math.sqrt(abs(scale) if scale is not None else 1 / math.sqrt(e))
    # (a negative scale's sign goes with the query)
    q = w.call("mul.Scalar", q, -root if scale is not None and scale < 0 else root)
    if is_causal:
        attn_mask = _additive(w, _lower(w, w.values[q].shape[-2], w.values[k].shape[-2]), dtype)
    if enable_gqa:
        heads = w.values[q].shape[-3]
        k, v = _repeat_heads(w, k, heads), _repeat_heads(w, v, heads)
    dims = list(range(rank))
    dims[-2:] = [rank - 1, rank - 2]
    kt = w.call("mul.Scalar", w.call("permute.default", k, dims), root)
    scores = matmul(w, q, kt)
    if attn_mask is not None:
        scores = w.call("add.Tensor", scores, attn_mask)
    weights = _safe_softmax(w, scores)
    if dropout_p > 0:
        weights = w.call("native_dropout.default", weights, dropout_p, True)[0]
        return matmul(w, weights, v)
    out = matmul(w, weights, v)
    if rank != 4:  # (the math kernel's own output)
        return out
    # (the output's strides are those of the CPU flash kernel's (L, N, H, E) buffer)
    out = w.call("permute.default", out, [2, 0, 1, 3])
    out = w.call("clone.default", out, memory_format=chainrule.contiguous_format)
    return w.call("permute.default", out, [1, 2, 0, 3])


ATTENTION: dict[str, Callable[..., Any]] = {
    "scaled_dot_product_attention.default": _sdpa,
}
