"""``chainrule.random`` (PyTorch's ``torch.random``): the global generator's seed and state,
and ``fork_rng``, which lets a block draw random numbers without moving the stream the rest
of the program sees.

chainrule draws every device's numbers from the one host stream (the same seed gives the
same numbers on every device), so forking the CPU state forks every device's."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import Any

from ._random import get_rng_state, initial_seed, manual_seed, seed, set_rng_state

__all__ = [
    "fork_rng",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "seed",
    "set_rng_state",
    "thread_safe_generator",
]


@contextlib.contextmanager
def fork_rng(
    devices: Iterable[Any] | None = None,
    enabled: bool = True,
    _caller: str = "fork_rng",
    _devices_kw: str = "devices",
    device_type: str | None = None,
) -> Iterator[None]:
    """Within the block, random draws go on as usual; on leaving it (also by an exception)
    the global stream is back where it was on entering, as if the block drew nothing.
    ``devices`` and ``device_type`` are accepted for PyTorch's signature: one stream
    serves them all here."""
    if device_type is not None:
        from ._tensor import device

        device(device_type)  # (PyTorch's error for a string that names no device)
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


def thread_safe_generator() -> None:
    """The generator of the DataLoader thread worker calling it; chainrule's workers are
    processes (each with its own stream), so this is always None: the global generator."""
    return None
