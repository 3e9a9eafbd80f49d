"""Random draws as ops: the in-place samplers (``uniform_``, ``normal_``, ...) and
``normal``/``bernoulli``/``poisson`` of tensors that require grad.

The values are drawn by the caller (``api/parsers/random.py``, from a generator) and
handed to the op, which only records the node PyTorch records. As in PyTorch, a draw does
not depend differentiably on its parameters: every gradient is zero."""

from __future__ import annotations

from ..autograd.recording import KEEP, defop
from . import copies


def _drawn(x, values=None, node_name="NormalBackward0"):
    """the values drawn (by the caller) for x's place"""
    return values


def _node(*arrays, values=None, node_name="NormalBackward0"):
    return node_name


sample = defop(
    "sample",
    _drawn,
    dtypes=KEEP,
    node=_node,
    vjp=lambda g: copies.zero(g),  # d/dx = 0: the draw replaces x
    jvp=lambda t: copies.zero(t),  # as the VJP
)


def _drawn2(a, b, values=None, node_name="NormalBackward3"):
    """the values drawn (by the caller) from a distribution with parameters a and b"""
    return values


sample2 = defop(
    "sample2",
    _drawn2,
    args=("a", "b"),
    dtypes=KEEP,
    node=_node,
    vjp=(
        lambda g: copies.zero(g),  # d/da = 0: the draw is not reparameterized
        lambda g: copies.zero(g),  # d/db = 0
    ),
    jvp=(
        lambda t: copies.zero(t),  # as the VJP
        lambda t: copies.zero(t),  # as the VJP
    ),
)
