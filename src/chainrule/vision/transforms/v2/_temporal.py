"""v2 UniformTemporalSubsample."""

from __future__ import annotations

from typing import Any

from ... import tv_tensors
from . import functional as F
from ._transform import Transform
from .functional import is_pure_tensor


class UniformTemporalSubsample(Transform):
    """``num_samples`` evenly spaced frames of a video."""

    _transformed_types = (is_pure_tensor, tv_tensors.Video)

    def __init__(self, num_samples: int) -> None:
        super().__init__()
        self.num_samples = num_samples

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(F.uniform_temporal_subsample, inpt, self.num_samples)
