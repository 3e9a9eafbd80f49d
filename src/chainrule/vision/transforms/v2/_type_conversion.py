"""v2 conversions: ToImage, ToPureTensor, PILToTensor, ToPILImage."""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrule import Tensor

from ... import tv_tensors
from .. import functional as F1
from ..functional import _is_pil_image
from . import functional as F
from ._transform import Transform
from .functional import is_pure_tensor


class PILToTensor(Transform):
    """PIL image to a plain ``(C, H, W)`` tensor of the same values."""

    _transformed_types = (_is_pil_image,)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Tensor:
        return F1.pil_to_tensor(inpt)


class ToImage(Transform):
    """Tensor, array or PIL image to ``tv_tensors.Image`` (values unchanged)."""

    _transformed_types = (is_pure_tensor, _is_pil_image, np.ndarray)

    def transform(self, inpt: Any, params: dict[str, Any]) -> tv_tensors.Image:
        return F.to_image(inpt)


class ToPILImage(Transform):
    """Tensor, Image or array to a PIL image."""

    _transformed_types = (is_pure_tensor, tv_tensors.Image, np.ndarray)

    def __init__(self, mode: str | None = None) -> None:
        super().__init__()
        self.mode = mode

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return F1.to_pil_image(
            inpt.as_subclass(Tensor) if isinstance(inpt, Tensor) else inpt, mode=self.mode
        )


class ToPureTensor(Transform):
    """Every TVTensor back to a plain tensor."""

    _transformed_types = (tv_tensors.TVTensor,)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Tensor:
        return inpt.as_subclass(Tensor)
