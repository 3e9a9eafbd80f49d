"""``torch.utils.data._utils.pin_memory``: page-locking a batch's tensors, and the thread
loop that does it between the workers' queue and the main process. Pinning needs an
accelerator: on chainrule, as on PyTorch's CPU build, ``Tensor.pin_memory`` raises, and
the DataLoader turns ``pin_memory=True`` off with a warning before any of this runs."""

from __future__ import annotations

import collections.abc
import copy
import queue
from typing import Any

from ...._utils import ExceptionWrapper
from . import MP_STATUS_CHECK_INTERVAL

__all__ = ["_pin_memory_loop", "pin_memory"]


def pin_memory(data: Any, device: Any = None) -> Any:
    """``data`` with every tensor (and every object with a ``pin_memory`` method) in its
    nested mappings, tuples and sequences pinned."""
    from ...._tensor import Tensor

    if isinstance(data, Tensor) or hasattr(data, "pin_memory"):
        return data.pin_memory()
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({k: pin_memory(v, device) for k, v in data.items()})
                return clone
            return type(data)({k: pin_memory(v, device) for k, v in data.items()})  # type: ignore[call-arg]
        except TypeError:
            return {k: pin_memory(v, device) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(pin_memory(v, device) for v in data))
    if isinstance(data, tuple):
        return type(data)(pin_memory(v, device) for v in data)
    if isinstance(data, collections.abc.Sequence):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, item in enumerate(data):
                    clone[i] = pin_memory(item, device)
                return clone
            return type(data)([pin_memory(v, device) for v in data])  # type: ignore[call-arg]
        except TypeError:
            return [pin_memory(v, device) for v in data]
    return data


def _pin_memory_loop(
    in_queue: Any, out_queue: Any, device_id: Any, done_event: Any, device: Any
) -> None:
    """Move ``(idx, data)`` pairs from ``in_queue`` to ``out_queue`` with ``data`` pinned
    (a failure travels on as an ExceptionWrapper) until ``done_event`` is set."""
    import chainrule

    chainrule.set_num_threads(1)
    while not done_event.is_set():
        try:
            r = in_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
        except queue.Empty:
            continue
        idx, data = r
        if not done_event.is_set() and not isinstance(data, ExceptionWrapper):
            try:
                data = pin_memory(data, device)
            except Exception:
                data = ExceptionWrapper(where=f"in pin memory thread for device {device_id}")
            r = (idx, data)
        while not done_event.is_set():
            try:
                out_queue.put(r, timeout=MP_STATUS_CHECK_INTERVAL)
                break
            except queue.Full:
                continue
