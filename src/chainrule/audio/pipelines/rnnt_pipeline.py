"""Pretrained Emformer RNN-T speech recognition: log-mel features normalised by global
statistics, beam search over the RNN-T, SentencePiece detokenisation."""

from __future__ import annotations

import importlib.util
import json
import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import chainrule
from chainrule import Tensor, nn
from chainrule.audio.models import RNNT, RNNTBeamSearch, emformer_rnnt_base
from chainrule.audio.transforms import MelSpectrogram
from chainrule.audio.utils import _download_asset

__all__: list[str] = []

# Features were computed on int16-scaled audio: a power spectrogram gains 32767 ** 2.
_decibel = 2 * 20 * math.log10(chainrule.iinfo(chainrule.int16).max)
_gain = pow(10, 0.05 * _decibel)


def _piecewise_linear_log(x: Tensor) -> Tensor:
    """``y = log(x)`` where ``x > e`` (else ``y = x``), then ``y / e`` wherever ``y <= e``.

    The two steps are applied in turn as torchaudio applies them in place, so a value in
    ``(e, e**e]`` ends up as ``log(x) / e``."""
    y = chainrule.where(x > math.e, chainrule.log(chainrule.clamp(x, min=math.e)), x)
    return chainrule.where(y <= math.e, y / math.e, y)


class _FunctionalModule(nn.Module):
    """A module applying a plain function."""

    def __init__(self, functional: Callable[[Tensor], Tensor]) -> None:
        super().__init__()
        self.functional = functional

    def forward(self, input: Tensor) -> Tensor:
        """``functional(input)``."""
        return self.functional(input)


class _GlobalStatsNormalization(nn.Module):
    """``(x - mean) * invstddev`` with per-feature statistics read from a JSON file."""

    def __init__(self, global_stats_path: str) -> None:
        super().__init__()
        with open(global_stats_path) as f:
            blob = json.loads(f.read())
        self.register_buffer("mean", chainrule.tensor(blob["mean"]))
        self.register_buffer("invstddev", chainrule.tensor(blob["invstddev"]))

    def forward(self, input: Tensor) -> Tensor:
        """``(input - mean) * invstddev``."""
        return (input - self.mean) * self.invstddev


class _FeatureExtractor(ABC):
    """Interface: waveform to (features ``(frames, *)``, length ``(1,)``)."""

    @abstractmethod
    def __call__(self, input: Tensor) -> tuple[Tensor, Tensor]:
        """Features of ``input`` and their number of frames."""


class _TokenProcessor(ABC):
    """Interface: token ids to text."""

    @abstractmethod
    def __call__(self, tokens: list[int], **kwargs: Any) -> str:
        """The text that ``tokens`` spell."""


class _ModuleFeatureExtractor(nn.Module, _FeatureExtractor):
    """A feature extractor made of a module pipeline."""

    def __init__(self, pipeline: nn.Module) -> None:
        super().__init__()
        self.pipeline = pipeline

    def forward(self, input: Tensor) -> tuple[Tensor, Tensor]:
        """``(pipeline(input), tensor([frames]))``."""
        features = self.pipeline(input)
        return features, chainrule.tensor([features.shape[0]])


class _SentencePieceTokenProcessor(_TokenProcessor):
    """Detokenisation with a SentencePiece model (needs the ``sentencepiece`` package)."""

    def __init__(self, sp_model_path: str) -> None:
        if importlib.util.find_spec("sentencepiece") is None:
            raise RuntimeError("SentencePiece is not available. Please install it.")
        import sentencepiece as spm

        self.sp_model = spm.SentencePieceProcessor(model_file=sp_model_path)
        self.post_process_remove_list = {
            self.sp_model.unk_id(),
            self.sp_model.eos_id(),
            self.sp_model.pad_id(),
        }

    def __call__(self, tokens: list[int], lstrip: bool = True) -> str:
        """The pieces of ``tokens[1:]`` (the first is the start symbol) joined, without
        unknown/end/padding ids, ``"▁"`` read as a space; leading spaces removed when
        ``lstrip``."""
        kept = [t for t in tokens[1:] if t not in self.post_process_remove_list]
        text = "".join(self.sp_model.id_to_piece(kept)).replace("\u2581", " ")
        return text.lstrip() if lstrip else text


@dataclass
class RNNTBundle:
    """The parts of an RNN-T recognition pipeline: ``get_feature_extractor()`` (or the
    streaming one), ``get_decoder()`` (beam search over the pretrained model) and
    ``get_token_processor()``; segment sizes for streaming are given in frames."""

    class FeatureExtractor(_FeatureExtractor):
        """Interface of the feature extraction part of the RNN-T pipeline."""

    class TokenProcessor(_TokenProcessor):
        """Interface of the token processor part of the RNN-T pipeline."""

    _rnnt_path: str
    _rnnt_factory_func: Callable[[], RNNT]
    _global_stats_path: str
    _sp_model_path: str
    _right_padding: int
    _blank: int
    _sample_rate: int
    _n_fft: int
    _n_mels: int
    _hop_length: int
    _segment_length: int
    _right_context_length: int

    def _get_model(self) -> RNNT:
        """The RNN-T with the pretrained weights (asset ``_rnnt_path``), in eval mode."""
        model = self._rnnt_factory_func()
        model.load_state_dict(chainrule.load(_download_asset(self._rnnt_path)))
        model.eval()
        return model

    @property
    def sample_rate(self) -> int:
        """Sample rate (Hz) of the input waveforms."""
        return self._sample_rate

    @property
    def n_fft(self) -> int:
        """FFT size of the mel spectrogram."""
        return self._n_fft

    @property
    def n_mels(self) -> int:
        """Number of mel features."""
        return self._n_mels

    @property
    def hop_length(self) -> int:
        """Samples between successive frames."""
        return self._hop_length

    @property
    def segment_length(self) -> int:
        """Frames per streaming segment."""
        return self._segment_length

    @property
    def right_context_length(self) -> int:
        """Frames of right context per streaming segment."""
        return self._right_context_length

    def get_decoder(self) -> RNNTBeamSearch:
        """Beam search over the pretrained RNN-T."""
        return RNNTBeamSearch(self._get_model(), self._blank)

    def _feature_modules(self) -> list[nn.Module]:
        """Mel power spectrogram, (frames, mels), piecewise-linear log of the int16-scaled
        power, global normalisation."""
        stats_path = _download_asset(self._global_stats_path)
        return [
            MelSpectrogram(
                sample_rate=self.sample_rate,
                n_fft=self.n_fft,
                n_mels=self.n_mels,
                hop_length=self.hop_length,
            ),
            _FunctionalModule(lambda x: x.transpose(1, 0)),
            _FunctionalModule(lambda x: _piecewise_linear_log(x * _gain)),
            _GlobalStatsNormalization(stats_path),
        ]

    def get_feature_extractor(self) -> FeatureExtractor:
        """Features for full-context recognition: the streaming features followed by
        ``_right_padding`` zero frames."""
        pad = _FunctionalModule(lambda x: nn.functional.pad(x, (0, 0, 0, self._right_padding)))
        return _ModuleFeatureExtractor(nn.Sequential(*self._feature_modules(), pad))

    def get_streaming_feature_extractor(self) -> FeatureExtractor:
        """Features for streaming recognition of one segment (with its right context)."""
        return _ModuleFeatureExtractor(nn.Sequential(*self._feature_modules()))

    def get_token_processor(self) -> TokenProcessor:
        """The SentencePiece detokeniser (asset ``_sp_model_path``)."""
        return _SentencePieceTokenProcessor(_download_asset(self._sp_model_path))


EMFORMER_RNNT_BASE_LIBRISPEECH = RNNTBundle(
    _rnnt_path="models/emformer_rnnt_base_librispeech.pt",
    _rnnt_factory_func=partial(emformer_rnnt_base, num_symbols=4097),
    _global_stats_path="pipeline-assets/global_stats_rnnt_librispeech.json",
    _sp_model_path="pipeline-assets/spm_bpe_4096_librispeech.model",
    _right_padding=4,
    _blank=4096,
    _sample_rate=16000,
    _n_fft=400,
    _n_mels=80,
    _hop_length=160,
    _segment_length=16,
    _right_context_length=4,
)
EMFORMER_RNNT_BASE_LIBRISPEECH.__doc__ = """Emformer RNN-T (:func:`emformer_rnnt_base`, 4097
symbols) trained on LibriSpeech; streaming and full-context recognition."""
