"""``torch.fx.passes.infra.pass_base``: the interface of a pass over a GraphModule."""

from __future__ import annotations

import abc
from typing import Any, NamedTuple

__all__ = ["PassResult", "PassBase"]


class PassResult(NamedTuple):
    """What a pass returns: the (possibly new) module and whether the pass changed it."""

    graph_module: Any
    modified: bool


class PassBase(abc.ABC):
    """A pass: ``call(graph_module)`` does the work; calling the pass runs ``requires``,
    ``call`` and ``ensures``."""

    def __call__(self, graph_module: Any) -> PassResult | None:
        self.requires(graph_module)
        res = self.call(graph_module)
        self.ensures(graph_module)
        return res

    @abc.abstractmethod
    def call(self, graph_module: Any) -> PassResult | None:
        """Run the pass on ``graph_module``."""

    def requires(self, graph_module: Any) -> None:  # noqa: B027
        """Check the pass's preconditions (nothing, unless overridden)."""

    def ensures(self, graph_module: Any) -> None:  # noqa: B027
        """Check the pass's postconditions (nothing, unless overridden)."""
