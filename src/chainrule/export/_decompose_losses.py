"""``run_decompositions`` rules of the common losses: ``cross_entropy`` (log-softmax, then
the negative log-likelihood of each target, gathered, ignored targets zeroed) and
``mse_loss`` ((x - y)², reduced), with ``broadcast_tensors`` as ``expand`` calls."""

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


def _scalar(w: Writer, dtype: Any) -> Node:
    cpu = chainrule.device("cpu")
    return w.call("scalar_tensor.default", 0, dtype=dtype, layout=chainrule.strided, device=cpu)


def _cross_entropy(
    w: Writer,
    x: Node,
    target: Node,
    weight: Node | None = None,
    reduction: int = _MEAN,
    ignore_index: int = -100,
    label_smoothing: float = 0.0,
) -> Node:
    """-log softmax(x)[target] over the (N, C) scores, targets ``ignore_index`` counting
    0; the mean divides by the number of targets counted."""
    t = w.values[target]
    if weight is not None or label_smoothing or w.values[x].dim() != 2 or t.dtype.is_floating_point:
        raise NotImplementedError(
            "run_decompositions: cross_entropy is written for (N, C) scores and class "
            "indices, with no weight and no label smoothing, so far"
        )
    dtype = w.values[x].dtype
    log_p = w.call("_log_softmax.default", x, 1, False)
    kept = w.call("ne.Scalar", target, ignore_index)
    safe = w.call("where.self", kept, target, _scalar(w, t.dtype))
    picked = w.call("gather.default", log_p, 1, w.call("unsqueeze.default", safe, 1))
    nll = w.call("neg.default", w.call("squeeze.dims", picked, [1]))
    kept = w.call("ne.Scalar", target, ignore_index)
    losses = w.call("where.self", kept, nll, _scalar(w, dtype))
    if reduction == _NONE:
        return losses
    # the count of kept targets is written for the sum too (and dropped, unread)
    count = w.call("sum.dim_IntList", w.call("ne.Scalar", target, ignore_index), [])
    if reduction == _SUM:
        return w.call("sum.dim_IntList", losses, [])
    count = w.call("_to_copy.default", count, dtype=dtype, device=chainrule.device("cpu"))
    return w.call("div.Tensor", w.call("sum.dim_IntList", losses, []), count)


LOSSES: dict[str, Callable[..., Any]] = {
    "broadcast_tensors.default": _broadcast_tensors,
    "mse_loss.default": _mse_loss,
    "cross_entropy_loss.default": _cross_entropy,
}
