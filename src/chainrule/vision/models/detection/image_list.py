"""``ImageList``: a batch of padded images and the sizes they had before padding."""

from __future__ import annotations

from typing import Any

from ...._tensor import Tensor

__all__ = ["ImageList"]


class ImageList:
    """Images padded to one tensor ``(N, C, H, W)``, with each image's ``(h, w)``."""

    def __init__(self, tensors: Tensor, image_sizes: list[tuple[int, int]]) -> None:
        self.tensors = tensors
        self.image_sizes = image_sizes

    def to(self, device: Any) -> ImageList:
        """The same images on ``device``."""
        return ImageList(self.tensors.to(device), self.image_sizes)
