"""``torchaudio`` on chainrule: ``functional``, ``transforms``, ``models``, ``datasets``,
``compliance.kaldi``, ``pipelines``, ``utils`` and ``load``/``save``, with torchaudio
2.11's API.

Under ``chainrule run`` (or :mod:`chainrule._import_hook`), ``import torchaudio`` gives
this package, so a tutorial's ``torchaudio.transforms.MelSpectrogram(...)`` and
``torchaudio.datasets.SPEECHCOMMANDS(...)`` run unchanged. WAV files are read and written
with Python's own ``wave`` module; other formats (FLAC, OGG, MP3) need the optional
``soundfile`` package (``pip install chainrule[audio]``). Nothing is downloaded unless
asked: datasets and pretrained weights are read from where torchaudio would put them.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__version__ = "2.11.0"

__all__ = [
    "__version__",
    "compliance",
    "datasets",
    "functional",
    "load",
    "load_with_torchcodec",
    "models",
    "pipelines",
    "save",
    "save_with_torchcodec",
    "transforms",
    "utils",
]

_SUBMODULES = (
    "compliance",
    "datasets",
    "functional",
    "models",
    "pipelines",
    "transforms",
    "utils",
)


def __getattr__(name: str) -> ModuleType:
    """The submodules, imported on first use (``torchaudio.functional`` ...); ``load`` and
    ``save`` (and their ``*_with_torchcodec`` names) from :mod:`chainrule.audio._io`."""
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in ("load", "save", "load_with_torchcodec", "save_with_torchcodec"):
        from . import _io

        return getattr(_io, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
