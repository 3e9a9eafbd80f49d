"""``torchaudio.functional``: spectral features, resampling, filters and effects, each a
function of chainrule tensors (differentiable where torchaudio's is)."""

from __future__ import annotations

from . import _multi_channel, _spectral, filtering, functional
from ._multi_channel import *  # noqa: F403
from ._spectral import *  # noqa: F403
from .filtering import *  # noqa: F403
from .functional import *  # noqa: F403

__all__ = sorted(
    {
        *_spectral.__all__,
        *functional.__all__,
        *filtering.__all__,
        *_multi_channel.__all__,
    }
)
