"""``torch.jit.annotations``: the typing names TorchScript code imports from here
(``from torch.jit.annotations import List``), and the checks on annotations.

``List``, ``Tuple``, ``Dict``, ``Optional``, ``Union`` and ``Any`` are ``typing``'s own, as in
PyTorch. ``BroadcastingList1/2/3[T]`` are TorchScript's "T or a list of T" annotations; in
eager Python, as in PyTorch, subscripting one gives ``None``. TorchScript's own type objects
(``TensorType``, ``ListType``, ...) belong to its compiler, which chainrule does not have.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Dict, List, Optional, Tuple, Union  # noqa: UP035 (PyTorch's names)

__all__ = [
    "Any",
    "BroadcastingList1",
    "BroadcastingList2",
    "BroadcastingList3",
    "Dict",
    "List",
    "Optional",
    "Tuple",
    "Union",
    "is_dict",
    "is_list",
    "is_optional",
    "is_tuple",
    "is_union",
]


class _BroadcastingList:
    """``BroadcastingListN[T]``: an annotation only TorchScript reads; ``None`` in Python."""

    def __getitem__(self, types_: Any) -> None:
        return None


BroadcastingList1 = _BroadcastingList()
BroadcastingList2 = _BroadcastingList()
BroadcastingList3 = _BroadcastingList()


def _bare(ann: Any, bare: Any, name: str) -> None:
    if ann is bare:
        raise RuntimeError(
            f"Attempted to use {name} without a contained type. Please add a contained type, "
            f"e.g. {name}[int]"
        )


def _container(ann: Any, origin: type) -> bool:
    return getattr(ann, "__module__", None) in ("builtins", "typing") and (
        typing.get_origin(ann) is origin
    )


def is_tuple(ann: Any) -> bool:
    """Whether ``ann`` is ``Tuple[...]`` or ``tuple[...]``."""
    _bare(ann, Tuple, "Tuple")  # noqa: UP006 (typing's bare Tuple)
    return _container(ann, tuple)


def is_list(ann: Any) -> bool:
    """Whether ``ann`` is ``List[T]`` or ``list[T]``."""
    _bare(ann, List, "List")  # noqa: UP006 (typing's bare List)
    return _container(ann, list)


def is_dict(ann: Any) -> bool:
    """Whether ``ann`` is ``Dict[K, V]`` or ``dict[K, V]``."""
    _bare(ann, Dict, "Dict")  # noqa: UP006 (typing's bare Dict)
    return _container(ann, dict)


def is_union(ann: Any) -> bool:
    """Whether ``ann`` is ``Union[...]`` or ``A | B`` (``Optional[T]`` included)."""
    _bare(ann, Union, "Union")
    if isinstance(ann, types.UnionType):
        return True
    return getattr(ann, "__module__", None) == "typing" and typing.get_origin(ann) is Union


def is_optional(ann: Any) -> bool:
    """Whether ``ann`` is ``Optional[T]``: a union of one type with ``None``."""
    _bare(ann, Optional, "Optional")
    if not is_union(ann):
        return False
    args = typing.get_args(ann)
    return len(args) == 2 and (None in args or types.NoneType in args)
