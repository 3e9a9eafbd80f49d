"""``chainrule.nn.functional``: activations (the operator-library issue adds the rest)."""

from __future__ import annotations

from ..ops.functions import relu as _relu
from ..ops.functions import sigmoid, tanh  # noqa: F401


def relu(input, inplace: bool = False):
    """max(x, 0); relu'(0) = 0."""
    if inplace:
        from .._tensor import _inplace

        return _inplace(input, _relu, (input,), {})
    return _relu(input)


def __getattr__(name: str):
    from .._missing import missing

    raise missing("torch.nn.functional", name)
