"""``torch.stft`` and ``torch.istft``: the short-time Fourier transform and its inverse,
with PyTorch's signatures, defaults, checks and messages.

stft: the signal (1-D, or 2-D with a batch dim first) is cut into frames of n_fft samples,
hop_length apart (``ops.spectral.frames``; with ``center`` the signal is first extended by
n_fft//2 samples at both ends, by ``pad_mode``), each frame is multiplied by the window (of
win_length samples, centred in n_fft with zeros) and transformed: (batch, freq, frames).

istft: each frame's inverse transform, multiplied by the window, is added back into the
signal (``ops.spectral.overlap_add``) and divided by the overlap-added squared window (the
least-squares inverse); ``center`` trims the n_fft//2 samples stft added, ``length`` cuts
(or pads with zeros) the result. Gradients flow to the input and to the window.

Where chainrule differs from PyTorch: stft's framing (with its centring pad) is one node,
``AsStridedBackward0``, where PyTorch records the pad's node and an as_strided view; PyTorch
gives its warnings (no window; return_complex=False) once a process, chainrule on every call
(Python's warning filters then show each once per place by default).
"""

from __future__ import annotations

import warnings
from typing import Any

from ..._tensor import Tensor
from ...ops import complex_parts, spectral
from ...ops.padding import constant_pad_nd
from ..args import require_tensor

_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def _flag(value: Any) -> str:
    """An optional flag as PyTorch's messages print it: None, 1 or 0."""
    return "None" if value is None else str(int(value))


def _type_text(x: Tensor) -> str:
    """A tensor's type as PyTorch's messages print it (complex dtypes have no legacy name)."""
    if x.dtype.is_complex:
        return f"CPU{x.dtype.scalar_name}Type"
    return x.dtype.legacy_type


def _window_text(window: Tensor | None) -> str:
    return "None" if window is None else f"{_type_text(window)}{{{list(window.shape)}}}"


def _centred(window: Tensor | None, win_length: int, n_fft: int, like: Tensor) -> Tensor | None:
    """The window padded with zeros on both sides to n_fft samples (the left side takes
    (n_fft - win_length)//2); no window: ones of win_length samples so padded, or None when
    win_length is n_fft."""
    if win_length == n_fft:
        return window
    if window is None:
        window = like.new_ones(win_length, dtype=like.dtype.to_real())
    left = (n_fft - win_length) // 2
    return constant_pad_nd(window, pad=(left, n_fft - win_length - left), value=0.0)


def _check_center_pad(x: Tensor, pad: int, pad_mode: str) -> None:
    """The errors of F.pad(x viewed as 3-d, [pad, pad], pad_mode), as PyTorch's stft meets them."""
    if pad_mode not in _PAD_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {pad_mode}")
    n = x.shape[-1] if x.dim() else 1
    if pad_mode == "reflect" and pad >= n:
        shape = [1] * (3 - x.dim()) + list(x.shape)
        raise RuntimeError(
            "Argument #4: Padding size should be less than the corresponding input dimension, "
            f"but got: padding ({pad}, {pad}) at dimension {len(shape) - 1} of input {shape}"
        )
    if pad_mode == "circular" and pad > n:
        raise RuntimeError("Padding value causes wrapping around more than once.")


def stft(
    input: Tensor,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Tensor | None = None,
    center: bool = True,
    pad_mode: str = "reflect",
    normalized: bool = False,
    onesided: bool | None = None,
    return_complex: bool | None = None,
    align_to_window: bool | None = None,
) -> Tensor:
    """X[f, t] = Σ_k w[k] x[t·hop + k] e^{-2πi fk/n_fft} (normalized: times 1/√n_fft), for
    frames t of the signal x (extended by n_fft//2 samples at each end when centred)."""
    x = require_tensor("stft", input)
    n_fft = int(n_fft)
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    pad = n_fft // 2 if center else 0
    if center:
        _check_center_pad(x, pad, pad_mode)
    shape = list(x.shape)
    if shape:
        shape[-1] += 2 * pad
    hop = n_fft >> 2 if hop_length is None else int(hop_length)
    win = n_fft if win_length is None else int(win_length)
    if window is None:
        warnings.warn(
            "A window was not provided. A rectangular window will be applied,which is known to "
            "cause spectral leakage. Other windows such as torch.hann_window or "
            "torch.hamming_window are recommended to reduce spectral leakage.To suppress this "
            "warning and use a rectangular window, explicitly set "
            "`window=torch.ones(n_fft, device=<device>)`.",
            UserWarning,
            stacklevel=2,
        )
    complex_window = window is not None and window.dtype.is_complex
    given = return_complex is not None
    if not given:
        return_complex = x.dtype.is_complex or complex_window
    repr_ = (
        f"stft({_type_text(x)}{shape}, n_fft={n_fft}, hop_length={hop}, "
        f"win_length={win}, window={_window_text(window)}, normalized={int(bool(normalized))}, "
        f"onesided={_flag(onesided)}, return_complex={_flag(return_complex if given else None)}, "
        f"align_to_window={_flag(align_to_window)}) "
    )
    if not return_complex:
        if not given:
            raise RuntimeError(
                "stft requires the return_complex parameter be given for real inputs, and will "
                "further require that return_complex=True in a future PyTorch release."
            )
        warnings.warn(
            "stft with return_complex=False is deprecated. In a future pytorch release, stft "
            "will return complex tensors for all inputs, and return_complex=False will raise an "
            "error.\nNote: you can still call torch.view_as_real on the complex output to "
            "recover the old return format.",
            UserWarning,
            stacklevel=2,
        )
    if x.dtype._category < 2:
        raise RuntimeError(repr_ + ": expected a tensor of floating point or complex values")
    if x.dim() not in (1, 2):
        raise RuntimeError(repr_ + ": expected a 1D or 2D tensor")
    batched = x if x.dim() == 2 else x.unsqueeze(0)
    length = shape[-1]
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(repr_ + f": expected 0 < n_fft < {length}, but got n_fft={win}")
    if hop <= 0:
        raise RuntimeError(repr_ + f": expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(repr_ + f": expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError(
            repr_ + f": expected a 1D window tensor of size equal to win_length={win}, but got "
            f"window with size {list(window.shape)}"
        )
    start, count = -pad, 1 + (length - n_fft) // hop
    if align_to_window:  # the window's first sample at each frame's start
        start = -((n_fft - win) // 2)
        count = 1 + (length - win) // hop
        _check_aligned_frames(batched, count, hop, n_fft, length - 2 * start)
    frames = spectral.frames(
        batched,
        size=n_fft,
        step=hop,
        count=count,
        start=start,
        mode=pad_mode if center else "constant",
    )
    w = _centred(window, win, n_fft, x)
    if w is not None:
        frames = frames * w
    if frames.dtype.itemsize == 2:  # (half precision frames: no FFT kernel in PyTorch's CPU build)
        raise RuntimeError(f"MKL FFT doesn't support tensors of type: {frames.dtype.scalar_name}")
    complex_fft = frames.dtype.is_complex
    onesided = not complex_fft if onesided is None else bool(onesided)
    norm = "by_root_n" if normalized else "none"
    last = frames.dim() - 1
    if complex_fft:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = spectral.fft_c2c(frames, dim=(last,), norm=norm, forward=True)
    else:
        out = spectral.fft_r2c(frames, dim=(last,), norm=norm, onesided=onesided)
    if not return_complex:  # (as (real, imag) pairs, taken before the frames are transposed)
        out = complex_parts.view_as_real(out)
    out = out.transpose(1, 2)
    return out.squeeze(0) if x.dim() == 1 else out


def _check_aligned_frames(x: Tensor, count: int, hop: int, n_fft: int, padded: int) -> None:
    """PyTorch's error where frames aligned to the window run past the padded signal."""
    need = (x.shape[0] - 1) * padded + (count - 1) * hop + n_fft
    if need > x.shape[0] * padded:
        size = x.dtype.itemsize
        raise RuntimeError(
            f"setStorage: sizes {[x.shape[0], count, n_fft]}, strides {[padded, hop, 1]}, "
            f"storage offset 0, and itemsize {size} requiring a storage size of {need * size} "
            f"are out of bounds for storage of size {x.shape[0] * padded * size}"
        )


def istft(
    input: Tensor,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Tensor | None = None,
    center: bool = True,
    normalized: bool = False,
    onesided: bool | None = None,
    length: int | None = None,
    return_complex: bool = False,
) -> Tensor:
    """x[i] = Σ_t w[i - t·hop] y_t[i - t·hop] / Σ_t w[i - t·hop]², y_t the inverse transform
    of frame t (times √n_fft when normalized): the least-squares inverse of stft."""
    spec = require_tensor("istft", input)
    n_fft = int(n_fft)
    hop = n_fft >> 2 if hop_length is None else int(hop_length)
    win = n_fft if win_length is None else int(win_length)
    if window is None:
        warnings.warn(
            "A window was not provided. A rectangular window will be applied.Please provide the "
            "same window used by stft to make the inversion lossless.To suppress this warning "
            "and use a rectangular window, explicitly set "
            "`window=torch.ones(n_fft, device=<device>)`.",
            UserWarning,
            stacklevel=2,
        )
    if not spec.dtype.is_complex:
        raise RuntimeError(
            "istft requires a complex-valued input tensor matching the output from stft with "
            "return_complex=True."
        )
    ndim = spec.dim() + 1  # (PyTorch reads the sizes of its view as (real, imag) pairs)
    if ndim < 3:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got -3)"
        )
    fft_size, n_frames = spec.shape[-2], spec.shape[-1]
    expected = n_fft + hop * (n_frames - 1)
    repr_ = (
        f"istft(CPU{spec.dtype.scalar_name}Type{list(spec.shape)}, n_fft={n_fft}, "
        f"hop_length={hop}, win_length={win}, window={_window_text(window)}, "
        f"center={int(bool(center))}, normalized={int(bool(normalized))}, "
        f"onesided={_flag(onesided)}, length={'None' if length is None else int(length)}, "
        f"return_complex={int(bool(return_complex))}) "
    )
    if spec.numel() == 0:
        raise RuntimeError(repr_ + ": input tensor cannot be empty.")
    if ndim not in (3, 4):
        raise RuntimeError(repr_ + f": expected a tensor with 3 or 4 dimensions, but got {ndim}")
    onesided = fft_size != n_fft if onesided is None else bool(onesided)
    if onesided and n_fft // 2 + 1 != fft_size:
        raise RuntimeError(
            repr_ + ": expected the frequency dimension (3rd to the last) of the input tensor to "
            f"match n_fft / 2 + 1 when onesided=True, but got {fft_size}"
        )
    if not onesided and n_fft != fft_size:
        raise RuntimeError(
            repr_ + ": expected the frequency dimension (3rd to the last) of the input tensor to "
            f"match n_fft when onesided=False, but got {fft_size}"
        )
    if not 0 < hop <= win:
        raise RuntimeError(repr_ + ": expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise RuntimeError(repr_ + ": expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError(
            repr_ + ": Invalid window shape. window has to be 1D and length of `win_length`"
        )
    real_dtype = spec.dtype.to_real()
    w = window if window is not None else spec.new_ones(win, dtype=real_dtype)
    w = _centred(w, win, n_fft, spec)
    frames = (spec if ndim == 4 else spec.unsqueeze(0)).transpose(1, 2)  # (batch, frames, freq)
    norm = "by_root_n" if normalized else "by_n"
    last = frames.dim() - 1
    if return_complex:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = spectral.fft_c2c(frames, dim=(last,), norm=norm, forward=False)
    else:
        if window is not None and window.dtype.is_complex:
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not onesided:
            frames = frames[..., : n_fft // 2 + 1]
        frames = spectral.fft_c2r(frames, dim=(last,), norm=norm, last_dim_size=n_fft)
    y = spectral.overlap_add(frames * w, length=expected, step=hop, start=0, mode="constant")
    squares = (w * w).expand(1, n_frames, n_fft)
    envelope = spectral.overlap_add(squares, length=expected, step=hop, start=0, mode="constant")
    begin = n_fft // 2 if center else 0
    end = begin + int(length) if length is not None else -(n_fft // 2) if center else expected
    y = y[:, begin:end]
    envelope = envelope[:, begin:end]
    if bool((envelope.abs() < 1e-11).any()):
        raise RuntimeError(repr_ + "window overlap add min: 1\n[ CPUBoolType{} ]")
    y = y / envelope
    if ndim == 3:
        y = y.squeeze(0)
    if end > expected:
        warnings.warn(
            "The length of signal is shorter than the length parameter. Result is being padded "
            "with zeros in the tail. Please check your center and hop_length settings.",
            UserWarning,
            stacklevel=2,
        )
        y = constant_pad_nd(y, pad=(0, end - expected), value=0.0)
    return y
