"""The smaller ``torch.func`` names: ``functionalize``, ``replace_all_batch_norm_modules_``
and ``debug_unwrap``.

chainrule has no functorch tensor wrappers and no tracing, so these take their eager
meaning. ``functionalize(f)`` computes what ``f`` computes, on copies of its tensor inputs,
and then writes each copy that ``f`` mutated back into its input: the outputs and the
inputs' final values are those of ``f`` itself, as with PyTorch's eager functionalize
(which also leaves the program's mutations out of a traced graph; chainrule traces none).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from ._tensor import Tensor
from .func import _flatten, _unflatten

__all__ = ["debug_unwrap", "functionalize", "replace_all_batch_norm_modules_"]

_REMOVE = ("mutations", "mutations_and_views")


def functionalize(func: Callable, *, remove: str = "mutations") -> Callable:
    """``func`` run on copies x' = x.clone() of its tensor inputs; each x' that ``func``
    changed in place is copied back, x.copy_(x'). An output that is an unchanged input
    copy is the input itself. Gradients flow as through ``func`` (d x'/d x = I)."""
    if remove not in _REMOVE:
        raise RuntimeError(
            f"functionalize(f, remove='mutations'): received invalid argument for "
            f"remove={remove}. Valid options are:\n"
            "     remove='mutations': all inplace and out= operators will be removed from "
            "the program, and replaced with their out-of-place equivalents.\n"
            "     remove='mutations_and_views': In addition to the above, all aliasing "
            "operators {view} will be replaced with their non-aliasing counterparts, "
            "{view}_copy.\n"
        )

    @wraps(func)
    def functionalized(*args: Any, **kwargs: Any) -> Any:
        leaves, spec = _flatten((args, kwargs))
        copies = [x.clone() if isinstance(x, Tensor) else x for x in leaves]
        versions = [c._version if isinstance(c, Tensor) else None for c in copies]
        args_c, kwargs_c = _unflatten(copies, spec)
        out = func(*args_c, **kwargs_c)
        unchanged = {}
        for x, c, v in zip(leaves, copies, versions):
            if not isinstance(c, Tensor):
                continue
            if c._version != v:
                x.copy_(c)
            else:
                unchanged[id(c)] = x
        out_leaves, out_spec = _flatten(out)
        return _unflatten([unchanged.get(id(o), o) for o in out_leaves], out_spec)

    return functionalized


def replace_all_batch_norm_modules_(root: Any) -> Any:
    """Make every batch norm in ``root`` (``root`` included) normalise with its batch's
    statistics and track none: ``running_mean``, ``running_var`` and
    ``num_batches_tracked`` become None, ``track_running_stats`` False (so ``vmap`` over
    the model mutates no buffer). Returns ``root``, changed in place."""
    from .nn.modules.batchnorm import _BatchNorm

    for module in root.modules():
        if isinstance(module, _BatchNorm) and module.track_running_stats:
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root


def debug_unwrap(tensor: Tensor, *, recurse: bool = True) -> Tensor:
    """The tensor under a transform's wrapper: chainrule's transforms wrap no tensor (``vmap``
    runs on plain slices, ``grad`` on plain copies), so it is ``tensor`` itself."""
    return tensor
