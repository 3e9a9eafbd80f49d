"""v2 transforms of box and keypoint metadata: ConvertBoundingBoxFormat, ClampBoundingBoxes
and ClampKeyPoints."""

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


class ClampKeyPoints(Transform):
    """Keypoints clipped to their canvas ``[0, W - 1] x [0, H - 1]``."""

    _transformed_types = (tv_tensors.KeyPoints,)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return F.clamp_keypoints(inpt)


class SetClampingMode(Transform):
    """Boxes with ``clamping_mode`` (``"soft"``, ``"hard"`` or None) for the transforms
    that follow (a new BoundingBoxes; the input's is unchanged)."""

    _transformed_types = (tv_tensors.BoundingBoxes,)

    def __init__(self, clamping_mode: str | None) -> None:
        super().__init__()
        if clamping_mode not in ("soft", "hard", None):
            raise ValueError(f"clamping_mode must be soft, hard or None, got {clamping_mode}")
        self.clamping_mode = clamping_mode

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return tv_tensors.wrap(inpt.clone(), like=inpt, clamping_mode=self.clamping_mode)
