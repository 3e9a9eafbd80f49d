"""PyTorch's type promotion over tensors and Python scalars: the dtype of an op's result."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import _dtypes
from ._backend import xp
from ._dtypes import dtype as DType
from ._tensor import Tensor

_NP_SCALAR = xp.generic


def as_number(a: Any) -> Any:
    """A NumPy scalar as the Python number PyTorch reads it as (anything else unchanged).

    To PyTorch ``np.float64(0.5)`` is the number 0.5, not a float64 operand: ``ones(2) *
    np.sqrt(2.0)`` stays float32. NumPy integers are ints, NumPy floats are floats, and
    ``np.bool_``, which PyTorch's argument parser does not recognise as a bool, a float.
    """
    if not isinstance(a, _NP_SCALAR):
        return a
    if isinstance(a, xp.integer):
        return int(a)
    if isinstance(a, (xp.floating, xp.bool_)):
        return float(a)
    return complex(a) if isinstance(a, xp.complexfloating) else a


def numbers_in(params: dict) -> dict:
    """``params`` with each NumPy scalar as the Python number PyTorch reads it as."""
    for v in params.values():
        if isinstance(v, _NP_SCALAR):
            return {k: as_number(v) for k, v in params.items()}
    return params


def result_type(args: Sequence[Any]) -> DType:
    """The dtype PyTorch computes ``args`` in.

    Dimensioned tensors win over 0-d tensors, which win over Python scalars, unless
    a lower-priority operand is of a higher category (bool < integer < float < complex):
    then a 0-d tensor keeps its dtype and a Python scalar brings its default dtype, except
    that a floating result made complex keeps its precision (the complex of its dtype).
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
            if isinstance(a, _NP_SCALAR):
                a = as_number(a)
            c = (
                0
                if isinstance(a, bool)
                else 1
                if isinstance(a, int)
                else 3
                if isinstance(a, complex)
                else 2
            )
            if c > scalar:
                scalar = c
    result = dim
    if zero is not None:
        if result is None:
            result = zero
        elif zero._category > result._category:
            # a floating result made complex keeps its precision (float64 * 0-d complex64
            # is complex128)
            result = result.to_complex() if result._category == 2 else zero
    if scalar >= 0:
        if result is None or scalar > result._category:
            if scalar == 3 and result is not None and result._category == 2:
                result = result.to_complex()
            elif scalar == 3:
                result = _dtypes.default_complex()
            else:
                result = (_dtypes.bool, _dtypes.int64, _dtypes.get_default_dtype())[scalar]
    return result


def can_cast(src: DType, dst: DType) -> bool:
    """Whether an in-place op may write a ``src`` result into a ``dst`` tensor (no category
    is lost: float into int is refused, as in PyTorch)."""
    return src._category <= dst._category
