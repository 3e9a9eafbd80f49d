"""``torch.utils.data.graph_settings``: settings applied across a DataPipe graph
(sharding, shuffling, random seeds). The graph is every DataPipe reachable from the given
one through its attributes (and the lists, tuples and dicts among them)."""

from __future__ import annotations

import inspect
from typing import Any

from .datapipes.datapipe import IterDataPipe, MapDataPipe

__all__ = ["apply_random_seed", "apply_sharding", "apply_shuffle_settings", "get_all_graph_pipes"]

_PIPES = (IterDataPipe, MapDataPipe)


def _children(dp: Any) -> list:
    found: list = []

    def visit(value: Any) -> None:
        if isinstance(value, _PIPES):
            found.append(value)
        elif isinstance(value, (list, tuple, set, frozenset)):
            for v in value:
                visit(v)
        elif isinstance(value, dict):
            for v in value.values():
                visit(v)

    for value in getattr(dp, "__dict__", {}).values():
        visit(value)
    return found


def traverse_dps(datapipe: Any) -> dict:
    """The graph below ``datapipe``: ``{id(dp): (dp, subgraph)}``."""

    def walk(dp: Any, seen: frozenset) -> dict:
        sub = {}
        for child in _children(dp):
            if id(child) in seen:
                continue
            sub[id(child)] = (child, walk(child, seen | {id(child)}))
        return sub

    return {id(datapipe): (datapipe, walk(datapipe, frozenset({id(datapipe)})))}


def get_all_graph_pipes(graph: dict) -> list:
    """Every DataPipe of ``graph`` once, depth first from the top."""
    out: list = []
    seen: set = set()

    def walk(g: dict) -> None:
        for key, (dp, sub) in g.items():
            if key not in seen:
                seen.add(key)
                out.append(dp)
            walk(sub)

    walk(graph)
    return out


def apply_sharding(
    datapipe: Any, num_of_instances: int, instance_id: int, sharding_group: Any = None
) -> Any:
    """Call ``apply_sharding`` on the sharding DataPipes of the graph (at most one per
    branch: RuntimeError otherwise)."""

    def helper(graph: dict, prev_applied: Any) -> None:
        for dp, sub in graph.values():
            applied = prev_applied
            if callable(getattr(dp, "apply_sharding", None)):
                if prev_applied is not None:
                    raise RuntimeError(
                        "Sharding twice on a single pipeline is likely unintended and will cause "
                        "data loss. Sharding already applied to "
                        f"{prev_applied} while trying to apply to {dp}"
                    )
                params = inspect.signature(dp.apply_sharding).parameters
                if len(params) < 3 or sharding_group is None:
                    dp.apply_sharding(num_of_instances, instance_id)
                else:
                    dp.apply_sharding(num_of_instances, instance_id, sharding_group=sharding_group)
                applied = dp
            helper(sub, applied)

    helper(traverse_dps(datapipe), None)
    return datapipe


def _is_shuffle_datapipe(dp: Any) -> bool:
    return callable(getattr(dp, "set_shuffle", None)) and callable(getattr(dp, "set_seed", None))


def apply_shuffle_settings(datapipe: Any, shuffle: bool | None = None) -> Any:
    """Turn the graph's shufflers on or off (``None``: leave them)."""
    if shuffle is None:
        return datapipe
    shufflers = [
        dp for dp in get_all_graph_pipes(traverse_dps(datapipe)) if _is_shuffle_datapipe(dp)
    ]
    if not shufflers and shuffle:
        raise NotImplementedError(
            "shuffle=True on a DataPipe graph without a shuffler: PyTorch appends its "
            "built-in Shuffler, and chainrule has no built-in DataPipes"
        )
    for dp in shufflers:
        dp.set_shuffle(shuffle)
    return datapipe


def apply_random_seed(datapipe: Any, rng: Any) -> Any:
    """Give each random DataPipe of the graph (one with ``set_seed``) a seed drawn from the
    generator ``rng``, depth first from the top."""
    import chainrule

    for dp in get_all_graph_pipes(traverse_dps(datapipe)):
        if callable(getattr(type(dp), "set_seed", None)):
            seed = int(chainrule.empty((), dtype=chainrule.int64).random_(generator=rng).item())
            dp.set_seed(seed)
    return datapipe
