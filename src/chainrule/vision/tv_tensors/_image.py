"""The image-like TVTensors: ``Image`` ``(..., C, H, W)``, ``Video`` ``(..., T, C, H, W)``
and ``Mask`` ``(..., H, W)`` (segmentation labels, resampled with nearest)."""

from __future__ import annotations

from typing import Any

from chainrule import Tensor

from ._tv_tensor import TVTensor, _to_tensor


class Image(TVTensor):
    """An image ``(..., C, H, W)``; a PIL image is read as ``(C, H, W)`` uint8 and a 2-D
    tensor gains a channel dim."""

    def __new__(
        cls, data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool | None = None
    ) -> Image:
        if not isinstance(data, Tensor) and type(data).__module__.startswith("PIL"):
            from ..transforms.functional import pil_to_tensor

            data = pil_to_tensor(data)
        tensor = _to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        if tensor.ndim < 2:
            raise ValueError(f"Tensor must be 2D or higher, got {tensor.ndim}D tensor.")
        if tensor.ndim == 2:
            tensor = tensor.unsqueeze(0)
        return tensor.as_subclass(cls)

    def __repr__(self, *, tensor_contents: Any = None) -> str:
        return self._make_repr()


class Video(TVTensor):
    """Frames ``(..., T, C, H, W)``."""

    def __new__(
        cls, data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool | None = None
    ) -> Video:
        tensor = _to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        if tensor.ndim < 4:
            raise ValueError(f"Video must have at least 4 dimensions, got {tensor.ndim}.")
        return tensor.as_subclass(cls)

    def __repr__(self, *, tensor_contents: Any = None) -> str:
        return self._make_repr()


class Mask(TVTensor):
    """A segmentation or detection mask ``(..., H, W)``."""

    def __new__(
        cls, data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool | None = None
    ) -> Mask:
        if not isinstance(data, Tensor) and type(data).__module__.startswith("PIL"):
            from ..transforms.functional import pil_to_tensor

            data = pil_to_tensor(data)
        tensor = _to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        return tensor.as_subclass(cls)
