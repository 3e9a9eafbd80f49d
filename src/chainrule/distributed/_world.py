"""The process groups: MPI communicators, the default one made by ``init_process_group``.

MPI (through mpi4py) is the transport. mpi4py is imported only when a group is made, so
``import chainrule`` never starts MPI; without it ``init_process_group`` says how to get it.
A process that raises after ``init_process_group`` prints ``rank R: <traceback>`` and aborts
the whole job (``MPI_Abort``), so one failing rank never leaves the others waiting.
"""

from __future__ import annotations

import os
import sys
import traceback
from datetime import timedelta
from typing import Any

_INSTALL_HINT = (
    "chainrule.distributed runs on MPI through mpi4py, which is not installed: "
    "pip install chainrule[distributed]"
)
_NOT_INITIALIZED = (
    "Default process group has not been initialized, please make sure to call init_process_group."
)
_BACKENDS = ("mpi", "gloo")


def _mpi() -> Any:
    """mpi4py's ``MPI`` module, imported on first use (this starts MPI)."""
    try:
        from mpi4py import MPI
    except ImportError as exc:
        raise RuntimeError(_INSTALL_HINT) from exc
    return MPI


class ProcessGroup:
    """A set of ranks and its MPI communicator; ranks are world ranks, sorted."""

    def __init__(self, comm: Any, ranks: list[int], backend: str) -> None:
        self.comm = comm
        self.ranks = ranks
        self.backend = backend

    def rank(self) -> int:
        return self.comm.Get_rank()

    def size(self) -> int:
        return self.comm.Get_size()

    def group_rank(self, global_rank: int) -> int:
        """This group's rank of world rank ``global_rank``."""
        try:
            return self.ranks.index(global_rank)
        except ValueError:
            raise ValueError(f"Global rank {global_rank} is not part of group {self}") from None

    def __repr__(self) -> str:
        return f"ProcessGroup(backend={self.backend!r}, ranks={self.ranks})"


class GroupMember:
    """``GroupMember.WORLD`` is the default group; ``NON_GROUP_MEMBER`` is what
    ``new_group`` gives a rank left out of it."""

    WORLD: ProcessGroup | None = None
    NON_GROUP_MEMBER = object()


group = GroupMember  # torch.distributed.group.WORLD

_state: dict[str, Any] = {"excepthook": None, "backend": None}


def is_available() -> bool:
    """Whether mpi4py (and so an MPI library) can be imported; it is not imported here."""
    import importlib.util

    return importlib.util.find_spec("mpi4py") is not None


def is_torchelastic_launched() -> bool:
    """Whether this process was started by torchelastic (``torchrun``), which sets
    ``TORCHELASTIC_RUN_ID``."""
    import os

    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def is_initialized() -> bool:
    """Whether ``init_process_group`` has made the default group."""
    return GroupMember.WORLD is not None


def is_mpi_available() -> bool:
    return is_available()


def is_gloo_available() -> bool:
    return is_available()  # "gloo" runs on MPI too


def is_nccl_available() -> bool:
    return False


def _agree(name: str, given: int, env: str | None, mpi_value: int) -> None:
    for source, value in (("argument", given), ("environment variable", env)):
        if value is None or int(value) == -1:
            continue
        if int(value) != mpi_value:
            raise ValueError(
                f"{name} {value} (from the {source}) does not match MPI's {name} {mpi_value}: "
                "launch with mpirun or `chainrule launch`, whose ranks chainrule uses"
            )


def init_process_group(
    backend: str | None = None,
    init_method: str | None = None,
    timeout: timedelta | None = None,
    world_size: int = -1,
    rank: int = -1,
    store: Any = None,
    group_name: str = "",
    pg_options: Any = None,
    device_id: Any = None,
) -> None:
    """Make the default group of every process of the MPI job (the ranks come from MPI;
    ``rank``, ``world_size`` and torchrun's ``RANK``/``WORLD_SIZE`` must agree with them)."""
    if is_initialized():
        raise ValueError("trying to initialize the default process group twice!")
    name = "mpi" if backend is None else str(backend).lower()
    if name == "nccl":
        raise RuntimeError("Distributed package doesn't have NCCL built in")
    if name not in _BACKENDS and not name.startswith("cpu:"):
        raise ValueError(f"Invalid backend: '{backend}'")
    MPI = _mpi()
    comm = MPI.COMM_WORLD.Dup()
    _agree("rank", rank, os.environ.get("RANK"), comm.Get_rank())
    _agree("world size", world_size, os.environ.get("WORLD_SIZE"), comm.Get_size())
    GroupMember.WORLD = ProcessGroup(comm, list(range(comm.Get_size())), name)
    _state["backend"] = name
    _state["excepthook"] = sys.excepthook
    sys.excepthook = _abort_on_exception


def _abort_on_exception(kind: type, exc: BaseException, tb: Any) -> None:
    """Print ``rank R: <traceback>`` and end every rank of the job (MPI_Abort)."""
    abort_job("".join(traceback.format_exception(kind, exc, tb)), 1)


def abort_job(message: str, status: int) -> None:
    """Print ``rank R: message`` and, in a job of several processes, end them all with
    ``status`` (MPI_Abort): the others may be waiting for this one in a collective."""
    MPI = _mpi()
    sys.stdout.flush()
    sys.stderr.write(f"rank {MPI.COMM_WORLD.Get_rank()}: {message}")
    sys.stderr.flush()
    if MPI.COMM_WORLD.Get_size() > 1:
        MPI.COMM_WORLD.Abort(status)


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Free ``group``'s communicator; with no group, every group and the default one."""
    if group is None or group is GroupMember.WORLD:
        world = _default_group()
        world.comm.Free()
        GroupMember.WORLD = None
        if sys.excepthook is _abort_on_exception:
            sys.excepthook = _state["excepthook"]
        return
    if group is not GroupMember.NON_GROUP_MEMBER:
        group.comm.Free()


def _default_group() -> ProcessGroup:
    if GroupMember.WORLD is None:
        raise ValueError(_NOT_INITIALIZED)
    return GroupMember.WORLD


def _resolve(group: Any) -> ProcessGroup | None:
    """The group a call runs on; None for a rank outside it (the call then does nothing)."""
    world = _default_group()
    if group is None:
        return world
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    return group


def new_group(
    ranks: list[int] | None = None,
    timeout: timedelta | None = None,
    backend: str | None = None,
    pg_options: Any = None,
    use_local_synchronization: bool = False,
    group_desc: str | None = None,
    device_id: Any = None,
) -> Any:
    """A group of ``ranks`` (every rank of the default group must call it, as in PyTorch);
    ranks left out get ``GroupMember.NON_GROUP_MEMBER``."""
    world = _default_group()
    members = sorted(range(world.size()) if ranks is None else {int(r) for r in ranks})
    for r in members:
        if not 0 <= r < world.size():
            raise ValueError(
                f"The new group's rank should be within the world_size set by "
                f"init_process_group, but got {r} (world size {world.size()})"
            )
    me = world.rank()
    MPI = _mpi()
    color = 0 if me in members else MPI.UNDEFINED
    comm = world.comm.Split(color, members.index(me) if me in members else 0)
    if comm == MPI.COMM_NULL:
        return GroupMember.NON_GROUP_MEMBER
    return ProcessGroup(comm, members, backend or world.backend)


def get_rank(group: Any = None) -> int:
    """This process's rank in ``group`` (the default group unless given); -1 outside it."""
    g = _resolve(group)
    return -1 if g is None else g.rank()


def get_world_size(group: Any = None) -> int:
    """The number of processes in ``group``; -1 for a rank outside it."""
    g = _resolve(group)
    return -1 if g is None else g.size()


def get_backend(group: Any = None) -> str:
    g = _resolve(group)
    if g is None:
        raise ValueError("Invalid process group specified")
    return g.backend


def get_process_group_ranks(group: Any) -> list[int]:
    """The world ranks of ``group``, in its rank order."""
    g = _resolve(group)
    if g is None:
        raise ValueError(
            "Group is not registered, please create group with torch.distributed.new_group API"
        )
    return list(g.ranks)


def get_global_rank(group: Any, group_rank: int) -> int:
    """The world rank of ``group``'s rank ``group_rank``."""
    return get_process_group_ranks(group)[group_rank]


def get_group_rank(group: Any, global_rank: int) -> int:
    """``group``'s rank of world rank ``global_rank``."""
    g = _resolve(group)
    if g is None:
        raise ValueError(
            "Group is not registered, please create group with torch.distributed.new_group API"
        )
    return g.group_rank(global_rank)
