"""Interfaces of the Tacotron2 text-to-speech pipeline: text processor, vocoder, bundle."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from chainrule import Tensor
from chainrule.audio.models import Tacotron2

__all__: list[str] = []


class _TextProcessor(ABC):
    """Text to token ids."""

    @property
    @abstractmethod
    def tokens(self) -> list[str]:
        """The token each id stands for."""

    @abstractmethod
    def __call__(self, texts: str | list[str]) -> tuple[Tensor, Tensor]:
        """``(ids, lengths)``: ids ``(batch, max length)`` zero-padded, lengths ``(batch,)``."""


class _Vocoder(ABC):
    """Spectrogram to waveform."""

    @property
    @abstractmethod
    def sample_rate(self) -> float:
        """Sample rate of the generated waveform."""

    @abstractmethod
    def __call__(
        self, specgrams: Tensor, lengths: Tensor | None = None
    ) -> tuple[Tensor, Tensor | None]:
        """``(waveforms (batch, time), lengths)`` from ``(batch, mels, frames)``."""


class Tacotron2TTSBundle(ABC):
    """A pretrained text-to-speech pipeline: ``get_text_processor()`` encodes text,
    ``get_tacotron2()`` maps it to a mel spectrogram (``infer``), ``get_vocoder()`` turns
    that into a waveform at ``vocoder.sample_rate``."""

    class TextProcessor(_TextProcessor):
        """Interface of the text processing part of the Tacotron2 TTS pipeline."""

    class Vocoder(_Vocoder):
        """Interface of the vocoder part of the Tacotron2 TTS pipeline."""

    @abstractmethod
    def get_text_processor(self, *, dl_kwargs: dict[str, Any] | None = None) -> TextProcessor:
        """The text processor (characters, or phonemes through DeepPhonemizer)."""

    @abstractmethod
    def get_vocoder(self, *, dl_kwargs: dict[str, Any] | None = None) -> Vocoder:
        """The vocoder (WaveRNN with pretrained weights, or Griffin-Lim)."""

    @abstractmethod
    def get_tacotron2(self, *, dl_kwargs: dict[str, Any] | None = None) -> Tacotron2:
        """The Tacotron2 model with pretrained weights."""
