"""``torch.signal.windows``: the window functions of spectral analysis, SciPy's way of
calling them. ``w = window(M, sym=...)`` has M samples w[0..M-1]; a symmetric window
(``sym=True``, filter design) is even about (M-1)/2, a periodic one (``sym=False``,
spectral analysis) is the symmetric window of length M + 1 without its last sample.

The math is shared with ``torch.hann_window`` and its kin (api/parsers/signal.py): the
windows both families have (Hann, Hamming, Blackman, Bartlett, Kaiser) are those functions
with ``periodic = not sym``, the rest are shapes given to the same sampler.

Where chainrule differs from PyTorch: with ``requires_grad=True`` PyTorch returns the
output of its computation from an internal ``linspace`` (a non-leaf with a ``grad_fn`` whose
gradient reaches no tensor the caller holds); chainrule returns a leaf that requires grad,
as ``torch.hann_window`` does. The values are computed in float64 and then cast, so
float32 windows can differ from PyTorch's (computed in float32) in the last bits.
``layout`` takes ``None`` or anything that prints as ``torch.strided`` (chainrule has no
layout objects); other layouts are PyTorch's ValueError.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from .. import _dtypes
from .._backend import xp
from .._creation import _check_device, _check_requires_grad
from .._dtypes import dtype as DType
from .._meta import on_device
from .._tensor import Tensor, _make
from ..api.parsers import signal as _signal

__all__ = [
    "bartlett",
    "blackman",
    "cosine",
    "exponential",
    "gaussian",
    "general_cosine",
    "general_hamming",
    "hamming",
    "hann",
    "kaiser",
    "nuttall",
]

# Nuttall's four-term window (the continuous first derivative one SciPy and PyTorch use)
_NUTTALL = (0.3635819, 0.4891775, 0.1365995, 0.0106411)


def _checked(name: str, M: int, dtype: DType | None, layout: Any) -> DType:
    """The window's dtype (the default dtype when None), after PyTorch's checks of M,
    layout and dtype, in its order."""
    dt = _dtypes.get_default_dtype() if dtype is None else _dtypes.to_dtype(dtype)
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not None and str(layout) != "torch.strided":
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dt.name not in ("float32", "float64"):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dt}")
    return dt


def _sampled(M: int, sym: bool, shape: Callable[[Any, int], Any], dtype: DType,
             device: Any, requires_grad: bool) -> Tensor:  # fmt: skip
    """``shape(n, N)`` at n = 0..M-1 for the symmetric window of length N (M, or M + 1 when
    periodic)."""
    return _signal._window("window", M, not sym, shape, dtype, device, requires_grad)


@on_device
def general_cosine(
    M: int,
    *,
    a: Iterable,
    sym: bool = True,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The generalized cosine window: w[n] = Σ_k (-1)^k a_k cos(2πkn/(N-1))."""
    dt = _checked("general_cosine", M, dtype, layout)
    if M > 1:
        if not isinstance(a, Iterable):
            raise TypeError("Coefficients must be a list/tuple")
        a = list(a)
        if not a:
            raise ValueError("Coefficients cannot be empty")
    shape = _signal._cosine_sum(*(a if M > 1 else ()))  # n ↦ Σ_k (-1)^k a_k cos(2πkn/(N-1))
    return _sampled(M, sym, shape, dt, device, requires_grad)


@on_device
def general_hamming(
    M: int,
    *,
    alpha: float = 0.54,
    sym: bool = True,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The generalized Hamming window: w[n] = alpha - (1 - alpha) cos(2πn/(N-1))."""
    return general_cosine(
        M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device,
        requires_grad=requires_grad,
    )  # fmt: skip


@on_device
def hann(
    M: int,
    *,
    sym: bool = True,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Hann window: w[n] = 1/2 - 1/2 cos(2πn/(N-1))."""
    dt = _checked("general_cosine", M, dtype, layout)  # (PyTorch names general_cosine)
    return _signal.hann_window(M, not sym, dtype=dt, device=device, requires_grad=requires_grad)


@on_device
def hamming(
    M: int,
    *,
    sym: bool = True,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Hamming window: w[n] = 0.54 - 0.46 cos(2πn/(N-1))."""
    dt = _checked("general_cosine", M, dtype, layout)
    return _signal.hamming_window(
        M, not sym, 0.54, 0.46, dtype=dt, device=device, requires_grad=requires_grad
    )


@on_device
def blackman(
    M: int,
    *,
    sym: bool = True,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Blackman window: w[n] = 0.42 - 0.5 cos(2πn/(N-1)) + 0.08 cos(4πn/(N-1))."""
    dt = _checked("blackman", M, dtype, layout)
    return _signal.blackman_window(M, not sym, dtype=dt, device=device, requires_grad=requires_grad)


@on_device
def nuttall(
    M: int,
    *,
    sym: bool = True,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Nuttall's window: the cosine sum with a = (0.3635819, 0.4891775, 0.1365995,
    0.0106411)."""
    return general_cosine(
        M, a=_NUTTALL, sym=sym, dtype=dtype, layout=layout, device=device,
        requires_grad=requires_grad,
    )  # fmt: skip


@on_device
def bartlett(
    M: int,
    *,
    sym: bool = True,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Bartlett (triangular) window: w[n] = 1 - |2n/(N-1) - 1|."""
    dt = _checked("bartlett", M, dtype, layout)
    return _signal.bartlett_window(M, not sym, dtype=dt, device=device, requires_grad=requires_grad)


@on_device
def kaiser(
    M: int,
    *,
    beta: float = 12.0,
    sym: bool = True,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Kaiser window: w[n] = I0(beta sqrt(1 - (2n/(N-1) - 1)²)) / I0(beta)."""
    dt = _checked("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    return _signal.kaiser_window(
        M, not sym, beta, dtype=dt, device=device, requires_grad=requires_grad
    )


@on_device
def cosine(
    M: int,
    *,
    sym: bool = True,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The cosine (sine) window, SciPy's: w[n] = sin(π(n + 1/2)/N)."""
    dt = _checked("cosine", M, dtype, layout)

    def shape(n: Any, length: int) -> Any:
        return xp.sin(math.pi * (n + 0.5) / length)

    return _sampled(M, sym, shape, dt, device, requires_grad)


@on_device
def gaussian(
    M: int,
    *,
    std: float = 1.0,
    sym: bool = True,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Gaussian window: w[n] = exp(-(n - (N-1)/2)² / (2 std²))."""
    dt = _checked("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")

    def shape(n: Any, length: int) -> Any:
        return xp.exp(-((n - (length - 1) / 2) ** 2) / (2 * std * std))

    return _sampled(M, sym, shape, dt, device, requires_grad)


@on_device
def exponential(
    M: int,
    *,
    center: float | None = None,
    tau: float = 1.0,
    sym: bool = True,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The exponential (Poisson) window: w[n] = exp(-|n - c| / tau), c = ``center``
    (default (N-1)/2, the middle)."""
    dt = _checked("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if center is not None:  # (a given center holds for M = 1 too: w[0] = exp(-|c|/tau))
        _check_device(device)
        arr = xp.exp(-xp.abs(xp.arange(M, dtype=xp.float64) - center) / tau)
        return _check_requires_grad(_make(arr.astype(dt.np), dt), requires_grad)

    def shape(n: Any, length: int) -> Any:
        return xp.exp(-xp.abs(n - (length - 1) / 2) / tau)

    return _sampled(M, sym, shape, dt, device, requires_grad)
