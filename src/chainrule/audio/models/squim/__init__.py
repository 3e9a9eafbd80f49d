"""SQUIM (Kumar et al., 2023): reference-free speech quality and intelligibility
estimators. :class:`SquimObjective` predicts STOI, wide-band PESQ and SI-SDR from a
waveform alone; :class:`SquimSubjective` predicts a MOS from a waveform and a
non-matching clean reference (NORESQA-MOS)."""

from .objective import SquimObjective, squim_objective_base, squim_objective_model
from .subjective import SquimSubjective, squim_subjective_base, squim_subjective_model

__all__ = [
    "squim_objective_base",
    "squim_objective_model",
    "squim_subjective_base",
    "squim_subjective_model",
    "SquimObjective",
    "SquimSubjective",
]
