"""torchaudio.transforms's spectral modules (Spectrogram, MelSpectrogram, MFCC, ...): each
holds its window, filter bank, DCT matrix or resampling kernel as a buffer (under
torchaudio's state_dict names) and calls :mod:`chainrule.audio.functional`."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence

import chainrule
from chainrule import Tensor, nn
from chainrule.nn.modules.lazy import LazyModuleMixin
from chainrule.nn.parameter import UninitializedParameter

from ..functional import _spectral as F

__all__ = [
    "AmplitudeToDB",
    "GriffinLim",
    "InverseMelScale",
    "InverseSpectrogram",
    "LFCC",
    "MFCC",
    "MelScale",
    "MelSpectrogram",
    "PitchShift",
    "Resample",
    "SpectralCentroid",
    "Spectrogram",
    "Speed",
    "SpeedPerturbation",
    "TimeStretch",
]


def _window(window_fn: Callable[..., Tensor], win_length: int, wkwargs: dict | None) -> Tensor:
    """window_fn(win_length, **wkwargs)."""
    return window_fn(win_length) if wkwargs is None else window_fn(win_length, **wkwargs)


class Spectrogram(nn.Module):
    """|STFT(x)|^power (complex STFT when power is None); buffer ``window``."""

    __constants__ = ["n_fft", "win_length", "hop_length", "pad", "power", "normalized"]

    def __init__(
        self,
        n_fft: int = 400,
        win_length: int | None = None,
        hop_length: int | None = None,
        pad: int = 0,
        window_fn: Callable[..., Tensor] = chainrule.hann_window,
        power: float | None = 2.0,
        normalized: bool | str = False,
        wkwargs: dict | None = None,
        center: bool = True,
        pad_mode: str = "reflect",
        onesided: bool = True,
        return_complex: bool | None = None,
    ) -> None:
        super().__init__()
        self.n_fft = n_fft
        self.win_length = win_length if win_length is not None else n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 2
        self.register_buffer("window", _window(window_fn, self.win_length, wkwargs))
        self.pad = pad
        self.power = power
        self.normalized = normalized
        self.center = center
        self.pad_mode = pad_mode
        self.onesided = onesided
        if return_complex is not None:
            warnings.warn(
                "`return_complex` argument is now deprecated and is not effective."
                "`torchaudio.transforms.Spectrogram(power=None)` always returns a tensor with "
                "complex dtype. Please remove the argument in the function call.",
                stacklevel=2,
            )

    def forward(self, waveform: Tensor) -> Tensor:
        """(..., time) -> (..., n_fft // 2 + 1, frames)."""
        return F.spectrogram(
            waveform,
            self.pad,
            self.window,
            self.n_fft,
            self.hop_length,
            self.win_length,
            self.power,
            self.normalized,
            self.center,
            self.pad_mode,
            self.onesided,
        )


class InverseSpectrogram(nn.Module):
    """The least-squares signal of a complex spectrogram (ISTFT); buffer ``window``."""

    __constants__ = ["n_fft", "win_length", "hop_length", "pad", "power", "normalized"]

    def __init__(
        self,
        n_fft: int = 400,
        win_length: int | None = None,
        hop_length: int | None = None,
        pad: int = 0,
        window_fn: Callable[..., Tensor] = chainrule.hann_window,
        normalized: bool | str = False,
        wkwargs: dict | None = None,
        center: bool = True,
        pad_mode: str = "reflect",
        onesided: bool = True,
    ) -> None:
        super().__init__()
        self.n_fft = n_fft
        self.win_length = win_length if win_length is not None else n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 2
        self.register_buffer("window", _window(window_fn, self.win_length, wkwargs))
        self.pad = pad
        self.normalized = normalized
        self.center = center
        self.pad_mode = pad_mode
        self.onesided = onesided

    def forward(self, spectrogram: Tensor, length: int | None = None) -> Tensor:
        """(..., freq, frames) complex -> (..., time)."""
        return F.inverse_spectrogram(
            spectrogram,
            length,
            self.pad,
            self.window,
            self.n_fft,
            self.hop_length,
            self.win_length,
            self.normalized,
            self.center,
            self.pad_mode,
            self.onesided,
        )


class GriffinLim(nn.Module):
    """A signal from a magnitude spectrogram by fast Griffin-Lim; buffer ``window``."""

    __constants__ = [
        "n_fft",
        "n_iter",
        "win_length",
        "hop_length",
        "power",
        "length",
        "momentum",
        "rand_init",
    ]

    def __init__(
        self,
        n_fft: int = 400,
        n_iter: int = 32,
        win_length: int | None = None,
        hop_length: int | None = None,
        window_fn: Callable[..., Tensor] = chainrule.hann_window,
        power: float = 2.0,
        wkwargs: dict | None = None,
        momentum: float = 0.99,
        length: int | None = None,
        rand_init: bool = True,
    ) -> None:
        super().__init__()
        if not (0 <= momentum < 1):
            raise ValueError(f"momentum must be in the range [0, 1). Found: {momentum}")
        self.n_fft = n_fft
        self.n_iter = n_iter
        self.win_length = win_length if win_length is not None else n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 2
        self.register_buffer("window", _window(window_fn, self.win_length, wkwargs))
        self.length = length
        self.power = power
        self.momentum = momentum
        self.rand_init = rand_init

    def forward(self, specgram: Tensor) -> Tensor:
        """(..., freq, frames) magnitudes -> (..., time)."""
        return F.griffinlim(
            specgram,
            self.window,
            self.n_fft,
            self.hop_length,
            self.win_length,
            self.power,
            self.n_iter,
            self.momentum,
            self.length,
            self.rand_init,
        )


class AmplitudeToDB(nn.Module):
    """10·log10 (stype "power") or 20·log10 (otherwise) of max(x, 1e-10), optionally
    floored at max - top_db."""

    __constants__ = ["multiplier", "amin", "ref_value", "db_multiplier"]

    def __init__(self, stype: str = "power", top_db: float | None = None) -> None:
        super().__init__()
        self.stype = stype
        if top_db is not None and top_db < 0:
            raise ValueError("top_db must be positive value")
        self.top_db = top_db
        self.multiplier = 10.0 if stype == "power" else 20.0
        self.amin = 1e-10
        self.ref_value = 1.0
        self.db_multiplier = math.log10(max(self.amin, self.ref_value))

    def forward(self, x: Tensor) -> Tensor:
        """x in decibels."""
        return F.amplitude_to_DB(x, self.multiplier, self.amin, self.db_multiplier, self.top_db)


class MelScale(nn.Module):
    """A spectrogram (..., n_stft, time) on the mel scale: specᵀ @ fb; buffer ``fb``."""

    __constants__ = ["n_mels", "sample_rate", "f_min", "f_max", "n_stft"]

    def __init__(
        self,
        n_mels: int = 128,
        sample_rate: int = 16000,
        f_min: float = 0.0,
        f_max: float | None = None,
        n_stft: int = 201,
        norm: str | None = None,
        mel_scale: str = "htk",
    ) -> None:
        super().__init__()
        self.n_mels = n_mels
        self.sample_rate = sample_rate
        self.f_max = f_max if f_max is not None else float(sample_rate // 2)
        self.f_min = f_min
        self.n_stft = n_stft
        self.norm = norm
        self.mel_scale = mel_scale
        if f_min > self.f_max:
            raise ValueError(f"Require f_min: {f_min} <= f_max: {self.f_max}")
        fb = F.melscale_fbanks(n_stft, self.f_min, self.f_max, n_mels, sample_rate, norm, mel_scale)
        self.register_buffer("fb", fb)

    def forward(self, specgram: Tensor) -> Tensor:
        """(..., freq, time) -> (..., n_mels, time)."""
        return chainrule.matmul(specgram.transpose(-1, -2), self.fb).transpose(-1, -2)


class InverseMelScale(nn.Module):
    """A linear-frequency spectrogram from a mel one: relu of the least-squares solution X of
    fbᵀ X = melspec (``torch.linalg.lstsq``); buffer ``fb``."""

    __constants__ = ["n_stft", "n_mels", "sample_rate", "f_min", "f_max"]

    def __init__(
        self,
        n_stft: int,
        n_mels: int = 128,
        sample_rate: int = 16000,
        f_min: float = 0.0,
        f_max: float | None = None,
        norm: str | None = None,
        mel_scale: str = "htk",
        driver: str = "gels",
    ) -> None:
        super().__init__()
        self.n_stft = n_stft
        self.n_mels = n_mels
        self.sample_rate = sample_rate
        self.f_max = f_max or float(sample_rate // 2)
        self.f_min = f_min
        self.norm = norm
        self.mel_scale = mel_scale
        self.driver = driver
        if f_min > self.f_max:
            raise ValueError(f"Require f_min: {f_min} <= f_max: {self.f_max}")
        if driver not in ("gels", "gelsy", "gelsd", "gelss"):
            raise ValueError(
                f'driver must be one of ["gels", "gelsy", "gelsd", "gelss"]. Found {driver}.'
            )
        fb = F.melscale_fbanks(n_stft, self.f_min, self.f_max, n_mels, sample_rate, norm, mel_scale)
        self.register_buffer("fb", fb)

    def forward(self, melspec: Tensor) -> Tensor:
        """(..., n_mels, time) -> (..., n_stft, time)."""
        shape = melspec.size()
        n_mels, time = shape[-2], shape[-1]
        freq = self.fb.size(0)
        if self.n_mels != n_mels:
            raise ValueError(f"Expected an input with {self.n_mels} mel bins. Found: {n_mels}")
        melspec = melspec.reshape(-1, n_mels, time)
        solution = chainrule.linalg.lstsq(
            self.fb.transpose(-1, -2)[None], melspec, driver=self.driver
        ).solution
        return chainrule.relu(solution).reshape(shape[:-2] + (freq, time))


class MelSpectrogram(nn.Module):
    """MelScale(Spectrogram(x)): submodules ``spectrogram`` and ``mel_scale``."""

    __constants__ = ["sample_rate", "n_fft", "win_length", "hop_length", "pad", "n_mels", "f_min"]

    def __init__(
        self,
        sample_rate: int = 16000,
        n_fft: int = 400,
        win_length: int | None = None,
        hop_length: int | None = None,
        f_min: float = 0.0,
        f_max: float | None = None,
        pad: int = 0,
        n_mels: int = 128,
        window_fn: Callable[..., Tensor] = chainrule.hann_window,
        power: float = 2.0,
        normalized: bool = False,
        wkwargs: dict | None = None,
        center: bool = True,
        pad_mode: str = "reflect",
        onesided: bool | None = None,
        norm: str | None = None,
        mel_scale: str = "htk",
    ) -> None:
        super().__init__()
        if onesided is not None:
            warnings.warn(
                "Argument 'onesided' has been deprecated and has no influence on the behavior "
                "of this module.",
                stacklevel=2,
            )
        self.sample_rate = sample_rate
        self.n_fft = n_fft
        self.win_length = win_length if win_length is not None else n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 2
        self.pad = pad
        self.power = power
        self.normalized = normalized
        self.n_mels = n_mels
        self.f_max = f_max
        self.f_min = f_min
        self.spectrogram = Spectrogram(
            n_fft=n_fft,
            win_length=self.win_length,
            hop_length=self.hop_length,
            pad=pad,
            window_fn=window_fn,
            power=power,
            normalized=normalized,
            wkwargs=wkwargs,
            center=center,
            pad_mode=pad_mode,
            onesided=True,
        )
        self.mel_scale = MelScale(
            n_mels, sample_rate, f_min, f_max, n_fft // 2 + 1, norm, mel_scale
        )

    def forward(self, waveform: Tensor) -> Tensor:
        """(..., time) -> (..., n_mels, frames)."""
        return self.mel_scale(self.spectrogram(waveform))


def _cepstrum(specgram: Tensor, dct_mat: Tensor, log: bool, to_db: AmplitudeToDB) -> Tensor:
    """DCTᵀ of log(spec + 1e-6) (``log``) or of spec in dB, along the filter axis."""
    specgram = chainrule.log(specgram + 1e-6) if log else to_db(specgram)
    return chainrule.matmul(specgram.transpose(-1, -2), dct_mat).transpose(-1, -2)


class MFCC(nn.Module):
    """Mel-frequency cepstral coefficients: the DCT-II of the mel spectrogram in dB (top_db
    80) or its log; submodules ``amplitude_to_DB``, ``MelSpectrogram``, buffer ``dct_mat``."""

    __constants__ = ["sample_rate", "n_mfcc", "dct_type", "top_db", "log_mels"]

    def __init__(
        self,
        sample_rate: int = 16000,
        n_mfcc: int = 40,
        dct_type: int = 2,
        norm: str = "ortho",
        log_mels: bool = False,
        melkwargs: dict | None = None,
    ) -> None:
        super().__init__()
        if dct_type not in [2]:
            raise ValueError(f"DCT type not supported: {dct_type}")
        self.sample_rate = sample_rate
        self.n_mfcc = n_mfcc
        self.dct_type = dct_type
        self.norm = norm
        self.top_db = 80.0
        self.amplitude_to_DB = AmplitudeToDB("power", self.top_db)
        self.MelSpectrogram = MelSpectrogram(sample_rate=sample_rate, **(melkwargs or {}))
        if n_mfcc > self.MelSpectrogram.n_mels:
            raise ValueError("Cannot select more MFCC coefficients than # mel bins")
        self.register_buffer("dct_mat", F.create_dct(n_mfcc, self.MelSpectrogram.n_mels, norm))
        self.log_mels = log_mels

    def forward(self, waveform: Tensor) -> Tensor:
        """(..., time) -> (..., n_mfcc, frames)."""
        mel = self.MelSpectrogram(waveform)
        return _cepstrum(mel, self.dct_mat, self.log_mels, self.amplitude_to_DB)


class LFCC(nn.Module):
    """Linear-frequency cepstral coefficients: the DCT-II of the linearly filtered spectrogram
    in dB (top_db 80) or its log; buffers ``filter_mat``, ``dct_mat``."""

    __constants__ = ["sample_rate", "n_filter", "n_lfcc", "dct_type", "top_db", "log_lf"]

    def __init__(
        self,
        sample_rate: int = 16000,
        n_filter: int = 128,
        f_min: float = 0.0,
        f_max: float | None = None,
        n_lfcc: int = 40,
        dct_type: int = 2,
        norm: str = "ortho",
        log_lf: bool = False,
        speckwargs: dict | None = None,
    ) -> None:
        super().__init__()
        if dct_type not in [2]:
            raise ValueError(f"DCT type not supported: {dct_type}")
        self.sample_rate = sample_rate
        self.f_min = f_min
        self.f_max = f_max if f_max is not None else float(sample_rate // 2)
        self.n_filter = n_filter
        self.n_lfcc = n_lfcc
        self.dct_type = dct_type
        self.norm = norm
        self.top_db = 80.0
        self.amplitude_to_DB = AmplitudeToDB("power", self.top_db)
        self.Spectrogram = Spectrogram(**(speckwargs or {}))
        if n_lfcc > self.Spectrogram.n_fft:
            raise ValueError("Cannot select more LFCC coefficients than # fft bins")
        filter_mat = F.linear_fbanks(
            n_freqs=self.Spectrogram.n_fft // 2 + 1,
            f_min=self.f_min,
            f_max=self.f_max,
            n_filter=n_filter,
            sample_rate=sample_rate,
        )
        self.register_buffer("filter_mat", filter_mat)
        self.register_buffer("dct_mat", F.create_dct(n_lfcc, n_filter, norm))
        self.log_lf = log_lf

    def forward(self, waveform: Tensor) -> Tensor:
        """(..., time) -> (..., n_lfcc, frames)."""
        specgram = self.Spectrogram(waveform)
        specgram = chainrule.matmul(specgram.transpose(-1, -2), self.filter_mat)
        specgram = specgram.transpose(-1, -2)
        return _cepstrum(specgram, self.dct_mat, self.log_lf, self.amplitude_to_DB)


class Resample(nn.Module):
    """Band-limited resampling with a cached windowed-sinc kernel (buffer ``kernel``, float32
    unless ``dtype`` is given; none when orig_freq == new_freq)."""

    def __init__(
        self,
        orig_freq: int = 16000,
        new_freq: int = 16000,
        resampling_method: str = "sinc_interp_hann",
        lowpass_filter_width: int = 6,
        rolloff: float = 0.99,
        beta: float | None = None,
        *,
        dtype: chainrule.dtype | None = None,
    ) -> None:
        super().__init__()
        self.orig_freq = orig_freq
        self.new_freq = new_freq
        self.gcd = math.gcd(int(orig_freq), int(new_freq))
        self.resampling_method = resampling_method
        self.lowpass_filter_width = lowpass_filter_width
        self.rolloff = rolloff
        self.beta = beta
        if orig_freq != new_freq:
            kernel, self.width = F._get_sinc_resample_kernel(
                orig_freq,
                new_freq,
                self.gcd,
                lowpass_filter_width,
                rolloff,
                resampling_method,
                beta,
                dtype=dtype,
            )
            self.register_buffer("kernel", kernel)

    def forward(self, waveform: Tensor) -> Tensor:
        """(..., time) at orig_freq -> (..., time') at new_freq."""
        if self.orig_freq == self.new_freq:
            return waveform
        return F._apply_sinc_resample_kernel(
            waveform, self.orig_freq, self.new_freq, self.gcd, self.kernel, self.width
        )


class TimeStretch(nn.Module):
    """Speed a complex STFT up by ``rate`` with the phase vocoder; buffer ``phase_advance``
    = linspace(0, π·hop_length, n_freq)[:, None]."""

    __constants__ = ["fixed_rate"]

    def __init__(
        self, hop_length: int | None = None, n_freq: int = 201, fixed_rate: float | None = None
    ) -> None:
        super().__init__()
        self.fixed_rate = fixed_rate
        n_fft = (n_freq - 1) * 2
        hop_length = hop_length if hop_length is not None else n_fft // 2
        self.register_buffer(
            "phase_advance", F._linspace(0, math.pi * hop_length, n_freq)[..., None]
        )

    def forward(self, complex_specgrams: Tensor, overriding_rate: float | None = None) -> Tensor:
        """(..., freq, frames) -> (..., freq, ⌈frames/rate⌉)."""
        if not chainrule.is_complex(complex_specgrams):
            warnings.warn(
                "The input to TimeStretch must be complex type. "
                "Providing non-complex tensor produces invalid results.",
                stacklevel=4,
            )
        if overriding_rate is None:
            if self.fixed_rate is None:
                raise ValueError(
                    "If no fixed_rate is specified, must pass a valid rate to the forward method."
                )
            rate = self.fixed_rate
        else:
            rate = overriding_rate
        return F.phase_vocoder(complex_specgrams, rate, self.phase_advance)


class SpectralCentroid(nn.Module):
    """The magnitude-weighted mean frequency of each STFT frame; buffer ``window``."""

    __constants__ = ["sample_rate", "n_fft", "win_length", "hop_length", "pad"]

    def __init__(
        self,
        sample_rate: int,
        n_fft: int = 400,
        win_length: int | None = None,
        hop_length: int | None = None,
        pad: int = 0,
        window_fn: Callable[..., Tensor] = chainrule.hann_window,
        wkwargs: dict | None = None,
    ) -> None:
        super().__init__()
        self.sample_rate = sample_rate
        self.n_fft = n_fft
        self.win_length = win_length if win_length is not None else n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 2
        self.register_buffer("window", _window(window_fn, self.win_length, wkwargs))
        self.pad = pad

    def forward(self, waveform: Tensor) -> Tensor:
        """(..., time) -> (..., frames)."""
        return F.spectral_centroid(
            waveform,
            self.sample_rate,
            self.pad,
            self.window,
            self.n_fft,
            self.hop_length,
            self.win_length,
        )


class PitchShift(LazyModuleMixin, nn.Module):
    """Shift the pitch by n_steps/bins_per_octave octaves (phase-vocoder stretch, then
    resampling); buffer ``window`` and the lazy parameter ``kernel``, materialized in the
    first input's dtype."""

    __constants__ = [
        "sample_rate",
        "n_steps",
        "bins_per_octave",
        "n_fft",
        "win_length",
        "hop_length",
    ]

    def __init__(
        self,
        sample_rate: int,
        n_steps: int,
        bins_per_octave: int = 12,
        n_fft: int = 512,
        win_length: int | None = None,
        hop_length: int | None = None,
        window_fn: Callable[..., Tensor] = chainrule.hann_window,
        wkwargs: dict | None = None,
    ) -> None:
        super().__init__()
        self.n_steps = n_steps
        self.bins_per_octave = bins_per_octave
        self.sample_rate = sample_rate
        self.n_fft = n_fft
        self.win_length = win_length if win_length is not None else n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 4
        self.register_buffer("window", _window(window_fn, self.win_length, wkwargs))
        rate = 2.0 ** (-float(n_steps) / bins_per_octave)
        self.orig_freq = int(sample_rate / rate)
        self.gcd = math.gcd(int(self.orig_freq), int(sample_rate))
        if self.orig_freq != sample_rate:
            self.width = -1
            self.kernel = UninitializedParameter(device=None, dtype=None)

    def initialize_parameters(self, input: Tensor) -> None:
        """Build the resampling kernel in the dtype of the first input."""
        if self.has_uninitialized_params() and self.orig_freq != self.sample_rate:
            with chainrule.no_grad():
                kernel, self.width = F._get_sinc_resample_kernel(
                    self.orig_freq, self.sample_rate, self.gcd, dtype=input.dtype
                )
                self.kernel.materialize(kernel.shape)
                self.kernel.copy_(kernel)

    def forward(self, waveform: Tensor) -> Tensor:
        """(..., time) -> (..., time), pitch shifted."""
        shape = waveform.size()
        stretched = F._stretch_waveform(
            waveform,
            self.n_steps,
            self.bins_per_octave,
            self.n_fft,
            self.win_length,
            self.hop_length,
            self.window,
        )
        if self.orig_freq != self.sample_rate:
            stretched = F._apply_sinc_resample_kernel(
                stretched, self.orig_freq, self.sample_rate, self.gcd, self.kernel, self.width
            )
        return F._fix_waveform_shape(stretched, shape)


class Speed(nn.Module):
    """Play ``factor`` times faster by resampling; submodule ``resampler``."""

    def __init__(self, orig_freq: int, factor: float) -> None:
        super().__init__()
        self.orig_freq = orig_freq
        self.factor = factor
        self.source_sample_rate, self.target_sample_rate = F._source_target_sample_rate(
            orig_freq, factor
        )
        self.resampler = Resample(
            orig_freq=self.source_sample_rate, new_freq=self.target_sample_rate
        )

    def forward(
        self, waveform: Tensor, lengths: Tensor | None = None
    ) -> tuple[Tensor, Tensor | None]:
        """(..., time) -> ((..., time'), ⌈lengths·target/source⌉ or None)."""
        out_lengths = None
        if lengths is not None:
            scaled = lengths * self.target_sample_rate / self.source_sample_rate
            out_lengths = chainrule.ceil(scaled).to(lengths.dtype)
        return self.resampler(waveform), out_lengths


class SpeedPerturbation(nn.Module):
    """Speed by a factor drawn uniformly from ``factors`` at each call; ``speeders``."""

    def __init__(self, orig_freq: int, factors: Sequence[float]) -> None:
        super().__init__()
        self.speeders = nn.ModuleList(
            [Speed(orig_freq=orig_freq, factor=factor) for factor in factors]
        )

    def forward(
        self, waveform: Tensor, lengths: Tensor | None = None
    ) -> tuple[Tensor, Tensor | None]:
        """The chosen :class:`Speed`'s output."""
        idx = int(chainrule.randint(len(self.speeders), ()))
        return self.speeders[idx](waveform, lengths)
