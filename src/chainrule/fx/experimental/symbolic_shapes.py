"""``chainrule.fx.experimental.symbolic_shapes`` (PyTorch's
``torch.fx.experimental.symbolic_shapes``): the error an export raises when the traced
forward reads a value that depends on its input's data.

PyTorch's export runs the forward on fake tensors, so ``bool(x.sum() > 0)``, ``x.item()``
or ``float(x.max())`` meet a symbol with no value and raise
``GuardOnDataDependentSymNode``; chainrule's export traces real tensors and raises the same
error at the same reads, instead of freezing this input's branch or number into the
program. chainrule has no symbolic shape environment otherwise (``ShapeEnv``, ``SymInt``
guards): those names raise a clear error.
"""

from __future__ import annotations

from typing import Any

from ..._missing import missing

__all__ = ["GuardOnDataDependentSymNode"]


class GuardOnDataDependentSymNode(RuntimeError):
    """A traced program's control flow or a Python number depends on the input's data."""

    def __init__(self, cond: Any, *args: Any) -> None:
        super().__init__(*args)
        self.cond = cond


def __getattr__(name: str) -> Any:
    raise missing("torch.fx.experimental.symbolic_shapes", name)
