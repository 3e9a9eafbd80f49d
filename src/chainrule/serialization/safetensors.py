"""State dicts in the safetensors format (through the ``safetensors`` package's NumPy
API; ``pip install chainrule[safetensors]``): a header of names, dtypes and shapes, then
raw little-endian data, with no pickle at all. Files are read and written by
``safetensors.torch.load_file``/``save_file`` too.

The format has complex64 ("C64") but no complex128: saving a complex128 tensor raises
``KeyError(torch.complex128)``, as ``safetensors.torch.save_file`` does, before any file is
written. bfloat16 ("BF16") goes both ways as ml_dtypes' bfloat16 (the safetensors NumPy
API knows it once ml_dtypes is imported); without ml_dtypes a file holding BF16 is refused
with chainrule's NotImplementedInChainrule, before anything is read."""

from __future__ import annotations

import json
import os
import struct
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
        arrays[name] = xp.array(t.detach()._data, order="C", copy=None)  # (0-d stays 0-d)
    _numpy_api().save_file(arrays, os.fspath(path), metadata=metadata)


def load_safetensors(path: str | os.PathLike) -> dict[str, Tensor]:
    """Read a .safetensors file as ``{name: tensor}``, ready for ``load_state_dict``."""
    if "BF16" in _dtype_codes(path):
        _dtypes.bfloat16.np  # noqa: B018 - imports ml_dtypes (NumPy learns "bfloat16"), or says it is missing
    return {name: wrap(a) for name, a in _numpy_api().load_file(os.fspath(path)).items()}


def _dtype_codes(path: str | os.PathLike) -> set[str]:
    """The dtype codes ("F32", "BF16", ...) the file's header names: after its length (8
    bytes, little-endian), a JSON object of ``{name: {"dtype", "shape", "data_offsets"}}``.
    Empty for a file that is not one (the safetensors package then says what is wrong)."""
    try:
        with open(path, "rb") as f:
            (length,) = struct.unpack("<Q", f.read(8))
            header = json.loads(f.read(min(length, _HEADER_LIMIT)))
        return {v["dtype"] for k, v in header.items() if k != "__metadata__"}
    except (OSError, struct.error, ValueError, TypeError, KeyError, AttributeError):
        return set()


_HEADER_LIMIT = 100_000_000  # (the safetensors package refuses a longer header)
