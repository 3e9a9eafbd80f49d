"""v2 AutoAugment, RandAugment, TrivialAugmentWide and AugMix: the v1 policies applied to
the one image or video of the sample (other inputs pass through). The first three draw
their parameters as torchvision's v2 does (its order of draws and its Solarize threshold
as a fraction of the image's maximum), so one seed gives torchvision's images."""

from __future__ import annotations

from typing import Any

import chainrule
from chainrule import Tensor
from chainrule.utils._pytree import tree_flatten, tree_unflatten

from ... import tv_tensors
from .. import autoaugment as v1
from ..autoaugment import AutoAugmentPolicy
from ..functional import InterpolationMode, _is_pil_image
from ._transform import Transform
from ._utils import _get_fill, _setup_fill_arg
from .functional import is_pure_tensor
from .functional._utils import _check_interpolation


class _AutoAugmentBase(Transform):
    _v1_cls: type = v1.AutoAugment

    def __init__(
        self, *, interpolation: str | InterpolationMode | int, fill: Any, **options: Any
    ) -> None:
        super().__init__()
        mode = _check_interpolation(interpolation)
        self.interpolation = (
            interpolation if isinstance(interpolation, InterpolationMode) else mode.value
        )
        self.fill = fill
        self._fill = _setup_fill_arg(fill)
        for key, value in options.items():
            setattr(self, key, value)
        self._options = options

    def forward(self, *inputs: Any) -> Any:
        flat_inputs, spec = tree_flatten(inputs if len(inputs) > 1 else inputs[0])
        image_types = (tv_tensors.Image, tv_tensors.Video)
        has_image = any(isinstance(i, image_types) or _is_pil_image(i) for i in flat_inputs)
        candidates = [
            idx
            for idx, inpt in enumerate(flat_inputs)
            if isinstance(inpt, image_types)
            or _is_pil_image(inpt)
            or (not has_image and is_pure_tensor(inpt))
        ]
        if not candidates:
            raise TypeError("Found no image in the sample.")
        if len(candidates) > 1 and has_image:
            raise TypeError(
                f"Auto augment method {type(self).__name__}() found more than one image in the sample."
            )
        idx = candidates[0]
        image = flat_inputs[idx]
        op = self._v1_cls(
            interpolation=InterpolationMode(self.interpolation),
            fill=_get_fill(self._fill, type(image)),
            **self._options,
        )
        out = self._augment(op, image.as_subclass(Tensor) if isinstance(image, Tensor) else image)
        flat_inputs[idx] = (
            tv_tensors.wrap(out, like=image) if isinstance(image, tv_tensors.TVTensor) else out
        )
        return tree_unflatten(flat_inputs, spec)

    def _augment(self, op: Any, image: Any) -> Any:
        return op(image)


def _solarize_bound(image: Any) -> float:
    """v2 thresholds Solarize at a fraction of this maximum value."""
    return 1.0 if isinstance(image, Tensor) and image.is_floating_point() else 255.0


def _magnitude(name: str, bins: Any, index: Any, image: Any) -> float:
    """v2's magnitude of ``name``: bin ``index()`` of ``bins`` (0 for ops without
    magnitudes; ``index`` is called only for ops with them; Solarize's a fraction of the
    image's maximum), negated when signed and a uniform draw is <= 0.5."""
    magnitudes, signed = bins[name]
    if magnitudes.ndim == 0:
        return 0.0
    i = index()
    magnitude = float(magnitudes[i].item())
    if name == "Solarize":
        fraction = chainrule.linspace(1.0, 0.0, len(magnitudes))[i].item()
        magnitude = _solarize_bound(image) * fraction
    if signed and chainrule.rand(()).item() <= 0.5:
        magnitude = -magnitude
    return magnitude


def _apply(op: Any, image: Any, name: str, bins: Any, index: Any) -> Any:
    """``name`` at v2's magnitude (``_magnitude``) on ``image``."""
    magnitude = _magnitude(name, bins, index, image)
    fill = v1._tensor_fill(image, op.fill)
    return v1._apply_op(image, name, magnitude, interpolation=op.interpolation, fill=fill)


class _AugMixDraws(v1.AugMix):
    """v1's AugMix with v2's draws for each chain step."""

    def _draw_op(self, op_meta: dict[str, tuple[Tensor, bool]], img: Any) -> tuple[str, float]:
        name = list(op_meta)[int(chainrule.randint(len(op_meta), ()).item())]
        severity = lambda: int(chainrule.randint(self.severity, ()).item())  # noqa: E731
        return name, _magnitude(name, op_meta, severity, img)


def _space(op: Any, image: Any, num_bins: int) -> dict[str, tuple[Tensor, bool]]:
    _, height, width = v1.F.get_dimensions(image)
    return op._augmentation_space(num_bins, (height, width))


class AutoAugment(_AutoAugmentBase):
    """The learned AutoAugment policy of ``policy``."""

    _v1_cls = v1.AutoAugment

    def __init__(
        self,
        policy: AutoAugmentPolicy = AutoAugmentPolicy.IMAGENET,
        interpolation: str | InterpolationMode | int = "nearest",
        fill: Any = None,
    ) -> None:
        super().__init__(interpolation=interpolation, fill=fill, policy=policy)

    def _augment(self, op: Any, image: Any) -> Any:
        bins = _space(op, image, 10)
        policy = op.policies[int(chainrule.randint(len(op.policies), ()).item())]
        for name, probability, index in policy:
            if chainrule.rand(()).item() <= probability:
                image = _apply(op, image, name, bins, lambda index=index: index)
        return image


class RandAugment(_AutoAugmentBase):
    """``num_ops`` random operations at ``magnitude``."""

    _v1_cls = v1.RandAugment

    def __init__(
        self,
        num_ops: int = 2,
        magnitude: int = 9,
        num_magnitude_bins: int = 31,
        interpolation: str | InterpolationMode | int = "nearest",
        fill: Any = None,
    ) -> None:
        super().__init__(
            interpolation=interpolation,
            fill=fill,
            num_ops=num_ops,
            magnitude=magnitude,
            num_magnitude_bins=num_magnitude_bins,
        )

    def _augment(self, op: Any, image: Any) -> Any:
        bins = _space(op, image, op.num_magnitude_bins)
        for _ in range(op.num_ops):
            name = list(bins)[int(chainrule.randint(len(bins), ()).item())]
            image = _apply(op, image, name, bins, lambda: op.magnitude)
        return image


class TrivialAugmentWide(_AutoAugmentBase):
    """One random operation at a random magnitude."""

    _v1_cls = v1.TrivialAugmentWide

    def __init__(
        self,
        num_magnitude_bins: int = 31,
        interpolation: str | InterpolationMode | int = "nearest",
        fill: Any = None,
    ) -> None:
        super().__init__(
            interpolation=interpolation, fill=fill, num_magnitude_bins=num_magnitude_bins
        )

    def _augment(self, op: Any, image: Any) -> Any:
        bins = op._augmentation_space(op.num_magnitude_bins)
        name = list(bins)[int(chainrule.randint(len(bins), ()).item())]
        draw = lambda: int(chainrule.randint(op.num_magnitude_bins, ()).item())  # noqa: E731
        return _apply(op, image, name, bins, draw)


class AugMix(_AutoAugmentBase):
    """AugMix's mixture of random operation chains."""

    _v1_cls = _AugMixDraws

    def __init__(
        self,
        severity: int = 3,
        mixture_width: int = 3,
        chain_depth: int = -1,
        alpha: float = 1.0,
        all_ops: bool = True,
        interpolation: str | InterpolationMode | int = "bilinear",
        fill: Any = None,
    ) -> None:
        if not (1 <= severity <= v1.AugMix._PARAMETER_MAX):
            raise ValueError(
                f"The severity must be between [1, {v1.AugMix._PARAMETER_MAX}]. Got {severity} instead."
            )
        super().__init__(
            interpolation=interpolation,
            fill=fill,
            severity=severity,
            mixture_width=mixture_width,
            chain_depth=chain_depth,
            alpha=alpha,
            all_ops=all_ops,
        )
