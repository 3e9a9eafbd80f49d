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

The forward has the same kind of scratch memory: an expression's temporary. In
``(x * 2 + 1).tanh()`` nothing but the call can reach the tensor ``x * 2 + 1``; a one-input
ufunc whose derivative reads its output, never its input (tanh, exp, sqrt), writes its
output into that tensor's memory (``reusable``), as NumPy's temporary elision does for
``a * b + c``: no array of the full size allocated, the same bits.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._backend import loud, ndarray, quiet, xp
from .._meta import live as _meta_live
from ..autograd.forward_ad import state as _fw_state

if TYPE_CHECKING:
    from .._tensor import Tensor
    from ..autograd.recording import Op

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


def writable(g: Any, *like: Any) -> bool:
    """Whether ``g`` is an array only the engine's buffer for this node refers to, owning
    contiguous writable memory of the shape of each array in ``like`` (so blocks line up)."""
    if type(g) is not ndarray or _refcount(g) != PRIVATE_REFS:
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


# ----- the forward: an expression's temporary reused -----------------------------------------


def _parameter_count(input: Any, *, out: Any = None) -> int:  # noqa: A002
    return _refcount(input)


class _Probe:
    __slots__ = ()
    count = _parameter_count  # called as a method, like Tensor.tanh


def _temporary_count() -> int | None:
    """What ``sys.getrefcount`` says, first thing in a function of the shape of
    ``args.unary``'s (``f(input, *, out=None)``), of an argument that only the call holds:
    CPython moves an expression's value from the caller's stack into the parameter, so the
    parameter and getrefcount's argument are the only references (2). Measured on a probe
    called the same way, and compared with a named argument (one reference more). None, so
    that nothing is ever reused, where they read otherwise (an interpreter that lends the
    stack's references, a tracer that copies them)."""
    temporary = _Probe().count()
    named = _Probe()
    return 2 if temporary == 2 and named.count() == 3 else None


# The count a method's first parameter reads when the caller's expression handed over the
# only reference: a name, a container, a bound method, a C caller (map(), NumPy's object
# loops), a node or another tensor holding it all add to it.
TEMPORARY = _temporary_count()

# As NumPy's temporary elision: below this, the checks cost about what an allocation saves.
MIN_BYTES = 1 << 18

_weakrefs = weakref.getweakrefcount


def reusable_ufunc(op: Op) -> tuple[Any, frozenset] | None:
    """For a one-input op computed by a ufunc whose VJPs and JVPs read the output, never the
    input (the input's memory may then hold the output): the ufunc and the dtype codes it
    maps to themselves (``"f->f"``). None for any other op."""
    f = op.forward
    if not isinstance(f, xp.ufunc) or f.nin != 1 or f.nout != 1 or op.view:
        return None
    if "arg" in op.save_kinds or any(k == "arg" for _, reads in op.jvps for k, _ in reads):
        return None
    codes = frozenset(c for c in "efd" if f"{c}->{c}" in f.types)
    return (f, codes) if codes else None


def reusable(t: Tensor, codes: frozenset) -> ndarray | None:
    """``t``'s array when the caller has found ``_refcount(t) == TEMPORARY`` and nothing else
    can reach that memory: ``t`` is no leaf that a node keeps, no view, and its array, one
    of at least ``MIN_BYTES`` that owns contiguous writable memory, is referred to by ``t``
    alone (no other tensor, saved value, view or weak reference). None otherwise (also
    while forward mode or a meta or device array is about)."""
    if t._requires_grad and t._grad_fn is None or t._view is not None:
        return None
    data = t._data
    if (
        type(data) is not ndarray
        or data.nbytes < MIN_BYTES
        # t's slot, this local and getrefcount's argument
        or _refcount(data) != 3
        or _weakrefs(data)
        or data.dtype.char not in codes
        or _fw_state.level
        or _meta_live[0]
    ):
        return None
    flags = data.flags
    if not (flags.owndata and flags.writeable and flags.c_contiguous):
        return None
    return data


def into_input(ufunc: Any, data: ndarray) -> ndarray:
    """``ufunc(data)`` written into ``data`` (``reusable(...)`` first); floating-point
    errors silent, as in every forward."""
    token = quiet()
    try:
        return ufunc(data, out=data)
    finally:
        loud(token)
