"""State dicts in the safetensors format (through the ``safetensors`` package's NumPy
API; ``pip install chainrule[safetensors]``): a header of names, dtypes and shapes, then
raw little-endian data, with no pickle at all. Files are read and written by
``safetensors.torch.load_file``/``save_file`` too.

The format has complex64 ("C64") but no complex128: saving a complex128 tensor raises
``KeyError(torch.complex128)``, as ``safetensors.torch.save_file`` does, before any file is
written."""

from __future__ import annotations

import os
from collections.abc import Mapping

from .. import _dtypes
from .._backend import xp
from .._tensor import Tensor, wrap

__all__ = ["load_safetensors", "save_safetensors"]


def _numpy_api():
    try:
        from safetensors import numpy as st_numpy
    except ImportError:  # pragma: no cover - the extra is part of the test extra
        raise ImportError(
            "the safetensors format needs the safetensors package: "
            "pip install 'chainrule[safetensors]'"
        ) from None
    return st_numpy


def save_safetensors(
    tensors: Mapping[str, Tensor], path: str | os.PathLike, metadata: dict | None = None
) -> None:
    """Write ``{name: tensor}`` (e.g. ``model.state_dict()``) to a .safetensors file."""
    arrays = {}
    for name, t in tensors.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"save_safetensors: {name!r} is a {type(t).__name__}, not a tensor")
        if t.dtype is _dtypes.complex128:  # (no dtype code for it in the format)
            raise KeyError(t.dtype)
        arrays[name] = xp.ascontiguousarray(t.detach()._data)
    _numpy_api().save_file(arrays, os.fspath(path), metadata=metadata)


def load_safetensors(path: str | os.PathLike) -> dict[str, Tensor]:
    """Read a .safetensors file as ``{name: tensor}``, ready for ``load_state_dict``."""
    return {name: wrap(a) for name, a in _numpy_api().load_file(os.fspath(path)).items()}
