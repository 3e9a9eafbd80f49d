"""``torch.while_loop``: ``while cond_fn(*carried): carried = body_fn(*carried)``.

As PyTorch's, the body must give back what it was given: as many values, each of the
carried value's shape and dtype; ``cond_fn`` must give a bool or a 0-d bool tensor; neither
may change an input in place or return one. The gradient is the unrolled loop's, through
one ``WhileLoopAutogradOpBackward`` node.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._dtypes import bool as _bool
from .._tensor import Tensor
from ..utils import _pytree as pytree
from . import _subgraph

__all__ = ["while_loop"]

_OP = "torch.while_loop"


def while_loop(cond_fn: Callable, body_fn: Callable, carried_inputs: tuple | list) -> Any:
    """Run ``body_fn`` on the carried values while ``cond_fn`` of them holds; the last
    carried values (in the structure the body returns)."""
    if not callable(cond_fn) or not callable(body_fn):
        raise RuntimeError("Expect cond_fn and body_fn to be callable.")
    if not isinstance(carried_inputs, (tuple, list)):
        raise RuntimeError(f"carried_inputs must be a tuple or list but got {type(carried_inputs)}")
    if not all(isinstance(t, (Tensor, int)) for t in pytree.tree_leaves(carried_inputs)):
        raise RuntimeError(
            "Expect carried_inputs to be a tuple of possibly nested dict/list/tuple that only"
            f"consists of tensor or int leaves, but got {carried_inputs}."
        )
    recorder = _subgraph.exporting()
    if recorder is not None:  # (under export: condition and body written as subgraphs)
        from ..export._control_flow import export_while_loop

        return export_while_loop(recorder, cond_fn, body_fn, carried_inputs, _run)
    return _run(cond_fn, body_fn, carried_inputs)


def _run(cond_fn: Callable, body_fn: Callable, carried_inputs: tuple | list) -> Any:
    """The loop itself, as Python: the last carried values, through one node."""
    carried = tuple(carried_inputs)
    out: Any = None
    while _holds(_subgraph.call(_OP, cond_fn, carried)):
        out = _subgraph.call(_OP, body_fn, carried)
        new = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        _check_same(new, carried)
        carried = new
    if out is None:  # (no iteration: new tensors holding the inputs' values)
        out = pytree.tree_map(lambda t: t.clone() if isinstance(t, Tensor) else t, carried_inputs)
    return _subgraph.through_node("WhileLoopAutogradOp", out, carried_inputs)


def _holds(pred: Any) -> bool:
    if isinstance(pred, bool):
        return pred
    if isinstance(pred, Tensor) and pred.dim() == 0 and pred.dtype is _bool:
        return bool(pred)
    from .._dynamo.exc import UncapturedHigherOrderOpError

    got = tuple(pred.shape) if isinstance(pred, Tensor) else type(pred).__name__
    raise UncapturedHigherOrderOpError(
        f"{_subgraph._HEAD}torch.while_loop: unsupported cond_fn return type\n"
        f"  Higher Order Operator: {_OP}\n"
        "  Explanation: Expected cond_fn to return a scalar tensor or a bool but got "
        f"{got}.\n"
    )


def _describe(t: Any) -> str:
    if isinstance(t, Tensor):
        return f"Tensor(size={tuple(t.shape)}, dtype={t.dtype})"
    return repr(t)


def _check_same(new: tuple, carried: tuple) -> None:
    """Refuse a body whose outputs are not the carried values' count, shapes and dtypes."""
    from .._dynamo.exc import UncapturedHigherOrderOpError

    new_leaves = pytree.tree_leaves(new)
    old_leaves = pytree.tree_leaves(carried)
    if len(new_leaves) != len(old_leaves):
        raise UncapturedHigherOrderOpError(
            "Expected body_fn_output and carried_inputs to have same number of outputs but "
            f"got lhs:{[_describe(t) for t in new_leaves]} and "
            f"rhs:{[_describe(t) for t in old_leaves]}\n  Higher Order Operator: {_OP}\n"
        )
    for i, (a, b) in enumerate(zip(new_leaves, old_leaves)):
        if not (isinstance(a, Tensor) and isinstance(b, Tensor)):
            continue
        diffs = []
        if a.shape != b.shape:
            diffs.append(f"'shape: {a.shape} vs {b.shape}'")
        if a.dtype != b.dtype:
            diffs.append(f"'dtype: {a.dtype} vs {b.dtype}'")
        if diffs:
            raise UncapturedHigherOrderOpError(
                "Expected body_fn_output and carried_inputs to have same metadata but found:"
                f"\npair[{i}] differ in {', '.join(diffs)}, where lhs is {_describe(a)} and "
                f"rhs is {_describe(b)}\n  Higher Order Operator: {_OP}\n"
            )
