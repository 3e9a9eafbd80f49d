"""The image kernels on chainrule tensors ``(..., C, H, W)``: geometry (crop, pad, resize,
affine, perspective, elastic) through ``F.interpolate`` / ``F.grid_sample``, and colour
through elementwise ops, so gradients flow through every float kernel. Integer images are
computed in float and rounded back, as torchvision does."""

from __future__ import annotations

from collections.abc import Sequence

import chainrule
from chainrule import Tensor
from chainrule.nn import functional as F

_INT_MAX = {
    chainrule.uint8: 255,
    chainrule.int8: 127,
    chainrule.int16: 32767,
    chainrule.int32: 2**31 - 1,
    chainrule.int64: 2**63 - 1,
}


def _is_tensor_a_torch_image(x: object) -> bool:
    return isinstance(x, Tensor) and x.ndim >= 2


def _assert_image_tensor(img: Tensor) -> None:
    if not _is_tensor_a_torch_image(img):
        raise TypeError("Tensor is not a torch image.")


def _max_value(dtype: chainrule.dtype) -> int | float:
    """The value of full intensity: 1.0 for floats, the largest integer otherwise."""
    if dtype.is_floating_point:
        return 1.0
    if dtype == chainrule.bool:
        return 1
    if dtype in _INT_MAX:
        return _INT_MAX[dtype]
    return chainrule.iinfo(dtype).max


def get_dimensions(img: Tensor) -> list[int]:
    """``[channels, height, width]`` (channels 1 for a 2-D image)."""
    _assert_image_tensor(img)
    channels = 1 if img.ndim == 2 else img.shape[-3]
    return [channels, img.shape[-2], img.shape[-1]]


def get_image_size(img: Tensor) -> list[int]:
    _assert_image_tensor(img)
    return [img.shape[-1], img.shape[-2]]


def get_image_num_channels(img: Tensor) -> int:
    _assert_image_tensor(img)
    if img.ndim == 2:
        return 1
    if img.ndim > 2:
        return img.shape[-3]
    raise TypeError(f"Input ndim should be 2 or more. Got {img.ndim}")


def _assert_channels(img: Tensor, permitted: list[int]) -> None:
    c = get_dimensions(img)[0]
    if c not in permitted:
        raise TypeError(
            f"Input image tensor permitted channel values are {permitted}, but found {c}"
        )


def _float_dtype(img: Tensor) -> chainrule.dtype:
    return img.dtype if img.is_floating_point() else chainrule.float32


def _to_4d_float(
    img: Tensor, req: Sequence[chainrule.dtype]
) -> tuple[Tensor, bool, bool, chainrule.dtype]:
    """The image as a 4-D batch in a float dtype of ``req``; flags to undo it."""
    squeeze = False
    shape = img.shape
    if img.ndim < 4:
        img = img.unsqueeze(0)
        squeeze = True
    elif img.ndim > 4:
        img = img.reshape(-1, *shape[-3:])
    out_dtype = img.dtype
    cast = out_dtype not in req
    if cast:
        img = img.to(req[0])
    return img, cast, squeeze, out_dtype


def _from_4d(
    img: Tensor, cast: bool, squeeze: bool, out_dtype: chainrule.dtype, lead: tuple
) -> Tensor:
    if squeeze:
        img = img.squeeze(0)
    elif len(lead) > 1:
        img = img.reshape(*lead, *img.shape[-3:])
    if cast:
        if not out_dtype.is_floating_point:
            img = chainrule.round(img)
        img = img.to(out_dtype)
    return img


def _lead(img: Tensor) -> tuple:
    return tuple(img.shape[:-3]) if img.ndim > 4 else ()


# --------------------------------------------------------------------------- geometry


def vflip(img: Tensor) -> Tensor:
    _assert_image_tensor(img)
    return img.flip(-2)


def hflip(img: Tensor) -> Tensor:
    _assert_image_tensor(img)
    return img.flip(-1)


def crop(img: Tensor, top: int, left: int, height: int, width: int) -> Tensor:
    """``img[..., top:top+height, left:left+width]``, zero-padded where it leaves the image."""
    _assert_image_tensor(img)
    _, h, w = get_dimensions(img)
    right, bottom = left + width, top + height
    if left < 0 or top < 0 or right > w or bottom > h:
        padding_ltrb = [
            max(-left + min(0, right), 0),
            max(-top + min(0, bottom), 0),
            max(right - w, 0),
            max(bottom - h, 0),
        ]
        return pad(img[..., max(top, 0) : bottom, max(left, 0) : right], padding_ltrb, fill=0)
    return img[..., top:bottom, left:right]


def _parse_pad_padding(padding: int | Sequence[int]) -> list[int]:
    """``[left, right, top, bottom]`` from torchvision's 1-, 2- or 4-number padding."""
    if isinstance(padding, int):
        return [padding] * 4
    if len(padding) == 1:
        return [padding[0]] * 4
    if len(padding) == 2:
        return [padding[0], padding[0], padding[1], padding[1]]
    return [padding[0], padding[2], padding[1], padding[3]]


def _pad_index(n: int, before: int, after: int, mode: str) -> list[int]:
    """Source indices along one axis for ``before + n + after`` output positions."""
    out = []
    for k in range(-before, n + after):
        if mode == "replicate":
            i = min(max(k, 0), n - 1)
        elif mode == "reflect":
            period = 2 * (n - 1) if n > 1 else 1
            i = k % period if period else 0
            i = period - i if i > n - 1 else i
        else:  # symmetric: the edge pixel is repeated
            period = 2 * n
            i = k % period
            i = period - 1 - i if i > n - 1 else i
        out.append(i)
    return out


def pad(
    img: Tensor,
    padding: int | list[int],
    fill: int | float | None = 0,
    padding_mode: str = "constant",
) -> Tensor:
    """Pads the last two dims (``padding`` as left/top/right/bottom); negative crops."""
    _assert_image_tensor(img)
    if fill is None:
        fill = 0
    if not isinstance(padding, (int, tuple, list)):
        raise TypeError("Got inappropriate padding arg")
    if not isinstance(fill, (int, float)):
        raise TypeError("Got inappropriate fill arg")
    if not isinstance(padding_mode, str):
        raise TypeError("Got inappropriate padding_mode arg")
    if isinstance(padding, tuple):
        padding = list(padding)
    if isinstance(padding, list):
        if len(padding) == 0:
            raise ValueError(
                "Padding must be an int or a 1, 2, or 4 element list, not a 0 element list"
            )
        if len(padding) not in [1, 2, 4]:
            raise ValueError(
                f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element tuple"
            )
    if padding_mode not in ["constant", "edge", "reflect", "symmetric"]:
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")

    p = _parse_pad_padding(padding)
    if min(p) < 0:
        crop_l, crop_r, crop_t, crop_b = (-min(v, 0) for v in p)
        img = img[..., crop_t : img.shape[-2] - crop_b, crop_l : img.shape[-1] - crop_r]
        p = [max(v, 0) for v in p]
    left, right, top, bottom = p
    if padding_mode == "constant":
        return F.pad(img, [left, right, top, bottom], mode="constant", value=float(fill))
    mode = "replicate" if padding_mode == "edge" else padding_mode
    h, w = img.shape[-2], img.shape[-1]
    if mode == "reflect" and (max(top, bottom) >= h or max(left, right) >= w):
        # the same limit as torch's reflection padding
        raise RuntimeError(
            "Argument #4: Padding size should be less than the corresponding input dimension, "
            f"but got: padding ({left}, {right}) at dimension 3 of input {list(img.shape)}"
        )
    rows = chainrule.tensor(_pad_index(h, top, bottom, mode), dtype=chainrule.int64)
    cols = chainrule.tensor(_pad_index(w, left, right, mode), dtype=chainrule.int64)
    return img.index_select(-2, rows).index_select(-1, cols)


def _resize_output(h: int, w: int, size: list[int], max_size: int | None) -> list[int]:
    """torchvision's output size: one number sets the shorter edge, keeping the aspect."""
    if len(size) == 1:
        short, long = (w, h) if w <= h else (h, w)
        requested = size[0]
        new_short, new_long = requested, int(requested * long / short)
        if max_size is not None:
            if max_size <= requested:
                raise ValueError(
                    f"max_size = {max_size} must be strictly greater than the requested "
                    f"size for the smaller edge size = {size}"
                )
            if new_long > max_size:
                new_short, new_long = int(max_size * new_short / new_long), max_size
        return [new_long, new_short] if w <= h else [new_short, new_long]
    if len(size) == 0 and max_size is not None:
        if h >= w:
            return [max_size, int(max_size * w / h)]
        return [int(max_size * h / w), max_size]
    return [size[0], size[1]]


def resize(
    img: Tensor, size: list[int], interpolation: str = "bilinear", antialias: bool | None = True
) -> Tensor:
    """``F.interpolate`` to ``size = [h, w]`` (integer images rounded back)."""
    _assert_image_tensor(img)
    if isinstance(size, tuple):
        size = list(size)
    if antialias is None:
        antialias = False
    if antialias and interpolation not in ["bilinear", "bicubic"]:
        antialias = False
    lead = _lead(img)
    x, cast, squeeze, out_dtype = _to_4d_float(img, [chainrule.float32, chainrule.float64])
    align = False if interpolation in ["bilinear", "bicubic"] else None
    x = F.interpolate(x, size=size, mode=interpolation, align_corners=align, antialias=antialias)
    if interpolation == "bicubic" and out_dtype == chainrule.uint8:
        x = x.clamp(min=0, max=255)
    return _from_4d(x, cast, squeeze, out_dtype, lead)


def _gen_affine_grid(theta: Tensor, w: int, h: int, ow: int, oh: int) -> Tensor:
    """Grid of the pixel centres of an ``oh x ow`` output mapped by ``theta`` (1, 2, 3),
    in grid_sample's [-1, 1] coordinates of a ``h x w`` input."""
    dtype = theta.dtype
    xs = chainrule.linspace(-ow * 0.5 + 0.5, ow * 0.5 + 0.5 - 1, steps=ow, dtype=dtype)
    ys = chainrule.linspace(-oh * 0.5 + 0.5, oh * 0.5 + 0.5 - 1, steps=oh, dtype=dtype)
    base = chainrule.stack(
        [xs.expand(oh, ow), ys.unsqueeze(-1).expand(oh, ow), chainrule.ones(oh, ow, dtype=dtype)],
        dim=-1,
    )
    scale = chainrule.tensor([0.5 * w, 0.5 * h], dtype=dtype)
    rescaled = theta.transpose(1, 2) / scale
    grid = base.reshape(1, oh * ow, 3).bmm(rescaled)
    return grid.reshape(1, oh, ow, 2)


def _apply_grid_transform(
    img: Tensor, grid: Tensor, mode: str, fill: list[float] | float | None
) -> Tensor:
    """grid_sample of the image (zeros outside), then ``fill`` where the grid left it."""
    lead = _lead(img)
    x, cast, squeeze, out_dtype = _to_4d_float(img, [grid.dtype])
    if x.shape[0] > 1:
        grid = grid.expand(x.shape[0], grid.shape[1], grid.shape[2], grid.shape[3])
    if fill is not None:
        mask = chainrule.ones((x.shape[0], 1, x.shape[2], x.shape[3]), dtype=x.dtype)
        x = chainrule.cat((x, mask), dim=1)
    x = F.grid_sample(x, grid, mode=mode, padding_mode="zeros", align_corners=False)
    if fill is not None:
        mask = x[:, -1:, :, :]
        x = x[:, :-1, :, :]
        mask = mask.expand_as(x)
        fill_list, n = (fill, len(fill)) if isinstance(fill, (tuple, list)) else ([float(fill)], 1)
        fill_img = chainrule.tensor(fill_list, dtype=x.dtype).view(1, n, 1, 1).expand_as(x)
        if mode == "nearest":
            x = chainrule.where(mask < 0.5, fill_img, x)
        else:
            x = x * mask + (1.0 - mask) * fill_img
    return _from_4d(x, cast, squeeze, out_dtype, lead)


def _assert_grid_transform_inputs(
    img: Tensor,
    matrix: list[float] | None,
    interpolation: str,
    fill: list[float] | float | None,
    supported_interpolation_modes: list[str],
    coeffs: list[float] | None = None,
) -> None:
    if not isinstance(img, Tensor):
        raise TypeError("Input img should be Tensor")
    _assert_image_tensor(img)
    if matrix is not None and not isinstance(matrix, list):
        raise TypeError("Argument matrix should be a list")
    if matrix is not None and len(matrix) != 6:
        raise ValueError("Argument matrix should have 6 float values")
    if coeffs is not None and len(coeffs) != 8:
        raise ValueError("Argument coeffs should have 8 float values")
    if fill is not None and not isinstance(fill, (int, float, tuple, list)):
        raise TypeError("Argument fill should be either int, float, tuple or list")
    num_channels = get_dimensions(img)[0]
    if (
        fill is not None
        and isinstance(fill, (tuple, list))
        and len(fill) > 1
        and len(fill) != num_channels
    ):
        raise ValueError(
            "The number of elements in 'fill' cannot broadcast to match the number of "
            f"channels of the image ({len(fill)} != {num_channels})"
        )
    if interpolation not in supported_interpolation_modes:
        raise ValueError(f"Interpolation mode '{interpolation}' is unsupported with Tensor input")


def affine(
    img: Tensor,
    matrix: list[float],
    interpolation: str = "nearest",
    fill: list[float] | None = None,
) -> Tensor:
    """The image read through the inverse affine ``matrix`` (6 numbers, centred pixels)."""
    _assert_grid_transform_inputs(img, matrix, interpolation, fill, ["nearest", "bilinear"])
    dtype = _float_dtype(img)
    theta = chainrule.tensor(matrix, dtype=dtype).reshape(1, 2, 3)
    h, w = img.shape[-2], img.shape[-1]
    grid = _gen_affine_grid(theta, w=w, h=h, ow=w, oh=h)
    return _apply_grid_transform(img, grid, interpolation, fill=fill)


def _compute_affine_output_size(matrix: list[float], w: int, h: int) -> tuple[int, int]:
    """The size that holds the whole image after the (forward of the inverse) ``matrix``."""
    pts = chainrule.tensor(
        [
            [-0.5 * w, -0.5 * h, 1.0],
            [-0.5 * w, 0.5 * h, 1.0],
            [0.5 * w, 0.5 * h, 1.0],
            [0.5 * w, -0.5 * h, 1.0],
        ]
    )
    theta = chainrule.tensor(matrix, dtype=chainrule.float32).view(2, 3)
    new_pts = pts.view(1, 4, 3).bmm(theta.T.unsqueeze(0)).view(4, 2)
    # measured in [0, w] x [0, h] coordinates, where PIL rounds its expanded size
    shift = chainrule.tensor([w * 0.5, h * 0.5])
    min_vals = new_pts.min(dim=0).values + shift
    max_vals = new_pts.max(dim=0).values + shift
    tol = 1e-4
    cmax = chainrule.ceil(chainrule.trunc(max_vals / tol) * tol)
    cmin = chainrule.floor(chainrule.trunc(min_vals / tol) * tol)
    size = cmax - cmin
    return int(size[0]), int(size[1])


def rotate(
    img: Tensor,
    matrix: list[float],
    interpolation: str = "nearest",
    expand: bool = False,
    fill: list[float] | None = None,
) -> Tensor:
    _assert_grid_transform_inputs(img, matrix, interpolation, fill, ["nearest", "bilinear"])
    w, h = img.shape[-1], img.shape[-2]
    ow, oh = _compute_affine_output_size(matrix, w, h) if expand else (w, h)
    theta = chainrule.tensor(matrix, dtype=_float_dtype(img)).reshape(1, 2, 3)
    grid = _gen_affine_grid(theta, w=w, h=h, ow=ow, oh=oh)
    return _apply_grid_transform(img, grid, interpolation, fill=fill)


def _perspective_grid(coeffs: list[float], ow: int, oh: int, dtype: chainrule.dtype) -> Tensor:
    """Grid of ``x' = (c0 x + c1 y + c2) / (c6 x + c7 y + 1)``, ``y'`` alike, at pixel centres."""
    theta1 = chainrule.tensor(
        [[coeffs[0], coeffs[1], coeffs[2]], [coeffs[3], coeffs[4], coeffs[5]]], dtype=dtype
    )
    theta2 = chainrule.tensor(
        [[coeffs[6], coeffs[7], 1.0], [coeffs[6], coeffs[7], 1.0]], dtype=dtype
    )
    d = 0.5
    xs = chainrule.linspace(d, ow * 1.0 + d - 1.0, steps=ow, dtype=dtype)
    ys = chainrule.linspace(d, oh * 1.0 + d - 1.0, steps=oh, dtype=dtype)
    base = chainrule.stack(
        [xs.expand(oh, ow), ys.unsqueeze(-1).expand(oh, ow), chainrule.ones(oh, ow, dtype=dtype)],
        dim=-1,
    ).reshape(1, oh * ow, 3)
    rescaled1 = theta1.T / chainrule.tensor([0.5 * ow, 0.5 * oh], dtype=dtype)
    grid1 = base.bmm(rescaled1.unsqueeze(0))
    grid2 = base.bmm(theta2.T.unsqueeze(0))
    return (grid1 / grid2 - 1.0).reshape(1, oh, ow, 2)


def perspective(
    img: Tensor,
    perspective_coeffs: list[float],
    interpolation: str = "bilinear",
    fill: list[float] | None = None,
) -> Tensor:
    if not isinstance(img, Tensor):
        raise TypeError("Input img should be Tensor.")
    _assert_image_tensor(img)
    _assert_grid_transform_inputs(
        img, None, interpolation, fill, ["nearest", "bilinear"], coeffs=perspective_coeffs
    )
    ow, oh = img.shape[-1], img.shape[-2]
    grid = _perspective_grid(perspective_coeffs, ow=ow, oh=oh, dtype=_float_dtype(img))
    return _apply_grid_transform(img, grid, interpolation, fill=fill)


def _create_identity_grid(size: list[int]) -> Tensor:
    """grid_sample's identity grid (1, H, W, 2) at pixel centres."""
    h, w = size
    ys = chainrule.linspace((-h + 1) / h, (h - 1) / h, h)
    xs = chainrule.linspace((-w + 1) / w, (w - 1) / w, w)
    return chainrule.stack([xs.expand(h, w), ys.unsqueeze(-1).expand(h, w)], dim=-1).unsqueeze(0)


def elastic_transform(
    img: Tensor,
    displacement: Tensor,
    interpolation: str = "bilinear",
    fill: list[float] | None = None,
) -> Tensor:
    """The image read at identity + ``displacement`` (1, H, W, 2)."""
    if not isinstance(img, Tensor):
        raise TypeError(f"img should be Tensor. Got {type(img)}")
    size = list(img.shape[-2:])
    displacement = displacement.to(img.device)
    grid = _create_identity_grid(size) + displacement
    return _apply_grid_transform(img, grid, interpolation, fill)


def _gaussian_kernel1d(kernel_size: int, sigma: float, dtype: chainrule.dtype) -> Tensor:
    half = (kernel_size - 1) * 0.5
    x = chainrule.linspace(-half, half, steps=kernel_size, dtype=dtype)
    pdf = chainrule.exp(-0.5 * (x / sigma).pow(2))
    return pdf / pdf.sum()


def gaussian_blur(img: Tensor, kernel_size: list[int], sigma: list[float]) -> Tensor:
    """Depthwise convolution with the separable Gaussian, reflect-padded to keep the size."""
    if not isinstance(img, Tensor):
        raise TypeError(f"img should be Tensor. Got {type(img)}")
    _assert_image_tensor(img)
    dtype = _float_dtype(img)
    kx = _gaussian_kernel1d(kernel_size[0], sigma[0], dtype)
    ky = _gaussian_kernel1d(kernel_size[1], sigma[1], dtype)
    kernel = ky.unsqueeze(1) * kx.unsqueeze(0)
    channels = img.shape[-3]
    kernel = kernel.expand(channels, 1, kernel_size[1], kernel_size[0])
    lead = _lead(img)
    x, cast, squeeze, out_dtype = _to_4d_float(img, [kernel.dtype])
    pw, ph = kernel_size[0] // 2, kernel_size[1] // 2
    x = F.pad(x, [pw, pw, ph, ph], mode="reflect")
    x = F.conv2d(x, kernel, groups=channels)
    return _from_4d(x, cast, squeeze, out_dtype, lead)


def erase(img: Tensor, i: int, j: int, h: int, w: int, v: Tensor, inplace: bool = False) -> Tensor:
    _assert_image_tensor(img)
    if not inplace:
        img = img.clone()
    img[..., i : i + h, j : j + w] = v
    return img


# --------------------------------------------------------------------------- colour


def convert_image_dtype(image: Tensor, dtype: chainrule.dtype = chainrule.float32) -> Tensor:
    """Rescales intensities to ``dtype``'s range (floats in [0, 1], integers in [0, max])."""
    if image.dtype == dtype:
        return image
    if image.is_floating_point():
        if dtype.is_floating_point:
            return image.to(dtype)
        if (image.dtype == chainrule.float32 and dtype in (chainrule.int32, chainrule.int64)) or (
            image.dtype == chainrule.float64 and dtype == chainrule.int64
        ):
            raise RuntimeError(
                f"The cast from {image.dtype} to {dtype} cannot be performed safely."
            )
        # 1 - eps keeps 1.0 from overflowing while spreading [0, 1] evenly over the bins
        eps = 1e-3
        max_val = float(_max_value(dtype))
        return image.mul(max_val + 1.0 - eps).to(dtype)
    input_max = float(_max_value(image.dtype))
    if dtype.is_floating_point:
        return image.to(dtype) / input_max
    output_max = float(_max_value(dtype))
    if input_max > output_max:
        factor = int((input_max + 1) // (output_max + 1))
        return chainrule.div(image, factor, rounding_mode="floor").to(dtype)
    factor = int((output_max + 1) // (input_max + 1))
    return image.to(dtype) * factor


def rgb_to_grayscale(img: Tensor, num_output_channels: int = 1) -> Tensor:
    """``0.2989 R + 0.587 G + 0.114 B`` (cast, not rounded, to the image's dtype)."""
    if img.ndim < 3:
        raise TypeError(
            f"Input image tensor should have at least 3 dimensions, but found {img.ndim}"
        )
    _assert_channels(img, [1, 3])
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    if img.shape[-3] == 3:
        r, g, b = img.unbind(dim=-3)
        gray = (0.2989 * r + 0.587 * g + 0.114 * b).to(img.dtype).unsqueeze(dim=-3)
    else:
        gray = img.clone()
    if num_output_channels == 3:
        return gray.expand(img.shape)
    return gray


def _blend(img1: Tensor, img2: Tensor, ratio: float) -> Tensor:
    ratio = float(ratio)
    bound = _max_value(img1.dtype)
    return (ratio * img1 + (1.0 - ratio) * img2).clamp(0, bound).to(img1.dtype)


def adjust_brightness(img: Tensor, brightness_factor: float) -> Tensor:
    if brightness_factor < 0:
        raise ValueError(f"brightness_factor ({brightness_factor}) is not non-negative.")
    _assert_image_tensor(img)
    _assert_channels(img, [1, 3])
    return _blend(img, chainrule.zeros_like(img), brightness_factor)


def adjust_contrast(img: Tensor, contrast_factor: float) -> Tensor:
    if contrast_factor < 0:
        raise ValueError(f"contrast_factor ({contrast_factor}) is not non-negative.")
    _assert_image_tensor(img)
    _assert_channels(img, [3, 1])
    c = get_dimensions(img)[0]
    dtype = _float_dtype(img)
    gray = rgb_to_grayscale(img) if c == 3 else img
    mean = chainrule.mean(gray.to(dtype), dim=(-3, -2, -1), keepdim=True)
    return _blend(img, mean, contrast_factor)


def adjust_saturation(img: Tensor, saturation_factor: float) -> Tensor:
    if saturation_factor < 0:
        raise ValueError(f"saturation_factor ({saturation_factor}) is not non-negative.")
    _assert_image_tensor(img)
    _assert_channels(img, [1, 3])
    if get_dimensions(img)[0] == 1:
        return img
    return _blend(img, rgb_to_grayscale(img), saturation_factor)


def _rgb2hsv(img: Tensor) -> Tensor:
    """HSV of an RGB image in [0, 1], hue in [0, 1)."""
    r, g, b = img.unbind(dim=-3)
    maxc = chainrule.max(img, dim=-3).values
    minc = chainrule.min(img, dim=-3).values
    eqc = maxc == minc
    cr = maxc - minc
    ones = chainrule.ones_like(maxc)
    s = cr / chainrule.where(eqc, ones, maxc)
    cr_divisor = chainrule.where(eqc, ones, cr)
    rc = (maxc - r) / cr_divisor
    gc = (maxc - g) / cr_divisor
    bc = (maxc - b) / cr_divisor
    hr = (maxc == r) * (bc - gc)
    hg = ((maxc == g) & (maxc != r)) * (2.0 + rc - bc)
    hb = ((maxc != g) & (maxc != r)) * (4.0 + gc - rc)
    h = hr + hg + hb
    h = chainrule.fmod(h / 6.0 + 1.0, 1.0)
    return chainrule.stack((h, s, maxc), dim=-3)


def _hsv2rgb(img: Tensor) -> Tensor:
    """RGB from HSV through the six sectors of the hue circle."""
    h, s, v = img.unbind(dim=-3)
    i = chainrule.floor(h * 6.0)
    f = h * 6.0 - i
    i = i.to(dtype=chainrule.int32)
    p = chainrule.clamp(v * (1.0 - s), 0.0, 1.0)
    q = chainrule.clamp(v * (1.0 - s * f), 0.0, 1.0)
    t = chainrule.clamp(v * (1.0 - s * (1.0 - f)), 0.0, 1.0)
    i = i % 6
    mask = i.unsqueeze(dim=-3) == chainrule.arange(6, dtype=chainrule.int32).view(-1, 1, 1)
    a1 = chainrule.stack((v, q, p, p, t, v), dim=-3)
    a2 = chainrule.stack((t, v, v, q, p, p), dim=-3)
    a3 = chainrule.stack((p, p, t, v, v, q), dim=-3)
    a4 = chainrule.stack((a1, a2, a3), dim=-4)
    return chainrule.einsum("...ijk, ...xijk -> ...xjk", mask.to(dtype=img.dtype), a4)


def adjust_hue(img: Tensor, hue_factor: float) -> Tensor:
    if not (-0.5 <= hue_factor <= 0.5):
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    if not isinstance(img, Tensor):
        raise TypeError("Input img should be Tensor image")
    _assert_image_tensor(img)
    _assert_channels(img, [1, 3])
    if get_dimensions(img)[0] == 1:
        return img
    orig_dtype = img.dtype
    img = convert_image_dtype(img, chainrule.float32)
    h, s, v = _rgb2hsv(img).unbind(dim=-3)
    h = (h + hue_factor) % 1.0
    out = _hsv2rgb(chainrule.stack((h, s, v), dim=-3))
    return convert_image_dtype(out, orig_dtype)


def adjust_gamma(img: Tensor, gamma: float, gain: float = 1) -> Tensor:
    if not isinstance(img, Tensor):
        raise TypeError("Input img should be a Tensor.")
    _assert_channels(img, [1, 3])
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    result = img
    dtype = img.dtype
    if not img.is_floating_point():
        result = convert_image_dtype(result, chainrule.float32)
    result = (gain * result**gamma).clamp(0, 1)
    return convert_image_dtype(result, dtype)


def invert(img: Tensor) -> Tensor:
    _assert_image_tensor(img)
    if img.ndim < 3:
        raise TypeError(
            f"Input image tensor should have at least 3 dimensions, but found {img.ndim}"
        )
    _assert_channels(img, [1, 3])
    return _max_value(img.dtype) - img


def posterize(img: Tensor, bits: int) -> Tensor:
    _assert_image_tensor(img)
    if img.ndim < 3:
        raise TypeError(
            f"Input image tensor should have at least 3 dimensions, but found {img.ndim}"
        )
    if img.dtype != chainrule.uint8:
        raise TypeError(f"Only torch.uint8 image tensors are supported, but found {img.dtype}")
    _assert_channels(img, [1, 3])
    mask = -int(2 ** (8 - bits))
    return img & mask


def solarize(img: Tensor, threshold: float) -> Tensor:
    _assert_image_tensor(img)
    if img.ndim < 3:
        raise TypeError(
            f"Input image tensor should have at least 3 dimensions, but found {img.ndim}"
        )
    _assert_channels(img, [1, 3])
    if threshold > _max_value(img.dtype):
        raise TypeError("Threshold should be less than bound of img.")
    return chainrule.where(img >= threshold, invert(img), img)


def _blurred_degenerate_image(img: Tensor) -> Tensor:
    """The image smoothed by ``[[1,1,1],[1,5,1],[1,1,1]] / 13`` inside a 1-pixel border."""
    dtype = _float_dtype(img)
    kernel = chainrule.ones((3, 3), dtype=dtype)
    kernel[1, 1] = 5.0
    kernel = kernel / kernel.sum()
    kernel = kernel.expand(img.shape[-3], 1, 3, 3)
    lead = _lead(img)
    x, cast, squeeze, out_dtype = _to_4d_float(img, [kernel.dtype])
    x = F.conv2d(x, kernel, groups=x.shape[-3])
    inner = _from_4d(x, cast, squeeze, out_dtype, lead)
    h, w = img.shape[-2], img.shape[-1]
    top = img[..., :1, :]
    bottom = img[..., h - 1 :, :]
    middle = chainrule.cat((img[..., 1 : h - 1, :1], inner, img[..., 1 : h - 1, w - 1 :]), dim=-1)
    return chainrule.cat((top, middle, bottom), dim=-2)


def adjust_sharpness(img: Tensor, sharpness_factor: float) -> Tensor:
    if sharpness_factor < 0:
        raise ValueError(f"sharpness_factor ({sharpness_factor}) is not non-negative.")
    _assert_image_tensor(img)
    _assert_channels(img, [1, 3])
    if img.shape[-1] <= 2 or img.shape[-2] <= 2:
        return img
    return _blend(img, _blurred_degenerate_image(img), sharpness_factor)


def autocontrast(img: Tensor) -> Tensor:
    """Each channel stretched linearly so its minimum goes to 0 and its maximum to full."""
    _assert_image_tensor(img)
    if img.ndim < 3:
        raise TypeError(
            f"Input image tensor should have at least 3 dimensions, but found {img.ndim}"
        )
    _assert_channels(img, [1, 3])
    bound = _max_value(img.dtype)
    dtype = _float_dtype(img)
    minimum = img.amin(dim=(-2, -1), keepdim=True).to(dtype)
    maximum = img.amax(dim=(-2, -1), keepdim=True).to(dtype)
    flat = maximum == minimum
    scale = bound / chainrule.where(flat, chainrule.ones_like(maximum), maximum - minimum)
    minimum = chainrule.where(flat, chainrule.zeros_like(minimum), minimum)
    scale = chainrule.where(flat, chainrule.ones_like(scale), scale)
    return ((img - minimum) * scale).clamp(0, bound).to(img.dtype)


def _equalize_channel(chan: Tensor) -> Tensor:
    """One uint8 channel through the lookup table of its cumulative histogram."""
    hist = chainrule.bincount(chan.reshape(-1).to(chainrule.int64), minlength=256)
    nonzero = hist[hist != 0]
    step = int(nonzero[:-1].sum().item()) // 255
    if step == 0:
        return chan
    lut = chainrule.div(chainrule.cumsum(hist, 0) + step // 2, step, rounding_mode="floor")
    lut = chainrule.cat((chainrule.zeros(1, dtype=lut.dtype), lut[:-1])).clamp(0, 255)
    return lut[chan.to(chainrule.int64)].to(chainrule.uint8)


def equalize(img: Tensor) -> Tensor:
    _assert_image_tensor(img)
    if not (3 <= img.ndim <= 4):
        raise TypeError(f"Input image tensor should have 3 or 4 dimensions, but found {img.ndim}")
    if img.dtype != chainrule.uint8:
        raise TypeError(f"Only torch.uint8 image tensors are supported, but found {img.dtype}")
    _assert_channels(img, [1, 3])
    if img.ndim == 3:
        return chainrule.stack([_equalize_channel(c) for c in img])
    return chainrule.stack([chainrule.stack([_equalize_channel(c) for c in x]) for x in img])


def normalize(tensor: Tensor, mean: list[float], std: list[float], inplace: bool = False) -> Tensor:
    """``(tensor - mean) / std`` per channel."""
    _assert_image_tensor(tensor)
    if not tensor.is_floating_point():
        raise TypeError(f"Input tensor should be a float tensor. Got {tensor.dtype}.")
    if tensor.ndim < 3:
        raise ValueError(
            "Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = "
            f"{tensor.size()}"
        )
    if not inplace:
        tensor = tensor.clone()
    dtype = tensor.dtype
    mean_t = chainrule.as_tensor(mean, dtype=dtype)
    std_t = chainrule.as_tensor(std, dtype=dtype)
    if bool((std_t == 0).any()):
        raise ValueError(
            f"std evaluated to zero after conversion to {dtype}, leading to division by zero."
        )
    if mean_t.ndim == 1:
        mean_t = mean_t.view(-1, 1, 1)
    if std_t.ndim == 1:
        std_t = std_t.view(-1, 1, 1)
    return tensor.sub_(mean_t).div_(std_t)
