"""``torch.nn.functional.pad`` and ``torch.constant_pad_nd``: every mode PyTorch has
(constant, reflect, replicate, circular), the dims each supports, negative pads (cropping),
and PyTorch's errors."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

from ... import _memory_format
from ..._dtypes import checked_fill, not_implemented
from ..._promotion import as_number
from ..._tensor import Tensor
from ...ops import padding
from ..args import require_tensor

_MODES = ("constant", "reflect", "replicate", "circular")


def constant_pad_nd(input: Tensor, pad: Sequence[int], value: float = 0) -> Tensor:
    """input with ``value`` around it: pad[2i], pad[2i+1] before and after its i-th dim from
    the end (negative pads crop) (ConstantPadNdBackward0)."""
    require_tensor("constant_pad_nd", input)
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) > 2 * input.ndim:
        raise RuntimeError(
            "Length of pad should be no more than twice the number of dimensions of the "
            f"input. Pad length is {len(pad)}while the input has {input.ndim}dimensions."
        )
    for (lo, hi), n in zip(padding.pairs(pad, input.ndim), input.shape):
        if n + min(lo, 0) < 0 or n + min(lo, 0) + min(hi, 0) < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
    value = checked_fill(_number(value, "constant_pad_nd", 3, "Number"), input._dtype)
    out = padding.constant_pad_nd(input, pad=pad, value=value)
    return _memory_format.follow_result(out, input._data)  # (a channels-last input's layout)


def _number(value: Any, fn: str, position: int, kind: str) -> Any:
    """``value`` as PyTorch's argument parser reads a ``kind`` (Number, or float): a Python
    or NumPy number, or a 0-d tensor that does not require grad; a float takes no Python
    complex number, and a complex tensor only with a zero imaginary part."""
    if isinstance(value, Tensor):
        if value._data.ndim == 0 and not value._requires_grad:
            number = value.item()
            if kind == "float" and isinstance(number, complex):
                if number.imag != 0:
                    raise RuntimeError("value cannot be converted to type double without overflow")
                number = number.real
            return number
    elif isinstance(value, numbers.Number) and not (kind == "float" and isinstance(value, complex)):
        return float(value) if kind == "float" else as_number(value)
    raise TypeError(
        f"{fn}(): argument 'value' (position {position}) must be {kind}, not {type(value).__name__}"
    )


def _check_reflect(input: Tensor, pad: tuple, nd: int) -> None:
    """Reflection needs each pad smaller than its dim (PyTorch's argument numbers)."""
    for i, ((lo, hi), n) in enumerate(zip(padding.pairs(pad, nd)[::-1], input.shape[::-1])):
        if lo >= n or hi >= n:
            raise RuntimeError(
                f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding "
                f"input dimension, but got: padding ({lo}, {hi}) at dimension "
                f"{input.ndim - 1 - i} of input {list(input.shape)}"
            )


def _check_output(input: Tensor, pad: tuple, nd: int, mode: str) -> None:
    """Reflection and replication give at least one element along some padded dim, and a
    negative size along none (PyTorch's errors)."""
    sizes = input.shape[input.ndim - nd :]
    outs = [n + lo + hi for (lo, hi), n in zip(padding.pairs(pad, nd), sizes)]
    if all(o < 1 for o in outs):
        names = "DHW"[3 - nd :]
        planes = ", ".join(f"{a}: {n}" for a, n in zip(names[-2:], sizes[-2:]))  # (H, W)
        given = f"D: {sizes[0]} {planes}" if nd == 3 else planes
        got = " ".join(f"{a}: {o}" for a, o in zip(names, outs))
        space = " " if nd == 2 and mode == "replicate" else ""
        raise RuntimeError(f"input ({given}{space}) is too small. Calculated output {got}")
    if any(o < 0 for o in outs):
        shape = [*input.shape[: input.ndim - nd], *outs]
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(outs)}: {shape}")


def _check_circular(input: Tensor, pad: tuple, nd: int) -> None:
    """Wrapping around takes each pad from the part the negative pads keep, which must not
    be empty unless the output is (PyTorch's checks, over every dim in turn)."""
    dims = list(zip(padding.pairs(pad, nd), input.shape[input.ndim - nd :]))
    if any(lo > n or hi > n for (lo, hi), n in dims):
        raise RuntimeError("Padding value causes wrapping around more than once.")
    for (lo, hi), n in dims:  # (where nothing is kept PyTorch reads memory it never wrote)
        if n + lo + hi < 0 or (n + lo + hi and n - max(-lo, 0) - max(-hi, 0) <= 0):
            raise RuntimeError("Negative padding value is resulting in an empty dimension")


def pad(
    input: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None
) -> Tensor:
    """input padded: ``pad`` gives (before, after) for its last dims, last dim first; mode
    constant (with ``value``), reflect, replicate or circular. Negative pads crop."""
    require_tensor("pad", input)
    if value is not None:
        value = _number(value, "pad", 4, "float")
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * input.ndim:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension "
            f"but got padding length {len(pad)} and input of dimension {input.ndim}"
        )
    if mode == "constant":  # (PyTorch's kernels keep a channels-last format, as below)
        return constant_pad_nd(input, pad, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    nd = len(pad) // 2
    if nd not in (1, 2, 3) or input.ndim not in (nd + 1, nd + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
        )
    if mode == "circular":
        _check_circular(input, pad, nd)
        return padding.circular_pad(input, taps=padding.circular_taps(input.shape, pad))
    if any(n == 0 for n in input.shape[int(input.ndim == nd + 2) :]):
        raise RuntimeError(
            f"Expected {nd + 1}D or {nd + 2}D (batch mode) tensor with possibly 0 batch size "
            f"and other non-zero dimensions for input, but got: {list(input.shape)}"
        )
    kernel = f"{'reflection' if mode == 'reflect' else 'replication'}_pad{nd}d"
    if input.dtype.name == "bool":
        raise not_implemented(kernel, input.dtype)
    if mode == "reflect":
        _check_reflect(input, pad, nd)
    _check_output(input, pad, nd, mode)
    if mode == "reflect":
        out = padding.reflection_pad(input, taps=padding.reflect_taps(input.shape, pad))
    else:
        out = padding.replication_pad(input, taps=padding.replicate_taps(input.shape, pad))
    return _memory_format.follow_result(out, input._data)
