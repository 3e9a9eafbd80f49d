"""``torch.save`` and ``torch.load`` in PyTorch's own file format, and the allowlist of
globals a file may name (``torch.serialization``).

A file chainrule saves loads in PyTorch, and a state_dict or checkpoint PyTorch saved loads
in chainrule; tensors that shared memory share it again after loading. Loading never runs
code from the file: chainrule always uses the restricted unpickler (PyTorch's
``weights_only=True``, its default since 2.6). ``weights_only=False`` (for a whole model
saved with ``torch.save(model)``) admits, besides, the ``nn.Module`` classes of modules
already imported, built with ``__new__`` and their saved state, and the public functions of
``torch.nn.functional`` a layer keeps: PyTorch would import and call whatever the file
names, chainrule nothing else (a deliberate difference: a file that needs more is refused).
chainrule's own classes and functions are written under PyTorch's names, so a whole model
chainrule saves loads in PyTorch.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
from collections.abc import Callable, Iterator
from typing import IO, Any

from .. import _backend
from .._tensor import device
from ._archive import ArchiveReader, ArchiveWriter, archive_name
from ._pickler import TorchPickler
from ._storages import StorageTable, read_storage, storage_bytes
from ._unpickler import WeightsUnpickler, _user_globals, global_name

__all__ = [
    "DEFAULT_PROTOCOL",
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "load",
    "safe_globals",
    "save",
]

DEFAULT_PROTOCOL = 2

FileLike = str | os.PathLike | IO[bytes]
# what ``map_location`` may be (PyTorch's alias, which libraries import for their hints)
MAP_LOCATION = Callable[[Any, str], Any] | device | str | dict[str, str] | None


def save(
    obj: object,
    f: FileLike,
    pickle_module: Any = pickle,
    pickle_protocol: int = DEFAULT_PROTOCOL,
    _use_new_zipfile_serialization: bool = True,
    _disable_byteorder_record: bool = False,
) -> None:
    """Save ``obj`` (tensors, Parameters, state_dicts, containers, numbers, strings) to a
    path or a binary file object, as PyTorch's zip archive."""
    if not _use_new_zipfile_serialization:
        raise NotImplementedError(
            "chainrule writes PyTorch's zip format only (_use_new_zipfile_serialization=True)"
        )
    storages = StorageTable()
    buffer = io.BytesIO()
    TorchPickler(buffer, storages, pickle_protocol).dump(obj)
    with _opened(f, "wb") as stream:
        writer = ArchiveWriter(stream, archive_name(f))
        writer.write("data.pkl", buffer.getvalue())
        writer.write(".format_version", b"1")
        writer.write(".storage_alignment", b"64")
        if not _disable_byteorder_record:
            writer.write("byteorder", b"little")
        for ref in storages.refs:
            writer.write(f"data/{ref.key}", storage_bytes(ref), aligned=True)
        writer.close()


def load(
    f: FileLike,
    map_location: Any = None,
    pickle_module: Any = None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
    **pickle_load_args: Any,
) -> Any:
    """Load an object saved by ``torch.save`` (PyTorch's or chainrule's) from a path or a
    binary file object, running no code from the file. Each storage goes back to the device
    it was saved from ('cuda:0' needs CUDA, else PyTorch's error), or where
    ``map_location`` says: a device (or its name) for all of them, a dict from saved
    locations to devices, or a function (chainrule: onto the CPU)."""
    _check_map_location(map_location)
    with _opened(f, "rb") as stream:
        if not _is_zip(stream):
            raise RuntimeError(
                "chainrule reads PyTorch's zip format (torch.save's default since PyTorch "
                "1.6); this file is not one (a legacy torch.save file, or not a PyTorch file)"
            )
        reader = ArchiveReader(stream)
        big_endian = reader.has("byteorder") and reader.read("byteorder") == b"big"
        cache: dict[str, Any] = {}
        placed: dict[tuple, Any] = {}  # (key, device type, dtype) -> the storage there

        def load_storage(key: str, dt: Any, numel: int, location: Any = "cpu") -> Any:
            if key not in cache:
                cache[key] = read_storage(reader.read(f"data/{key}"), dt, numel, big_endian)
            flat = cache[key]
            if flat.dtype != dt.np and flat.size == numel and flat.itemsize == dt.itemsize:
                flat = flat.view(dt.np)  # (PyTorch's file: a float8 tensor and its uint8 view)
            if flat.size != numel or flat.dtype != dt.np:
                raise pickle.UnpicklingError(
                    f"storage {key} is named with {numel} elements of {dt} and also with "
                    f"{flat.size} of another type (the file is damaged)"
                )
            kind = _restore_device(location, map_location)
            if kind == "cpu":
                return flat
            if (key, kind, dt) not in placed:  # once per storage: its tensors share it there
                placed[key, kind, dt] = _backend.to_device(flat, kind)
            return placed[key, kind, dt]

        data = reader.read("data.pkl")
        try:
            return WeightsUnpickler(
                io.BytesIO(data), load_storage, modules=weights_only is False
            ).load()
        except NotImplementedError:  # (a dtype chainrule cannot hold here: bfloat16 without
            raise  # ml_dtypes) says so itself, though it is an AttributeError too
        except (EOFError, IndexError, ValueError, TypeError, AttributeError, KeyError) as exc:
            raise pickle.UnpicklingError(
                f"Weights only load failed: data.pkl is not a valid pickle of tensors and "
                f"containers ({type(exc).__name__}: {exc})"
            ) from exc


def _check_map_location(map_location: Any) -> None:
    """Accept what maps onto the CPU: None, 'cpu', a CPU device, a dict or a function."""
    from .._tensor import check_device

    if map_location is None or callable(map_location) or isinstance(map_location, dict):
        return
    check_device(map_location)


def _restore_device(location: Any, map_location: Any) -> str:
    """The device type a storage saved at ``location`` ('cpu', 'cuda:0') is loaded onto:
    PyTorch's rules, with its errors for a CUDA storage where CUDA is not available."""
    if callable(map_location):
        return "cpu"
    if isinstance(map_location, dict):
        location = map_location.get(location, location)
    elif map_location is not None:
        location = map_location
    where = location if isinstance(location, device) else device(str(location))
    if where.type != "cuda":
        return "cpu"
    if _backend.module_of_device("cuda") is None:
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
            "is False. If you are running on a CPU-only machine, please use torch.load with "
            "map_location=torch.device('cpu') to map your storages to the CPU."
        )
    from .. import cuda

    count = cuda.device_count()
    if (where.index or 0) >= count:
        raise RuntimeError(
            f"Attempting to deserialize object on CUDA device {where.index} but "
            f"torch.cuda.device_count() is {count}. Please use torch.load with map_location "
            "to map your storages to an existing device."
        )
    return "cuda"


def _is_zip(stream: IO[bytes]) -> bool:
    start = stream.tell()
    magic = stream.read(4)
    stream.seek(start)
    return magic == b"PK\x03\x04"


@contextlib.contextmanager
def _opened(f: FileLike, mode: str) -> Iterator[IO[bytes]]:
    if isinstance(f, (str, os.PathLike)):
        with open(f, mode) as stream:
            yield stream
    else:
        yield f


def add_safe_globals(safe_globals: list[Any]) -> None:
    """Allow these classes or functions (or ``(obj, "module.name")`` pairs) in files."""
    for obj in safe_globals:
        _user_globals[global_name(obj)] = obj[0] if isinstance(obj, tuple) else obj


def get_safe_globals() -> list[Any]:
    return list(_user_globals.values())


def clear_safe_globals() -> None:
    _user_globals.clear()


@contextlib.contextmanager
def safe_globals(safe_globals: list[Any]) -> Iterator[None]:
    """Allow these globals while the block runs."""
    saved = dict(_user_globals)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        _user_globals.clear()
        _user_globals.update(saved)
