"""The Tacotron2 bundles trained on LJSpeech: character or phoneme input, WaveRNN or
Griffin-Lim vocoder."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import chainrule
from chainrule import Tensor, hub, nn
from chainrule.audio.functional import mu_law_decoding
from chainrule.audio.models import Tacotron2, WaveRNN
from chainrule.audio.transforms import GriffinLim, InverseMelScale

from . import utils
from .interface import Tacotron2TTSBundle

__all__: list[str] = []

_BASE_URL = "https://download.pytorch.org/torchaudio/models"


def _load_pretrained(model: nn.Module, path: str, dl_kwargs: dict[str, Any] | None) -> None:
    """Load ``<_BASE_URL>/<path>`` (via the hub cache) into ``model`` and set eval mode."""
    url = f"{_BASE_URL}/{path}"
    model.load_state_dict(hub.load_state_dict_from_url(url, **(dl_kwargs or {})))
    model.eval()


# ---------------------------------------------------------------------------------------
# Text processors
# ---------------------------------------------------------------------------------------
class _EnglishCharProcessor(Tacotron2TTSBundle.TextProcessor):
    """Lower-cased characters to ids; characters outside the set are dropped."""

    def __init__(self) -> None:
        super().__init__()
        self._tokens = utils._get_chars()
        self._mapping = {s: i for i, s in enumerate(self._tokens)}

    @property
    def tokens(self) -> tuple[str, ...]:
        """The character each id stands for."""
        return self._tokens

    def __call__(self, texts: str | list[str]) -> tuple[Tensor, Tensor]:
        """Padded ids and lengths of the text(s)."""
        if isinstance(texts, str):
            texts = [texts]
        indices = [[self._mapping[c] for c in t.lower() if c in self._mapping] for t in texts]
        return utils._to_tensor(indices)


class _EnglishPhoneProcessor(Tacotron2TTSBundle.TextProcessor):
    """Text to ARPAbet phonemes with DeepPhonemizer's CMUdict model, then to ids."""

    def __init__(self, *, dl_kwargs: dict[str, Any] | None = None) -> None:
        super().__init__()
        self._tokens = utils._get_phones()
        self._mapping = {p: i for i, p in enumerate(self._tokens)}
        self._phonemizer = utils._load_phonemizer("en_us_cmudict_forward.pt", dl_kwargs=dl_kwargs)
        # a phoneme in brackets, or one punctuation/space symbol
        self._pattern = r"(\[[A-Z]+?\]|[_!'(),.:;? -])"

    @property
    def tokens(self) -> tuple[str, ...]:
        """The phoneme each id stands for."""
        return self._tokens

    def __call__(self, texts: str | list[str]) -> tuple[Tensor, Tensor]:
        """Padded ids and lengths of the phonemised text(s)."""
        if isinstance(texts, str):
            texts = [texts]
        indices = []
        for phones in self._phonemizer(texts, lang="en_us"):
            symbols = [re.sub(r"[\[\]]", "", s) for s in re.findall(self._pattern, phones)]
            indices.append([self._mapping[s] for s in symbols])
        return utils._to_tensor(indices)


# ---------------------------------------------------------------------------------------
# Vocoders
# ---------------------------------------------------------------------------------------
class _WaveRNNVocoder(nn.Module, Tacotron2TTSBundle.Vocoder):
    """WaveRNN on Tacotron2's natural-log mel spectrogram, rescaled to WaveRNN's input:
    ``clamp((min_db - 20 log10(max(exp(m), 1e-5))) / min_db, 0, 1)``; its labels are
    mu-law decoded."""

    def __init__(self, model: WaveRNN, min_level_db: float | None = -100) -> None:
        super().__init__()
        self._sample_rate = 22050
        self._model = model
        self._min_level_db = min_level_db

    @property
    def sample_rate(self) -> int:
        """22050 Hz (LJSpeech)."""
        return self._sample_rate

    def forward(
        self, mel_spec: Tensor, lengths: Tensor | None = None
    ) -> tuple[Tensor, Tensor | None]:
        """``(waveforms (batch, time), lengths)`` generated sample by sample."""
        mel_spec = chainrule.exp(mel_spec)
        mel_spec = 20 * chainrule.log10(chainrule.clamp(mel_spec, min=1e-5))
        if self._min_level_db is not None:
            mel_spec = (self._min_level_db - mel_spec) / self._min_level_db
            mel_spec = chainrule.clamp(mel_spec, min=0, max=1)
        waveform, lengths = self._model.infer(mel_spec, lengths)
        waveform = utils._unnormalize_waveform(waveform, self._model.n_bits)
        waveform = mu_law_decoding(waveform, self._model.n_classes)
        return waveform.squeeze(1), lengths


class _GriffinLimVocoder(nn.Module, Tacotron2TTSBundle.Vocoder):
    """Griffin-Lim on the linear magnitude recovered from ``exp`` of the mel spectrogram
    (80 Slaney mels up to 8 kHz, n_fft 1024, hop 256)."""

    def __init__(self) -> None:
        super().__init__()
        self._sample_rate = 22050
        self._inv_mel = InverseMelScale(
            n_stft=(1024 // 2 + 1),
            n_mels=80,
            sample_rate=self.sample_rate,
            f_min=0.0,
            f_max=8000.0,
            mel_scale="slaney",
            norm="slaney",
        )
        self._griffin_lim = GriffinLim(n_fft=1024, power=1, hop_length=256, win_length=1024)

    @property
    def sample_rate(self) -> int:
        """22050 Hz (LJSpeech)."""
        return self._sample_rate

    def forward(
        self, mel_spec: Tensor, lengths: Tensor | None = None
    ) -> tuple[Tensor, Tensor | None]:
        """``(waveforms, lengths)``; no gradient flows back to ``mel_spec``."""
        mel_spec = chainrule.exp(mel_spec).clone().detach().requires_grad_(True)
        spec = self._inv_mel(mel_spec).detach().requires_grad_(False)
        return self._griffin_lim(spec), lengths


# ---------------------------------------------------------------------------------------
# Bundle parts
# ---------------------------------------------------------------------------------------
class _CharMixin:
    def get_text_processor(self) -> Tacotron2TTSBundle.TextProcessor:
        """The character processor."""
        return _EnglishCharProcessor()


class _PhoneMixin:
    def get_text_processor(
        self, *, dl_kwargs: dict[str, Any] | None = None
    ) -> Tacotron2TTSBundle.TextProcessor:
        """The phoneme processor (needs DeepPhonemizer)."""
        return _EnglishPhoneProcessor(dl_kwargs=dl_kwargs)


@dataclass
class _Tacotron2Mixin:
    _tacotron2_path: str
    _tacotron2_params: dict[str, Any]

    def get_tacotron2(self, *, dl_kwargs: dict[str, Any] | None = None) -> Tacotron2:
        """``Tacotron2(**_tacotron2_params)`` with the pretrained weights, in eval mode."""
        model = Tacotron2(**self._tacotron2_params)
        _load_pretrained(model, self._tacotron2_path, dl_kwargs)
        return model


@dataclass
class _WaveRNNMixin:
    _wavernn_path: str | None
    _wavernn_params: dict[str, Any] | None

    def get_vocoder(self, *, dl_kwargs: dict[str, Any] | None = None) -> _WaveRNNVocoder:
        """The pretrained WaveRNN as a vocoder."""
        return _WaveRNNVocoder(self._get_wavernn(dl_kwargs=dl_kwargs))

    def _get_wavernn(self, *, dl_kwargs: dict[str, Any] | None = None) -> WaveRNN:
        """``WaveRNN(**_wavernn_params)`` with the pretrained weights, in eval mode."""
        model = WaveRNN(**self._wavernn_params)
        _load_pretrained(model, self._wavernn_path, dl_kwargs)
        return model


class _GriffinLimMixin:
    def get_vocoder(self, **_: Any) -> _GriffinLimVocoder:
        """The Griffin-Lim vocoder (nothing to download)."""
        return _GriffinLimVocoder()


@dataclass
class _Tacotron2WaveRNNCharBundle(_WaveRNNMixin, _Tacotron2Mixin, _CharMixin, Tacotron2TTSBundle):
    pass


@dataclass
class _Tacotron2WaveRNNPhoneBundle(_WaveRNNMixin, _Tacotron2Mixin, _PhoneMixin, Tacotron2TTSBundle):
    pass


@dataclass
class _Tacotron2GriffinLimCharBundle(
    _GriffinLimMixin, _Tacotron2Mixin, _CharMixin, Tacotron2TTSBundle
):
    pass


@dataclass
class _Tacotron2GriffinLimPhoneBundle(
    _GriffinLimMixin, _Tacotron2Mixin, _PhoneMixin, Tacotron2TTSBundle
):
    pass


TACOTRON2_GRIFFINLIM_CHAR_LJSPEECH = _Tacotron2GriffinLimCharBundle(
    _tacotron2_path="tacotron2_english_characters_1500_epochs_ljspeech.pth",
    _tacotron2_params=utils._get_taco_params(n_symbols=38),
)
TACOTRON2_GRIFFINLIM_CHAR_LJSPEECH.__doc__ = """Character-based Tacotron2 trained on LJSpeech
for 1,500 epochs, with Griffin-Lim as vocoder."""

TACOTRON2_GRIFFINLIM_PHONE_LJSPEECH = _Tacotron2GriffinLimPhoneBundle(
    _tacotron2_path="tacotron2_english_phonemes_1500_epochs_ljspeech.pth",
    _tacotron2_params=utils._get_taco_params(n_symbols=96),
)
TACOTRON2_GRIFFINLIM_PHONE_LJSPEECH.__doc__ = """Phoneme-based Tacotron2 (DeepPhonemizer,
CMUdict) trained on LJSpeech for 1,500 epochs, with Griffin-Lim as vocoder."""

TACOTRON2_WAVERNN_CHAR_LJSPEECH = _Tacotron2WaveRNNCharBundle(
    _tacotron2_path="tacotron2_english_characters_1500_epochs_wavernn_ljspeech.pth",
    _tacotron2_params=utils._get_taco_params(n_symbols=38),
    _wavernn_path="wavernn_10k_epochs_8bits_ljspeech.pth",
    _wavernn_params=utils._get_wrnn_params(),
)
TACOTRON2_WAVERNN_CHAR_LJSPEECH.__doc__ = """Character-based Tacotron2 trained on LJSpeech
for 1,500 epochs, with an 8-bit WaveRNN vocoder trained on LJSpeech for 10,000 epochs."""

TACOTRON2_WAVERNN_PHONE_LJSPEECH = _Tacotron2WaveRNNPhoneBundle(
    _tacotron2_path="tacotron2_english_phonemes_1500_epochs_wavernn_ljspeech.pth",
    _tacotron2_params=utils._get_taco_params(n_symbols=96),
    _wavernn_path="wavernn_10k_epochs_8bits_ljspeech.pth",
    _wavernn_params=utils._get_wrnn_params(),
)
TACOTRON2_WAVERNN_PHONE_LJSPEECH.__doc__ = """Phoneme-based Tacotron2 (DeepPhonemizer,
CMUdict) trained on LJSpeech for 1,500 epochs, with an 8-bit WaveRNN vocoder trained on
LJSpeech for 10,000 epochs."""
