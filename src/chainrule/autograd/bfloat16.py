"""bfloat16, float8 and float16 at the ops' boundary: each op computes in float32 and rounds
its result once.

float16 is NumPy's own, but NumPy's float16 arithmetic rounds a Python number operand to
float16 before it computes, and every step of a composite op (sigmoid, softmax, layer
norm) to float16; PyTorch's CPU kernels load float16 into float32, compute, and round
the result once, as for bfloat16. So float16 takes this boundary too (its dtype is not
``_native``: no fast path), but for ``NATIVE_FLOAT16``'s ops; and casts into float16 from
float64 go through float32 (``into``), as PyTorch's do.

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

import math
from collections.abc import Callable
from typing import Any

from .. import _dtypes
from .._backend import REDUCED, ndarray, xp

_F32 = xp.dtype(xp.float32)
_F16 = xp.dtype(xp.float16)
_F64 = xp.dtype(xp.float64)


def computes_wide(d: Any) -> bool:
    """Whether arrays of NumPy dtype ``d`` are computed in float32 and rounded back: float16
    and the reduced floats (bfloat16, float8)."""
    return d == _F16 or d in REDUCED


_EXACT_INT = 256  # the integers bfloat16 holds exactly: up to 2^8 in magnitude


# ops whose CPU kernels take a Python number operand as it is, in float32, rather than
# rounded to the tensor's dtype (PyTorch's mul, div (rounded or not) and lerp read the
# scalar's original value)
EXACT_SCALARS = frozenset({"mul", "div", "lerp", "div_rounding", "floor_divide"})
# ops computed on float16 arrays as they are (NumPy's float16 loops compute in float32 and
# round once, as PyTorch's): pow, whose float16 kernel is C's pow for every exponent where
# its float32 one takes ±0.5 as (1/)√x (ops/arithmetic.py _pow), and the LAPACK-backed
# linear algebra (inverses, factorizations, LDL), whose forwards refuse float16 as
# PyTorch's kernels do (its products, addmm among them, compute in float32 as any op)
NATIVE_FLOAT16 = frozenset({"pow"})
_NATIVE_MODULES = frozenset(
    f"chainrule.ops.linalg.{m}" for m in ("factorizations", "inverses", "ldl")
)


def _native_float16(name: str, forward: Any) -> bool:
    return name in NATIVE_FLOAT16 or getattr(forward, "__module__", "") in _NATIVE_MODULES


def widen(arrays: list, name: str = "", forward: Any = None) -> Any:
    """Replace the reduced-float arrays (bfloat16, float8: the dtypes of
    ``_backend.REDUCED``) among an op's inputs by float32 copies; where every floating input is of that dtype, round the
    Python numbers among them to it too (but for the ops of ``EXACT_SCALARS``, named
    ``name``), and return the dtype: the op's float32 results are to be rounded to it
    (``narrow``); else None (and for float16 arrays of an op computing them as they are:
    ``_native_float16`` of its name and ``forward``)."""
    for a in arrays:  # (most ops: no array of two bytes or less, nothing to do)
        if a.__class__ is ndarray and a.dtype.itemsize <= 2:
            break
    else:
        return None
    found = None
    other = False
    for a in arrays:
        d = getattr(a, "dtype", None)
        if d is None:
            continue
        if d == _F16 or d in REDUCED:
            found = d
        elif d.kind in "fc":
            other = True
    if found is None or found == _F16 and _native_float16(name, forward):
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
        with xp.errstate(over="ignore"):
            value = xp.asarray(a, _F32).astype(np_dtype).item()
        return int(value) if math.isfinite(value) else value  # (float16: inf past 65504)
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
    if d is not None and (d == _F16 or d in REDUCED):
        return widened_array(v)
    return v


def widened(vjp: Callable) -> Callable:
    """``vjp`` run on its gradient and saved values in float32 (a bfloat16 node's VJP)."""

    def vjp_f32(g: Any, *values: Any) -> Any:
        return vjp(wide(g), *[wide(v) for v in values])

    vjp_f32.__doc__ = vjp.__doc__
    return vjp_f32


def plan(op: Any, bits: int, n: int, dtype: Any = None) -> Any:
    """``op``'s save plan for a node with bfloat16 values, when the inputs in ``bits`` (of
    ``n``) need gradients: the real plan's, each VJP run in float32 (``widened``); for a
    float16 node (``dtype``) of ``NATIVE_FLOAT16``, the real plan."""
    if dtype is _dtypes.float16 and _native_float16(op.name, op.forward):
        return op._plans[bits] or op.plan(tuple(bool(bits >> i & 1) for i in range(n)))
    found = op._bfloat16_plans.get(bits)
    if found is None:
        real = op._plans[bits] or op.plan(tuple(bool(bits >> i & 1) for i in range(n)))
        vjps = tuple((widened(v), idx) if v else (v, idx) for v, idx in real.vjps)
        only0 = None if real.only0 is None else vjps[0]
        found = op._bfloat16_plans[bits] = real._replace(vjps=vjps, only0=only0)
    return found


def cast(arr: Any, dtype: Any) -> Any:
    """``arr`` cast to the chainrule dtype ``dtype`` as PyTorch casts (``into`` for float16
    and the reduced floats)."""
    return arr.astype(dtype.np) if dtype._keep_lane != 4 else into(arr, dtype.np)


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
    elif np_dtype == _F16:
        if arr.dtype == _F64:  # (PyTorch's cast goes through float32: two roundings)
            arr = arr.astype(_F32)
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
