"""The storages of a file being loaded: each read once (from a zip record, a legacy file's
storage section, or the memory-mapped file), viewed as the dtype a tensor names, and placed
on the device ``map_location`` says; then ``data.pkl`` unpickled over them."""

from __future__ import annotations

import io
import pickle
from collections.abc import Callable
from typing import Any

from .. import _backend
from .._meta import meta_array
from ._storages import read_storage
from ._unpickler import WeightsUnpickler

# what reads the bytes of storage ``key``: a zip record or a slice of the legacy file
ReadRecord = Callable[[str], Any]


class StorageLoader:
    """``load(key, dtype, numel, location)``: the flat array of storage ``key`` (the same
    one for every tensor over it, so they share memory after loading)."""

    def __init__(
        self,
        read_record: ReadRecord,
        restore: Callable[[Any], str],
        big_endian: bool = False,
        copy: bool = True,
        skip_data: bool = False,
    ) -> None:
        self.read_record = read_record
        self.restore = restore  # a saved location -> "cpu", "cuda" or "meta"
        self.big_endian = big_endian
        self.copy = copy  # False: views of a memory-mapped file (mmap=True)
        self.skip_data = skip_data  # skip_data(): zeros, the file's bytes are not read
        self.cache: dict[str, Any] = {}
        self.placed: dict[tuple, Any] = {}  # (key, device type, dtype) -> the storage there

    def __call__(self, key: str, dt: Any, numel: int, location: Any = "cpu") -> Any:
        kind = self.restore(location)
        if kind == "meta":  # (PyTorch reads no bytes for the meta device)
            return meta_array((numel,), dt.np)
        if key not in self.cache:
            if self.skip_data:
                self.cache[key] = _backend.xp.zeros(numel, dt.np)
            else:
                raw = self.read_record(key)
                self.cache[key] = read_storage(raw, dt, numel, self.big_endian, self.copy)
        flat = self.cache[key]
        if flat.dtype != dt.np and flat.size == numel and flat.itemsize == dt.itemsize:
            flat = flat.view(dt.np)  # (PyTorch's file: a float8 tensor and its uint8 view)
        if flat.size != numel or flat.dtype != dt.np:
            raise pickle.UnpicklingError(
                f"storage {key} is named with {numel} elements of {dt} and also with "
                f"{flat.size} of another type (the file is damaged)"
            )
        if kind == "cpu":
            return flat
        if (key, kind, dt) not in self.placed:  # once per storage: its tensors share it there
            self.placed[key, kind, dt] = _backend.to_device(flat, kind)
        return self.placed[key, kind, dt]


def unpickle(
    data: bytes | io.BytesIO,
    load_storage: Callable[..., Any],
    weights_only: bool,
    encoding: str = "utf-8",
    legacy: bool = False,
) -> Any:
    """The object pickled in ``data`` (its storages from ``load_storage``), with PyTorch's
    error for a pickle that is not one of tensors and containers."""
    stream = io.BytesIO(data) if isinstance(data, bytes) else data
    unpickler = WeightsUnpickler(
        stream, load_storage, modules=not weights_only, encoding=encoding, legacy=legacy
    )
    try:
        return unpickler.load()
    except NotImplementedError:  # (a dtype chainrule cannot hold here: bfloat16 without
        raise  # ml_dtypes) says so itself, though it is an AttributeError too
    except (EOFError, IndexError, ValueError, TypeError, AttributeError, KeyError) as exc:
        raise pickle.UnpicklingError(
            f"Weights only load failed: data.pkl is not a valid pickle of tensors and "
            f"containers ({type(exc).__name__}: {exc})"
        ) from exc
