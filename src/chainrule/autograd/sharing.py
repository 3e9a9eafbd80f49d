"""What the VJPs of one node compute alike, computed once: a layer norm's x̂ for the gradients
of x and of its weight, attention's probabilities for those of q, k and v, a recurrent
layer's pass back through time for all of its inputs.

An op defined with ``shares=True`` has VJPs that call helpers wrapped in ``shared``. While
one of its nodes runs its VJPs (``Node.apply``), a wrapped helper called again with the same
arguments returns its first result; the node drops the results when it is done. Anywhere
else (a forward, a JVP, another op's VJP) the helper simply runs.

The same arguments are the same objects (arrays and tensors by identity, kept alive with the
result so that no other object takes their identity meanwhile), or equal tuples of numbers
(the dims a helper is given, built afresh by each VJP). A shared result is read by several
VJPs: none may write into it.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

_local = threading.local()  # .memo: the running node's results, None outside one


def shared(fn: Callable) -> Callable:
    """``fn``, called once per node for the same arguments (see the module's docstring)."""

    @functools.wraps(fn)
    def once(*args: Any) -> Any:
        memo = getattr(_local, "memo", None)
        if memo is None:
            return fn(*args)
        key = (fn, *map(_key, args))
        hit = memo.get(key)
        if hit is None:
            hit = memo[key] = (fn(*args), args)  # (the arguments kept: their ids stay theirs)
        return hit[0]

    return once


_PLAIN = frozenset({int, float, bool, str, type(None)})


def _key(arg: Any) -> Any:
    """``arg``'s part of a memo key: a tuple of numbers (dims) by value, anything else (an
    array, a tensor, a tuple of them) by identity."""
    if arg.__class__ is tuple and all(a.__class__ in _PLAIN for a in arg):
        return arg
    return id(arg)


def open_memo() -> Any:
    """Start keeping shared results (a node's VJPs are about to run); returns what
    ``close_memo`` restores (the results of a node whose VJPs run this backward, if any)."""
    previous = getattr(_local, "memo", None)
    _local.memo = {}
    return previous


def close_memo(previous: Any) -> None:
    """Drop the running node's shared results and restore ``previous``."""
    _local.memo = previous
