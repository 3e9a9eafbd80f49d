"""v2's ``ToTensor`` (deprecated by torchvision in favour of ``ToImage`` + ``ToDtype``)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from chainrule import Tensor

from .. import functional as F1
from ..functional import _is_pil_image
from ._transform import Transform


class ToTensor(Transform):
    """PIL image or array to a float tensor in [0, 1] (as v1's ``ToTensor``)."""

    _transformed_types = (_is_pil_image, np.ndarray)

    def __init__(self) -> None:
        warnings.warn(
            "The transform `ToTensor()` is deprecated and will be removed in a future release. "
            "Instead, please use `v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])`."
            "Output is equivalent up to float precision.",
            stacklevel=2,
        )
        super().__init__()

    def transform(self, inpt: Any, params: dict[str, Any]) -> Tensor:
        return F1.to_tensor(inpt)
