"""The inference transforms that pretrained weights carry (``weights.transforms()``):
resize, centre crop, rescale to [0, 1] and normalize, as each model family was trained."""

from __future__ import annotations

from typing import Any

import chainrule
from chainrule import Tensor, nn

from . import functional as F
from .functional import InterpolationMode

__all__ = [
    "ObjectDetection",
    "ImageClassification",
    "VideoClassification",
    "SemanticSegmentation",
    "OpticalFlow",
]

_ACCEPTS_IMAGES = "Accepts ``PIL.Image``, batched ``(B, C, H, W)`` and single ``(C, H, W)`` image ``torch.Tensor`` objects."


def _as_float(img: Any) -> Tensor:
    if not isinstance(img, Tensor):
        img = F.pil_to_tensor(img)
    return F.convert_image_dtype(img, chainrule.float)


def _fields(name: str, fields: dict[str, Any]) -> str:
    body = "".join(f"\n    {k}={v}" for k, v in fields.items())
    return f"{name}({body}\n)"


class ObjectDetection(nn.Module):
    """Only rescales the image to [0, 1] floats."""

    def forward(self, img: Any) -> Tensor:
        return _as_float(img)

    def __repr__(self) -> str:
        return self.__class__.__name__ + "()"

    def describe(self) -> str:
        return f"{_ACCEPTS_IMAGES} The images are rescaled to ``[0.0, 1.0]``."


class ImageClassification(nn.Module):
    """Resize (shorter edge to ``resize_size``), centre crop ``crop_size``, rescale to
    [0, 1] and normalize with ``mean`` and ``std``."""

    def __init__(
        self,
        *,
        crop_size: int,
        resize_size: int = 256,
        mean: tuple[float, ...] = (0.485, 0.456, 0.406),
        std: tuple[float, ...] = (0.229, 0.224, 0.225),
        interpolation: InterpolationMode = InterpolationMode.BILINEAR,
        antialias: bool | None = True,
    ) -> None:
        super().__init__()
        self.crop_size = [crop_size]
        self.resize_size = [resize_size]
        self.mean = list(mean)
        self.std = list(std)
        self.interpolation = interpolation
        self.antialias = antialias

    def forward(self, img: Any) -> Tensor:
        img = F.resize(
            img, self.resize_size, interpolation=self.interpolation, antialias=self.antialias
        )
        img = F.center_crop(img, self.crop_size)
        return F.normalize(_as_float(img), mean=self.mean, std=self.std)

    def __repr__(self) -> str:
        return _fields(
            self.__class__.__name__,
            {
                "crop_size": self.crop_size,
                "resize_size": self.resize_size,
                "mean": self.mean,
                "std": self.std,
                "interpolation": self.interpolation,
            },
        )

    def describe(self) -> str:
        return (
            f"{_ACCEPTS_IMAGES} The images are resized to ``resize_size={self.resize_size}`` using "
            f"``interpolation={self.interpolation}``, followed by a central crop of "
            f"``crop_size={self.crop_size}``. Finally the values are first rescaled to ``[0.0, 1.0]`` "
            f"and then normalized using ``mean={self.mean}`` and ``std={self.std}``."
        )


class VideoClassification(nn.Module):
    """Frames ``(..., T, C, H, W)`` resized, centre cropped, rescaled and normalized, then
    permuted to ``(..., C, T, H, W)``."""

    def __init__(
        self,
        *,
        crop_size: tuple[int, int],
        resize_size: tuple[int] | tuple[int, int],
        mean: tuple[float, ...] = (0.43216, 0.394666, 0.37645),
        std: tuple[float, ...] = (0.22803, 0.22145, 0.216989),
        interpolation: InterpolationMode = InterpolationMode.BILINEAR,
    ) -> None:
        super().__init__()
        self.crop_size = list(crop_size)
        self.resize_size = list(resize_size)
        self.mean = list(mean)
        self.std = list(std)
        self.interpolation = interpolation

    def forward(self, vid: Tensor) -> Tensor:
        squeeze = vid.ndim < 5
        if squeeze:
            vid = vid.unsqueeze(dim=0)
        n, t, c, h, w = vid.shape
        vid = vid.reshape(-1, c, h, w)
        vid = F.resize(vid, self.resize_size, interpolation=self.interpolation, antialias=False)
        vid = F.center_crop(vid, self.crop_size)
        vid = F.normalize(F.convert_image_dtype(vid, chainrule.float), mean=self.mean, std=self.std)
        ch, cw = self.crop_size
        vid = vid.reshape(n, t, c, ch, cw).permute(0, 2, 1, 3, 4)
        return vid.squeeze(dim=0) if squeeze else vid

    def __repr__(self) -> str:
        return _fields(
            self.__class__.__name__,
            {
                "crop_size": self.crop_size,
                "resize_size": self.resize_size,
                "mean": self.mean,
                "std": self.std,
                "interpolation": self.interpolation,
            },
        )

    def describe(self) -> str:
        return (
            "Accepts batched ``(B, T, C, H, W)`` and single ``(T, C, H, W)`` video frame ``torch.Tensor`` "
            f"objects. The frames are resized to ``resize_size={self.resize_size}`` using "
            f"``interpolation={self.interpolation}``, followed by a central crop of "
            f"``crop_size={self.crop_size}``. Finally the values are first rescaled to ``[0.0, 1.0]`` "
            f"and then normalized using ``mean={self.mean}`` and ``std={self.std}``. Finally the output "
            "dimensions are permuted to ``(..., C, T, H, W)`` tensors."
        )


class SemanticSegmentation(nn.Module):
    """Resize (when ``resize_size`` is given), rescale to [0, 1] and normalize."""

    def __init__(
        self,
        *,
        resize_size: int | None,
        mean: tuple[float, ...] = (0.485, 0.456, 0.406),
        std: tuple[float, ...] = (0.229, 0.224, 0.225),
        interpolation: InterpolationMode = InterpolationMode.BILINEAR,
        antialias: bool | None = True,
    ) -> None:
        super().__init__()
        self.resize_size = [resize_size] if resize_size is not None else None
        self.mean = list(mean)
        self.std = list(std)
        self.interpolation = interpolation
        self.antialias = antialias

    def forward(self, img: Any) -> Tensor:
        if isinstance(self.resize_size, list):
            img = F.resize(
                img, self.resize_size, interpolation=self.interpolation, antialias=self.antialias
            )
        return F.normalize(_as_float(img), mean=self.mean, std=self.std)

    def __repr__(self) -> str:
        return _fields(
            self.__class__.__name__,
            {
                "resize_size": self.resize_size,
                "mean": self.mean,
                "std": self.std,
                "interpolation": self.interpolation,
            },
        )

    def describe(self) -> str:
        return (
            f"{_ACCEPTS_IMAGES} The images are resized to ``resize_size={self.resize_size}`` using "
            f"``interpolation={self.interpolation}``. Finally the values are first rescaled to "
            f"``[0.0, 1.0]`` and then normalized using ``mean={self.mean}`` and ``std={self.std}``."
        )


class OpticalFlow(nn.Module):
    """Both images rescaled to [-1, 1]."""

    def forward(self, img1: Any, img2: Any) -> tuple[Tensor, Tensor]:
        out = []
        for img in (img1, img2):
            img = F.normalize(_as_float(img), mean=[0.5, 0.5, 0.5], std=[0.5, 0.5, 0.5])
            out.append(img.contiguous())
        return out[0], out[1]

    def __repr__(self) -> str:
        return self.__class__.__name__ + "()"

    def describe(self) -> str:
        return f"{_ACCEPTS_IMAGES} The images are rescaled to ``[-1.0, 1.0]``."
