"""v2 colour transforms."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import chainrule

from ..transforms import ColorJitter as _V1ColorJitter
from . import functional as F
from ._transform import Transform, _RandomApplyTransform
from ._utils import query_chw


class Grayscale(Transform):
    """Grey in 1 or 3 channels."""

    def __init__(self, num_output_channels: int = 1) -> None:
        super().__init__()
        self.num_output_channels = num_output_channels

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(
            F.rgb_to_grayscale, inpt, num_output_channels=self.num_output_channels
        )


class RandomGrayscale(_RandomApplyTransform):
    """Grey (keeping the channel count) with probability ``p``."""

    def __init__(self, p: float = 0.1) -> None:
        super().__init__(p=p)

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        return {"num_input_channels": query_chw(flat_inputs)[0]}

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(
            F.rgb_to_grayscale, inpt, num_output_channels=params["num_input_channels"]
        )


class RGB(Transform):
    """Grey images repeated to three channels."""

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(F.grayscale_to_rgb, inpt)


def _factor(bounds: Sequence[float] | None) -> float | None:
    return (
        None if bounds is None else float(chainrule.empty(1).uniform_(bounds[0], bounds[1]).item())
    )


class ColorJitter(Transform):
    """Brightness, contrast, saturation and hue by random factors, in random order."""

    def __init__(
        self,
        brightness: float | Sequence[float] | None = None,
        contrast: float | Sequence[float] | None = None,
        saturation: float | Sequence[float] | None = None,
        hue: float | Sequence[float] | None = None,
    ) -> None:
        super().__init__()
        check = _V1ColorJitter._check_input
        self.brightness = check(self, brightness if brightness is not None else 0, "brightness")
        self.contrast = check(self, contrast if contrast is not None else 0, "contrast")
        self.saturation = check(self, saturation if saturation is not None else 0, "saturation")
        self.hue = check(
            self,
            hue if hue is not None else 0,
            "hue",
            center=0,
            bound=(-0.5, 0.5),
            clip_first_on_zero=False,
        )

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        return {
            "fn_idx": chainrule.randperm(4).tolist(),
            "brightness_factor": _factor(self.brightness),
            "contrast_factor": _factor(self.contrast),
            "saturation_factor": _factor(self.saturation),
            "hue_factor": _factor(self.hue),
        }

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        steps = [
            (F.adjust_brightness, params["brightness_factor"]),
            (F.adjust_contrast, params["contrast_factor"]),
            (F.adjust_saturation, params["saturation_factor"]),
            (F.adjust_hue, params["hue_factor"]),
        ]
        for i in params["fn_idx"]:
            functional, factor = steps[i]
            if factor is not None:
                inpt = self._call_kernel(functional, inpt, factor)
        return inpt


class RandomChannelPermutation(Transform):
    """The channels in a random order."""

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        return {"permutation": chainrule.randperm(query_chw(flat_inputs)[0]).tolist()}

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(F.permute_channels, inpt, params["permutation"])


class RandomPhotometricDistort(Transform):
    """SSD's photometric distortion: each of brightness, contrast (before or after the
    rest), saturation, hue and a channel permutation with probability ``p``."""

    def __init__(
        self,
        brightness: tuple[float, float] = (0.875, 1.125),
        contrast: tuple[float, float] = (0.5, 1.5),
        saturation: tuple[float, float] = (0.5, 1.5),
        hue: tuple[float, float] = (-0.05, 0.05),
        p: float = 0.5,
    ) -> None:
        super().__init__()
        check = _V1ColorJitter._check_input
        self.brightness = check(self, brightness, "brightness")
        self.contrast = check(self, contrast, "contrast")
        self.hue = check(self, hue, "hue", center=0, bound=(-0.5, 0.5), clip_first_on_zero=False)
        self.saturation = check(self, saturation, "saturation")
        self.p = p

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        num_channels = query_chw(flat_inputs)[0]
        params: dict[str, Any] = {}
        for key, bounds in (
            ("brightness_factor", self.brightness),
            ("contrast_factor", self.contrast),
            ("saturation_factor", self.saturation),
            ("hue_factor", self.hue),
        ):
            params[key] = _factor(bounds) if chainrule.rand(1).item() < self.p else None
        params["contrast_before"] = bool(chainrule.rand(()).item() < 0.5)
        use_perm = chainrule.rand(1).item() < self.p
        params["channel_permutation"] = (
            chainrule.randperm(num_channels).tolist() if use_perm else None
        )
        return params

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        if params["brightness_factor"] is not None:
            inpt = self._call_kernel(F.adjust_brightness, inpt, params["brightness_factor"])
        if params["contrast_factor"] is not None and params["contrast_before"]:
            inpt = self._call_kernel(F.adjust_contrast, inpt, params["contrast_factor"])
        if params["saturation_factor"] is not None:
            inpt = self._call_kernel(F.adjust_saturation, inpt, params["saturation_factor"])
        if params["hue_factor"] is not None:
            inpt = self._call_kernel(F.adjust_hue, inpt, params["hue_factor"])
        if params["contrast_factor"] is not None and not params["contrast_before"]:
            inpt = self._call_kernel(F.adjust_contrast, inpt, params["contrast_factor"])
        if params["channel_permutation"] is not None:
            inpt = self._call_kernel(F.permute_channels, inpt, params["channel_permutation"])
        return inpt


class RandomEqualize(_RandomApplyTransform):
    """Histogram equalization with probability ``p``."""

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(F.equalize, inpt)


class RandomInvert(_RandomApplyTransform):
    """Inverted with probability ``p``."""

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(F.invert, inpt)


class RandomPosterize(_RandomApplyTransform):
    """Posterized to ``bits`` with probability ``p``."""

    def __init__(self, bits: int, p: float = 0.5) -> None:
        super().__init__(p=p)
        self.bits = bits

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(F.posterize, inpt, bits=self.bits)


class RandomSolarize(_RandomApplyTransform):
    """Solarized above ``threshold`` with probability ``p``."""

    def __init__(self, threshold: float, p: float = 0.5) -> None:
        super().__init__(p=p)
        self.threshold = threshold

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(F.solarize, inpt, threshold=self.threshold)


class RandomAutocontrast(_RandomApplyTransform):
    """Autocontrast with probability ``p``."""

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(F.autocontrast, inpt)


class RandomAdjustSharpness(_RandomApplyTransform):
    """Sharpness by ``sharpness_factor`` with probability ``p``."""

    def __init__(self, sharpness_factor: float, p: float = 0.5) -> None:
        super().__init__(p=p)
        self.sharpness_factor = sharpness_factor

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(F.adjust_sharpness, inpt, sharpness_factor=self.sharpness_factor)
