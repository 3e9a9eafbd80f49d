"""How a v2 functional finds its kernel: a table from each functional to the kernel for
each input type (plain tensor, PIL image, and each TVTensor class). Kernels registered
for a TVTensor class receive a plain tensor and their output is wrapped back."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from chainrule import Tensor

from .... import tv_tensors
from ...functional import InterpolationMode, _interpolation_modes_from_int, _is_pil_image

_KERNEL_REGISTRY: dict[Callable, dict[Any, Callable]] = {}


class _PILKey:
    """The registry's key for PIL images (Pillow itself is imported only when one comes)."""

    def __repr__(self) -> str:
        return "<class 'PIL.Image.Image'>"


_PIL = _PILKey()


def is_pure_tensor(inpt: Any) -> bool:
    """A tensor that is not a TVTensor."""
    return isinstance(inpt, Tensor) and not isinstance(inpt, tv_tensors.TVTensor)


def _wrapping(kernel: Callable) -> Callable:
    """``kernel`` on the plain tensor inside a TVTensor, its result wrapped like it."""

    @functools.wraps(kernel)
    def wrapper(inpt: Any, *args: Any, **kwargs: Any) -> Any:
        output = kernel(inpt.as_subclass(Tensor), *args, **kwargs)
        return tv_tensors.wrap(output, like=inpt)

    return wrapper


def _register_kernel_internal(
    functional: Callable, input_type: Any, *, tv_tensor_wrapper: bool = True
) -> Callable:
    registry = _KERNEL_REGISTRY.setdefault(functional, {})

    def decorator(kernel: Callable) -> Callable:
        wrap_it = (
            tv_tensor_wrapper
            and isinstance(input_type, type)
            and issubclass(input_type, tv_tensors.TVTensor)
        )
        registry[input_type] = _wrapping(kernel) if wrap_it else kernel
        return kernel

    return decorator


def register_kernel(functional: Callable, tv_tensor_cls: type) -> Callable:
    """Decorator: ``kernel`` runs when ``functional`` gets a ``tv_tensor_cls`` input."""
    if not (isinstance(tv_tensor_cls, type) and issubclass(tv_tensor_cls, tv_tensors.TVTensor)):
        raise ValueError(
            f"Kernels can only be registered for subclasses of torchvision.tv_tensors.TVTensor, "
            f"but got {tv_tensor_cls}."
        )
    registry = _KERNEL_REGISTRY.setdefault(functional, {})
    if tv_tensor_cls in registry:
        raise ValueError(
            f"Functional {functional} already has a kernel registered for type {tv_tensor_cls}."
        )

    def decorator(kernel: Callable) -> Callable:
        registry[tv_tensor_cls] = kernel
        return kernel

    return decorator


def _get_kernel(
    functional: Callable, input_type: type, *, allow_passthrough: bool = False
) -> Callable:
    registry = _KERNEL_REGISTRY.get(functional, {})
    if not registry:
        raise ValueError(f"No kernel registered for functional {functional.__name__}.")
    for cls in input_type.__mro__:
        if cls in registry:
            return registry[cls]
        if cls is tv_tensors.TVTensor:
            break
    if allow_passthrough:
        return lambda inpt, *args, **kwargs: inpt
    raise TypeError(
        f"Functional F.{functional.__name__} supports inputs of type {registry.keys()}, "
        f"but got {input_type} instead."
    )


def _call(functional: Callable, inpt: Any, *args: Any, **kwargs: Any) -> Any:
    """``functional`` on ``inpt``: the kernel for its type."""
    if _is_pil_image(inpt):
        registry = _KERNEL_REGISTRY.get(functional, {})
        if _PIL not in registry:
            _get_kernel(functional, type(inpt))  # raises the error naming the supported types
        return registry[_PIL](inpt, *args, **kwargs)
    input_type = Tensor if is_pure_tensor(inpt) else type(inpt)
    return _get_kernel(functional, input_type)(inpt, *args, **kwargs)


def _check_interpolation(interpolation: Any) -> InterpolationMode:
    """An InterpolationMode from the mode, its value string or a Pillow constant."""
    if isinstance(interpolation, InterpolationMode):
        return interpolation
    if isinstance(interpolation, int):
        return _interpolation_modes_from_int(interpolation)
    if isinstance(interpolation, str):
        values = [m.value for m in InterpolationMode]
        if interpolation not in values:
            raise ValueError(
                f"Invalid interpolation mode: '{interpolation}'. Supported string values are: {values}."
            )
        return InterpolationMode(interpolation)
    raise ValueError(
        f"Argument interpolation should be an `InterpolationMode` or a corresponding Pillow integer "
        f"constant, but got {interpolation}."
    )


def _renamed(kernel: Callable, first: str, name: str) -> Callable:
    """``kernel`` under ``name``, its first parameter called ``first`` (torchvision names a
    kernel's input after what it takes: ``image``, ``video``, ``mask``)."""
    import inspect

    @functools.wraps(kernel)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if first in kwargs:
            args = (kwargs.pop(first), *args)
        return kernel(*args, **kwargs)

    sig = inspect.signature(kernel)
    params = list(sig.parameters.values())
    wrapper.__signature__ = sig.replace(parameters=[params[0].replace(name=first), *params[1:]])  # type: ignore[attr-defined]
    wrapper.__name__ = wrapper.__qualname__ = name
    return wrapper
