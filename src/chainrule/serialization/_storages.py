"""Tensors as PyTorch stores them: a storage (a flat run of elements, shared by every
tensor that views it) plus an offset, a size and strides counted in elements."""

from __future__ import annotations

from typing import Any

from .. import _dtypes
from .._backend import REDUCED, ndarray, xp
from ..storage import owner, register

# PyTorch's legacy storage class of each dtype, e.g. torch.FloatStorage for float32. The
# float8 formats and uint16/32/64 have none: PyTorch writes their storages as
# ``torch.storage.UntypedStorage`` (bytes) and names the dtype in the call that rebuilds
# the tensor (``_rebuild_tensor_v3``)
UNTYPED = (*_dtypes.FLOAT8, _dtypes.uint16, _dtypes.uint32, _dtypes.uint64)
STORAGE_OF = {d: f"{d.scalar_name}Storage" for d in _dtypes.ALL if d not in UNTYPED}
DTYPE_OF_STORAGE = {name: d for d, name in STORAGE_OF.items()}


root_of = owner  # (the array that owns a tensor's memory: storage.owner)


def layout_in(a: ndarray, root: ndarray) -> tuple[int, tuple[int, ...]] | None:
    """``a``'s offset and strides in elements of ``root``'s buffer, or None where they are
    not whole non-negative multiples of the element size (save a contiguous copy then)."""
    size = a.itemsize
    if root.dtype != a.dtype or not root.flags.c_contiguous:
        return None
    start = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    if start < 0 or start % size or any(s < 0 or s % size for s in a.strides):
        return None
    return start // size, tuple(s // size for s in a.strides)


def row_major(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The strides, in elements, of a contiguous tensor of ``shape`` (a size 0 counts as 1)."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


class StorageRef:
    """One storage to write: its key, dtype and the flat array of its elements."""

    __slots__ = ("key", "dtype", "flat")

    def __init__(self, key: str, dtype: Any, flat: ndarray) -> None:
        self.key, self.dtype, self.flat = key, dtype, flat


class StorageTable:
    """The storages of one file, keyed "0", "1", ...: tensors over the same memory share one."""

    def __init__(self) -> None:
        self.by_root: dict[int, StorageRef] = {}
        self.roots: list[ndarray] = []  # kept alive, so their ids stay unique while saving
        self.refs: list[StorageRef] = []

    def place(self, data: ndarray, dt: Any) -> tuple[StorageRef, int, tuple[int, ...]]:
        """The storage ``data`` lives in, with its offset and strides there (named with
        ``dt``: a float8 tensor and a uint8 view of it share one storage, as in PyTorch's
        files, where both are bytes). The storage takes the element type of the first
        tensor placed in it (a complex tensor over chainrule's float memory is a complex
        storage); a later view of it as another type is saved as a copy of its own."""
        root = root_of(data)
        ref = self.by_root.get(id(root))
        flat = ref.flat if ref is not None else _elements(root, data.dtype)
        layout = None
        if flat is not None and _same_kind(flat.dtype, data.dtype):
            layout = layout_in(data, flat.view(data.dtype))
        if layout is None:  # a copy of its own: contiguous, offset 0
            root = xp.array(data, order="C", copy=True)  # (0-d stays 0-d)
            flat, ref = root.reshape(-1), None
            layout = (0, tuple(s // data.itemsize for s in root.strides))
        if data.size == 0:  # (NumPy's strides of an empty array are 0: PyTorch's row-major)
            layout = (layout[0], row_major(data.shape))
        if ref is None:
            ref = StorageRef(str(len(self.refs)), dt, flat)
            self.by_root[id(root)] = ref
            self.roots.append(root)
            self.refs.append(ref)
        elif ref.dtype is not dt:  # (the same bytes, named with this tensor's dtype)
            ref = StorageRef(ref.key, dt, ref.flat)
        return ref, layout[0], layout[1]


def _elements(root: ndarray, np_dtype: Any) -> ndarray | None:
    """An owning array's memory as one run of ``np_dtype`` elements (bytes stay as they
    are), or None where it is not one run of whole elements."""
    if not root.flags.c_contiguous:
        return None
    flat = root.reshape(-1)
    if _same_kind(root.dtype, np_dtype):
        return flat
    if flat.nbytes % xp.dtype(np_dtype).itemsize:
        return None
    try:
        return flat.view(np_dtype)
    except ValueError:
        return None


def _same_kind(a: Any, b: Any) -> bool:
    """Whether elements of NumPy dtypes ``a`` and ``b`` share one storage in a file."""
    return a == b or (_bytes(a) and _bytes(b))


def _bytes(np_dtype: Any) -> bool:
    """Whether PyTorch's file holds such elements as bytes (uint8, or a float8 format's
    untyped storage): tensors of these dtypes over the same memory share a storage there."""
    return np_dtype == xp.uint8 or (np_dtype in REDUCED and np_dtype.itemsize == 1)


def storage_bytes(ref: StorageRef) -> bytes:
    """The storage's elements as little-endian bytes."""
    flat = ref.flat
    if flat.dtype.byteorder == ">":
        flat = flat.astype(flat.dtype.newbyteorder("<"))
    return flat.tobytes()


def read_storage(
    raw: Any, dt: Any, numel: int, big_endian: bool = False, copy: bool = True
) -> ndarray:
    """A writable flat array of ``numel`` elements from a storage record, checked (with
    ``copy=False``, over ``raw``'s own memory: a writable buffer, a memory-mapped file)."""
    expected = numel * dt.itemsize
    if numel < 0 or len(raw) != expected:
        raise RuntimeError(
            f"storage has wrong byte size: expected {expected} bytes for {numel} elements of "
            f"{dt}, the archive holds {len(raw)} (the file is damaged)"
        )
    flat = xp.frombuffer(raw, dtype=dt.np)
    if copy or big_endian or not flat.flags.writeable:
        flat = flat.copy()
    if big_endian:  # (a swap of each element's bytes: bfloat16's dtype has no byte order)
        flat.byteswap(inplace=True)
    return flat


def view_of(flat: ndarray, offset: int, size: tuple, stride: tuple) -> ndarray:
    """The tensor ``(offset, size, stride)`` over a storage, sharing its memory; refuses
    a view that would reach outside the storage."""
    if not (
        isinstance(offset, int)
        and all(isinstance(s, int) for s in (*size, *stride))
        and len(size) == len(stride)
    ):
        raise RuntimeError("invalid tensor metadata in the archive: sizes and strides must be ints")
    if offset < 0 or any(s < 0 for s in size) or any(st < 0 for st in stride):
        raise RuntimeError(
            f"invalid tensor metadata in the archive: offset {offset}, size {size}, stride "
            f"{stride} (negative values)"
        )
    numel = 1
    for s in size:
        numel *= s
    if numel:
        last = offset + sum((s - 1) * st for s, st in zip(size, stride, strict=True))
        if last >= flat.size:
            raise RuntimeError(
                f"invalid tensor metadata in the archive: size {list(size)} and stride "
                f"{list(stride)} at offset {offset} reach element {last} of a storage of "
                f"{flat.size} elements"
            )
    register(flat)  # (its tensors' storage offsets count from its start, as PyTorch's)
    item = flat.itemsize
    # (NumPy's as_strided cannot name ml_dtypes' float8 dtypes ("<f1"): strided as unsigned
    # integers of the same width, then seen as the dtype again)
    bits = xp.dtype(f"u{item}") if flat.dtype in REDUCED else flat.dtype
    strided = xp.lib.stride_tricks.as_strided(
        (flat[offset:] if numel else flat[:0]).view(bits),
        shape=size,
        strides=tuple(st * item for st in stride),
    )
    return strided if bits == flat.dtype else strided.view(flat.dtype)
