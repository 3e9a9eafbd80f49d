"""The argument helpers the layers share, as ``torch.nn.modules.utils`` has them: an int or
a sequence as an n-tuple (``_single``, ``_pair``, ``_triple``, ``_quadruple``), and a
padding tuple reversed with each entry repeated (the order ``F.pad`` reads)."""

from __future__ import annotations

import collections.abc
from collections.abc import Callable
from itertools import repeat
from typing import Any

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n: int, name: str = "parse") -> Callable[[Any], tuple]:
    """A parser: an iterable stays as a tuple of its items, anything else is repeated n
    times."""

    def parse(x: Any) -> tuple:
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t: tuple, n: int) -> tuple:
    """``(a, b)`` with ``n = 2`` gives ``(b, b, a, a)``: a per-dim padding in ``F.pad``'s
    last-dim-first order."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size: Any, defaults: list[int]) -> Any:
    """``out_size`` with each None taken from the matching trailing entry of
    ``defaults`` (an input's shape): the adaptive pools' output sizes."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size) :])]


def consume_prefix_in_state_dict_if_present(state_dict: dict, prefix: str) -> None:
    """Strip ``prefix`` from the keys of ``state_dict`` that start with it, in place, and
    from the module names of its ``_metadata`` (a model saved wrapped in DataParallel or
    DistributedDataParallel has every key under ``module.``)."""
    for key in list(state_dict.keys()):
        if key.startswith(prefix):
            state_dict[key[len(prefix) :]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is None:
        return
    for key in list(metadata.keys()):
        if len(key) == 0:  # (the root module's entry)
            continue
        if key == prefix.replace(".", "") or key.startswith(prefix):
            metadata[key[len(prefix) :]] = metadata.pop(key)
