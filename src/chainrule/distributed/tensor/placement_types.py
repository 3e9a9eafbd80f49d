"""``torch.distributed.tensor.placement_types``: how a DTensor lies on a device mesh.

The placements are plain values (equality, hashing, printing and the shard-size
arithmetic as in PyTorch); chainrule has no DTensor to place (see ``_api.py``).
"""

from __future__ import annotations

__all__ = ["Partial", "Placement", "Replicate", "Shard"]


class Placement:
    """The base of the placements: which of shard / replicate / partial it is."""

    def is_shard(self, dim: int | None = None) -> bool:
        """Whether this is ``Shard`` (on ``dim`` when given)."""
        if not isinstance(self, Shard) or isinstance(self, _StridedShard):
            return False
        return dim is None or self.dim == dim

    def is_replicate(self) -> bool:
        """Whether this is ``Replicate``."""
        return isinstance(self, Replicate)

    def is_partial(self, reduce_op: str | None = None) -> bool:
        """Whether this is ``Partial`` (with ``reduce_op`` when given)."""
        if not isinstance(self, Partial):
            return False
        return reduce_op is None or self.reduce_op == reduce_op


class Shard(Placement):
    """The tensor is split along ``dim`` over a mesh dimension, ``torch.chunk``-wise."""

    def __init__(self, dim: int) -> None:
        self.dim = dim

    @staticmethod
    def local_shard_size_and_offset(
        curr_local_size: int, num_chunks: int, rank: int
    ) -> tuple[int, int]:
        """``(size, offset)`` of chunk ``rank`` of ``curr_local_size`` items cut in
        ``num_chunks`` as ``torch.chunk`` does (the last chunks may be short or empty)."""
        if curr_local_size % num_chunks == 0:
            full = curr_local_size // num_chunks
            return full, full * rank
        full = -(-curr_local_size // num_chunks)
        start = full * rank
        end = min(curr_local_size, start + full)
        return max(0, end - start), min(curr_local_size, start)

    def _local_shard_size_and_offset(
        self, curr_local_size: int, num_chunks: int, rank: int
    ) -> tuple[int, int]:
        return Shard.local_shard_size_and_offset(curr_local_size, num_chunks, rank)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.dim == self.dim

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.dim))

    def __repr__(self) -> str:
        return f"Shard(dim={self.dim})"

    def __str__(self) -> str:
        return f"S({self.dim})"


class _StridedShard(Shard):
    """A shard taken as one chunk from each of ``split_factor`` groups along ``dim``.

    Not a ``Shard`` to ``is_shard`` or ``==`` (as in PyTorch)."""

    def __init__(self, dim: int, split_factor: int) -> None:
        super().__init__(dim)
        self.split_factor = split_factor

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, _StridedShard)
            and other.dim == self.dim
            and other.split_factor == self.split_factor
        )

    def __hash__(self) -> int:
        return hash(("_StridedShard", self.dim, self.split_factor))

    def __repr__(self) -> str:
        return f"_StridedShard(dim={self.dim}, sf={self.split_factor})"

    def __str__(self) -> str:
        return f"_S({self.dim}, {self.split_factor})"


class Replicate(Placement):
    """Every rank of the mesh dimension holds the whole tensor."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Replicate)

    def __hash__(self) -> int:
        return hash("Replicate")

    def __repr__(self) -> str:
        return "Replicate()"

    def __str__(self) -> str:
        return "R"


class Partial(Placement):
    """Every rank holds a partial value; the tensor is their ``reduce_op`` reduction."""

    def __init__(self, reduce_op: str = "sum") -> None:
        self.reduce_op = reduce_op

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.reduce_op == self.reduce_op

    def __hash__(self) -> int:
        return hash(("Partial", self.reduce_op))

    def __repr__(self) -> str:
        return f"Partial({self.reduce_op})"

    def __str__(self) -> str:
        return f"P({self.reduce_op})"
