"""The order of a decomposed program's inputs: PyTorch's ``run_decompositions`` traces the
program's module anew, whose submodules are made as its parameters, then its buffers,
are set on it; the buffers come in that module's ``named_buffers`` order (a module's own
first, then its submodules' in the order they were made), so a buffer-only submodule
made after the parameters' moves behind the others."""

from __future__ import annotations

from typing import Any

from .graph_signature import InputKind


class _Module:
    def __init__(self) -> None:
        self.buffers: list[Any] = []
        self.children: dict[str, _Module] = {}

    def named_buffers(self) -> list[Any]:
        return self.buffers + [b for c in self.children.values() for b in c.named_buffers()]


def input_specs(specs: list[Any]) -> list[Any]:
    """``specs`` with the buffers' in the order of the module made anew."""
    root = _Module()
    for spec in specs:
        if spec.kind in (InputKind.PARAMETER, InputKind.BUFFER):
            module = root
            for part in spec.target.split(".")[:-1]:
                module = module.children.setdefault(part, _Module())
            if spec.kind == InputKind.BUFFER:
                module.buffers.append(spec)
    buffers = iter(root.named_buffers())
    return [next(buffers) if s.kind == InputKind.BUFFER else s for s in specs]
