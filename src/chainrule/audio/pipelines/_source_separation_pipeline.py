"""Pretrained source separation: Conv-TasNet on Libri2Mix, Hybrid Demucs on MUSDB-HQ."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import chainrule
from chainrule import nn
from chainrule.audio.models import conv_tasnet_base, hdemucs_high
from chainrule.audio.utils import _download_asset

__all__: list[str] = []


@dataclass
class SourceSeparationBundle:
    """A pretrained separation model: ``bundle.get_model()`` builds it and loads the weights
    (torchaudio's asset ``_model_path``, from the hub cache); the input is a mixture
    ``(batch, channels, time)`` at ``bundle.sample_rate``."""

    _model_path: str
    _model_factory_func: Callable[[], nn.Module]
    _sample_rate: int

    @property
    def sample_rate(self) -> int:
        """Sample rate (Hz) of the audio the model was trained on."""
        return self._sample_rate

    def get_model(self) -> nn.Module:
        """The model with the pretrained weights, in eval mode."""
        model = self._model_factory_func()
        model.load_state_dict(chainrule.load(_download_asset(self._model_path)))
        model.eval()
        return model


CONVTASNET_BASE_LIBRI2MIX = SourceSeparationBundle(
    _model_path="models/conv_tasnet_base_libri2mix.pt",
    _model_factory_func=partial(conv_tasnet_base, num_sources=2),
    _sample_rate=8000,
)
CONVTASNET_BASE_LIBRI2MIX.__doc__ = """Conv-TasNet (:func:`conv_tasnet_base`, two sources)
trained on Libri2Mix at 8 kHz."""

HDEMUCS_HIGH_MUSDB_PLUS = SourceSeparationBundle(
    _model_path="models/hdemucs_high_trained.pt",
    _model_factory_func=partial(hdemucs_high, sources=["drums", "bass", "other", "vocals"]),
    _sample_rate=44100,
)
HDEMUCS_HIGH_MUSDB_PLUS.__doc__ = """Hybrid Demucs (:func:`hdemucs_high`; drums, bass, other,
vocals) trained on MUSDB-HQ (train and test) plus 150 extra songs, at 44.1 kHz."""

HDEMUCS_HIGH_MUSDB = SourceSeparationBundle(
    _model_path="models/hdemucs_high_musdbhq_only.pt",
    _model_factory_func=partial(hdemucs_high, sources=["drums", "bass", "other", "vocals"]),
    _sample_rate=44100,
)
HDEMUCS_HIGH_MUSDB.__doc__ = """Hybrid Demucs (:func:`hdemucs_high`; drums, bass, other,
vocals) trained on the MUSDB-HQ training set, at 44.1 kHz."""
