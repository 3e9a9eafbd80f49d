"""Gradient edges: where a tensor's gradient enters the backward graph.

``get_gradient_edge(t)`` names the edge ``(node, output_nr)`` that ``t``'s gradient
flows into: its grad_fn and output number, or its leaf's AccumulateGrad. ``autograd.grad``
and ``autograd.backward`` take such edges in place of tensors, as outputs (the gradient
starts there) and as inputs (the gradient arriving there is returned), so the gradient
with respect to an intermediate value can be taken after the tensor itself is gone:
``grad(loss, edge)`` is ``d loss / d t`` for the ``t`` the edge was taken from.

Where chainrule differs from PyTorch: a node does not record the shapes of its outputs,
so an edge used as an output without a gradient for it (ones, for a one-element tensor)
needs its tensor's shape from ``get_gradient_edge``; an edge built by hand as
``GradientEdge(node, nr)`` from a node other than a leaf's must come with its gradient.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, NamedTuple

from .._backend import xp
from .._dtypes import _FROM_NP as _from_np
from .._tensor import Tensor, _make

if TYPE_CHECKING:
    from .graph import Node


class GradientEdge(NamedTuple):
    """An edge ``(node, output_nr)`` of the backward graph; ``ownership_token`` is kept for
    PyTorch's signature (a node here holds its graph alive itself, so it stays None)."""

    node: Node
    output_nr: int
    ownership_token: Node | None = None


# node -> {output_nr: (shape, dtype)} of the tensors whose edges were taken: a node does not
# record its outputs' metadata, and an edge used as an output needs it (an implicit
# gradient of ones, the shape check of a given one)
_outputs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def get_gradient_edge(tensor: Tensor) -> GradientEdge:
    """The edge ``tensor``'s gradient flows into: ``grad(loss, get_gradient_edge(t))`` is
    ``grad(loss, t)``."""
    if not tensor._requires_grad:
        raise RuntimeError(
            "It is not possible to get the gradient edge for a Tensor that does not require "
            "gradients"
        )
    from .graph import accumulator  # (graph.py imports this module: here, not above)

    node = tensor._grad_fn
    if node is None:
        node = accumulator(tensor)
    else:
        _outputs.setdefault(node, {})[tensor._output_nr] = (tensor._data.shape, tensor._dtype)
    return GradientEdge(node, tensor._output_nr)


def output_meta(edge: GradientEdge) -> tuple | None:
    """(shape, dtype) of the tensor whose gradient enters by ``edge``, where known."""
    from .graph import AccumulateGrad

    node = edge.node
    if node.__class__ is AccumulateGrad:
        t = node.variable
        return t._data.shape, t._dtype
    return _outputs.get(node, {}).get(edge.output_nr)


def edge_root_grad(edge: GradientEdge, g: Any, i: int, create_graph: bool) -> Any:
    """The gradient backward starts from at an edge used as an output: ``g`` checked against
    the edge's tensor (ones where ``g`` is None and that tensor has one element)."""
    meta = output_meta(edge)
    if g is None:
        if meta is None or any(s != 1 for s in meta[0]):
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        shape, dtype = meta
        if dtype._category == 3:
            raise RuntimeError(
                f"grad can be implicitly created only for real scalar outputs but got {dtype!r}"
            )
        arr = xp.ones(shape, dtype=dtype.np)
        return _make(arr, dtype) if create_graph else arr
    if not isinstance(g, Tensor):
        raise TypeError(f"gradient must be a Tensor or None, got {type(g).__name__}")
    if meta is not None and g._data.shape != meta[0]:
        raise RuntimeError(
            f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] has "
            f"a shape of torch.Size({list(meta[0])})."
        )
    if meta is not None and g._dtype is not meta[1]:
        g = g.to(meta[1])
    return g if create_graph else g._data


def edge_result(g: Any, create_graph: bool) -> Tensor:
    """The gradient captured at an edge, as ``grad`` returns it."""
    return g if create_graph else _make(g, _from_np[g.dtype])
