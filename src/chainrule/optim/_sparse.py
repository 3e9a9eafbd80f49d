"""The optimizer steps for sparse gradients (an ``nn.Embedding(..., sparse=True)``'s): SGD,
Adagrad and SparseAdam, written with tensor ops on the gradient's coalesced elements, as
PyTorch's; every other optimizer refuses a sparse gradient with PyTorch's error."""

from __future__ import annotations

import math
from typing import Any

from .._tensor import Tensor

# the optimizers whose step takes a sparse gradient
TAKES_SPARSE = {"SGD", "Adagrad", "SparseAdam"}


def is_sparse(g: Tensor | None) -> bool:
    return g is not None and g.__class__ is not Tensor and g.is_sparse


def refuse(name: str) -> RuntimeError:
    """PyTorch's error for a sparse gradient given to ``name``."""
    if name in ("Adam", "AdamW"):
        return RuntimeError(
            "Adam does not support sparse gradients, please consider SparseAdam instead"
        )
    return RuntimeError(f"{name} does not support sparse gradients")


def _like(grad: Tensor, values: Tensor) -> Tensor:
    """A sparse tensor with ``grad``'s indices and ``values``."""
    from ..sparse._tensor import _with_values

    return _with_values(grad, values)


def sgd(p: Tensor, state: dict, group: dict, lr: float) -> None:
    """p -= lr * g, the gradient through weight decay (refused: sparse + dense, as PyTorch's)
    and a sparse momentum buffer (b <- momentum b + (1 - dampening) g)."""
    g = p.grad
    if group["maximize"]:
        g = -g
    if group["weight_decay"] != 0:
        g = g.add(p.detach(), alpha=group["weight_decay"])
    momentum = group["momentum"]
    if momentum != 0:
        buf = state.get("momentum_buffer")
        if buf is None:
            buf = state["momentum_buffer"] = g.clone().detach()
        else:
            buf.mul_(momentum).add_(g, alpha=1 - group["dampening"])
        g = g.add(buf, alpha=momentum) if group["nesterov"] else buf
    p.detach().add_(g, alpha=-lr)


def adagrad(p: Tensor, state: dict, group: dict, clr: float) -> None:
    """sum += g^2 at the gradient's elements; p -= clr g / (sqrt(sum) + eps) there."""
    if group["weight_decay"] != 0:
        raise RuntimeError("weight_decay option is not compatible with sparse gradients")
    g = p.grad.coalesce()
    if group["maximize"]:
        g = -g
    values = g._values()
    state["sum"].add_(_like(g, values * values))
    std = state["sum"].sparse_mask(g)._values().sqrt() + group["eps"]
    p.detach().add_(_like(g, values / std), alpha=-clr)


def sparse_adam(p: Tensor, state: dict, group: dict) -> None:
    """Adam's moments and update at the gradient's elements only (the others keep theirs)."""
    g = p.grad.coalesce()
    if group["maximize"]:
        g = -g
    values = g._values()
    beta1, beta2 = group["betas"]
    if not state:
        import chainrule

        state["step"] = 0
        state["exp_avg"] = chainrule.zeros_like(p.detach())
        state["exp_avg_sq"] = chainrule.zeros_like(p.detach())
    state["step"] += 1
    step = state["step"]
    avg, avg_sq = state["exp_avg"], state["exp_avg_sq"]
    old_avg = avg.sparse_mask(g)._values()
    avg_change = (values - old_avg) * (1 - beta1)
    avg.add_(_like(g, avg_change))
    old_sq = avg_sq.sparse_mask(g)._values()
    sq_change = (values * values - old_sq) * (1 - beta2)
    avg_sq.add_(_like(g, sq_change))
    denom = (sq_change + old_sq).sqrt() + group["eps"]
    step_size = group["lr"] * math.sqrt(1 - beta2**step) / (1 - beta1**step)
    p.detach().add_(_like(g, (avg_change + old_avg) / denom * -step_size))


def steps(params: Any, run: Any) -> list:
    """The parameters with a dense gradient; ``run(p)`` done for each with a sparse one."""
    dense = []
    for p in params:
        if is_sparse(p.grad):
            run(p)
        else:
            dense.append(p)
    return dense


__all__: list[str] = []
