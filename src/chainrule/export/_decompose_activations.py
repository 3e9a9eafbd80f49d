"""``run_decompositions`` rules of activations and mask building written as PyTorch's
decompositions write them: ``hardswish``, ``hardsigmoid``, ``relu6``, ``softplus``, ``mish``, and the
key padding mask's ``zeros_like`` + ``masked_fill_`` (``full_like`` and ``where``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chainrule

from ..fx import Node
from . import _decompose_aliases
from ._decompose import Writer


def _relu6_of_shift(w: Writer, x: Node) -> Node:
    """min(max(x + 3, 0), 6)."""
    shifted = w.call("add.Tensor", x, 3)
    return w.call("clamp.default", w.call("clamp.default", shifted, 0), None, 6)


def _hardswish(w: Writer, x: Node) -> Node:
    """x relu6(x + 3) / 6."""
    return w.call("div.Tensor", w.call("mul.Tensor", x, _relu6_of_shift(w, x)), 6)


def _hardsigmoid(w: Writer, x: Node) -> Node:
    """relu6(x + 3) / 6."""
    return w.call("div.Tensor", _relu6_of_shift(w, x), 6)


def _softplus(w: Writer, x: Node, beta: float = 1, threshold: float = 20) -> Node:
    """log(1 + exp(x)), x itself above the threshold (beta 1; other betas are kept)."""
    if beta != 1:
        return w.call("softplus.default", x, beta, threshold)
    soft = w.call("log1p.default", w.call("exp.default", x))
    return w.call("where.self", w.call("gt.Scalar", x, threshold), x, soft)


def _mish(w: Writer, x: Node) -> Node:
    """x tanh(softplus(x))."""
    return w.call("mul.Tensor", x, w.call("tanh.default", _softplus(w, x)))


def _log_sigmoid(w: Writer, x: Node) -> Node:
    from ._decompose_pointwise_losses import log_sigmoid

    return log_sigmoid(w, x)


def _glu(w: Writer, x: Node, dim: int = -1) -> Node:
    """glu(x) = a sigmoid(b), a and b the halves of x along ``dim``."""
    shape = w.values[x].shape
    dim = dim + len(shape) if dim < 0 else dim
    half = shape[dim] // 2
    a = w.call("slice.Tensor", x, dim, 0, half)
    b = w.call("slice.Tensor", x, dim, half, 2 * half)
    return w.call("mul.Tensor", a, w.call("sigmoid.default", b))


def _zeros_like(w: Writer, x: Node, **kwargs: Any) -> Node:
    kwargs.setdefault("memory_format", chainrule.preserve_format)
    return w.call("full_like.default", x, 0, **kwargs)


def _masked_fill_(w: Writer, x: Node, mask: Node, value: float) -> Node:
    """``x.masked_fill_(mask, value)`` on a value of the forward's own (a mask it builds):
    ``where(mask, value, x)``, the new value read from then on."""
    t = w.values[x]
    fill = w.call(
        "scalar_tensor.default",
        value,
        dtype=t.dtype,
        layout=chainrule.strided,
        device=chainrule.device("cpu"),
    )
    filled = w.call("where.self", mask, fill, x)
    _decompose_aliases.base(w, filled)
    return filled


ACTIVATIONS: dict[str, Callable[..., Any]] = {
    "hardswish.default": _hardswish,
    "hardsigmoid.default": _hardsigmoid,
    "relu6.default": lambda w, x: w.call("hardtanh.default", x, 0, 6),
    "softplus.default": _softplus,
    "mish.default": _mish,
    "log_sigmoid.default": _log_sigmoid,
    "glu.default": _glu,
    "clamp_min.default": lambda w, x, low: w.call("clamp.default", x, low),
    "expand_as.default": lambda w, x, other: w.call(
        "expand.default", x, list(w.values[other].shape)
    ),
    "zeros_like.default": _zeros_like,
    "masked_fill_.Scalar": _masked_fill_,
}
