"""``chainrule.cuda.amp`` (PyTorch's deprecated ``torch.cuda.amp``): ``autocast``,
``GradScaler``, ``custom_fwd`` and ``custom_bwd`` for 'cuda', each warning that
``torch.amp`` is the spelling to use."""

from __future__ import annotations

from ..amp.deprecated import CudaAutocast as autocast
from ..amp.deprecated import CudaGradScaler as GradScaler
from ..amp.deprecated import _cuda_custom_bwd as custom_bwd
from ..amp.deprecated import _cuda_custom_fwd as custom_fwd

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd"]
