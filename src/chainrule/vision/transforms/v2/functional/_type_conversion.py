"""v2 conversions between PIL images, arrays, tensors and ``tv_tensors.Image``."""

from __future__ import annotations

from typing import Any

import numpy as np

import chainrule
from chainrule import Tensor

from .... import tv_tensors
from ... import functional as F1
from ...functional import _is_pil_image, pil_to_tensor, to_pil_image


def to_image(inpt: Any) -> tv_tensors.Image:
    """A tensor, ``(H, W[, C])`` array or PIL image as a ``tv_tensors.Image`` ``(C, H, W)``
    (values unchanged)."""
    if isinstance(inpt, np.ndarray):
        arr = inpt if inpt.ndim >= 3 else inpt[:, :, None]
        output = chainrule.from_numpy(np.ascontiguousarray(np.moveaxis(arr, -1, -3)))
    elif _is_pil_image(inpt):
        output = pil_to_tensor(inpt)
    elif isinstance(inpt, Tensor):
        output = inpt
    else:
        raise TypeError(
            f"Input can either be a pure Tensor, a numpy array, or a PIL image, but got {type(inpt)} instead."
        )
    return tv_tensors.Image(output)


def to_tensor(inpt: Any) -> Tensor:
    """v1's ``to_tensor`` (deprecated by torchvision for ``to_image`` + ``to_dtype``)."""
    return F1.to_tensor(inpt)


__all__ = ["pil_to_tensor", "to_image", "to_pil_image", "to_tensor"]
