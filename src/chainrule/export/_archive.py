"""Reading a ``.pt2`` archive (what ``torch.export.save`` writes): the program's JSON,
its weights and constants as raw bytes (or torch.save records) and the sample inputs.

Nothing in the archive is run: tensors are read as bytes with the dtype, sizes and
strides their JSON gives, and pickled records go through chainrule's restricted
``torch.load``.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np

import chainrule

from ._schema import dtype_of

# the archive version and schema major version this reader knows
ARCHIVE_VERSION = "0"
SCHEMA_MAJOR = 8


@dataclass
class Archive:
    """The parts of one saved program."""

    program: dict
    weights: dict[str, Any] = field(default_factory=dict)
    constants: dict[str, Any] = field(default_factory=dict)
    example_inputs: Any = None
    extra_files: dict[str, str] = field(default_factory=dict)


def _tensor_from_bytes(raw: bytes, meta: dict) -> chainrule.Tensor:
    """The tensor a ``TensorMeta`` describes over the storage bytes ``raw``."""
    dtype = dtype_of(meta["dtype"])
    np_dtype = chainrule.empty((0,), dtype=dtype).numpy().dtype
    flat = np.frombuffer(raw, dtype=np_dtype) if raw else np.zeros((0,), np_dtype)
    sizes = [s["as_int"] for s in meta["sizes"]]
    strides = [s["as_int"] for s in meta["strides"]]
    offset = meta["storage_offset"]["as_int"]
    item = flat.itemsize
    view = np.lib.stride_tricks.as_strided(
        flat[offset:], shape=sizes, strides=[s * item for s in strides]
    )
    return chainrule.from_numpy(np.array(view, copy=True))


def _read_payload(zf: zipfile.ZipFile, prefix: str, folder: str) -> dict[str, Any]:
    """name -> tensor (or object) of one payload folder (weights or constants)."""
    config_name = f"{prefix}data/{folder}/model_{folder}_config.json"
    if config_name not in zf.namelist():
        return {}
    config = json.loads(zf.read(config_name))["config"]
    values: dict[str, Any] = {}
    for name, entry in config.items():
        raw = zf.read(f"{prefix}data/{folder}/{entry['path_name']}")
        if entry.get("use_pickle"):
            values[name] = chainrule.load(io.BytesIO(raw))
        else:
            values[name] = _tensor_from_bytes(raw, entry["tensor_meta"])
        if entry.get("is_param"):
            values[name] = chainrule.nn.Parameter(
                values[name], requires_grad=entry["tensor_meta"]["requires_grad"]
            )
    return values


def _prefix(names: list[str]) -> str:
    """The archive's top folder (``model/`` for ``model.pt2``), found from its JSON."""
    for n in names:
        head, sep, _ = n.partition("models/")
        if sep and n.endswith(".json") and head.count("/") <= 1:
            return head
    raise RuntimeError("This is not a torch.export archive: it has no models/*.json")


def read(
    f: str | os.PathLike | IO[bytes],
    extra_files: dict[str, Any] | None = None,
) -> Archive:
    """The program JSON, weights, constants and sample inputs of the archive ``f``."""
    with zipfile.ZipFile(f) as zf:
        names = zf.namelist()
        prefix = _prefix(names)
        version_name = f"{prefix}archive_version"
        if version_name in names:
            version = zf.read(version_name).decode().strip()
            if version != ARCHIVE_VERSION:
                raise ValueError(
                    f"Saved archive version {version} does not match our current archive "
                    f"version {ARCHIVE_VERSION}."
                )
        models = sorted(
            n for n in names if n.startswith(f"{prefix}models/") and n.endswith(".json")
        )
        model = f"{prefix}models/model.json" if f"{prefix}models/model.json" in names else models[0]
        program = json.loads(zf.read(model))
        archive = Archive(program=program)
        archive.weights = _read_payload(zf, prefix, "weights")
        archive.constants = _read_payload(zf, prefix, "constants")
        sample = f"{prefix}data/sample_inputs/model.pt"
        if sample in names:
            archive.example_inputs = chainrule.load(io.BytesIO(zf.read(sample)))
        for key in extra_files or {}:
            path = f"{prefix}extra/{key}"
            if path in names:
                archive.extra_files[key] = zf.read(path).decode()
    return archive
