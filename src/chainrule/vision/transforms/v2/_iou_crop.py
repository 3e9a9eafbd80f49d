"""v2 ``RandomIoUCrop``: SSD's random crop, which keeps at least one box center inside the
crop and overlaps a box by at least a randomly chosen IoU."""

from __future__ import annotations

from typing import Any

import chainrule
from chainrule import Tensor

from ... import tv_tensors
from ..functional import _is_pil_image
from . import functional as F
from ._transform import Transform
from ._utils import get_bounding_boxes, has_all, has_any, query_size
from .functional import is_pure_tensor

_DEFAULT_OPTIONS = [0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0]


def _iou_with(boxes: Tensor, box: list[float]) -> Tensor:
    """IoU of each XYXY box with one box ``[x1, y1, x2, y2]``."""
    x1, y1, x2, y2 = boxes.unbind(-1)
    inter_w = (
        chainrule.minimum(x2, chainrule.tensor(box[2], dtype=boxes.dtype))
        - chainrule.maximum(x1, chainrule.tensor(box[0], dtype=boxes.dtype))
    ).clamp(min=0)
    inter_h = (
        chainrule.minimum(y2, chainrule.tensor(box[3], dtype=boxes.dtype))
        - chainrule.maximum(y1, chainrule.tensor(box[1], dtype=boxes.dtype))
    ).clamp(min=0)
    inter = inter_w * inter_h
    area = (x2 - x1) * (y2 - y1)
    crop_area = (box[2] - box[0]) * (box[3] - box[1])
    return inter / (area + crop_area - inter)


class RandomIoUCrop(Transform):
    """A random crop as in SSD. Each call draws a minimum IoU from ``sampler_options`` (a
    value of 1 or more leaves the sample as it is); then, up to ``trials`` times, a crop of
    ``min_scale..max_scale`` of each side with aspect ratio in
    ``[min_aspect_ratio, max_aspect_ratio]`` at a random place, kept when some box's center
    lies strictly inside it and one of those boxes overlaps it by at least that IoU. Boxes
    whose centers fall outside are set to zeros (to be dropped by
    ``SanitizeBoundingBoxes``). The sample needs an image or video and BoundingBoxes."""

    def __init__(
        self,
        min_scale: float = 0.3,
        max_scale: float = 1.0,
        min_aspect_ratio: float = 0.5,
        max_aspect_ratio: float = 2.0,
        sampler_options: list[float] | None = None,
        trials: int = 40,
    ) -> None:
        super().__init__()
        self.min_scale = min_scale
        self.max_scale = max_scale
        self.min_aspect_ratio = min_aspect_ratio
        self.max_aspect_ratio = max_aspect_ratio
        self.options = list(_DEFAULT_OPTIONS if sampler_options is None else sampler_options)
        self.trials = trials

    def check_inputs(self, flat_inputs: list[Any]) -> None:
        if not (
            has_all(flat_inputs, tv_tensors.BoundingBoxes)
            and has_any(
                flat_inputs, _is_pil_image, tv_tensors.Image, tv_tensors.Video, is_pure_tensor
            )
        ):
            raise TypeError(
                f"{type(self).__name__}() requires input sample to contain tensor or PIL images "
                "and bounding boxes. Sample can also contain masks."
            )

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        orig_h, orig_w = query_size(flat_inputs)
        boxes = get_bounding_boxes(flat_inputs)
        xyxy = F.convert_bounding_box_format(
            boxes.as_subclass(Tensor), boxes.format, tv_tensors.BoundingBoxFormat.XYXY
        )
        cx = 0.5 * (xyxy[..., 0] + xyxy[..., 2])
        cy = 0.5 * (xyxy[..., 1] + xyxy[..., 3])
        while True:
            min_iou = self.options[int(chainrule.randint(0, len(self.options), (1,)).item())]
            if min_iou >= 1.0:
                return {}
            for _ in range(self.trials):
                scale = (
                    self.min_scale + (self.max_scale - self.min_scale) * chainrule.rand(2)
                ).tolist()
                new_w, new_h = int(orig_w * scale[0]), int(orig_h * scale[1])
                if new_h == 0 or not (
                    self.min_aspect_ratio <= new_w / new_h <= self.max_aspect_ratio
                ):
                    continue
                place = chainrule.rand(2).tolist()
                left = int((orig_w - new_w) * place[0])
                top = int((orig_h - new_h) * place[1])
                right, bottom = left + new_w, top + new_h
                if left == right or top == bottom:
                    continue
                inside = (left < cx) & (cx < right) & (top < cy) & (cy < bottom)
                if not bool(inside.any()):
                    continue
                ious = _iou_with(xyxy[inside], [left, top, right, bottom])
                if float(ious.max()) < min_iou:
                    continue
                return {
                    "top": top,
                    "left": left,
                    "height": new_h,
                    "width": new_w,
                    "is_within_crop_area": inside,
                }

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        if not params:
            return inpt
        output = self._call_kernel(
            F.crop,
            inpt,
            top=params["top"],
            left=params["left"],
            height=params["height"],
            width=params["width"],
        )
        if isinstance(output, tv_tensors.BoundingBoxes):
            keep = params["is_within_crop_area"].reshape(*params["is_within_crop_area"].shape, 1)
            plain = output.as_subclass(Tensor)
            plain = chainrule.where(keep, plain, chainrule.zeros_like(plain))
            output = tv_tensors.wrap(plain, like=output)
        return output
