"""v2 transforms of bounding-box metadata: ConvertBoundingBoxFormat and ClampBoundingBoxes."""

from __future__ import annotations

from typing import Any

from ... import tv_tensors
from . import functional as F
from ._transform import Transform


class ConvertBoundingBoxFormat(Transform):
    """Boxes to ``format``."""

    _transformed_types = (tv_tensors.BoundingBoxes,)

    def __init__(self, format: str | tv_tensors.BoundingBoxFormat) -> None:
        super().__init__()
        self.format = format

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return F.convert_bounding_box_format(inpt, new_format=self.format)


class ClampBoundingBoxes(Transform):
    """Boxes clipped to their canvas."""

    _transformed_types = (tv_tensors.BoundingBoxes,)

    def __init__(self, clamping_mode: str | None = "auto") -> None:
        super().__init__()
        self.clamping_mode = clamping_mode

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return F.clamp_bounding_boxes(inpt)
