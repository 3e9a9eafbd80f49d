"""v2 Identity, Lambda, LinearTransformation, Normalize, GaussianBlur, GaussianNoise,
ToDtype and ConvertImageDtype."""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import Any

import chainrule
from chainrule import Tensor

from ... import tv_tensors
from ..functional import _is_pil_image
from . import functional as F
from ._transform import Transform
from ._utils import _setup_size
from .functional import is_pure_tensor


class Identity(Transform):
    """Returns its inputs unchanged."""

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return inpt


class Lambda(Transform):
    """``lambd`` on each input that is an instance of ``types`` (default: all)."""

    _transformed_types = (object,)

    def __init__(self, lambd: Callable[[Any], Any], *types: type) -> None:
        super().__init__()
        self.lambd = lambd
        self.types = types or self._transformed_types

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.lambd(inpt) if isinstance(inpt, self.types) else inpt

    def extra_repr(self) -> str:
        extras = []
        name = getattr(self.lambd, "__name__", None)
        if name:
            extras.append(name)
        extras.append(f"types={[t.__name__ for t in self.types]}")
        return ", ".join(extras)


class LinearTransformation(Transform):
    """``(x.flatten() - mean_vector) @ transformation_matrix`` on tensor images."""

    _v1_transform_cls = None

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
        if transformation_matrix.dtype != mean_vector.dtype:
            raise ValueError(
                f"Input tensors should have the same dtype. Got {transformation_matrix.dtype} and {mean_vector.dtype}"
            )
        self.transformation_matrix = transformation_matrix
        self.mean_vector = mean_vector

    def check_inputs(self, sample: Any) -> None:
        if any(_is_pil_image(inpt) for inpt in sample):
            raise TypeError(f"{type(self).__name__}() does not support PIL images.")

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        shape = inpt.shape
        n = shape[-3] * shape[-2] * shape[-1]
        if n != self.transformation_matrix.shape[0]:
            raise ValueError(
                "Input tensor and transformation matrix have incompatible shape."
                f"[{shape[-3]} x {shape[-2]} x {shape[-1]}] != {self.transformation_matrix.shape[0]}"
            )
        flat = inpt.as_subclass(Tensor).reshape(-1, n) - self.mean_vector
        out = chainrule.mm(flat, self.transformation_matrix.to(flat.dtype)).reshape(shape)
        return out if is_pure_tensor(inpt) else tv_tensors.wrap(out, like=inpt)


class Normalize(Transform):
    """``(x - mean) / std`` per channel of float images and videos."""

    _transformed_types = (is_pure_tensor, tv_tensors.Image, tv_tensors.Video)

    def __init__(self, mean: Sequence[float], std: Sequence[float], inplace: bool = False) -> None:
        super().__init__()
        self.mean = list(mean)
        self.std = list(std)
        self.inplace = inplace

    def check_inputs(self, sample: Any) -> None:
        if any(_is_pil_image(inpt) for inpt in sample):
            raise TypeError(f"{type(self).__name__}() does not support PIL images.")

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(
            F.normalize, inpt, mean=self.mean, std=self.std, inplace=self.inplace
        )


class GaussianBlur(Transform):
    """Gaussian blur, sigma uniform in ``sigma`` (min, max)."""

    def __init__(
        self, kernel_size: int | Sequence[int], sigma: float | Sequence[float] = (0.1, 2.0)
    ) -> None:
        super().__init__()
        self.kernel_size = _setup_size(
            kernel_size, "Kernel size should be a tuple/list of two integers"
        )
        for ks in self.kernel_size:
            if ks <= 0 or ks % 2 == 0:
                raise ValueError("Kernel size value should be an odd and positive number.")
        if isinstance(sigma, (int, float)):
            if sigma <= 0:
                raise ValueError("If sigma is a single number, it must be positive.")
            sigma = float(sigma)
        elif isinstance(sigma, Sequence) and len(sigma) in (1, 2):
            if not 0.0 < sigma[0] <= sigma[-1]:
                raise ValueError("sigma values should be positive and of the form (min, max).")
        else:
            raise TypeError(
                "sigma should be a single int or float or a list/tuple with length 2 floats."
            )
        self.sigma = _two(sigma)

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        sigma = float(chainrule.empty(1).uniform_(self.sigma[0], self.sigma[1]).item())
        return {"sigma": [sigma, sigma]}

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(F.gaussian_blur, inpt, self.kernel_size, **params)


def _two(value: Any) -> list[float]:
    if isinstance(value, numbers.Number):
        return [float(value), float(value)]
    return [float(value[0]), float(value[-1])]


class GaussianNoise(Transform):
    """Adds ``N(mean, sigma^2)`` noise to images and videos (clipped to [0, 1])."""

    def __init__(self, mean: float = 0.0, sigma: float = 0.1, clip: bool = True) -> None:
        super().__init__()
        self.mean = mean
        self.sigma = sigma
        self.clip = clip

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(
            F.gaussian_noise, inpt, mean=self.mean, sigma=self.sigma, clip=self.clip
        )


class ToDtype(Transform):
    """Inputs to ``dtype`` (a dtype, or a dict from input type to dtype with key
    ``"others"``); ``scale`` rescales image and video intensities."""

    _transformed_types = (Tensor,)

    def __init__(self, dtype: chainrule.dtype | dict, scale: bool = False) -> None:
        super().__init__()
        if not isinstance(dtype, (dict, chainrule.dtype)):
            raise ValueError(f"dtype must be a dict or a torch.dtype, got {type(dtype)} instead")
        if (
            isinstance(dtype, dict)
            and Tensor in dtype
            and any(cls in dtype for cls in (tv_tensors.Image, tv_tensors.Video))
        ):
            raise ValueError(
                "Got dtype dict with the key torch.Tensor and at least one of tv_tensors.Image or "
                "tv_tensors.Video, which is ambiguous."
            )
        self.dtype = dtype
        self.scale = scale

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        if isinstance(self.dtype, chainrule.dtype):
            if not (is_pure_tensor(inpt) or isinstance(inpt, (tv_tensors.Image, tv_tensors.Video))):
                return inpt
            dtype = self.dtype
        elif type(inpt) in self.dtype:
            dtype = self.dtype[type(inpt)]
        elif is_pure_tensor(inpt) and Tensor in self.dtype:
            dtype = self.dtype[Tensor]
        elif "others" in self.dtype:
            dtype = self.dtype["others"]
        else:
            raise ValueError(
                f"No dtype was specified for type {type(inpt)}. If you only need to convert the dtype of "
                "images or videos, you can just pass e.g. dtype=torch.float32. If you're passing a dict "
                "as dtype, you can use 'others' as a catch-all key e.g. dtype={tv_tensors.Mask: "
                "torch.int64, 'others': None} to pass-through the rest of the inputs."
            )
        if dtype is None:
            return inpt
        scale = self.scale and (
            is_pure_tensor(inpt) or isinstance(inpt, (tv_tensors.Image, tv_tensors.Video))
        )
        return F.to_dtype(inpt, dtype=dtype, scale=scale)


class ConvertImageDtype(Transform):
    """Images and videos to ``dtype``, intensities rescaled."""

    _transformed_types = (is_pure_tensor, tv_tensors.Image, tv_tensors.Video)

    def __init__(self, dtype: chainrule.dtype = chainrule.float32) -> None:
        super().__init__()
        self.dtype = dtype

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return F.to_dtype(inpt, dtype=self.dtype, scale=True)
