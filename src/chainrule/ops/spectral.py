"""The discrete Fourier transform and the framing of signals: the ops behind ``torch.fft``,
``stft`` and ``istft``.

Three transforms, as PyTorch's (``_fft_c2c``, ``_fft_r2c``, ``_fft_c2r``), each over the dims
``dim`` at once, scaled by ``norm``: ``"none"``, ``"by_n"`` (1/n, n the product of the
transformed sizes) or ``"by_root_n"`` (1/√n):

- ``fft_c2c``: complex to complex, X[k] = Σ_j x[j] e^{∓2πi jk/n} (``forward``: the minus sign);
- ``fft_r2c``: real to complex, the forward transform of a real x; ``onesided`` keeps only the
  first n//2 + 1 bins of the last dim (the others are their conjugates);
- ``fft_c2r``: complex to real, the inverse transform of the Hermitian spectrum whose first
  half (``last_dim_size``//2 + 1 bins of the last dim) is x: the imaginary parts of the
  bins that are their own mirror image (0, and n/2 for even n) are ignored.

The transforms are linear, so each VJP is another transform with the same scale. With
PyTorch's convention for complex gradients (for a real loss L of z = x + iy, ∂L/∂x + i ∂L/∂y),
the VJP of a map z ↦ Az that is linear over the complex numbers is Aᴴg: for the DFT, the
transform of the opposite sign. For ``fft_r2c`` the real part of that, with the dropped half
filled with zeros; for ``fft_c2r`` PyTorch's formula: the one-sided forward transform of g
with the bins that stand for two (1 .. n - n//2 - 1) doubled.

``frames`` cuts a signal into frames ``step`` apart (the signal extended beyond its ends by
padding, as ``F.pad`` pads: zeros, or by reflection, replication, wrapping around);
``overlap_add`` adds frames back into a signal. Each is the other's transpose.
"""

from __future__ import annotations

import numpy

from .._backend import like, xp
from ..autograd.recording import KEEP, array_of, defop
from . import arithmetic, complex_parts, padding
from .windows import add_windows, sum_into, windows

# numpy.fft's norm for a transform in the forward (e^{-i}) or inverse (e^{+i}) direction
_NUMPY_NORM = {
    (True, "none"): "backward",
    (True, "by_n"): "forward",
    (False, "none"): "forward",
    (False, "by_n"): "backward",
}


def numpy_norm(norm: str, forward: bool) -> str:
    """numpy.fft's name for the scale ``norm`` of a transform in direction ``forward``."""
    return "ortho" if norm == "by_root_n" else _NUMPY_NORM[(forward, norm)]


# ----- complex to complex -------------------------------------------------------------------


def _c2c(x, dim=(), norm="none", forward=True):
    """X[k] = s Σ_j x[j] e^{∓2πi jk/n} over the dims ``dim`` (s: the scale ``norm``)"""
    if not dim:
        return x.copy()
    transform = xp.fft.fftn if forward else xp.fft.ifftn
    return transform(x, axes=dim, norm=numpy_norm(norm, forward))


fft_c2c = defop(
    "fft_c2c",
    _c2c,
    dtypes=KEEP,
    complex="wirtinger",
    node="FftC2CBackward0",
    vjp=lambda g, dim, norm, forward: fft_c2c(
        g, dim=dim, norm=norm, forward=not forward
    ),  # Aᴴg: the transform of the opposite sign, same scale
    jvp=lambda t, dim, norm, forward: fft_c2c(t, dim=dim, norm=norm, forward=forward),  # A t
)


# ----- real to complex ----------------------------------------------------------------------


def _r2c(x, dim=(), norm="none", onesided=True):
    """X[k] = s Σ_j x[j] e^{-2πi jk/n} of real x over ``dim`` (onesided: bins 0 .. n//2 of
    the last dim only)"""
    transform = xp.fft.rfftn if onesided else xp.fft.fftn
    return transform(x, axes=dim, norm=numpy_norm(norm, True))


def _r2c_vjp(g, x_shape, dim, norm, onesided):
    """Re(Aᴴ g), g's dropped bins (onesided) zeros: Re of the inverse-sign transform"""
    if onesided:
        last = dim[-1]
        missing = x_shape[last] - array_of(g).shape[last]
        if missing > 0:
            pad = [0] * (2 * len(x_shape))
            pad[2 * (len(x_shape) - 1 - last % len(x_shape)) + 1] = missing
            g = padding.constant_pad_nd(g, pad=tuple(pad), value=0.0)
    return complex_parts.real(fft_c2c(g, dim=dim, norm=norm, forward=False))


fft_r2c = defop(
    "fft_r2c",
    _r2c,
    dtypes=KEEP,
    complex="wirtinger",
    node="FftR2CBackward0",
    vjp=_r2c_vjp,
    jvp=lambda t, dim, norm, onesided: fft_r2c(t, dim=dim, norm=norm, onesided=onesided),  # A t
)


# ----- complex to real ----------------------------------------------------------------------


def _c2r(x, dim=(), norm="none", last_dim_size=1):
    """x[j] = s Σ_k X[k] e^{+2πi jk/n} over ``dim``, X the Hermitian spectrum whose bins
    0 .. n//2 of the last dim are x (n = last_dim_size)"""
    sizes = [x.shape[d] for d in dim[:-1]] + [last_dim_size]
    return xp.fft.irfftn(x, s=sizes, axes=dim, norm=numpy_norm(norm, False))


def _c2r_vjp(g, dim, norm, last_dim_size):
    """the one-sided forward transform of g, bins 1 .. n - n//2 - 1 doubled (they stand for
    their mirror images too): PyTorch's formula"""
    half = fft_r2c(g, dim=dim, norm=norm, onesided=True)
    doubled = last_dim_size - (last_dim_size // 2 + 1)
    if doubled <= 0:
        return half
    last = dim[-1] % array_of(g).ndim
    weights = numpy.ones(last_dim_size // 2 + 1)
    weights[1 : 1 + doubled] = 2.0
    shape = [1] * array_of(g).ndim
    shape[last] = weights.size
    real_dtype = numpy.empty(0, array_of(half).dtype).real.dtype
    return arithmetic.mul(half, like(array_of(g), weights.reshape(shape), real_dtype))


fft_c2r = defop(
    "fft_c2r",
    _c2r,
    dtypes=KEEP,
    complex="wirtinger",
    node="FftC2RBackward0",
    vjp=_c2r_vjp,
    jvp=lambda t, dim, norm, last_dim_size: fft_c2r(
        t, dim=dim, norm=norm, last_dim_size=last_dim_size
    ),  # A t
)


# ----- frames of a signal -------------------------------------------------------------------


def sources(length: int, padded: int, start: int, mode: str) -> numpy.ndarray:
    """For each position p of the extended signal (p = 0 .. padded-1, at start + p of the
    signal of ``length``), the signal's position it copies, or -1 for a zero (mode
    "constant"); "reflect" mirrors about the ends, "replicate" repeats them, "circular"
    wraps around."""
    j = numpy.arange(padded) + start
    if mode == "reflect":
        period = max(2 * (length - 1), 1)
        j = numpy.abs(j) % period
        return numpy.where(j >= length, period - j, j)
    if mode == "replicate":
        return numpy.clip(j, 0, length - 1)
    if mode == "circular":
        return j % length
    return numpy.where((j >= 0) & (j < length), j, -1)


def _extended(x, padded, start, mode):
    """x along its last dim extended to ``padded`` samples from ``start`` (see sources)"""
    n = x.shape[-1]
    if start == 0 and padded == n:
        return x
    index = sources(n, padded, start, mode)
    if mode == "constant" and (index < 0).any():
        out = xp.zeros(x.shape[:-1] + (padded,), dtype=x.dtype)
        inside = numpy.flatnonzero(index >= 0)
        if inside.size:
            lo, hi = int(inside[0]), int(inside[-1]) + 1
            out[..., lo:hi] = x[..., int(index[lo]) : int(index[lo]) + hi - lo]
        return out
    return xp.take(x, like(x, index), axis=-1)


def _frames(x, size=1, step=1, count=1, start=0, mode="constant"):
    """frame t, sample k = x[start + t·step + k] (x extended beyond its ends by ``mode``):
    shape (..., count, size)"""
    padded = (count - 1) * step + size
    ext = _extended(x, padded, start, mode)
    view = windows(ext, (size,), (step,), (1,), out=(count,))  # (..., size, count)
    return xp.ascontiguousarray(xp.swapaxes(view, -1, -2))


def _overlap_add(y, length=1, step=1, start=0, mode="constant"):
    """out[i] = Σ y[t, k] over the frames' samples that copy position i (start + t·step + k
    extended by ``mode``): the frames y (..., count, size) added back into a signal"""
    count, size = y.shape[-2], y.shape[-1]
    padded = (count - 1) * step + size
    ext = add_windows(xp.swapaxes(y, -1, -2), (padded,), (step,), (1,))
    if start == 0 and padded == length:
        return ext
    index = sources(length, padded, start, mode)
    keep = numpy.flatnonzero(index >= 0)
    if keep.size < padded:
        ext = xp.take(ext, like(ext, keep), axis=-1)
        index = index[keep]
    return sum_into(ext, like(ext, index), length, ext.ndim - 1)


frames = defop(
    "frames",
    _frames,
    dtypes=KEEP,
    complex="wirtinger",
    node="AsStridedBackward0",
    vjp=lambda g, x_shape, step, start, mode: overlap_add(
        g, length=x_shape[-1], step=step, start=start, mode=mode
    ),  # Jᵀg = each frame's gradient added back where it was read
    jvp=lambda t, size, step, count, start, mode: frames(
        t, size=size, step=step, count=count, start=start, mode=mode
    ),  # J t = t's frames
)

overlap_add = defop(
    "overlap_add",
    _overlap_add,
    dtypes=KEEP,
    complex="wirtinger",
    node="UnfoldBackwardBackward0",
    vjp=lambda g, y_shape, step, start, mode: frames(
        g, size=y_shape[-1], step=step, count=y_shape[-2], start=start, mode=mode
    ),  # Jᵀg = g's frames
    jvp=lambda t, length, step, start, mode: overlap_add(
        t, length=length, step=step, start=start, mode=mode
    ),  # J t = t's frames added up
    args=("y",),
)
