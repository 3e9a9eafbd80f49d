"""bfloat16 at the ops' boundary: each op computes in float32 and rounds its result once.

NumPy has no bfloat16; ml_dtypes gives it a NumPy dtype (an optional extra, loaded on first
use: ``_dtypes._BFloat16``), whose arrays hold a bfloat16 tensor's values in two bytes each
and whose casts round to nearest, ties to even, as PyTorch's do. Ops that only move or copy
elements (views, casts, clones, fills: ``Op.widens`` False) run on those arrays as they
are. Every other op gets float32 copies of its bfloat16 inputs (exact: float32 holds every
bfloat16 value) and Python numbers rounded to bfloat16 (PyTorch casts a scalar operand to
the op's dtype), runs its forward, and its float32 results are rounded to bfloat16: what
PyTorch's CPU kernels do for bfloat16 (load, compute in float, round the result), the
accumulation of sums and products included. The rounding happens where all of the op's
floating inputs are bfloat16 (after the dtype rule's casts: ``x_bf16 + 1.5``,
``x_bf16 + int_tensor``); an op mixing bfloat16 with float32 computes in float32 and keeps
that, as promotion says.

Backward runs a bfloat16 node's VJPs the same way (``widened``, the VJPs of the node's
save plan, ``plan``): its gradient and saved arrays in float32, and the engine
rounds each input's gradient to the input's dtype, so ``.grad`` of a bfloat16 leaf is
bfloat16, as in PyTorch, and a VJP's sums accumulate in float32 (NumPy's own sums of
bfloat16 arrays add in bfloat16: a thousand ones sum to 256). With ``create_graph`` the
VJPs' ops are recorded, and each rounds at the boundary as in the forward.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import _dtypes
from .._backend import xp

_F32 = xp.dtype(xp.float32)
_EXACT_INT = 256  # the integers bfloat16 holds exactly: up to 2^8 in magnitude


# ops whose CPU kernels take a Python number operand as it is, in float32, rather than
# rounded to the tensor's dtype (PyTorch's mul, div and lerp read the scalar's original value)
EXACT_SCALARS = frozenset({"mul", "div", "lerp"})


def widen(arrays: list, name: str = "") -> bool:
    """Replace the bfloat16 arrays among an op's inputs by float32 copies; where every
    floating input is bfloat16, round the Python numbers among them to bfloat16 too (but
    for the ops of ``EXACT_SCALARS``, named ``name``), and say True: the op's float32
    results are then to be rounded (``narrow``)."""
    bf16 = _dtypes._bfloat16_np[0]
    found = other = False
    for a in arrays:
        d = getattr(a, "dtype", None)
        if d is None:
            continue
        if d == bf16:
            found = True
        elif d.kind in "fc":
            other = True
    if not found:
        return False
    for i, a in enumerate(arrays):
        if getattr(a, "dtype", None) == bf16:
            arrays[i] = a.astype(_F32)
        elif not other and name not in EXACT_SCALARS:
            arrays[i] = rounded(a)
    return not other


def rounded(a: Any) -> Any:
    """A Python float or int as bfloat16 holds it (of the same type); anything else as it is."""
    c = a.__class__
    if c is float:
        return xp.asarray(a, _F32).astype(_dtypes._bfloat16_np[0]).item()
    if c is int and not -_EXACT_INT <= a <= _EXACT_INT:
        return int(xp.asarray(a, _F32).astype(_dtypes._bfloat16_np[0]).item())
    return a


# the parameters that are value operands (a number rounded to bfloat16, as an input is)
NUMBER_PARAMS = {
    "rsub": ("other", "alpha"),
    "pow": ("exponent",),
    "pow_scalar_base": ("base",),
    "add": ("alpha",),
    "sub": ("alpha",),
}


def widen_params(params: dict, rounds: bool, name: str) -> tuple[dict, bool]:
    """An op's parameters and whether its results are to be rounded: a number that is an
    operand (``NUMBER_PARAMS``) rounded to bfloat16 where the results are; a ``dtype``
    parameter of bfloat16 computes in float32 and rounds, another dtype asked for
    (``x.sum(dtype=torch.float32)``) is the result's, unrounded."""
    keys = NUMBER_PARAMS.get(name)
    if rounds and keys is not None:
        for key in keys:
            if key in params:
                params = {**params, key: rounded(params[key])}
    want = params.get("dtype")
    if want is None or want.__class__ is not _dtypes.bfloat16.__class__:
        if want is not None and isinstance(want, _dtypes.dtype):
            return params, False
        return params, rounds
    return {**params, "dtype": _dtypes.float32}, True


def wide(v: Any) -> Any:
    """A bfloat16 array (or a tuple's) as float32; anything else as it is."""
    if v.__class__ is tuple:
        return tuple(wide(x) for x in v)
    if getattr(v, "dtype", None) == _dtypes._bfloat16_np[0]:
        return v.astype(_F32)
    return v


def widened(vjp: Callable) -> Callable:
    """``vjp`` run on its gradient and saved values in float32 (a bfloat16 node's VJP)."""

    def vjp_f32(g: Any, *values: Any) -> Any:
        return vjp(wide(g), *[wide(v) for v in values])

    vjp_f32.__doc__ = vjp.__doc__
    return vjp_f32


def plan(op: Any, bits: int, n: int) -> Any:
    """``op``'s save plan for a node with bfloat16 values, when the inputs in ``bits`` (of
    ``n``) need gradients: the real plan's, each VJP run in float32 (``widened``)."""
    found = op._bfloat16_plans.get(bits)
    if found is None:
        real = op._plans[bits] or op.plan(tuple(bool(bits >> i & 1) for i in range(n)))
        vjps = tuple((widened(v), idx) if v else (v, idx) for v, idx in real.vjps)
        only0 = None if real.only0 is None else vjps[0]
        found = op._bfloat16_plans[bits] = real._replace(vjps=vjps, only0=only0)
    return found


def narrow(out: Any) -> Any:
    """An op's float32 results rounded to bfloat16 (a tuple's, each; others unchanged)."""
    if type(out) is tuple:
        return tuple(narrow(o) for o in out)
    if getattr(out, "dtype", None) == _F32:
        return out.astype(_dtypes._bfloat16_np[0])
    return out
