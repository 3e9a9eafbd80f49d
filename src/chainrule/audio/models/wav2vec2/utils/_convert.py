"""Turning a foreign state_dict (PyTorch or chainrule tensors) into chainrule tensors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

import chainrule
from chainrule import Tensor

__all__: list[str] = []


def _as_tensor(value: Any) -> Tensor:
    """``value`` as a chainrule tensor (PyTorch tensors go through NumPy)."""
    if isinstance(value, Tensor):
        return value
    return chainrule.from_numpy(np.array(value.detach().cpu().numpy()))


def _as_state_dict(state: Mapping[str, Any]) -> dict[str, Tensor]:
    return {key: _as_tensor(value) for key, value in state.items()}
