"""The tensor collectives and point-to-point calls, on MPI, in place on the tensors' arrays.

Contiguous tensors are handed to MPI as they are (``MPI.IN_PLACE`` where MPI allows it), with
no copy; a list of tensors (``all_gather``, ``scatter``, ``all_to_all``...) is packed into,
or unpacked from, one contiguous buffer, since an MPI call takes one. ``async_op=True``
returns a :class:`Work` whose ``wait()`` completes the call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._backend import REDUCED, xp
from ._ops import InPlace, ReduceOp, finish_avg, mpi_op, readable, unwire, wire, wire_dtype
from ._world import ProcessGroup, _mpi, _resolve

__all__ = [
    "Work",
    "all_gather",
    "all_gather_into_tensor",
    "all_reduce",
    "all_to_all",
    "all_to_all_single",
    "barrier",
    "broadcast",
    "gather",
    "irecv",
    "isend",
    "recv",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "scatter",
    "send",
]


class Work:
    """A started call: ``wait()`` blocks until it is done, ``is_completed()`` asks."""

    def __init__(self, requests: list, finish: Callable[[], Any] | None = None) -> None:
        self._requests = requests
        self._finish = finish
        self._done = False
        self._result: Any = None

    def _complete(self) -> None:
        self._done = True
        if self._finish is not None:
            self._result = self._finish()

    def wait(self, timeout: Any = None) -> bool:
        """Block until the call is done (its results then in the tensors)."""
        if not self._done:
            _mpi().Request.Waitall(self._requests)
            self._complete()
        return True

    def is_completed(self) -> bool:
        """Whether the call is done (finishing it if MPI has)."""
        if not self._done and _mpi().Request.Testall(self._requests):
            self._complete()
        return self._done

    def is_success(self) -> bool:
        return self.is_completed()

    def result(self) -> list:
        self.wait()
        return []


def _run(async_op: bool, start: Callable[[], Any], finish: Callable[[], Any]) -> Any:
    """Start a non-blocking MPI call; return its Work, or wait for it (None)."""
    work = Work([start()], finish)
    if async_op:
        return work
    work.wait()
    return None


def _call(
    async_op: bool, finish: Callable[[], Any], comm: Any, name: str, *args: Any, **kw: Any
) -> Any:
    """MPI's blocking collective ``name``; with ``async_op`` its non-blocking form
    (``I`` + name), returned as a Work."""
    if async_op:
        return Work([getattr(comm, "I" + name.lower())(*args, **kw)], finish)
    getattr(comm, name)(*args, **kw)
    finish()
    return None


def _nothing() -> None:
    pass


def _check_tensor(t: Any, name: str) -> None:
    from .._tensor import Tensor

    if not isinstance(t, Tensor):
        raise TypeError(
            f"Invalid function argument. Expected parameter `{name}` of type torch.Tensor\n"
            f"             but got {type(t)} instead."
        )


def _check_list(ts: Any, name: str) -> None:
    from .._tensor import Tensor

    if not isinstance(ts, list):
        raise TypeError(
            f"Invalid function argument. Expected parameter `{name}` of type List[torch.Tensor]\n"
            f"             but got {type(ts)} instead."
        )
    if not all(isinstance(t, Tensor) for t in ts):
        raise TypeError(
            f"Invalid function argument. Expected parameter `{name}` of type List[torch.Tensor]\n"
            f"             but got {type(ts)} with elements of type {[type(t) for t in ts]}."
        )


def _reduce_finish(op: Any, g: ProcessGroup, bufs: list) -> Callable[[], None]:
    avg = ReduceOp(op.value if isinstance(op, ReduceOp) else op) is ReduceOp.AVG

    def finish() -> None:
        for b in bufs:
            if avg:
                finish_avg(b.buf, g.size())
            b.done()

    return finish


def _local_rank(g: ProcessGroup, global_rank: int, group_rank: int | None = None) -> int:
    return group_rank if group_rank is not None else g.group_rank(global_rank)


def _count_matches(out_numel: int, in_numel: int, size: int, what: str) -> None:
    if out_numel != in_numel * size:
        raise ValueError(
            f"{what}: output tensor size must be equal to world_size times input tensor size"
        )


# ---------------------------------------------------------------- collectives


def barrier(group: Any = None, async_op: bool = False, device_ids: Any = None) -> Any:
    """Wait until every rank of ``group`` has called it."""
    g = _resolve(group)
    if g is None:
        return None
    return _call(async_op, _nothing, g.comm, "Barrier")


def broadcast(
    tensor: Any, src: int | None = None, group: Any = None, async_op: bool = False,
    group_src: int | None = None,
) -> Any:  # fmt: skip
    """Copy rank ``src``'s ``tensor`` into every rank's ``tensor``."""
    _check_tensor(tensor, "tensor")
    g = _resolve(group)
    if g is None:
        return None
    root = _local_rank(g, src if src is not None else 0, group_src)
    b = InPlace(tensor)
    return _call(async_op, b.done, g.comm, "Bcast", b.buf, root=root)


def all_reduce(
    tensor: Any, op: Any = ReduceOp.SUM, group: Any = None, async_op: bool = False
) -> Any:
    """Reduce ``tensor`` over the ranks with ``op``; every rank gets the result, in place."""
    _check_tensor(tensor, "tensor")
    g = _resolve(group)
    if g is None:
        return None
    MPI = _mpi()
    b = InPlace(tensor, reduce=True)
    mop = mpi_op(MPI, op, b.buf.dtype)
    return _call(
        async_op, _reduce_finish(op, g, [b]), g.comm, "Allreduce", MPI.IN_PLACE, b.buf, op=mop
    )


def reduce(
    tensor: Any, dst: int | None = None, op: Any = ReduceOp.SUM, group: Any = None,
    async_op: bool = False, group_dst: int | None = None,
) -> Any:  # fmt: skip
    """Reduce ``tensor`` over the ranks with ``op`` into rank ``dst``'s ``tensor``."""
    _check_tensor(tensor, "tensor")
    g = _resolve(group)
    if g is None:
        return None
    MPI = _mpi()
    root = _local_rank(g, dst if dst is not None else 0, group_dst)
    b = InPlace(tensor, reduce=True)
    mop = mpi_op(MPI, op, b.buf.dtype)
    if g.rank() == root:
        finish = _reduce_finish(op, g, [b])
        return _call(async_op, finish, g.comm, "Reduce", MPI.IN_PLACE, b.buf, op=mop, root=root)
    return _call(async_op, _nothing, g.comm, "Reduce", b.buf, None, op=mop, root=root)


def all_gather_into_tensor(
    output_tensor: Any, input_tensor: Any, group: Any = None, async_op: bool = False
) -> Any:
    """Every rank's ``input_tensor``, in rank order, into ``output_tensor`` (concatenated
    along dim 0 or stacked)."""
    _check_tensor(output_tensor, "output_tensor")
    _check_tensor(input_tensor, "input_tensor")
    g = _resolve(group)
    if g is None:
        return None
    _count_matches(output_tensor.numel(), input_tensor.numel(), g.size(), "all_gather_into_tensor")
    out, inp = InPlace(output_tensor), readable(input_tensor)
    return _call(async_op, out.done, g.comm, "Allgather", inp, out.buf)


def _unpack_into(tensors: list, flat: Any) -> None:
    offset = 0
    for t in tensors:
        n = t._data.size
        t._data[...] = unwire(flat[offset : offset + n], t._data.dtype).reshape(t._data.shape)
        t._bump()
        offset += n


def _pack(tensors: list, dtype: Any) -> Any:
    """The tensors' elements, flat, in ``dtype`` (bfloat16's: as ``wire`` sends them)."""
    flat = xp.concatenate([xp.ravel(t._data) for t in tensors])
    if flat.dtype in REDUCED and dtype not in REDUCED:
        return wire(flat, reduce=dtype.kind == "f")
    return flat.astype(dtype, copy=False)


def all_gather(tensor_list: list, tensor: Any, group: Any = None, async_op: bool = False) -> Any:
    """Every rank's ``tensor`` into ``tensor_list`` (one tensor per rank, in rank order)."""
    _check_list(tensor_list, "tensor_list")
    _check_tensor(tensor, "tensor")
    g = _resolve(group)
    if g is None:
        return None
    if len(tensor_list) != g.size():
        raise ValueError("all_gather: tensor_list must have one tensor per rank")
    inp = readable(tensor)
    flat = xp.empty(inp.size * g.size(), dtype=inp.dtype)
    return _call(async_op, lambda: _unpack_into(tensor_list, flat), g.comm, "Allgather", inp, flat)


def gather(
    tensor: Any, gather_list: list | None = None, dst: int | None = None, group: Any = None,
    async_op: bool = False, group_dst: int | None = None,
) -> Any:  # fmt: skip
    """Every rank's ``tensor`` into rank ``dst``'s ``gather_list``."""
    _check_tensor(tensor, "tensor")
    g = _resolve(group)
    if g is None:
        return None
    root = _local_rank(g, dst if dst is not None else 0, group_dst)
    inp = readable(tensor)
    if g.rank() != root:
        if gather_list:
            raise ValueError(
                "Argument ``gather_list`` must NOT be specified on non-destination ranks."
            )
        return _call(async_op, _nothing, g.comm, "Gather", inp, None, root=root)
    if gather_list is None:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    _check_list(gather_list, "gather_list")
    flat = xp.empty(inp.size * g.size(), dtype=inp.dtype)
    return _call(
        async_op, lambda: _unpack_into(gather_list, flat), g.comm, "Gather", inp, flat, root=root
    )


def scatter(
    tensor: Any, scatter_list: list | None = None, src: int | None = None, group: Any = None,
    async_op: bool = False, group_src: int | None = None,
) -> Any:  # fmt: skip
    """Rank ``src``'s ``scatter_list[i]`` into rank i's ``tensor``."""
    _check_tensor(tensor, "tensor")
    g = _resolve(group)
    if g is None:
        return None
    root = _local_rank(g, src if src is not None else 0, group_src)
    out = InPlace(tensor)
    if g.rank() != root:
        if scatter_list:
            raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
        return _call(async_op, out.done, g.comm, "Scatter", None, out.buf, root=root)
    if scatter_list is None:
        raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
    _check_list(scatter_list, "scatter_list")
    flat = _pack(scatter_list, out.buf.dtype)
    return _call(async_op, out.done, g.comm, "Scatter", flat, out.buf, root=root)


def reduce_scatter_tensor(
    output: Any, input: Any, op: Any = ReduceOp.SUM, group: Any = None, async_op: bool = False
) -> Any:
    """Reduce ``input`` over the ranks with ``op``; rank i gets the i-th block in ``output``."""
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    g = _resolve(group)
    if g is None:
        return None
    _count_matches(input.numel(), output.numel(), g.size(), "reduce_scatter_tensor")
    MPI = _mpi()
    out, inp = InPlace(output, reduce=True), readable(input, reduce=True)
    mop = mpi_op(MPI, op, inp.dtype)
    finish = _reduce_finish(op, g, [out])
    return _call(async_op, finish, g.comm, "Reduce_scatter_block", inp, out.buf, op=mop)


def reduce_scatter(
    output: Any, input_list: list, op: Any = ReduceOp.SUM, group: Any = None,
    async_op: bool = False,
) -> Any:  # fmt: skip
    """Reduce ``input_list`` over the ranks with ``op``; rank i gets ``input_list[i]``'s."""
    _check_tensor(output, "output")
    _check_list(input_list, "input_list")
    g = _resolve(group)
    if g is None:
        return None
    MPI = _mpi()
    out = InPlace(output, reduce=True)
    flat = _pack(input_list, out.buf.dtype)
    mop = mpi_op(MPI, op, flat.dtype)
    finish = _reduce_finish(op, g, [out])
    return _call(async_op, finish, g.comm, "Reduce_scatter_block", flat, out.buf, op=mop)


def _alltoallv(
    async_op: bool, finish: Callable, g: ProcessGroup, send: Any, scounts: list, recv: Any,
    rcounts: list,
) -> Any:  # fmt: skip
    sdispl = [0, *xp.cumsum(scounts[:-1]).tolist()]
    rdispl = [0, *xp.cumsum(rcounts[:-1]).tolist()]
    args = ([send, (scounts, sdispl)], [recv, (rcounts, rdispl)])
    return _call(async_op, finish, g.comm, "Alltoallv", *args)


def all_to_all(
    output_tensor_list: list, input_tensor_list: list, group: Any = None, async_op: bool = False
) -> Any:
    """Rank i's ``input_tensor_list[j]`` into rank j's ``output_tensor_list[i]``."""
    _check_list(output_tensor_list, "output_tensor_list")
    _check_list(input_tensor_list, "input_tensor_list")
    g = _resolve(group)
    if g is None:
        return None
    dtype = wire_dtype(output_tensor_list[0]._data.dtype)
    send = _pack(input_tensor_list, dtype)
    recv = xp.empty(sum(t._data.size for t in output_tensor_list), dtype=dtype)
    scounts = [t._data.size for t in input_tensor_list]
    rcounts = [t._data.size for t in output_tensor_list]
    finish = lambda: _unpack_into(output_tensor_list, recv)
    return _alltoallv(async_op, finish, g, send, scounts, recv, rcounts)


def all_to_all_single(
    output: Any, input: Any, output_split_sizes: list | None = None,
    input_split_sizes: list | None = None, group: Any = None, async_op: bool = False,
) -> Any:  # fmt: skip
    """``input``'s dim-0 blocks to the ranks, theirs into ``output`` (equal blocks unless the
    split sizes say)."""
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    g = _resolve(group)
    if g is None:
        return None
    n = g.size()
    out, inp = InPlace(output), readable(input)
    row_in = inp.size // max(inp.shape[0], 1) if inp.ndim else 1
    row_out = out.buf.size // max(out.buf.shape[0], 1) if out.buf.ndim else 1
    scounts = [s * row_in for s in input_split_sizes] if input_split_sizes else [inp.size // n] * n
    rcounts = (
        [s * row_out for s in output_split_sizes] if output_split_sizes else [out.buf.size // n] * n
    )
    return _alltoallv(async_op, out.done, g, inp, scounts, out.buf, rcounts)


# ---------------------------------------------------------------- point to point


def _peer(g: ProcessGroup, rank: int | None, group_rank: int | None, default: Any) -> Any:
    if group_rank is not None:
        return group_rank
    return default if rank is None else g.group_rank(rank)


def isend(
    tensor: Any, dst: int | None = None, group: Any = None, tag: int = 0,
    group_dst: int | None = None,
) -> Any:  # fmt: skip
    """Start sending ``tensor`` to rank ``dst``; returns a Work."""
    _check_tensor(tensor, "tensor")
    g = _resolve(group)
    if g is None:
        return None
    peer = _peer(g, dst, group_dst, None)
    if peer == g.rank():
        raise ValueError("Invalid destination rank: destination rank should not be the same as the rank of the current process.")  # fmt: skip
    buf = readable(tensor)
    return _run(True, lambda: g.comm.Isend(buf, dest=peer, tag=tag), lambda: None)


def send(
    tensor: Any, dst: int | None = None, group: Any = None, tag: int = 0,
    group_dst: int | None = None,
) -> None:  # fmt: skip
    """Send ``tensor`` to rank ``dst``."""
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def irecv(
    tensor: Any, src: int | None = None, group: Any = None, tag: int = 0,
    group_src: int | None = None,
) -> Any:  # fmt: skip
    """Start receiving into ``tensor`` from rank ``src`` (any rank if None); returns a Work."""
    _check_tensor(tensor, "tensor")
    g = _resolve(group)
    if g is None:
        return None
    MPI = _mpi()
    peer = _peer(g, src, group_src, MPI.ANY_SOURCE)
    tag_ = MPI.ANY_TAG if peer == MPI.ANY_SOURCE and tag == 0 else tag
    out = InPlace(tensor)
    status = MPI.Status()

    def finish() -> int:
        out.done()
        return g.ranks[status.Get_source()]

    request = g.comm.Irecv(out.buf, source=peer, tag=tag_)
    work = Work([request], finish)
    work._status = status
    work.wait = lambda timeout=None: _wait_status(work, status)  # type: ignore[method-assign]
    return work


def _wait_status(work: Work, status: Any) -> bool:
    if not work._done:
        work._requests[0].Wait(status)
        work._complete()
    return True


def recv(
    tensor: Any, src: int | None = None, group: Any = None, tag: int = 0,
    group_src: int | None = None,
) -> int:  # fmt: skip
    """Receive into ``tensor`` from rank ``src`` (any rank if None); returns the sender."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    return work._result
