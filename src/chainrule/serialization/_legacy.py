"""PyTorch's legacy file format (``torch.save(..., _use_new_zipfile_serialization=False)``,
its default before PyTorch 1.6): pickles one after another (a magic number, the protocol
version 1001, a dict describing the machine, the object, the sorted list of storage keys),
then each storage in that order as its element count (8 bytes, little-endian) and its bytes.
A storage reference names a sixth item, ``view_metadata`` (None since PyTorch 1.0)."""

from __future__ import annotations

import io
import pickle
import struct
from collections.abc import Callable
from typing import IO, Any

from ._loader import StorageLoader, unpickle
from ._pickler import TorchPickler
from ._storages import STORAGE_OF, StorageTable, storage_bytes

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
SYS_INFO = {
    "protocol_version": PROTOCOL_VERSION,
    "little_endian": True,  # (chainrule writes little-endian bytes on any machine)
    "type_sizes": {"short": 2, "int": 4, "long": 4},
}


class LegacyPickler(TorchPickler):
    """TorchPickler with the legacy storage reference (its ``view_metadata`` None)."""

    def persistent_id(self, obj: Any) -> Any:
        pid = super().persistent_id(obj)
        return None if pid is None else (*pid, None)


def save_legacy(obj: Any, stream: IO[bytes], protocol: int) -> None:
    """Write ``obj`` in the legacy format."""
    storages = StorageTable()
    body = io.BytesIO()
    LegacyPickler(body, storages, protocol).dump(obj)
    for head in (MAGIC_NUMBER, PROTOCOL_VERSION, SYS_INFO):
        pickle.dump(head, stream, protocol=protocol)
    stream.write(body.getvalue())
    refs = {ref.key: ref for ref in storages.refs}
    keys = sorted(refs)
    pickle.dump(keys, stream, protocol=protocol)
    for key in keys:
        ref = refs[key]
        count = ref.flat.size if ref.dtype in STORAGE_OF else ref.flat.nbytes
        stream.write(struct.pack("<q", count))
        stream.write(storage_bytes(ref))


class _Header(pickle.Unpickler):
    """The plain values before the object (numbers, a dict, a list of strings): no globals."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(
            f"Weights only load failed: GLOBAL {module}.{name} in the header of a legacy "
            "torch.save file (the file is damaged or not a PyTorch file)"
        )


def load_legacy(
    stream: IO[bytes],
    restore: Callable[[Any], str],
    weights_only: bool,
    encoding: str = "utf-8",
    skip_data: bool = False,
) -> Any:
    """The object of a legacy file. The storages' bytes come after the object's pickle, so
    it is read twice: once to learn each storage's size, once over the storages read."""
    # (one unpickler per pickle: an unpickler may read ahead in a buffered file)
    if _first(_Header(stream, encoding=encoding)) != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    version = _Header(stream, encoding=encoding).load()
    if version != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {version}")
    info = _Header(stream, encoding=encoding).load()
    big_endian = isinstance(info, dict) and info.get("little_endian") is False
    start = stream.tell()
    sizes: dict[str, int] = {}

    def note(key: str, dt: Any, numel: int, location: Any = "cpu") -> Any:
        sizes[key] = numel * dt.itemsize
        return StorageLoader(_no_record, lambda _: "cpu", skip_data=True)(key, dt, numel)

    first = unpickle(stream, note, weights_only, encoding, legacy=True)
    keys = _Header(stream, encoding=encoding).load()
    if skip_data:
        return first  # (zeros, as PyTorch leaves the storages unread)
    records: dict[str, bytes] = {}
    for key in keys:
        if key not in sizes:
            raise RuntimeError(f"storage {key!r} of the legacy file is named by no tensor")
        (count,) = struct.unpack("<q", _exactly(stream, 8))
        if count < 0 or (count and sizes[key] % count) or (sizes[key] and not count):
            raise RuntimeError(f"storage {key!r} of the legacy file has a wrong size {count}")
        records[key] = _exactly(stream, sizes[key])
    stream.seek(start)
    loader = StorageLoader(records.__getitem__, restore, big_endian)
    return unpickle(stream, loader, weights_only, encoding, legacy=True)


def _first(header: _Header) -> Any:
    """The file's first pickle (a legacy file's magic number), with PyTorch's errors: an
    empty file raises EOFError, one that starts with no pickle UnpicklingError."""
    try:
        return header.load()
    except EOFError:
        raise
    except (pickle.UnpicklingError, ValueError, KeyError, IndexError, TypeError) as exc:
        raise pickle.UnpicklingError(
            f"the file is neither a zip archive (torch.save's format) nor a legacy torch.save "
            f"file: {exc}"
        ) from None


def _no_record(key: str) -> bytes:
    raise AssertionError(key)  # (never called: the first reading reads no bytes)


def _exactly(stream: IO[bytes], n: int) -> bytes:
    data = stream.read(n)
    if len(data) != n:
        raise RuntimeError(
            f"the legacy torch.save file ends inside its storages (expected {n} more bytes, "
            f"found {len(data)}): the file is truncated"
        )
    return data
