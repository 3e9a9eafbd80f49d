"""What the control-flow operators share: running a user's function as a subgraph.

PyTorch traces a control-flow operator's functions (with ``torch.compile``, even in eager
mode) before it runs them, and refuses one that changes an input in place or returns an
input (or a view of one). chainrule runs the functions directly, recording as any code
does, so gradients flow through them, closures included; it refuses the same functions,
after the call. The outputs then pass through one identity node named as PyTorch's
(``CondAutogradOpBackward`` ...), whose gradient is the incoming one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._backend import xp_of
from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd.function import Function
from ..utils import _pytree as pytree

_HEAD = (
    "This higher order operator doesn't work unless it is captured completely with "
    "torch.compile. Got graph break/error:\n\n"
)


def exporting() -> Any:
    """The recorder of the export trace this call runs in, or None: under
    ``torch.export.export`` a control-flow operator is written as PyTorch's program keeps
    it, its functions as subgraphs (``torch.ops.higher_order.*``), not as the path this
    input takes (chainrule/export/_control_flow.py)."""
    from .. import compiler

    if not compiler.is_exporting():
        return None
    from ..export import _control_flow

    return _control_flow.active()


def tensor_leaves(tree: Any) -> list[Tensor]:
    """The tensors among the leaves of a (nested) list/tuple/dict."""
    return [t for t in pytree.tree_leaves(tree) if isinstance(t, Tensor)]


def _error(op: str, what: str, explanation: str, hint: str) -> Exception:
    from .._dynamo.exc import UncapturedHigherOrderOpError

    return UncapturedHigherOrderOpError(
        f"{_HEAD}Encountered {what} during higher order op tracing\n"
        f"  Higher Order Operator: {op}\n"
        f"  Explanation: Higher order ops do not support {explanation}.\n"
        f"  Hint: {hint}\n"
    )


def _overlaps(a: Tensor, b: Tensor) -> bool:
    if a is b or (a._base if a._base is not None else a) is (b._base if b._base is not None else b):
        return True
    if a.is_meta or b.is_meta:  # (no memory: a view is known by its base alone)
        return False
    x, y = a._data, b._data
    if x.__class__ is not y.__class__ or x.size == 0 or y.size == 0:
        return False
    return bool(xp_of(x).may_share_memory(x, y))


def call(op: str, fn: Callable, args: tuple) -> Any:
    """``fn(*args)``, refused (UncapturedHigherOrderOpError) if it changed one of the
    tensors of ``args`` in place or returned one of them or a view of one."""
    inputs = tensor_leaves(args)
    versions = [t._version for t in inputs]
    out = fn(*args)
    if any(t._version != v for t, v in zip(inputs, versions)):
        raise _error(
            op,
            "input mutation",
            "input mutation",
            "Consider changing the function to work on a copy of the input (x.clone()).",
        )
    for o in tensor_leaves(out):
        if any(_overlaps(o, t) for t in inputs):
            raise _error(
                op,
                "aliasing",
                "aliasing",
                "Replace `return input` with `return input.clone()` to avoid aliasing.",
            )
    return out


class _Identity(Function):
    """The node a control-flow operator's outputs hang from: d out / d in = I."""

    @staticmethod
    def forward(ctx: Any, *tensors: Tensor) -> tuple:
        ctx.set_materialize_grads(False)
        return tensors

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> tuple:
        return grads

    @staticmethod
    def jvp(ctx: Any, *tangents: Any) -> tuple:
        return tangents


def _identity_class(name: str) -> type:
    return type(name, (_Identity,), {"__module__": "chainrule.autograd.function"})


_NODES = {
    name: _identity_class(name)
    for name in (
        "CondAutogradOp",
        "WhileLoopAutogradOp",
        "ScanAutogradOp",
        "MapAutogradOp",
    )
}


def through_node(name: str, out: Any, inputs: Any) -> Any:
    """``out`` with its floating-point tensors re-hung from one ``<name>Backward`` node
    (PyTorch's ``grad_fn`` for the operator) when one of ``inputs`` or of the outputs
    requires grad (an output can through a closure), as a Function's outputs all are."""
    leaves, spec = pytree.tree_flatten(out)
    if not grad_mode.is_grad_enabled() or not any(
        t.requires_grad for t in tensor_leaves((inputs, leaves))
    ):
        return out
    where = [
        i
        for i, t in enumerate(leaves)
        if isinstance(t, Tensor) and (t.is_floating_point() or t.is_complex())
    ]
    hung = _NODES[name].apply(*(leaves[i] for i in where))
    for i, t in zip(where, hung):
        leaves[i] = t
    return pytree.tree_unflatten(leaves, spec)
