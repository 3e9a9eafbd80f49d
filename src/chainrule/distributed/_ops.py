"""``ReduceOp`` and its MPI operation for each dtype; the in-place buffers collectives use."""

from __future__ import annotations

import enum
from typing import Any

from .._backend import xp


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


class InPlace:
    """A tensor's array as a contiguous buffer MPI can write: the array itself when it is
    C-contiguous, else a contiguous copy that ``done()`` writes back."""

    __slots__ = ("tensor", "buf", "copied")

    def __init__(self, tensor: Any) -> None:
        arr = tensor._data
        self.tensor = tensor
        self.copied = not (arr.flags.c_contiguous and arr.flags.writeable)
        self.buf = xp.ascontiguousarray(arr) if self.copied else arr

    def done(self) -> None:
        """Write a copied buffer back and bump the tensor's version counter."""
        if self.copied:
            self.tensor._data[...] = self.buf
        self.tensor._bump()


def readable(tensor: Any) -> Any:
    """A tensor's array, contiguous (a copy only if it is not)."""
    return xp.ascontiguousarray(tensor._data)
