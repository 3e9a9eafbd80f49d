"""torchaudio.functional's time-domain and other functions: mu-law, masks, deltas, pitch,
loudness, noise, convolutions, emphasis, edit distance and alignment."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

import chainrule
from chainrule import Tensor
from chainrule.nn import functional as nnF

__all__ = [
    "TokenSpan",
    "add_noise",
    "compute_deltas",
    "convolve",
    "deemphasis",
    "detect_pitch_frequency",
    "edit_distance",
    "fftconvolve",
    "forced_align",
    "frechet_distance",
    "loudness",
    "mask_along_axis",
    "mask_along_axis_iid",
    "merge_tokens",
    "mu_law_decoding",
    "mu_law_encoding",
    "preemphasis",
    "rnnt_loss",
    "sliding_window_cmn",
]


# --------------------------------------------------------------------------- mu-law


def mu_law_encoding(x: Tensor, quantization_channels: int) -> Tensor:
    """Mu-law companding to integers in ``[0, mu]``, ``mu = quantization_channels - 1``:
    ``y = sign(x) log(1 + mu |x|) / log(1 + mu)``, then ``int((y + 1) / 2 * mu + 0.5)``."""
    mu = quantization_channels - 1.0
    if not x.is_floating_point():
        warnings.warn(
            "The input Tensor must be of floating type. \
            This will be an error in the v0.12 release.",
            stacklevel=2,
        )
        x = x.to(chainrule.float)
    mu_t = chainrule.tensor(mu, dtype=x.dtype)
    x_mu = chainrule.sign(x) * chainrule.log1p(mu_t * chainrule.abs(x)) / chainrule.log1p(mu_t)
    return ((x_mu + 1) / 2 * mu_t + 0.5).to(chainrule.int64)


def mu_law_decoding(x_mu: Tensor, quantization_channels: int) -> Tensor:
    """Inverse of :func:`mu_law_encoding`: ``y = 2 x_mu / mu - 1``, then
    ``sign(y) ((1 + mu)^|y| - 1) / mu``."""
    mu = quantization_channels - 1.0
    if not x_mu.is_floating_point():
        x_mu = x_mu.to(chainrule.float)
    mu_t = chainrule.tensor(mu, dtype=x_mu.dtype)
    y = x_mu / mu_t * 2 - 1.0
    return (
        chainrule.sign(y) * (chainrule.exp(chainrule.abs(y) * chainrule.log1p(mu_t)) - 1.0) / mu_t
    )


# --------------------------------------------------------------------------- masking


def _get_mask_param(mask_param: int, p: float, axis_length: int) -> int:
    """The largest mask width: ``mask_param``, capped at ``floor(p * axis_length)`` for p < 1."""
    if p == 1.0:
        return mask_param
    return min(mask_param, int(axis_length * p))


def _check_mask_axis(dim: int, axis: int, p: float) -> None:
    if axis not in [dim - 2, dim - 1]:
        raise ValueError(
            "Only Frequency and Time masking are supported"
            f" (axis {dim - 2} and axis {dim - 1} supported; {axis} given)."
        )
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"The value of p must be between 0.0 and 1.0 ({p} given).")


def mask_along_axis_iid(
    specgrams: Tensor,
    mask_param: int,
    mask_value: float | Tensor,
    axis: int,
    p: float = 1.0,
) -> Tensor:
    """Set ``[v0, v0 + v)`` along ``axis`` to ``mask_value``, one interval per leading index:
    ``v ~ U(0, max_v)``, ``v0 ~ U(0, size - v)`` (both floored), ``max_v`` from
    ``mask_param`` and ``p``."""
    dim = specgrams.dim()
    if dim < 3:
        raise ValueError(f"Spectrogram must have at least three dimensions ({dim} given).")
    _check_mask_axis(dim, axis, p)
    mask_param = _get_mask_param(mask_param, p, specgrams.shape[axis])
    if mask_param < 1:
        return specgrams

    dtype = specgrams.dtype
    size = specgrams.size(axis)
    value = chainrule.rand(specgrams.shape[: dim - 2], dtype=dtype) * mask_param
    min_value = chainrule.rand(specgrams.shape[: dim - 2], dtype=dtype) * (size - value)
    mask_start = min_value.long()[..., None, None]
    mask_end = (min_value.long() + value.long())[..., None, None]
    positions = chainrule.arange(0, size, dtype=dtype)
    mask = (positions >= mask_start) & (positions < mask_end)

    specgrams = specgrams.transpose(axis, -1)
    if isinstance(mask_value, Tensor):
        specgrams = chainrule.where(mask, mask_value.repeat(specgrams.shape), specgrams)
    else:
        specgrams = specgrams.masked_fill(mask, mask_value)
    return specgrams.transpose(axis, -1)


def mask_along_axis(
    specgram: Tensor,
    mask_param: int,
    mask_value: float,
    axis: int,
    p: float = 1.0,
) -> Tensor:
    """Set ``[v0, v0 + v)`` along ``axis`` to ``mask_value``, one interval shared by every
    leading index: ``v ~ U(0, max_v)``, ``v0 ~ U(0, size - v)`` (both floored)."""
    dim = specgram.dim()
    if dim < 2:
        raise ValueError(
            f"Spectrogram must have at least two dimensions (time and frequency) ({dim} given)."
        )
    _check_mask_axis(dim, axis, p)
    mask_param = _get_mask_param(mask_param, p, specgram.shape[axis])
    if mask_param < 1:
        return specgram

    size = specgram.shape[axis]
    value = chainrule.rand(1) * mask_param
    min_value = chainrule.rand(1) * (size - value)
    mask_start = int(min_value.long().item())
    mask_end = mask_start + int(value.long().item())
    positions = chainrule.arange(0, size, dtype=specgram.dtype)
    mask = (positions >= mask_start) & (positions < mask_end)
    if axis == dim - 2:
        mask = mask.unsqueeze(-1)
    return specgram.masked_fill(mask, mask_value)


# --------------------------------------------------------------------------- deltas, pitch, CMN


def compute_deltas(specgram: Tensor, win_length: int = 5, mode: str = "replicate") -> Tensor:
    """Delta coefficients along the last axis:
    ``d_t = sum_{n=1}^N n (c_{t+n} - c_{t-n}) / (2 sum_{n=1}^N n^2)``, ``N = (win_length-1)//2``,
    the ends padded with ``mode``."""
    shape = specgram.size()
    specgram = specgram.reshape(1, -1, shape[-1])
    if win_length < 3:
        raise ValueError(
            f"Window length should be greater than or equal to 3. Found win_length {win_length}"
        )
    n = (win_length - 1) // 2
    denom = n * (n + 1) * (2 * n + 1) / 3
    specgram = nnF.pad(specgram, (n, n), mode=mode)
    channels = specgram.shape[1]
    kernel = chainrule.arange(-n, n + 1, 1, dtype=specgram.dtype).repeat(channels, 1, 1)
    output = nnF.conv1d(specgram, kernel, groups=channels) / denom
    return output.reshape(shape)


_PITCH_EPSILON = 1e-9


def _compute_nccf(waveform: Tensor, sample_rate: int, frame_time: float, freq_low: int) -> Tensor:
    """Per frame ``i`` and lag ``m`` in ``1..ceil(sr / freq_low)``:
    ``sum_n w(b_i+n) w(b_i+m+n) / (eps + |w[b_i:]|)^2 / (eps + |w[b_i+m:]|)^2``."""
    lags = int(math.ceil(sample_rate / freq_low))
    frame_size = int(math.ceil(sample_rate * frame_time))
    length = waveform.size(-1)
    num_frames = int(math.ceil(length / frame_size))
    waveform = nnF.pad(waveform, (0, lags + num_frames * frame_size - length))
    frame_shape = (*waveform.shape[:-1], num_frames, frame_size)
    s1 = waveform[..., : num_frames * frame_size].reshape(frame_shape)
    energy1 = (_PITCH_EPSILON + chainrule.linalg.vector_norm(s1, ord=2, dim=-1)).pow(2)
    columns = []
    for lag in range(1, lags + 1):
        s2 = waveform[..., lag : lag + num_frames * frame_size].reshape(frame_shape)
        energy2 = (_PITCH_EPSILON + chainrule.linalg.vector_norm(s2, ord=2, dim=-1)).pow(2)
        columns.append(((s1 * s2).sum(-1) / energy1 / energy2).unsqueeze(-1))
    return chainrule.cat(columns, -1)  # (..., frames, lags)


def _find_max_per_frame(nccf: Tensor, sample_rate: int, freq_high: int) -> Tensor:
    """The best lag per frame (lags counted from 1), preferring the best of the first half
    when it reaches 0.99 of the overall best."""
    lag_min = int(math.ceil(sample_rate / freq_high))
    best_value, best_index = chainrule.max(nccf[..., lag_min:], -1)
    half_size = nccf.shape[-1] // 2
    half_value, half_index = chainrule.max(nccf[..., lag_min:half_size], -1)
    take_half = half_value > 0.99 * best_value
    indices = chainrule.where(take_half, half_index, best_index)
    return indices + lag_min + 1


def _median_smoothing(indices: Tensor, win_length: int) -> Tensor:
    """Running (lower) median over ``win_length`` frames, the start padded with the first
    value."""
    pad_length = (win_length - 1) // 2
    first = indices[..., :1].expand(*indices.shape[:-1], pad_length)
    padded = chainrule.cat([first, indices], dim=-1)
    values, _ = chainrule.median(padded.unfold(-1, win_length, 1), -1)
    return values


def detect_pitch_frequency(
    waveform: Tensor,
    sample_rate: int,
    frame_time: float = 10 ** (-2),
    win_length: int = 30,
    freq_low: int = 85,
    freq_high: int = 3400,
) -> Tensor:
    """Pitch per frame: the lag maximizing the normalized cross-correlation, median-smoothed
    over ``win_length`` frames, as ``sample_rate / lag`` (float32)."""
    shape = list(waveform.size())
    waveform = waveform.reshape([-1, *shape[-1:]])
    with chainrule.no_grad():  # the output depends on the input only through an argmax
        nccf = _compute_nccf(waveform, sample_rate, frame_time, freq_low)
    indices = _find_max_per_frame(nccf, sample_rate, freq_high)
    indices = _median_smoothing(indices, win_length)
    freq = sample_rate / (_PITCH_EPSILON + indices.to(chainrule.float))
    return freq.reshape(shape[:-1] + list(freq.shape[-1:]))


def _cmn_windows(
    num_frames: int, cmn_window: int, min_cmn_window: int, center: bool
) -> tuple[list[int], list[int]]:
    """Start and end (exclusive) frame of each frame's normalization window."""
    starts, ends = [], []
    for t in range(num_frames):
        if center:
            start = t - cmn_window // 2
            end = start + cmn_window
        else:
            start = t - cmn_window
            end = t + 1
        if start < 0:
            end -= start
            start = 0
        if not center and end > t:
            end = max(t + 1, min_cmn_window)
        if end > num_frames:
            start = max(start - (end - num_frames), 0)
            end = num_frames
        starts.append(start)
        ends.append(end)
    return starts, ends


def sliding_window_cmn(
    specgram: Tensor,
    cmn_window: int = 600,
    min_cmn_window: int = 100,
    center: bool = False,
    norm_vars: bool = False,
) -> Tensor:
    """Sliding-window cepstral mean (and variance) normalization over ``(..., time, freq)``:
    ``y_t = (x_t - mean_W(t)) / std_W(t)``, ``W(t)`` the frames of ``t``'s window (Kaldi's
    rules: to the left, at least ``min_cmn_window`` frames, or centered)."""
    input_shape = specgram.shape
    num_frames, num_feats = input_shape[-2:]
    specgram = specgram.reshape(-1, num_frames, num_feats)
    starts, ends = _cmn_windows(num_frames, cmn_window, min_cmn_window, center)
    start_idx = chainrule.tensor(starts, dtype=chainrule.int64)
    end_idx = chainrule.tensor(ends, dtype=chainrule.int64)
    frames = chainrule.tensor(
        [e - s for s, e in zip(starts, ends)], dtype=specgram.dtype
    ).unsqueeze(-1)

    def window_sums(x: Tensor) -> Tensor:
        prefix = nnF.pad(chainrule.cumsum(x, 1), (0, 0, 1, 0))
        return prefix.index_select(1, end_idx) - prefix.index_select(1, start_idx)

    total = window_sums(specgram)
    output = specgram - total / frames
    if norm_vars:
        variance = window_sums(specgram**2) / frames - total**2 / frames**2
        single = frames == 1
        variance = chainrule.where(single, chainrule.ones_like(variance), variance)
        output = chainrule.where(single, chainrule.zeros_like(output), output * variance.pow(-0.5))
    return output.reshape(input_shape)


# --------------------------------------------------------------------------- sequences


def edit_distance(seq1: Sequence, seq2: Sequence) -> int:
    """Levenshtein distance (insertions, deletions, substitutions of one element each)."""
    previous = list(range(len(seq2) + 1))
    for i in range(1, len(seq1) + 1):
        current = [i] + [0] * len(seq2)
        for j in range(1, len(seq2) + 1):
            if seq1[i - 1] == seq2[j - 1]:
                current[j] = previous[j - 1]
            else:
                current[j] = 1 + min(previous[j - 1], current[j - 1], previous[j])
        previous = current
    return int(previous[-1])


# --------------------------------------------------------------------------- loudness, noise


def loudness(waveform: Tensor, sample_rate: int) -> Tensor:
    """ITU-R BS.1770-4 integrated loudness (LKFS) of ``(..., channels, time)``: K-weighting,
    mean square over 400 ms blocks (75% overlap), channel weights ``1, 1, 1, 1.41, 1.41``,
    absolute gate at -70 LKFS and relative gate 10 LU below the gated mean."""
    from .filtering import highpass_biquad, treble_biquad

    if waveform.size(-2) > 5:
        raise ValueError("Only up to 5 channels are supported.")
    bias = -0.691
    gate_samples = int(round(0.4 * sample_rate))
    step = int(round(gate_samples * (1 - 0.75)))

    waveform = treble_biquad(waveform, sample_rate, 4.0, 1500.0, 1 / math.sqrt(2))
    waveform = highpass_biquad(waveform, sample_rate, 38.0, 0.5)
    energy = chainrule.square(waveform).unfold(-1, gate_samples, step).mean(dim=-1)
    g = chainrule.tensor([1.0, 1.0, 1.0, 1.41, 1.41], dtype=waveform.dtype)[: energy.size(-2)]
    block_loudness = bias + 10 * chainrule.log10(chainrule.sum(g.unsqueeze(-1) * energy, dim=-2))

    def gated_loudness(gate: Tensor) -> Tensor:
        gate = gate.unsqueeze(-2)
        mean_energy = chainrule.sum(gate * energy, dim=-1) / chainrule.count_nonzero(gate, dim=-1)
        return bias + 10 * chainrule.log10(chainrule.sum(g * mean_energy, dim=-1))

    absolute = block_loudness > -70.0
    gamma_rel = gated_loudness(absolute) - 10
    relative = chainrule.logical_and(absolute, block_loudness > gamma_rel.unsqueeze(-1))
    return gated_loudness(relative)


def add_noise(
    waveform: Tensor, noise: Tensor, snr: Tensor, lengths: Tensor | None = None
) -> Tensor:
    """``y = x + a n`` with ``a = sqrt(|x|^2 / |n|^2 * 10^(-snr/10))``, the energies taken over
    the first ``lengths`` samples of each signal."""
    if not (
        waveform.ndim - 1 == noise.ndim - 1 == snr.ndim
        and (lengths is None or lengths.ndim == snr.ndim)
    ):
        raise ValueError("Input leading dimensions don't match.")
    L = waveform.size(-1)
    if L != noise.size(-1):
        raise ValueError(
            f"Length dimensions of waveform and noise don't match (got {L} and {noise.size(-1)})."
        )
    if lengths is not None:
        mask = chainrule.arange(0, L).expand(waveform.shape) < lengths.unsqueeze(-1)
        masked_waveform, masked_noise = waveform * mask, noise * mask
    else:
        masked_waveform, masked_noise = waveform, noise
    energy_signal = chainrule.linalg.vector_norm(masked_waveform, ord=2, dim=-1) ** 2
    energy_noise = chainrule.linalg.vector_norm(masked_noise, ord=2, dim=-1) ** 2
    original_snr_db = 10 * (chainrule.log10(energy_signal) - chainrule.log10(energy_noise))
    scale = 10 ** ((original_snr_db - snr) / 20.0)
    return waveform + scale.unsqueeze(-1) * noise


# --------------------------------------------------------------------------- convolution


def _check_shape_compatible(x: Tensor, y: Tensor) -> None:
    if x.ndim != y.ndim:
        raise ValueError(f"The operands must be the same dimension (got {x.ndim} and {y.ndim}).")
    for i in range(x.ndim - 1):
        xi, yi = x.size(i), y.size(i)
        if not (xi == yi or xi == 1 or yi == 1):
            raise ValueError(
                "Leading dimensions of x and y are not broadcastable "
                f"(got {x.shape} and {y.shape})."
            )


_CONVOLVE_MODES = ["full", "valid", "same"]


def _check_convolve_mode(mode: str) -> None:
    if mode not in _CONVOLVE_MODES:
        raise ValueError(
            f"Unrecognized mode value '{mode}'. Please specify one of {_CONVOLVE_MODES}."
        )


def _apply_convolve_mode(result: Tensor, x_length: int, y_length: int, mode: str) -> Tensor:
    """Cut the full convolution to ``mode``: all of it, the fully-overlapping part, or the
    centre ``x_length`` samples."""
    if mode == "full":
        return result
    if mode == "valid":
        length = max(x_length, y_length) - min(x_length, y_length) + 1
    elif mode == "same":
        length = x_length
    else:
        _check_convolve_mode(mode)
    start = (result.size(-1) - length) // 2
    return result[..., start : start + length]


def fftconvolve(x: Tensor, y: Tensor, mode: str = "full") -> Tensor:
    """True convolution along the last axis via FFT:
    ``(x * y)[k] = irfft(rfft(x, n) rfft(y, n))[k]``, ``n = N + M - 1``."""
    _check_shape_compatible(x, y)
    _check_convolve_mode(mode)
    n = x.size(-1) + y.size(-1) - 1
    result = chainrule.fft.irfft(chainrule.fft.rfft(x, n=n) * chainrule.fft.rfft(y, n=n), n=n)
    return _apply_convolve_mode(result, x.size(-1), y.size(-1), mode)


def convolve(x: Tensor, y: Tensor, mode: str = "full") -> Tensor:
    """True convolution along the last axis, directly: ``(x * y)[k] = sum_j x[j] y[k - j]``
    (a grouped ``conv1d`` with the shorter operand flipped)."""
    _check_shape_compatible(x, y)
    _check_convolve_mode(mode)
    x_size, y_size = x.size(-1), y.size(-1)
    if x_size < y_size:
        x, y = y, x
    leading = [max(i, j) for i, j in zip(x.shape[:-1], y.shape[:-1])]
    x = x.broadcast_to([*leading, x.shape[-1]])
    y = y.broadcast_to([*leading, y.shape[-1]])
    num_signals = int(np.prod(leading)) if leading else 1
    flat_x = x.reshape(num_signals, x.size(-1))
    flat_y = y.reshape(num_signals, y.size(-1))
    output = nnF.conv1d(
        flat_x,
        flat_y.flip(-1).unsqueeze(1),
        stride=1,
        groups=num_signals,
        padding=flat_y.size(-1) - 1,
    )
    result = output.reshape([*leading, -1])
    return _apply_convolve_mode(result, x_size, y_size, mode)


# --------------------------------------------------------------------------- emphasis


def preemphasis(waveform: Tensor, coeff: float = 0.97) -> Tensor:
    """``y[i] = x[i] - coeff x[i-1]`` along the last axis (``y[0] = x[0]``)."""
    rest = waveform[..., 1:] - coeff * waveform[..., :-1]
    return chainrule.cat([waveform[..., :1], rest], dim=-1)


def deemphasis(waveform: Tensor, coeff: float = 0.97) -> Tensor:
    """Inverse of :func:`preemphasis`: ``y[i] = x[i] + coeff y[i-1]`` (``lfilter``, so the
    output is clamped to ``[-1, 1]`` as torchaudio's is)."""
    from .filtering import lfilter

    a_coeffs = chainrule.tensor([1.0, -coeff], dtype=waveform.dtype)
    b_coeffs = chainrule.tensor([1.0, 0.0], dtype=waveform.dtype)
    return lfilter(waveform, a_coeffs=a_coeffs, b_coeffs=b_coeffs)


# --------------------------------------------------------------------------- Fréchet distance


def frechet_distance(mu_x: Tensor, sigma_x: Tensor, mu_y: Tensor, sigma_y: Tensor) -> Tensor:
    """Fréchet distance of two Gaussians:
    ``|mu_x - mu_y|^2 + tr(S_x + S_y - 2 (S_x S_y)^(1/2))``, the root's trace as the sum of
    the square roots of the eigenvalues of ``S_x S_y``."""
    if len(mu_x.size()) != 1:
        raise ValueError(f"Input mu_x must be one-dimensional; got dimension {len(mu_x.size())}.")
    if len(sigma_x.size()) != 2:
        raise ValueError(
            f"Input sigma_x must be two-dimensional; got dimension {len(sigma_x.size())}."
        )
    if sigma_x.size(0) != sigma_x.size(1) != mu_x.size(0):
        raise ValueError("Each of sigma_x's dimensions must match mu_x's size.")
    if mu_x.size() != mu_y.size():
        raise ValueError(
            f"Inputs mu_x and mu_y must have the same shape; got {mu_x.size()} and {mu_y.size()}."
        )
    if sigma_x.size() != sigma_y.size():
        raise ValueError(
            "Inputs sigma_x and sigma_y must have the same shape; "
            f"got {sigma_x.size()} and {sigma_y.size()}."
        )
    a = (mu_x - mu_y).square().sum()
    b = sigma_x.trace() + sigma_y.trace()
    c = chainrule.linalg.eigvals(sigma_x @ sigma_y).sqrt().real.sum()
    return a + b - 2 * c


# --------------------------------------------------------------------------- CTC alignment


def forced_align(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Tensor | None = None,
    target_lengths: Tensor | None = None,
    blank: int = 0,
) -> tuple[Tensor, Tensor]:
    """The most probable CTC path (Viterbi) of ``targets`` through ``log_probs`` ``(1, T, C)``:
    per frame the token of the path, and its log probability."""
    if bool((targets == blank).any()):
        raise ValueError(f"targets Tensor shouldn't contain blank index. Found {targets}.")
    if int(chainrule.max(targets)) >= log_probs.shape[-1]:
        raise ValueError("targets values must be less than the CTC dimension")
    if input_lengths is None:
        input_lengths = chainrule.full(
            (log_probs.size(0),), log_probs.size(1), dtype=chainrule.int64
        )
    if target_lengths is None:
        target_lengths = chainrule.full((targets.size(0),), targets.size(1), dtype=chainrule.int64)
    _check_forced_align_inputs(log_probs, targets, input_lengths, target_lengths, blank)

    emissions = log_probs.detach()[0].to(chainrule.float64).numpy()
    path = _ctc_viterbi(emissions, targets[0].numpy().astype(np.int64), blank)
    paths = chainrule.from_numpy(path[None]).to(targets.dtype)
    scores = log_probs[:, chainrule.arange(log_probs.shape[1]), paths[0]]
    return paths, scores


def _check_forced_align_inputs(
    log_probs: Tensor, targets: Tensor, input_lengths: Tensor, target_lengths: Tensor, blank: int
) -> None:
    """torchaudio's kernel's argument checks (RuntimeError, as TORCH_CHECK raises)."""
    checks = [
        (
            log_probs.dtype in (chainrule.float64, chainrule.float32, chainrule.float16),
            "log_probs must be float64, float32 or float16 (half) type",
        ),
        (
            targets.dtype in (chainrule.int32, chainrule.int64),
            "targets must be int32 or int64 type",
        ),
        (log_probs.is_contiguous(), "log_probs must be contiguous"),
        (targets.is_contiguous(), "targets must be contiguous"),
        (log_probs.dim() == 3, "log_probs must be 3-D (batch_size, input length, num classes)"),
        (targets.dim() == 2, "targets must be 2-D (batch_size, target length,)"),
        (input_lengths.dim() == 1, "input_lengths must be 1-D (batch_size,)"),
        (target_lengths.dim() == 1, "target_lengths must be 1-D (batch_size,)"),
        (
            log_probs.size(0) == 1,
            "The batch dimension for log_probs must be 1 at the current version.",
        ),
        (targets.size(0) == 1, "The batch dimension for targets must be 1 at the current version."),
        (0 <= blank < log_probs.size(-1), "blank must be within [0, num classes)"),
    ]
    for ok, message in checks:
        if not ok:
            raise RuntimeError(message)
    if log_probs.size(1) != int(input_lengths.max()):
        raise RuntimeError("input length mismatch")
    if targets.size(1) != int(target_lengths.max()):
        raise RuntimeError("target length mismatch")


def _ctc_viterbi(emissions: np.ndarray, tokens: np.ndarray, blank: int) -> np.ndarray:
    """Viterbi over the CTC states ``blank, y1, blank, y2, ..., blank`` (state ``s`` may
    stay, advance by one, or skip a blank between two different tokens); ties prefer
    staying, then advancing by one, as torchaudio's kernel does."""
    T, L = emissions.shape[0], len(tokens)
    repeats = int(np.sum(tokens[1:] == tokens[:-1]))
    if T < L + repeats:
        raise RuntimeError(
            f"targets length is too long for CTC. Found log_probs length: {T}, "
            f"targets length: {L}, and number of repeats: {repeats}"
        )
    S = 2 * L + 1
    labels = np.full(S, blank, dtype=np.int64)
    labels[1::2] = tokens
    can_skip = np.zeros(S, dtype=bool)
    can_skip[3::2] = tokens[1:] != tokens[:-1]
    alpha = np.full(S, -np.inf)
    alpha[: min(S, 2)] = emissions[0, labels[: min(S, 2)]]
    back = np.zeros((T, S), dtype=np.int64)
    for t in range(1, T):
        x0 = alpha
        x1 = np.concatenate([[-np.inf], alpha[:-1]])
        x2 = np.where(can_skip, np.concatenate([[-np.inf, -np.inf], alpha[:-2]]), -np.inf)
        step = np.where((x2 > x1) & (x2 > x0), 2, np.where(x1 > x0, 1, 0))
        best = np.choose(step, [x0, x1, x2])
        back[t] = step
        alpha = best + emissions[t, labels]
    state = S - 1 if S == 1 or alpha[S - 1] > alpha[S - 2] else S - 2
    path = np.empty(T, dtype=np.int64)
    for t in range(T - 1, -1, -1):
        path[t] = labels[state]
        state -= back[t, state]
    return path


@dataclass
class TokenSpan:
    """A token of an alignment, with its frames ``[start, end)`` and its mean score."""

    token: int
    start: int
    end: int
    score: float

    def __len__(self) -> int:
        """The number of frames, ``end - start``."""
        return self.end - self.start


def merge_tokens(tokens: Tensor, scores: Tensor, blank: int = 0) -> list[TokenSpan]:
    """Collapse a frame-level CTC alignment into spans of repeated non-blank tokens, each
    scored by the mean of its frames' scores."""
    if tokens.ndim != 1 or scores.ndim != 1:
        raise ValueError("`tokens` and `scores` must be 1D Tensor.")
    if len(tokens) != len(scores):
        raise ValueError("`tokens` and `scores` must be the same length.")
    values = tokens.tolist()
    boundaries = [0] + [i for i in range(1, len(values)) if values[i] != values[i - 1]]
    boundaries.append(len(values))
    return [
        TokenSpan(token=values[s], start=s, end=e, score=scores[s:e].mean().item())
        for s, e in zip(boundaries[:-1], boundaries[1:])
        if values[s] != blank
    ]


# --------------------------------------------------------------------------- RNN-T loss


def _rnnt_lattice(
    logits: np.ndarray,
    targets: np.ndarray,
    time_lengths: np.ndarray,
    label_lengths: np.ndarray,
    blank: int,
    fused_log_softmax: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """Costs ``-log P(y|x)`` and their gradients w.r.t. ``logits`` ``(B, T, U, D)`` by the
    forward-backward recursions over the ``(t, u)`` lattice:
    ``alpha(t,u) = lse(alpha(t-1,u) + blank(t-1,u), alpha(t,u-1) + y(t,u-1))``,
    ``beta(t,u) = lse(beta(t+1,u) + blank(t,u), beta(t,u+1) + y(t,u))``, ``beta(T-1,U-1) =
    blank(T-1,U-1)``; ``u`` counts emitted labels, ``U = target_length + 1``."""
    B, T, U, D = logits.shape
    t_idx = np.arange(T)[None, :, None]
    u_idx = np.arange(U)[None, None, :]
    last_t = (time_lengths - 1)[:, None, None]
    last_u = label_lengths[:, None, None]
    valid = (t_idx <= last_t) & (u_idx <= last_u)
    terminal = (t_idx == last_t) & (u_idx == last_u)
    if fused_log_softmax:
        peak = logits.max(-1, keepdims=True)
        denom = (peak + np.log(np.exp(logits - peak).sum(-1, keepdims=True)))[..., 0]
    else:
        denom = np.zeros((B, T, U))
    skip = logits[..., blank] - denom
    labels = np.clip(targets, 0, D - 1)
    emit = np.full((B, T, U), -np.inf)
    if U > 1:
        gathered = np.take_along_axis(logits[:, :, :-1, :], labels[:, None, :, None], axis=-1)
        emit[:, :, :-1] = gathered[..., 0] - denom[:, :, :-1]

    alpha = np.full((B, T, U), -np.inf)
    alpha[:, 0, 0] = 0.0
    for d in range(1, T + U - 1):
        t = np.arange(max(0, d - U + 1), min(d, T - 1) + 1)
        u = d - t
        from_t = np.where(t > 0, alpha[:, t - 1, u] + skip[:, t - 1, u], -np.inf)
        from_u = np.where(u > 0, alpha[:, t, u - 1] + emit[:, t, u - 1], -np.inf)
        alpha[:, t, u] = np.logaddexp(from_t, from_u)

    beta = np.full((B, T, U), -np.inf)
    for d in range(T + U - 2, -1, -1):
        t = np.arange(max(0, d - U + 1), min(d, T - 1) + 1)
        u = d - t
        to_t = np.where(t + 1 < T, beta[:, np.minimum(t + 1, T - 1), u], -np.inf)
        to_u = np.where(u + 1 < U, beta[:, t, np.minimum(u + 1, U - 1)], -np.inf)
        value = np.logaddexp(to_t + skip[:, t, u], to_u + emit[:, t, u])
        value = np.where(terminal[:, t, u], skip[:, t, u], value)
        beta[:, t, u] = np.where(valid[:, t, u], value, -np.inf)

    log_z = beta[:, 0, 0][:, None, None]
    alpha = np.where(valid, alpha, -np.inf)
    beta_after_blank = np.concatenate([beta[:, 1:], np.full((B, 1, U), -np.inf)], axis=1)
    beta_after_blank = np.where(terminal, 0.0, beta_after_blank)
    beta_after_label = np.concatenate([beta[:, :, 1:], np.full((B, T, 1), -np.inf)], axis=2)
    grad_blank = -np.exp(alpha + skip + beta_after_blank - log_z)
    grad_label = -np.exp(alpha + emit + beta_after_label - log_z)

    gradients = np.zeros((B, T, U, D))
    if fused_log_softmax:
        occupancy = np.exp(alpha + beta - log_z)
        gradients += np.exp(logits - denom[..., None]) * occupancy[..., None]
    gradients[..., blank] += grad_blank
    label_mask = np.arange(D) == labels[:, None, :, None]  # (B, 1, U-1, D)
    gradients[:, :, :-1, :] += np.where(label_mask, grad_label[:, :, :-1, None], 0.0)
    return -beta[:, 0, 0], gradients


class _RNNTLoss(chainrule.autograd.Function):
    """Per-sequence RNN-T costs; backward scales the analytic (optionally clamped) gradient
    by each cost's incoming gradient."""

    @staticmethod
    def forward(
        ctx: object,
        logits: Tensor,
        targets: Tensor,
        logit_lengths: Tensor,
        target_lengths: Tensor,
        blank: int,
        clamp: float,
        fused_log_softmax: bool,
    ) -> Tensor:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            costs, gradients = _rnnt_lattice(
                logits.detach().numpy().astype(np.float64),
                targets.numpy().astype(np.int64),
                logit_lengths.numpy().astype(np.int64),
                target_lengths.numpy().astype(np.int64),
                blank,
                fused_log_softmax,
            )
        if clamp > 0:
            gradients = np.clip(gradients, -clamp, clamp)
        ctx.save_for_backward(chainrule.from_numpy(gradients).to(logits.dtype))
        return chainrule.from_numpy(costs).to(logits.dtype)

    @staticmethod
    def backward(ctx: object, grad_costs: Tensor) -> tuple[Tensor | None, ...]:
        (gradients,) = ctx.saved_tensors
        return (gradients * grad_costs.reshape(-1, 1, 1, 1), None, None, None, None, None, None)


def _check_rnnt_inputs(
    logits: Tensor, targets: Tensor, logit_lengths: Tensor, target_lengths: Tensor, blank: int
) -> None:
    """torchaudio's kernel's argument checks (RuntimeError, as TORCH_CHECK raises)."""
    checks = [
        (
            logits.dtype in (chainrule.float32, chainrule.float16),
            "logits must be float32 or float16 (half) type",
        ),
        (targets.dtype == chainrule.int32, "targets must be int32 type"),
        (logit_lengths.dtype == chainrule.int32, "logit_lengths must be int32 type"),
        (target_lengths.dtype == chainrule.int32, "target_lengths must be int32 type"),
        (logits.is_contiguous(), "logits must be contiguous"),
        (targets.is_contiguous(), "targets must be contiguous"),
        (logit_lengths.is_contiguous(), "logit_lengths must be contiguous"),
        (target_lengths.is_contiguous(), "target_lengths must be contiguous"),
        (logits.dim() == 4, "logits must be 4-D (batch, time, target, class)"),
        (targets.dim() == 2, "targets must be 2-D (batch, max target length)"),
        (logit_lengths.dim() == 1, "logit_lengths must be 1-D"),
        (target_lengths.dim() == 1, "target_lengths must be 1-D"),
    ]
    for ok, message in checks:
        if not ok:
            raise RuntimeError(message)
    batch = logits.size(0)
    checks = [
        (
            logit_lengths.size(0) == batch,
            "batch dimension mismatch between logits and logit_lengths",
        ),
        (
            target_lengths.size(0) == batch,
            "batch dimension mismatch between logits and target_lengths",
        ),
        (targets.size(0) == batch, "batch dimension mismatch between logits and targets"),
        (0 <= blank < logits.size(-1), "blank must be within [0, logits.shape[-1])"),
        (logits.size(1) == int(logit_lengths.max()), "input length mismatch"),
        (logits.size(2) == int(target_lengths.max()) + 1, "output length mismatch"),
        (targets.size(1) + 1 == logits.size(2), "target length mismatch"),
    ]
    for ok, message in checks:
        if not ok:
            raise RuntimeError(message)


def rnnt_loss(
    logits: Tensor,
    targets: Tensor,
    logit_lengths: Tensor,
    target_lengths: Tensor,
    blank: int = -1,
    clamp: float = -1,
    reduction: str = "mean",
    fused_log_softmax: bool = True,
) -> Tensor:
    """RNN transducer loss ``-log sum_{alignments} prod P(k | t, u)`` over the ``(t, u)``
    lattice of each sequence (log-softmax over classes applied first when
    ``fused_log_softmax``), reduced by ``reduction``; gradients are clamped to
    ``[-clamp, clamp]`` when ``clamp > 0``."""
    if reduction not in ["none", "mean", "sum"]:
        raise ValueError('reduction should be one of "none", "mean", or "sum"')
    if blank < 0:
        blank = logits.shape[-1] + blank
    _check_rnnt_inputs(logits, targets, logit_lengths, target_lengths, blank)
    costs = _RNNTLoss.apply(
        logits, targets, logit_lengths, target_lengths, blank, clamp, fused_log_softmax
    )
    if reduction == "mean":
        return costs.mean()
    if reduction == "sum":
        return costs.sum()
    return costs
