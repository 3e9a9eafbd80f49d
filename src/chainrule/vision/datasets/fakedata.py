"""``FakeData``: random images (seeded by the index, so an item is the same every time)
and random labels, for trying out a pipeline without files."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .vision import VisionDataset

__all__ = ["FakeData"]


def _float_to_pil(img: np.ndarray) -> Any:
    """A ``(C, H, W)`` float image as ToPILImage makes it: ``x * 255`` truncated to an
    integer and wrapped to uint8 (so values outside ``[0, 1]`` wrap, as in torchvision)."""
    from PIL import Image

    pixels = np.trunc(img * 255).astype(np.int64).astype(np.uint8).transpose(1, 2, 0)
    if pixels.shape[2] == 1:
        return Image.fromarray(np.ascontiguousarray(pixels[:, :, 0]))
    return Image.fromarray(np.ascontiguousarray(pixels))


class FakeData(VisionDataset):
    """``size`` items of a ``(C, H, W)`` standard-normal image (as a PIL image) and an int label
    in ``[0, num_classes)``, drawn with the seed ``index + random_offset``. The generator's
    global state is left as it was. (The same pixels and labels as torchvision's.)"""

    def __init__(
        self,
        size: int = 1000,
        image_size: tuple[int, int, int] = (3, 224, 224),
        num_classes: int = 10,
        transform: Callable | None = None,
        target_transform: Callable | None = None,
        random_offset: int = 0,
    ) -> None:
        super().__init__(transform=transform, target_transform=target_transform)
        self.size = size
        self.num_classes = num_classes
        self.image_size = image_size
        self.random_offset = random_offset

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        import chainrule

        if index >= len(self):
            raise IndexError(f"{type(self).__name__} index out of range")
        state = chainrule.get_rng_state()
        chainrule.manual_seed(index + self.random_offset)
        img = chainrule.randn(*self.image_size)
        target = chainrule.randint(0, self.num_classes, size=(1,), dtype=chainrule.long)[0]
        chainrule.set_rng_state(state)
        img = _float_to_pil(img.numpy())
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target.item()

    def __len__(self) -> int:
        return self.size
