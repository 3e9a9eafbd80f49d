"""``torch.distributed.fsdp.wrap``: the auto-wrap policies, plain predicates that say which
submodules FSDP would wrap. They run as in PyTorch; FSDP itself is not implemented by
chainrule (see ``chainrule.distributed.fsdp``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...nn import Module, ModuleDict, ModuleList, MultiheadAttention

__all__ = [
    "always_wrap_policy",
    "lambda_auto_wrap_policy",
    "size_based_auto_wrap_policy",
    "transformer_auto_wrap_policy",
]


def always_wrap_policy(*args: Any, **kwargs: Any) -> bool:
    """Wrap every submodule."""
    return True


def lambda_auto_wrap_policy(
    module: Module, recurse: bool, nonwrapped_numel: int, lambda_fn: Callable
) -> bool:
    """Descend everywhere; wrap a module when ``lambda_fn(module)`` is true."""
    return True if recurse else bool(lambda_fn(module))


def transformer_auto_wrap_policy(
    module: Module, recurse: bool, nonwrapped_numel: int, transformer_layer_cls: set
) -> bool:
    """Descend everywhere; wrap the instances of ``transformer_layer_cls``."""
    return True if recurse else isinstance(module, tuple(transformer_layer_cls))


def size_based_auto_wrap_policy(
    module: Module,
    recurse: bool,
    nonwrapped_numel: int,
    min_num_params: int = int(1e8),
    force_leaf_modules: set | None = None,
    exclude_wrap_modules: set | None = None,
) -> bool:
    """Wrap a module holding at least ``min_num_params`` parameters not yet wrapped; never
    descend into ``force_leaf_modules`` (MultiheadAttention) nor wrap
    ``exclude_wrap_modules`` (ModuleList, ModuleDict)."""
    leaves = {MultiheadAttention} if force_leaf_modules is None else force_leaf_modules
    excluded = {ModuleList, ModuleDict} if exclude_wrap_modules is None else exclude_wrap_modules
    large = nonwrapped_numel >= min_num_params
    if recurse:
        return large and not isinstance(module, tuple(leaves))
    return large and not isinstance(module, tuple(excluded))


def __getattr__(name: str) -> Any:
    from chainrule._missing import missing

    raise missing("torch.distributed.fsdp.wrap", name)
