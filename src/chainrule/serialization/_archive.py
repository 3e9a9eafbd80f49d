"""PyTorch's file format on disk: a zip archive (stored, not compressed) whose records sit
under one top folder: ``data.pkl`` (the pickled object), ``byteorder``, ``version``,
``.format_version``, ``.storage_alignment``, ``.data/serialization_id`` and one record
``data/<key>`` per storage, its bytes starting at a multiple of 64 as PyTorch aligns them."""

from __future__ import annotations

import os
import secrets
import struct
import zipfile
from typing import IO, Any

ALIGNMENT = 64
_PAD_ID = 0x4246  # "FB": the extra field PyTorch pads local headers with


def archive_name(f: Any) -> str:
    """The top folder: the file's name without its extension, or "archive" for a stream."""
    if isinstance(f, (str, os.PathLike)):
        return os.path.splitext(os.path.basename(os.fspath(f)))[0] or "archive"
    return "archive"


class ArchiveWriter:
    """Writes records in PyTorch's order, each storage aligned to 64 bytes."""

    def __init__(self, f: IO[bytes], name: str) -> None:
        self.zip = zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED, allowZip64=True)
        self.name = name
        self.stream = f

    def write(self, record: str, data: bytes, aligned: bool = False) -> None:
        info = zipfile.ZipInfo(f"{self.name}/{record}", date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_STORED
        if aligned:
            start = self.zip.fp.tell() + 30 + len(info.filename.encode())
            pad = (-(start + 4)) % ALIGNMENT
            info.extra = struct.pack("<HH", _PAD_ID, pad) + b"Z" * pad
        self.zip.writestr(info, data)

    def close(self) -> None:
        self.write("version", b"3\n")
        self.write(".data/serialization_id", str(secrets.randbits(128)).zfill(40).encode())
        self.zip.close()


class ArchiveReader:
    """Reads the records of a PyTorch archive, whatever its top folder is called."""

    def __init__(self, f: IO[bytes]) -> None:
        try:
            self.zip = zipfile.ZipFile(f)
        except zipfile.BadZipFile as exc:
            raise RuntimeError(
                "PytorchStreamReader failed reading zip archive: failed finding central "
                "directory (the file is not a PyTorch archive, or it is truncated)"
            ) from exc
        pickles = [n for n in self.zip.namelist() if n.endswith("data.pkl") and n.count("/") == 1]
        if not pickles:
            raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")
        self.prefix = pickles[0][: -len("data.pkl")]

    def has(self, record: str) -> bool:
        try:
            self.zip.getinfo(self.prefix + record)
        except KeyError:
            return False
        return True

    def read(self, record: str) -> bytes:
        try:
            return self.zip.read(self.prefix + record)
        except KeyError:
            raise RuntimeError(
                f"PytorchStreamReader failed locating file {record}: file not found"
            ) from None
        except (zipfile.BadZipFile, EOFError, OSError) as exc:
            raise RuntimeError(
                f"PytorchStreamReader failed reading file {record}: the archive is damaged ({exc})"
            ) from exc

    def size(self, record: str) -> int:
        return self.zip.getinfo(self.prefix + record).file_size

    def span(self, record: str) -> tuple[int, int]:
        """Where a stored record's bytes start in the file, and how many there are (to view
        them in a memory-mapped file)."""
        try:
            info = self.zip.getinfo(self.prefix + record)
        except KeyError:
            raise RuntimeError(
                f"PytorchStreamReader failed locating file {record}: file not found"
            ) from None
        fp = self.zip.fp
        fp.seek(info.header_offset)
        local = fp.read(30)  # the local header: its name and extra field lengths at 26
        if len(local) != 30 or local[:4] != b"PK\x03\x04" or info.compress_type:
            raise RuntimeError(f"PytorchStreamReader failed reading file {record}")
        name_len, extra_len = struct.unpack("<HH", local[26:30])
        return info.header_offset + 30 + name_len + extra_len, info.file_size
