"""``LazyModuleMixin``: modules whose parameter shapes come from their first input.

A lazy module holds ``UninitializedParameter``/``UninitializedBuffer`` placeholders. A
forward pre-hook calls ``initialize_parameters(*args, **kwargs)`` on the first call, which
materialises them; then the hooks are removed and the module becomes ``cls_to_become``
(``LazyLinear`` becomes ``Linear``). ``load_state_dict`` materialises the placeholders to
the loaded shapes first, so a lazy module can be loaded before it has run.
"""

from __future__ import annotations

import itertools
from typing import Any

from ...autograd.grad_mode import no_grad
from ..parameter import is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Mixed in before the module class: ``class LazyLinear(LazyModuleMixin, Linear)``."""

    cls_to_become: type | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(
            self._infer_parameters, with_kwargs=True
        )

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        """As Module's, but placeholders are saved as they are (there is nothing to detach)."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = (
                    param if is_lazy(param) or keep_vars else param.detach()
                )
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars else buf.detach()

    def _lazy_load_hook(
        self,
        state_dict: dict,
        prefix: str,
        local_metadata: dict,
        strict: bool,
        missing_keys: list,
        unexpected_keys: list,
        error_msgs: list,
    ) -> None:
        """Materialise each placeholder to the shape of its loaded (initialised) value."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None:
                value = state_dict[key]
                if is_lazy(param) and not is_lazy(value):
                    with no_grad():
                        param.materialize(value.shape)

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        """Materialise the placeholders from the first input (each lazy module defines it)."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}"
        )

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter or buffer is still a placeholder."""
        params = self._parameters.values()
        buffers = self._buffers.values()
        return any(is_lazy(p) for p in itertools.chain(params, buffers))

    @staticmethod
    def _infer_parameters(module: Any, args: tuple, kwargs: dict | None = None) -> None:
        """The forward pre-hook: initialise from the first input, then become
        ``cls_to_become`` and drop the hooks."""
        kwargs = kwargs if kwargs else {}
        module.initialize_parameters(*args, **kwargs)
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self) -> Any:
        raise RuntimeError(
            "Modules with uninitialized parameters can't be used with `DataParallel`. "
            "Run a dummy forward pass to correctly initialize the modules"
        )
