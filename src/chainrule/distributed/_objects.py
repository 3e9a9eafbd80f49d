"""The collectives of picklable Python objects (mpi4py's pickling calls)."""

from __future__ import annotations

from typing import Any

from ._world import _resolve

__all__ = ["all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list"]


def _root(g: Any, rank: int | None, group_rank: int | None) -> int:
    if group_rank is not None:
        return group_rank
    return g.group_rank(0 if rank is None else rank)


def broadcast_object_list(
    object_list: list, src: int | None = None, group: Any = None, device: Any = None,
    group_src: int | None = None,
) -> None:  # fmt: skip
    """Rank ``src``'s ``object_list`` items into every rank's ``object_list``, in place."""
    g = _resolve(group)
    if g is None:
        return
    root = _root(g, src, group_src)
    object_list[:] = g.comm.bcast(object_list if g.rank() == root else None, root=root)


def all_gather_object(object_list: list, obj: Any, group: Any = None) -> None:
    """Every rank's ``obj`` into ``object_list`` (one item per rank, in rank order)."""
    g = _resolve(group)
    if g is None:
        return
    object_list[:] = g.comm.allgather(obj)


def gather_object(
    obj: Any, object_gather_list: list | None = None, dst: int | None = None, group: Any = None,
    group_dst: int | None = None,
) -> None:  # fmt: skip
    """Every rank's ``obj`` into rank ``dst``'s ``object_gather_list``."""
    g = _resolve(group)
    if g is None:
        return
    root = _root(g, dst, group_dst)
    got = g.comm.gather(obj, root=root)
    if g.rank() == root:
        if object_gather_list is None:
            raise ValueError("Argument ``object_gather_list`` must be specified on destination rank.")  # fmt: skip
        object_gather_list[:] = got


def scatter_object_list(
    scatter_object_output_list: list, scatter_object_input_list: list | None = None,
    src: int | None = None, group: Any = None, group_src: int | None = None,
) -> None:  # fmt: skip
    """Rank ``src``'s ``scatter_object_input_list[i]`` into rank i's
    ``scatter_object_output_list[0]``."""
    g = _resolve(group)
    if g is None:
        return
    root = _root(g, src, group_src)
    items = scatter_object_input_list if g.rank() == root else None
    scatter_object_output_list[0] = g.comm.scatter(items, root=root)
