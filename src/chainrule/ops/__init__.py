"""The op definitions, one module per mathematical family.

Each op is one ``defop`` entry: its forward on arrays, one VJP and one JVP per input
(see docs/architecture.md). Importing this package defines (and registers) every op.
"""

from . import (  # noqa: F401
    activations,
    arithmetic,
    attention,
    binary,
    convolution,
    copies,
    distances,
    embedding,
    gather_scatter,
    indexing,
    joining,
    logical,
    losses,
    norm_layers,
    normalizations,
    padding,
    pooling,
    random,
    recurrent,
    reductions,
    resampling,
    scans,
    shapes,
    sorting,
    sparse_products,
    special,
    unary,
)
from .linalg import factorizations, inverses, matrices, products  # noqa: F401


def __getattr__(name: str) -> object:
    """``torch.ops.<ns>``: the operators a namespace defined through ``torch.library``;
    ``torch.ops.aten``, the ATen overloads chainrule.export runs."""
    if name == "aten":
        from ..export._reader import ATEN

        return ATEN
    if not name.startswith("_"):
        from ..library import _ops

        if name in _ops._REGISTRY:
            return _ops.namespace(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
