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
import mmap as mmap_module
import os
import pickle
import warnings
from collections.abc import Callable, Iterator
from typing import IO, Any

from .. import _backend
from .._tensor import device
from ._archive import ArchiveReader, ArchiveWriter, archive_name
from ._checkpoint import _skipping_data, get_unsafe_globals_in_checkpoint, skip_data
from ._legacy import load_legacy, save_legacy
from ._loader import StorageLoader, unpickle
from ._pickler import TorchPickler
from ._storages import StorageTable, storage_bytes
from ._unpickler import _user_globals, global_name

__all__ = [
    "DEFAULT_PROTOCOL",
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "get_unsafe_globals_in_checkpoint",
    "load",
    "safe_globals",
    "save",
    "skip_data",
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
    path or a binary file object, as PyTorch's zip archive (or, with
    ``_use_new_zipfile_serialization=False``, its legacy format)."""
    _check_writable(f)
    if not _use_new_zipfile_serialization:
        if _skipping_data():
            raise RuntimeError(
                "Cannot use skip_data=True with _use_new_zipfile_serialization=False"
            )
        with _opened(f, "wb") as stream:
            save_legacy(obj, stream, pickle_protocol)
        return
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
        for ref in storages.refs:  # (under skip_data, zeros where the bytes would be)
            data = storage_bytes(ref)
            writer.write(f"data/{ref.key}", bytes(len(data)) if _skipping_data() else data,
                         aligned=True)  # fmt: skip
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
    """Load an object saved by ``torch.save`` (PyTorch's or chainrule's, in the zip or the
    legacy format) from a path or a binary file object, running no code from the file.
    Each storage goes back to the device it was saved from ('cuda:0' needs CUDA, else
    PyTorch's error), or where ``map_location`` says: a device (or its name) for all of
    them, a dict from saved locations to devices, or a function (chainrule: onto the CPU).
    ``mmap=True`` (a path only) views the file's memory, copied on write, as PyTorch's."""
    if weights_only is None:  # (PyTorch: an explicit pickle_module means weights_only=False)
        weights_only = pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    encoding = pickle_load_args.get("encoding", "utf-8")
    _check_map_location(map_location)
    if mmap and not isinstance(f, (str, os.PathLike)):
        raise ValueError("f must be a file path in order to use the mmap argument")

    def restore(location: Any) -> str:
        return _restore_device(location, map_location)

    with _opened(f, "rb") as stream:
        _check_seekable(stream)
        if not _is_zip(stream):
            if mmap:
                name = f"{f}, " if isinstance(f, str) else ""
                raise RuntimeError(
                    "mmap can only be used with files saved with `torch.save("
                    f"{name}_use_new_zipfile_serialization=True), please torch.save your "
                    "checkpoint with this option in order to use mmap."
                )
            return load_legacy(stream, restore, weights_only, encoding, _skipping_data())
        reader = ArchiveReader(stream)
        big_endian = reader.has("byteorder") and reader.read("byteorder") == b"big"
        if mmap:
            with open(f, "rb") as opened:  # type: ignore[arg-type]
                # (private, copy-on-write: writes into the tensors never reach the file)
                memory = mmap_module.mmap(opened.fileno(), 0, access=mmap_module.ACCESS_COPY)

            def read_record(key: str) -> Any:
                start, size = reader.span(f"data/{key}")
                return memoryview(memory)[start : start + size]
        else:

            def read_record(key: str) -> Any:
                return reader.read(f"data/{key}")

        loader = StorageLoader(read_record, restore, big_endian, not mmap, _skipping_data())
        return unpickle(reader.read("data.pkl"), loader, weights_only, encoding)


def _check_writable(f: Any) -> None:
    """PyTorch's errors for a destination it cannot write: a missing folder, no file."""
    if isinstance(f, (str, os.PathLike)):
        parent = os.path.dirname(os.path.abspath(os.fspath(f)))
        if not os.path.isdir(parent):
            raise RuntimeError(f"Parent directory {parent} does not exist.")
    elif not hasattr(f, "write"):
        raise AttributeError(
            "expected 'f' to be string, path, or a file-like object with a 'write' attribute"
        )


def _check_seekable(stream: Any) -> None:
    """PyTorch's error for a source it cannot seek in (it reads a file more than once)."""
    try:
        stream.seek(stream.tell())
    except (io.UnsupportedOperation, AttributeError) as exc:
        raise type(exc)(
            f"{exc}. You can only torch.load from a file that is seekable. Please pre-load "
            "the data into a buffer like io.BytesIO and try to load from it instead."
        ) from None


def _check_map_location(map_location: Any) -> None:
    """Accept what maps onto the CPU: None, 'cpu', a CPU device, a dict or a function."""
    from .._tensor import check_device

    if map_location is None or callable(map_location) or isinstance(map_location, dict):
        return
    if not isinstance(map_location, (str, device)):
        raise TypeError(
            f"map_location must be a str, a torch.device, a dict or a function, not "
            f"{type(map_location).__name__}"
        )
    if device(map_location).type not in ("cuda", "meta"):  # (CUDA's error comes on restoring)
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
    if where.type == "meta":
        return "meta"
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
