"""bfloat16 (and float8) at the ops' boundary: each op computes in float32 and rounds its
result once.

NumPy has no bfloat16; ml_dtypes gives it a NumPy dtype (an optional extra, loaded on first
use: ``_dtypes._Reduced``), whose arrays hold a bfloat16 tensor's values in two bytes each
and whose casts round to nearest, ties to even, as PyTorch's do. The float8 formats are
ml_dtypes' too, and go through the same boundary (PyTorch's CPU kernels refuse to compute
in them; chainrule computes in float32 and rounds). Ops that only move or copy
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
from .._backend import REDUCED, xp

_F32 = xp.dtype(xp.float32)
_EXACT_INT = 256  # the integers bfloat16 holds exactly: up to 2^8 in magnitude


# ops whose CPU kernels take a Python number operand as it is, in float32, rather than
# rounded to the tensor's dtype (PyTorch's mul, div and lerp read the scalar's original value)
EXACT_SCALARS = frozenset({"mul", "div", "lerp"})


def widen(arrays: list, name: str = "") -> Any:
    """Replace the reduced-float arrays (bfloat16, float8: the dtypes of
    ``_backend.REDUCED``) among an op's inputs by float32 copies; where every floating input is of that dtype, round the
    Python numbers among them to it too (but for the ops of ``EXACT_SCALARS``, named
    ``name``), and return the dtype: the op's float32 results are to be rounded to it
    (``narrow``); else None."""
    found = None
    other = False
    for a in arrays:
        d = getattr(a, "dtype", None)
        if d is None:
            continue
        if d in REDUCED:
            found = d
        elif d.kind in "fc":
            other = True
    if found is None:
        return None
    for i, a in enumerate(arrays):
        if getattr(a, "dtype", None) == found:
            arrays[i] = widened_array(a)
        elif not other and name not in EXACT_SCALARS:
            arrays[i] = rounded(a, found)
    return None if other else found


def rounded(a: Any, np_dtype: Any) -> Any:
    """A Python float or int as ``np_dtype`` holds it (of the same type); anything else as
    it is."""
    c = a.__class__
    if c is float:
        return xp.asarray(a, _F32).astype(np_dtype).item()
    if c is int and not -_EXACT_INT <= a <= _EXACT_INT:
        return int(xp.asarray(a, _F32).astype(np_dtype).item())
    return a


# the parameters that are value operands (a number rounded to bfloat16, as an input is)
NUMBER_PARAMS = {
    "rsub": ("other", "alpha"),
    "pow": ("exponent",),
    "pow_scalar_base": ("base",),
    "add": ("alpha",),
    "sub": ("alpha",),
}


def widen_params(params: dict, rounds: Any, name: str) -> tuple[dict, Any]:
    """An op's parameters and the dtype its results are rounded to (None: unrounded): a
    number that is an operand (``NUMBER_PARAMS``) rounded where the results are; a
    ``dtype`` parameter of a reduced float computes in float32 and rounds to it, another
    dtype asked for (``x.sum(dtype=torch.float32)``) is the result's, unrounded."""
    keys = NUMBER_PARAMS.get(name)
    if rounds is not None and keys is not None:
        for key in keys:
            if key in params:
                params = {**params, key: rounded(params[key], rounds)}
    want = params.get("dtype")
    if want is None or not isinstance(want, _dtypes.dtype):
        return params, rounds
    if isinstance(want, _dtypes._Reduced):
        return {**params, "dtype": _dtypes.float32}, want.np
    return params, None


def wide(v: Any) -> Any:
    """A reduced-float array (or a tuple's) as float32; anything else as it is."""
    if v.__class__ is tuple:
        return tuple(wide(x) for x in v)
    d = getattr(v, "dtype", None)
    if d is not None and d in REDUCED:
        return widened_array(v)
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


def narrow(out: Any, np_dtype: Any) -> Any:
    """An op's float32 results rounded to ``np_dtype`` (a tuple's, each; others unchanged)."""
    if type(out) is tuple:
        return tuple(narrow(o, np_dtype) for o in out)
    if getattr(out, "dtype", None) == _F32:
        return into(out, np_dtype)
    return out


def into(arr: Any, np_dtype: Any) -> Any:
    """``arr`` cast to a reduced float as PyTorch casts: to nearest, ties to even, and for
    float8_e4m3fn (which has no infinity) beyond its largest, ±inf included, to ±448
    (ml_dtypes' cast gives nan there)."""
    if np_dtype is _dtypes._bfloat16_np[0]:
        if arr.dtype == _F32 and arr.size >= _BITS_FROM and arr.flags.c_contiguous:
            return _bits_to_bfloat16(arr)
    elif np_dtype.name == "float8_e4m3fn" and arr.dtype.kind == "f":
        arr = xp.clip(arr, -448.0, 448.0)
    return arr.astype(np_dtype)


# Large casts between bfloat16 and float32 by NumPy's integer ufuncs on the bits, which run
# vectorized where ml_dtypes' cast loops run an element at a time: from 2^12 values for
# bfloat16 to float32 (200,000 values: 18 µs against 56), from 2^16 for float32 to
# bfloat16 (76 µs against 135); below, ml_dtypes' casts are the faster (the same bits:
# tests/test_bfloat16.py pins them)
_BITS_TO = 1 << 12
_BITS_FROM = 1 << 16
_U16 = xp.dtype(xp.uint16)
_U32 = xp.dtype(xp.uint32)


def widened_array(a: Any) -> Any:
    """A reduced-float array in float32 (exact: float32 holds every such value)."""
    if a.dtype is _dtypes._bfloat16_np[0] and a.size >= _BITS_TO and a.flags.c_contiguous:
        bits = a.view(_U16).astype(_U32)
        bits <<= 16  # (bfloat16 is float32's upper half)
        return bits.view(_F32)
    return a.astype(_F32)


def _bits_to_bfloat16(a: Any) -> Any:
    """A contiguous float32 array rounded to bfloat16 on its bits: to nearest, ties to
    even (adding 0x7FFF plus the kept part's lowest bit carries exactly the values above
    half an ulp, and the halves whose kept part is odd); a nan keeps its sign, with the
    canonical quiet payload (as ml_dtypes' cast)."""
    bits = a.view(_U32)
    r = bits >> 16
    r &= 1
    r += 0x7FFF
    r += bits
    r >>= 16
    out = r.astype(_U16)
    nan = a != a
    if nan.any():
        out[nan] = ((bits[nan] >> 16) & 0x8000 | 0x7FC0).astype(_U16)
    return out.view(_dtypes._bfloat16_np[0])
