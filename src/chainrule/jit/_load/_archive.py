"""The records of a TorchScript archive written by ``torch.jit.save``: a zip whose top
folder holds ``data.pkl`` (the module tree; tensors by persistent id into ``data/<key>``),
``constants.pkl`` (the tensors code names as ``CONSTANTS.c<i>``, in ``constants/<key>``),
``code/__torch__/....py`` (the classes' TorchScript source), ``version`` and ``extra/``."""

from __future__ import annotations

import os
import pickle
from typing import IO, Any

from ... import _backend
from ...serialization import _check_map_location, _is_zip, _opened, _restore_device
from ...serialization._archive import ArchiveReader
from ...serialization._storages import read_storage
from ._unpickle import unpickle

FileLike = str | os.PathLike | IO[bytes]


class ScriptArchive:
    """What ``torch.jit.load`` reads from an archive: the module object tree, the constants
    tuple, the source of each code file keyed by its module name (``__torch__.torch.nn.
    modules.linear``), the format version and the extra files asked for."""

    def __init__(
        self, tree: Any, constants: tuple, sources: dict[str, str], version: int,
        extra: dict[str, bytes],
    ) -> None:  # fmt: skip
        self.tree, self.constants, self.sources = tree, constants, sources
        self.version, self.extra = version, extra


def read_archive(f: FileLike, map_location: Any, extra_names: Any) -> ScriptArchive:
    """Read every record a TorchScript archive's module needs, running no code from it."""
    _check_map_location(map_location)
    with _opened(f, "rb") as stream:
        if not _is_zip(stream):
            raise RuntimeError(
                "torch.jit.load: the file is not a TorchScript archive (a zip written by "
                "torch.jit.save)"
            )
        reader = ArchiveReader(stream)
        if not any(n.startswith(reader.prefix + "code/") for n in reader.zip.namelist()):
            raise RuntimeError(
                "torch.jit.load: the archive has no code/ records: it is no TorchScript "
                "archive (a file of torch.save is read by torch.load)"
            )
        big_endian = reader.has("byteorder") and reader.read("byteorder") == b"big"

        def storages(folder: str) -> Any:
            cache: dict[tuple, Any] = {}

            def load_storage(key: str, dt: Any, numel: int, location: Any = "cpu") -> Any:
                if (key, dt) not in cache:
                    raw = reader.read(f"{folder}/{key}")
                    cache[key, dt] = read_storage(raw, dt, numel, big_endian)
                flat = cache[key, dt]
                if flat.size != numel:
                    raise pickle.UnpicklingError(
                        f"storage {folder}/{key} is named with two sizes (the file is damaged)"
                    )
                if _restore_device(location, map_location) == "cuda":
                    return _backend.to_device(flat, "cuda")
                return flat

            return load_storage

        tree = unpickle(reader.read("data.pkl"), storages("data"))
        constants: Any = ()
        if reader.has("constants.pkl"):
            constants = unpickle(reader.read("constants.pkl"), storages("constants"))
        if not isinstance(constants, tuple):
            raise pickle.UnpicklingError("torch.jit.load: constants.pkl holds no tuple")
        sources = {}
        for name in reader.zip.namelist():
            record = name[len(reader.prefix) :]
            if name.startswith(reader.prefix) and record.startswith("code/"):
                if record.endswith(".py"):
                    module = record[len("code/") : -len(".py")].replace("/", ".")
                    sources[module] = reader.read(record).decode("utf-8")
        record = "version" if reader.has("version") else ".data/version"
        version = int(reader.read(record).decode().strip() or 0) if reader.has(record) else 0
        extra = {}
        for key in extra_names or ():
            record = f"extra/{key}"
            extra[key] = reader.read(record) if reader.has(record) else b""
        return ScriptArchive(tree, constants, sources, version, extra)
