"""Tensor constructors that need a tensor or a shape of indices: the ``new_*`` methods
(``x.new_zeros(2, 3)``: x's dtype unless one is given), ``tril_indices``,
``triu_indices``, ``result_type``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import _creation, _dtypes
from ..._backend import xp
from ..._meta import on_device
from ..._promotion import result_type as _result_type
from ..._tensor import Tensor, _make, check_device
from .storage import empty_strided


def _dev(self: Tensor, device: Any) -> Any:
    """The device of a ``new_*`` tensor: the one given, else self's (not the default)."""
    return self.device if device is None else device


def _dt(self: Tensor, dtype: Any) -> Any:
    return self._dtype if dtype is None else _dtypes.to_dtype(dtype)


def new_tensor(
    self: Tensor,
    data: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """A new tensor holding a copy of data, in self's dtype unless given."""
    if isinstance(data, Tensor):
        _creation.warn_copy_construct("tensor.new_tensor", stacklevel=2)
    return _creation.copy_of(
        data, dtype=_dt(self, dtype), device=_dev(self, device), requires_grad=requires_grad
    )


def new_zeros(
    self: Tensor,
    *size: int | Sequence[int],
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """Zeros of the given size, in self's dtype unless given."""
    try:
        return _creation.zeros(
            *size, dtype=_dt(self, dtype), device=_dev(self, device), requires_grad=requires_grad
        )
    except RuntimeError as exc:  # (torch.zeros words a negative size its own way)
        if not str(exc).startswith("zeros: "):
            raise
        raise _creation._negative_size(_creation._size(size, "new_zeros"), "new_zeros") from None


def new_ones(
    self: Tensor,
    *size: int | Sequence[int],
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """Ones of the given size, in self's dtype unless given."""
    return _creation.ones(
        *size, dtype=_dt(self, dtype), device=_dev(self, device), requires_grad=requires_grad
    )


def new_empty(
    self: Tensor,
    *size: int | Sequence[int],
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """An uninitialised tensor (zeros in chainrule) of the given size, in self's dtype."""
    return _creation.empty(
        *size, dtype=_dt(self, dtype), device=_dev(self, device), requires_grad=requires_grad
    )


def new_empty_strided(
    self: Tensor,
    size: Sequence[int],
    stride: Sequence[int],
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """As ``empty_strided(size, stride)``, in self's dtype and device unless given."""
    return empty_strided(
        size, stride, dtype=_dt(self, dtype), device=_dev(self, device), requires_grad=requires_grad
    )


def new_full(
    self: Tensor,
    size: Sequence[int],
    fill_value: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """``fill_value`` everywhere, in self's dtype unless given."""
    return _creation.full(
        size,
        fill_value,
        dtype=_dt(self, dtype),
        device=_dev(self, device),
        requires_grad=requires_grad,
    )


# ----- indices of a triangle -----------------------------------------------------------------


def _triangle(name: str, row: int, col: int, offset: int, dtype: Any, upper: bool) -> Tensor:
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    dt = _dtypes.int64 if dtype is None else _dtypes.to_dtype(dtype)
    if dt._category != 1:
        raise _dtypes.not_implemented(name, dt)
    mask = xp.ones((row, col), dtype=bool)
    mask = xp.triu(mask, offset) if upper else xp.tril(mask, offset)
    return _make(xp.stack(xp.nonzero(mask)).astype(dt.np).reshape(2, -1), dt)


@on_device
def tril_indices(
    row: int,
    col: int,
    offset: int = 0,
    *,
    dtype: Any = None,
    device: Any = None,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """The (row, column) indices of the lower triangle of a row×col matrix, as a 2×N
    tensor in row-major order (``offset`` shifts the diagonal)."""
    check_device(device)
    return _triangle("tril_indices", row, col, offset, dtype, upper=False)


@on_device
def triu_indices(
    row: int,
    col: int,
    offset: int = 0,
    *,
    dtype: Any = None,
    device: Any = None,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """The (row, column) indices of the upper triangle of a row×col matrix, as a 2×N
    tensor in row-major order (``offset`` shifts the diagonal)."""
    check_device(device)
    return _triangle("triu_indices", row, col, offset, dtype, upper=True)


# ----- dtypes -----------------------------------------------------------------------------


def result_type(tensor1: Tensor | float, tensor2: Tensor | float) -> Any:
    """The dtype an op on the two operands computes in (PyTorch's promotion)."""
    for a in (tensor1, tensor2):
        if not isinstance(a, (Tensor, int, float, bool, complex)):
            raise TypeError(
                f"result_type() received an invalid combination of arguments - got "
                f"({type(tensor1).__name__}, {type(tensor2).__name__})"
            )
    return _result_type([tensor1, tensor2])


def can_cast(from_: Any, to: Any) -> bool:
    """Whether PyTorch's casting rules allow a cast from ``from_`` to ``to``."""
    return _dtypes.can_cast(_dtypes.to_dtype(from_), _dtypes.to_dtype(to))


def asarray(
    obj: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    copy: bool | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """``obj`` as a tensor: sharing memory with a tensor or array of the same dtype unless
    ``copy=True``; ``copy=False`` refuses to copy."""
    check_device(device)
    from ...storage import UntypedStorage

    if isinstance(obj, UntypedStorage):
        return _from_storage(obj, dtype, copy, requires_grad)
    if copy:
        return _creation.copy_of(obj, dtype=dtype, requires_grad=requires_grad)
    src_dt = None
    if isinstance(obj, Tensor):
        src_dt = obj._dtype
    elif isinstance(obj, xp.ndarray):
        src_dt = _dtypes.from_numpy_dtype(_creation.numpy_array(obj).dtype)
    if copy is False and src_dt is not None and dtype is not None:
        want = _dtypes.to_dtype(dtype)
        if want is not src_dt:
            raise ValueError(
                f"can't alias tensor with dtype '{src_dt.scalar_name}' into dtype "
                f"'{want.scalar_name}'."
            )
    out = _creation.as_tensor(obj, dtype=dtype)
    if requires_grad:
        out.requires_grad_()
    return out


def _from_storage(storage: Any, dtype: Any, copy: bool | None, requires_grad: bool) -> Tensor:
    """``asarray`` of an ``UntypedStorage``: its bytes read as ``dtype`` (int64 when not
    given, as PyTorch does; trailing bytes short of an element are left out), sharing its
    memory unless ``copy``."""
    want = _dtypes.int64 if dtype is None else _dtypes.to_dtype(dtype)
    raw = storage._bytes()
    size = _dtypes.uint8.itemsize if want is _dtypes.uint8 else want.itemsize
    raw = raw[: raw.shape[0] - raw.shape[0] % size]
    out = _creation.as_tensor(raw, dtype=_dtypes.uint8)
    if want is not _dtypes.uint8:
        out = out.view(want)
    if copy:
        out = out.clone()
    if requires_grad:
        out.requires_grad_()
    return out
