"""``torch.PyTorchFileReader`` (``torch._C.PyTorchFileReader``): the records of a
PyTorch archive (what ``torch.save`` writes), by name."""

from __future__ import annotations

import os
from typing import IO

from ._archive import ArchiveReader

__all__ = ["PyTorchFileReader"]


class PyTorchFileReader:
    """Opens a PyTorch archive (a path or a binary file object) and reads its records,
    named without the archive's top folder (``data.pkl``, ``data/0``, ``version``)."""

    def __init__(self, name_or_buffer: str | os.PathLike | IO[bytes]) -> None:
        self._owned: IO[bytes] | None = None
        if isinstance(name_or_buffer, (str, os.PathLike)):
            path = os.fspath(name_or_buffer)
            try:
                self._owned = open(path, "rb")  # (closed with the reader)
            except OSError as exc:
                raise RuntimeError(
                    f"open file failed because of errno {exc.errno} on fopen: "
                    f"{exc.strerror}, file path: {path}"
                ) from None
        self._archive = ArchiveReader(self._owned or name_or_buffer)  # type: ignore[arg-type]

    def __del__(self) -> None:
        owned = getattr(self, "_owned", None)
        if owned is not None:
            owned.close()

    def get_record(self, name: str) -> bytes:
        """The bytes of record ``name``."""
        return self._archive.read(name)

    def has_record(self, name: str) -> bool:
        """Whether the archive holds record ``name``."""
        return self._archive.has(name)

    def get_record_size(self, name: str) -> int:
        """The size in bytes of record ``name``."""
        if not self._archive.has(name):
            self._archive.read(name)  # (raises PyTorch's error)
        return self._archive.size(name)

    def get_all_records(self) -> list[str]:
        """The names of every record."""
        prefix = self._archive.prefix
        names = self._archive.zip.namelist()
        return [n[len(prefix) :] for n in names if n.startswith(prefix) and not n.endswith("/")]

    def serialization_id(self) -> str:
        """The archive's ``.data/serialization_id`` record ("" where it has none)."""
        if not self._archive.has(".data/serialization_id"):
            return ""
        return self._archive.read(".data/serialization_id").decode()
