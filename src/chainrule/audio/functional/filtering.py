"""torchaudio.functional's IIR filters and sound effects (lfilter, biquads, ...).

The biquads are second-order sections ``H(z) = (b0 + b1 z^-1 + b2 z^-2) /
(a0 + a1 z^-1 + a2 z^-2)`` designed as in the Audio EQ Cookbook / SoX, with
``w0 = 2 pi f0 / sample_rate`` and ``alpha = sin(w0) / (2 Q)``; frequencies, Q and
gains may be tensors (the result is differentiable in them).
"""

from __future__ import annotations

import math

import chainrule
from chainrule import Tensor

from ._filtering_effects import contrast, dcshift, dither, flanger, gain, overdrive, phaser
from ._filtering_lfilter import filtfilt, lfilter
from ._filtering_vad import vad

__all__ = [
    "allpass_biquad",
    "band_biquad",
    "bandpass_biquad",
    "bandreject_biquad",
    "bass_biquad",
    "biquad",
    "contrast",
    "dcshift",
    "deemph_biquad",
    "dither",
    "equalizer_biquad",
    "filtfilt",
    "flanger",
    "gain",
    "highpass_biquad",
    "lfilter",
    "lowpass_biquad",
    "overdrive",
    "phaser",
    "riaa_biquad",
    "treble_biquad",
    "vad",
]


def _as(value: float | Tensor, like: Tensor) -> Tensor:
    """``value`` as a tensor of ``like``'s dtype (keeps the autograd graph of a tensor)."""
    return chainrule.as_tensor(value, dtype=like.dtype, device=like.device)


def _w0_alpha(waveform: Tensor, sample_rate: int, freq: float, Q: float) -> tuple[Tensor, Tensor]:
    """``w0 = 2 pi f / sample_rate`` and ``alpha = sin(w0) / (2 Q)``."""
    w0 = 2 * math.pi * _as(freq, waveform) / sample_rate
    return w0, chainrule.sin(w0) / 2 / _as(Q, waveform)


def biquad(
    waveform: Tensor, b0: float, b1: float, b2: float, a0: float, a1: float, a2: float
) -> Tensor:
    """Second-order IIR filter ``(b0 + b1 z^-1 + b2 z^-2) / (a0 + a1 z^-1 + a2 z^-2)``,
    zero initial state, output clamped to ``[-1, 1]``."""
    coeffs = [_as(c, waveform).reshape(1) for c in (b0, b1, b2, a0, a1, a2)]
    return lfilter(waveform, chainrule.cat(coeffs[3:]), chainrule.cat(coeffs[:3]))


def allpass_biquad(
    waveform: Tensor, sample_rate: int, central_freq: float, Q: float = 0.707
) -> Tensor:
    """All-pass: ``b = (1 - alpha, -2 cos w0, 1 + alpha)``, ``a = (1 + alpha, -2 cos w0, 1 - alpha)``."""
    w0, alpha = _w0_alpha(waveform, sample_rate, central_freq, Q)
    cos = -2 * chainrule.cos(w0)
    return biquad(waveform, 1 - alpha, cos, 1 + alpha, 1 + alpha, cos, 1 - alpha)


def band_biquad(
    waveform: Tensor,
    sample_rate: int,
    central_freq: float,
    Q: float = 0.707,
    noise: bool = False,
) -> Tensor:
    """SoX's two-pole band filter: poles from the bandwidth ``central_freq / Q``,
    ``a2 = exp(-2 pi bw / sr)``, ``a1 = -4 a2 cos(w0) / (1 + a2)``; ``noise`` rescales
    the gain for un-pitched audio."""
    freq = _as(central_freq, waveform)
    w0 = 2 * math.pi * freq / sample_rate
    bandwidth = freq / _as(Q, waveform)
    a2 = chainrule.exp(-2 * math.pi * bandwidth / sample_rate)
    a1 = -4 * a2 / (1 + a2) * chainrule.cos(w0)
    b0 = chainrule.sqrt(1 - a1 * a1 / (4 * a2)) * (1 - a2)
    if noise:
        b0 = chainrule.sqrt(((1 + a2) * (1 + a2) - a1 * a1) * (1 - a2) / (1 + a2))
    return biquad(waveform, b0, 0.0, 0.0, 1.0, a1, a2)


def bandpass_biquad(
    waveform: Tensor,
    sample_rate: int,
    central_freq: float,
    Q: float = 0.707,
    const_skirt_gain: bool = False,
) -> Tensor:
    """Band-pass: ``b = (g, 0, -g)`` with ``g = alpha`` (0 dB peak) or ``sin(w0) / 2``
    (constant skirt gain), ``a = (1 + alpha, -2 cos w0, 1 - alpha)``."""
    w0, alpha = _w0_alpha(waveform, sample_rate, central_freq, Q)
    g = chainrule.sin(w0) / 2 if const_skirt_gain else alpha
    return biquad(waveform, g, 0.0, -g, 1 + alpha, -2 * chainrule.cos(w0), 1 - alpha)


def bandreject_biquad(
    waveform: Tensor, sample_rate: int, central_freq: float, Q: float = 0.707
) -> Tensor:
    """Notch: ``b = (1, -2 cos w0, 1)``, ``a = (1 + alpha, -2 cos w0, 1 - alpha)``."""
    w0, alpha = _w0_alpha(waveform, sample_rate, central_freq, Q)
    cos = -2 * chainrule.cos(w0)
    return biquad(waveform, 1.0, cos, 1.0, 1 + alpha, cos, 1 - alpha)


def _shelf(waveform: Tensor, sample_rate: int, gain: float, freq: float, Q: float, sign: int):
    """Shelving filter coefficients with ``A = 10^(gain / 40)``; ``sign = -1`` gives the
    low shelf (bass), ``+1`` the high shelf (treble)."""
    w0, alpha = _w0_alpha(waveform, sample_rate, freq, Q)
    A = chainrule.exp(_as(gain, waveform) / 40 * math.log(10))
    t1 = 2 * chainrule.sqrt(A) * alpha
    t2 = sign * (A - 1) * chainrule.cos(w0)
    t3 = (A + 1) * chainrule.cos(w0)
    b0 = A * ((A + 1) + t2 + t1)
    b1 = -2 * sign * A * ((A - 1) + sign * t3)
    b2 = A * ((A + 1) + t2 - t1)
    a0 = (A + 1) - t2 + t1
    a1 = 2 * sign * ((A - 1) - sign * t3)
    a2 = (A + 1) - t2 - t1
    return b0, b1, b2, a0, a1, a2


def bass_biquad(
    waveform: Tensor,
    sample_rate: int,
    gain: float,
    central_freq: float = 100,
    Q: float = 0.707,
) -> Tensor:
    """Low-shelf tone control: boost (or cut) by ``gain`` dB below ``central_freq``."""
    b0, b1, b2, a0, a1, a2 = _shelf(waveform, sample_rate, gain, central_freq, Q, -1)
    return biquad(waveform, b0 / a0, b1 / a0, b2 / a0, a0 / a0, a1 / a0, a2 / a0)


def treble_biquad(
    waveform: Tensor,
    sample_rate: int,
    gain: float,
    central_freq: float = 3000,
    Q: float = 0.707,
) -> Tensor:
    """High-shelf tone control: boost (or cut) by ``gain`` dB above ``central_freq``."""
    return biquad(waveform, *_shelf(waveform, sample_rate, gain, central_freq, Q, 1))


def deemph_biquad(waveform: Tensor, sample_rate: int) -> Tensor:
    """ISO 908 CD de-emphasis: a high shelf of about -9.5 dB above about 5.3 kHz
    (defined for 44100 and 48000 Hz)."""
    if sample_rate == 44100:
        central_freq, width_slope, gain = 5283, 0.4845, -9.477
    elif sample_rate == 48000:
        central_freq, width_slope, gain = 5356, 0.479, -9.62
    else:
        raise ValueError("Sample rate must be 44100 (audio-CD) or 48000 (DAT)")
    w0 = 2 * math.pi * central_freq / sample_rate
    A = math.exp(gain / 40.0 * math.log(10))
    alpha = math.sin(w0) / 2 * math.sqrt((A + 1 / A) * (1 / width_slope - 1) + 2)
    t1 = 2 * math.sqrt(A) * alpha
    t2 = (A - 1) * math.cos(w0)
    t3 = (A + 1) * math.cos(w0)
    return biquad(
        waveform,
        A * ((A + 1) + t2 + t1),
        -2 * A * ((A - 1) + t3),
        A * ((A + 1) + t2 - t1),
        (A + 1) - t2 + t1,
        2 * ((A - 1) - t3),
        (A + 1) - t2 - t1,
    )


def equalizer_biquad(
    waveform: Tensor,
    sample_rate: int,
    center_freq: float,
    gain: float,
    Q: float = 0.707,
) -> Tensor:
    """Peaking EQ: ``b = (1 + alpha A, -2 cos w0, 1 - alpha A)``,
    ``a = (1 + alpha / A, -2 cos w0, 1 - alpha / A)``, ``A = 10^(gain / 40)``."""
    w0, alpha = _w0_alpha(waveform, sample_rate, center_freq, Q)
    A = chainrule.exp(_as(gain, waveform) / 40.0 * math.log(10))
    cos = -2 * chainrule.cos(w0)
    return biquad(waveform, 1 + alpha * A, cos, 1 - alpha * A, 1 + alpha / A, cos, 1 - alpha / A)


def highpass_biquad(
    waveform: Tensor, sample_rate: int, cutoff_freq: float, Q: float = 0.707
) -> Tensor:
    """High-pass: ``b = ((1 + cos w0) / 2, -(1 + cos w0), (1 + cos w0) / 2)``,
    ``a = (1 + alpha, -2 cos w0, 1 - alpha)``."""
    w0, alpha = _w0_alpha(waveform, sample_rate, cutoff_freq, Q)
    cos = chainrule.cos(w0)
    b0 = (1 + cos) / 2
    return biquad(waveform, b0, -1 - cos, b0, 1 + alpha, -2 * cos, 1 - alpha)


def lowpass_biquad(
    waveform: Tensor, sample_rate: int, cutoff_freq: float, Q: float = 0.707
) -> Tensor:
    """Low-pass: ``b = ((1 - cos w0) / 2, 1 - cos w0, (1 - cos w0) / 2)``,
    ``a = (1 + alpha, -2 cos w0, 1 - alpha)``."""
    w0, alpha = _w0_alpha(waveform, sample_rate, cutoff_freq, Q)
    cos = chainrule.cos(w0)
    b0 = (1 - cos) / 2
    return biquad(waveform, b0, 1 - cos, b0, 1 + alpha, -2 * cos, 1 - alpha)


# RIAA playback curve: (zeros, poles) of the bilinear-transformed filter per sample rate.
_RIAA = {
    44100: ((-0.2014898, 0.9233820), (0.7083149, 0.9924091)),
    48000: ((-0.1766069, 0.9321590), (0.7396325, 0.9931330)),
    88200: ((-0.1168735, 0.9648312), (0.8590646, 0.9964002)),
    96000: ((-0.1141486, 0.9676817), (0.8699137, 0.9966946)),
}


def riaa_biquad(waveform: Tensor, sample_rate: int) -> Tensor:
    """RIAA vinyl playback equalisation, normalised to 0 dB at 1 kHz."""
    if sample_rate not in _RIAA:
        raise ValueError("Sample rate must be 44.1k, 48k, 88.2k, or 96k")
    (z0, z1), (p0, p1) = _RIAA[sample_rate]
    b = [1.0, -(z0 + z1), z0 * z1]
    a = [1.0, -(p0 + p1), p0 * p1]
    y = 2 * math.pi * 1000 / sample_rate  # |H(e^{iy})| is scaled to 1
    b_re = b[0] + b[1] * math.cos(-y) + b[2] * math.cos(-2 * y)
    a_re = a[0] + a[1] * math.cos(-y) + a[2] * math.cos(-2 * y)
    b_im = b[1] * math.sin(-y) + b[2] * math.sin(-2 * y)
    a_im = a[1] * math.sin(-y) + a[2] * math.sin(-2 * y)
    g = 1 / math.sqrt((b_re**2 + b_im**2) / (a_re**2 + a_im**2))
    return biquad(waveform, b[0] * g, b[1] * g, b[2] * g, a[0], a[1], a[2])
