"""``GeneralizedRCNNTransform``: the R-CNNs' input and output processing. Images are
normalized, resized (shorter side to ``min_size`` unless the longer would pass
``max_size``) and padded into one batch whose sides are multiples of ``size_divisible``;
targets are resized with them, and predictions are mapped back to the original sizes."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import chainrule
from chainrule import nn
from chainrule.nn import functional as F

from ...._tensor import Tensor
from .image_list import ImageList
from .roi_heads import paste_masks_in_image

__all__ = ["GeneralizedRCNNTransform", "resize_boxes", "resize_keypoints"]


def _resize_image_and_masks(
    image: Tensor,
    self_min_size: int,
    self_max_size: int,
    target: dict[str, Tensor] | None = None,
    fixed_size: tuple[int, int] | None = None,
) -> tuple[Tensor, dict[str, Tensor] | None]:
    """``image`` (and ``target['masks']``) scaled by ``min(min_size / shorter side,
    max_size / longer side)``, or to ``fixed_size`` ``(w, h)``."""
    size: list[int] | None = None
    scale_factor: float | None = None
    recompute_scale_factor: bool | None = None
    if fixed_size is not None:
        size = [fixed_size[1], fixed_size[0]]
    else:
        h, w = image.shape[-2:]
        scale_factor = min(self_min_size / min(h, w), self_max_size / max(h, w))
        recompute_scale_factor = True
    image = F.interpolate(
        image[None],
        size=size,
        scale_factor=scale_factor,
        mode="bilinear",
        recompute_scale_factor=recompute_scale_factor,
        align_corners=False,
    )[0]
    if target is None:
        return image, target
    if "masks" in target:
        masks = F.interpolate(
            target["masks"][:, None].float(),
            size=size,
            scale_factor=scale_factor,
            recompute_scale_factor=recompute_scale_factor,
        )[:, 0].byte()
        target["masks"] = masks
    return image, target


def _ratios(new_size: Any, original_size: Any) -> list[float]:
    # float32 ratios, as the reference computes them on float32 tensors
    return [float(np.float32(s) / np.float32(o)) for s, o in zip(new_size, original_size)]


def resize_keypoints(keypoints: Tensor, original_size: list[int], new_size: list[int]) -> Tensor:
    """Keypoints ``(..., K, 3)`` with x, y scaled from ``original_size`` to ``new_size``."""
    ratio_h, ratio_w = _ratios(new_size, original_size)
    x = keypoints[..., 0:1] * ratio_w
    y = keypoints[..., 1:2] * ratio_h
    return chainrule.cat((x, y, keypoints[..., 2:]), dim=-1)


def resize_boxes(boxes: Tensor, original_size: list[int], new_size: list[int]) -> Tensor:
    """Boxes ``(N, 4)`` scaled from an image of ``original_size`` to one of ``new_size``."""
    ratio_h, ratio_w = _ratios(new_size, original_size)
    xmin, ymin, xmax, ymax = boxes.unbind(1)
    return chainrule.stack((xmin * ratio_w, ymin * ratio_h, xmax * ratio_w, ymax * ratio_h), dim=1)


class GeneralizedRCNNTransform(nn.Module):
    """Normalizes with ``image_mean``/``image_std``, resizes (a random choice of
    ``min_size`` when training, its last entry otherwise; ``max_size`` bounds the longer
    side) and batches the images; ``postprocess`` maps detections back."""

    def __init__(
        self,
        min_size: int,
        max_size: int,
        image_mean: list[float],
        image_std: list[float],
        size_divisible: int = 32,
        fixed_size: tuple[int, int] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__()
        if not isinstance(min_size, (list, tuple)):
            min_size = (min_size,)
        self.min_size = min_size
        self.max_size = max_size
        self.image_mean = image_mean
        self.image_std = image_std
        self.size_divisible = size_divisible
        self.fixed_size = fixed_size
        self._skip_resize = kwargs.pop("_skip_resize", False)

    def forward(
        self, images: list[Tensor], targets: list[dict[str, Tensor]] | None = None
    ) -> tuple[ImageList, list[dict[str, Tensor]] | None]:
        images = list(images)
        if targets is not None:
            targets = [dict(t) for t in targets]
        for i in range(len(images)):
            image = images[i]
            target = targets[i] if targets is not None else None
            if image.dim() != 3:
                raise ValueError(
                    f"images is expected to be a list of 3d tensors of shape [C, H, W], got {image.shape}"
                )
            image = self.normalize(image)
            image, target = self.resize(image, target)
            images[i] = image
            if targets is not None and target is not None:
                targets[i] = target
        image_sizes = [(int(img.shape[-2]), int(img.shape[-1])) for img in images]
        batched = self.batch_images(images, size_divisible=self.size_divisible)
        return ImageList(batched, image_sizes), targets

    def normalize(self, image: Tensor) -> Tensor:
        """``(image - mean) / std`` per channel; images must be floating point."""
        if not image.is_floating_point():
            raise TypeError(
                f"Expected input images to be of floating type (in range [0, 1]), "
                f"but found type {image.dtype} instead"
            )
        mean = chainrule.as_tensor(self.image_mean, dtype=image.dtype)
        std = chainrule.as_tensor(self.image_std, dtype=image.dtype)
        return (image - mean[:, None, None]) / std[:, None, None]

    def torch_choice(self, k: list[int]) -> int:
        """A uniformly random element of ``k`` (drawn with ``uniform_``)."""
        index = int(chainrule.empty(1).uniform_(0.0, float(len(k))).item())
        return k[index]

    def resize(
        self, image: Tensor, target: dict[str, Tensor] | None = None
    ) -> tuple[Tensor, dict[str, Tensor] | None]:
        """The resized image and its target (boxes, masks, keypoints) resized with it."""
        h, w = image.shape[-2:]
        if self.training:
            if self._skip_resize:
                return image, target
            size = self.torch_choice(self.min_size)
        else:
            size = self.min_size[-1]
        image, target = _resize_image_and_masks(image, size, self.max_size, target, self.fixed_size)
        if target is None:
            return image, target
        target["boxes"] = resize_boxes(target["boxes"], [h, w], list(image.shape[-2:]))
        if "keypoints" in target:
            target["keypoints"] = resize_keypoints(
                target["keypoints"], [h, w], list(image.shape[-2:])
            )
        return image, target

    def max_by_axis(self, the_list: list[list[int]]) -> list[int]:
        """The largest entry of each position across the lists."""
        maxes = list(the_list[0])
        for sublist in the_list[1:]:
            maxes = [max(a, b) for a, b in zip(maxes, sublist)]
        return maxes

    def batch_images(self, images: list[Tensor], size_divisible: int = 32) -> Tensor:
        """The images zero-padded (bottom, right) to a common size divisible by
        ``size_divisible`` and stacked."""
        max_size = self.max_by_axis([list(img.shape) for img in images])
        stride = float(size_divisible)
        max_size[1] = int(math.ceil(float(max_size[1]) / stride) * stride)
        max_size[2] = int(math.ceil(float(max_size[2]) / stride) * stride)
        padded = [
            F.pad(
                img,
                (
                    0,
                    max_size[2] - img.shape[2],
                    0,
                    max_size[1] - img.shape[1],
                    0,
                    max_size[0] - img.shape[0],
                ),
            )
            for img in images
        ]
        return chainrule.stack(padded)

    def postprocess(
        self,
        result: list[dict[str, Tensor]],
        image_shapes: list[tuple[int, int]],
        original_image_sizes: list[tuple[int, int]],
    ) -> list[dict[str, Tensor]]:
        """Predicted boxes (masks pasted into the image, keypoints) in the original sizes."""
        if self.training:
            return result
        for i, (pred, im_s, o_im_s) in enumerate(zip(result, image_shapes, original_image_sizes)):
            boxes = resize_boxes(pred["boxes"], im_s, o_im_s)
            result[i]["boxes"] = boxes
            if "masks" in pred:
                result[i]["masks"] = paste_masks_in_image(pred["masks"], boxes, o_im_s)
            if "keypoints" in pred:
                result[i]["keypoints"] = resize_keypoints(pred["keypoints"], im_s, o_im_s)
        return result

    def __repr__(self) -> str:
        indent = "\n    "
        return (
            f"{self.__class__.__name__}("
            f"{indent}Normalize(mean={self.image_mean}, std={self.image_std})"
            f"{indent}Resize(min_size={self.min_size}, max_size={self.max_size}, mode='bilinear')"
            "\n)"
        )
