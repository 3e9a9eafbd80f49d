"""``DistributedDataParallel``: one model replica per process, gradients averaged over MPI.

At construction rank 0's parameters and buffers are broadcast to every rank. The
parameters are grouped into buckets in reverse order (the order backward usually reaches
them), one dtype per bucket, ``bucket_cap_mb`` (25) MiB each; with the default cap the
first is 1 MiB, as in PyTorch. (PyTorch also rebuilds the buckets after the first step in
the order backward produced the gradients; chainrule keeps them.)

A post-accumulate-grad hook on each parameter copies its gradient into its bucket's flat
buffer; a full bucket goes at once to a communication thread that all-reduces the buckets
in order (so every rank issues the same sequence) with MPI's blocking ``Allreduce``, which
releases the GIL: communication runs while backward goes on. (MPI's non-blocking
``Iallreduce`` would progress only inside MPI calls.) When the last bucket has gone, the
hook waits for all and writes each gradient back as the sum over ranks divided by their
number: the gradient of the mean loss over the ranks' batches together.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from queue import SimpleQueue
from typing import Any

from ..._backend import REDUCED, xp
from ...distributed._ops import wire
from ..modules.module import Module

__all__ = ["DistributedDataParallel"]

_MIB = 1024 * 1024
_FIRST_BUCKET_BYTES = _MIB  # PyTorch's dist._DEFAULT_FIRST_BUCKET_BYTES
_UNFINISHED = (
    "Expected to have finished reduction in the prior iteration before starting a new one. "
    "This error indicates that your module has parameters that were not used in producing "
    "loss. You can enable unused parameter detection by passing the keyword argument "
    "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by \n"
    "making sure all `forward` function outputs participate in calculating loss."
)


class _Bucket:
    """Parameters (their indices) whose gradients travel in one flat buffer."""

    __slots__ = ("indices", "flat", "pending", "done", "error")

    def __init__(self, indices: list[int], flat: Any) -> None:
        self.indices = indices
        self.flat = flat
        self.pending = len(indices)
        self.done = threading.Event()
        self.done.set()
        self.error: BaseException | None = None


def _communicate(queue: SimpleQueue, comm: Any, MPI: Any) -> None:
    """The communication thread: all-reduce each bucket put on ``queue``, in order (MPI
    releases the GIL meanwhile, so backward goes on); None ends it."""
    while True:
        bucket = queue.get()
        if bucket is None:
            return
        try:
            comm.Allreduce(MPI.IN_PLACE, bucket.flat, op=MPI.SUM)
        except BaseException as exc:  # raised in backward, by the hook that waits
            bucket.error = exc
        finally:
            bucket.done.set()


def _assign_buckets(params: list, cap_bytes: int, first_bytes: int) -> list[list[int]]:
    """Parameter indices in buckets: reverse order, one dtype each, a smaller first one."""
    open_: dict[Any, list] = {}  # dtype -> [indices, bytes, limit]
    done: list[list[int]] = []
    for i in reversed(range(len(params))):
        data = params[i]._data
        entry = open_.setdefault(data.dtype, [[], 0, first_bytes])
        entry[0].append(i)
        entry[1] += data.nbytes
        if entry[1] >= entry[2]:
            done.append(entry[0])
            open_[data.dtype] = [[], 0, cap_bytes]
    done.extend(entry[0] for entry in open_.values() if entry[0])
    return done


def _tensors_of(value: Any) -> Iterator[Any]:
    from ..._tensor import Tensor

    if isinstance(value, Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors_of(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tensors_of(v)


def _reached_leaves(outputs: Any) -> set[int]:
    """The ids of the leaves the outputs' graph reaches (their AccumulateGrad nodes)."""
    seen: set[int] = set()
    leaves: set[int] = set()
    stack = [t.grad_fn for t in _tensors_of(outputs) if t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        variable = getattr(node, "variable", None)
        if variable is not None:
            leaves.add(id(variable))
        stack.extend(n for n, _ in node.next_functions)
    return leaves


class DistributedDataParallel(Module):
    """Data parallelism over the processes of ``process_group`` (the default group): wrap
    the model, run forward and backward as usual; each gradient is the average over ranks."""

    def __init__(
        self,
        module: Module,
        device_ids: Any = None,
        output_device: Any = None,
        dim: int = 0,
        broadcast_buffers: bool = True,
        init_sync: bool = True,
        process_group: Any = None,
        bucket_cap_mb: float | None = None,
        find_unused_parameters: bool = False,
        check_reduction: bool = False,
        gradient_as_bucket_view: bool = False,
        static_graph: bool = False,
        delay_all_reduce_named_params: Any = None,
        param_to_hook_all_reduce: Any = None,
        mixed_precision: Any = None,
        device_mesh: Any = None,
        skip_all_reduce_unused_params: bool = False,
    ) -> None:
        super().__init__()
        from ...distributed._world import _mpi, _resolve

        self.module = module
        group = _resolve(process_group)
        if group is None:
            raise ValueError("DistributedDataParallel: this rank is not in process_group")
        self.process_group = group
        self._MPI = _mpi()
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.dim = dim
        self.device_ids = device_ids
        cap = 25.0 if bucket_cap_mb is None else float(bucket_cap_mb)
        self.bucket_bytes_cap = int(cap * _MIB)
        self._params = [p for p in module.parameters() if p.requires_grad]
        if init_sync:
            self._broadcast_states([*module.parameters(), *module.buffers()])
        self._buckets: list[_Bucket] = []
        self._where: list[tuple[_Bucket, int]] = [None] * len(self._params)  # type: ignore[list-item]
        first = _FIRST_BUCKET_BYTES if bucket_cap_mb is None else self.bucket_bytes_cap
        for indices in _assign_buckets(self._params, self.bucket_bytes_cap, first):
            dtype = self._params[indices[0]]._data.dtype
            if dtype in REDUCED:  # (bfloat16: MPI has none; the gradients summed in float32)
                dtype = xp.dtype(xp.float32)
            flat = xp.empty(sum(self._params[i]._data.size for i in indices), dtype=dtype)
            bucket = _Bucket(indices, flat)
            offset = 0
            for i in indices:
                self._where[i] = (bucket, offset)
                offset += self._params[i]._data.size
            self._buckets.append(bucket)
        self._ready: set[int] = set()
        self._unused: list[int] = []
        self._next_bucket = 0
        # the gradients' own communicator, used by one thread (MPI_THREAD_MULTIPLE) that
        # all-reduces the buckets while backward computes the rest
        self._comm = group.comm.Dup()
        self._queue: SimpleQueue | None = None
        if self._MPI.Query_thread() >= self._MPI.THREAD_MULTIPLE:
            self._queue = SimpleQueue()
            args = (self._queue, self._comm, self._MPI)
            threading.Thread(target=_communicate, args=args, daemon=True).start()
        self._handles = [
            p.register_post_accumulate_grad_hook(self._make_hook(i))
            for i, p in enumerate(self._params)
        ]

    # ----- communication ------------------------------------------------------------

    def _broadcast_states(self, tensors: list) -> None:
        """Rank 0's values of ``tensors`` into every rank's, one broadcast per dtype."""
        if self.process_group.size() == 1:
            return
        by_dtype: dict[Any, list] = {}
        for t in tensors:
            by_dtype.setdefault(t._data.dtype, []).append(t)
        for dtype, group in by_dtype.items():
            flat = xp.concatenate([xp.ravel(t._data) for t in group]).astype(dtype, copy=False)
            self.process_group.comm.Bcast(wire(flat), root=0)  # (bfloat16: its bits)
            offset = 0
            for t in group:
                n = t._data.size
                t._data[...] = flat[offset : offset + n].reshape(t._data.shape)
                offset += n

    def _make_hook(self, index: int) -> Any:
        def hook(param: Any) -> None:
            if self.require_backward_grad_sync:
                if not self._ready and self._unused:
                    for i in self._unused:  # not in this backward's graph: ready now
                        self._mark_ready(i)
                self._mark_ready(index)

        return hook

    def _mark_ready(self, index: int) -> None:
        """Copy parameter ``index``'s gradient into its bucket; start the buckets now full."""
        if index in self._ready:
            raise RuntimeError(
                f"Expected to mark a variable ready only once. Parameter at index {index} has "
                "been marked as ready twice. This means that multiple autograd engine hooks "
                "have fired for this particular parameter during this iteration."
            )
        self._ready.add(index)
        bucket, offset = self._where[index]
        param = self._params[index]
        piece = bucket.flat[offset : offset + param._data.size].reshape(param._data.shape)
        if param.grad is None:
            piece[...] = 0
        else:
            xp.copyto(piece, param.grad._data)
        bucket.pending -= 1
        if bucket.pending == 0:
            self._start_ready_buckets()

    def _start_ready_buckets(self) -> None:
        """Hand the full buckets, in order, to the communication thread."""
        while self._next_bucket < len(self._buckets):
            bucket = self._buckets[self._next_bucket]
            if bucket.pending:
                return
            self._next_bucket += 1
            if self._queue is None:  # MPI without threads: all-reduce here, no overlap
                self._comm.Allreduce(self._MPI.IN_PLACE, bucket.flat, op=self._MPI.SUM)
                continue
            bucket.done.clear()
            self._queue.put(bucket)
        self._finish_reduction()

    def _finish_reduction(self) -> None:
        """Wait for every bucket; each gradient becomes the sum over ranks / world size."""
        MPI = self._MPI
        for bucket in self._buckets:
            bucket.done.wait()
            if bucket.error is not None:
                error, bucket.error = bucket.error, None
                raise error
        used = None
        if self.find_unused_parameters:  # a parameter no rank used keeps its gradient
            used = xp.zeros(len(self._params), dtype=xp.int32)
            used[[i for i in range(len(self._params)) if i not in set(self._unused)]] = 1
            self._comm.Allreduce(MPI.IN_PLACE, used, op=MPI.SUM)
        size = self.process_group.size()
        for i, param in enumerate(self._params):
            if used is not None and used[i] == 0:
                continue
            bucket, offset = self._where[i]
            piece = bucket.flat[offset : offset + param._data.size].reshape(param._data.shape)
            if param.grad is None:
                from ..._tensor import _make

                param.grad = _make(xp.empty_like(param._data), param.dtype)
            xp.divide(piece, size, out=param.grad._data)
            param.grad._bump()
        for bucket in self._buckets:
            bucket.pending = len(bucket.indices)
        self._ready = set()
        self._next_bucket = 0

    def __del__(self) -> None:
        queue = self.__dict__.get("_queue")
        if queue is not None:
            queue.put(None)  # ends the communication thread

    # ----- forward ------------------------------------------------------------------

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        from ...autograd import is_grad_enabled

        if self._ready:
            raise RuntimeError(_UNFINISHED)
        if self.broadcast_buffers and self.require_forward_param_sync:
            buffers = list(self.module.buffers())
            if buffers:
                self._broadcast_states(buffers)
        outputs = self.module(*inputs, **kwargs)
        self._unused = []
        if self.find_unused_parameters and is_grad_enabled() and self.require_backward_grad_sync:
            reached = _reached_leaves(outputs)
            self._unused = [i for i, p in enumerate(self._params) if id(p) not in reached]
        return outputs

    @contextmanager
    def no_sync(self) -> Iterator[None]:
        """Inside, backward accumulates gradients locally, with no communication; the first
        backward after it averages the accumulated gradients."""
        saved = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = saved

    def _get_ddp_logging_data(self) -> dict[str, Any]:
        """PyTorch's DDP logging data, the fields chainrule knows (PyTorch's names and
        encodings: flags as 0/1); the Gloo- and CUDA-specific ones are left out."""
        import os

        dtypes = {str(p.dtype).removeprefix("chainrule.") for p in self._params}
        return {
            "backend_name": self.process_group.backend,
            "master_addr": os.environ.get("MASTER_ADDR", "N/A"),
            "master_port": os.environ.get("MASTER_PORT", "N/A"),
            "module_name": type(self.module).__name__,
            "dtypes": ", ".join(sorted(d.replace("float32", "float") for d in dtypes)),
            "broadcast_buffers": int(self.broadcast_buffers),
            "bucket_cap_bytes": self.bucket_bytes_cap,
            "find_unused_parameters": int(self.find_unused_parameters),
            "gradient_as_bucket_view": int(self.gradient_as_bucket_view),
            "is_multi_device_module": 0,
            "num_parameter_tensors": len(self._params),
            "rank": self.process_group.rank(),
            "static_graph": int(self.static_graph),
            "total_parameter_size_bytes": sum(p._data.nbytes for p in self._params),
            "world_size": self.process_group.size(),
        }
