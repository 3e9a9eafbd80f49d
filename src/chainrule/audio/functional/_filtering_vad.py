"""SoX's voice activity detector (``vad``): trims leading silence.

Every ``1 / measure_freq`` seconds a Hann-windowed frame is measured: its smoothed
magnitude spectrum minus an adaptive noise estimate is lifted to the cepstrum, whose
band power (between ``hp_lifter_freq`` and ``lp_lifter_freq``) gives a level; the
audio is cut where a smoothed level first reaches ``trigger_level``, minus the quieter
bursts found within ``search_time`` before it. The measurements are float32, as in
torchaudio; the result is a slice of the input (differentiable).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from chainrule import Tensor

__all__ = ["vad"]


def _hann(n: int) -> np.ndarray:
    """Periodic Hann window ``sin^2(pi k / n)``, float32."""
    return (0.5 - 0.5 * np.cos(2 * math.pi * np.arange(n) / n)).astype(np.float32)


class _Measurer:
    """The per-channel spectral state and the cepstral level of one frame."""

    def __init__(self, n_channel: int, frame: int, sample_rate: int, opts: dict) -> None:
        self.frame = frame
        dft_len = 16
        while dft_len < frame:
            dft_len *= 2
        self.dft_len = dft_len
        self.spectrum_window = np.float32(2.0 / math.sqrt(frame)) * _hann(frame)
        start = max(int(opts["hp_filter_freq"] / sample_rate * dft_len + 0.5), 1)
        end = min(int(opts["lp_filter_freq"] / sample_rate * dft_len + 0.5), dft_len // 2)
        self.band = (start, end)
        self.cepstrum_window = np.float32(2.0 / math.sqrt(end - start)) * _hann(end - start)
        c_start = math.ceil(sample_rate * 0.5 / opts["lp_lifter_freq"])
        c_end = min(math.floor(sample_rate * 0.5 / opts["hp_lifter_freq"]), dft_len // 4)
        if c_end <= c_start:
            raise ValueError(
                "Expected cepstrum_start to be smaller than cepstrum_end."
                f"Found: cepstrum_start: {c_start}, cepstrum_end: {c_end}."
            )
        self.cepstrum_band = (c_start, c_end)
        freq = opts["measure_freq"]
        self.noise_up = np.float32(math.exp(-1.0 / (opts["noise_up_time"] * freq)))
        self.noise_down = np.float32(math.exp(-1.0 / (opts["noise_down_time"] * freq)))
        self.smooth = math.exp(-1.0 / (opts["measure_smooth_time"] * freq))
        self.reduction = opts["noise_reduction_amount"]
        self.spectrum = np.zeros((n_channel, dft_len), np.float32)
        self.noise = np.zeros((n_channel, dft_len), np.float32)

    def __call__(self, channel: int, samples: np.ndarray, boot_count: int) -> float:
        """The level ``max(0, 21 + log(mean cepstral power))`` of one frame."""
        start, end = self.band
        buf = np.zeros(self.dft_len, np.float32)
        buf[: self.frame] = samples * self.spectrum_window
        magnitude = np.abs(np.fft.rfft(buf)[start:end]).astype(np.float32)
        mult = boot_count / (1.0 + boot_count) if boot_count >= 0 else self.smooth
        spectrum = self.spectrum[channel]
        spectrum[start:end] = spectrum[start:end] * np.float32(mult) + magnitude * np.float32(
            1 - mult
        )
        power = spectrum[start:end] ** 2
        noise = self.noise[channel]
        if boot_count >= 0:
            rate = np.zeros(end - start, np.float32)
        else:
            rate = np.where(power > noise[start:end], self.noise_up, self.noise_down)
        noise[start:end] = noise[start:end] * rate + power * (1 - rate)
        clean = np.sqrt(np.maximum(0, power - np.float32(self.reduction) * noise[start:end]))
        cepstrum = np.zeros(self.dft_len >> 1, np.float32)
        cepstrum[start:end] = clean * self.cepstrum_window
        c_start, c_end = self.cepstrum_band
        lifted = np.fft.rfft(cepstrum)[c_start:c_end]
        result = float(np.sum(np.abs(lifted).astype(np.float32) ** 2, dtype=np.float32))
        result = math.log(result / (c_end - c_start)) if result > 0 else -math.inf
        return max(0, 21 + result)


def vad(
    waveform: Tensor,
    sample_rate: int,
    trigger_level: float = 7.0,
    trigger_time: float = 0.25,
    search_time: float = 1.0,
    allowed_gap: float = 0.25,
    pre_trigger_time: float = 0.0,
    boot_time: float = 0.35,
    noise_up_time: float = 0.1,
    noise_down_time: float = 0.01,
    noise_reduction_amount: float = 1.35,
    measure_freq: float = 20.0,
    measure_duration: float | None = None,
    measure_smooth_time: float = 0.4,
    hp_filter_freq: float = 50.0,
    lp_filter_freq: float = 6000.0,
    hp_lifter_freq: float = 150.0,
    lp_lifter_freq: float = 2000.0,
) -> Tensor:
    """Trim the silence (and quiet background) before the first voice activity of a
    ``(time)`` or ``(channels, time)`` recording (the earliest over the channels)."""
    if waveform.ndim > 2:
        warnings.warn(
            "Expected input tensor dimension of 1 for single channel"
            f" or 2 for multi-channel. Got {waveform.ndim} instead. "
            "Batch semantics is not supported. "
            "Please refer to https://github.com/pytorch/audio/issues/1348"
            " and https://github.com/pytorch/audio/issues/1468.",
            stacklevel=2,
        )
    if measure_duration is None:
        measure_duration = 2.0 / measure_freq
    frame = int(sample_rate * measure_duration + 0.5)
    period = int(sample_rate / measure_freq + 0.5)
    measures_len = math.ceil(search_time * measure_freq)
    gap_len = int(allowed_gap * measure_freq + 0.5)
    fixed_pre_trigger = int(pre_trigger_time * sample_rate + 0.5)
    samples_len = fixed_pre_trigger + measures_len * period + frame
    opts = {
        "hp_filter_freq": hp_filter_freq,
        "lp_filter_freq": lp_filter_freq,
        "hp_lifter_freq": hp_lifter_freq,
        "lp_lifter_freq": lp_lifter_freq,
        "measure_freq": measure_freq,
        "noise_up_time": noise_up_time,
        "noise_down_time": noise_down_time,
        "measure_smooth_time": measure_smooth_time,
        "noise_reduction_amount": noise_reduction_amount,
    }
    shape = waveform.shape
    flat = waveform.reshape(-1, shape[-1])
    n_channel, n_time = flat.shape
    measure = _Measurer(n_channel, frame, sample_rate, opts)
    trigger_mult = math.exp(-1.0 / (trigger_time * measure_freq))
    boot_count_max = int(boot_time * measure_freq - 0.5)
    samples = flat.detach().numpy()
    mean_level = np.zeros(n_channel, np.float32)
    measures = np.zeros((n_channel, measures_len), np.float32)
    boot_count = index = flushed = to_flush = pos = 0
    triggered = False
    for pos in range(frame, n_time, period):
        for c in range(n_channel):
            level = measure(c, samples[c, pos - frame : pos], boot_count)
            measures[c, index] = level
            mean_level[c] = mean_level[c] * np.float32(trigger_mult) + np.float32(
                level * (1.0 - trigger_mult)
            )
            triggered = triggered or bool(mean_level[c] >= trigger_level)
            if triggered:
                to_flush = _flush_count(measures[c], index, trigger_level, gap_len, to_flush)
        index = (index + 1) % measures_len
        if boot_count >= 0:
            boot_count = -1 if boot_count == boot_count_max else boot_count + 1
        if triggered:
            flushed = (measures_len - to_flush) * period
            break
    if not triggered and shape[-1] >= fixed_pre_trigger:
        return flat[:, :fixed_pre_trigger].reshape(tuple(shape[:-1]) + (fixed_pre_trigger,))
    res = flat[:, max(pos - samples_len + flushed, 0) :]
    return res.reshape(tuple(shape[:-1]) + (res.shape[-1],))


def _flush_count(levels: np.ndarray, index: int, trigger: float, gap: int, current: int) -> int:
    """How many measurements before the trigger to keep: walking back from the newest,
    the oldest loud one reached with gaps of at most ``gap`` (stopping at silence)."""
    n = len(levels)
    k = index
    j_trigger = j_zero = n
    j = 0
    for j in range(n):
        if levels[k] >= trigger and j <= j_trigger + gap:
            j_zero = j_trigger = j
        elif levels[k] == 0 and j_trigger >= j_zero:
            j_zero = j
        k = (k + n - 1) % n
    return min(max(current, min(j, j_zero)), n)
