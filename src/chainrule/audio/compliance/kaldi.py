"""``torchaudio.compliance.kaldi``: Kaldi's fbank, mfcc and spectrogram features.

A waveform channel is cut into frames of ``frame_length`` ms every ``frame_shift`` ms
(``snip_edges=False`` reflects the signal at the ends), each frame has its DC removed,
is pre-emphasised (``x[t] - c x[t-1]``), windowed and zero-padded to a power of two;
then the log power spectrum (``spectrogram``), its log mel filter-bank energies
(``fbank``) or their liftered DCT (``mfcc``). The mel scale is Kaldi's
``1127 ln(1 + f / 700)``; VTLN warps the filter-bank frequencies piecewise linearly.
Filter banks, windows and the DCT are built in float32 as Kaldi (and torchaudio) do.
"""

from __future__ import annotations

import math

import numpy as np

import chainrule
from chainrule import Tensor

__all__ = [
    "get_mel_banks",
    "inverse_mel_scale",
    "inverse_mel_scale_scalar",
    "mel_scale",
    "mel_scale_scalar",
    "spectrogram",
    "fbank",
    "mfcc",
    "vtln_warp_freq",
    "vtln_warp_mel_freq",
]

EPSILON = chainrule.tensor(float(np.finfo(np.float32).eps))
MILLISECONDS_TO_SECONDS = 0.001
HAMMING = "hamming"
HANNING = "hanning"
POVEY = "povey"
RECTANGULAR = "rectangular"
BLACKMAN = "blackman"
WINDOWS = [HAMMING, HANNING, POVEY, RECTANGULAR, BLACKMAN]


def _epsilon(like: Tensor) -> Tensor:
    """float32's machine epsilon in ``like``'s dtype (Kaldi's floor of every energy)."""
    return EPSILON.to(device=like.device, dtype=like.dtype)


def _next_power_of_2(x: int) -> int:
    """The smallest power of 2 that is ``>= x`` (1 for 0)."""
    return 1 if x == 0 else 2 ** (x - 1).bit_length()


def _frames(waveform: Tensor, size: int, shift: int, snip_edges: bool) -> Tensor:
    """``(num_frames, size)`` windows every ``shift`` samples of a 1-D waveform.

    With ``snip_edges`` only whole frames inside the signal (``1 + (n - size) // shift``);
    otherwise ``(n + shift // 2) // shift`` frames centred on the shifts, with the
    signal reflected (last sample repeated) outside ``[0, n)``.
    """
    n = waveform.shape[0]
    if snip_edges:
        if n < size:
            return chainrule.empty((0, 0), dtype=waveform.dtype, device=waveform.device)
        count = 1 + (n - size) // shift
    else:
        reverse = waveform.flip(0)
        count = (n + shift // 2) // shift
        pad = size // 2 - shift // 2
        if pad > 0:
            waveform = chainrule.cat((reverse[n - pad :], waveform, reverse), dim=0)
        else:
            waveform = chainrule.cat((waveform[-pad:], reverse), dim=0)
    return waveform.unfold(0, size, shift)[:count]


def _feature_window_function(
    window_type: str, window_size: int, blackman_coeff: float, device, dtype
) -> Tensor:
    """Kaldi's window functions: symmetric Hann / Hamming (0.54, 0.46), Povey
    (Hann^0.85), rectangular, generalized Blackman
    ``c - cos(2 pi k / (N - 1)) / 2 + (1/2 - c) cos(4 pi k / (N - 1))``."""
    if window_type == HANNING:
        return chainrule.hann_window(window_size, periodic=False, device=device, dtype=dtype)
    if window_type == HAMMING:
        return chainrule.hamming_window(
            window_size, periodic=False, alpha=0.54, beta=0.46, device=device, dtype=dtype
        )
    if window_type == POVEY:
        hann = chainrule.hann_window(window_size, periodic=False, device=device, dtype=dtype)
        return hann.pow(0.85)
    if window_type == RECTANGULAR:
        return chainrule.ones(window_size, device=device, dtype=dtype)
    if window_type == BLACKMAN:
        a = 2 * math.pi / (window_size - 1)
        k = chainrule.arange(window_size, device=device, dtype=dtype)
        return (
            blackman_coeff
            - 0.5 * chainrule.cos(a * k)
            + (0.5 - blackman_coeff) * chainrule.cos(2 * a * k)
        )
    raise Exception("Invalid window type " + window_type)


def _log_energy(frames: Tensor, energy_floor: float) -> Tensor:
    """``max(log(max(sum x^2, eps)), log(energy_floor))`` per frame."""
    energy = chainrule.maximum(frames.pow(2).sum(1), _epsilon(frames)).log()
    if energy_floor == 0.0:
        return energy
    floor = chainrule.tensor(math.log(energy_floor), dtype=frames.dtype, device=frames.device)
    return chainrule.maximum(energy, floor)


def _channel_and_sizes(
    waveform: Tensor,
    channel: int,
    sample_frequency: float,
    frame_shift: float,
    frame_length: float,
    round_to_power_of_two: bool,
    preemphasis_coefficient: float,
) -> tuple[Tensor, int, int, int]:
    """The chosen channel and the frame shift, frame size and FFT size in samples."""
    channel = max(channel, 0)
    assert channel < waveform.size(0), f"Invalid channel {channel} for size {waveform.size(0)}"
    waveform = waveform[channel, :]
    window_shift = int(sample_frequency * frame_shift * MILLISECONDS_TO_SECONDS)
    window_size = int(sample_frequency * frame_length * MILLISECONDS_TO_SECONDS)
    padded_window_size = _next_power_of_2(window_size) if round_to_power_of_two else window_size
    assert 2 <= window_size <= len(waveform), (
        f"choose a window size {window_size} that is [2, {len(waveform)}]"
    )
    assert 0 < window_shift, "`window_shift` must be greater than 0"
    assert padded_window_size % 2 == 0, (
        "the padded `window_size` must be divisible by two."
        " use `round_to_power_of_two` or change `frame_length`"
    )
    assert 0.0 <= preemphasis_coefficient <= 1.0, "`preemphasis_coefficient` must be between [0,1]"
    assert sample_frequency > 0, "`sample_frequency` must be greater than zero"
    return waveform, window_shift, window_size, padded_window_size


def _windowed_frames(
    waveform: Tensor,
    padded_window_size: int,
    window_size: int,
    window_shift: int,
    window_type: str,
    blackman_coeff: float,
    snip_edges: bool,
    raw_energy: bool,
    energy_floor: float,
    dither: float,
    remove_dc_offset: bool,
    preemphasis_coefficient: float,
) -> tuple[Tensor, Tensor]:
    """Frames ``(m, padded_window_size)`` ready for the FFT, and their log energies ``(m,)``
    (before pre-emphasis and windowing if ``raw_energy``, else after)."""
    frames = _frames(waveform, window_size, window_shift, snip_edges)
    if dither != 0.0:
        frames = frames + chainrule.randn(frames.shape, dtype=frames.dtype) * dither
    if remove_dc_offset:
        frames = frames - frames.mean(dim=1, keepdim=True)
    if raw_energy:
        log_energy = _log_energy(frames, energy_floor)
    if preemphasis_coefficient != 0.0:
        previous = chainrule.cat((frames[:, :1], frames[:, :-1]), dim=1)
        frames = frames - preemphasis_coefficient * previous
    window = _feature_window_function(
        window_type, window_size, blackman_coeff, frames.device, frames.dtype
    )
    frames = frames * window.unsqueeze(0)
    if padded_window_size != window_size:
        frames = chainrule.nn.functional.pad(frames, (0, padded_window_size - window_size))
    if not raw_energy:
        log_energy = _log_energy(frames, energy_floor)
    return frames, log_energy


def _subtract_column_mean(features: Tensor, subtract_mean: bool) -> Tensor:
    """Cepstral mean normalisation over the frames, if asked."""
    return features - features.mean(dim=0, keepdim=True) if subtract_mean else features


def spectrogram(
    waveform: Tensor,
    blackman_coeff: float = 0.42,
    channel: int = -1,
    dither: float = 0.0,
    energy_floor: float = 1.0,
    frame_length: float = 25.0,
    frame_shift: float = 10.0,
    min_duration: float = 0.0,
    preemphasis_coefficient: float = 0.97,
    raw_energy: bool = True,
    remove_dc_offset: bool = True,
    round_to_power_of_two: bool = True,
    sample_frequency: float = 16000.0,
    snip_edges: bool = True,
    subtract_mean: bool = False,
    window_type: str = POVEY,
) -> Tensor:
    """Kaldi's compute-spectrogram-feats: ``log(max(|rfft(frame)|^2, eps))`` of shape
    ``(m, padded_window_size // 2 + 1)``, whose column 0 is the frame's log energy."""
    waveform, shift, size, padded = _channel_and_sizes(
        waveform,
        channel,
        sample_frequency,
        frame_shift,
        frame_length,
        round_to_power_of_two,
        preemphasis_coefficient,
    )
    if len(waveform) < min_duration * sample_frequency:
        return chainrule.empty(0)
    frames, log_energy = _windowed_frames(
        waveform,
        padded,
        size,
        shift,
        window_type,
        blackman_coeff,
        snip_edges,
        raw_energy,
        energy_floor,
        dither,
        remove_dc_offset,
        preemphasis_coefficient,
    )
    power = chainrule.fft.rfft(frames).abs().pow(2.0)
    power = chainrule.maximum(power, _epsilon(frames)).log()
    power = chainrule.cat((log_energy.unsqueeze(1), power[:, 1:]), dim=1)
    return _subtract_column_mean(power, subtract_mean)


def inverse_mel_scale_scalar(mel_freq: float) -> float:
    """``700 (exp(mel / 1127) - 1)`` Hz."""
    return 700.0 * (math.exp(mel_freq / 1127.0) - 1.0)


def inverse_mel_scale(mel_freq: Tensor) -> Tensor:
    """``700 (exp(mel / 1127) - 1)`` Hz, elementwise."""
    return 700.0 * ((mel_freq / 1127.0).exp() - 1.0)


def mel_scale_scalar(freq: float) -> float:
    """``1127 ln(1 + f / 700)`` mel."""
    return 1127.0 * math.log(1.0 + freq / 700.0)


def mel_scale(freq: Tensor) -> Tensor:
    """``1127 ln(1 + f / 700)`` mel, elementwise."""
    return 1127.0 * (1.0 + freq / 700.0).log()


def vtln_warp_freq(
    vtln_low_cutoff: float,
    vtln_high_cutoff: float,
    low_freq: float,
    high_freq: float,
    vtln_warp_factor: float,
    freq: Tensor,
) -> Tensor:
    """Kaldi's piecewise-linear VTLN warp ``F`` on ``[low_freq, high_freq]``:
    ``F(f) = f / vtln_warp_factor`` between the inflection points
    ``l = vtln_low_cutoff max(1, factor)`` and ``h = vtln_high_cutoff min(1, factor)``,
    linear from ``(low_freq, low_freq)`` to ``(l, F(l))`` and from ``(h, F(h))`` to
    ``(high_freq, high_freq)``; frequencies outside ``[low_freq, high_freq]`` are kept."""
    assert vtln_low_cutoff > low_freq, "be sure to set the vtln_low option higher than low_freq"
    assert vtln_high_cutoff < high_freq, (
        "be sure to set the vtln_high option lower than high_freq [or negative]"
    )
    low = vtln_low_cutoff * max(1.0, vtln_warp_factor)
    high = vtln_high_cutoff * min(1.0, vtln_warp_factor)
    scale = 1.0 / vtln_warp_factor
    warped_low = scale * low
    warped_high = scale * high
    assert low > low_freq and high < high_freq
    scale_left = (warped_low - low_freq) / (low - low_freq)
    scale_right = (high_freq - warped_high) / (high_freq - high)
    result = chainrule.where(
        freq < high, scale * freq, high_freq + scale_right * (freq - high_freq)
    )
    result = chainrule.where(freq < low, low_freq + scale_left * (freq - low_freq), result)
    outside = (freq < low_freq) | (freq > high_freq)
    return chainrule.where(outside, freq, result)


def vtln_warp_mel_freq(
    vtln_low_cutoff: float,
    vtln_high_cutoff: float,
    low_freq: float,
    high_freq: float,
    vtln_warp_factor: float,
    mel_freq: Tensor,
) -> Tensor:
    """:func:`vtln_warp_freq` applied to mel frequencies (through Hz and back)."""
    hz = inverse_mel_scale(mel_freq)
    return mel_scale(
        vtln_warp_freq(vtln_low_cutoff, vtln_high_cutoff, low_freq, high_freq, vtln_warp_factor, hz)
    )


def get_mel_banks(
    num_bins: int,
    window_length_padded: int,
    sample_freq: float,
    low_freq: float,
    high_freq: float,
    vtln_low: float,
    vtln_high: float,
    vtln_warp_factor: float,
) -> tuple[Tensor, Tensor]:
    """Triangular mel filters ``(num_bins, window_length_padded // 2)`` (float32), equally
    spaced in mel between ``low_freq`` and ``high_freq`` (``<= 0``: offset from Nyquist),
    optionally VTLN-warped, and their centre frequencies in Hz ``(num_bins,)``."""
    assert num_bins > 3, "Must have at least 3 mel bins"
    assert window_length_padded % 2 == 0
    num_fft_bins = window_length_padded // 2
    nyquist = 0.5 * sample_freq
    if high_freq <= 0.0:
        high_freq += nyquist
    assert (
        (0.0 <= low_freq < nyquist) and (0.0 < high_freq <= nyquist) and (low_freq < high_freq)
    ), f"Bad values in options: low-freq {low_freq} and high-freq {high_freq} vs. nyquist {nyquist}"
    fft_bin_width = sample_freq / window_length_padded
    mel_low = mel_scale_scalar(low_freq)
    mel_high = mel_scale_scalar(high_freq)
    mel_delta = (mel_high - mel_low) / (num_bins + 1)
    if vtln_high < 0.0:
        vtln_high += nyquist
    assert vtln_warp_factor == 1.0 or (
        (low_freq < vtln_low < high_freq)
        and (0.0 < vtln_high < high_freq)
        and (vtln_low < vtln_high)
    ), (
        f"Bad values in options: vtln-low {vtln_low} and vtln-high {vtln_high}, versus "
        f"low-freq {low_freq} and high-freq {high_freq}"
    )
    index = chainrule.arange(num_bins, dtype=chainrule.float32).unsqueeze(1)
    left = mel_low + index * mel_delta
    center = mel_low + (index + 1.0) * mel_delta
    right = mel_low + (index + 2.0) * mel_delta
    if vtln_warp_factor != 1.0:
        args = (vtln_low, vtln_high, low_freq, high_freq, vtln_warp_factor)
        left = vtln_warp_mel_freq(*args, left)
        center = vtln_warp_mel_freq(*args, center)
        right = vtln_warp_mel_freq(*args, right)
    center_freqs = inverse_mel_scale(center)
    mel = mel_scale(fft_bin_width * chainrule.arange(num_fft_bins, dtype=chainrule.float32))
    mel = mel.unsqueeze(0)
    up_slope = (mel - left) / (center - left)
    down_slope = (right - mel) / (right - center)
    if vtln_warp_factor == 1.0:
        bins = chainrule.clamp(chainrule.minimum(up_slope, down_slope), min=0.0)
    else:
        rising = (mel > left) & (mel <= center)
        falling = (mel > center) & (mel < right)
        bins = chainrule.where(rising, up_slope, chainrule.where(falling, down_slope, 0.0))
    return bins, center_freqs


def fbank(
    waveform: Tensor,
    blackman_coeff: float = 0.42,
    channel: int = -1,
    dither: float = 0.0,
    energy_floor: float = 1.0,
    frame_length: float = 25.0,
    frame_shift: float = 10.0,
    high_freq: float = 0.0,
    htk_compat: bool = False,
    low_freq: float = 20.0,
    min_duration: float = 0.0,
    num_mel_bins: int = 23,
    preemphasis_coefficient: float = 0.97,
    raw_energy: bool = True,
    remove_dc_offset: bool = True,
    round_to_power_of_two: bool = True,
    sample_frequency: float = 16000.0,
    snip_edges: bool = True,
    subtract_mean: bool = False,
    use_energy: bool = False,
    use_log_fbank: bool = True,
    use_power: bool = True,
    vtln_high: float = -500.0,
    vtln_low: float = 100.0,
    vtln_warp: float = 1.0,
    window_type: str = POVEY,
) -> Tensor:
    """Kaldi's compute-fbank-feats: mel filter-bank energies of the frames' power (or
    magnitude) spectra, ``log(max(., eps))`` if ``use_log_fbank``; shape
    ``(m, num_mel_bins + use_energy)``, the log energy first (last if ``htk_compat``)."""
    waveform, shift, size, padded = _channel_and_sizes(
        waveform,
        channel,
        sample_frequency,
        frame_shift,
        frame_length,
        round_to_power_of_two,
        preemphasis_coefficient,
    )
    if len(waveform) < min_duration * sample_frequency:
        return chainrule.empty(0, device=waveform.device, dtype=waveform.dtype)
    frames, log_energy = _windowed_frames(
        waveform,
        padded,
        size,
        shift,
        window_type,
        blackman_coeff,
        snip_edges,
        raw_energy,
        energy_floor,
        dither,
        remove_dc_offset,
        preemphasis_coefficient,
    )
    spectrum = chainrule.fft.rfft(frames).abs()
    if use_power:
        spectrum = spectrum.pow(2.0)
    banks, _ = get_mel_banks(
        num_mel_bins, padded, sample_frequency, low_freq, high_freq, vtln_low, vtln_high, vtln_warp
    )
    banks = chainrule.nn.functional.pad(banks.to(dtype=frames.dtype), (0, 1))  # the Nyquist bin
    energies = chainrule.mm(spectrum, banks.T)
    if use_log_fbank:
        energies = chainrule.maximum(energies, _epsilon(frames)).log()
    if use_energy:
        parts = (energies, log_energy.unsqueeze(1))
        energies = chainrule.cat(parts if htk_compat else parts[::-1], dim=1)
    return _subtract_column_mean(energies, subtract_mean)


def _dct_matrix(num_ceps: int, num_mel_bins: int) -> Tensor:
    """Orthonormal DCT-II basis ``(num_mel_bins, num_ceps)`` in float32, column 0 being
    ``sqrt(1 / num_mel_bins)``."""
    n = np.arange(num_mel_bins, dtype=np.float32)
    k = np.arange(num_mel_bins, dtype=np.float32)[:, None]
    dct = np.cos(np.float32(math.pi / num_mel_bins) * (n + np.float32(0.5)) * k)
    dct = (dct * np.float32(math.sqrt(2.0 / num_mel_bins))).T
    dct[:, 0] = math.sqrt(1 / float(num_mel_bins))
    return chainrule.from_numpy(np.ascontiguousarray(dct[:, :num_ceps]))


def _lifter_coeffs(num_ceps: int, cepstral_lifter: float) -> Tensor:
    """``1 + (L / 2) sin(pi i / L)``, float32."""
    i = np.arange(num_ceps, dtype=np.float32)
    lifter = 1.0 + 0.5 * cepstral_lifter * np.sin(
        np.float32(math.pi) * i / np.float32(cepstral_lifter)
    )
    return chainrule.from_numpy(lifter.astype(np.float32))


def mfcc(
    waveform: Tensor,
    blackman_coeff: float = 0.42,
    cepstral_lifter: float = 22.0,
    channel: int = -1,
    dither: float = 0.0,
    energy_floor: float = 1.0,
    frame_length: float = 25.0,
    frame_shift: float = 10.0,
    high_freq: float = 0.0,
    htk_compat: bool = False,
    low_freq: float = 20.0,
    num_ceps: int = 13,
    min_duration: float = 0.0,
    num_mel_bins: int = 23,
    preemphasis_coefficient: float = 0.97,
    raw_energy: bool = True,
    remove_dc_offset: bool = True,
    round_to_power_of_two: bool = True,
    sample_frequency: float = 16000.0,
    snip_edges: bool = True,
    subtract_mean: bool = False,
    use_energy: bool = False,
    vtln_high: float = -500.0,
    vtln_low: float = 100.0,
    vtln_warp: float = 1.0,
    window_type: str = POVEY,
) -> Tensor:
    """Kaldi's compute-mfcc-feats: the first ``num_ceps`` orthonormal DCT coefficients of
    the log mel energies, liftered by ``1 + (L / 2) sin(pi i / L)``; ``use_energy``
    replaces C0 by the log energy, ``htk_compat`` moves C0 last (scaled by sqrt 2 when
    it is not the energy)."""
    assert num_ceps <= num_mel_bins, (
        f"num_ceps cannot be larger than num_mel_bins: {num_ceps} vs {num_mel_bins}"
    )
    feature = fbank(
        waveform=waveform,
        blackman_coeff=blackman_coeff,
        channel=channel,
        dither=dither,
        energy_floor=energy_floor,
        frame_length=frame_length,
        frame_shift=frame_shift,
        high_freq=high_freq,
        htk_compat=htk_compat,
        low_freq=low_freq,
        min_duration=min_duration,
        num_mel_bins=num_mel_bins,
        preemphasis_coefficient=preemphasis_coefficient,
        raw_energy=raw_energy,
        remove_dc_offset=remove_dc_offset,
        round_to_power_of_two=round_to_power_of_two,
        sample_frequency=sample_frequency,
        snip_edges=snip_edges,
        subtract_mean=False,
        use_energy=use_energy,
        use_log_fbank=True,
        use_power=True,
        vtln_high=vtln_high,
        vtln_low=vtln_low,
        vtln_warp=vtln_warp,
        window_type=window_type,
    )
    dtype = feature.dtype
    if use_energy:
        energy = feature[:, num_mel_bins if htk_compat else 0].unsqueeze(1)
        offset = int(not htk_compat)
        feature = feature[:, offset : num_mel_bins + offset]
    feature = feature.matmul(_dct_matrix(num_ceps, num_mel_bins).to(dtype=dtype))
    if cepstral_lifter != 0.0:
        feature = feature * _lifter_coeffs(num_ceps, cepstral_lifter).unsqueeze(0).to(dtype=dtype)
    if use_energy:
        feature = chainrule.cat((energy, feature[:, 1:]), dim=1)
    if htk_compat:
        c0 = feature[:, :1]
        if not use_energy:
            c0 = c0 * math.sqrt(2)
        feature = chainrule.cat((feature[:, 1:], c0), dim=1)
    return _subtract_column_mean(feature, subtract_mean)
