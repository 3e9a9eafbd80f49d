"""``chainrule.distributed``: PyTorch's ``torch.distributed`` on MPI (through mpi4py).

Launch with ``chainrule launch --nproc N script.py`` or ``mpirun -n N chainrule run
script.py``; ``init_process_group`` (backend "mpi", or "gloo", which runs on MPI too) takes
the ranks from MPI. mpi4py comes with ``pip install chainrule[distributed]``; it is
imported by ``init_process_group``, never by ``import chainrule``. See docs/distributed.md.
"""

from __future__ import annotations

from ._backends import Backend
from ._objects import (
    all_gather_object,
    broadcast_object_list,
    gather_object,
    scatter_object_list,
)
from ._ops import ReduceOp
from ._world import (
    GroupMember,
    ProcessGroup,
    destroy_process_group,
    get_backend,
    get_global_rank,
    get_group_rank,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    group,
    init_process_group,
    is_available,
    is_gloo_available,
    is_initialized,
    is_mpi_available,
    is_nccl_available,
    is_torchelastic_launched,
    new_group,
)
from .collectives import (
    Work,
    all_gather,
    all_gather_into_tensor,
    all_reduce,
    all_to_all,
    all_to_all_single,
    barrier,
    broadcast,
    gather,
    irecv,
    isend,
    recv,
    reduce,
    reduce_scatter,
    reduce_scatter_tensor,
    scatter,
    send,
)
from .device_mesh import DeviceMesh, init_device_mesh

__all__ = [
    "Backend",
    "DeviceMesh",
    "GroupMember",
    "ProcessGroup",
    "ReduceOp",
    "Work",
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_object",
    "all_reduce",
    "all_to_all",
    "all_to_all_single",
    "barrier",
    "broadcast",
    "broadcast_object_list",
    "destroy_process_group",
    "gather",
    "gather_object",
    "get_backend",
    "get_global_rank",
    "get_group_rank",
    "get_process_group_ranks",
    "get_rank",
    "get_world_size",
    "group",
    "init_device_mesh",
    "init_process_group",
    "irecv",
    "is_available",
    "is_gloo_available",
    "is_initialized",
    "is_mpi_available",
    "is_nccl_available",
    "is_torchelastic_launched",
    "isend",
    "new_group",
    "recv",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "scatter",
    "scatter_object_list",
    "send",
]
