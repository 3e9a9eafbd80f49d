"""``torchaudio.models``: the speech, source-separation and synthesis models, as
chainrule ``nn.Module`` trees whose state_dicts are torchaudio's (names and shapes), so
weights load both ways. Each model lives in the module torchaudio gives it; the names
below are found there on first use."""

from __future__ import annotations

import importlib
from typing import Any

# name -> the submodule that defines it (torchaudio's own layout)
_HOME = {
    "Conformer": "conformer",
    "ConvTasNet": "conv_tasnet",
    "conv_tasnet_base": "conv_tasnet",
    "DeepSpeech": "deepspeech",
    "Emformer": "emformer",
    "HDemucs": "_hdemucs",
    "hdemucs_high": "_hdemucs",
    "hdemucs_low": "_hdemucs",
    "hdemucs_medium": "_hdemucs",
    "Hypothesis": "rnnt_decoder",
    "RNNTBeamSearch": "rnnt_decoder",
    "RNNT": "rnnt",
    "emformer_rnnt_base": "rnnt",
    "emformer_rnnt_model": "rnnt",
    "SquimObjective": "squim",
    "SquimSubjective": "squim",
    "squim_objective_base": "squim",
    "squim_objective_model": "squim",
    "squim_subjective_base": "squim",
    "squim_subjective_model": "squim",
    "Tacotron2": "tacotron2",
    "Wav2Letter": "wav2letter",
    "WaveRNN": "wavernn",
    **{
        name: "wav2vec2"
        for name in (
            "Wav2Vec2Model",
            "HuBERTPretrainModel",
            "wav2vec2_model",
            "wav2vec2_base",
            "wav2vec2_large",
            "wav2vec2_large_lv60k",
            "wav2vec2_xlsr_300m",
            "wav2vec2_xlsr_1b",
            "wav2vec2_xlsr_2b",
            "hubert_base",
            "hubert_large",
            "hubert_xlarge",
            "hubert_pretrain_model",
            "hubert_pretrain_base",
            "hubert_pretrain_large",
            "hubert_pretrain_xlarge",
            "wavlm_model",
            "wavlm_base",
            "wavlm_large",
        )
    },
}
_SUBMODULES = frozenset(_HOME.values()) | {"wav2vec2"}

__all__ = sorted(_HOME)


def __getattr__(name: str) -> Any:
    """A model class or builder, from the submodule that defines it; or that submodule."""
    home = _HOME.get(name)
    if home is not None:
        value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME) | _SUBMODULES)
