"""``nn.utils._per_sample_grad``: ``call_for_per_sample_grads``, the forward of a module that
also gives each trainable parameter its per-sample gradients (``param.grad_sample``, batch
first) on backward, PyTorch's "expanded weights" (opacus's ``grad_sample_mode="ew"``).

While the returned function runs the module, a ``TorchFunctionMode`` takes the calls of
``linear``, ``conv1d``/``2d``/``3d``, ``embedding``, ``layer_norm``, ``group_norm`` and
``instance_norm`` that are given one of the module's trainable parameters: each runs as
a node whose backward passes the input's gradient on and adds the per-sample gradients
of the parameters into their ``grad_sample`` (``linear`` in closed form, the others one
sample at a time). As in PyTorch, the parameters' ``.grad`` stays ``None`` and a "mean"
loss reduction multiplies the per-sample gradients by the batch size. Difference: another
function given a parameter runs as usual (its gradient goes to ``.grad``) where PyTorch
raises; ``embedding_bag`` and the RNN modules (``nn.RNN``, ``LSTM``, ``GRU``) are refused,
as in PyTorch (a ``RuntimeError`` naming the function: for an RNN, its mode where PyTorch
names its fused kernel).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from ... import autograd, stack
from ..._tensor import Tensor
from ...overrides import TorchFunctionMode

__all__ = ["call_for_per_sample_grads"]

_REFUSED = ("embedding_bag",)


_HANDLED = ("linear", "conv1d", "conv2d", "conv3d", "embedding", "layer_norm")
_HANDLED += ("group_norm", "instance_norm")


def _handled(func: Callable) -> str | None:
    """The name of ``func`` if it is one of the handled ``nn.functional`` functions (the
    function itself or the dispatching wrapper in its place, which compares equal)."""
    from .. import functional as F

    name = getattr(func, "__name__", None)
    return name if name in _HANDLED and func == getattr(F, name) else None


class _PerSampleOp(autograd.Function):
    """One call of a handled function: its result; on backward, the input's gradient, and
    the per-sample gradients of the expanded parameters added into ``grad_sample``."""

    @staticmethod
    def forward(ctx: Any, call: _Call, x: Tensor, *params: Tensor) -> Tensor:
        ctx.call = call
        ctx.save_for_backward(x, *params)
        return call.run(x, params)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        x, *params = ctx.saved_tensors
        call = ctx.call
        grad_x = None
        with autograd.enable_grad():
            if ctx.needs_input_grad[1]:
                xx = x.detach().requires_grad_()
                (grad_x,) = autograd.grad(call.run(xx, [p.detach() for p in params]), xx, g)
            samples = call.per_sample(x.detach(), [p.detach() for p in params], g.detach())
        scale = call.batch_size if call.reduction == "mean" else 1
        for orig, sample in zip(call.originals, samples):
            if orig is None:
                continue
            sample = sample * scale if scale != 1 else sample
            old = getattr(orig, "grad_sample", None)
            orig.grad_sample = sample if old is None else old + sample
        return (None, grad_x, *([None] * len(params)))


class _Call:
    """A handled function's call, with the parameters given to it as arguments."""

    def __init__(
        self,
        name: str,
        func: Callable,
        bound: inspect.BoundArguments,
        slots: list[str],
        originals: list[Tensor | None],
        batch_size: int,
        reduction: str,
        batch_dim: int,
    ) -> None:
        self.name, self.func, self.bound, self.slots = name, func, bound, slots
        self.originals, self.batch_size, self.reduction = originals, batch_size, reduction
        self.batch_dim = batch_dim

    def run(self, x: Tensor, params: Any) -> Tensor:
        """The function of ``x`` with ``params`` in the parameters' places."""
        arguments = dict(self.bound.arguments)
        arguments["input"] = x
        for slot, p in zip(self.slots, params):
            arguments[slot] = p
        bound = inspect.BoundArguments(self.bound.signature, arguments)  # type: ignore[arg-type]
        return self.func(*bound.args, **bound.kwargs)

    def per_sample(self, x: Tensor, params: list[Tensor], g: Tensor) -> list[Tensor]:
        """Each sample's gradients of the parameters, stacked along a new first dim."""
        if self.name == "linear":  # (closed form)
            xs = x.movedim(self.batch_dim, 0).reshape(x.shape[self.batch_dim], -1, x.shape[-1])
            gs = g.movedim(self.batch_dim, 0).reshape(g.shape[self.batch_dim], -1, g.shape[-1])
            out = [gs.transpose(1, 2) @ xs]
            if len(params) > 1:
                out.append(gs.sum(1))
            return [o.to(p.dtype) for o, p in zip(out, params)]
        rows = []
        for n in range(self.batch_size):
            ps = [p.detach().requires_grad_() for p in params]
            out = self.run(x.narrow(self.batch_dim, n, 1), ps)
            grads = autograd.grad(out, ps, g.narrow(self.batch_dim, n, 1), allow_unused=True)
            rows.append([p.new_zeros(p.shape) if d is None else d for d, p in zip(grads, ps)])
        return [stack([r[i] for r in rows]) for i in range(len(params))]


class _ExpandedWeightsMode(TorchFunctionMode):
    """Runs the handled functions given a tracked parameter as ``_PerSampleOp`` nodes."""

    def __init__(self, params: list[Tensor], batch_size: int, reduction: str, bd: int) -> None:
        self.ids = {id(p) for p in params}
        self.batch_size, self.reduction, self.batch_dim = batch_size, reduction, bd

    def __torch_function__(
        self, func: Callable, types: Any, args: tuple = (), kwargs: dict | None = None
    ) -> Any:
        kwargs = kwargs or {}
        name = _handled(func)
        if name is None:
            refused = getattr(func, "__name__", "")
            if refused in _REFUSED and self._tracked(args, kwargs):
                raise RuntimeError(
                    f"Expanded Weights encountered but cannot handle function {refused}"
                )
            return func(*args, **kwargs)
        bound = inspect.signature(func).bind(*args, **kwargs)
        slots = [s for s in ("weight", "bias") if id(bound.arguments.get(s)) in self.ids]
        if not slots:
            return func(*args, **kwargs)
        x = bound.arguments["input"]
        if x.shape[self.batch_dim] != self.batch_size:
            raise RuntimeError(
                "Expected ExpandedWeights to have batch size matching input but got "
                f"input batch size of {x.shape[self.batch_dim]} with ExpandedWeight of batch "
                f"size {self.batch_size}"
            )
        params = [bound.arguments[s] for s in slots]
        call = _Call(
            name,
            func,
            bound,
            slots,
            params,
            self.batch_size,
            self.reduction,
            self.batch_dim,
        )
        return _PerSampleOp.apply(call, x, *params)

    def _tracked(self, args: tuple, kwargs: dict) -> bool:
        return any(id(a) in self.ids for a in (*args, *kwargs.values()))


def _refuse_recurrent(module: Any) -> None:
    """PyTorch's RuntimeError for an ``nn.RNN``/``LSTM``/``GRU`` with trainable weights
    (its fused op takes the expanded weights; chainrule names the op by the mode)."""
    from ..modules.rnn import RNNBase

    for m in module.modules():
        if isinstance(m, RNNBase) and any(p.requires_grad for p in m.parameters()):
            raise RuntimeError(
                f"Expanded Weights encountered but cannot handle function {m.mode.lower()}"
            )


def _batch_size(args: tuple, kwargs: dict, batch_first: bool) -> int:
    """The batch size all tensor arguments share (PyTorch's RuntimeErrors otherwise)."""
    from ...utils import _pytree

    size = None
    for leaf in _pytree.tree_leaves((args, kwargs)):
        if not isinstance(leaf, Tensor):
            continue
        n = leaf.shape[0] if batch_first else leaf.shape[1]
        if size is not None and size != n:
            raise RuntimeError(
                "When computing batch size, found at least one input with batch size "
                f"{size} and one with batch size {n}. Please specify it explicitly using the "
                "batch size kwarg in call_for_per_sample_grads"
            )
        size = n
    if size is None:
        raise RuntimeError(
            "Unable to find a tensor in the passed args and kwargs. They may not be "
            "pytree-able and so ExpandedWeights cannot compute the batch size from the "
            "inputs. Please specify it explicitly"
        )
    return size


def call_for_per_sample_grads(
    module: Any,
    *,
    batch_size: int | None = None,
    loss_reduction: str = "sum",
    batch_first: bool = True,
) -> Callable:
    """``module``'s forward, which on backward sets each trainable parameter's
    ``grad_sample`` (its gradients per sample, the batch first) and leaves ``.grad``
    alone; ``loss_reduction="mean"`` scales them by the batch size."""
    from ..modules.module import Module

    if loss_reduction not in ("sum", "mean"):
        raise RuntimeError(
            f"Expected loss_reduction argument to be sum or mean, got {loss_reduction}"
        )
    if not isinstance(module, Module):
        raise RuntimeError(f"Module passed must be nn.Module, got {type(module).__name__}")
    if not (batch_size is None or isinstance(batch_size, int)):
        raise RuntimeError(
            f"Batch size passed must be None or an integer, got {type(batch_size).__name__}"
        )
    if batch_size is not None and batch_size < 1:
        raise RuntimeError(f"Batch size must be positive, got {batch_size}")
    for weight in module.parameters():
        if getattr(weight, "grad_sample", None) is not None:
            raise RuntimeError(
                "Current Expanded Weights accumulates the gradients, which will be incorrect "
                f"for multiple calls without clearing gradients. Please clear out the "
                f"grad_sample parameter of {weight} or post an issue to pytorch/pytorch to "
                "prioritize correct behavior"
            )

    @functools.wraps(module.forward)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        size = batch_size if batch_size is not None else _batch_size(args, kwargs, batch_first)
        params = [p for p in module.parameters() if p.requires_grad]
        _refuse_recurrent(module)
        with _ExpandedWeightsMode(params, size, loss_reduction, 0 if batch_first else 1):
            return module(*args, **kwargs)

    return wrapper
