"""``torch.amp``: automatic mixed precision, autocast regions and gradient scaling."""

from __future__ import annotations

from .autocast_mode import (  # noqa: F401  (the state queries: torch.is_autocast_enabled, ...)
    autocast,
    custom_bwd,
    custom_fwd,
    get_autocast_dtype,
    is_autocast_available,
    is_autocast_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
)
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]
