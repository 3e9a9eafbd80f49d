"""``torch._jit_internal``: the decorators of PyTorch's TorchScript front end that library
code applies to its own functions. chainrule has no TorchScript compiler (``torch.jit.script``
gives back what it is given), so they give back what they decorate."""

from __future__ import annotations

from typing import TypeVar

__all__: list[str] = []

_F = TypeVar("_F")


def _copy_to_script_wrapper(fn: _F) -> _F:
    """Mark a module method to be copied onto TorchScript's wrapper of the module; with no
    TorchScript here, the method itself (PyTorch's returns it unchanged too)."""
    return fn
