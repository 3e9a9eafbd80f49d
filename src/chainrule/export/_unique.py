"""Calls giving several results, some of a data-dependent size: ``torch.unique`` (ATen's
``_unique2``, or ``unique_dim`` with a ``dim``), ``torch.unique_consecutive`` and
``torch.nonzero(x, as_tuple=True)`` (``nonzero_numpy``) and ``torch.where(condition)``
(``where.default``). PyTorch's export writes the call
with a ``getitem`` node per result, every result read or not, and gives the unique count an
unbacked symbol as ``_data_dependent`` does for ``nonzero``.

Each overload here returns all its results as PyTorch's kernel does: ``_unique2`` and
``unique_consecutive`` without a ``dim`` give an empty int64 tensor for an inverse or counts
not asked for, ``unique_dim`` and ``unique_consecutive`` with a ``dim`` give them all."""

from __future__ import annotations

from typing import Any

import chainrule as torch

from ._translations_more import trim

Call = tuple[str, list, dict]
Tensor = torch.Tensor

_NONZERO = ("nonzero_numpy.default", "where.default")  # (one index tensor per dim)
SEVERAL = frozenset(("_unique2.default", "unique_dim.default", "unique_consecutive.default"))
SEVERAL |= frozenset(_NONZERO)
LISTS = frozenset(_NONZERO)  # (``Tensor[]`` returns)


def _unique(
    input: Any,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Call:
    flags = [sorted, return_inverse, return_counts]
    if dim is None:
        return "_unique2.default", trim([input, *flags], [True, False, False]), {}
    return "unique_dim.default", trim([input, dim, *flags], [True, False, False]), {}


def _unique_consecutive(
    input: Any, return_inverse: bool = False, return_counts: bool = False, dim: int | None = None
) -> Call:
    args = trim([input, return_inverse, return_counts, dim], [False, False, None])
    return "unique_consecutive.default", args, {}


UNIQUE_CALLS = {"unique": _unique, "unique_consecutive": _unique_consecutive}


def condition_only(where: Any) -> Any:
    """``torch.where(condition)`` as ``where.default`` (its indices, as ``nonzero``'s
    ``as_tuple=True``); ``where`` for the other forms."""

    def call(condition: Any, *args: Any, **kwargs: Any) -> Any:
        if not args and not kwargs:
            return "where.default", [condition], {}
        return where(condition, *args, **kwargs)

    return call


def _empty() -> Tensor:
    return torch.empty(0, dtype=torch.int64)


def _unique2_run(
    self: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False
) -> tuple[Tensor, Tensor, Tensor]:
    values, inverse, counts = torch.unique(self, sorted, True, True)
    return (values, inverse if return_inverse else _empty(), counts if return_counts else _empty())


def _unique_dim_run(
    self: Tensor,
    dim: int,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
) -> tuple[Tensor, Tensor, Tensor]:
    return tuple(torch.unique(self, sorted, True, True, dim))


def _unique_consecutive_run(
    self: Tensor, return_inverse: bool = False, return_counts: bool = False, dim: Any = None
) -> tuple[Tensor, Tensor, Tensor]:
    values, inverse, counts = torch.unique_consecutive(self, True, True, dim)
    if dim is None:
        inverse = inverse if return_inverse else _empty()
        counts = counts if return_counts else _empty()
    return values, inverse, counts


UNIQUE_TABLE = {
    "_unique2.default": _unique2_run,
    "unique_dim.default": _unique_dim_run,
    "unique_consecutive.default": _unique_consecutive_run,
    "nonzero_numpy.default": lambda self: list(torch.nonzero(self, as_tuple=True)),
    "where.default": lambda condition: list(torch.nonzero(condition, as_tuple=True)),
}

UNIQUE_ARGS = {
    "_unique2.default": "self sorted return_inverse return_counts",
    "unique_dim.default": "self dim sorted return_inverse return_counts",
    "unique_consecutive.default": "self return_inverse return_counts dim",
    "nonzero_numpy.default": "self",
    "where.default": "condition",
}


def _flags(overload: str, targs: list) -> tuple[int | None, bool, bool]:
    """The call's ``dim`` (None: of the flattened input), whether it was asked for the
    inverse and for the counts."""
    schema = UNIQUE_ARGS[overload].split()
    given = dict(zip(schema, targs))
    dim = given.get("dim")
    if dim is not None:
        dim %= max(targs[0].dim(), 1)
    return dim, bool(given.get("return_inverse")), bool(given.get("return_counts"))


def memo(overload: str, targs: list) -> str | None:
    """What PyTorch's fake tensors remember the count under for the input (a second call
    on the same input shares its symbol): None for ``unique_dim``."""
    if overload in _NONZERO:
        return "nonzero"
    if _flags(overload, targs)[0] is not None:
        return None
    return "unique_consecutive" if overload == "unique_consecutive.default" else "unique"


def sized(overload: str, targs: list) -> list[tuple[int, int]]:
    """The results of a data-dependent size, as (result, dim): the values' dim first."""
    if overload in _NONZERO:
        return [(i, 0) for i in range(max(targs[0].dim(), 1))]
    dim, _, counts = _flags(overload, targs)
    if dim is None:
        return [(0, 0)] + ([(2, 0)] if counts else [])
    return [(0, dim), (2, 0)]


def upper(overload: str, targs: list) -> int:
    """The largest count: the input's size along the dim, or its number of elements."""
    dim = None if overload in _NONZERO else _flags(overload, targs)[0]
    return targs[0].numel() if dim is None else int(targs[0].shape[dim])


def results(overload: str, targs: list) -> list[Tensor]:
    """Every result of the call, as PyTorch's kernel gives them."""
    return list(UNIQUE_TABLE[overload](*targs))


def picked(overload: str, targs: list, values: list[Tensor]) -> Any:
    """The results the Python call returns (``torch.unique(x)``: the values alone)."""
    if overload in _NONZERO:
        return tuple(values)
    _, inverse, counts = _flags(overload, targs)
    chosen = [values[0]] + ([values[1]] if inverse else []) + ([values[2]] if counts else [])
    return chosen[0] if len(chosen) == 1 else tuple(chosen)
