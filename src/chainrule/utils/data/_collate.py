"""``default_collate`` and ``default_convert``: samples to batched tensors, as PyTorch does."""

from __future__ import annotations

import collections.abc
import copy
import re
from collections.abc import Callable
from typing import Any

from ..._backend import xp
from ..._creation import as_tensor, tensor
from ..._dtypes import float64
from ..._tensor import Tensor

_STR_OR_OBJECT = re.compile(r"[SaUO]")
_ERR = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def collate_tensor_fn(batch: list, *, collate_fn_map: dict | None = None) -> Tensor:
    """Tensors of one shape stacked along a new first dimension (sparse ones refused, as
    PyTorch refuses them: a custom collate_fn can stack them)."""
    import chainrule

    if batch[0].layout is not chainrule.strided:
        raise RuntimeError(
            "Batches of sparse tensors are not currently supported by the default collate_fn; "
            "please provide a custom collate_fn to handle them appropriately."
        )
    return chainrule.stack(batch, 0)


def collate_numpy_array_fn(batch: list, *, collate_fn_map: dict | None = None) -> Any:
    if _STR_OR_OBJECT.search(batch[0].dtype.str) is not None:
        raise TypeError(_ERR.format(batch[0].dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch: list, *, collate_fn_map: dict | None = None) -> Tensor:
    return as_tensor(xp.asarray(batch))


def collate_float_fn(batch: list, *, collate_fn_map: dict | None = None) -> Tensor:
    return tensor(batch, dtype=float64)


def collate_int_fn(batch: list, *, collate_fn_map: dict | None = None) -> Tensor:
    return tensor(batch)


def collate_str_fn(batch: list, *, collate_fn_map: dict | None = None) -> list:
    return batch


default_collate_fn_map: dict[type | tuple[type, ...], Callable] = {
    Tensor: collate_tensor_fn,
    xp.ndarray: collate_numpy_array_fn,
    (xp.bool_, xp.number, xp.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def _for_type(elem: Any, collate_fn_map: dict | None) -> Callable | None:
    if collate_fn_map is None:
        return None
    if type(elem) in collate_fn_map:
        return collate_fn_map[type(elem)]
    for kind, fn in collate_fn_map.items():
        if isinstance(elem, kind):
            return fn
    return None


def collate(batch: list, *, collate_fn_map: dict | None = None) -> Any:
    """Collate ``batch`` by the type of its first element, recursing into containers."""
    elem = batch[0]
    fn = _for_type(elem, collate_fn_map)
    if fn is not None:
        return fn(batch, collate_fn_map=collate_fn_map)

    def rec(samples: Any) -> Any:
        return collate(samples, collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        fields = {key: rec([d[key] for d in batch]) for key in elem}
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update(fields)
                return clone
            return type(elem)(fields)
        except TypeError:
            return fields
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return type(elem)(*(rec(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [rec(s) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return columns
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, c in enumerate(columns):
                    clone[i] = c
                return clone
            return type(elem)(columns)
        except TypeError:
            return columns
    raise TypeError(_ERR.format(type(elem)))


def default_collate(batch: list) -> Any:
    """Stack a list of samples into a batch (tensors stacked, numbers to tensors, recursing)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)


def default_convert(data: Any) -> Any:
    """NumPy arrays and scalars to tensors, recursing into containers (no batching)."""
    if isinstance(data, Tensor):
        return data
    if isinstance(data, xp.ndarray) or (
        isinstance(data, (xp.bool_, xp.number)) and not isinstance(data, xp.memmap)
    ):
        if isinstance(data, xp.ndarray) and _STR_OR_OBJECT.search(data.dtype.str) is not None:
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        fields = {key: default_convert(data[key]) for key in data}
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update(fields)
                return clone
            return type(data)(fields)
        except TypeError:
            return fields
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        converted = [default_convert(d) for d in data]
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(converted):
                    clone[i] = d
                return clone
            return type(data)(converted)
        except TypeError:
            return converted
    return data
