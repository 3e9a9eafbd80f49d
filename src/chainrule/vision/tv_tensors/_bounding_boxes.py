"""``BoundingBoxes``: boxes ``(N, 4)`` in a ``format`` on an image of ``canvas_size``."""

from __future__ import annotations

from enum import Enum
from typing import Any

from chainrule import Tensor

from ._tv_tensor import TVTensor, _to_tensor


class BoundingBoxFormat(Enum):
    """How a box's numbers are laid out."""

    XYXY = "XYXY"
    XYWH = "XYWH"
    CXCYWH = "CXCYWH"
    XYWHR = "XYWHR"
    CXCYWHR = "CXCYWHR"
    XYXYXYXY = "XYXYXYXY"


def is_rotated_bounding_format(format: BoundingBoxFormat | str) -> bool:
    """Whether boxes in ``format`` carry a rotation."""
    if isinstance(format, str):
        format = BoundingBoxFormat[format.upper()]
    return format in (
        BoundingBoxFormat.XYWHR,
        BoundingBoxFormat.CXCYWHR,
        BoundingBoxFormat.XYXYXYXY,
    )


class BoundingBoxes(TVTensor):
    """Boxes ``(N, K)`` (a single box becomes ``(1, K)``) with ``format``, ``canvas_size``
    ``(H, W)`` and ``clamping_mode``."""

    format: BoundingBoxFormat
    canvas_size: tuple[int, int]
    clamping_mode: str | None

    def __new__(
        cls,
        data: Any,
        *,
        format: BoundingBoxFormat | str,
        canvas_size: tuple[int, int],
        clamping_mode: str | None = "soft",
        dtype: Any = None,
        device: Any = None,
        requires_grad: bool | None = None,
    ) -> BoundingBoxes:
        tensor = _to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        if tensor.ndim == 1:
            tensor = tensor.unsqueeze(0)
        elif tensor.ndim != 2:
            raise ValueError(f"Expected a 1D or 2D tensor, got {tensor.ndim}D")
        if isinstance(format, str):
            format = BoundingBoxFormat[format.upper()]
        return cls._wrap(
            tensor, format=format, canvas_size=tuple(canvas_size), clamping_mode=clamping_mode
        )

    @classmethod
    def _wrap(cls, tensor: Tensor, **metadata: Any) -> Any:
        out = tensor.as_subclass(cls)
        out.format = metadata["format"]
        out.canvas_size = tuple(metadata["canvas_size"])
        out.clamping_mode = metadata.get("clamping_mode", "soft")
        return out

    def _metadata(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "canvas_size": self.canvas_size,
            "clamping_mode": self.clamping_mode,
        }

    def __repr__(self, *, tensor_contents: Any = None) -> str:
        return self._make_repr()
