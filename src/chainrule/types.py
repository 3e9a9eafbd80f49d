"""``torch.types``: the type aliases PyTorch's annotations use, pointing at chainrule's
classes (``Tensor``, ``Size``, ``device``, ``dtype``).

Where chainrule differs from PyTorch: chainrule has no symbolic shapes, so the ``*LikeType``
aliases are the plain Python types (PyTorch's add ``SymInt``/``SymFloat``/``SymBool``) and
``py_sym_types`` is empty; it has no layouts, quantization schemes or dispatch keys, so
``_layout``, ``_qscheme`` and ``_dispatchkey`` are absent. ``Storage`` is the protocol class
PyTorch's annotations name; chainrule's tensors keep their data in arrays, not storages.
"""

from __future__ import annotations

import os

# (the builtins under names a torch-shadowed scope can still reach: torch.int is a dtype)
from builtins import bool as _bool  # noqa: F401
from builtins import bytes as _bytes  # noqa: F401
from builtins import complex as _complex  # noqa: F401
from builtins import float as _float  # noqa: F401
from builtins import int as _int  # noqa: F401
from builtins import str as _str  # noqa: F401
from collections.abc import Sequence
from typing import IO, Any, TypeAlias

from ._dtypes import dtype as _dtype
from ._tensor import Size, Tensor
from ._tensor import device as _device

__all__ = ["Number", "Device", "FileLike", "Storage"]

_TensorOrTensors: TypeAlias = Tensor | Sequence[Tensor]
_TensorOrOptionalTensors: TypeAlias = Tensor | Sequence[Tensor | None]
_size: TypeAlias = Size | list[int] | tuple[int, ...]
_symsize: TypeAlias = Size | Sequence[int]

IntLikeType: TypeAlias = int
FloatLikeType: TypeAlias = float
BoolLikeType: TypeAlias = bool
py_sym_types: tuple = ()

# a number: what the docs call Number, and its tuple for isinstance checks
Number: TypeAlias = int | float | bool
_Number = (int, float, bool)

FileLike: TypeAlias = str | os.PathLike[str] | IO[bytes]

# anything a device argument accepts: a device, its name, a CUDA index, or None (the default)
Device: TypeAlias = _device | str | int | None


class Storage:
    """The protocol of a tensor's storage as PyTorch's annotations name it."""

    device: _device
    dtype: _dtype

    def element_size(self) -> int:
        raise NotImplementedError

    def nbytes(self) -> int:
        raise NotImplementedError

    def is_shared(self) -> bool:
        raise NotImplementedError

    def data_ptr(self) -> int:
        raise NotImplementedError

    def __deepcopy__(self, memo: dict[int, Any]) -> Storage:
        raise NotImplementedError
