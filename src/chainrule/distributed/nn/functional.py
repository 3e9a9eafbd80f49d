"""``torch.distributed.nn.functional``: collectives that autograd differentiates.

``all_gather(tensor)`` gives every rank's tensor; backward sends each rank the sum, over
the ranks, of the gradients of its own tensor (a reduce-scatter of the gradients).
``all_reduce(tensor, op)`` gives the reduction; backward all-reduces the gradient with SUM
(as PyTorch does whatever ``op`` was)."""

from __future__ import annotations

from typing import Any

from ...autograd.function import Function
from .. import collectives
from .._ops import ReduceOp
from .._world import _resolve

__all__ = ["all_gather", "all_reduce"]


def _world(group: Any) -> Any:
    g = _resolve(group)
    if g is None:
        raise RuntimeError("torch.distributed.nn: this rank is not in the process group")
    return g


class _AllGather(Function):
    @staticmethod
    def forward(ctx: Any, group: Any, tensor: Any) -> tuple:
        from ..._creation import empty_like

        ctx.group = group
        out = [empty_like(tensor) for _ in range(_world(group).size())]
        collectives.all_gather(out, tensor.contiguous(), group=group)
        return tuple(out)

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> tuple:
        from ..._creation import empty_like, zeros_like

        like = next(g for g in grads if g is not None)
        parts = [zeros_like(like) if g is None else g.contiguous() for g in grads]
        out = empty_like(like)
        collectives.reduce_scatter(out, parts, op=ReduceOp.SUM, group=ctx.group)
        return None, out


class _AllReduce(Function):
    @staticmethod
    def forward(ctx: Any, op: Any, group: Any, tensor: Any) -> Any:
        ctx.group = group
        out = tensor.clone()
        collectives.all_reduce(out, op=op, group=group)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Any) -> tuple:
        return None, None, _AllReduce.apply(ReduceOp.SUM, ctx.group, grad)


def all_gather(tensor: Any, group: Any = None) -> tuple:
    """Every rank's ``tensor``, in rank order (a tuple), differentiable."""
    return _AllGather.apply(group, tensor)


def all_reduce(tensor: Any, op: Any = ReduceOp.SUM, group: Any = None) -> Any:
    """``tensor`` reduced over the ranks with ``op`` (a new tensor), differentiable."""
    return _AllReduce.apply(op, group, tensor)
