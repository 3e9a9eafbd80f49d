"""v2 RandomErasing, MixUp, CutMix and JPEG."""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Sequence
from typing import Any

import chainrule
from chainrule import Tensor

from ... import tv_tensors
from ..functional import _is_pil_image
from . import functional as F
from ._transform import Transform, _RandomApplyTransform
from ._utils import query_chw
from .functional import is_pure_tensor


class RandomErasing(_RandomApplyTransform):
    """With probability ``p``, a random box of images and videos set to ``value``
    (``"random"``: standard normal noise)."""

    def __init__(
        self,
        p: float = 0.5,
        scale: Sequence[float] = (0.02, 0.33),
        ratio: Sequence[float] = (0.3, 3.3),
        value: float = 0.0,
        inplace: bool = False,
    ) -> None:
        super().__init__(p=p)
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError("Argument value should be either a number or str or a sequence")
        if isinstance(value, str) and value != "random":
            raise ValueError("If value is str, it should be 'random'")
        if not isinstance(scale, Sequence):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, Sequence):
            raise TypeError("Ratio should be a sequence")
        if (scale[0] > scale[1]) or (ratio[0] > ratio[1]):
            warnings.warn("Scale and ratio should be of kind (min, max)", stacklevel=2)
        if scale[0] < 0 or scale[1] > 1:
            raise ValueError("Scale should be between 0 and 1")
        self.scale = scale
        self.ratio = ratio
        if isinstance(value, (int, float)):
            self.value = [float(value)]
        elif isinstance(value, str):
            self.value = None
        else:
            self.value = [float(v) for v in value]
        self.inplace = inplace
        self._log_ratio = (math.log(ratio[0]), math.log(ratio[1]))

    def _call_kernel(self, functional: Any, inpt: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(inpt, (tv_tensors.BoundingBoxes, tv_tensors.Mask)):
            warnings.warn(
                f"{type(self).__name__}() is currently passing through inputs of type "
                f"tv_tensors.{type(inpt).__name__}. This will likely change in the future.",
                stacklevel=2,
            )
        return super()._call_kernel(functional, inpt, *args, **kwargs)

    def check_inputs(self, flat_inputs: list[Any]) -> None:
        if any(_is_pil_image(inpt) for inpt in flat_inputs):
            raise TypeError(f"{type(self).__name__}() does not support PIL images.")

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        img_c, img_h, img_w = query_chw(flat_inputs)
        if self.value is not None and len(self.value) not in (1, img_c):
            raise ValueError(
                f"If value is a sequence, it should have either a single value or {img_c} (number of inpt channels)"
            )
        area = img_h * img_w
        for _ in range(10):
            erase_area = area * float(
                chainrule.empty(1).uniform_(self.scale[0], self.scale[1]).item()
            )
            aspect_ratio = math.exp(float(chainrule.empty(1).uniform_(*self._log_ratio).item()))
            h = int(round(math.sqrt(erase_area * aspect_ratio)))
            w = int(round(math.sqrt(erase_area / aspect_ratio)))
            if not (h < img_h and w < img_w):
                continue
            if self.value is None:
                v = chainrule.empty([img_c, h, w], dtype=chainrule.float32).normal_()
            else:
                v = chainrule.tensor(self.value)[:, None, None]
            i = int(chainrule.randint(0, img_h - h + 1, size=(1,)).item())
            j = int(chainrule.randint(0, img_w - w + 1, size=(1,)).item())
            return {"i": i, "j": j, "h": h, "w": w, "v": v}
        return {"i": 0, "j": 0, "h": img_h, "w": img_w, "v": None}

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        if params["v"] is None:
            return inpt
        return self._call_kernel(F.erase, inpt, **params, inplace=self.inplace)


class _BaseMixUpCutMix(Transform):
    """Mixes each image of a batch with the next one (``roll(1, 0)``) and the one-hot labels
    by the same weight."""

    def __init__(
        self, *, alpha: float = 1.0, num_classes: int | None = None, labels_getter: Any = "default"
    ) -> None:
        super().__init__()
        self.alpha = float(alpha)
        self._dist = chainrule.distributions.Beta(
            chainrule.tensor([alpha]), chainrule.tensor([alpha])
        )
        self.num_classes = num_classes
        from ._sanitize import _parse_labels_getter

        self._labels_getter = _parse_labels_getter(labels_getter)

    def forward(self, *inputs: Any) -> Any:
        from chainrule.utils._pytree import tree_flatten, tree_unflatten

        from ._utils import has_any

        inputs = inputs if len(inputs) > 1 else inputs[0]
        flat_inputs, spec = tree_flatten(inputs)
        needs = self._needs_transform_list(flat_inputs)
        if has_any(flat_inputs, _is_pil_image, tv_tensors.BoundingBoxes, tv_tensors.Mask):
            raise ValueError(
                f"{type(self).__name__}() does not support PIL images, bounding boxes and masks."
            )
        labels = self._labels_getter(inputs)
        if not isinstance(labels, Tensor):
            raise ValueError(f"The labels must be a torch.Tensor, but got {type(labels)} instead.")
        if labels.ndim not in (1, 2):
            raise ValueError(
                f"labels should be index based with shape (batch_size,) or probability based with shape "
                f"(batch_size, num_classes), but got a tensor of shape {labels.shape} instead."
            )
        if (
            labels.ndim == 2
            and self.num_classes is not None
            and labels.shape[-1] != self.num_classes
        ):
            raise ValueError(
                f"When passing 2D labels, the number of elements in last dimension must match num_classes: "
                f"{labels.shape[-1]} != {self.num_classes}. You can Leave num_classes to None."
            )
        if labels.ndim == 1 and self.num_classes is None:
            raise ValueError("num_classes must be passed if the labels are index-based (1D)")
        params = {
            "labels": labels,
            "batch_size": labels.shape[0],
            **self.make_params([inpt for inpt, need in zip(flat_inputs, needs) if need]),
        }
        needs[next(i for i, inpt in enumerate(flat_inputs) if inpt is labels)] = True
        outputs = [
            self.transform(inpt, params) if need else inpt for inpt, need in zip(flat_inputs, needs)
        ]
        return tree_unflatten(outputs, spec)

    def _check_image_or_video(self, inpt: Tensor, *, batch_size: int) -> None:
        expected = 5 if isinstance(inpt, tv_tensors.Video) else 4
        if inpt.ndim != expected:
            raise ValueError(
                f"Expected a batched input with {expected} dims, but got {inpt.ndim} dimensions instead."
            )
        if inpt.shape[0] != batch_size:
            raise ValueError(
                f"The batch size of the image or video does not match the batch size of the labels: "
                f"{inpt.shape[0]} != {batch_size}."
            )

    def _mixup_label(self, label: Tensor, *, lam: float) -> Tensor:
        if label.ndim == 1:
            label = chainrule.nn.functional.one_hot(label, num_classes=self.num_classes)
        if not label.is_floating_point():
            label = label.float()
        return label.roll(1, 0) * (1.0 - lam) + label * lam

    def _is_image(self, inpt: Any) -> bool:
        return isinstance(inpt, (tv_tensors.Image, tv_tensors.Video)) or is_pure_tensor(inpt)


class MixUp(_BaseMixUpCutMix):
    """``lam * x + (1 - lam) * x.roll(1, 0)`` with ``lam ~ Beta(alpha, alpha)``."""

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        return {"lam": float(self._dist.sample(()).item())}

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        lam = params["lam"]
        if inpt is params["labels"]:
            return self._mixup_label(inpt, lam=lam)
        if self._is_image(inpt):
            self._check_image_or_video(inpt, batch_size=params["batch_size"])
            plain = inpt.as_subclass(Tensor)
            output = plain.roll(1, 0) * (1.0 - lam) + plain * lam
            return (
                tv_tensors.wrap(output, like=inpt)
                if isinstance(inpt, tv_tensors.TVTensor)
                else output
            )
        return inpt


class CutMix(_BaseMixUpCutMix):
    """A random box of each image replaced by the next image's, the labels mixed by the
    box's area fraction."""

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        from ._utils import query_size

        lam = float(self._dist.sample(()).item())
        height, width = query_size(flat_inputs)
        r_x = int(chainrule.randint(width, size=(1,)).item())
        r_y = int(chainrule.randint(height, size=(1,)).item())
        r = 0.5 * math.sqrt(1.0 - lam)
        r_w_half, r_h_half = int(r * width), int(r * height)
        x1, y1 = max(r_x - r_w_half, 0), max(r_y - r_h_half, 0)
        x2, y2 = min(r_x + r_w_half, width), min(r_y + r_h_half, height)
        lam_adjusted = float(1.0 - (x2 - x1) * (y2 - y1) / (width * height))
        return {"box": (x1, y1, x2, y2), "lam_adjusted": lam_adjusted}

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        if inpt is params["labels"]:
            return self._mixup_label(inpt, lam=params["lam_adjusted"])
        if self._is_image(inpt):
            self._check_image_or_video(inpt, batch_size=params["batch_size"])
            x1, y1, x2, y2 = params["box"]
            plain = inpt.as_subclass(Tensor)
            output = plain.clone()
            output[..., y1:y2, x1:x2] = plain.roll(1, 0)[..., y1:y2, x1:x2]
            return (
                tv_tensors.wrap(output, like=inpt)
                if isinstance(inpt, tv_tensors.TVTensor)
                else output
            )
        return inpt


class JPEG(Transform):
    """Images and videos JPEG-compressed at a quality drawn uniformly from the integers
    ``quality[0]..quality[1]`` (one number: that quality)."""

    def __init__(self, quality: int | Sequence[int]) -> None:
        super().__init__()
        if isinstance(quality, int):
            quality = [quality, quality]
        else:
            from ..transforms import _check_sequence_input

            _check_sequence_input(quality, "quality", req_sizes=(2,))
        if not (
            1 <= quality[0] <= quality[1] <= 100
            and isinstance(quality[0], int)
            and isinstance(quality[1], int)
        ):
            raise ValueError(f"quality must be an integer from 1 to 100, got {quality =}")
        self.quality = quality

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        low, high = self.quality
        return {"quality": int(chainrule.randint(low, high + 1, ()).item())}

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(F.jpeg, inpt, quality=params["quality"])
