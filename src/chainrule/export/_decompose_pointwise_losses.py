"""``run_decompositions`` rules of the elementwise losses, each written as PyTorch's core
ATen program writes it, then reduced (``mean.default``, ``sum.dim_IntList`` over ``[]``,
or kept): ``l1_loss``, ``smooth_l1_loss``, ``huber_loss``, ``binary_cross_entropy``
(with the logs clamped at -100) and its ``_with_logits`` form, ``kl_div``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chainrule

from ..fx import Node
from ._decompose import Writer

_NONE, _MEAN, _SUM = 0, 1, 2


def reduce(w: Writer, losses: Node, reduction: int) -> Node:
    """The mean, the sum or each of ``losses``."""
    if reduction == _MEAN:
        return w.call("mean.default", losses)
    if reduction == _SUM:
        return w.call("sum.dim_IntList", losses, [])
    return losses


def _full(w: Writer, like: Node, value: float) -> Node:
    """A 0-d ``full`` of ``value`` in ``like``'s dtype."""
    return w.call(
        "full.default",
        [],
        value,
        dtype=w.values[like].dtype,
        layout=chainrule.strided,
        device=chainrule.device("cpu"),
        pin_memory=False,
    )


def _l1_loss(w: Writer, x: Node, y: Node, reduction: int = _MEAN) -> Node:
    """|x - y|."""
    return reduce(w, w.call("abs.default", w.call("sub.Tensor", x, y)), reduction)


def _smooth_l1_loss(w: Writer, x: Node, y: Node, reduction: int = _MEAN, beta: float = 1.0) -> Node:
    """d²/(2 beta) where d = |x - y| < beta, else d - beta/2."""
    beta = float(beta)
    d = w.call("abs.default", w.call("sub.Tensor", x, y))
    small = w.call("lt.Scalar", d, beta)
    square = w.call(
        "div.Tensor", w.call("mul.Tensor", w.call("pow.Tensor_Scalar", d, 2), 0.5), beta
    )
    losses = w.call("where.self", small, square, w.call("sub.Tensor", d, 0.5 * beta))
    return reduce(w, losses, reduction)


def _huber_loss(w: Writer, x: Node, y: Node, reduction: int = _MEAN, delta: float = 1.0) -> Node:
    """d²/2 where d = |x - y| < delta, else delta (d - delta/2)."""
    delta = float(delta)
    d = w.call("abs.default", w.call("sub.Tensor", x, y))
    small = w.call("lt.Scalar", d, delta)
    square = w.call("mul.Tensor", w.call("mul.Tensor", d, 0.5), d)
    linear = w.call("mul.Tensor", w.call("sub.Tensor", d, 0.5 * delta), delta)
    return reduce(w, w.call("where.self", small, square, linear), reduction)


def _binary_cross_entropy(
    w: Writer, p: Node, y: Node, weight: Node | None = None, reduction: int = _MEAN
) -> Node:
    """(y - 1) max(log(1 - p), -100) - y max(log p, -100), times the weight."""
    below = w.call("sub.Tensor", y, 1)
    log_q = w.call("log1p.default", w.call("neg.default", p))
    first = w.call("mul.Tensor", below, w.call("maximum.default", log_q, _full(w, p, -100)))
    log_p = w.call("maximum.default", w.call("log.default", p), _full(w, p, -100))
    losses = w.call("sub.Tensor", first, w.call("mul.Tensor", y, log_p))
    if weight is not None:
        losses = w.call("mul.Tensor", losses, weight)
    return reduce(w, losses, reduction)


def log_sigmoid(w: Writer, x: Node) -> Node:
    """log sigmoid(x) = min(0, x) - log1p(exp(-|x|))."""
    low = w.call("minimum.default", _full(w, x, 0), x)
    soft = w.call(
        "log1p.default", w.call("exp.default", w.call("neg.default", w.call("abs.default", x)))
    )
    return w.call("sub.Tensor", low, soft)


def _binary_cross_entropy_with_logits(
    w: Writer,
    x: Node,
    y: Node,
    weight: Node | None = None,
    pos_weight: Node | None = None,
    reduction: int = _MEAN,
) -> Node:
    """(1 - y) x - (1 + (pos_weight - 1) y) log sigmoid(x), times the weight."""
    scale = None
    if pos_weight is not None:
        scale = w.call(
            "add.Tensor", w.call("mul.Tensor", w.call("sub.Tensor", pos_weight, 1), y), 1
        )
    linear = w.call("mul.Tensor", w.call("sub.Tensor", 1, y), x)
    log_p = log_sigmoid(w, x)
    if scale is not None:
        log_p = w.call("mul.Tensor", scale, log_p)
    losses = w.call("sub.Tensor", linear, log_p)
    if weight is not None:
        losses = w.call("mul.Tensor", losses, weight)
    return reduce(w, losses, reduction)


def _scalar(w: Writer, value: float, like: Node) -> Node:
    return w.call(
        "scalar_tensor.default",
        value,
        dtype=w.values[like].dtype,
        layout=chainrule.strided,
        device=chainrule.device("cpu"),
    )


def _kl_div(
    w: Writer, x: Node, y: Node, reduction: int = _MEAN, *, log_target: bool = False
) -> Node:
    """y log y - y x (0 where y = 0, nan where y is), or exp(y) (y - x) for a log
    target."""
    if log_target:
        difference = w.call("sub.Tensor", y, x)
        losses = w.call("mul.Tensor", w.call("exp.default", y), difference)
        return reduce(w, losses, reduction)
    cross = w.call("mul.Tensor", y, x)
    zero = w.call("eq.Scalar", y, 0)
    y_log_y = w.call("mul.Tensor", y, w.call("log.default", y))
    entropy = w.call("where.self", zero, _scalar(w, 0, x), y_log_y)
    entropy = w.call("where.self", w.call("isnan.default", y), _scalar(w, float("nan"), x), entropy)
    return reduce(w, w.call("sub.Tensor", entropy, cross), reduction)


POINTWISE_LOSSES: dict[str, Callable[..., Any]] = {
    "l1_loss.default": _l1_loss,
    "smooth_l1_loss.default": _smooth_l1_loss,
    "huber_loss.default": _huber_loss,
    "binary_cross_entropy.default": _binary_cross_entropy,
    "binary_cross_entropy_with_logits.default": _binary_cross_entropy_with_logits,
    "kl_div.default": _kl_div,
}
