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
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from .._backend import ndarray, xp

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
    if not (flags.owndata and flags.writeable and flags.c_contiguous):
        return False
    for a in like:
        if type(a) is not ndarray or a.shape != g.shape or a.dtype != g.dtype:
            return False
        if not a.flags.c_contiguous:
            return False
    return True


def scale_in_place(g: ndarray, factor: Callable[..., ndarray], *arrays: ndarray) -> ndarray:
    """g ⊙ factor(*arrays), written into g block by block (``writable(g, *arrays)`` first):
    ``factor(*blocks, out=scratch)`` writes each block's factor into one small array."""
    flat = g.reshape(-1)
    parts = [a.reshape(-1) for a in arrays]
    scratch = xp.empty(min(BLOCK, flat.size), g.dtype)
    for start in range(0, flat.size, BLOCK):
        block = slice(start, start + BLOCK)
        out = flat[block]
        out *= factor(*(p[block] for p in parts), out=scratch[: out.size])
    return g
