"""Values to log -> NumPy arrays: chainrule tensors, NumPy arrays and Python numbers."""

from __future__ import annotations

from typing import Any

import numpy as np


def make_np(x: Any) -> np.ndarray:
    """``x`` as a NumPy array: a tensor detached and on the CPU, a number as shape (1,).

    As PyTorch's, a tensor on the ``meta`` device (no data) gives one random number."""
    from chainrule._tensor import Tensor

    if isinstance(x, np.ndarray):
        return x
    if np.isscalar(x):
        return np.array([x])
    if isinstance(x, Tensor):
        if x.device.type == "meta":
            return np.random.randn(1)
        return x.detach().cpu().numpy()
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")
