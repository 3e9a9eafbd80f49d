"""``chainrule.cpu.amp`` (PyTorch's deprecated ``torch.cpu.amp``): ``autocast`` and
``GradScaler`` for 'cpu', each warning that ``torch.amp`` is the spelling to use."""

from __future__ import annotations

from ..amp.deprecated import CpuAutocast as autocast
from ..amp.deprecated import CpuGradScaler as GradScaler

__all__ = ["GradScaler", "autocast"]
