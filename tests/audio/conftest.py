"""The oracle for chainrule.audio: the real torchaudio 2.11 (the test extra installs it).

PyPI's torchaudio wheel is built against PyTorch's CUDA build; with the CPU build its
compiled library does not load. :func:`import_torchaudio` imports it as if the library
were not there (torchaudio's own fallback when it is missing): everything written in
Python (functional, transforms, models, datasets) works on the real PyTorch; the few
compiled kernels (``forced_align``, the CTC decoders, ``rnnt_loss``) do not, and tests
compare those against their definitions instead.
"""

from __future__ import annotations

import pathlib
import sys
from types import ModuleType

import pytest


def import_torchaudio() -> ModuleType:
    """The real torchaudio, on the real PyTorch."""
    module = sys.modules.get("torchaudio")
    if module is not None and not module.__name__.startswith("chainrule"):
        return module
    glob = pathlib.Path.glob

    def no_library(self, pattern, *args, **kwargs):
        if "torchaudio" in str(self) and str(self).endswith("lib"):
            return iter(())
        return glob(self, pattern, *args, **kwargs)

    pathlib.Path.glob = no_library
    try:
        import torchaudio
    finally:
        pathlib.Path.glob = glob
    return torchaudio


@pytest.fixture(scope="session")
def ta() -> ModuleType:
    """The real torchaudio package."""
    return import_torchaudio()
