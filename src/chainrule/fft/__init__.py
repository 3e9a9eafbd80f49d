"""``chainrule.fft``: PyTorch's ``torch.fft``, discrete Fourier transforms with gradients.

Every transform is one of three ops of ``ops/spectral.py`` (complex to complex, real to
complex, complex to real) on its input promoted as PyTorch promotes it (integers to the
default float dtype, then, where a complex input is needed, to the complex dtype of that
precision) and cut or padded with zeros to the sizes asked for (``n``, ``s``), as PyTorch
composes them; the gradients are the ops' (PyTorch's formulas: see ops/spectral.py).

``norm`` scales a transform: ``"backward"`` (the default) leaves the forward transforms
unscaled and divides the inverse ones by n, ``"forward"`` the other way round, ``"ortho"``
divides both by √n.

Where chainrule differs from PyTorch: the conjugations of ``hfft``/``ihfft`` (and their n-d
forms) are computed, so their nodes are ``ConjPhysicalBackward0`` where PyTorch's lazy
conjugate records ``ConjBackward0``; an input cut to a smaller ``n``/``s`` records
``ConstantPadNdBackward0`` (a negative pad) where PyTorch records ``SliceBackward0``; a
transform over a dim of size 0 gives an empty result where PyTorch's CPU build (MKL) raises.
Values and gradients are PyTorch's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from .. import _dtypes
from .._backend import xp
from .._creation import _check_device, _check_requires_grad
from .._dtypes import dtype as DType
from .._meta import on_device
from .._tensor import Tensor, _make
from ..api.variants import composite_out, write_out
from ..ops import complex_parts, joining, spectral
from ..ops.padding import constant_pad_nd

__all__ = [
    "fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
    "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq",
    "rfftfreq", "fftshift", "ifftshift",
]  # fmt: skip

Dims = int | Sequence[int] | None

# ----- arguments ------------------------------------------------------------------------------


def _tensor(name: str, input: Any) -> Tensor:
    if not isinstance(input, Tensor):
        raise TypeError(
            f"fft_{name}(): argument 'input' (position 1) must be Tensor, "
            f"not {type(input).__name__}"
        )
    return input


def _norm(norm: str | None, forward: bool) -> str:
    """The scale of a transform in direction ``forward`` for PyTorch's ``norm``."""
    if norm is None or norm == "backward":
        return "none" if forward else "by_n"
    if norm == "forward":
        return "by_n" if forward else "none"
    if norm == "ortho":
        return "by_root_n"
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _wrap(dim: int, ndim: int) -> int:
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if not -ndim <= dim < ndim:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
            f"but got {dim})"
        )
    return dim % ndim


def _promote(x: Tensor, require_complex: bool) -> Tensor:
    """x in the dtype its transform runs in: integers and bools as the default float dtype,
    half precision refused (PyTorch's CPU kernels have none), complex where required."""
    dt = x._dtype
    if dt._category == 3:
        return x
    if dt._category < 2:
        dt = _dtypes.get_default_dtype()
    if dt not in (_dtypes.float32, _dtypes.float64):
        raise RuntimeError(f"Unsupported dtype {dt.scalar_name}")
    if require_complex:
        dt = dt.to_complex()
    return x if dt is x._dtype else x.to(dt)


def _resize(x: Tensor, dims: Sequence[int], sizes: Sequence[int]) -> Tensor:
    """x cut or padded with zeros at the end of each of dims to the sizes."""
    pad = [0] * (2 * x.dim())
    for d, n in zip(dims, sizes):
        pad[2 * (x.dim() - 1 - d) + 1] = n - x.shape[d]
    return constant_pad_nd(x, pad=tuple(pad), value=0.0) if any(pad) else x


def _shape_and_dims(x: Tensor, s: Dims, dim: Dims) -> tuple[list[int], list[int]]:
    """The sizes and dims of an n-dimensional transform (PyTorch's defaults: s alone names
    the last len(s) dims, neither all of them; -1 in s keeps a dim's size)."""
    ndim = x.dim()
    s = [s] if isinstance(s, int) else None if s is None else [int(n) for n in s]
    dims = None
    if dim is not None:
        dims = [_wrap(int(d), ndim) for d in ([dim] if isinstance(dim, int) else dim)]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if dims is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(
                f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions."
            )
        if dims is None:
            dims = list(range(ndim - len(s), ndim))
        shape = [x.shape[d] if n == -1 else n for d, n in zip(dims, s)]
    else:
        dims = list(range(ndim)) if dims is None else dims
        shape = [x.shape[d] for d in dims]
    for n in shape:
        if n <= 0:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return shape, dims


def _c2r_shape_and_dims(name: str, x: Tensor, s: Dims, dim: Dims) -> tuple[list, list, int]:
    """As _shape_and_dims for a transform to real values: also the length of the last dim's
    output (s's last value, or 2(m - 1) for the input's m bins), its input cut to n//2 + 1."""
    shape, dims = _shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError(f"{name} must transform at least one axis")
    given = s is not None and ([s] if isinstance(s, int) else list(s))[-1] != -1
    last = shape[-1] if given else 2 * (x.shape[dims[-1]] - 1)
    if last < 1:
        raise RuntimeError(f"Invalid number of data points ({last}) specified")
    shape[-1] = last // 2 + 1
    return shape, dims, last


def _one_dim(x: Tensor, n: int | None, dim: int) -> tuple[int, int]:
    d = _wrap(int(dim), x.dim())
    n = x.shape[d] if n is None else int(n)
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return n, d


def _written(
    name: str,
    kind: str,
    result: Any,
    input: Tensor,
    out: Tensor | None,
    op: str = "",
    composite: bool = False,
) -> Tensor:
    """``result()``, or written into ``out``: complex results need a complex out, real ones
    a floating one (``op``: the ATen function PyTorch's out= error names). ``composite``:
    PyTorch composes the transform of others here (an inverse transform of a real input),
    so an input requiring grad is let in and out is a recorded copy (variants.composite_out)."""
    if out is None:
        return result()
    if isinstance(out, Tensor):
        if kind == "complex" and out._dtype._category != 3:
            raise RuntimeError(
                f"{name} expects a complex output tensor, but got {out._dtype.scalar_name}"
            )
        if kind == "real" and out._dtype._category != 2:
            raise RuntimeError(
                f"{name} expects a floating point output tensor, but got {out._dtype.scalar_name}"
            )
    op = op or ("_fft_c2c" if kind == "complex" else "_fft_c2r")

    def compute(_: Tensor) -> Tensor:
        return result()

    function = composite_out(compute) if composite else compute
    return write_out(op, function, (input,), {}, out, exact=composite)


# ----- the three kinds of transform -------------------------------------------------------------


def _c2c(name, x, shape, dims, norm, forward, out) -> Tensor:
    def result():
        y = _resize(_promote(x, True), dims, shape)
        return spectral.fft_c2c(y, dim=tuple(dims), norm=_norm(norm, forward), forward=forward)

    composite = name == "ifft" and x._dtype._category != 3  # (PyTorch's ifft of a real input)
    name = "fftn" if name == "ifftn" else name  # (PyTorch's out= message names fftn for both)
    return _written(name, "complex", result, x, out, composite=composite)


def _r2c(name, x, n, dim, norm, forward, onesided, out) -> Tensor:
    if x._dtype._category == 3:
        raise RuntimeError(f"{name} expects a real input tensor, but got {x._dtype.scalar_name}")
    y = _promote(x, False)
    size, d = _one_dim(y, n, dim)

    def result():
        z = _resize(y, [d], [size])
        z = spectral.fft_r2c(z, dim=(d,), norm=_norm(norm, forward), onesided=onesided)
        return z if forward else complex_parts.conj_physical(z)

    return _written(name, "complex", result, x, out, "_fft_r2c", composite=not forward)


def _c2r(name, x, n, dim, norm, forward, out) -> Tensor:
    y = _promote(x, True)
    d = _wrap(int(dim), y.dim())
    size = 2 * (y.shape[d] - 1) if n is None else int(n)
    if size < 1:
        raise RuntimeError(f"Invalid number of data points ({size}) specified")

    def result():
        z = _resize(y, [d], [size // 2 + 1])
        if forward:
            z = complex_parts.conj_physical(z)
        return spectral.fft_c2r(z, dim=(d,), norm=_norm(norm, forward), last_dim_size=size)

    return _written(name, "real", result, x, out)


# ----- one dim ----------------------------------------------------------------------------------


def fft(
    input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
    out: Tensor | None = None,
) -> Tensor:  # fmt: skip
    """The discrete Fourier transform along dim: X[k] = Σ_j x[j] e^{-2πi jk/n}."""
    x = _tensor("fft", input)
    if x._dtype._category == 3:
        size, d = _one_dim(x, n, dim)
        return _c2c("fft", x, [size], [d], norm, True, out)
    return _r2c("fft", x, n, dim, norm, True, False, out)


def ifft(
    input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
    out: Tensor | None = None,
) -> Tensor:  # fmt: skip
    """The inverse transform along dim: x[j] = 1/n Σ_k X[k] e^{+2πi jk/n}."""
    x = _tensor("ifft", input)
    if x._dtype._category == 3:
        size, d = _one_dim(x, n, dim)
        return _c2c("ifft", x, [size], [d], norm, False, out)
    return _r2c("ifft", x, n, dim, norm, False, False, out)


def rfft(
    input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
    out: Tensor | None = None,
) -> Tensor:  # fmt: skip
    """The transform of a real signal along dim, bins 0 .. n//2 (the rest are conjugates)."""
    return _r2c("rfft", _tensor("rfft", input), n, dim, norm, True, True, out)


def irfft(
    input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
    out: Tensor | None = None,
) -> Tensor:  # fmt: skip
    """The inverse of rfft: the real signal of n samples (default 2(m - 1)) whose spectrum's
    first half is input."""
    return _c2r("irfft", _tensor("irfft", input), n, dim, norm, False, out)


def hfft(
    input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
    out: Tensor | None = None,
) -> Tensor:  # fmt: skip
    """The transform of a Hermitian signal given by its first half: a real spectrum of n
    bins (default 2(m - 1))."""
    return _c2r("hfft", _tensor("hfft", input), n, dim, norm, True, out)


def ihfft(
    input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
    out: Tensor | None = None,
) -> Tensor:  # fmt: skip
    """The inverse of hfft: the first half of the inverse transform of a real signal."""
    return _r2c("ihfft", _tensor("ihfft", input), n, dim, norm, False, True, out)


# ----- n dims -----------------------------------------------------------------------------------


def fftn(
    input: Tensor, s: Dims = None, dim: Dims = None, norm: str | None = None, *,
    out: Tensor | None = None,
) -> Tensor:  # fmt: skip
    """The transform over dims (default: all, or the last len(s)), of sizes s."""
    x = _tensor("fftn", input)
    shape, dims = _shape_and_dims(x, s, dim)
    return _c2c("fftn", x, shape, dims, norm, True, out)


def ifftn(
    input: Tensor, s: Dims = None, dim: Dims = None, norm: str | None = None, *,
    out: Tensor | None = None,
) -> Tensor:  # fmt: skip
    """The inverse transform over dims, of sizes s."""
    x = _tensor("ifftn", input)
    shape, dims = _shape_and_dims(x, s, dim)
    return _c2c("ifftn", x, shape, dims, norm, False, out)


def rfftn(
    input: Tensor, s: Dims = None, dim: Dims = None, norm: str | None = None, *,
    out: Tensor | None = None,
) -> Tensor:  # fmt: skip
    """The transform of a real signal over dims, the last one's bins 0 .. n//2 only."""
    x = _tensor("rfftn", input)
    if x._dtype._category == 3:
        raise RuntimeError(
            f"rfftn expects a real-valued input tensor, but got {x._dtype.scalar_name}"
        )
    shape, dims = _shape_and_dims(x, s, dim)
    if not dims:
        raise RuntimeError("rfftn must transform at least one axis")

    def result():
        y = _resize(_promote(x, False), dims, shape)
        return spectral.fft_r2c(y, dim=tuple(dims), norm=_norm(norm, True), onesided=True)

    return _written("rfftn", "complex", result, x, out, "_fft_r2c")


def irfftn(
    input: Tensor, s: Dims = None, dim: Dims = None, norm: str | None = None, *,
    out: Tensor | None = None,
) -> Tensor:  # fmt: skip
    """The inverse of rfftn: a real signal whose spectrum's half over the last dim is input."""
    x = _tensor("irfftn", input)
    shape, dims, last = _c2r_shape_and_dims("irfftn", x, s, dim)

    def result():
        y = _resize(_promote(x, True), dims, shape)
        return spectral.fft_c2r(y, dim=tuple(dims), norm=_norm(norm, False), last_dim_size=last)

    return _written("irfftn", "real", result, x, out)


def hfftn(
    input: Tensor, s: Dims = None, dim: Dims = None, norm: str | None = None, *,
    out: Tensor | None = None,
) -> Tensor:  # fmt: skip
    """The transform of a Hermitian signal given by its half over the last dim: real."""
    x = _tensor("hfftn", input)
    shape, dims, last = _c2r_shape_and_dims("hfftn", x, s, dim)
    z = _promote(x, True)
    scale = _norm(norm, True)

    def result():
        y = _resize(z, dims, shape)
        if len(dims) > 1:
            y = spectral.fft_c2c(y, dim=tuple(dims[:-1]), norm=scale, forward=True)
        y = complex_parts.conj_physical(y)
        return spectral.fft_c2r(y, dim=(dims[-1],), norm=scale, last_dim_size=last)

    return _written("hfftn", "real", result, x, out)


def ihfftn(
    input: Tensor, s: Dims = None, dim: Dims = None, norm: str | None = None, *,
    out: Tensor | None = None,
) -> Tensor:  # fmt: skip
    """The inverse of hfftn: the half over the last dim of a real signal's inverse transform."""
    x = _tensor("ihfftn", input)
    shape, dims = _shape_and_dims(x, s, dim)
    if not dims:
        raise RuntimeError("ihfftn must transform at least one axis")
    z = _promote(x, False)
    scale = _norm(norm, False)
    if x._dtype._category == 3:
        raise RuntimeError(
            f"Only supports floating-point dtypes, but found: {x._dtype.scalar_name}"
        )

    def result():
        y = _resize(z, dims, shape)
        y = spectral.fft_r2c(y, dim=(dims[-1],), norm=scale, onesided=True)
        y = complex_parts.conj_physical(y)
        if len(dims) > 1:
            y = spectral.fft_c2c(y, dim=tuple(dims[:-1]), norm=scale, forward=False)
        return y

    return _written("ihfftn", "complex", result, x, out, "_fft_r2c")


def _two(fn, name):
    def two(
        input: Tensor, s: Dims = None, dim: Dims = (-2, -1), norm: str | None = None, *,
        out: Tensor | None = None,
    ) -> Tensor:  # fmt: skip
        if dim is None:
            raise TypeError(f"fft_{name}(): argument 'dim' must be tuple of ints, not NoneType")
        return fn(input, s, dim, norm, out=out)

    two.__name__ = two.__qualname__ = name
    two.__doc__ = f"{fn.__name__} over two dims (default: the last two)."
    return two


fft2 = _two(fftn, "fft2")
ifft2 = _two(ifftn, "ifft2")
rfft2 = _two(rfftn, "rfft2")
irfft2 = _two(irfftn, "irfft2")
hfft2 = _two(hfftn, "hfft2")
ihfft2 = _two(ihfftn, "ihfft2")


# ----- sample frequencies and shifts ----------------------------------------------------------


def _frequencies(name, k, n, d, out, dtype, device, requires_grad) -> Tensor:
    """k / (n·d) in dtype (the sample counts k, then one product, as PyTorch computes it)."""
    _check_device(device)
    if isinstance(k, int):  # (a negative count of samples)
        raise RuntimeError(f"Trying to create tensor with negative dimension {k}: [{k}]")
    dt = _dtypes.to_dtype(dtype) if dtype is not None else _dtypes.get_default_dtype()
    if out is not None:
        dt = out._dtype
    if dt._category == 3:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{dt.scalar_name}'")
    if dt._category != 2:
        raise RuntimeError(f"{name} requires a floating point or complex dtype")
    with numpy.errstate(divide="ignore", invalid="ignore"):  # (d = 0: infinities, as PyTorch)
        step = numpy.float64(1.0) / (numpy.float64(n) * numpy.float64(d))
        values = k.astype(dt.np) * xp.asarray(step, dtype=dt.np)
    result = _check_requires_grad(_make(values, dt), requires_grad)
    if out is None:
        return result
    return write_out(f"fft_{name}", lambda: result.to(out.device), (), {}, out)


@on_device
def fftfreq(
    n: int, d: float = 1.0, *, out: Tensor | None = None, dtype: DType | None = None,
    layout: Any = None, device: Any = None, requires_grad: bool = False,
) -> Tensor:  # fmt: skip
    """The sample frequencies of an n-point transform, samples d apart: [0, 1, ..., ⌈n/2⌉-1,
    -⌊n/2⌋, ..., -1] / (n d)."""
    n = int(n)
    k = xp.concatenate([xp.arange((n + 1) // 2), xp.arange(-(n // 2), 0)]) if n >= 0 else n
    return _frequencies("fftfreq", k, n, d, out, dtype, device, requires_grad)


@on_device
def rfftfreq(
    n: int, d: float = 1.0, *, out: Tensor | None = None, dtype: DType | None = None,
    layout: Any = None, device: Any = None, requires_grad: bool = False,
) -> Tensor:  # fmt: skip
    """The sample frequencies of rfft's n//2 + 1 bins: [0, 1, ..., n//2] / (n d)."""
    n = int(n)
    bins = int(n / 2) + 1  # (n // 2 rounded toward zero, as C++ divides)
    k = xp.arange(bins) if bins >= 0 else bins
    return _frequencies("rfftfreq", k, n, d, out, dtype, device, requires_grad)


def _shifted(name: str, input: Tensor, dim: Dims, half: Any) -> Tensor:
    x = _tensor(name, input)
    if dim is None:
        dims = list(range(x.dim()))
    else:
        dims = [_wrap(int(d), x.dim()) for d in ([dim] if isinstance(dim, int) else dim)]
    if not dims:
        raise RuntimeError("`shifts` required")
    return joining.roll(x, shifts=tuple(half(x.shape[d]) for d in dims), dims=tuple(dims))


def fftshift(input: Tensor, dim: Dims = None) -> Tensor:
    """The zero frequency moved to the middle: each dim rolled by n//2."""
    return _shifted("fftshift", input, dim, lambda n: n // 2)


def ifftshift(input: Tensor, dim: Dims = None) -> Tensor:
    """The inverse of fftshift: each dim rolled by (n+1)//2."""
    return _shifted("ifftshift", input, dim, lambda n: (n + 1) // 2)
