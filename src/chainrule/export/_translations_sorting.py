"""Sorting, selection of the k largest, and PReLU as ATen overload calls (see
``_translations``), with the ATen functions that run them and their schema argument names:
``torch.sort`` is ``sort.default`` (``sort.stable`` when ``stable`` is given true),
``argsort`` likewise, ``topk`` is ``topk.default``, ``prelu`` is ``prelu.default``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chainrule as torch

from ._translations_more import trim

Call = tuple[str, list, dict]
Tensor = torch.Tensor


def _ordering(op: str) -> Callable[..., Call]:
    """``sort``/``argsort``: ``.stable`` (dim and descending as keywords) when asked to
    be stable, else ``.default``."""

    def call(
        input: Any, dim: int = -1, descending: bool = False, stable: bool = False, **_: Any
    ) -> Call:
        if stable:
            kwargs: dict = {"stable": True}
            if dim != -1:
                kwargs["dim"] = dim
            if descending:
                kwargs["descending"] = True
            return f"{op}.stable", [input], kwargs
        return f"{op}.default", trim([input, dim, descending], [-1, False]), {}

    return call


def _topk(
    input: Any, k: int, dim: int = -1, largest: bool = True, sorted: bool = True, **_: Any
) -> Call:
    return "topk.default", trim([input, k, dim, largest, sorted], [-1, True, True]), {}


SORTING: dict[str, Callable[..., Call]] = {
    "sort": _ordering("sort"),
    "argsort": _ordering("argsort"),
    "topk": _topk,
    "prelu": lambda input, weight: ("prelu.default", [input, weight], {}),
}


def _argsort_stable(
    self: Tensor, *, stable: bool, dim: int = -1, descending: bool = False
) -> Tensor:
    return torch.argsort(self, dim, descending, stable=stable)


def _topk_run(
    self: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True
) -> tuple[Tensor, Tensor]:
    return tuple(torch.topk(self, k, dim, largest, sorted))


SORTING_TABLE: dict[str, Callable] = {
    "argsort.default": lambda self, dim=-1, descending=False: torch.argsort(self, dim, descending),
    "argsort.stable": _argsort_stable,
    "topk.default": _topk_run,
    "prelu.default": torch.nn.functional.prelu,
}

SORTING_ARGS = {
    "sort.default": "self dim descending",
    "sort.stable": "self",
    "argsort.default": "self dim descending",
    "argsort.stable": "self",
    "topk.default": "self k dim largest sorted",
    "prelu.default": "self weight",
}
