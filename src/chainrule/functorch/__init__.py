"""``functorch``: the top-level package PyTorch ships beside ``torch`` (``chainrule run``
binds ``import functorch`` here). It gives ``torch.func``'s transforms under their old
names, and functorch's functional modules (``make_functional``, ``FunctionalModule``),
which call the module with the parameters passed in; as in PyTorch, each of these
deprecated entry points warns (FutureWarning) when called.

``functorch.dim`` (first-class dimensions, a C extension of PyTorch's) is not provided.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from .. import func as _func
from ..func import functional_call as _functional_call
from ..nn.modules.module import Module

__all__ = [
    "FunctionalModule",
    "FunctionalModuleWithBuffers",
    "combine_state_for_ensemble",
    "functionalize",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "make_functional",
    "make_functional_with_buffers",
    "vjp",
    "vmap",
]


def _deprecated(api: str, new_api: str | None = None) -> None:
    """PyTorch's FutureWarning for functorch's old entry points (their ``torch.func``
    names are the ones to use)."""
    warnings.warn(
        f"We've integrated functorch into PyTorch. As the final step of the integration, "
        f"`functorch.{api}` is deprecated as of PyTorch 2.0 and will be deleted in a future "
        f"version of PyTorch >= 2.3. Please use `{new_api or 'torch.func.' + api}` instead; "
        "see the PyTorch 2.0 release notes and/or the `torch.func` migration guide for more "
        "details https://pytorch.org/docs/main/func.migrating.html",
        FutureWarning,
        stacklevel=3,
    )


def vmap(func: Callable, *args: Any, **kwargs: Any) -> Callable:
    """``torch.vmap`` (deprecated name)."""
    _deprecated("vmap", "torch.vmap")
    return _func.vmap(func, *args, **kwargs)


def grad(func: Callable, *args: Any, **kwargs: Any) -> Callable:
    """``torch.func.grad`` (deprecated name)."""
    _deprecated("grad")
    return _func.grad(func, *args, **kwargs)


def grad_and_value(func: Callable, *args: Any, **kwargs: Any) -> Callable:
    """``torch.func.grad_and_value`` (deprecated name)."""
    _deprecated("grad_and_value")
    return _func.grad_and_value(func, *args, **kwargs)


def vjp(func: Callable, *primals: Any, **kwargs: Any) -> Any:
    """``torch.func.vjp`` (deprecated name)."""
    _deprecated("vjp")
    return _func.vjp(func, *primals, **kwargs)


def jvp(func: Callable, *args: Any, **kwargs: Any) -> Any:
    """``torch.func.jvp`` (deprecated name)."""
    _deprecated("jvp")
    return _func.jvp(func, *args, **kwargs)


def jacrev(func: Callable, *args: Any, **kwargs: Any) -> Callable:
    """``torch.func.jacrev`` (deprecated name)."""
    _deprecated("jacrev")
    return _func.jacrev(func, *args, **kwargs)


def jacfwd(func: Callable, *args: Any, **kwargs: Any) -> Callable:
    """``torch.func.jacfwd`` (deprecated name)."""
    _deprecated("jacfwd")
    return _func.jacfwd(func, *args, **kwargs)


def hessian(func: Callable, *args: Any, **kwargs: Any) -> Callable:
    """``torch.func.hessian`` (deprecated name)."""
    _deprecated("hessian")
    return _func.hessian(func, *args, **kwargs)


def functionalize(func: Callable, *args: Any, **kwargs: Any) -> Callable:
    """``torch.func.functionalize`` (deprecated name)."""
    _deprecated("functionalize")
    return _func.functionalize(func, *args, **kwargs)


def __getattr__(name: str) -> Any:
    if name == "__version__":  # (torch's, as PyTorch's functorch gives)
        import chainrule

        return chainrule.__version__
    raise AttributeError(f"module 'functorch' has no attribute {name!r}")


def _names_map(module: Module, kind: str) -> tuple[tuple[str, ...], dict[str, list[str]]]:
    """The distinct tensors' first names, and every name each one goes by (tied weights)."""
    named = module.named_parameters if kind == "parameters" else module.named_buffers
    first: dict[int, str] = {}
    names_map: dict[str, list[str]] = {}
    for name, tensor in named(remove_duplicate=False):
        key = first.setdefault(id(tensor), name)
        names_map.setdefault(key, []).append(name)
    return tuple(names_map), names_map


class FunctionalModule(Module):
    """A module called as ``fmodel(params, *args)``: the wrapped module run with ``params``
    (in ``param_names`` order) as its parameters. The wrapped copy of the model holds the
    tensors ``make_functional`` returned (PyTorch's holds meta tensors); the call uses the
    ``params`` passed in."""

    def __init__(
        self, stateless_model: Module, param_names: tuple[str, ...], names_map: dict
    ) -> None:
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = param_names
        self.names_map = names_map

    @staticmethod
    def _create_from(
        model: Module, disable_autograd_tracking: bool = False
    ) -> tuple[FunctionalModule, tuple]:
        copied = copy.deepcopy(model)
        names, names_map = _names_map(copied, "parameters")
        own = dict(copied.named_parameters())
        params = tuple(own[n] for n in names)
        if disable_autograd_tracking:
            for p in params:
                p.requires_grad_(False)
        return FunctionalModule(copied, names, names_map), params

    def forward(self, params: Iterable[Any], *args: Any, **kwargs: Any) -> Any:
        values = _spread(self.names_map, self.param_names, params)
        return _functional_call(self.stateless_model, values, args, kwargs)


class FunctionalModuleWithBuffers(Module):
    """A module called as ``fmodel(params, buffers, *args)`` (see :class:`FunctionalModule`)."""

    def __init__(
        self,
        stateless_model: Module,
        param_names: tuple[str, ...],
        buffer_names: tuple[str, ...],
        param_names_map: dict,
        buffer_names_map: dict,
    ) -> None:
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = param_names
        self.buffer_names = buffer_names
        self.all_names_map = dict(param_names_map)
        self.all_names_map.update(buffer_names_map)

    @staticmethod
    def _create_from(
        model: Module, disable_autograd_tracking: bool = False
    ) -> tuple[FunctionalModuleWithBuffers, tuple, tuple]:
        copied = copy.deepcopy(model)
        pnames, pmap = _names_map(copied, "parameters")
        bnames, bmap = _names_map(copied, "buffers")
        own_params, own_buffers = dict(copied.named_parameters()), dict(copied.named_buffers())
        params = tuple(own_params[n] for n in pnames)
        buffers = tuple(own_buffers[n] for n in bnames)
        if disable_autograd_tracking:
            for p in params:
                p.requires_grad_(False)
        return FunctionalModuleWithBuffers(copied, pnames, bnames, pmap, bmap), params, buffers

    def forward(
        self, params: Iterable[Any], buffers: Iterable[Any], *args: Any, **kwargs: Any
    ) -> Any:
        values = _spread(self.all_names_map, self.param_names, params)
        values.update(_spread(self.all_names_map, self.buffer_names, buffers))
        return _functional_call(self.stateless_model, values, args, kwargs)


def _spread(names_map: dict, names: tuple[str, ...], tensors: Iterable[Any]) -> dict[str, Any]:
    """Each tensor under every name its slot goes by."""
    tensors = tuple(tensors)
    if len(tensors) != len(names):
        raise ValueError(f"expected {len(names)} tensors, got {len(tensors)}")
    return {alias: t for name, t in zip(names, tensors) for alias in names_map[name]}


def make_functional(
    model: Module, disable_autograd_tracking: bool = False
) -> tuple[FunctionalModule, tuple]:
    """``(fmodel, params)``: ``fmodel(params, *args)`` computes ``model(*args)`` with
    ``params`` (copies of the model's parameters) as the parameters."""
    _deprecated("make_functional", "torch.func.functional_call")
    if any(True for _ in model.buffers()):
        raise RuntimeError(
            "make_functional(model): `model` has buffers. Please use "
            "make_functional_with_buffers(model) instead."
        )
    return FunctionalModule._create_from(model, disable_autograd_tracking)


def make_functional_with_buffers(
    model: Module, disable_autograd_tracking: bool = False
) -> tuple[FunctionalModuleWithBuffers, tuple, tuple]:
    """``(fmodel, params, buffers)``: ``fmodel(params, buffers, *args)`` computes
    ``model(*args)`` with those parameters and buffers."""
    _deprecated("make_functional_with_buffers", "torch.func.functional_call")
    return FunctionalModuleWithBuffers._create_from(model, disable_autograd_tracking)


def combine_state_for_ensemble(models: Any) -> tuple[FunctionalModuleWithBuffers, tuple, tuple]:
    """One functional module for ``models`` (of one class), with their parameters and
    buffers stacked along a new first dimension, for ``vmap`` over the ensemble."""
    import chainrule

    _deprecated("combine_state_for_ensemble", "torch.func.stack_module_state")

    models = list(models)
    if not models:
        raise RuntimeError("combine_state_for_ensemble: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError(
            "combine_state_for_ensemble: Expected all models to have the same training/eval mode."
        )
    if any(type(m) is not type(models[0]) for m in models):
        raise RuntimeError(
            "combine_state_for_ensemble: Expected all models to be of the same class."
        )
    funcs, params, buffers = zip(*[make_functional_with_buffers(m) for m in models])
    stacked_params = tuple(chainrule.stack(p).detach() for p in zip(*params))
    stacked_buffers = tuple(chainrule.stack(b).detach() for b in zip(*buffers))
    return funcs[0], stacked_params, stacked_buffers
