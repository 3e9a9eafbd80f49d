"""Variable-length sequences: padding (``pad_sequence``), packing (``pack_padded_sequence``,
``pack_sequence``) and back, and the ``PackedSequence`` the recurrent layers take.

A packed sequence holds the time steps one after another, each with only the sequences
still running: ``data`` is (sum of lengths, *), ``batch_sizes[t]`` the number of sequences
longer than t (sorted by decreasing length). Packing and padding are one gather each: the
flat positions ``t·B + b`` of the padded tensor that hold data, in packed order.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

import chainrule

from ..._backend import to_host, xp
from ..._tensor import Tensor

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpad_sequence",
    "pack_sequence",
    "unpack_sequence",
]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(PackedSequence_):
    """The data of a batch of sequences packed time step after time step, with the number of
    sequences running at each step (``batch_sizes``) and the order they were sorted in."""

    def __new__(
        cls,
        data: Any,
        batch_sizes: Tensor | None = None,
        sorted_indices: Tensor | None = None,
        unsorted_indices: Tensor | None = None,
    ) -> PackedSequence:
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """The same sequence with ``data`` converted (``self`` when nothing changes)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self, *args: Any, **kwargs: Any) -> PackedSequence:
        return self.to(*args, **kwargs)

    def double(self) -> PackedSequence:
        return self.to(dtype=chainrule.float64)

    def float(self) -> PackedSequence:
        return self.to(dtype=chainrule.float32)

    def half(self) -> PackedSequence:
        return self.to(dtype=chainrule.float16)

    def long(self) -> PackedSequence:
        return self.to(dtype=chainrule.int64)

    def int(self) -> PackedSequence:
        return self.to(dtype=chainrule.int32)

    def short(self) -> PackedSequence:
        return self.to(dtype=chainrule.int16)

    def char(self) -> PackedSequence:
        return self.to(dtype=chainrule.int8)

    def byte(self) -> PackedSequence:
        return self.to(dtype=chainrule.uint8)

    @property
    def is_cuda(self) -> bool:
        return False

    def is_pinned(self) -> bool:
        return False


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse of a permutation of 0..n-1 (None for None)."""
    if permutation is None:
        return None
    p = to_host(permutation._data)
    inverse = xp.empty_like(p)
    inverse[p] = xp.arange(p.shape[0], dtype=p.dtype)
    return chainrule.from_numpy(inverse).to(permutation.device)  # (where the permutation is)


def _packed_positions(batch_sizes, batch: int):
    """The flat positions t·B + b of the padded (T, B) grid that hold data, in packed order."""
    t = xp.repeat(xp.arange(batch_sizes.shape[0]), batch_sizes)
    starts = xp.cumsum(batch_sizes) - batch_sizes
    b = xp.arange(t.shape[0]) - xp.repeat(starts, batch_sizes)
    return t * batch + b


def pack_padded_sequence(
    input: Tensor,
    lengths: Tensor | list[int],
    batch_first: bool = False,
    enforce_sorted: bool = True,
) -> PackedSequence:
    """Packs a padded (T, B, *) (or (B, T, *)) batch of sequences of the given lengths."""
    if input.ndim < 2:  # (PyTorch's IndexError for the missing batch dimension)
        input.transpose(0, 1) if batch_first else input.size(1)
    if isinstance(lengths, Tensor):
        lengths = lengths.to(dtype=chainrule.int64)
    else:  # (on the CPU whatever the default device, as PyTorch makes them)
        lengths = chainrule.as_tensor(lengths, dtype=chainrule.int64, device="cpu")
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = chainrule.sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if lengths.ndim != 1 or lengths.device.type != "cpu":
        raise RuntimeError(
            "'lengths' argument should be a 1D CPU int64 tensor, but got "
            f"{lengths.ndim}D {lengths.device} Long tensor"
        )
    n = lengths._data
    if batch_first:
        input = input.transpose(0, 1)
    batch = input.shape[1]
    if n.shape[0] != batch:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {n.shape[0]} "
            f"(batch_size={batch})"
        )
    if n.size and n[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in "
            "'lengths' that is <= 0"
        )
    if enforce_sorted and (n[1:] > n[:-1]).any():
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
            "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
            "pack_sequence to sidestep this requirement if you do not need ONNX exportability."
        )
    steps = int(n[0]) if n.size else 0
    if steps > input.shape[0]:  # (PyTorch reads past the end of the input here)
        raise RuntimeError(
            f"Expected every length to be at most the padded sequence length "
            f"{input.shape[0]}, but got a length of {steps}"
        )
    batch_sizes = (n[None, :] > xp.arange(steps)[:, None]).sum(1)
    index = chainrule.from_numpy(_packed_positions(batch_sizes, batch))
    data = input.reshape(-1, *input.shape[2:])[index]
    return PackedSequence(data, chainrule.from_numpy(batch_sizes), sorted_indices, None)


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple[Tensor, Tensor]:
    """The padded (T, B, *) batch of a packed sequence, and the sequences' lengths."""
    batch_sizes = sequence.batch_sizes._data
    steps = batch_sizes.shape[0]
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{steps}"
            )
        steps = total_length
    data = sequence.data
    batch = int(batch_sizes[0])
    rest = tuple(data.shape[1:])
    # every padded position reads a row of the data, or the padding row after it
    where = xp.full(steps * batch, data.shape[0], dtype=xp.int64)
    where[_packed_positions(batch_sizes, batch)] = xp.arange(data.shape[0])
    pad = chainrule.full((1, *rest), padding_value, dtype=data.dtype, device=data.device)
    padded = chainrule.cat([data, pad])[chainrule.from_numpy(where)].view(steps, batch, *rest)
    if batch_first:
        padded = padded.transpose(0, 1)
    lengths = chainrule.from_numpy(
        (batch_sizes[None, :] > xp.arange(batch)[:, None]).sum(1).astype(xp.int64)
    )
    if sequence.unsorted_indices is not None:
        order = sequence.unsorted_indices
        return padded.index_select(0 if batch_first else 1, order), lengths[order]
    return padded, lengths


def pad_sequence(
    sequences: Tensor | list[Tensor],
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """The (T, B, *) (or (B, T, *)) batch of sequences of shapes (L_b, *), padded to the
    longest on ``padding_side``."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(
            "pad_sequence: Expected iterable for input sequences, but got arg of type: "
            f"{type(sequences)}"
        )
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    lengths = xp.array([s.shape[0] if s.ndim else 1 for s in sequences], dtype=xp.int64)
    steps = int(lengths.max())
    batch = len(lengths)
    rest = tuple(sequences[0].shape[1:])
    dtype = sequences[0].dtype
    starts = xp.cumsum(lengths) - lengths
    # padded (B, T) position -> the row of the joined sequences, or the padding row
    t = xp.arange(steps)[None, :]
    shift = (steps - lengths)[:, None] if padding_side == "left" else 0
    k = t - shift
    inside = (k >= 0) & (k < lengths[:, None])
    where = xp.where(inside, starts[:, None] + k, lengths.sum())
    if not batch_first:
        where = where.T
    pad = chainrule.full((1, *rest), padding_value, dtype=dtype, device=sequences[0].device)
    rows = [_fit(s, (int(n), *rest)).to(dtype) for s, n in zip(sequences, lengths)]
    joined = chainrule.cat([*(r.reshape(-1, *rest) for r in rows), pad])
    out_shape = (batch, steps) if batch_first else (steps, batch)
    return joined[chainrule.from_numpy(xp.ascontiguousarray(where).reshape(-1))].view(
        *out_shape, *rest
    )


def _fit(sequence: Tensor, target: tuple[int, ...]) -> Tensor:
    """``sequence`` broadcast to its slot ``target`` = (L_b, *) of the padded batch; PyTorch's
    errors where it does not broadcast to exactly that shape."""
    shape = tuple(sequence.shape)
    if shape == target or not shape:
        return sequence
    ndim = max(len(shape), len(target))
    a = (1,) * (ndim - len(target)) + target
    b = (1,) * (ndim - len(shape)) + shape
    for d, (m, n) in enumerate(zip(a, b)):
        if m != n and m != 1 and n != 1:
            raise RuntimeError(
                f"The size of tensor a ({m}) must match the size of tensor b ({n}) at "
                f"non-singleton dimension {d}"
            )
    broadcast = tuple(max(m, n) for m, n in zip(a, b))
    if broadcast != target:
        raise RuntimeError(
            f"output with shape {list(target)} doesn't match the broadcast shape {list(broadcast)}"
        )
    return sequence.expand(target)


def unpad_sequence(
    padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False
) -> list[Tensor]:
    """The sequences of a padded batch, each cut to its length."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    rows = zip(padded_sequences.unbind(0), lengths.tolist(), strict=True)
    return [seq[: int(n)] for seq, n in rows]


def pack_sequence(sequences: list[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """A list of sequences of shapes (L_b, *) packed: padded, then packed."""
    lengths = chainrule.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences a packed sequence holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
