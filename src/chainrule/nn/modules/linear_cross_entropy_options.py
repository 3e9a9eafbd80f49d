"""``LinearCrossEntropyOptions``: the settings PyTorch's chunked ``linear_cross_entropy``
takes (its own module, as in PyTorch)."""

from __future__ import annotations

import dataclasses
from typing import Any

from ... import _dtypes

__all__ = ["LinearCrossEntropyOptions"]

_ACC_POLICIES = ("auto", "accurate", "balanced", "compact")


def _valid_chunking_method(method: str) -> bool:
    """'aspect_ratio' or 'aspect_ratio:N' with a whole N ≥ 1."""
    name, colon, factor = method.partition(":")
    factor = factor if colon else "1"
    return name == "aspect_ratio" and factor.isdigit() and int(factor) > 0


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """How PyTorch's chunked ``linear_cross_entropy`` splits the batch: ``batch_chunk_size``
    rows at a time, or a size from ``chunking_method`` ('auto', 'aspect_ratio[:N]'),
    accumulating in ``acc_dtype`` as ``acc_policy`` says.

    Differs from PyTorch: chainrule checks these fields as PyTorch does, but always computes
    the loss the reference way (the chunked path gives the same values with less memory);
    ``allow_retain_graph`` is then moot (a second backward works with ``retain_graph``)."""

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: Any = None

    def __post_init__(self) -> None:
        if self.acc_policy not in _ACC_POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        method = self.chunking_method
        if method is not None and method != "auto" and not _valid_chunking_method(method):
            raise ValueError(f"invalid chunking_method: {method!r}")
        size = self.batch_chunk_size
        if not (size is None or (isinstance(size, int) and size > 0)):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {size!r}")
        floats = (_dtypes.float16, _dtypes.float32, _dtypes.float64)  # (no bfloat16 here)
        if self.acc_dtype is not None and self.acc_dtype not in floats:
            raise ValueError(
                "acc_dtype must be one of {None, torch.float16, torch.bfloat16, "
                f"torch.float32, torch.float64}}, got {self.acc_dtype!r}. Pass "
                "acc_dtype=None to let the op pick automatically."
            )
