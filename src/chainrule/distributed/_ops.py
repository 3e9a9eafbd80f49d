"""``ReduceOp`` and its MPI operation for each dtype; the in-place buffers collectives use."""

from __future__ import annotations

import enum
from typing import Any

from .._backend import REDUCED, xp


class ReduceOp(enum.Enum):
    """How a reduction combines the ranks' values: ``ReduceOp.SUM``, ``AVG``, ``PRODUCT``,
    ``MIN``, ``MAX``, and for integer and bool tensors ``BAND``, ``BOR``, ``BXOR``."""

    SUM = "sum"
    AVG = "avg"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"
    BAND = "band"
    BOR = "bor"
    BXOR = "bxor"

    def __repr__(self) -> str:
        return f"<RedOpType.{self.name}: {list(ReduceOp).index(self)}>"


# PyTorch's ``ReduceOp.SUM`` etc. are members of the nested enum ``ReduceOp.RedOpType``;
# here they are members of ``ReduceOp`` itself, so the nested name is the class.
ReduceOp.RedOpType = ReduceOp  # type: ignore[attr-defined]


# bool: the logical operations (a sum of booleans is their OR, a product their AND)
_BOOL = {"sum": "LOR", "max": "LOR", "bor": "LOR", "product": "LAND", "min": "LAND",
         "band": "LAND", "bxor": "LXOR"}  # fmt: skip
_NUMBER = {"sum": "SUM", "avg": "SUM", "product": "PROD", "min": "MIN", "max": "MAX",
           "band": "BAND", "bor": "BOR", "bxor": "BXOR"}  # fmt: skip


def mpi_op(MPI: Any, op: Any, dtype: Any) -> Any:
    """The MPI operation that does ``op`` on arrays of NumPy ``dtype``."""
    op = ReduceOp(op.value if isinstance(op, ReduceOp) else op)
    kind = xp.dtype(dtype).kind
    if kind == "b":
        if op.value not in _BOOL:
            raise ValueError(f"Cannot use ReduceOp.{op.name} with bool")
        return getattr(MPI, _BOOL[op.value])
    if kind == "f" and op.value in ("band", "bor", "bxor"):
        raise ValueError(f"Cannot use ReduceOp.{op.name} with {xp.dtype(dtype).name}")
    return getattr(MPI, _NUMBER[op.value])


def finish_avg(buf: Any, size: int) -> None:
    """``AVG`` after the sum: divide in place (integers: rounded toward zero, as NCCL's)."""
    if buf.dtype.kind == "f":
        xp.divide(buf, size, out=buf)
    else:
        q = xp.abs(buf) // size
        xp.copyto(buf, xp.where(buf < 0, -q, q).astype(buf.dtype))


# MPI has no bfloat16 type: a bfloat16 array travels as its bits (uint16) where it is only
# moved, and in float32 where it is reduced (summed in float32, rounded once on arrival)
# (the float8 formats, ml_dtypes' too, the same way: their bits are one byte)
_WIDE = xp.dtype(xp.float32)


def wire_dtype(dtype: Any) -> Any:
    """The dtype an array of ``dtype`` is moved in: its own, a reduced float's bits (an
    unsigned integer of its width) for bfloat16 and float8."""
    return xp.dtype(f"u{dtype.itemsize}") if dtype in REDUCED else dtype


def wire(arr: Any, reduce: bool = False) -> Any:
    """A contiguous array as MPI takes it: itself, or a reduced float's bits (a view) to
    move, its float32 copy to reduce."""
    if arr.dtype not in REDUCED:
        return arr
    return arr.astype(_WIDE) if reduce else arr.view(wire_dtype(arr.dtype))


def unwire(buf: Any, dtype: Any) -> Any:
    """What MPI wrote, to assign into an array of ``dtype``: a reduced float's bits viewed
    as it (a float32 buffer assigned into a bfloat16 array rounds as it lands)."""
    return buf.view(dtype) if buf.dtype.kind == "u" and dtype in REDUCED else buf


class InPlace:
    """A tensor's array as a contiguous buffer MPI can write: the array itself when it is
    C-contiguous, else a contiguous copy that ``done()`` writes back (bfloat16: its bits,
    or for a reduction, ``reduce``, a float32 copy)."""

    __slots__ = ("tensor", "buf", "copied")

    def __init__(self, tensor: Any, reduce: bool = False) -> None:
        arr = tensor._data
        self.tensor = tensor
        wide = reduce and arr.dtype in REDUCED
        self.copied = wide or not (arr.flags.c_contiguous and arr.flags.writeable)
        self.buf = wire(xp.ascontiguousarray(arr) if self.copied else arr, reduce)

    def done(self) -> None:
        """Write a copied buffer back and bump the tensor's version counter."""
        if self.copied:
            self.tensor._data[...] = unwire(self.buf, self.tensor._data.dtype)
        self.tensor._bump()


def readable(tensor: Any, reduce: bool = False) -> Any:
    """A tensor's array, contiguous (a copy only if it is not), as MPI takes it (``wire``)."""
    return wire(xp.ascontiguousarray(tensor._data), reduce)
