"""Laying out the weights of the convolutions of a module in a memory format
(``convert_conv2d_weight_memory_format``, ``convert_conv3d_weight_memory_format``)."""

from __future__ import annotations

from typing import Any, TypeVar

from ..modules.module import Module

M = TypeVar("M", bound=Module)


def _convert(module: M, memory_format: Any, kinds: tuple[type, ...]) -> M:
    """module with the weight of each of its ``kinds`` submodules (module itself included)
    replaced, in place, by a copy laid out as ``memory_format``; the values are unchanged."""
    if isinstance(module, kinds):
        weight = module.weight.detach().to(memory_format=memory_format, copy=True)
        module.weight.data = weight
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module: M, memory_format: Any) -> M:
    """module with every ``Conv2d`` / ``ConvTranspose2d`` weight laid out as
    ``memory_format`` (in place; the module is returned)."""
    from ..modules.conv import Conv2d, ConvTranspose2d

    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module: M, memory_format: Any) -> M:
    """module with every ``Conv3d`` / ``ConvTranspose3d`` weight laid out as
    ``memory_format`` (in place; the module is returned)."""
    from ..modules.conv import Conv3d, ConvTranspose3d

    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
