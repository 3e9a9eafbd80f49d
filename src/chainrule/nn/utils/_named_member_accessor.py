"""``torch.nn.utils._named_member_accessor``: put a tensor (or submodule) in a module's
slot by name and get back the one it held, as ``torch.func.functional_call`` does."""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor

__all__ = ["NamedMemberAccessor", "set_tensor", "swap_submodule", "swap_tensor"]

_MISSING: Any = object()  # (the value of a slot a module does not have)


def _check_name(name: str, what: str) -> None:
    if "." in name:
        raise KeyError(f'{what} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{what} name can\'t be empty string ""')


def set_tensor(module: Any, name: str, tensor: Tensor) -> None:
    """Set ``module``'s parameter, buffer or attribute ``name`` (no dot) to ``tensor``."""
    from ..modules.module import Module

    if not isinstance(module, Module):
        raise TypeError(f"{module} is not an instance of torch.nn.Module")
    if not isinstance(tensor, Tensor) and tensor is not None:
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    _check_name(name, "tensor")
    if name in module._parameters:
        module._parameters[name] = tensor
    elif name in module._buffers:
        module._buffers[name] = tensor
    else:
        setattr(module, name, tensor)


def swap_tensor(module: Any, name: str, tensor: Any, allow_missing: bool = False) -> Any:
    """Put ``tensor`` in ``module``'s slot ``name`` (its parameters, buffers or attributes,
    written as they are, without wrapping) and return what the slot held."""
    from ..modules.module import Module

    if not isinstance(module, Module):
        raise TypeError(f"{module} is not an instance of torch.nn.Module")
    if tensor is not _MISSING and tensor is not None and not isinstance(tensor, Tensor):
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    _check_name(name, "tensor")
    for slots in (module._parameters, module._buffers):
        if name in slots:
            old = slots[name]
            if tensor is _MISSING:
                del slots[name]
            else:
                slots[name] = tensor
            return old
    if hasattr(module, name):
        old = getattr(module, name)
        if old is not None and not isinstance(old, Tensor):
            raise TypeError(f"attribute `{name}`: {old} is not an instance of torch.Tensor")
    elif allow_missing:
        old = _MISSING
    else:
        raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
    if tensor is not _MISSING:
        setattr(module, name, tensor)
    elif hasattr(module, name):
        delattr(module, name)
    return old


def swap_submodule(module: Any, name: str, submodule: Any) -> Any:
    """Put ``submodule`` in ``module``'s child slot ``name``; the child it held."""
    from ..modules.module import Module

    if not isinstance(module, Module):
        raise TypeError(f"{module} is not an instance of torch.nn.Module")
    if not isinstance(submodule, Module):
        raise TypeError(f"{submodule} is not an instance of torch.nn.Module")
    _check_name(name, "submodule")
    if name not in module._modules:
        raise KeyError(f"submodule {name} does not exist")
    old = module._modules[name]
    module._modules[name] = submodule
    return old


class NamedMemberAccessor:
    """Gets and sets a module's tensors by dotted name (``"layer1.conv1.weight"``),
    caching the submodules it walks to."""

    def __init__(self, module: Any) -> None:
        self.module = module
        self.memo: dict[str, Any] = {}

    def get_submodule(self, name: str) -> Any:
        """The submodule at dotted ``name`` ("" is the module itself)."""
        if not name:
            return self.module
        if name not in self.memo:
            prefix, _, attr = name.rpartition(".")
            parent = self.get_submodule(prefix)
            try:
                child = getattr(parent, attr)
            except AttributeError as exc:
                raise AttributeError(f"{parent._get_name()} has no attribute `{attr}`") from exc
            from ..modules.module import Module

            if not isinstance(child, Module):
                raise TypeError(f"{child} is not an instance of torch.nn.Module")
            self.memo[name] = child
        return self.memo[name]

    def get_tensor(self, name: str) -> Tensor:
        """The tensor at dotted ``name``."""
        prefix, _, attr = name.rpartition(".")
        owner = self.get_submodule(prefix)
        value = getattr(owner, attr)
        if not isinstance(value, Tensor) and value is not None:
            raise TypeError(f"{value} is not an instance of torch.Tensor")
        return value

    def set_tensor(self, name: str, value: Tensor) -> None:
        """Set the tensor at dotted ``name``."""
        prefix, _, attr = name.rpartition(".")
        set_tensor(self.get_submodule(prefix), attr, value)

    def swap_tensor(self, name: str, value: Any, allow_missing: bool = False) -> Any:
        """Put ``value`` at dotted ``name``; the tensor it held."""
        prefix, _, attr = name.rpartition(".")
        return swap_tensor(self.get_submodule(prefix), attr, value, allow_missing=allow_missing)

    def del_tensor(self, name: str) -> None:
        """Delete the tensor at dotted ``name``."""
        prefix, _, attr = name.rpartition(".")
        owner = self.get_submodule(prefix)
        try:
            delattr(owner, attr)
        except AttributeError as exc:
            raise AttributeError(f"{owner._get_name()} has no attribute `{attr}`") from exc
