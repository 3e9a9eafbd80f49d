"""torchaudio.transforms's modules over the time-domain functions (masks, mu-law, fades,
volume, noise, convolution, emphasis, ...)."""

from __future__ import annotations

import math

import chainrule
from chainrule import Tensor, nn

from .. import functional as F
from ..functional import functional as _time

__all__ = [
    "AddNoise",
    "ComputeDeltas",
    "Convolve",
    "Deemphasis",
    "FFTConvolve",
    "Fade",
    "FrequencyMasking",
    "Loudness",
    "MuLawDecoding",
    "MuLawEncoding",
    "Preemphasis",
    "RNNTLoss",
    "SlidingWindowCmn",
    "SpecAugment",
    "TimeMasking",
    "Vad",
    "Vol",
]


class MuLawEncoding(nn.Module):
    """Mu-law companding to ``quantization_channels`` integer levels
    (:func:`~chainrule.audio.functional.mu_law_encoding`)."""

    __constants__ = ["quantization_channels"]

    def __init__(self, quantization_channels: int = 256) -> None:
        super().__init__()
        self.quantization_channels = quantization_channels

    def forward(self, x: Tensor) -> Tensor:
        """The encoded signal, integers in ``[0, quantization_channels)``."""
        return _time.mu_law_encoding(x, self.quantization_channels)


class MuLawDecoding(nn.Module):
    """Inverse mu-law companding (:func:`~chainrule.audio.functional.mu_law_decoding`)."""

    __constants__ = ["quantization_channels"]

    def __init__(self, quantization_channels: int = 256) -> None:
        super().__init__()
        self.quantization_channels = quantization_channels

    def forward(self, x_mu: Tensor) -> Tensor:
        """The decoded signal in ``[-1, 1]``."""
        return _time.mu_law_decoding(x_mu, self.quantization_channels)


class ComputeDeltas(nn.Module):
    """Delta coefficients along time (:func:`~chainrule.audio.functional.compute_deltas`)."""

    __constants__ = ["win_length"]

    def __init__(self, win_length: int = 5, mode: str = "replicate") -> None:
        super().__init__()
        self.win_length = win_length
        self.mode = mode

    def forward(self, specgram: Tensor) -> Tensor:
        """Deltas of ``(..., freq, time)``, same shape."""
        return _time.compute_deltas(specgram, win_length=self.win_length, mode=self.mode)


class Fade(nn.Module):
    """Multiply the first ``fade_in_len`` samples by a rising ramp and the last
    ``fade_out_len`` by a falling one; ``fade_shape`` picks the ramp (of ``r`` in
    ``[0, 1]``): linear ``r``, exponential ``2^(r-1) r``, logarithmic ``log10(0.1 + r) + 1``,
    quarter sine ``sin(pi r / 2)``, half sine ``(sin(pi r - pi/2) + 1) / 2``."""

    def __init__(
        self, fade_in_len: int = 0, fade_out_len: int = 0, fade_shape: str = "linear"
    ) -> None:
        super().__init__()
        self.fade_in_len = fade_in_len
        self.fade_out_len = fade_out_len
        self.fade_shape = fade_shape

    def forward(self, waveform: Tensor) -> Tensor:
        """The faded ``(..., time)`` waveform."""
        length = waveform.size()[-1]
        return self._fade_in(length) * self._fade_out(length) * waveform

    def _fade_in(self, waveform_length: int) -> Tensor:
        r = chainrule.linspace(0, 1, self.fade_in_len)
        ones = chainrule.ones(waveform_length - self.fade_in_len)
        shape = self.fade_shape
        if shape == "exponential":
            r = chainrule.pow(2, r - 1) * r
        elif shape == "logarithmic":
            r = chainrule.log10(0.1 + r) + 1
        elif shape == "quarter_sine":
            r = chainrule.sin(r * math.pi / 2)
        elif shape == "half_sine":
            r = chainrule.sin(r * math.pi - math.pi / 2) / 2 + 0.5
        return chainrule.cat((r, ones)).clamp(0, 1)

    def _fade_out(self, waveform_length: int) -> Tensor:
        r = chainrule.linspace(0, 1, self.fade_out_len)
        ones = chainrule.ones(waveform_length - self.fade_out_len)
        shape = self.fade_shape
        if shape == "linear":
            r = -r + 1
        elif shape == "exponential":
            r = chainrule.pow(2, -r) * (1 - r)
        elif shape == "logarithmic":
            r = chainrule.log10(1.1 - r) + 1
        elif shape == "quarter_sine":
            r = chainrule.sin(r * math.pi / 2 + math.pi / 2)
        elif shape == "half_sine":
            r = chainrule.sin(r * math.pi + math.pi / 2) / 2 + 0.5
        return chainrule.cat((ones, r)).clamp(0, 1)


class _AxisMasking(nn.Module):
    """Mask a random interval of at most ``mask_param`` columns along ``axis`` (1: frequency,
    2: time, counted for a 3-D input), per example with ``iid_masks``."""

    __constants__ = ["mask_param", "axis", "iid_masks", "p"]

    def __init__(self, mask_param: int, axis: int, iid_masks: bool, p: float = 1.0) -> None:
        super().__init__()
        self.mask_param = mask_param
        self.axis = axis
        self.iid_masks = iid_masks
        self.p = p

    def forward(self, specgram: Tensor, mask_value: float | Tensor = 0.0) -> Tensor:
        """The masked ``(..., freq, time)`` spectrogram."""
        axis = self.axis + specgram.dim() - 3
        if self.iid_masks:
            return _time.mask_along_axis_iid(specgram, self.mask_param, mask_value, axis, p=self.p)
        value = float(mask_value) if isinstance(mask_value, Tensor) else mask_value
        return _time.mask_along_axis(specgram, self.mask_param, value, axis, p=self.p)


class FrequencyMasking(_AxisMasking):
    """SpecAugment's frequency mask: at most ``freq_mask_param`` consecutive bins."""

    def __init__(self, freq_mask_param: int, iid_masks: bool = False) -> None:
        super().__init__(freq_mask_param, 1, iid_masks)


class TimeMasking(_AxisMasking):
    """SpecAugment's time mask: at most ``time_mask_param`` (and at most a fraction ``p``)
    consecutive frames."""

    def __init__(self, time_mask_param: int, iid_masks: bool = False, p: float = 1.0) -> None:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"The value of p must be between 0.0 and 1.0 ({p} given).")
        super().__init__(time_mask_param, 2, iid_masks, p=p)


class SpecAugment(nn.Module):
    """``n_time_masks`` time masks then ``n_freq_masks`` frequency masks, filled with 0
    (``zero_masking``) or the input's mean."""

    __constants__ = [
        "n_time_masks",
        "time_mask_param",
        "n_freq_masks",
        "freq_mask_param",
        "iid_masks",
        "p",
        "zero_masking",
    ]

    def __init__(
        self,
        n_time_masks: int,
        time_mask_param: int,
        n_freq_masks: int,
        freq_mask_param: int,
        iid_masks: bool = True,
        p: float = 1.0,
        zero_masking: bool = False,
    ) -> None:
        super().__init__()
        self.n_time_masks = n_time_masks
        self.time_mask_param = time_mask_param
        self.n_freq_masks = n_freq_masks
        self.freq_mask_param = freq_mask_param
        self.iid_masks = iid_masks
        self.p = p
        self.zero_masking = zero_masking

    def forward(self, specgram: Tensor) -> Tensor:
        """The masked ``(..., freq, time)`` spectrogram."""
        mask_value: float | Tensor = 0.0 if self.zero_masking else specgram.mean()
        time_dim = specgram.dim() - 1
        freq_dim = time_dim - 1
        if specgram.dim() > 2 and self.iid_masks is True:
            mask = _time.mask_along_axis_iid
        else:
            mask = _time.mask_along_axis
        for _ in range(self.n_time_masks):
            specgram = mask(specgram, self.time_mask_param, mask_value, time_dim, p=self.p)
        for _ in range(self.n_freq_masks):
            specgram = mask(specgram, self.freq_mask_param, mask_value, freq_dim, p=self.p)
        return specgram


class Loudness(nn.Module):
    """ITU-R BS.1770-4 loudness in LKFS (:func:`~chainrule.audio.functional.loudness`)."""

    __constants__ = ["sample_rate"]

    def __init__(self, sample_rate: int) -> None:
        super().__init__()
        self.sample_rate = sample_rate

    def forward(self, wavefrom: Tensor) -> Tensor:
        """Loudness of ``(..., channels, time)``."""
        return _time.loudness(wavefrom, self.sample_rate)


class Vol(nn.Module):
    """Scale by ``gain`` (an amplitude ratio, a power ratio, or decibels per ``gain_type``)
    and clamp to ``[-1, 1]``."""

    def __init__(self, gain: float, gain_type: str = "amplitude") -> None:
        super().__init__()
        self.gain = gain
        self.gain_type = gain_type
        if gain_type in ["amplitude", "power"] and gain < 0:
            raise ValueError("If gain_type = amplitude or power, gain must be positive.")

    def forward(self, waveform: Tensor) -> Tensor:
        """``clamp(ratio * waveform, -1, 1)``."""
        if self.gain_type == "amplitude":
            waveform = waveform * self.gain
        elif self.gain_type == "db" and self.gain != 0:
            waveform = waveform * 10 ** (self.gain / 20)
        elif self.gain_type == "power" and self.gain != 1:
            waveform = waveform * 10 ** (10 * math.log10(self.gain) / 20)
        return chainrule.clamp(waveform, -1, 1)


class SlidingWindowCmn(nn.Module):
    """Sliding-window cepstral mean (and variance) normalization
    (:func:`~chainrule.audio.functional.sliding_window_cmn`)."""

    def __init__(
        self,
        cmn_window: int = 600,
        min_cmn_window: int = 100,
        center: bool = False,
        norm_vars: bool = False,
    ) -> None:
        super().__init__()
        self.cmn_window = cmn_window
        self.min_cmn_window = min_cmn_window
        self.center = center
        self.norm_vars = norm_vars

    def forward(self, specgram: Tensor) -> Tensor:
        """The normalized ``(..., time, freq)`` features."""
        return _time.sliding_window_cmn(
            specgram, self.cmn_window, self.min_cmn_window, self.center, self.norm_vars
        )


class Vad(nn.Module):
    """SoX-style voice activity detector that trims leading silence
    (:func:`~chainrule.audio.functional.vad`)."""

    def __init__(
        self,
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
    ) -> None:
        super().__init__()
        self.sample_rate = sample_rate
        self.trigger_level = trigger_level
        self.trigger_time = trigger_time
        self.search_time = search_time
        self.allowed_gap = allowed_gap
        self.pre_trigger_time = pre_trigger_time
        self.boot_time = boot_time
        self.noise_up_time = noise_up_time
        self.noise_down_time = noise_down_time
        self.noise_reduction_amount = noise_reduction_amount
        self.measure_freq = measure_freq
        self.measure_duration = measure_duration
        self.measure_smooth_time = measure_smooth_time
        self.hp_filter_freq = hp_filter_freq
        self.lp_filter_freq = lp_filter_freq
        self.hp_lifter_freq = hp_lifter_freq
        self.lp_lifter_freq = lp_lifter_freq

    def forward(self, waveform: Tensor) -> Tensor:
        """``(channels, time)`` or ``(time)`` trimmed before the first detected activity."""
        return F.vad(
            waveform=waveform,
            sample_rate=self.sample_rate,
            trigger_level=self.trigger_level,
            trigger_time=self.trigger_time,
            search_time=self.search_time,
            allowed_gap=self.allowed_gap,
            pre_trigger_time=self.pre_trigger_time,
            boot_time=self.boot_time,
            noise_up_time=self.noise_up_time,
            noise_down_time=self.noise_down_time,
            noise_reduction_amount=self.noise_reduction_amount,
            measure_freq=self.measure_freq,
            measure_duration=self.measure_duration,
            measure_smooth_time=self.measure_smooth_time,
            hp_filter_freq=self.hp_filter_freq,
            lp_filter_freq=self.lp_filter_freq,
            hp_lifter_freq=self.hp_lifter_freq,
            lp_lifter_freq=self.lp_lifter_freq,
        )


class RNNTLoss(nn.Module):
    """RNN transducer loss (:func:`~chainrule.audio.functional.rnnt_loss`)."""

    def __init__(
        self,
        blank: int = -1,
        clamp: float = -1.0,
        reduction: str = "mean",
        fused_log_softmax: bool = True,
    ) -> None:
        super().__init__()
        self.blank = blank
        self.clamp = clamp
        self.reduction = reduction
        self.fused_log_softmax = fused_log_softmax

    def forward(
        self,
        logits: Tensor,
        targets: Tensor,
        logit_lengths: Tensor,
        target_lengths: Tensor,
    ) -> Tensor:
        """The reduced loss of ``logits`` ``(batch, time, target + 1, class)``."""
        return _time.rnnt_loss(
            logits,
            targets,
            logit_lengths,
            target_lengths,
            self.blank,
            self.clamp,
            self.reduction,
            self.fused_log_softmax,
        )


class Convolve(nn.Module):
    """True convolution along the last axis, directly
    (:func:`~chainrule.audio.functional.convolve`)."""

    def __init__(self, mode: str = "full") -> None:
        _time._check_convolve_mode(mode)
        super().__init__()
        self.mode = mode

    def forward(self, x: Tensor, y: Tensor) -> Tensor:
        """``x * y`` cut to ``mode``."""
        return _time.convolve(x, y, mode=self.mode)


class FFTConvolve(nn.Module):
    """True convolution along the last axis via FFT
    (:func:`~chainrule.audio.functional.fftconvolve`)."""

    def __init__(self, mode: str = "full") -> None:
        _time._check_convolve_mode(mode)
        super().__init__()
        self.mode = mode

    def forward(self, x: Tensor, y: Tensor) -> Tensor:
        """``x * y`` cut to ``mode``."""
        return _time.fftconvolve(x, y, mode=self.mode)


class AddNoise(nn.Module):
    """Add noise scaled to a signal-to-noise ratio (:func:`~chainrule.audio.functional.add_noise`)."""

    def forward(
        self, waveform: Tensor, noise: Tensor, snr: Tensor, lengths: Tensor | None = None
    ) -> Tensor:
        """``waveform + a * noise`` with ``a`` set by ``snr`` (dB)."""
        return _time.add_noise(waveform, noise, snr, lengths)


class Preemphasis(nn.Module):
    """``y[i] = x[i] - coeff x[i-1]`` (:func:`~chainrule.audio.functional.preemphasis`)."""

    def __init__(self, coeff: float = 0.97) -> None:
        super().__init__()
        self.coeff = coeff

    def forward(self, waveform: Tensor) -> Tensor:
        """The pre-emphasized ``(..., N)`` waveform."""
        return _time.preemphasis(waveform, coeff=self.coeff)


class Deemphasis(nn.Module):
    """``y[i] = x[i] + coeff y[i-1]`` (:func:`~chainrule.audio.functional.deemphasis`)."""

    def __init__(self, coeff: float = 0.97) -> None:
        super().__init__()
        self.coeff = coeff

    def forward(self, waveform: Tensor) -> Tensor:
        """The de-emphasized ``(..., N)`` waveform."""
        return _time.deemphasis(waveform, coeff=self.coeff)
