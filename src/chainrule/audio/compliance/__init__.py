"""``torchaudio.compliance``: Kaldi's feature extraction (``kaldi``)."""

from __future__ import annotations

from . import kaldi

__all__ = ["kaldi"]
