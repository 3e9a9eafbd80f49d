"""torchvision's v1 transform classes: each holds its arguments, draws its random
parameters from chainrule's generator (``get_params``) and calls one function of
:mod:`.functional`; those that are ``nn.Module`` in torchvision are modules here too."""

from __future__ import annotations

import math
import numbers
import random
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import chainrule
from chainrule import Tensor, nn

from . import functional as F
from .functional import InterpolationMode, _interpolation_modes_from_int

__all__ = [
    "Compose",
    "ToTensor",
    "PILToTensor",
    "ConvertImageDtype",
    "ToPILImage",
    "Normalize",
    "Resize",
    "CenterCrop",
    "Pad",
    "Lambda",
    "RandomApply",
    "RandomChoice",
    "RandomOrder",
    "RandomCrop",
    "RandomHorizontalFlip",
    "RandomVerticalFlip",
    "RandomResizedCrop",
    "FiveCrop",
    "TenCrop",
    "LinearTransformation",
    "ColorJitter",
    "RandomRotation",
    "RandomAffine",
    "Grayscale",
    "RandomGrayscale",
    "RandomPerspective",
    "RandomErasing",
    "GaussianBlur",
    "InterpolationMode",
    "RandomInvert",
    "RandomPosterize",
    "RandomSolarize",
    "RandomAdjustSharpness",
    "RandomAutocontrast",
    "RandomEqualize",
    "ElasticTransform",
]


def _uniform(low: float, high: float) -> float:
    return float(chainrule.empty(1).uniform_(low, high).item())


def _randint(low: int, high: int) -> int:
    return int(chainrule.randint(low, high, size=(1,)).item())


def _coin(p: float) -> bool:
    return bool(chainrule.rand(1).item() < p)


def _interpolation(interpolation: Any) -> InterpolationMode:
    if isinstance(interpolation, int):
        return _interpolation_modes_from_int(interpolation)
    return interpolation


def _setup_size(size: Any, error_msg: str) -> Any:
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, Sequence) and len(size) == 1:
        return size[0], size[0]
    if len(size) != 2:
        raise ValueError(error_msg)
    return size


def _check_sequence_input(x: Any, name: str, req_sizes: tuple[int, ...]) -> None:
    msg = req_sizes[0] if len(req_sizes) < 2 else " or ".join(str(s) for s in req_sizes)
    if not isinstance(x, Sequence):
        raise TypeError(f"{name} should be a sequence of length {msg}.")
    if len(x) not in req_sizes:
        raise ValueError(f"{name} should be a sequence of length {msg}.")


def _setup_angle(x: Any, name: str, req_sizes: tuple[int, ...] = (2,)) -> list[float]:
    if isinstance(x, numbers.Number):
        if x < 0:
            raise ValueError(f"If {name} is a single number, it must be positive.")
        x = [-x, x]
    else:
        _check_sequence_input(x, name, req_sizes)
    return [float(d) for d in x]


def _setup_fill(fill: Any) -> Any:
    if fill is None:
        return 0
    if not isinstance(fill, (Sequence, numbers.Number)):
        raise TypeError("Fill should be either a sequence or a number.")
    return fill


def _fill_for(img: Any, fill: Any) -> Any:
    """Tensor images take one float per channel; PIL images take the fill as given."""
    if isinstance(img, Tensor):
        channels = F.get_dimensions(img)[0]
        if isinstance(fill, (int, float)):
            return [float(fill)] * channels
        return [float(f) for f in fill]
    return fill


class Compose:
    """Applies ``transforms`` one after another."""

    def __init__(self, transforms: Sequence[Callable]) -> None:
        self.transforms = transforms

    def __call__(self, img: Any) -> Any:
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self) -> str:
        body = "".join(f"\n    {t}" for t in self.transforms)
        return f"{self.__class__.__name__}({body}\n)"


class ToTensor:
    """PIL image or ``(H, W, C)`` uint8 array to a float ``(C, H, W)`` tensor in [0, 1]."""

    def __init__(self) -> None:
        pass

    def __call__(self, pic: Any) -> Tensor:
        return F.to_tensor(pic)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"


class PILToTensor:
    """PIL image to a ``(C, H, W)`` tensor of the same values and dtype."""

    def __init__(self) -> None:
        pass

    def __call__(self, pic: Any) -> Tensor:
        return F.pil_to_tensor(pic)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"


class ConvertImageDtype(nn.Module):
    """:func:`.functional.convert_image_dtype` to ``dtype``."""

    def __init__(self, dtype: chainrule.dtype) -> None:
        super().__init__()
        self.dtype = dtype

    def forward(self, image: Tensor) -> Tensor:
        return F.convert_image_dtype(image, self.dtype)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"


class ToPILImage:
    """Tensor or array to a PIL image (see :func:`.functional.to_pil_image`)."""

    def __init__(self, mode: str | None = None) -> None:
        self.mode = mode

    def __call__(self, pic: Any) -> Any:
        return F.to_pil_image(pic, self.mode)

    def __repr__(self) -> str:
        name = self.__class__.__name__
        return f"{name}()" if self.mode is None else f"{name}(mode={self.mode})"


class Normalize(nn.Module):
    """``(x - mean) / std`` per channel."""

    def __init__(self, mean: Sequence[float], std: Sequence[float], inplace: bool = False) -> None:
        super().__init__()
        self.mean = mean
        self.std = std
        self.inplace = inplace

    def forward(self, tensor: Tensor) -> Tensor:
        return F.normalize(tensor, self.mean, self.std, self.inplace)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(mean={self.mean}, std={self.std})"


class Resize(nn.Module):
    """Resize to ``size`` (``(h, w)``, or one number for the shorter edge)."""

    def __init__(
        self,
        size: int | Sequence[int],
        interpolation: InterpolationMode = InterpolationMode.BILINEAR,
        max_size: int | None = None,
        antialias: bool | None = True,
    ) -> None:
        super().__init__()
        if not isinstance(size, (int, Sequence)):
            raise TypeError(f"Size should be int or sequence. Got {type(size)}")
        if isinstance(size, Sequence) and len(size) not in (1, 2):
            raise ValueError("If size is a sequence, it should have 1 or 2 values")
        self.size = size
        self.max_size = max_size
        self.interpolation = _interpolation(interpolation)
        self.antialias = antialias

    def forward(self, img: Any) -> Any:
        return F.resize(img, self.size, self.interpolation, self.max_size, self.antialias)

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}(size={self.size}, interpolation={self.interpolation.value}, "
            f"max_size={self.max_size}, antialias={self.antialias})"
        )


class CenterCrop(nn.Module):
    """The central ``size`` box (zero-padded if larger than the image)."""

    def __init__(self, size: int | Sequence[int]) -> None:
        super().__init__()
        self.size = _setup_size(
            size, error_msg="Please provide only two dimensions (h, w) for size."
        )

    def forward(self, img: Any) -> Any:
        return F.center_crop(img, self.size)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(size={self.size})"


class Pad(nn.Module):
    """:func:`.functional.pad` with fixed arguments."""

    def __init__(self, padding: Any, fill: Any = 0, padding_mode: str = "constant") -> None:
        super().__init__()
        if not isinstance(padding, (numbers.Number, tuple, list)):
            raise TypeError("Got inappropriate padding arg")
        if not isinstance(fill, (numbers.Number, tuple, list)):
            raise TypeError("Got inappropriate fill arg")
        if padding_mode not in ["constant", "edge", "reflect", "symmetric"]:
            raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
        if isinstance(padding, Sequence) and len(padding) not in [1, 2, 4]:
            raise ValueError(
                f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element tuple"
            )
        self.padding = padding
        self.fill = fill
        self.padding_mode = padding_mode

    def forward(self, img: Any) -> Any:
        return F.pad(img, self.padding, self.fill, self.padding_mode)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(padding={self.padding}, fill={self.fill}, padding_mode={self.padding_mode})"


class Lambda:
    """Applies a user function."""

    def __init__(self, lambd: Callable) -> None:
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable, got {repr(type(lambd).__name__)}")
        self.lambd = lambd

    def __call__(self, img: Any) -> Any:
        return self.lambd(img)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"


class RandomTransforms:
    """Base of the transforms that apply a random selection of ``transforms``."""

    def __init__(self, transforms: Sequence[Callable]) -> None:
        if not isinstance(transforms, Sequence):
            raise TypeError("Argument transforms should be a sequence")
        self.transforms = transforms

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError()

    def __repr__(self) -> str:
        body = "".join(f"\n    {t}" for t in self.transforms)
        return f"{self.__class__.__name__}({body}\n)"


class RandomApply(nn.Module):
    """All of ``transforms`` with probability ``p``, else nothing."""

    def __init__(self, transforms: Sequence[Callable], p: float = 0.5) -> None:
        super().__init__()
        self.transforms = transforms
        self.p = p

    def forward(self, img: Any) -> Any:
        if self.p < chainrule.rand(1).item():
            return img
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self) -> str:
        body = "".join(f"\n    {t}" for t in self.transforms)
        return f"{self.__class__.__name__}(\n    p={self.p}{body}\n)"


class RandomOrder(RandomTransforms):
    """``transforms`` in a random order (Python's ``random``)."""

    def __call__(self, img: Any) -> Any:
        order = list(range(len(self.transforms)))
        random.shuffle(order)
        for i in order:
            img = self.transforms[i](img)
        return img


class RandomChoice(RandomTransforms):
    """One of ``transforms``, chosen with weights ``p`` (Python's ``random``)."""

    def __init__(self, transforms: Sequence[Callable], p: Sequence[float] | None = None) -> None:
        super().__init__(transforms)
        if p is not None and not isinstance(p, Sequence):
            raise TypeError("Argument p should be a sequence")
        self.p = p

    def __call__(self, *args: Any) -> Any:
        t = random.choices(self.transforms, weights=self.p)[0]
        return t(*args)

    def __repr__(self) -> str:
        return f"{super().__repr__()}(p={self.p})"


class RandomCrop(nn.Module):
    """A ``size`` box at a uniform random position (after optional padding)."""

    @staticmethod
    def get_params(img: Any, output_size: tuple[int, int]) -> tuple[int, int, int, int]:
        """``(top, left, h, w)`` of a uniformly placed crop."""
        _, h, w = F.get_dimensions(img)
        th, tw = output_size
        if h < th or w < tw:
            raise ValueError(
                f"Required crop size {(th, tw)} is larger than input image size {(h, w)}"
            )
        if w == tw and h == th:
            return 0, 0, h, w
        i = _randint(0, h - th + 1)
        j = _randint(0, w - tw + 1)
        return i, j, th, tw

    def __init__(
        self,
        size: int | Sequence[int],
        padding: Any = None,
        pad_if_needed: bool = False,
        fill: Any = 0,
        padding_mode: str = "constant",
    ) -> None:
        super().__init__()
        self.size = tuple(
            _setup_size(size, error_msg="Please provide only two dimensions (h, w) for size.")
        )
        self.padding = padding
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self.padding_mode = padding_mode

    def forward(self, img: Any) -> Any:
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        _, height, width = F.get_dimensions(img)
        if self.pad_if_needed and width < self.size[1]:
            img = F.pad(img, [self.size[1] - width, 0], self.fill, self.padding_mode)
        if self.pad_if_needed and height < self.size[0]:
            img = F.pad(img, [0, self.size[0] - height], self.fill, self.padding_mode)
        i, j, h, w = self.get_params(img, self.size)
        return F.crop(img, i, j, h, w)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(size={self.size}, padding={self.padding})"


class RandomHorizontalFlip(nn.Module):
    """Mirrored left to right with probability ``p``."""

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        self.p = p

    def forward(self, img: Any) -> Any:
        if _coin(self.p):
            return F.hflip(img)
        return img

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p={self.p})"


class RandomVerticalFlip(nn.Module):
    """Mirrored top to bottom with probability ``p``."""

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        self.p = p

    def forward(self, img: Any) -> Any:
        if _coin(self.p):
            return F.vflip(img)
        return img

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p={self.p})"


class RandomResizedCrop(nn.Module):
    """A crop of random area fraction ``scale`` and aspect ``ratio``, resized to ``size``."""

    def __init__(
        self,
        size: int | Sequence[int],
        scale: tuple[float, float] = (0.08, 1.0),
        ratio: tuple[float, float] = (3.0 / 4.0, 4.0 / 3.0),
        interpolation: InterpolationMode = InterpolationMode.BILINEAR,
        antialias: bool | None = True,
    ) -> None:
        super().__init__()
        self.size = _setup_size(
            size, error_msg="Please provide only two dimensions (h, w) for size."
        )
        if not isinstance(scale, Sequence):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, Sequence):
            raise TypeError("Ratio should be a sequence")
        if (scale[0] > scale[1]) or (ratio[0] > ratio[1]):
            warnings.warn("Scale and ratio should be of kind (min, max)", stacklevel=2)
        self.interpolation = _interpolation(interpolation)
        self.antialias = antialias
        self.scale = scale
        self.ratio = ratio

    @staticmethod
    def get_params(img: Any, scale: list[float], ratio: list[float]) -> tuple[int, int, int, int]:
        """``(top, left, h, w)``: up to 10 draws of area and log-uniform aspect, then the
        largest central crop with the aspect clamped into ``ratio``."""
        _, height, width = F.get_dimensions(img)
        area = height * width
        log_ratio = chainrule.log(chainrule.tensor(ratio))
        for _ in range(10):
            target_area = area * _uniform(scale[0], scale[1])
            aspect_ratio = math.exp(_uniform(float(log_ratio[0]), float(log_ratio[1])))
            w = int(round(math.sqrt(target_area * aspect_ratio)))
            h = int(round(math.sqrt(target_area / aspect_ratio)))
            if 0 < w <= width and 0 < h <= height:
                i = _randint(0, height - h + 1)
                j = _randint(0, width - w + 1)
                return i, j, h, w
        in_ratio = float(width) / float(height)
        if in_ratio < min(ratio):
            w = width
            h = int(round(w / min(ratio)))
        elif in_ratio > max(ratio):
            h = height
            w = int(round(h * max(ratio)))
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def forward(self, img: Any) -> Any:
        i, j, h, w = self.get_params(img, self.scale, self.ratio)
        return F.resized_crop(
            img, i, j, h, w, self.size, self.interpolation, antialias=self.antialias
        )

    def __repr__(self) -> str:
        scale = tuple(round(s, 4) for s in self.scale)
        ratio = tuple(round(r, 4) for r in self.ratio)
        return (
            f"{self.__class__.__name__}(size={self.size}, scale={scale}, ratio={ratio}, "
            f"interpolation={self.interpolation.value}, antialias={self.antialias})"
        )


class FiveCrop(nn.Module):
    """The four corner crops and the central crop."""

    def __init__(self, size: int | Sequence[int]) -> None:
        super().__init__()
        self.size = _setup_size(
            size, error_msg="Please provide only two dimensions (h, w) for size."
        )

    def forward(self, img: Any) -> tuple:
        return F.five_crop(img, self.size)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(size={self.size})"


class TenCrop(nn.Module):
    """``FiveCrop`` of the image and of its flip."""

    def __init__(self, size: int | Sequence[int], vertical_flip: bool = False) -> None:
        super().__init__()
        self.size = _setup_size(
            size, error_msg="Please provide only two dimensions (h, w) for size."
        )
        self.vertical_flip = vertical_flip

    def forward(self, img: Any) -> tuple:
        return F.ten_crop(img, self.size, self.vertical_flip)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(size={self.size}, vertical_flip={self.vertical_flip})"


class LinearTransformation(nn.Module):
    """``(x.flatten() - mean_vector) @ transformation_matrix``, reshaped back (e.g. ZCA)."""

    def __init__(self, transformation_matrix: Tensor, mean_vector: Tensor) -> None:
        super().__init__()
        if transformation_matrix.size(0) != transformation_matrix.size(1):
            raise ValueError(
                "transformation_matrix should be square. Got "
                f"{tuple(transformation_matrix.size())} rectangular matrix."
            )
        if mean_vector.size(0) != transformation_matrix.size(0):
            raise ValueError(
                f"mean_vector should have the same length {mean_vector.size(0)} as any one of the "
                f"dimensions of the transformation_matrix [{tuple(transformation_matrix.size())}]"
            )
        self.transformation_matrix = transformation_matrix
        self.mean_vector = mean_vector

    def forward(self, tensor: Tensor) -> Tensor:
        shape = tensor.shape
        n = shape[-3] * shape[-2] * shape[-1]
        if n != self.transformation_matrix.shape[0]:
            raise ValueError(
                "Input tensor and transformation matrix have incompatible shape."
                f"[{shape[-3]} x {shape[-2]} x {shape[-1]}] != {self.transformation_matrix.shape[0]}"
            )
        flat = tensor.reshape(-1, n) - self.mean_vector
        out = chainrule.mm(flat, self.transformation_matrix.to(flat.dtype))
        return out.reshape(shape)

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}(transformation_matrix={self.transformation_matrix.tolist()}, "
            f"mean_vector={self.mean_vector.tolist()})"
        )


class ColorJitter(nn.Module):
    """Brightness, contrast, saturation and hue changed by random factors, in random order."""

    def __init__(
        self,
        brightness: float | tuple[float, float] = 0,
        contrast: float | tuple[float, float] = 0,
        saturation: float | tuple[float, float] = 0,
        hue: float | tuple[float, float] = 0,
    ) -> None:
        super().__init__()
        self.brightness = self._check_input(brightness, "brightness")
        self.contrast = self._check_input(contrast, "contrast")
        self.saturation = self._check_input(saturation, "saturation")
        self.hue = self._check_input(
            hue, "hue", center=0, bound=(-0.5, 0.5), clip_first_on_zero=False
        )

    def _check_input(
        self,
        value: Any,
        name: str,
        center: float = 1,
        bound: tuple[float, float] = (0, float("inf")),
        clip_first_on_zero: bool = True,
    ) -> tuple[float, float] | None:
        if isinstance(value, numbers.Number):
            if value < 0:
                raise ValueError(f"If {name} is a single number, it must be non negative.")
            value = [center - float(value), center + float(value)]
            if clip_first_on_zero:
                value[0] = max(value[0], 0.0)
        elif isinstance(value, (tuple, list)) and len(value) == 2:
            value = [float(value[0]), float(value[1])]
        else:
            raise TypeError(f"{name} should be a single number or a list/tuple with length 2.")
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"{name} values should be between {bound}, but got {value}.")
        if value[0] == value[1] == center:
            return None
        return tuple(value)

    @staticmethod
    def get_params(
        brightness: Sequence[float] | None,
        contrast: Sequence[float] | None,
        saturation: Sequence[float] | None,
        hue: Sequence[float] | None,
    ) -> tuple[Tensor, float | None, float | None, float | None, float | None]:
        """A random order of the four adjustments and a uniform factor for each."""
        fn_idx = chainrule.randperm(4)
        b = None if brightness is None else _uniform(brightness[0], brightness[1])
        c = None if contrast is None else _uniform(contrast[0], contrast[1])
        s = None if saturation is None else _uniform(saturation[0], saturation[1])
        h = None if hue is None else _uniform(hue[0], hue[1])
        return fn_idx, b, c, s, h

    def forward(self, img: Any) -> Any:
        fn_idx, b, c, s, h = self.get_params(
            self.brightness, self.contrast, self.saturation, self.hue
        )
        for fn_id in fn_idx.tolist():
            if fn_id == 0 and b is not None:
                img = F.adjust_brightness(img, b)
            elif fn_id == 1 and c is not None:
                img = F.adjust_contrast(img, c)
            elif fn_id == 2 and s is not None:
                img = F.adjust_saturation(img, s)
            elif fn_id == 3 and h is not None:
                img = F.adjust_hue(img, h)
        return img

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}(brightness={self.brightness}, contrast={self.contrast}, "
            f"saturation={self.saturation}, hue={self.hue})"
        )


class RandomRotation(nn.Module):
    """Rotation by a uniform angle in ``degrees``."""

    def __init__(
        self,
        degrees: Any,
        interpolation: InterpolationMode = InterpolationMode.NEAREST,
        expand: bool = False,
        center: Sequence[int] | None = None,
        fill: Any = 0,
    ) -> None:
        super().__init__()
        self.interpolation = _interpolation(interpolation)
        self.degrees = _setup_angle(degrees, name="degrees", req_sizes=(2,))
        if center is not None:
            _check_sequence_input(center, "center", req_sizes=(2,))
        self.center = center
        self.resample = self.interpolation
        self.expand = expand
        self.fill = _setup_fill(fill)

    @staticmethod
    def get_params(degrees: list[float]) -> float:
        """A uniform angle in ``[degrees[0], degrees[1]]``."""
        return _uniform(float(degrees[0]), float(degrees[1]))

    def forward(self, img: Any) -> Any:
        fill = _fill_for(img, self.fill)
        angle = self.get_params(self.degrees)
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, fill)

    def __repr__(self) -> str:
        s = (
            f"{self.__class__.__name__}(degrees={self.degrees}, interpolation={self.interpolation.value}, "
            f"expand={self.expand}"
        )
        if self.center is not None:
            s += f", center={self.center}"
        if self.fill is not None:
            s += f", fill={self.fill}"
        return s + ")"


class RandomAffine(nn.Module):
    """Random rotation, translation, scale and shear about the centre."""

    def __init__(
        self,
        degrees: Any,
        translate: tuple[float, float] | None = None,
        scale: tuple[float, float] | None = None,
        shear: Any = None,
        interpolation: InterpolationMode = InterpolationMode.NEAREST,
        fill: Any = 0,
        center: Sequence[int] | None = None,
    ) -> None:
        super().__init__()
        self.interpolation = _interpolation(interpolation)
        self.degrees = _setup_angle(degrees, name="degrees", req_sizes=(2,))
        if translate is not None:
            _check_sequence_input(translate, "translate", req_sizes=(2,))
            for t in translate:
                if not (0.0 <= t <= 1.0):
                    raise ValueError("translation values should be between 0 and 1")
        self.translate = translate
        if scale is not None:
            _check_sequence_input(scale, "scale", req_sizes=(2,))
            for s in scale:
                if s <= 0:
                    raise ValueError("scale values should be positive")
        self.scale = scale
        self.shear = (
            _setup_angle(shear, name="shear", req_sizes=(2, 4)) if shear is not None else shear
        )
        self.resample = self.interpolation
        self.fill = _setup_fill(fill)
        if center is not None:
            _check_sequence_input(center, "center", req_sizes=(2,))
        self.center = center

    @staticmethod
    def get_params(
        degrees: list[float],
        translate: list[float] | None,
        scale_ranges: list[float] | None,
        shears: list[float] | None,
        img_size: list[int],
    ) -> tuple[float, tuple[int, int], float, tuple[float, float]]:
        """Uniform angle, translation (rounded pixels), scale and shears."""
        angle = _uniform(float(degrees[0]), float(degrees[1]))
        if translate is not None:
            max_dx = float(translate[0] * img_size[0])
            max_dy = float(translate[1] * img_size[1])
            tx = int(round(_uniform(-max_dx, max_dx)))
            ty = int(round(_uniform(-max_dy, max_dy)))
            translations = (tx, ty)
        else:
            translations = (0, 0)
        scale = _uniform(scale_ranges[0], scale_ranges[1]) if scale_ranges is not None else 1.0
        shear_x = shear_y = 0.0
        if shears is not None:
            shear_x = _uniform(shears[0], shears[1])
            if len(shears) == 4:
                shear_y = _uniform(shears[2], shears[3])
        return angle, translations, scale, (shear_x, shear_y)

    def forward(self, img: Any) -> Any:
        fill = _fill_for(img, self.fill)
        _, height, width = F.get_dimensions(img)
        ret = self.get_params(self.degrees, self.translate, self.scale, self.shear, [width, height])
        return F.affine(img, *ret, interpolation=self.interpolation, fill=fill, center=self.center)

    def __repr__(self) -> str:
        s = f"{self.__class__.__name__}(degrees={self.degrees}"
        if self.translate is not None:
            s += f", translate={self.translate}"
        if self.scale is not None:
            s += f", scale={self.scale}"
        if self.shear is not None:
            s += f", shear={self.shear}"
        if self.interpolation != InterpolationMode.NEAREST:
            s += f", interpolation={self.interpolation.value}"
        if self.fill != 0:
            s += f", fill={self.fill}"
        if self.center is not None:
            s += f", center={self.center}"
        return s + ")"


class Grayscale(nn.Module):
    """:func:`.functional.rgb_to_grayscale` into 1 or 3 channels."""

    def __init__(self, num_output_channels: int = 1) -> None:
        super().__init__()
        self.num_output_channels = num_output_channels

    def forward(self, img: Any) -> Any:
        return F.rgb_to_grayscale(img, num_output_channels=self.num_output_channels)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(num_output_channels={self.num_output_channels})"


class RandomGrayscale(nn.Module):
    """Grey (as many channels as the input) with probability ``p``."""

    def __init__(self, p: float = 0.1) -> None:
        super().__init__()
        self.p = p

    def forward(self, img: Any) -> Any:
        num_output_channels = F.get_dimensions(img)[0]
        if _coin(self.p):
            return F.rgb_to_grayscale(img, num_output_channels=num_output_channels)
        return img

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p={self.p})"


class RandomPerspective(nn.Module):
    """With probability ``p``, a perspective warp moving each corner by up to
    ``distortion_scale`` of half the size."""

    def __init__(
        self,
        distortion_scale: float = 0.5,
        p: float = 0.5,
        interpolation: InterpolationMode = InterpolationMode.BILINEAR,
        fill: Any = 0,
    ) -> None:
        super().__init__()
        self.p = p
        self.interpolation = _interpolation(interpolation)
        self.distortion_scale = distortion_scale
        self.fill = _setup_fill(fill)

    def forward(self, img: Any) -> Any:
        fill = _fill_for(img, self.fill)
        if _coin(self.p):
            _, height, width = F.get_dimensions(img)
            startpoints, endpoints = self.get_params(width, height, self.distortion_scale)
            return F.perspective(img, startpoints, endpoints, self.interpolation, fill)
        return img

    @staticmethod
    def get_params(
        width: int, height: int, distortion_scale: float
    ) -> tuple[list[list[int]], list[list[int]]]:
        """The image corners and four random corners near them."""
        half_height = height // 2
        half_width = width // 2
        dx = int(distortion_scale * half_width)
        dy = int(distortion_scale * half_height)
        topleft = [_randint(0, dx + 1), _randint(0, dy + 1)]
        topright = [_randint(width - dx - 1, width), _randint(0, dy + 1)]
        botright = [_randint(width - dx - 1, width), _randint(height - dy - 1, height)]
        botleft = [_randint(0, dx + 1), _randint(height - dy - 1, height)]
        startpoints = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return startpoints, [topleft, topright, botright, botleft]

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p={self.p})"


class RandomErasing(nn.Module):
    """With probability ``p``, a random rectangle of a tensor image set to ``value``
    (``'random'``: standard normal noise)."""

    def __init__(
        self,
        p: float = 0.5,
        scale: tuple[float, float] = (0.02, 0.33),
        ratio: tuple[float, float] = (0.3, 3.3),
        value: Any = 0,
        inplace: bool = False,
    ) -> None:
        super().__init__()
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
        if p < 0 or p > 1:
            raise ValueError("Random erasing probability should be between 0 and 1")
        self.p = p
        self.scale = scale
        self.ratio = ratio
        self.value = value
        self.inplace = inplace

    @staticmethod
    def get_params(
        img: Tensor,
        scale: tuple[float, float],
        ratio: tuple[float, float],
        value: list[float] | None = None,
    ) -> tuple[int, int, int, int, Tensor]:
        """``(i, j, h, w, v)`` of the erased box; the whole image unchanged after 10 misses."""
        img_c, img_h, img_w = img.shape[-3], img.shape[-2], img.shape[-1]
        area = img_h * img_w
        log_ratio = chainrule.log(chainrule.tensor(ratio))
        for _ in range(10):
            erase_area = area * _uniform(scale[0], scale[1])
            aspect_ratio = math.exp(_uniform(float(log_ratio[0]), float(log_ratio[1])))
            h = int(round(math.sqrt(erase_area * aspect_ratio)))
            w = int(round(math.sqrt(erase_area / aspect_ratio)))
            if not (h < img_h and w < img_w):
                continue
            if value is None:
                v = chainrule.empty([img_c, h, w], dtype=chainrule.float32).normal_()
            else:
                v = chainrule.tensor(value)[:, None, None]
            i = _randint(0, img_h - h + 1)
            j = _randint(0, img_w - w + 1)
            return i, j, h, w, v
        return 0, 0, img_h, img_w, img

    def forward(self, img: Tensor) -> Tensor:
        if _coin(self.p):
            if isinstance(self.value, (int, float)):
                value = [float(self.value)]
            elif isinstance(self.value, str):
                value = None
            else:
                value = list(self.value)
            if value is not None and len(value) not in (1, img.shape[-3]):
                raise ValueError(
                    "If value is a sequence, it should have either a single value or "
                    f"{img.shape[-3]} (number of input channels)"
                )
            x, y, h, w, v = self.get_params(img, scale=self.scale, ratio=self.ratio, value=value)
            return F.erase(img, x, y, h, w, v, self.inplace)
        return img

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}(p={self.p}, scale={self.scale}, ratio={self.ratio}, "
            f"value={self.value}, inplace={self.inplace})"
        )


class GaussianBlur(nn.Module):
    """Gaussian blur with sigma uniform in ``sigma`` (min, max)."""

    def __init__(self, kernel_size: int | Sequence[int], sigma: Any = (0.1, 2.0)) -> None:
        super().__init__()
        self.kernel_size = _setup_size(
            kernel_size, "Kernel size should be a tuple/list of two integers"
        )
        for ks in self.kernel_size:
            if ks <= 0 or ks % 2 == 0:
                raise ValueError("Kernel size value should be an odd and positive number.")
        if isinstance(sigma, numbers.Number):
            if sigma <= 0:
                raise ValueError("If sigma is a single number, it must be positive.")
            sigma = (sigma, sigma)
        elif isinstance(sigma, Sequence) and len(sigma) == 2:
            if not 0.0 < sigma[0] <= sigma[1]:
                raise ValueError("sigma values should be positive and of the form (min, max).")
        else:
            raise ValueError("sigma should be a single number or a list/tuple with length 2.")
        self.sigma = sigma

    @staticmethod
    def get_params(sigma_min: float, sigma_max: float) -> float:
        return _uniform(sigma_min, sigma_max)

    def forward(self, img: Any) -> Any:
        sigma = self.get_params(self.sigma[0], self.sigma[1])
        return F.gaussian_blur(img, self.kernel_size, [sigma, sigma])

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(kernel_size={self.kernel_size}, sigma={self.sigma})"


class _RandomColorOp(nn.Module):
    """Applies ``_apply`` with probability ``p``."""

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        self.p = p

    def _apply_op(self, img: Any) -> Any:
        raise NotImplementedError

    def forward(self, img: Any) -> Any:
        if _coin(self.p):
            return self._apply_op(img)
        return img

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p={self.p})"


class RandomInvert(_RandomColorOp):
    """Inverted with probability ``p``."""

    def _apply_op(self, img: Any) -> Any:
        return F.invert(img)


class RandomPosterize(_RandomColorOp):
    """Posterized to ``bits`` with probability ``p``."""

    def __init__(self, bits: int, p: float = 0.5) -> None:
        super().__init__(p)
        self.bits = bits

    def _apply_op(self, img: Any) -> Any:
        return F.posterize(img, self.bits)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(bits={self.bits},p={self.p})"


class RandomSolarize(_RandomColorOp):
    """Solarized above ``threshold`` with probability ``p``."""

    def __init__(self, threshold: float, p: float = 0.5) -> None:
        super().__init__(p)
        self.threshold = threshold

    def _apply_op(self, img: Any) -> Any:
        return F.solarize(img, self.threshold)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(threshold={self.threshold},p={self.p})"


class RandomAdjustSharpness(_RandomColorOp):
    """Sharpness adjusted by ``sharpness_factor`` with probability ``p``."""

    def __init__(self, sharpness_factor: float, p: float = 0.5) -> None:
        super().__init__(p)
        self.sharpness_factor = sharpness_factor

    def _apply_op(self, img: Any) -> Any:
        return F.adjust_sharpness(img, self.sharpness_factor)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(sharpness_factor={self.sharpness_factor},p={self.p})"


class RandomAutocontrast(_RandomColorOp):
    """Autocontrast with probability ``p``."""

    def _apply_op(self, img: Any) -> Any:
        return F.autocontrast(img)


class RandomEqualize(_RandomColorOp):
    """Histogram equalization with probability ``p``."""

    def _apply_op(self, img: Any) -> Any:
        return F.equalize(img)


def _two_floats(value: Any, name: str) -> list[float]:
    if not isinstance(value, (float, Sequence)):
        raise TypeError(f"{name} should be float or a sequence of floats. Got {type(value)}")
    if isinstance(value, Sequence):
        if len(value) != 2:
            raise ValueError(f"If {name} is a sequence its length should be 2. Got {len(value)}")
        for element in value:
            if not isinstance(element, float):
                raise TypeError(f"{name} should be a sequence of floats. Got {type(element)}")
        return value
    return [float(value), float(value)]


class ElasticTransform(nn.Module):
    """Pixels displaced by smoothed uniform noise (strength ``alpha``, smoothness ``sigma``)."""

    def __init__(
        self,
        alpha: float | Sequence[float] = 50.0,
        sigma: float | Sequence[float] = 5.0,
        interpolation: InterpolationMode = InterpolationMode.BILINEAR,
        fill: Any = 0,
    ) -> None:
        super().__init__()
        self.alpha = _two_floats(alpha, "alpha")
        self.sigma = _two_floats(sigma, "sigma")
        self.interpolation = _interpolation(interpolation)
        if isinstance(fill, (int, float)):
            fill = [float(fill)]
        elif isinstance(fill, (list, tuple)):
            fill = [float(f) for f in fill]
        else:
            raise TypeError(
                f"fill should be int or float or a list or tuple of them. Got {type(fill)}"
            )
        self.fill = fill

    @staticmethod
    def get_params(alpha: list[float], sigma: list[float], size: list[int]) -> Tensor:
        """The displacement (1, H, W, 2): uniform noise in [-1, 1], Gaussian-smoothed and
        scaled by ``alpha / size``."""
        dx = chainrule.rand([1, 1] + list(size)) * 2 - 1
        if sigma[0] > 0.0:
            kx = int(8 * sigma[0] + 1)
            kx += 1 - kx % 2
            dx = F.gaussian_blur(dx, [kx, kx], sigma)
        dx = dx * alpha[0] / size[0]
        dy = chainrule.rand([1, 1] + list(size)) * 2 - 1
        if sigma[1] > 0.0:
            ky = int(8 * sigma[1] + 1)
            ky += 1 - ky % 2
            dy = F.gaussian_blur(dy, [ky, ky], sigma)
        dy = dy * alpha[1] / size[1]
        return chainrule.cat([dx, dy], 1).permute([0, 2, 3, 1])

    def forward(self, tensor: Any) -> Any:
        _, height, width = F.get_dimensions(tensor)
        displacement = self.get_params(self.alpha, self.sigma, [height, width])
        return F.elastic_transform(tensor, displacement, self.interpolation, self.fill)

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}(alpha={self.alpha}, sigma={self.sigma}, "
            f"interpolation={self.interpolation}, fill={self.fill})"
        )
