"""``torchaudio.transforms``: the functional API as modules (``nn.Module`` subclasses)."""

from __future__ import annotations

from . import _multi_channel, _spectral, _transforms
from ._multi_channel import *  # noqa: F403
from ._spectral import *  # noqa: F403
from ._transforms import *  # noqa: F403

__all__ = sorted({*_spectral.__all__, *_transforms.__all__, *_multi_channel.__all__})
