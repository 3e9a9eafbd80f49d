"""torchaudio.functional's spectral features: spectrograms, mel and linear filter banks,
the DCT, Griffin-Lim, phase vocoder, resampling, pitch and speed.

Everything applied to a signal is written with chainrule tensor ops, so gradients flow as
in torchaudio; filter banks, DCT matrices and resampling kernels are constant data built
in the default dtype (the kernel in the waveform's dtype), as torchaudio builds them.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

import chainrule
from chainrule import Tensor
from chainrule.nn import functional as nnf

__all__ = [
    "DB_to_amplitude",
    "amplitude_to_DB",
    "create_dct",
    "griffinlim",
    "inverse_spectrogram",
    "linear_fbanks",
    "melscale_fbanks",
    "phase_vocoder",
    "pitch_shift",
    "resample",
    "spectral_centroid",
    "spectrogram",
    "speed",
]


# ----- helpers ---------------------------------------------------------------------------


def _linspace(start: float, end: float, steps: int, dtype: chainrule.dtype | None = None) -> Tensor:
    """``steps`` points from start to end in ``dtype`` (the default dtype when None):
    ``chainrule.linspace``, which rounds them as PyTorch's does (so filter banks agree with
    torchaudio's bit for bit)."""
    return chainrule.linspace(start, end, steps, dtype=dtype)


def _spec_norms(normalized: bool | str) -> tuple[bool, bool]:
    """(normalize by √frame_length inside the STFT, normalize by the window's L2 norm)."""
    if isinstance(normalized, str):
        if normalized not in ("frame_length", "window"):
            raise ValueError(f"Invalid normalized parameter: {normalized}")
        return normalized == "frame_length", normalized == "window"
    if isinstance(normalized, bool):
        return False, normalized
    raise TypeError("Input type not supported")


def _complex_dtype(real: chainrule.dtype) -> chainrule.dtype:
    """The complex dtype whose parts have dtype ``real``."""
    if real == chainrule.float64:
        return chainrule.complex128
    if real == chainrule.float32:
        return chainrule.complex64
    if real == chainrule.float16:
        return chainrule.complex32
    raise ValueError(f"Unexpected dtype {real}")


# ----- spectrograms ----------------------------------------------------------------------


def spectrogram(
    waveform: Tensor,
    pad: int,
    window: Tensor,
    n_fft: int,
    hop_length: int,
    win_length: int,
    power: float | None,
    normalized: bool | str,
    center: bool = True,
    pad_mode: str = "reflect",
    onesided: bool = True,
    return_complex: bool | None = None,
) -> Tensor:
    """|STFT(x)|^power of a (..., time) signal, shape (..., freq, frames); the complex STFT
    itself when ``power`` is None. ``normalized="window"`` (or True) divides by ‖window‖₂,
    ``"frame_length"`` by √n_fft."""
    if return_complex is not None:
        warnings.warn(
            "`return_complex` argument is now deprecated and is not effective."
            "`torchaudio.functional.spectrogram(power=None)` always returns a tensor with "
            "complex dtype. Please remove the argument in the function call.",
            stacklevel=2,
        )
    if pad > 0:
        waveform = nnf.pad(waveform, (pad, pad), "constant")
    frame_length_norm, window_norm = _spec_norms(normalized)
    shape = waveform.size()
    spec = chainrule.stft(
        waveform.reshape(-1, shape[-1]),
        n_fft=n_fft,
        hop_length=hop_length,
        win_length=win_length,
        window=window,
        center=center,
        pad_mode=pad_mode,
        normalized=frame_length_norm,
        onesided=onesided,
        return_complex=True,
    )
    spec = spec.reshape(shape[:-1] + spec.shape[-2:])
    if window_norm:
        spec = spec / window.pow(2.0).sum().sqrt()
    if power is None:
        return spec
    if power == 1.0:
        return spec.abs()
    return spec.abs().pow(power)


def inverse_spectrogram(
    spectrogram: Tensor,
    length: int | None,
    pad: int,
    window: Tensor,
    n_fft: int,
    hop_length: int,
    win_length: int,
    normalized: bool | str,
    center: bool = True,
    pad_mode: str = "reflect",
    onesided: bool = True,
) -> Tensor:
    """The least-squares signal (..., time) whose STFT is the complex ``spectrogram``
    (..., freq, frames): ISTFT, undoing the normalization and the two-sided ``pad``."""
    frame_length_norm, window_norm = _spec_norms(normalized)
    if not spectrogram.is_complex():
        raise ValueError("Expected `spectrogram` to be complex dtype.")
    if window_norm:
        spectrogram = spectrogram * window.pow(2.0).sum().sqrt()
    shape = spectrogram.size()
    waveform = chainrule.istft(
        spectrogram.reshape(-1, shape[-2], shape[-1]),
        n_fft=n_fft,
        hop_length=hop_length,
        win_length=win_length,
        window=window,
        center=center,
        normalized=frame_length_norm,
        onesided=onesided,
        length=length + 2 * pad if length is not None else None,
        return_complex=False,
    )
    if length is not None and pad > 0:
        waveform = waveform[:, pad:-pad]
    return waveform.reshape(shape[:-2] + waveform.shape[-1:])


def griffinlim(
    specgram: Tensor,
    window: Tensor,
    n_fft: int,
    hop_length: int,
    win_length: int,
    power: float,
    n_iter: int,
    momentum: float,
    length: int | None,
    rand_init: bool,
) -> Tensor:
    """A signal whose STFT magnitude is specgram^(1/power), by fast Griffin-Lim: repeat
    c ← STFT(ISTFT(|S|·e^{iφ})), φ ← angle(c - α·c_prev) with α = momentum/(1+momentum)."""
    if not 0 <= momentum < 1:
        raise ValueError(f"momentum must be in range [0, 1). Found: {momentum}")
    momentum = momentum / (1 + momentum)
    shape = specgram.size()
    specgram = specgram.reshape([-1, *shape[-2:]]).pow(1 / power)
    cdt = _complex_dtype(specgram.dtype)
    if rand_init:
        angles = chainrule.rand(specgram.size(), dtype=cdt)
    else:
        angles = chainrule.full(specgram.size(), 1, dtype=cdt)
    istft_args = {
        "n_fft": n_fft,
        "hop_length": hop_length,
        "win_length": win_length,
        "window": window,
        "length": length,
    }
    previous = chainrule.tensor(0.0, dtype=specgram.dtype)
    for _ in range(n_iter):
        inverse = chainrule.istft(specgram * angles, **istft_args)
        rebuilt = chainrule.stft(
            inverse,
            n_fft=n_fft,
            hop_length=hop_length,
            win_length=win_length,
            window=window,
            center=True,
            pad_mode="reflect",
            normalized=False,
            onesided=True,
            return_complex=True,
        )
        angles = rebuilt
        if momentum:
            angles = angles - previous * momentum
        angles = angles.div(angles.abs().add(1e-16))
        previous = rebuilt
    waveform = chainrule.istft(specgram * angles, **istft_args)
    return waveform.reshape(shape[:-2] + waveform.shape[-1:])


# ----- decibels --------------------------------------------------------------------------


def amplitude_to_DB(  # noqa: N802
    x: Tensor,
    multiplier: float,
    amin: float,
    db_multiplier: float,
    top_db: float | None = None,
) -> Tensor:
    """multiplier·log10(max(x, amin)) - multiplier·db_multiplier; with ``top_db``, floored at
    (the maximum over each (channel, freq, time) item) - top_db."""
    x_db = multiplier * chainrule.log10(chainrule.clamp(x, min=amin))
    x_db = x_db - multiplier * db_multiplier
    if top_db is not None:
        shape = x_db.size()
        channels = shape[-3] if x_db.dim() > 2 else 1
        x_db = x_db.reshape(-1, channels, shape[-2], shape[-1])
        floor = (x_db.amax(dim=(-3, -2, -1)) - top_db).view(-1, 1, 1, 1)
        x_db = chainrule.max(x_db, floor).reshape(shape)
    return x_db


def DB_to_amplitude(x: Tensor, ref: float, power: float) -> Tensor:  # noqa: N802
    """ref · (10^(x/10))^power: power 1 gives power, 0.5 amplitude."""
    return ref * chainrule.pow(chainrule.pow(10.0, 0.1 * x), power)


# ----- filter banks and the DCT ----------------------------------------------------------

_SLANEY_F_SP = 200.0 / 3  # Hz per mel below 1 kHz
_SLANEY_MIN_LOG_HZ = 1000.0
_SLANEY_MIN_LOG_MEL = _SLANEY_MIN_LOG_HZ / _SLANEY_F_SP
_SLANEY_LOGSTEP = math.log(6.4) / 27.0


def _check_mel_scale(mel_scale: str) -> None:
    if mel_scale not in ("slaney", "htk"):
        raise ValueError('mel_scale should be one of "htk" or "slaney".')


def _hz_to_mel(freq: float, mel_scale: str = "htk") -> float:
    """HTK: 2595·log10(1 + f/700); Slaney: f/(200/3) below 1 kHz, logarithmic above."""
    _check_mel_scale(mel_scale)
    if mel_scale == "htk":
        return 2595.0 * math.log10(1.0 + (freq / 700.0))
    if freq >= _SLANEY_MIN_LOG_HZ:
        return _SLANEY_MIN_LOG_MEL + math.log(freq / _SLANEY_MIN_LOG_HZ) / _SLANEY_LOGSTEP
    return freq / _SLANEY_F_SP


def _mel_to_hz(mels: Tensor, mel_scale: str = "htk") -> Tensor:
    """The inverse of :func:`_hz_to_mel`, elementwise. The power and exponential are taken in
    float64 and rounded to the mels' dtype: PyTorch's float32 ``pow``/``exp`` are (nearly
    always) correctly rounded, so this reproduces torchaudio's float32 filter points."""
    _check_mel_scale(mel_scale)
    if mel_scale == "htk":
        scaled = (10.0 ** (mels / 2595.0).to(chainrule.float64)).to(mels.dtype)
        return 700.0 * (scaled - 1.0)
    linear = _SLANEY_F_SP * mels
    exponent = (_SLANEY_LOGSTEP * (mels - _SLANEY_MIN_LOG_MEL)).to(chainrule.float64)
    growth = chainrule.exp(exponent).to(mels.dtype)
    return chainrule.where(mels >= _SLANEY_MIN_LOG_MEL, _SLANEY_MIN_LOG_HZ * growth, linear)


def _triangular_filterbank(all_freqs: Tensor, f_pts: Tensor) -> Tensor:
    """fb[f, m] = max(0, min(rising edge, falling edge)) of the triangle on
    (f_pts[m], f_pts[m+1], f_pts[m+2]): shape (n_freqs, n_filter)."""
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts.unsqueeze(0) - all_freqs.unsqueeze(1)
    down = (-1.0 * slopes[:, :-2]) / f_diff[:-1]
    up = slopes[:, 2:] / f_diff[1:]
    return chainrule.clamp(chainrule.min(down, up), min=0.0)


def melscale_fbanks(
    n_freqs: int,
    f_min: float,
    f_max: float,
    n_mels: int,
    sample_rate: int,
    norm: str | None = None,
    mel_scale: str = "htk",
) -> Tensor:
    """Triangular filters (n_freqs, n_mels) equally spaced on the mel scale between f_min and
    f_max, over the STFT bins linspace(0, sample_rate // 2, n_freqs); ``norm="slaney"``
    scales each by 2/(its width in Hz). ``spec.transpose(-1, -2) @ fb`` applies it."""
    if norm is not None and norm != "slaney":
        raise ValueError('norm must be one of None or "slaney"')
    all_freqs = _linspace(0, sample_rate // 2, n_freqs)
    m_min = _hz_to_mel(f_min, mel_scale=mel_scale)
    m_max = _hz_to_mel(f_max, mel_scale=mel_scale)
    f_pts = _mel_to_hz(_linspace(m_min, m_max, n_mels + 2), mel_scale=mel_scale)
    fb = _triangular_filterbank(all_freqs, f_pts)
    if norm == "slaney":
        fb = fb * (2.0 / (f_pts[2 : n_mels + 2] - f_pts[:n_mels])).unsqueeze(0)
    if bool((fb.max(dim=0).values == 0.0).any()):
        warnings.warn(
            "At least one mel filterbank has all zero values. "
            f"The value for `n_mels` ({n_mels}) may be set too high. "
            f"Or, the value for `n_freqs` ({n_freqs}) may be set too low.",
            stacklevel=2,
        )
    return fb


def linear_fbanks(
    n_freqs: int,
    f_min: float,
    f_max: float,
    n_filter: int,
    sample_rate: int,
) -> Tensor:
    """Triangular filters (n_freqs, n_filter) equally spaced in Hz between f_min and f_max,
    over the STFT bins linspace(0, sample_rate // 2, n_freqs)."""
    all_freqs = _linspace(0, sample_rate // 2, n_freqs)
    f_pts = _linspace(f_min, f_max, n_filter + 2)
    return _triangular_filterbank(all_freqs, f_pts)


def create_dct(n_mfcc: int, n_mels: int, norm: str | None) -> Tensor:
    """The DCT-II matrix (n_mels, n_mfcc): D[n, k] = 2·cos(π/N·(n + ½)·k); with
    ``norm="ortho"`` scaled by √(2/N), and column 0 by a further 1/√2 (orthonormal)."""
    if norm is not None and norm != "ortho":
        raise ValueError('norm must be either "ortho" or None')
    n = chainrule.arange(float(n_mels))
    k = chainrule.arange(float(n_mfcc)).unsqueeze(1)
    angle = math.pi / float(n_mels) * (n + 0.5) * k
    # cos in float64, rounded once: within an ulp of PyTorch's float32 cos
    dct = chainrule.cos(angle.to(chainrule.float64)).to(angle.dtype)
    if norm is None:
        dct = dct * 2.0
    else:
        first = chainrule.ones(n_mfcc, 1, dtype=dct.dtype)
        first[0] = 1.0 / math.sqrt(2.0)
        dct = dct * first * math.sqrt(2.0 / float(n_mels))
    return dct.t()


# ----- phase vocoder and spectral centroid -----------------------------------------------


def phase_vocoder(complex_specgrams: Tensor, rate: float, phase_advance: Tensor) -> Tensor:
    """Stretch a complex STFT (..., freq, frames) in time by 1/rate, keeping pitch: frames at
    t = 0, rate, 2·rate, ... take magnitudes interpolated between frames ⌊t⌋ and ⌊t⌋+1 and
    phases accumulated from the (wrapped) phase differences; ⌈frames/rate⌉ frames out."""
    if rate == 1.0:
        return complex_specgrams
    shape = complex_specgrams.size()
    specs = complex_specgrams.reshape([-1, *shape[-2:]])
    real_dtype = chainrule.real(specs).dtype
    time_steps = chainrule.arange(0, specs.size(-1), rate, dtype=real_dtype)
    alphas = time_steps % 1.0
    phase_0 = specs[..., :1].angle()
    specs = nnf.pad(specs, [0, 2])
    specs_0 = specs.index_select(-1, time_steps.long())
    specs_1 = specs.index_select(-1, (time_steps + 1).long())
    angle_0, angle_1 = specs_0.angle(), specs_1.angle()
    norm_0, norm_1 = specs_0.abs(), specs_1.abs()
    phase = angle_1 - angle_0 - phase_advance
    phase = phase - 2 * math.pi * chainrule.round(phase / (2 * math.pi))
    phase = phase + phase_advance
    phase = chainrule.cat([phase_0, phase[..., :-1]], dim=-1)
    phase_acc = chainrule.cumsum(phase, -1)
    mag = alphas * norm_1 + (1 - alphas) * norm_0
    stretched = chainrule.polar(mag, phase_acc)
    return stretched.reshape(shape[:-2] + stretched.shape[1:])


def spectral_centroid(
    waveform: Tensor,
    sample_rate: int,
    pad: int,
    window: Tensor,
    n_fft: int,
    hop_length: int,
    win_length: int,
) -> Tensor:
    """Σ_f f·|X[f, t]| / Σ_f |X[f, t]| over the bins f = linspace(0, sample_rate // 2):
    the magnitude-weighted mean frequency of each frame, shape (..., time)."""
    specgram = spectrogram(
        waveform,
        pad=pad,
        window=window,
        n_fft=n_fft,
        hop_length=hop_length,
        win_length=win_length,
        power=1.0,
        normalized=False,
    )
    freqs = _linspace(0, sample_rate // 2, 1 + n_fft // 2).reshape((-1, 1))
    return (freqs * specgram).sum(dim=-2) / specgram.sum(dim=-2)


# ----- resampling ------------------------------------------------------------------------

_KAISER_BETA = 14.769656459379492
_RESAMPLING_ALIASES = {
    "sinc_interpolation": "sinc_interp_hann",
    "kaiser_window": "sinc_interp_kaiser",
}


def _get_sinc_resample_kernel(
    orig_freq: int,
    new_freq: int,
    gcd: int,
    lowpass_filter_width: int = 6,
    rolloff: float = 0.99,
    resampling_method: str = "sinc_interp_hann",
    beta: float | None = None,
    device: object = None,
    dtype: chainrule.dtype | None = None,
) -> tuple[Tensor, int]:
    """The windowed-sinc polyphase filters (new, 1, 2·width + orig) (rates divided by gcd):
    k[j, i] = w(t)·sinc(t)·f_c/orig at t = f_c·(i/orig - j/new), f_c = rolloff·min(orig, new),
    t clipped to ±lowpass_filter_width; w a Hann (cos²) or Kaiser window. Computed in
    ``dtype`` (float64 then cast to float32 when None)."""
    if not (int(orig_freq) == orig_freq and int(new_freq) == new_freq):
        raise Exception(
            "Frequencies must be of integer type to ensure quality resampling computation. "
            "To work around this, manually convert both frequencies to integer values "
            "that maintain their resampling rate ratio before passing them into the function. "
            "Example: To downsample a 44100 hz waveform by a factor of 8, use "
            "`orig_freq=8` and `new_freq=1` instead of `orig_freq=44100` and "
            "`new_freq=5512.5`. "
            "For more information, please refer to https://github.com/pytorch/audio/issues/1487."
        )
    if resampling_method in _RESAMPLING_ALIASES:
        warnings.warn(
            f'"{resampling_method}" resampling method name is being deprecated and replaced by '
            f'"{_RESAMPLING_ALIASES[resampling_method]}" in the next release. '
            "The default behavior remains unchanged.",
            stacklevel=3,
        )
    elif resampling_method not in ("sinc_interp_hann", "sinc_interp_kaiser"):
        raise ValueError(f"Invalid resampling method: {resampling_method}")
    orig_freq = int(orig_freq) // gcd
    new_freq = int(new_freq) // gcd
    if lowpass_filter_width <= 0:
        raise ValueError("Low pass filter width should be positive.")
    base_freq = min(orig_freq, new_freq) * rolloff
    width = math.ceil(lowpass_filter_width * orig_freq / base_freq)
    with chainrule.no_grad():
        idx_dtype = dtype if dtype is not None else chainrule.float64
        idx = chainrule.arange(-width, width + orig_freq, dtype=idx_dtype)[None, None] / orig_freq
        t = chainrule.arange(0, -new_freq, -1, dtype=dtype)[:, None, None] / new_freq + idx
        t = (t * base_freq).clamp(-lowpass_filter_width, lowpass_filter_width)
        # as in torchaudio, the deprecated names both give the Kaiser window
        if resampling_method == "sinc_interp_hann":
            window = chainrule.cos(t * math.pi / lowpass_filter_width / 2) ** 2
        else:
            # torchaudio holds beta in a default-dtype (float32) scalar tensor
            b = chainrule.tensor(float(_KAISER_BETA if beta is None else beta))
            window = chainrule.i0(b * chainrule.sqrt(1 - (t / lowpass_filter_width) ** 2))
            window = window / chainrule.i0(b)
        t = t * math.pi
        one = chainrule.ones((), dtype=t.dtype)
        kernels = chainrule.where(t == 0, one, t.sin() / t)
        kernels = kernels * (window * (base_freq / orig_freq))
        if dtype is None:
            kernels = kernels.to(dtype=chainrule.float32)
    return kernels, width


def _apply_sinc_resample_kernel(
    waveform: Tensor,
    orig_freq: int,
    new_freq: int,
    gcd: int,
    kernel: Tensor,
    width: int,
) -> Tensor:
    """Resample (..., time) with the polyphase ``kernel``: a stride-``orig`` convolution of
    the signal zero-padded by (width, width + orig), interleaved, cut to ⌈new·time/orig⌉."""
    if not waveform.is_floating_point():
        raise TypeError(
            f"Expected floating point type for waveform tensor, but received {waveform.dtype}."
        )
    orig_freq = int(orig_freq) // gcd
    new_freq = int(new_freq) // gcd
    shape = waveform.size()
    waveform = waveform.reshape(-1, shape[-1])
    num_wavs, length = waveform.shape
    waveform = nnf.pad(waveform, (width, width + orig_freq))
    resampled = nnf.conv1d(waveform[:, None], kernel, stride=orig_freq)
    resampled = resampled.transpose(1, 2).reshape(num_wavs, -1)
    # torchaudio rounds the target length through a float32 tensor before the ceiling
    target_length = math.ceil(float(np.float32(new_freq * length / orig_freq)))
    resampled = resampled[..., :target_length]
    return resampled.reshape(shape[:-1] + resampled.shape[-1:])


def resample(
    waveform: Tensor,
    orig_freq: int,
    new_freq: int,
    lowpass_filter_width: int = 6,
    rolloff: float = 0.99,
    resampling_method: str = "sinc_interp_hann",
    beta: float | None = None,
) -> Tensor:
    """Band-limited (windowed-sinc) resampling of (..., time) from orig_freq to new_freq
    (the kernel computed in the waveform's dtype)."""
    if orig_freq <= 0.0 or new_freq <= 0.0:
        raise ValueError("Original frequency and desired frequecy should be positive")
    if orig_freq == new_freq:
        return waveform
    gcd = math.gcd(int(orig_freq), int(new_freq))
    kernel, width = _get_sinc_resample_kernel(
        orig_freq,
        new_freq,
        gcd,
        lowpass_filter_width,
        rolloff,
        resampling_method,
        beta,
        waveform.device,
        waveform.dtype,
    )
    return _apply_sinc_resample_kernel(waveform, orig_freq, new_freq, gcd, kernel, width)


# ----- pitch and speed -------------------------------------------------------------------


def _stretch_waveform(
    waveform: Tensor,
    n_steps: float,
    bins_per_octave: int = 12,
    n_fft: int = 512,
    win_length: int | None = None,
    hop_length: int | None = None,
    window: Tensor | None = None,
) -> Tensor:
    """Time-stretch (..., time) by 1/rate, rate = 2^(-n_steps/bins_per_octave), with the phase
    vocoder (STFT, :func:`phase_vocoder`, ISTFT to round(time/rate) samples); (batch, time)."""
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if window is None:
        window = chainrule.hann_window(window_length=win_length)
    shape = waveform.size()
    waveform = waveform.reshape(-1, shape[-1])
    rate = 2.0 ** (-float(n_steps) / bins_per_octave)
    spec = chainrule.stft(
        waveform,
        n_fft=n_fft,
        hop_length=hop_length,
        win_length=win_length,
        window=window,
        center=True,
        pad_mode="reflect",
        normalized=False,
        onesided=True,
        return_complex=True,
    )
    phase_advance = _linspace(0, math.pi * hop_length, spec.shape[-2])[..., None]
    stretched = phase_vocoder(spec, rate, phase_advance)
    return chainrule.istft(
        stretched,
        n_fft=n_fft,
        hop_length=hop_length,
        win_length=win_length,
        window=window,
        length=int(round(shape[-1] / rate)),
    )


def _fix_waveform_shape(waveform_shift: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Cut or zero-pad (batch, time') to the original length; back to the original shape."""
    ori_len = shape[-1]
    shift_len = waveform_shift.size()[-1]
    if shift_len > ori_len:
        waveform_shift = waveform_shift[..., :ori_len]
    else:
        waveform_shift = nnf.pad(waveform_shift, [0, ori_len - shift_len])
    return waveform_shift.reshape(tuple(shape[:-1]) + tuple(waveform_shift.shape[-1:]))


def pitch_shift(
    waveform: Tensor,
    sample_rate: int,
    n_steps: int,
    bins_per_octave: int = 12,
    n_fft: int = 512,
    win_length: int | None = None,
    hop_length: int | None = None,
    window: Tensor | None = None,
) -> Tensor:
    """Shift the pitch of (..., time) by n_steps/bins_per_octave octaves, keeping its length:
    a phase-vocoder time stretch by 2^(n_steps/bins_per_octave), then resampling from
    int(sample_rate/rate) to sample_rate."""
    stretched = _stretch_waveform(
        waveform, n_steps, bins_per_octave, n_fft, win_length, hop_length, window
    )
    rate = 2.0 ** (-float(n_steps) / bins_per_octave)
    shifted = resample(stretched, int(sample_rate / rate), sample_rate)
    return _fix_waveform_shape(shifted, waveform.size())


def _source_target_sample_rate(orig_freq: int, factor: float) -> tuple[int, int]:
    """(int(factor·orig), orig), both divided by their gcd."""
    source = int(factor * orig_freq)
    target = int(orig_freq)
    gcd = math.gcd(source, target)
    return source // gcd, target // gcd


def speed(
    waveform: Tensor,
    orig_freq: int,
    factor: float,
    lengths: Tensor | None = None,
) -> tuple[Tensor, Tensor | None]:
    """Play (..., time) ``factor`` times faster: resample from factor·orig_freq to orig_freq;
    valid ``lengths`` scale to ⌈lengths·target/source⌉."""
    source, target = _source_target_sample_rate(orig_freq, factor)
    out_lengths = None
    if lengths is not None:
        out_lengths = chainrule.ceil(lengths * target / source).to(lengths.dtype)
    return resample(waveform, source, target), out_lengths
