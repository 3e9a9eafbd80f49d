"""No ops: how a VJP running on arrays writes its result into the output gradient it was
handed, when nothing else can see that gradient's memory.

Backward without create_graph hands VJPs arrays. The output gradient ``g`` is usually a
temporary the previous VJP made for this node alone; a VJP of the form g · f(x) can then
compute f(x) block by block and multiply it into g, in place: no array of the full size is
allocated, as NumPy's own temporary elision does for ``a * b + c``. Where ``g`` is shared
(one gradient handed to several inputs by add's VJP, a gradient the caller passed to
``backward``, a hook's view) or is a tensor (create_graph: the VJP records ops), the VJP
computes g · f(x) as written, into a new array. Both give the same bits: the same ufuncs
on the same elements in the same order.

Where the result of a VJP would equal one of its saved arrays (mul's g · a, g the broadcast
of one that a sum hands on), ``lent`` gives that array itself as a read-only view, and the
product's pass over memory is saved. VJPs lend only while the engine's plain loop runs them
(``_modes.state.lending``); that loop copies a lent array before user code sees it
(``_backend.lend``). In ``((x * 2 + 1).tanh() * x).sum()``, the issue's 4M-element
expression, mul's two gradients are x and the tanh's output themselves.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from .._backend import lend, ndarray, xp
from .._modes import state as _state

_refcount = sys.getrefcount

# References to the output gradient while a VJP runs, when nothing else holds it: the
# engine's gradient buffer (the list handed to Node.apply), Node.apply's local ``g``, the
# VJP's parameter (``writable`` is called from the VJP function itself, not through a
# lambda), ``writable``'s parameter and getrefcount's argument. More means it is shared:
# it is left alone. tests/autograd/test_lean_vjps.py pins both sides (a private
# gradient is written into, shared ones are not); a change in how the engine hands
# gradients to nodes shows there first.
PRIVATE_REFS = 5

BLOCK = 1 << 15  # elements per block: a block of each operand stays in the cache

# Below this many elements a new array is as cheap as writing into g (NumPy keeps freed
# buffers of up to 1 KiB for reuse): the checks would cost more than they save (the
# backward of a 2,000-op chain of 3-element tensors: 0.1 µs of 1.4 a node).
SMALL = 256


def writable(g: Any, *like: Any) -> bool:
    """Whether ``g`` is an array only the engine's buffer for this node refers to, owning
    contiguous writable memory of the shape of each array in ``like`` (so blocks line up)."""
    if type(g) is not ndarray or g.size < SMALL or _refcount(g) != PRIVATE_REFS:
        return False
    flags = g.flags
    return flags.owndata and flags.writeable and lined_up(g, *like)


def lined_up(g: Any, *like: Any) -> bool:
    """Whether ``g`` and each array in ``like`` are contiguous arrays of one shape and dtype
    with at least SMALL elements (``scale_into`` can take them block by block)."""
    if type(g) is not ndarray or g.size < SMALL or not g.flags.c_contiguous:
        return False
    for a in like:
        if type(a) is not ndarray or a.shape != g.shape or a.dtype != g.dtype:
            return False
        if not a.flags.c_contiguous:
            return False
    return True


def scale_in_place(g: ndarray, factor: Callable[..., ndarray], *arrays: ndarray) -> ndarray:
    """g ⊙ factor(*arrays), written into g block by block (``writable(g, *arrays)`` first)."""
    return scale_into(g, g, factor, *arrays)


def scale_into(
    out: ndarray, g: ndarray, factor: Callable[..., ndarray], *arrays: ndarray
) -> ndarray:
    """g ⊙ factor(*arrays) written into ``out`` (g itself, or a new array of its shape) block
    by block (``lined_up(g, *arrays)`` first): ``factor(*blocks, out=scratch)`` writes each
    block's factor into one small array, so each operand is read once."""
    flat = g.reshape(-1)
    dest = out.reshape(-1)
    parts = [a.reshape(-1) for a in arrays]
    scratch = xp.empty(min(BLOCK, flat.size), g.dtype)
    for start in range(0, flat.size, BLOCK):
        block = slice(start, start + BLOCK)
        part = flat[block]
        xp.multiply(
            part, factor(*(p[block] for p in parts), out=scratch[: part.size]), out=dest[block]
        )
    return out


def lent(g: ndarray, a: Any) -> ndarray | None:
    """``a`` itself, read-only, as g · a where ``g`` (an array of at least SMALL elements)
    is the broadcast of one over a's shape and dtype, a real float contiguous array, and
    the engine lends; None otherwise (compute g · a)."""
    if (
        type(a) is ndarray
        and not any(g.strides)
        and a.shape == g.shape
        and a.dtype == g.dtype
        and a.dtype.kind == "f"
        and a.flags.c_contiguous
        and _state.lending
        and g.item(0) == 1
    ):
        return lend(a)
    return None
