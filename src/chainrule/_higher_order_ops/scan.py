"""``torch._higher_order_ops.scan``: a loop over ``xs`` along ``dim`` carrying a state.

``carry, y_i = combine_fn(carry, x_i)`` for each slice ``x_i`` (last to first with
``reverse``); the final carry and the ``y_i`` stacked along ``dim``. As PyTorch's,
``combine_fn`` must return a carry of ``init``'s structure, shapes and dtypes and may not
change or return its inputs. The gradient is the unrolled loop's, through one
``ScanAutogradOpBackward`` node.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from ..utils import _pytree as pytree
from . import _subgraph

__all__ = ["scan"]


def scan(
    combine_fn: Callable[[Any, Any], tuple[Any, Any]],
    init: Any,
    xs: Any,
    *,
    dim: int = 0,
    reverse: bool = False,
) -> tuple[Any, Any]:
    """The final carry and the stacked outputs of ``combine_fn`` run along ``xs``."""
    from .. import flip, movedim, stack

    init_leaves = pytree.tree_leaves(init)
    xs_leaves, xs_spec = pytree.tree_flatten(xs)
    if not xs_leaves:
        return init, []
    _validate(combine_fn, xs_leaves, init_leaves, dim, reverse)
    dim = dim + xs_leaves[0].dim() if dim < 0 else dim
    carry, ys = init, []
    steps = range(xs_leaves[0].shape[dim])
    for i in reversed(steps) if reverse else steps:
        x_i = pytree.tree_unflatten([x.select(dim, i) for x in xs_leaves], xs_spec)
        out = _subgraph.call("torch.scan", combine_fn, (carry, x_i))
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise RuntimeError(
                "combine_fn needs to produce two pytrees, one for the carries and one for "
                f"the outputs, but got {out}."
            )
        _check_carry(out[0], init)
        carry = out[0]
        ys.append(out[1])
    y_leaves = [pytree.tree_leaves(y) for y in ys]
    stacked = [stack([leaves[k] for leaves in y_leaves]) for k in range(len(y_leaves[0]))]
    carry, stacked = _subgraph.through_node("ScanAutogradOp", (carry, stacked), (init, xs))
    # as PyTorch's: in the order of the scan, then flipped back, then the dim put back
    if reverse:
        stacked = [flip(t, [0]) for t in stacked]
    if dim != 0:
        stacked = [movedim(t, 0, dim) if dim < t.dim() else t for t in stacked]
    return carry, pytree.tree_unflatten(stacked, pytree.tree_structure(ys[0]))


def _validate(fn: Any, xs: list, init: list, dim: Any, reverse: Any) -> None:
    if not callable(fn):
        raise RuntimeError(f"Combine_fn must be a callable, but got {fn}")
    if not isinstance(dim, int):
        raise RuntimeError("Dim must be an int, but got " + str(type(dim)))
    if not isinstance(reverse, bool):
        raise RuntimeError("Reverse must be a bool, but got " + str(type(reverse)))
    if not init:
        raise RuntimeError("scan() operator requires init leaves.")
    for t in init:
        if not isinstance(t, Tensor):
            raise RuntimeError(f"All init leaves must be a Tensor but got {t}")
    for t in xs:
        if not isinstance(t, Tensor):
            raise RuntimeError(f"All xs leaves must be a Tensor but got {t}")
    d = dim + xs[0].dim() if dim < 0 else dim
    if any(t.dim() <= d or t.shape[d] == 0 for t in xs):
        raise RuntimeError(
            "All xs leaves must at least have 'dim' number of dimensions and scan dimension > 0"
        )


def _check_carry(carry: Any, init: Any) -> None:
    new, new_spec = pytree.tree_flatten(carry)
    old, old_spec = pytree.tree_flatten(init)
    if new_spec != old_spec:
        raise RuntimeError(
            f"The tree structure of the inits and the carries are not identical: {old_spec} "
            f"vs {new_spec}"
        )
    for a, b in zip(new, old):
        if isinstance(a, Tensor) and (a.shape != b.shape or a.dtype != b.dtype):
            raise RuntimeError(
                "The shape of the new_carry does not match the shape of the init: "
                f"{tuple(a.shape)} {a.dtype} vs {tuple(b.shape)} {b.dtype}"
            )
