"""``torch._functorch.vmap``: the helpers of PyTorch's ``vmap`` that libraries import.

chainrule's ``vmap`` (chainrule/func.py) runs the function once per batch element on plain
tensors, so no tensor is ever batched (``torch._C._functorch.is_batchedtensor`` is always
False): the helpers below answer as PyTorch's do for unbatched tensors.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from ..utils._pytree import TreeSpec, tree_flatten, tree_map_, tree_structure, tree_unflatten

__all__ = [
    "Tensor",
    "_add_batch_dim",
    "_broadcast_to_and_flatten",
    "_get_name",
    "_maybe_remove_batch_dim",
    "tree_flatten",
    "tree_unflatten",
]


def _add_batch_dim(tensor: Tensor, in_dim: int, level: int) -> Tensor:
    """PyTorch wraps ``tensor`` as a batched tensor at ``level``; chainrule has none (its
    vmap calls the function per batch element), so this raises."""
    from .._missing import NotImplementedInChainrule

    raise NotImplementedInChainrule(
        "chainrule has no batched tensors (torch._functorch.vmap._add_batch_dim): its "
        "vmap runs the function once per batch element on plain tensors"
    )


def _broadcast_to_and_flatten(
    tree: Any, treespec: TreeSpec, is_leaf: Callable[[Any], bool] | None = None
) -> list[Any] | None:
    """``tree`` (a prefix of ``treespec``'s structure, e.g. ``in_dims``) broadcast to one
    value per leaf of ``treespec``; ``None`` when it is no prefix of it."""
    full = tree_unflatten([0] * treespec.num_leaves, treespec)
    out: list[Any] = []

    def spread(value: Any, subtree: Any) -> None:
        out.extend([value] * tree_structure(subtree, is_leaf=is_leaf).num_leaves)

    try:
        tree_map_(spread, tree, full, is_leaf=is_leaf)
    except ValueError:
        return None
    return out


def _get_name(func: Callable[..., Any]) -> str:
    """The name vmap's errors give ``func``: its ``__name__``, a partial's, else its repr."""
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_get_name(func.func)}, ...)"
    return repr(func)


def _maybe_remove_batch_dim(
    name: str, batched_output: Any, vmap_level: int, batch_size: int, out_dim: int | None
) -> Any:
    """One output of a vmapped function with its batch dimension at ``out_dim``. An output
    that is not batched at ``vmap_level`` (every chainrule tensor) is expanded to the batch
    size, as PyTorch's ``_remove_batch_dim`` does; ``out_dim=None`` keeps it as it is."""
    if out_dim is None:
        return batched_output
    if not isinstance(batched_output, Tensor):
        raise ValueError(
            f"vmap({name}, ...): `{name}` must only return Tensors, got type "
            f"{type(batched_output)}. Did you mean to set out_dims= to None for output?"
        )
    sizes = list(batched_output.shape)
    sizes.insert(out_dim, batch_size)
    return batched_output.expand(sizes)
