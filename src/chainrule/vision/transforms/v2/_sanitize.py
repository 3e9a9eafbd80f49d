"""v2 SanitizeBoundingBoxes and SanitizeKeyPoints, and how v2 transforms find the labels of
a sample."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainrule import Tensor
from chainrule.utils._pytree import tree_flatten, tree_unflatten

from ... import tv_tensors
from . import functional as F
from ._transform import Transform
from ._utils import get_bounding_boxes, get_keypoints
from .functional import is_pure_tensor


def _find_labels_default_heuristic(inputs: Any) -> Any:
    """The labels of ``(image, target)`` or ``{"labels": ...}``: a tensor second item, or the
    value under the key ``labels`` (else ``label``), case-insensitively."""
    if isinstance(inputs, (tuple, list)):
        inputs = inputs[1]
    if is_pure_tensor(inputs):
        return inputs
    if not isinstance(inputs, dict):
        raise ValueError(
            "When using the default labels_getter, the input passed to forward must be a dictionary or a "
            "two-tuple whose second item is a dictionary or a tensor, but got "
            + f"{inputs} instead."
        )
    key = next((k for k in inputs if k.lower() == "labels"), None)
    if key is None:
        key = next((k for k in inputs if k.lower() == "label"), None)
    if key is None:
        raise ValueError(
            "Could not infer where the labels are in the sample. Try passing a callable as the labels_getter "
            "parameter?If there are no labels in the sample by design, pass labels_getter=None."
        )
    return inputs[key]


def _parse_labels_getter(labels_getter: Any) -> Callable | None:
    if labels_getter == "default":
        return _find_labels_default_heuristic
    if callable(labels_getter):
        return labels_getter
    if labels_getter is None:
        return None
    raise ValueError(
        f"labels_getter should either be 'default', a callable, or None, but got {labels_getter}."
    )


class SanitizeBoundingBoxes(Transform):
    """Drops degenerate boxes (smaller than ``min_size`` or ``min_area``, or leaving the
    canvas) with their labels and per-box masks."""

    def __init__(
        self,
        min_size: float = 1.0,
        min_area: float = 1.0,
        labels_getter: Callable | str | None = "default",
    ) -> None:
        super().__init__()
        if min_size < 1:
            raise ValueError(f"min_size must be >= 1, got {min_size}.")
        self.min_size = min_size
        if min_area < 1:
            raise ValueError(f"min_area must be >= 1, got {min_area}.")
        self.min_area = min_area
        self.labels_getter = labels_getter
        self._labels_getter = _parse_labels_getter(labels_getter)

    def forward(self, *inputs: Any) -> Any:
        inputs = inputs if len(inputs) > 1 else inputs[0]
        labels = self._labels_getter(inputs) if self._labels_getter is not None else None
        if labels is not None and not isinstance(labels, (Tensor, tuple, list)):
            raise ValueError(
                f"The labels in the input to forward() must be a tensor or None, got {type(labels)} instead."
            )
        flat_inputs, spec = tree_flatten(inputs)
        boxes = get_bounding_boxes(flat_inputs)
        if labels is not None:
            for label in labels if isinstance(labels, (tuple, list)) else (labels,):
                if boxes.shape[0] != label.shape[0]:
                    raise ValueError(
                        f"Number of boxes (shape={boxes.shape}) and must match the number of labels."
                        f"Found labels with shape={label.shape})."
                    )
        _, valid = F.sanitize_bounding_boxes(boxes, min_size=self.min_size, min_area=self.min_area)
        params = {"valid": valid.as_subclass(Tensor), "labels": labels}
        return tree_unflatten([self.transform(inpt, params) for inpt in flat_inputs], spec)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        labels = params["labels"]
        many = labels if isinstance(labels, (tuple, list)) else (labels,)
        is_label = labels is not None and any(inpt is label for label in many)
        if not (is_label or isinstance(inpt, (tv_tensors.BoundingBoxes, tv_tensors.Mask))):
            return inpt
        output = inpt[params["valid"]]
        return output if is_label else tv_tensors.wrap(output, like=inpt)


class SanitizeKeyPoints(Transform):
    """Drops the keypoints (or groups of them, along the first dim) that leave the canvas,
    with their labels."""

    def __init__(self, labels_getter: Callable | str | None = None) -> None:
        super().__init__()
        self.labels_getter = labels_getter
        self._labels_getter = _parse_labels_getter(labels_getter)

    def forward(self, *inputs: Any) -> Any:
        inputs = inputs if len(inputs) > 1 else inputs[0]
        labels = self._labels_getter(inputs) if self._labels_getter is not None else None
        if labels is not None and not isinstance(labels, (Tensor, tuple, list)):
            raise ValueError(
                f"The labels in the input to forward() must be a tensor or None, got {type(labels)} instead."
            )
        flat_inputs, spec = tree_flatten(inputs)
        points = get_keypoints(flat_inputs)
        if labels is not None:
            for label in labels if isinstance(labels, (tuple, list)) else (labels,):
                if points.shape[0] != label.shape[0]:
                    raise ValueError(
                        f"Number of kepyoints (shape={points.shape}) must match the number of labels."
                        f"Found labels with shape={label.shape})."
                    )
        _, valid = F.sanitize_keypoints(points)
        params = {"valid": valid.as_subclass(Tensor), "labels": labels}
        return tree_unflatten([self.transform(inpt, params) for inpt in flat_inputs], spec)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        labels = params["labels"]
        many = labels if isinstance(labels, (tuple, list)) else (labels,)
        is_label = labels is not None and any(inpt is label for label in many)
        if not (is_label or isinstance(inpt, tv_tensors.KeyPoints)):
            return inpt
        output = inpt[params["valid"]]
        return output if is_label else tv_tensors.wrap(output, like=inpt)
