"""``torch._dynamo`` as chainrule has it: no graph capture, so compiled code runs eagerly
(see chainrule/compiler.py). It holds the names libraries reach for: ``OptimizedModule``
(what ``torch.compile`` wraps a Module in), ``reset``, ``disable``, ``is_compiling`` ..."""

from __future__ import annotations

from typing import Any

from ..compiler import (
    allow_in_graph,
    assume_constant_result,
    disable,
    is_compiling,
    list_backends,
    reset,
)

__all__ = [
    "OptimizedModule",
    "allow_in_graph",
    "assume_constant_result",
    "disable",
    "is_compiling",
    "list_backends",
    "mark_static_address",
    "reset",
]

# the tensors mark_static_address marked (id -> "guarded"/"unguarded"), while they live;
# PyTorch keeps the mark in the tensor's ``_dynamo_static_input_type`` attribute, which only
# graph capture reads (chainrule has none, and its tensors take no new attributes)
_STATIC_INPUTS: dict[int, str] = {}


def mark_static_address(t: Any, guard: bool = False) -> None:
    """Mark ``t``'s address as constant across calls of a compiled function (``guard``: a
    guarded mark). chainrule compiles nothing, so the mark changes no result; it is kept
    (see :func:`static_input_type`) while ``t`` lives."""
    import weakref

    from .._tensor import Tensor

    if not isinstance(t, Tensor):
        raise TypeError(f"mark_static_address expects a tensor but received {type(t)}")
    key = id(t)
    if key not in _STATIC_INPUTS:
        weakref.finalize(t, _STATIC_INPUTS.pop, key, None)
    _STATIC_INPUTS[key] = "guarded" if guard else "unguarded"


def static_input_type(t: Any) -> str | None:
    """The mark :func:`mark_static_address` gave ``t`` (None if it has none)."""
    return _STATIC_INPUTS.get(id(t))


def __getattr__(name: str) -> Any:
    if name == "OptimizedModule":  # (made on first use: it needs chainrule.nn)
        from ..compiler import _optimized

        return _optimized()
    if name in ("eval_frame", "exc"):  # (eval_frame.OptimizedModule; exc: error types)
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
