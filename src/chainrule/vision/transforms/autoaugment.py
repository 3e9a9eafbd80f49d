"""Automatic augmentation policies: AutoAugment (learned policies for ImageNet, CIFAR10 and
SVHN), RandAugment, TrivialAugmentWide and AugMix. Each picks image operations and
magnitudes at random and applies them with :mod:`.functional`."""

from __future__ import annotations

import math
from enum import Enum
from typing import Any

import chainrule
from chainrule import Tensor, nn

from . import functional as F
from .functional import InterpolationMode

__all__ = ["AutoAugmentPolicy", "AutoAugment", "RandAugment", "TrivialAugmentWide", "AugMix"]


def _apply_op(
    img: Tensor,
    op_name: str,
    magnitude: float,
    interpolation: InterpolationMode,
    fill: list[float] | None,
) -> Tensor:
    """One named operation at ``magnitude`` (shears as slopes, translations in pixels,
    enhancements as ``1 + magnitude``)."""
    if op_name == "ShearX":
        shear = [math.degrees(math.atan(magnitude)), 0.0]
        return F.affine(
            img, 0.0, [0, 0], 1.0, shear, interpolation=interpolation, fill=fill, center=[0, 0]
        )
    if op_name == "ShearY":
        shear = [0.0, math.degrees(math.atan(magnitude))]
        return F.affine(
            img, 0.0, [0, 0], 1.0, shear, interpolation=interpolation, fill=fill, center=[0, 0]
        )
    if op_name == "TranslateX":
        return F.affine(
            img, 0.0, [int(magnitude), 0], 1.0, [0.0, 0.0], interpolation=interpolation, fill=fill
        )
    if op_name == "TranslateY":
        return F.affine(
            img, 0.0, [0, int(magnitude)], 1.0, [0.0, 0.0], interpolation=interpolation, fill=fill
        )
    if op_name == "Rotate":
        return F.rotate(img, magnitude, interpolation=interpolation, fill=fill)
    if op_name == "Brightness":
        return F.adjust_brightness(img, 1.0 + magnitude)
    if op_name == "Color":
        return F.adjust_saturation(img, 1.0 + magnitude)
    if op_name == "Contrast":
        return F.adjust_contrast(img, 1.0 + magnitude)
    if op_name == "Sharpness":
        return F.adjust_sharpness(img, 1.0 + magnitude)
    if op_name == "Posterize":
        return F.posterize(img, int(magnitude))
    if op_name == "Solarize":
        return F.solarize(img, magnitude)
    if op_name == "AutoContrast":
        return F.autocontrast(img)
    if op_name == "Equalize":
        return F.equalize(img)
    if op_name == "Invert":
        return F.invert(img)
    if op_name == "Identity":
        return img
    raise ValueError(f"The provided operator {op_name} is not recognized.")


class AutoAugmentPolicy(Enum):
    """The data sets AutoAugment's policies were learned on."""

    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


# (op, probability, magnitude bin) pairs of each sub-policy, from the AutoAugment paper
_POLICIES = {
    AutoAugmentPolicy.IMAGENET: [
        (("Posterize", 0.4, 8), ("Rotate", 0.6, 9)),
        (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
        (("Posterize", 0.6, 7), ("Posterize", 0.6, 6)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)),
        (("Equalize", 0.4, None), ("Rotate", 0.8, 8)),
        (("Solarize", 0.6, 3), ("Equalize", 0.6, None)),
        (("Posterize", 0.8, 5), ("Equalize", 1.0, None)),
        (("Rotate", 0.2, 3), ("Solarize", 0.6, 8)),
        (("Equalize", 0.6, None), ("Posterize", 0.4, 6)),
        (("Rotate", 0.8, 8), ("Color", 0.4, 0)),
        (("Rotate", 0.4, 9), ("Equalize", 0.6, None)),
        (("Equalize", 0.0, None), ("Equalize", 0.8, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Rotate", 0.8, 8), ("Color", 1.0, 2)),
        (("Color", 0.8, 8), ("Solarize", 0.8, 7)),
        (("Sharpness", 0.4, 7), ("Invert", 0.6, None)),
        (("ShearX", 0.6, 5), ("Equalize", 1.0, None)),
        (("Color", 0.4, 0), ("Equalize", 0.6, None)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)),
        (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
    ],
    AutoAugmentPolicy.CIFAR10: [
        (("Invert", 0.1, None), ("Contrast", 0.2, 6)),
        (("Rotate", 0.7, 2), ("TranslateX", 0.3, 9)),
        (("Sharpness", 0.8, 1), ("Sharpness", 0.9, 3)),
        (("ShearY", 0.5, 8), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.5, None), ("Equalize", 0.9, None)),
        (("ShearY", 0.2, 7), ("Posterize", 0.3, 7)),
        (("Color", 0.4, 3), ("Brightness", 0.6, 7)),
        (("Sharpness", 0.3, 9), ("Brightness", 0.7, 9)),
        (("Equalize", 0.6, None), ("Equalize", 0.5, None)),
        (("Contrast", 0.6, 7), ("Sharpness", 0.6, 5)),
        (("Color", 0.7, 7), ("TranslateX", 0.5, 8)),
        (("Equalize", 0.3, None), ("AutoContrast", 0.4, None)),
        (("TranslateY", 0.4, 3), ("Sharpness", 0.2, 6)),
        (("Brightness", 0.9, 6), ("Color", 0.2, 8)),
        (("Solarize", 0.5, 2), ("Invert", 0.0, None)),
        (("Equalize", 0.2, None), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.2, None), ("Equalize", 0.6, None)),
        (("Color", 0.9, 9), ("Equalize", 0.6, None)),
        (("AutoContrast", 0.8, None), ("Solarize", 0.2, 8)),
        (("Brightness", 0.1, 3), ("Color", 0.7, 0)),
        (("Solarize", 0.4, 5), ("AutoContrast", 0.9, None)),
        (("TranslateY", 0.9, 9), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.9, None), ("Solarize", 0.8, 3)),
        (("Equalize", 0.8, None), ("Invert", 0.1, None)),
        (("TranslateY", 0.7, 9), ("AutoContrast", 0.9, None)),
    ],
    AutoAugmentPolicy.SVHN: [
        (("ShearX", 0.9, 4), ("Invert", 0.2, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.6, None), ("Solarize", 0.6, 6)),
        (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("AutoContrast", 0.8, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.4, None)),
        (("ShearY", 0.9, 5), ("Solarize", 0.2, 6)),
        (("Invert", 0.9, None), ("AutoContrast", 0.8, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("Solarize", 0.3, 3)),
        (("ShearY", 0.8, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.9, None), ("TranslateY", 0.6, 6)),
        (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Contrast", 0.3, 3), ("Rotate", 0.8, 4)),
        (("Invert", 0.8, None), ("TranslateY", 0.0, 2)),
        (("ShearY", 0.7, 6), ("Solarize", 0.4, 8)),
        (("Invert", 0.6, None), ("Rotate", 0.8, 4)),
        (("ShearY", 0.3, 7), ("TranslateX", 0.9, 3)),
        (("ShearX", 0.1, 6), ("Invert", 0.6, None)),
        (("Solarize", 0.7, 2), ("TranslateY", 0.6, 7)),
        (("ShearY", 0.8, 4), ("Invert", 0.8, None)),
        (("ShearX", 0.7, 9), ("TranslateY", 0.8, 3)),
        (("ShearY", 0.8, 5), ("AutoContrast", 0.7, None)),
        (("ShearX", 0.7, 2), ("Invert", 0.1, None)),
    ],
}

_ZERO = (chainrule.tensor(0.0), False)


def _ramp(end: float, num_bins: int) -> Tensor:
    return chainrule.linspace(0.0, end, num_bins)


def _posterize_bits(num_bins: int, start: int, span: int) -> Tensor:
    """``start - round(i / ((num_bins - 1) / span))``: bits kept, falling with the bin."""
    steps = chainrule.arange(num_bins) / ((num_bins - 1) / span)
    return start - steps.round().int()


def _tensor_fill(img: Any, fill: Any) -> Any:
    if isinstance(img, Tensor):
        channels = F.get_dimensions(img)[0]
        if isinstance(fill, (int, float)):
            return [float(fill)] * channels
        if fill is not None:
            return [float(f) for f in fill]
    return fill


class AutoAugment(nn.Module):
    """One of the learned sub-policies of ``policy`` (two ops, each with its probability)."""

    def __init__(
        self,
        policy: AutoAugmentPolicy = AutoAugmentPolicy.IMAGENET,
        interpolation: InterpolationMode = InterpolationMode.NEAREST,
        fill: list[float] | None = None,
    ) -> None:
        super().__init__()
        self.policy = policy
        self.interpolation = interpolation
        self.fill = fill
        self.policies = self._get_policies(policy)

    def _get_policies(self, policy: AutoAugmentPolicy) -> list:
        if policy not in _POLICIES:
            raise ValueError(f"The provided policy {policy} is not recognized.")
        return list(_POLICIES[policy])

    def _augmentation_space(
        self, num_bins: int, image_size: tuple[int, int]
    ) -> dict[str, tuple[Tensor, bool]]:
        return {
            "ShearX": (_ramp(0.3, num_bins), True),
            "ShearY": (_ramp(0.3, num_bins), True),
            "TranslateX": (_ramp(150.0 / 331.0 * image_size[1], num_bins), True),
            "TranslateY": (_ramp(150.0 / 331.0 * image_size[0], num_bins), True),
            "Rotate": (_ramp(30.0, num_bins), True),
            "Brightness": (_ramp(0.9, num_bins), True),
            "Color": (_ramp(0.9, num_bins), True),
            "Contrast": (_ramp(0.9, num_bins), True),
            "Sharpness": (_ramp(0.9, num_bins), True),
            "Posterize": (_posterize_bits(num_bins, 8, 4), False),
            "Solarize": (chainrule.linspace(255.0, 0.0, num_bins), False),
            "AutoContrast": _ZERO,
            "Equalize": _ZERO,
            "Invert": _ZERO,
        }

    @staticmethod
    def get_params(transform_num: int) -> tuple[int, Tensor, Tensor]:
        """The sub-policy index, two uniform draws for the op probabilities and two signs."""
        policy_id = int(chainrule.randint(transform_num, (1,)).item())
        probs = chainrule.rand((2,))
        signs = chainrule.randint(2, (2,))
        return policy_id, probs, signs

    def forward(self, img: Any) -> Any:
        fill = _tensor_fill(img, self.fill)
        _, height, width = F.get_dimensions(img)
        transform_id, probs, signs = self.get_params(len(self.policies))
        op_meta = self._augmentation_space(10, (height, width))
        for i, (op_name, p, magnitude_id) in enumerate(self.policies[transform_id]):
            if probs[i] <= p:
                magnitudes, signed = op_meta[op_name]
                magnitude = (
                    float(magnitudes[magnitude_id].item()) if magnitude_id is not None else 0.0
                )
                if signed and signs[i] == 0:
                    magnitude *= -1.0
                img = _apply_op(
                    img, op_name, magnitude, interpolation=self.interpolation, fill=fill
                )
        return img

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(policy={self.policy}, fill={self.fill})"


class RandAugment(nn.Module):
    """``num_ops`` uniformly chosen operations, each at bin ``magnitude`` with a random sign."""

    def __init__(
        self,
        num_ops: int = 2,
        magnitude: int = 9,
        num_magnitude_bins: int = 31,
        interpolation: InterpolationMode = InterpolationMode.NEAREST,
        fill: list[float] | None = None,
    ) -> None:
        super().__init__()
        self.num_ops = num_ops
        self.magnitude = magnitude
        self.num_magnitude_bins = num_magnitude_bins
        self.interpolation = interpolation
        self.fill = fill

    def _augmentation_space(
        self, num_bins: int, image_size: tuple[int, int]
    ) -> dict[str, tuple[Tensor, bool]]:
        return {
            "Identity": _ZERO,
            "ShearX": (_ramp(0.3, num_bins), True),
            "ShearY": (_ramp(0.3, num_bins), True),
            "TranslateX": (_ramp(150.0 / 331.0 * image_size[1], num_bins), True),
            "TranslateY": (_ramp(150.0 / 331.0 * image_size[0], num_bins), True),
            "Rotate": (_ramp(30.0, num_bins), True),
            "Brightness": (_ramp(0.9, num_bins), True),
            "Color": (_ramp(0.9, num_bins), True),
            "Contrast": (_ramp(0.9, num_bins), True),
            "Sharpness": (_ramp(0.9, num_bins), True),
            "Posterize": (_posterize_bits(num_bins, 8, 4), False),
            "Solarize": (chainrule.linspace(255.0, 0.0, num_bins), False),
            "AutoContrast": _ZERO,
            "Equalize": _ZERO,
        }

    def forward(self, img: Any) -> Any:
        fill = _tensor_fill(img, self.fill)
        _, height, width = F.get_dimensions(img)
        op_meta = self._augmentation_space(self.num_magnitude_bins, (height, width))
        names = list(op_meta)
        for _ in range(self.num_ops):
            op_name = names[int(chainrule.randint(len(op_meta), (1,)).item())]
            magnitudes, signed = op_meta[op_name]
            magnitude = float(magnitudes[self.magnitude].item()) if magnitudes.ndim > 0 else 0.0
            if signed and chainrule.randint(2, (1,)).item():
                magnitude *= -1.0
            img = _apply_op(img, op_name, magnitude, interpolation=self.interpolation, fill=fill)
        return img

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}(num_ops={self.num_ops}, magnitude={self.magnitude}, "
            f"num_magnitude_bins={self.num_magnitude_bins}, interpolation={self.interpolation}, fill={self.fill})"
        )


class TrivialAugmentWide(nn.Module):
    """One uniformly chosen operation at a uniformly chosen magnitude bin."""

    def __init__(
        self,
        num_magnitude_bins: int = 31,
        interpolation: InterpolationMode = InterpolationMode.NEAREST,
        fill: list[float] | None = None,
    ) -> None:
        super().__init__()
        self.num_magnitude_bins = num_magnitude_bins
        self.interpolation = interpolation
        self.fill = fill

    def _augmentation_space(self, num_bins: int) -> dict[str, tuple[Tensor, bool]]:
        return {
            "Identity": _ZERO,
            "ShearX": (_ramp(0.99, num_bins), True),
            "ShearY": (_ramp(0.99, num_bins), True),
            "TranslateX": (_ramp(32.0, num_bins), True),
            "TranslateY": (_ramp(32.0, num_bins), True),
            "Rotate": (_ramp(135.0, num_bins), True),
            "Brightness": (_ramp(0.99, num_bins), True),
            "Color": (_ramp(0.99, num_bins), True),
            "Contrast": (_ramp(0.99, num_bins), True),
            "Sharpness": (_ramp(0.99, num_bins), True),
            "Posterize": (_posterize_bits(num_bins, 8, 6), False),
            "Solarize": (chainrule.linspace(255.0, 0.0, num_bins), False),
            "AutoContrast": _ZERO,
            "Equalize": _ZERO,
        }

    def forward(self, img: Any) -> Any:
        fill = _tensor_fill(img, self.fill)
        op_meta = self._augmentation_space(self.num_magnitude_bins)
        op_name = list(op_meta)[int(chainrule.randint(len(op_meta), (1,)).item())]
        magnitudes, signed = op_meta[op_name]
        magnitude = 0.0
        if magnitudes.ndim > 0:
            magnitude = float(
                magnitudes[int(chainrule.randint(len(magnitudes), (1,)).item())].item()
            )
        if signed and chainrule.randint(2, (1,)).item():
            magnitude *= -1.0
        return _apply_op(img, op_name, magnitude, interpolation=self.interpolation, fill=fill)

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}(num_magnitude_bins={self.num_magnitude_bins}, "
            f"interpolation={self.interpolation}, fill={self.fill})"
        )


class AugMix(nn.Module):
    """A Dirichlet-weighted mix of ``mixture_width`` random op chains, blended with the
    original by a Beta(alpha, alpha) weight."""

    _PARAMETER_MAX = 10

    def __init__(
        self,
        severity: int = 3,
        mixture_width: int = 3,
        chain_depth: int = -1,
        alpha: float = 1.0,
        all_ops: bool = True,
        interpolation: InterpolationMode = InterpolationMode.BILINEAR,
        fill: list[float] | None = None,
    ) -> None:
        super().__init__()
        if not (1 <= severity <= self._PARAMETER_MAX):
            raise ValueError(
                f"The severity must be between [1, {self._PARAMETER_MAX}]. Got {severity} instead."
            )
        self.severity = severity
        self.mixture_width = mixture_width
        self.chain_depth = chain_depth
        self.alpha = alpha
        self.all_ops = all_ops
        self.interpolation = interpolation
        self.fill = fill

    def _augmentation_space(
        self, num_bins: int, image_size: tuple[int, int]
    ) -> dict[str, tuple[Tensor, bool]]:
        space = {
            "ShearX": (_ramp(0.3, num_bins), True),
            "ShearY": (_ramp(0.3, num_bins), True),
            "TranslateX": (_ramp(image_size[1] / 3.0, num_bins), True),
            "TranslateY": (_ramp(image_size[0] / 3.0, num_bins), True),
            "Rotate": (_ramp(30.0, num_bins), True),
            "Posterize": (_posterize_bits(num_bins, 4, 4), False),
            "Solarize": (chainrule.linspace(255.0, 0.0, num_bins), False),
            "AutoContrast": _ZERO,
            "Equalize": _ZERO,
        }
        if self.all_ops:
            space.update(
                {
                    "Brightness": (_ramp(0.9, num_bins), True),
                    "Color": (_ramp(0.9, num_bins), True),
                    "Contrast": (_ramp(0.9, num_bins), True),
                    "Sharpness": (_ramp(0.9, num_bins), True),
                }
            )
        return space

    def _sample_dirichlet(self, params: Tensor) -> Tensor:
        return chainrule._sample_dirichlet(params)

    def _draw_op(self, op_meta: dict[str, tuple[Tensor, bool]], img: Any) -> tuple[str, float]:
        """One chain step: an op, a magnitude bin below ``severity`` and a sign."""
        op_name = list(op_meta)[int(chainrule.randint(len(op_meta), (1,)).item())]
        magnitudes, signed = op_meta[op_name]
        magnitude = 0.0
        if magnitudes.ndim > 0:
            magnitude = float(magnitudes[int(chainrule.randint(self.severity, (1,)).item())].item())
        if signed and chainrule.randint(2, (1,)).item():
            magnitude *= -1.0
        return op_name, magnitude

    def forward(self, orig_img: Any) -> Any:
        channels, height, width = F.get_dimensions(orig_img)
        fill = _tensor_fill(orig_img, self.fill)
        img = orig_img if isinstance(orig_img, Tensor) else F.pil_to_tensor(orig_img)
        op_meta = self._augmentation_space(self._PARAMETER_MAX, (height, width))
        orig_dims = list(img.shape)
        batch = img.reshape([1] * max(4 - img.ndim, 0) + orig_dims)
        batch_dims = [batch.size(0)] + [1] * (batch.ndim - 1)
        n = batch_dims[0]
        m = self._sample_dirichlet(chainrule.tensor([self.alpha, self.alpha]).expand(n, -1))
        weights = self._sample_dirichlet(
            chainrule.tensor([self.alpha] * self.mixture_width).expand(n, -1)
        )
        weights = weights * m[:, 1].reshape([n, -1])
        mix = m[:, 0].reshape(batch_dims) * batch
        for i in range(self.mixture_width):
            aug = batch
            depth = (
                self.chain_depth
                if self.chain_depth > 0
                else int(chainrule.randint(1, 4, size=(1,)).item())
            )
            for _ in range(depth):
                op_name, magnitude = self._draw_op(op_meta, aug)
                aug = _apply_op(
                    aug, op_name, magnitude, interpolation=self.interpolation, fill=fill
                )
            mix = mix + weights[:, i].reshape(batch_dims) * aug
        mix = mix.reshape(orig_dims).to(dtype=img.dtype)
        if not isinstance(orig_img, Tensor):
            return F.to_pil_image(mix)
        return mix

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}(severity={self.severity}, mixture_width={self.mixture_width}, "
            f"chain_depth={self.chain_depth}, alpha={self.alpha}, all_ops={self.all_ops}, "
            f"interpolation={self.interpolation}, fill={self.fill})"
        )
