"""Pretrained TorchAudio-Squim: reference-free speech quality (STOI, PESQ, SI-SDR) and
MOS estimated against a non-matching clean reference."""

from __future__ import annotations

from dataclasses import dataclass

import chainrule
from chainrule.audio.models import (
    SquimObjective,
    SquimSubjective,
    squim_objective_base,
    squim_subjective_base,
)
from chainrule.audio.utils import _download_asset

__all__: list[str] = []


@dataclass
class SquimObjectiveBundle:
    """Pretrained :class:`SquimObjective`: ``model(waveform)`` gives ``[stoi, pesq, si_sdr]``
    estimates for 16 kHz speech."""

    _path: str
    _sample_rate: float

    def get_model(self) -> SquimObjective:
        """The model with the pretrained weights (asset ``models/<_path>``), in eval mode."""
        model = squim_objective_base()
        path = _download_asset(f"models/{self._path}")
        model.load_state_dict(chainrule.load(path, weights_only=True))
        model.eval()
        return model

    @property
    def sample_rate(self) -> float:
        """Sample rate (Hz) of the audio the model was trained on."""
        return self._sample_rate


@dataclass
class SquimSubjectiveBundle:
    """Pretrained :class:`SquimSubjective`: ``model(waveform, reference)`` gives a MOS
    estimate, the reference being any clean speech."""

    _path: str
    _sample_rate: float

    def get_model(self) -> SquimSubjective:
        """The model with the pretrained weights (asset ``models/<_path>``), in eval mode."""
        model = squim_subjective_base()
        path = _download_asset(f"models/{self._path}")
        model.load_state_dict(chainrule.load(path, weights_only=True))
        model.eval()
        return model

    @property
    def sample_rate(self) -> float:
        """Sample rate (Hz) of the audio the model was trained on."""
        return self._sample_rate


SQUIM_OBJECTIVE = SquimObjectiveBundle("squim_objective_dns2020.pth", _sample_rate=16000)
SQUIM_OBJECTIVE.__doc__ = """SquimObjective trained on the DNS 2020 dataset
(:func:`squim_objective_base`); weights under CC BY 4.0."""

SQUIM_SUBJECTIVE = SquimSubjectiveBundle("squim_subjective_bvcc_daps.pth", _sample_rate=16000)
SQUIM_SUBJECTIVE.__doc__ = """SquimSubjective trained on BVCC and DAPS
(:func:`squim_subjective_base`); weights under CC BY-NC 4.0."""
