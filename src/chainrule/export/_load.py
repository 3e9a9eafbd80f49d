"""``torch.export.load``: an ExportedProgram from a ``.pt2`` archive."""

from __future__ import annotations

import os
from typing import IO, Any

from . import _archive, _higher_order
from ._reader import read_graph, read_signature
from .exported_program import (
    ExportedProgram,
    ModuleCallEntry,
    ValueRanges,
    _Symbol,
    root_signature,
)
from .graph_signature import InputKind


def _bound(value: Any, default: str) -> Any:
    return default if value is None else value


def load(
    f: str | os.PathLike | IO[bytes],
    *,
    extra_files: dict[str, Any] | None = None,
    expected_opset_version: dict[str, int] | None = None,
) -> ExportedProgram:
    """The ExportedProgram saved in ``f`` by ``torch.export.save`` (read, never run:
    tensors from raw bytes, records through the restricted ``torch.load``).
    ``extra_files``' values are filled in with the archive's extra files."""
    archive = _archive.read(f, extra_files)
    if extra_files is not None:
        extra_files.update(archive.extra_files)
    program = archive.program
    major = program.get("schema_version", {}).get("major")
    if major is not None and major != _archive.SCHEMA_MAJOR:
        raise RuntimeError(
            f"Serialized schema version {program['schema_version']} does not match our "
            f"current schema version {_archive.SCHEMA_MAJOR}."
        )
    gm = program["graph_module"]
    graph = read_graph(gm["graph"])
    signature = read_signature(gm["signature"])
    state: dict[str, Any] = {}
    constants: dict[str, Any] = {}
    for spec in signature.input_specs:
        if spec.kind == InputKind.PARAMETER:
            state[spec.target] = archive.weights[spec.target]
        elif spec.kind == InputKind.BUFFER:
            source = archive.weights if spec.target in archive.weights else archive.constants
            if spec.persistent is False:
                constants[spec.target] = source[spec.target]
            else:
                state[spec.target] = source[spec.target]
        elif spec.kind == InputKind.CONSTANT_TENSOR:
            constants[spec.target] = archive.constants[spec.target]
    # the archive's order (PyTorch's ``ep.constants`` order)
    constants = {k: constants[k] for k in archive.constants if k in constants}
    ranges = {
        _Symbol(name): ValueRanges(
            _bound(r.get("min_val"), "-int_oo"), _bound(r.get("max_val"), "int_oo")
        )
        for name, r in program.get("range_constraints", {}).items()
        if _higher_order.appears(name, gm["graph"])
    }
    calls = [
        ModuleCallEntry(entry["fqn"], root_signature(entry.get("signature")))
        for entry in gm.get("module_call_graph", [])
    ]
    return ExportedProgram(
        graph,
        signature,
        state,
        range_constraints=ranges,
        module_call_graph=calls,
        example_inputs=archive.example_inputs,
        constants=constants,
        verifiers=program.get("verifiers", []),
    )
