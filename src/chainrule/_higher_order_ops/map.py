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
    recorder = _subgraph.exporting()
    if recorder is not None:  # (under export: f written as a subgraph)
        return _export(recorder, f, flat_xs, xs_spec, args)
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


def _export(recorder: Any, f: Callable, flat_xs: list, xs_spec: Any, args: tuple) -> Any:
    """One ``torch.ops.higher_order.map_impl`` over the leaves of ``xs`` and ``args``."""
    from ..export._control_flow import export_map

    flat_args, args_spec = pytree.tree_flatten(args)
    structure: list = []  # (the output's structure, from the recorded call)

    def flat(*leaves: Any) -> list:
        x = pytree.tree_unflatten(list(leaves[: len(flat_xs)]), xs_spec)
        rest = pytree.tree_unflatten(list(leaves[len(flat_xs) :]), args_spec)
        out = f(x, *rest)
        structure.append(pytree.tree_structure(out))
        return pytree.tree_leaves(out)

    def run() -> list:
        xs = pytree.tree_unflatten(flat_xs, xs_spec)
        return pytree.tree_leaves(map(f, xs, *args))

    out = export_map(recorder, flat, flat_xs, flat_args, run)
    return pytree.tree_unflatten(out, structure[0])
