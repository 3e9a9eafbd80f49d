"""``run_decompositions`` rules of the common losses: ``nll_loss_nd`` (the negative
log-likelihood of each target, gathered, class-weighted, ignored targets zeroed; scores of
other ranks than 1, 2 and 4 as 4-D views), ``cross_entropy`` (log-softmax, then that;
label smoothing mixed in) and ``mse_loss`` ((x - y)², reduced), with
``broadcast_tensors`` as ``expand`` calls."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chainrule

from ..fx import Node
from ._decompose import Writer

_NONE, _MEAN, _SUM = 0, 1, 2


def _broadcast_tensors(w: Writer, tensors: list[Node]) -> list[Node]:
    """Each tensor ``expand``-ed to the common shape (itself where it has that shape)."""
    shapes = [tuple(w.values[t].shape) for t in tensors]
    shape = list(chainrule.broadcast_shapes(*shapes))
    return [
        t if list(s) == shape else w.call("expand.default", t, shape)
        for t, s in zip(tensors, shapes)
    ]


def _mse_loss(w: Writer, x: Node, y: Node, reduction: int = _MEAN) -> Node:
    """mean, sum or each of (x - y)²."""
    squares = w.call("pow.Tensor_Scalar", w.call("sub.Tensor", x, y), 2)
    if reduction == _MEAN:
        return w.call("mean.default", squares)
    if reduction == _SUM:
        return w.call("sum.dim_IntList", squares, [])
    return squares


def _scalar(w: Writer, dtype: Any, value: float = 0) -> Node:
    cpu = chainrule.device("cpu")
    return w.call("scalar_tensor.default", value, dtype=dtype, layout=chainrule.strided, device=cpu)


def _full_zero(w: Writer, dtype: Any) -> Node:
    """The 0-d total weight an unreduced loss gives too (nothing reads it)."""
    cpu = chainrule.device("cpu")
    return w.call(
        "full.default", [], 0.0, dtype=dtype, layout=chainrule.strided, device=cpu, pin_memory=False
    )


def _nll(
    w: Writer, x: Node, target: Node, weight: Node | None, reduction: int, ignore_index: int
) -> Node:
    """-x[target] along the class dimension (1, or 0 for one sample), times the class
    weight, targets ``ignore_index`` counting 0; the mean divides by the weight (or
    number) of the targets counted. The total weight is written for every reduction (and
    dropped where unread)."""
    xv, t = w.values[x], w.values[target]
    dtype, rank = xv.dtype, xv.dim()
    channel = 1 if rank > 1 else 0
    scaled = x
    if weight is not None:
        if rank > 1:
            shape = [1] * rank
            shape[channel] = xv.shape[channel]
            weight = w.call("view.default", weight, shape)
        scaled = w.call("mul.Tensor", x, weight)
    kept = w.call("ne.Scalar", target, ignore_index)
    safe = w.call("where.self", kept, target, _scalar(w, t.dtype))
    index = w.call("unsqueeze.default", safe, channel)
    picked = w.call("gather.default", scaled, channel, index)
    nll = w.call("neg.default", w.call("squeeze.dims", picked, [channel]))
    kept = w.call("ne.Scalar", target, ignore_index)
    losses = w.call("where.self", kept, nll, _scalar(w, dtype))
    if reduction == _NONE and rank > 1:
        _full_zero(w, dtype)
        return losses
    if weight is not None:
        spread = w.call("expand.default", weight, list(xv.shape))
        picked = w.call("gather.default", spread, channel, index)
        picked = w.call("squeeze.dims", picked, [channel])
        kept = w.call("ne.Scalar", target, ignore_index)
        total = w.call("sum.dim_IntList", w.call("where.self", kept, picked, _scalar(w, dtype)), [])
    else:
        count = w.call("sum.dim_IntList", w.call("ne.Scalar", target, ignore_index), [])
        total = w.call("_to_copy.default", count, dtype=dtype, device=chainrule.device("cpu"))
    if reduction == _SUM:
        return w.call("sum.dim_IntList", losses, [])
    if reduction == _MEAN:
        return w.call("div.Tensor", w.call("sum.dim_IntList", losses, []), total)
    return losses


def _nll_loss_nd(
    w: Writer,
    x: Node,
    target: Node,
    weight: Node | None = None,
    reduction: int = _MEAN,
    ignore_index: int = -100,
) -> Node:
    """``_nll`` of (C,), (N, C) and (N, C, H, W) scores; others as (N, C, 1, -1) views
    (the unreduced losses viewed back to the target's sizes)."""
    rank = w.values[x].dim()
    if rank <= 2 or rank == 4:
        return _nll(w, x, target, weight, reduction, ignore_index)
    n, c = w.values[x].shape[:2]
    target_shape = list(w.values[target].shape)
    x = w.call("view.default", x, [n, c, 1, -1])
    target = w.call("view.default", target, [n, 1, -1])
    losses = _nll(w, x, target, weight, reduction, ignore_index)
    if reduction == _NONE:
        return w.call("view.default", losses, target_shape)
    return losses


def _smoothing(
    w: Writer, log_p: Node, target: Node, nll: Node, ignore_index: int, smoothing: float
) -> Node:
    """(1 - s) nll + s/C mean over counted targets of -sum_c log p_c (mean reduction)."""
    classes = w.values[log_p].shape[1]
    spread = w.call("neg.default", w.call("sum.dim_IntList", log_p, [1]))
    ignored = w.call("eq.Scalar", target, ignore_index)
    zero = _scalar(w, w.values[log_p].dtype, 0.0)
    spread = w.call("where.self", ignored, zero, spread)
    count = w.call("sum.dim_IntList", w.call("bitwise_not.default", ignored), [])
    mean = w.call("div.Tensor", w.call("sum.dim_IntList", spread, []), count)
    smooth = w.call("mul.Scalar", mean, smoothing / classes)
    return w.call("add.Tensor", w.call("mul.Scalar", nll, 1 - smoothing), smooth)


def _cross_entropy(
    w: Writer,
    x: Node,
    target: Node,
    weight: Node | None = None,
    reduction: int = _MEAN,
    ignore_index: int = -100,
    label_smoothing: float = 0.0,
) -> Node:
    """-log softmax(x)[target] (``nll_loss_nd`` of the log-probabilities); label smoothing
    (of class indices, no weight, mean) mixes in the mean of -sum log p."""
    if w.values[target].dtype.is_floating_point or (
        label_smoothing and (weight is not None or reduction != _MEAN or w.values[x].dim() != 2)
    ):
        raise NotImplementedError(
            "run_decompositions: cross_entropy with class probabilities, or label smoothing "
            "with class weights, another reduction than the mean or scores other than "
            "(N, C), is not written yet"
        )
    log_p = w.call("_log_softmax.default", x, 1, False)
    nll = _nll_loss_nd(w, log_p, target, weight, reduction, ignore_index)
    if label_smoothing:
        return _smoothing(w, log_p, target, nll, ignore_index, label_smoothing)
    return nll


LOSSES: dict[str, Callable[..., Any]] = {
    "broadcast_tensors.default": _broadcast_tensors,
    "mse_loss.default": _mse_loss,
    "cross_entropy_loss.default": _cross_entropy,
    "nll_loss_nd.default": _nll_loss_nd,
}
