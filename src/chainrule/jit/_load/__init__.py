"""``torch.jit.load`` for TorchScript archives written by PyTorch's ``torch.jit.save``,
read and run without executing code from the file: a restricted unpickler for the module
tree and a tree-walking interpreter for the TorchScript source."""

from __future__ import annotations

from typing import Any

from ._archive import FileLike, read_archive
from ._module import RecursiveScriptModule, build_module

__all__ = ["RecursiveScriptModule", "load"]


def load(f: FileLike, map_location: Any = None, _extra_files: Any = None) -> RecursiveScriptModule:
    """The module a TorchScript archive holds, as a chainrule module that runs its code.
    ``_extra_files`` (a dict of names) gets each ``extra/<name>`` record's bytes."""
    archive = read_archive(f, map_location, _extra_files)
    if _extra_files is not None:
        _extra_files.update(archive.extra)
    root = build_module(archive)
    # what ``save`` writes again beside the module's state (``jit/_trace/_resave``)
    object.__setattr__(root, "_script_sources", dict(archive.sources))
    object.__setattr__(root, "_script_constants", tuple(archive.constants))
    return root
