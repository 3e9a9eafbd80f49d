"""State dicts in the safetensors format (through the ``safetensors`` package's NumPy
API; ``pip install chainrule[safetensors]``): a header of names, dtypes and shapes, then
raw little-endian data, with no pickle at all. Files are read and written by
``safetensors.torch.load_file``/``save_file`` too.

The format has complex64 ("C64") but no complex128: saving a complex128 tensor raises
``KeyError(torch.complex128)``, as ``safetensors.torch.save_file`` does, before any file is
written. bfloat16 ("BF16") goes both ways as ml_dtypes' bfloat16 (the safetensors NumPy
API knows it once ml_dtypes is imported); so do the float8 formats ("F8_E4M3", "F8_E5M2",
"F8_E4M3FNUZ", "F8_E5M2FNUZ"), whose bytes chainrule reads itself (the package's NumPy API
writes them but cannot read them back). Without ml_dtypes a file holding BF16 or float8 is
refused with chainrule's NotImplementedInChainrule, before anything is read."""

from __future__ import annotations

import json
import os
import struct
from collections.abc import Mapping
from typing import Any

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
    header, start = _header(path)
    reduced = {k: _REDUCED[v["dtype"]] for k, v in header.items() if v["dtype"] in _REDUCED}
    for d in reduced.values():
        d.np  # noqa: B018 - imports ml_dtypes (NumPy learns "bfloat16"), or says it is missing
    float8 = {k for k, d in reduced.items() if d in _dtypes.FLOAT8}
    if not float8:
        return {name: wrap(a) for name, a in _numpy_api().load_file(os.fspath(path)).items()}
    out = {}
    with _numpy_api().safe_open(os.fspath(path), framework="np") as f:  # (checks the header)
        for name in f.keys():
            if name in float8:
                out[name] = wrap(_read(path, start, header[name], reduced[name]))
            else:
                out[name] = wrap(f.get_tensor(name))
    return out


# the format's codes of the dtypes whose NumPy dtype is ml_dtypes'
_REDUCED = {
    "BF16": _dtypes.bfloat16,
    "F8_E4M3": _dtypes.float8_e4m3fn,
    "F8_E5M2": _dtypes.float8_e5m2,
    "F8_E4M3FNUZ": _dtypes.float8_e4m3fnuz,
    "F8_E5M2FNUZ": _dtypes.float8_e5m2fnuz,
}


def _read(path: str | os.PathLike, start: int, entry: dict, dtype: _dtypes.dtype) -> Any:
    """One tensor's elements, from byte ``start + begin`` to ``start + end`` of the file
    (offsets the safetensors package has checked against its shape and dtype)."""
    begin, end = entry["data_offsets"]
    raw = bytearray(end - begin)
    with open(path, "rb") as f:
        f.seek(start + begin)
        f.readinto(raw)
    return xp.frombuffer(raw, dtype=dtype.np).reshape(entry["shape"])


def _header(path: str | os.PathLike) -> tuple[dict, int]:
    """The file's header (after its length, 8 bytes little-endian, a JSON object of
    ``{name: {"dtype", "shape", "data_offsets"}}``, ``__metadata__`` left out) and where its
    data starts. Empty for a file that is not one (the safetensors package then says what
    is wrong)."""
    try:
        with open(path, "rb") as f:
            (length,) = struct.unpack("<Q", f.read(8))
            header = json.loads(f.read(min(length, _HEADER_LIMIT)))
        entries = {k: v for k, v in header.items() if k != "__metadata__"}
        if all(isinstance(v, dict) and isinstance(v.get("dtype"), str) for v in entries.values()):
            return entries, 8 + length
    except (OSError, struct.error, ValueError, TypeError, AttributeError):
        pass
    return {}, 0


_HEADER_LIMIT = 100_000_000  # (the safetensors package refuses a longer header)
