"""``run_decompositions`` rules of ``selu``, ``celu``, ``prelu`` and ``instance_norm``,
written as the core ATen calls PyTorch's decompositions of them make. Instance norm is
batch norm over one batch of ``N * C`` channels; with running statistics in training,
each buffer's new value is the mean over the batch of the ``N`` copies' updates."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chainrule

from ..fx import Node
from ._decompose import Writer

# selu(x) = scale elu(x, alpha)
_SELU_ALPHA = 1.6732632423543772
_SELU_SCALE = 1.0507009873554805


def _selu(w: Writer, x: Node) -> Node:
    """selu(x) = scale (x if x > 0 else alpha (eˣ - 1)): ``elu`` with selu's constants."""
    return w.call("elu.default", x, _SELU_ALPHA, _SELU_SCALE)


def _celu(w: Writer, x: Node, alpha: float = 1.0) -> Node:
    """celu(x) = x if x > 0 else alpha (e^(x/alpha) - 1)."""
    if alpha == 1:
        below = w.call("expm1.default", x)
    else:
        scaled = w.call("expm1.default", w.call("div.Tensor", x, alpha))
        below = w.call("mul.Tensor", scaled, alpha)
    return w.call("where.self", w.call("gt.Scalar", x, 0), x, below)


def _prelu(w: Writer, x: Node, weight: Node) -> Node:
    """prelu(x) = x if x > 0 else weight x, the weight laid along the channels (dim 1)."""
    rank, weights = w.values[x].dim(), w.values[weight]
    if rank >= 2:
        sizes = [1] * rank
        sizes[1] = weights.numel()
        weight = w.call("view.default", weight, sizes)
    elif rank == 0 and weights.dim() == 1:
        weight = w.call("view.default", weight, [])
    positive = w.call("gt.Scalar", x, 0)
    return w.call("where.self", positive, x, w.call("mul.Tensor", weight, x))


def _updated_stat(w: Writer, buffer: Node, update: Node, sizes: list[int]) -> None:
    """``buffer``'s new value: the mean over the batch of its ``N`` copies' updates (the
    alias and copy of PyTorch's functionalized in-place write, names included)."""
    alias = w.call("alias.default", buffer)
    w.call("view.default", update, sizes)  # (PyTorch's first view, unread)
    mean = w.call("mean.dim", w.call("view.default", update, sizes), [0])
    new = w.call("alias.default", w.call("copy.default", alias, mean))
    w.call("alias.default", new)  # (the view read back from the new value, unread)
    w.mutate(buffer, new)


def _instance_norm(
    w: Writer,
    x: Node,
    weight: Node | None,
    bias: Node | None,
    running_mean: Node | None,
    running_var: Node | None,
    use_input_stats: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool = False,
) -> Node:
    """Batch norm of ``x`` viewed as ``[1, N C, ...]``, its per-channel tensors repeated
    ``N`` times, viewed back to ``x``'s sizes."""
    value = w.values[x]
    sizes = list(value.shape)
    n, c = sizes[0], sizes[1]
    weight, bias, mean, var = (
        None if t is None else w.call("repeat.default", t, [n])
        for t in (weight, bias, running_mean, running_var)
    )
    if not value.is_contiguous():
        x = w.call("clone.default", x, memory_format=chainrule.contiguous_format)
    flat = w.call("view.default", x, [1, n * c, *sizes[2:]])
    if mean is None or var is None:
        out = w.call("_native_batch_norm_legit.no_stats", flat, weight, bias, True, momentum, eps)
    elif not use_input_stats:
        overload = "_native_batch_norm_legit_no_training.default"
        out = w.call(overload, flat, weight, bias, mean, var, momentum, eps)
    else:
        overload = "_native_batch_norm_legit_functional.default"
        out = w.call(overload, flat, weight, bias, mean, var, True, momentum, eps)
        _updated_stat(w, running_mean, out[3], [n, c])
        _updated_stat(w, running_var, out[4], [n, c])
    return w.call("view.default", out[0], sizes)


NORMS: dict[str, Callable[..., Any]] = {
    "selu.default": _selu,
    "celu.default": _celu,
    "prelu.default": _prelu,
    "instance_norm.default": _instance_norm,
}
