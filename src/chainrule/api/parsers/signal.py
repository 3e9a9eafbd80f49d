"""The window functions of spectral analysis (``torch.hann_window`` and its kin): 1-d
tensors of window_length samples; a periodic window is the symmetric one of length
window_length + 1 without its last sample. They are constructors: no gradient flows; made on
``device`` (the default device when none is given), as PyTorch's."""

from __future__ import annotations

import math
from typing import Any

from ... import _dtypes
from ..._backend import xp
from ..._creation import _check_device, _check_requires_grad
from ..._dtypes import dtype as DType
from ..._meta import on_device
from ..._tensor import Tensor, _make

# C++'s names of the dtypes, as PyTorch's TensorOptions print them
_CPP = {
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
}


def _window(
    name: str,
    window_length: int,
    periodic: bool,
    shape: Any,
    dtype: DType | None,
    device: Any,
    requires_grad: bool,
) -> Tensor:
    """``shape(n, N)`` for the samples n = 0..N-1 of the symmetric window of length N, cut
    to window_length, cast to dtype (a float dtype)."""
    _check_device(device)
    dt = _dtypes.to_dtype(dtype) if dtype is not None else _dtypes.get_default_dtype()
    if not dt.is_floating_point:
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype="
            f"{_CPP.get(dt.name, dt.name)}, device=cpu, layout=Strided (default), "
            "requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))"
        )
    n = int(window_length)
    if n < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={n}")
    if n <= 1:
        arr = xp.ones((n,), dtype=dt.np)
    elif isinstance(shape, _Hamming):
        arr = shape(n + 1 if periodic else n, dt.np)[:n]
    else:
        length = n + 1 if periodic else n
        arr = shape(xp.arange(length, dtype=xp.float64), length)[:n].astype(dt.np)
    return _check_requires_grad(_make(arr, dt), requires_grad)


def _cosine_sum(*coefficients: float) -> Any:
    """Σ_k (-1)^k a_k cos(2πkn/(N-1)): the generalized cosine windows."""

    def shape(n: Any, length: int) -> Any:
        phase = 2 * math.pi * n / (length - 1)
        return sum((-1) ** k * a * xp.cos(k * phase) for k, a in enumerate(coefficients))

    return shape


class _Hamming:
    """alpha - beta cos(2πn/(N-1)) as PyTorch computes it, in the window's own dtype: the
    phases n·(2π/(N-1)) rounded to it, their cosines rounded to it, then the product and the
    sum (a float32 window is then PyTorch's but for the odd last bit of its cosines)."""

    def __init__(self, alpha: float, beta: float) -> None:
        self.alpha, self.beta = alpha, beta

    def __call__(self, length: int, dtype: Any) -> Any:
        step = dtype.type(2 * math.pi / (length - 1))
        phase = xp.arange(length, dtype=dtype) * step
        cosine = xp.cos(phase.astype(xp.float64)).astype(dtype)
        return cosine * dtype.type(-self.beta) + dtype.type(self.alpha)


@on_device
def hann_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool | None = False,
    requires_grad: bool = False,
) -> Tensor:
    """The Hann window: 1/2 - 1/2 cos(2πn/(N-1))."""
    return _window(
        "hann_window", window_length, periodic, _Hamming(0.5, 0.5), dtype, device,
        requires_grad,
    )  # fmt: skip


@on_device
def hamming_window(
    window_length: int,
    periodic: bool = True,
    alpha: float = 0.54,
    beta: float = 0.46,
    *,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool | None = False,
    requires_grad: bool = False,
) -> Tensor:
    """The Hamming window: alpha - beta cos(2πn/(N-1))."""
    return _window(
        "hamming_window", window_length, periodic, _Hamming(alpha, beta), dtype, device,
        requires_grad,
    )  # fmt: skip


@on_device
def blackman_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool | None = False,
    requires_grad: bool = False,
) -> Tensor:
    """The Blackman window: 0.42 - 0.5 cos(2πn/(N-1)) + 0.08 cos(4πn/(N-1))."""
    return _window(
        "blackman_window", window_length, periodic, _cosine_sum(0.42, 0.5, 0.08), dtype,
        device, requires_grad,
    )  # fmt: skip


def _triangle(n: Any, length: int) -> Any:
    return 1 - xp.abs(2 * n / (length - 1) - 1)


@on_device
def bartlett_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool | None = False,
    requires_grad: bool = False,
) -> Tensor:
    """The Bartlett (triangular) window: 1 - |2n/(N-1) - 1|."""
    return _window(
        "bartlett_window", window_length, periodic, _triangle, dtype, device, requires_grad
    )


@on_device
def kaiser_window(
    window_length: int,
    periodic: bool = True,
    beta: float = 12.0,
    *,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool | None = False,
    requires_grad: bool = False,
) -> Tensor:
    """The Kaiser window: I0(beta sqrt(1 - (2n/(N-1) - 1)^2)) / I0(beta)."""

    def shape(n: Any, length: int) -> Any:
        r = 2 * n / (length - 1) - 1
        return xp.i0(beta * xp.sqrt(xp.clip(1 - r * r, 0, None))) / xp.i0(beta)

    return _window("kaiser_window", window_length, periodic, shape, dtype, device, requires_grad)
