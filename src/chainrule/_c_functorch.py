"""``torch._C._functorch``'s queries on a tensor's functorch wrapping.

PyTorch's ``torch.func`` transforms wrap tensors (batched, grad-tracking, functional
tensors, each at a level). chainrule's transforms run the function on plain tensors
(``vmap`` loops over the batch), so no tensor is ever wrapped: these answer for that.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "get_unwrapped",
    "is_batchedtensor",
    "is_functionaltensor",
    "is_gradtrackingtensor",
    "is_legacy_batchedtensor",
    "maybe_get_level",
]


def is_batchedtensor(tensor: Any) -> bool:
    """Whether ``tensor`` is a vmap-batched wrapper: never in chainrule."""
    return False


def get_unwrapped(tensor: Any) -> Any:
    """The tensor a functorch wrapper wraps: chainrule's tensors are never wrapped, so this
    raises PyTorch's error for a plain tensor."""
    raise RuntimeError("No wrappers present!")


def is_legacy_batchedtensor(tensor: Any) -> bool:
    """Whether ``tensor`` is a legacy (``autograd.grad(is_grads_batched=True)``) batched
    wrapper: never in chainrule."""
    return False


def is_gradtrackingtensor(tensor: Any) -> bool:
    """Whether ``tensor`` is a ``torch.func.grad`` wrapper: never in chainrule."""
    return False


def is_functionaltensor(tensor: Any) -> bool:
    """Whether ``tensor`` is a functionalization wrapper: never in chainrule."""
    return False


def maybe_get_level(tensor: Any) -> int:
    """The functorch level of a wrapped ``tensor``; -1 (PyTorch's answer for a plain tensor)."""
    return -1
