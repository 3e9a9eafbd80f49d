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
    recorder = _subgraph.exporting()
    if recorder is not None:  # (under export: combine_fn written as a subgraph)
        return _export(recorder, combine_fn, init, xs, dim, reverse)
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


def _export(
    recorder: Any, combine_fn: Callable, init: Any, xs: Any, dim: int, reverse: bool
) -> Any:
    """As PyTorch's: ``xs`` moved to scan along dim 0 (and flipped), one
    ``torch.ops.higher_order.scan`` over the leaves, the outputs put back."""
    from .. import flip, movedim
    from ..export._control_flow import export_scan

    init_leaves, init_spec = pytree.tree_flatten(init)
    xs_leaves, xs_spec = pytree.tree_flatten(xs)
    xs_leaves = [movedim(x, dim, 0) if dim != 0 else x for x in xs_leaves]
    if reverse:
        xs_leaves = [flip(x, [0]) for x in xs_leaves]
    shapes: list = []  # (the output's structure, from the recorded call)

    def flat(*leaves: Tensor) -> list:
        carry = pytree.tree_unflatten(list(leaves[: len(init_leaves)]), init_spec)
        x = pytree.tree_unflatten(list(leaves[len(init_leaves) :]), xs_spec)
        out = combine_fn(carry, x)
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise RuntimeError(
                "combine_fn needs to produce two pytrees, one for the carries and one for "
                f"the outputs, but got {out}."
            )
        _check_carry(out[0], init)
        shapes.append(pytree.tree_structure(out[1]))
        return [*pytree.tree_leaves(out[0]), *pytree.tree_leaves(out[1])]

    def run() -> list:
        carry, ys = scan(flat_pair, init_leaves, xs_leaves)
        return [*carry, *ys]

    def flat_pair(carry: list, x: list) -> tuple:
        out = flat(*carry, *x)
        return out[: len(init_leaves)], out[len(init_leaves) :]

    out = export_scan(recorder, flat, init_leaves, xs_leaves, run)
    carry, stacked = out[: len(init_leaves)], out[len(init_leaves) :]
    if reverse:
        stacked = [flip(t, [0]) for t in stacked]
    if dim != 0:
        stacked = [movedim(t, 0, dim) if dim < t.dim() else t for t in stacked]
    return pytree.tree_unflatten(carry, init_spec), pytree.tree_unflatten(stacked, shapes[0])


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
