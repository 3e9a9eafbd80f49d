"""``KeyPoints``: points ``(..., 2)`` as ``(x, y)`` on an image of ``canvas_size``."""

from __future__ import annotations

from typing import Any

from chainrule import Tensor

from ._tv_tensor import TVTensor, _to_tensor


class KeyPoints(TVTensor):
    """Points ``(..., 2)`` in pixel coordinates ``(x, y)`` (a single point becomes
    ``(1, 2)``; leading dims group points, e.g. ``(N, K, 2)`` for N polygons), on a canvas
    ``(H, W)``."""

    canvas_size: tuple[int, int]

    def __new__(
        cls,
        data: Any,
        *,
        canvas_size: tuple[int, int],
        dtype: Any = None,
        device: Any = None,
        requires_grad: bool | None = None,
    ) -> KeyPoints:
        tensor = _to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        if tensor.ndim == 1:
            tensor = tensor.unsqueeze(0)
        if tensor.ndim == 0 or tensor.shape[-1] != 2:
            raise ValueError(f"Expected a tensor of shape (..., 2), not {tensor.shape}")
        return cls._wrap(tensor, canvas_size=tuple(canvas_size))

    @classmethod
    def _wrap(cls, tensor: Tensor, **metadata: Any) -> Any:
        out = tensor.as_subclass(cls)
        out.canvas_size = tuple(metadata["canvas_size"])
        return out

    def _metadata(self) -> dict[str, Any]:
        return {"canvas_size": self.canvas_size}

    def __repr__(self, *, tensor_contents: Any = None) -> str:
        return self._make_repr()
