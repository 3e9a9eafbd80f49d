"""Copies, casts and fills: clone, to(dtype), fill_, zero_, copy_.

Their derivatives are the simplest there are: 1 for a copy or a cast (the engine casts the
gradient back to the input's dtype), 0 for what a fill overwrites."""

from __future__ import annotations

from .. import _backend, _memory_format
from .._backend import xp
from ..autograd import bfloat16
from ..autograd.recording import KEEP, defop


def _clone(x, memory_format=None):
    """a copy of x, laid out as x is (PyTorch's preserve_format) or, with
    memory_format="contiguous", contiguously, or in a torch.memory_format"""
    if memory_format is None or memory_format.__class__ is str:
        return x.copy(order="C" if memory_format == "contiguous" else "K")
    return _memory_format.laid_out(x, memory_format)


clone = defop(
    "clone",
    _clone,
    dtypes=KEEP,
    vjp=lambda g: g,  # d/dx x = 1
    jvp=lambda t: t,  # as the VJP
    complex="wirtinger",
    storage=True,  # (no arithmetic: bfloat16 as it is)
)


def _to_dtype(x, dtype=None, memory_format=None):
    """x cast to dtype (laid out as x is, or in memory_format)"""
    if dtype._keep_lane == 4:  # (a reduced float: bfloat16, float8; float16)
        if dtype._reduced and _backend.device_type(x) != "cpu":
            raise _backend.no_bfloat16(_backend.device_type(x), dtype.name)
        cast = bfloat16.into(x, dtype.np)  # (PyTorch's casts: float8_e4m3fn saturates,
        # float64 goes to float16 through float32)
        return cast if memory_format is None else _memory_format.laid_out(cast, memory_format)
    if x.dtype.kind == "V":  # bfloat16 or float8 to a wider type: through float32, as PyTorch
        x = x.astype(xp.float32)  # (ml_dtypes' own casts give 0 for ints out of range)
    if memory_format is None:
        return x.astype(dtype.np)
    return _memory_format.laid_out(x.astype(dtype.np, copy=False), memory_format)


to_dtype = defop(
    "to_dtype",
    _to_dtype,
    dtypes=KEEP,
    node="ToCopyBackward0",
    vjp=lambda g: g,  # d/dx x = 1 (the engine casts the gradient back to x's dtype)
    jvp=lambda t: t,  # as the VJP (the engine casts the tangent to the output's dtype)
    complex="wirtinger",
    storage=True,  # (no arithmetic: bfloat16 as it is)
)


def _to_device(x, device="cpu", source="cpu"):
    """x copied onto the device type ``device`` (from ``source``, where the gradient goes)"""
    return _backend.to_device(x, device)


to_device = defop(
    "to_device",
    _to_device,
    dtypes=KEEP,
    node="ToCopyBackward0",
    vjp=lambda g, source: to_device(g, device=source),  # d/dx x = 1, back on x's device
    jvp=lambda t, device: to_device(t, device=device),  # the tangent moves along
    complex="wirtinger",
    storage=True,  # (no arithmetic: bfloat16 as it is)
)


def _fill(x, value=0, inplace=True):
    """an array of x's shape full of value (``inplace`` names the node: torch.fill's is
    FillBackward0, fill_'s FillBackward2)"""
    with xp.errstate(over="ignore"):  # beyond float16's range: inf, as in PyTorch
        return xp.full_like(x, value._data if hasattr(value, "_data") else value)


fill = defop(
    "fill",
    _fill,
    dtypes=KEEP,
    node=lambda x, inplace=True, **_: "FillBackward2" if inplace else "FillBackward0",
    vjp=lambda g: zero(g),  # d/dx fill(x, v) = 0: the old values are gone
    jvp=lambda t: zero(t),  # as the VJP
    complex="wirtinger",
    storage=True,  # (no arithmetic: bfloat16 as it is)
)


def _fill_with(x, value, inplace=True):
    """an array of x's shape full of value (a 0-d array), in x's dtype (``inplace`` names
    the node: FillBackward3 for fill_, FillBackward1 for torch.fill)"""
    return xp.full_like(x, value)


fill_tensor = defop(
    "fill_tensor",
    _fill_with,
    args=("x", "value"),
    dtypes=KEEP,
    node=lambda x, value, inplace=True: "FillBackward3" if inplace else "FillBackward1",
    vjp=(
        lambda g: zero(g),  # d/dx fill(x, v) = 0: the old values are gone
        lambda g: g,  # d/dv = 1 at every element (the engine sums g to v's shape, ())
    ),
    jvp=(
        lambda t: zero(t),  # as the VJP
        lambda t: t,  # as the VJP (t broadcasts to the output's shape)
    ),
    complex="wirtinger",
    storage=True,  # (no arithmetic: bfloat16 as it is)
)


def _zero(x):
    """zeros of x's shape"""
    return xp.zeros_like(x)


# zeros rather than g * 0, so that a nan or inf gradient does not leak through
zero = defop(
    "zero",
    _zero,
    dtypes=KEEP,
    vjp=lambda g: zero(g),  # d/dx 0 = 0
    jvp=lambda t: zero(t),  # as the VJP
    complex="wirtinger",
    storage=True,  # (no arithmetic: bfloat16 as it is)
)


def _copy_from(dst, src):
    """src broadcast to dst's shape and cast to its dtype (complex into real: the real
    parts, with PyTorch's warning; into bool: whether each is nonzero)"""
    if src.dtype.kind == "c" and dst.dtype.kind != "c":
        src = real_values(src, dst.dtype)
    if (
        bfloat16.computes_wide(dst.dtype) and src.dtype != dst.dtype
    ):  # (PyTorch's cast into a reduced float or float16)
        src = bfloat16.into(src, dst.dtype)
    return xp.array(xp.broadcast_to(src, dst.shape), dtype=dst.dtype)


def real_values(z, dtype):
    """Complex values z as PyTorch writes them into a tensor of a real backend ``dtype``:
    their real parts, with its warning (once); for bool, whether each is nonzero."""
    if dtype == xp.bool_:
        return z != 0
    from .._creation import warn_discarding_imaginary

    warn_discarding_imaginary()
    return z.real


copy_from = defop(
    "copy_from",
    _copy_from,
    args=("dst", "src"),
    dtypes=KEEP,
    node="CopyBackwards",
    vjp=(
        lambda g: zero(g),  # d/ddst = 0: dst is overwritten
        lambda g: g,  # d/dsrc = 1 (the engine sums g to src's shape, casts it to src's dtype)
    ),
    jvp=(
        lambda t: zero(t),  # as the VJP
        lambda t: t,  # as the VJP (the engine broadcasts t and casts it to dst's dtype)
    ),
    complex="wirtinger",
    storage=True,  # (no arithmetic: bfloat16 as it is)
)
