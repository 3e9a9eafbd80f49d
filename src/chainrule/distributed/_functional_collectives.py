"""``torch.distributed._functional_collectives``: collectives that return their result.

chainrule's collectives finish before they return (MPI, blocking), so a result never has a
collective pending and :func:`wait_tensor` gives its tensor back as PyTorch's does for a
completed one. Groups are ``ProcessGroup`` objects (or ``None``, the default group); rank
lists and device meshes are not supported.
"""

from __future__ import annotations

from typing import Any

from ..autograd import Function
from . import collectives
from ._world import ProcessGroup

__all__ = ["all_to_all_single", "all_to_all_single_autograd", "wait_tensor"]


def wait_tensor(tensor: Any) -> Any:
    """Wait for the collective that makes ``tensor``: chainrule's have all finished, so
    this is ``tensor`` itself."""
    return tensor


def _group(group: Any) -> Any:
    if group is None or isinstance(group, ProcessGroup):
        return group
    raise NotImplementedError(
        "chainrule's functional collectives take a ProcessGroup (or None), "
        f"not {type(group).__name__}"
    )


def _exchange(x: Any, out_splits: list | None, in_splits: list | None, group: Any) -> Any:
    rows = sum(out_splits) if out_splits is not None else x.shape[0]
    out = x.new_empty((rows, *x.shape[1:]))
    collectives.all_to_all_single(out, x.contiguous(), out_splits, in_splits, group=group)
    return out


class _AllToAllSingle(Function):
    @staticmethod
    def forward(ctx: Any, x: Any, out_splits: Any, in_splits: Any, group: Any) -> Any:
        ctx.splits = (out_splits, in_splits, group)
        return _exchange(x.detach(), out_splits, in_splits, group)

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        out_splits, in_splits, group = ctx.splits
        return _exchange(grad, in_splits, out_splits, group), None, None, None


def all_to_all_single(
    self: Any,
    output_split_sizes: list[int] | None,
    input_split_sizes: list[int] | None,
    group: Any,
    tag: str = "",
) -> Any:
    """Send ``self``'s dim-0 blocks to the ranks of ``group`` and return what they send
    (equal blocks unless the split sizes say); differentiable (the gradient goes back the
    opposite way)."""
    return _AllToAllSingle.apply(self, output_split_sizes, input_split_sizes, _group(group))


def all_to_all_single_autograd(
    self: Any,
    output_split_sizes: list[int] | None,
    input_split_sizes: list[int] | None,
    group: Any,
    tag: str = "",
) -> Any:
    """:func:`all_to_all_single` (which is differentiable)."""
    return all_to_all_single(self, output_split_sizes, input_split_sizes, group, tag)
