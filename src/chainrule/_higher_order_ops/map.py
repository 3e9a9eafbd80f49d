"""``torch._higher_order_ops.map``: ``f`` applied to each slice of ``xs`` along its first
dim (with ``*args`` passed to every call), the results stacked. The gradient is the
loop's, through one ``MapAutogradOpBackward`` node."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from ..utils import _pytree as pytree
from . import _subgraph

__all__ = ["map"]


def map(f: Callable, xs: Any, *args: Any) -> Any:  # noqa: A001 - PyTorch's name
    """``stack([f(x_i, *args) for x_i in xs])``, over the leaves of ``xs`` together."""
    from .. import stack

    flat_xs, xs_spec = pytree.tree_flatten(xs)
    if not all(isinstance(t, Tensor) for t in flat_xs):
        raise RuntimeError(f"Mapped xs can only consist of tensors. Got xs {flat_xs}.")
    shapes = [t.shape for t in flat_xs]
    n = shapes[0][0]
    if n == 0:
        raise RuntimeError("Leading dimensions of mapped xs cannot be 0.")
    if any(s[0] != n for s in shapes):
        raise RuntimeError(
            f"Leading dimensions of mapped xs must be consistent. Got shapes {shapes}."
        )
    outs = [
        _subgraph.call(
            "torch.map",
            f,
            (pytree.tree_unflatten([t[i] for t in flat_xs], xs_spec), *args),
        )
        for i in range(n)
    ]
    leaves = [pytree.tree_leaves(o) for o in outs]
    stacked = [stack([row[k] for row in leaves]) for k in range(len(leaves[0]))]
    return _subgraph.through_node(
        "MapAutogradOp", pytree.tree_unflatten(stacked, pytree.tree_structure(outs[0])), (xs, args)
    )
