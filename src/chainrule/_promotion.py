"""PyTorch's type promotion over tensors and Python scalars: the dtype of an op's result."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import _dtypes
from ._dtypes import dtype as DType
from ._tensor import Tensor


def result_type(args: Sequence[Any]) -> DType:
    """The dtype PyTorch computes ``args`` in.

    Dimensioned tensors win over 0-d tensors, which win over Python scalars, unless
    a lower-priority operand is of a higher category (bool < integer < float): then
    a 0-d tensor keeps its dtype and a Python scalar brings its default dtype.
    """
    dim = zero = None
    scalar = -1
    for a in args:
        if isinstance(a, Tensor):
            d = a._dtype
            if a._data.ndim:
                dim = d if dim is None or dim is d else _dtypes.promote_types(dim, d)
            else:
                zero = d if zero is None or zero is d else _dtypes.promote_types(zero, d)
        elif a is None:
            continue
        else:
            c = 0 if isinstance(a, bool) else 1 if isinstance(a, int) else 2
            if c > scalar:
                scalar = c
    result = dim
    if zero is not None:
        if result is None:
            result = zero
        elif zero._category > result._category:
            result = zero
    if scalar >= 0:
        if result is None or scalar > result._category:
            result = (_dtypes.bool, _dtypes.int64, _dtypes.get_default_dtype())[scalar]
    return result


def can_cast(src: DType, dst: DType) -> bool:
    """Whether an in-place op may write a ``src`` result into a ``dst`` tensor (no category
    is lost: float into int is refused, as in PyTorch)."""
    return src._category <= dst._category
