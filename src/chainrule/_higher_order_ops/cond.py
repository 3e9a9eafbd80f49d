"""``torch.cond``: ``true_fn(*operands)`` if ``pred`` else ``false_fn(*operands)``.

PyTorch compiles the call (even in eager mode) and so checks both branches before it runs
one: they must return outputs of one structure, each pair of one dtype and number of dims
(sizes may differ), neither may change an input in place or return one. chainrule checks
both on the meta device first (shapes without data, no arithmetic), then runs the taken
one; a branch that cannot run on the meta device (it reads a value, say) is checked only
if it is taken, after it ran (an input it changed has changed). The gradient is the taken branch's: d out / d operands = d branch / d operands,
closures included, through one ``CondAutogradOpBackward`` node.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from ..autograd import grad_mode
from ..utils import _pytree as pytree
from . import _subgraph

__all__ = ["cond"]


def cond(
    pred: bool | int | float | Tensor,
    true_fn: Callable,
    false_fn: Callable,
    operands: tuple | list = (),
) -> Any:
    """``true_fn(*operands)`` if ``pred`` else ``false_fn(*operands)``, both branches
    checked to agree (see the module's docstring)."""
    if isinstance(pred, (bool, int, float)):  # (a constant: the branch runs as is)
        return true_fn(*operands) if pred else false_fn(*operands)
    _validate(pred, true_fn, false_fn, operands)
    operands = tuple(operands)
    recorder = _subgraph.exporting()
    if recorder is not None:  # (under export: both branches written as subgraphs)
        from ..export._control_flow import export_cond

        return export_cond(recorder, pred, true_fn, false_fn, operands)
    if pred.is_meta:  # (inside another check: both branches)
        ours = _subgraph.call("torch.cond", true_fn, operands)
        _check_agree(ours, _subgraph.call("torch.cond", false_fn, operands))
        return ours
    # both branches first on the meta device, as PyTorch traces both before it runs one:
    # a refused branch changes nothing
    on_true, on_false = _on_meta(true_fn, operands), _on_meta(false_fn, operands)
    if on_true is not None and on_false is not None:
        _check_agree(on_true[0], on_false[0])
    taken = true_fn if bool(pred) else false_fn
    out = _subgraph.call("torch.cond", taken, operands)
    return _subgraph.through_node("CondAutogradOp", out, operands)


def _validate(pred: Any, true_fn: Any, false_fn: Any, operands: Any) -> None:
    if not isinstance(pred, Tensor):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    if not isinstance(operands, (tuple, list)) or any(
        not isinstance(t, Tensor) for t in pytree.tree_leaves(operands)
    ):
        raise RuntimeError(
            "Expect operands to be a tuple of possibly nested dict/list/tuple that only "
            f"consists of tensor leaves, but got {operands}."
        )


def _on_meta(fn: Callable, operands: tuple) -> tuple | None:
    """``(fn(*operands),)`` run on meta copies of the operands without recording, or None
    where ``fn`` cannot run there (it reads a value). Refusals of the subgraph (an input
    changed, an output aliasing one) and disagreeing nested branches are raised."""
    from .._dynamo.exc import TorchDynamoException

    def meta(t: Any) -> Any:
        return t.detach().to("meta") if isinstance(t, Tensor) else t

    copies = pytree.tree_map(meta, operands)
    with grad_mode.no_grad():
        try:
            return (_subgraph.call("torch.cond", fn, copies),)
        except TorchDynamoException:
            raise
        except Exception:  # (what the meta device cannot run: left unchecked)
            return None


def _disagree(message: str) -> Exception:
    from .._dynamo.exc import TorchRuntimeError

    return TorchRuntimeError(
        "RuntimeError when making fake tensor call\n  Explanation: the branches of "
        f"torch.cond, run on the meta device, disagree: got RuntimeError({message!r})"
    )


def _check_agree(true_out: Any, false_out: Any) -> None:
    """Refuse branch outputs of different structures, or tensors of different dtypes or
    numbers of dims (PyTorch merges differing sizes)."""
    true_leaves, true_spec = pytree.tree_flatten(true_out)
    false_leaves, false_spec = pytree.tree_flatten(false_out)
    if true_spec != false_spec:
        raise _disagree(
            f"Unmatched output spec from torch.cond branches: true branch tree_spec "
            f"{true_spec} vs false branch tree_spec {false_spec}."
        )
    prefix = "When merging two branches' output in torch.cond, "
    for a, b in zip(true_leaves, false_leaves):
        if not (isinstance(a, Tensor) and isinstance(b, Tensor)):
            continue
        for attr, x, y in (("dim", a.dim(), b.dim()), ("dtype", a.dtype, b.dtype)):
            if x != y:
                raise _disagree(f"{prefix} expected same {attr} but got {x} and {y}.")
