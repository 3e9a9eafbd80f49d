"""``Transform``: the v2 base class. ``forward`` flattens any nesting of inputs (tuples,
lists, dicts), draws parameters once per call (``make_params``) and applies
``transform`` to each input it should touch: every image, video, mask and box, PIL
image, and the first plain tensor when the sample holds no image otherwise."""

from __future__ import annotations

import enum
from typing import Any

import chainrule
from chainrule import Tensor, nn
from chainrule.utils._pytree import tree_flatten, tree_unflatten

from ... import tv_tensors
from ..functional import _is_pil_image
from ._utils import check_type, has_any
from .functional._utils import _KERNEL_REGISTRY, _PIL, _get_kernel, is_pure_tensor


class Transform(nn.Module):
    """Base class of the v2 transforms."""

    _transformed_types: tuple = (Tensor, _is_pil_image)

    def __init__(self) -> None:
        super().__init__()

    def check_inputs(self, flat_inputs: list[Any]) -> None:
        pass

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        return {}

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        raise NotImplementedError

    def _call_kernel(self, functional: Any, inpt: Any, *args: Any, **kwargs: Any) -> Any:
        """``functional``'s kernel for ``inpt``'s type; inputs it has none for pass through."""
        if _is_pil_image(inpt):
            kernel = _KERNEL_REGISTRY.get(functional, {}).get(_PIL, lambda x, *a, **k: x)
        else:
            kernel = _get_kernel(
                functional, Tensor if is_pure_tensor(inpt) else type(inpt), allow_passthrough=True
            )
        return kernel(inpt, *args, **kwargs)

    def _needs_transform_list(self, flat_inputs: list[Any]) -> list[bool]:
        transform_pure_tensor = not has_any(
            flat_inputs, tv_tensors.Image, tv_tensors.Video, _is_pil_image
        )
        needs = []
        for inpt in flat_inputs:
            need = check_type(inpt, self._transformed_types)
            if need and is_pure_tensor(inpt):
                need, transform_pure_tensor = transform_pure_tensor, False
            needs.append(need)
        return needs

    def forward(self, *inputs: Any) -> Any:
        flat_inputs, spec = tree_flatten(inputs if len(inputs) > 1 else inputs[0])
        self.check_inputs(flat_inputs)
        needs = self._needs_transform_list(flat_inputs)
        params = self.make_params([inpt for inpt, need in zip(flat_inputs, needs) if need])
        flat_outputs = [
            self.transform(inpt, params) if need else inpt for inpt, need in zip(flat_inputs, needs)
        ]
        return tree_unflatten(flat_outputs, spec)

    def extra_repr(self) -> str:
        extra = []
        for name, value in self.__dict__.items():
            if name.startswith("_") or name == "training":
                continue
            if not isinstance(value, (bool, int, float, str, tuple, list, enum.Enum)):
                continue
            extra.append(f"{name}={value}")
        return ", ".join(extra)


class _RandomApplyTransform(Transform):
    """A transform applied to the whole sample with probability ``p``."""

    def __init__(self, p: float = 0.5) -> None:
        if not (0.0 <= p <= 1.0):
            raise ValueError("`p` should be a floating point value in the interval [0.0, 1.0].")
        super().__init__()
        self.p = p

    def forward(self, *inputs: Any) -> Any:
        inputs = inputs if len(inputs) > 1 else inputs[0]
        flat_inputs, spec = tree_flatten(inputs)
        self.check_inputs(flat_inputs)
        if chainrule.rand(1).item() >= self.p:
            return inputs
        needs = self._needs_transform_list(flat_inputs)
        params = self.make_params([inpt for inpt, need in zip(flat_inputs, needs) if need])
        flat_outputs = [
            self.transform(inpt, params) if need else inpt for inpt, need in zip(flat_inputs, needs)
        ]
        return tree_unflatten(flat_outputs, spec)
