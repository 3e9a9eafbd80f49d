"""``torch.cuda`` on CuPy: the GPU queries, seeding, memory and timing events.

CuPy is optional (``pip install chainrule[cuda]``) and imported only when something asks
for CUDA (``is_available()``, a tensor moved to 'cuda'), never by ``import chainrule``.
Without CuPy, or without a GPU, this module answers as a CPU-only build of PyTorch:
``is_available()`` is False, seeding is accepted and ignored, and anything that needs a
device raises PyTorch's "Torch not compiled with CUDA enabled".
"""

from __future__ import annotations

from typing import Any

from .. import _backend

__all__ = [
    "Event",
    "Stream",
    "current_device",
    "device_count",
    "empty_cache",
    "get_device_name",
    "get_rng_state",
    "get_rng_state_all",
    "is_available",
    "is_bf16_supported",
    "is_initialized",
    "manual_seed",
    "manual_seed_all",
    "max_memory_allocated",
    "memory_allocated",
    "reset_peak_memory_stats",
    "seed",
    "seed_all",
    "set_device",
    "set_rng_state",
    "set_rng_state_all",
    "synchronize",
]


def _not_compiled() -> AssertionError:
    return AssertionError("Torch not compiled with CUDA enabled")


def _cupy() -> Any:
    """CuPy (or the CPU stand-in), or PyTorch's error when there is no CUDA device."""
    mod = _backend.module_of_device("cuda")
    if mod is None:
        raise _not_compiled()
    return mod


def _index(device: Any) -> int:
    """The device index of ``device`` (None, an int, 'cuda:1', a device)."""
    if device is None:
        return current_device()
    if isinstance(device, int):
        return device
    index = getattr(device, "index", None)
    if index is None and isinstance(device, str):
        index = int(device.partition(":")[2] or current_device())
    return current_device() if index is None else index


def is_available() -> bool:
    """Whether CuPy imports and sees a GPU."""
    return _backend.module_of_device("cuda") is not None


def device_count() -> int:
    mod = _backend.module_of_device("cuda")
    return 0 if mod is None else int(mod.cuda.runtime.getDeviceCount())


def is_initialized() -> bool:
    return _backend.loaded("cuda") is not None


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False  # NumPy and CuPy have no bfloat16


def current_device() -> int:
    return int(_cupy().cuda.runtime.getDevice())


def set_device(device: Any) -> None:
    mod = _cupy()
    index = _index(device)
    if index >= 0:
        mod.cuda.Device(index).use()


def get_device_name(device: Any = None) -> str:
    name = _cupy().cuda.runtime.getDeviceProperties(_index(device))["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def synchronize(device: Any = None) -> None:
    """Wait until the GPU has finished every kernel queued so far."""
    _cupy().cuda.runtime.deviceSynchronize()


def manual_seed(seed: int) -> None:
    """Seed CuPy's generator (accepted and ignored without CUDA, as PyTorch does)."""
    mod = _backend.module_of_device("cuda")
    if mod is not None:
        mod.random.seed(int(seed) % 2**32)


manual_seed_all = manual_seed


def seed() -> None:
    """Accepted and ignored without CUDA, as PyTorch ignores it."""


def seed_all() -> None:
    """Accepted and ignored without CUDA, as PyTorch ignores it."""


def get_rng_state(device: Any = "cuda") -> Any:
    """A GPU generator's state: PyTorch's error without CUDA; with CuPy, not in chainrule
    (CuPy's generator state cannot be read back)."""
    _cupy()
    from chainrule._missing import missing

    raise missing("torch.cuda", "get_rng_state")


def set_rng_state(new_state: Any, device: Any = "cuda") -> None:
    """Set a GPU generator's state: see :func:`get_rng_state`."""
    _cupy()
    from chainrule._missing import missing

    raise missing("torch.cuda", "set_rng_state")


def get_rng_state_all() -> list:
    """Every GPU's generator state: ``[]`` where there is no GPU, as in PyTorch."""
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state_all(new_states: Any) -> None:
    """Set each GPU's generator state from ``new_states`` (nothing to set for ``[]``)."""
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


_peak = [0]


def memory_allocated(device: Any = None) -> int:
    """Bytes held by tensors on the GPU (CuPy's memory pool, in use)."""
    mod = _backend.module_of_device("cuda")
    if mod is None:
        return 0
    used = int(mod.get_default_memory_pool().used_bytes())
    _peak[0] = max(_peak[0], used)
    return used


def max_memory_allocated(device: Any = None) -> int:
    """The most bytes in use seen so far (CuPy keeps no peak: the largest of those observed
    by this module's queries and now)."""
    return max(_peak[0], memory_allocated(device))


def reset_peak_memory_stats(device: Any = None) -> None:
    _peak[0] = 0


def empty_cache() -> None:
    """Give CuPy's cached free blocks back to the GPU (a no-op without CUDA)."""
    mod = _backend.loaded("cuda")
    if mod is not None:
        mod.get_default_memory_pool().free_all_blocks()


class Event:
    """``torch.cuda.Event``: a mark in the GPU's stream; ``elapsed_time`` between two
    recorded events, in milliseconds."""

    def __init__(
        self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False
    ) -> None:
        self.enable_timing = enable_timing
        self._event = _cupy().cuda.Event(block=blocking, disable_timing=not enable_timing)

    def record(self, stream: Any = None) -> None:
        self._event.record()

    def synchronize(self) -> None:
        self._event.synchronize()

    def wait(self, stream: Any = None) -> None:
        self._event.synchronize()

    def query(self) -> bool:
        return bool(self._event.done)

    def elapsed_time(self, end_event: Event) -> float:
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        return float(_cupy().cuda.get_elapsed_time(self._event, end_event._event))


class Stream:
    """``torch.cuda.Stream``: a CUDA stream. The class exists (libraries annotate with it);
    making one without a CUDA device raises PyTorch's CPU-build error, and chainrule has no
    CUDA streams either way."""

    def __init__(self, device: Any = None, priority: int = 0, **kwargs: Any) -> None:
        if _backend.module_of_device("cuda") is None:
            raise RuntimeError("torch.cuda.Stream requires CUDA support")
        from chainrule._missing import missing

        raise missing("torch.cuda", "Stream")


class CUDAGraph:
    """``torch.cuda.CUDAGraph``: a captured CUDA graph. The class exists (libraries
    annotate with it); making one raises PyTorch's CPU-build error without a CUDA device,
    and chainrule captures no CUDA graphs either way."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if _backend.module_of_device("cuda") is None:
            raise RuntimeError("Tried to instantiate dummy base class CUDAGraph")
        from chainrule._missing import missing

        raise missing("torch.cuda", "CUDAGraph")


class graph:  # noqa: N801 (PyTorch's name)
    """``torch.cuda.graph``: captures the block into a :class:`CUDAGraph`. The class
    exists (libraries annotate with it); there is no CUDAGraph to capture into, so making
    one raises."""

    def __init__(self, cuda_graph: CUDAGraph, *args: Any, **kwargs: Any) -> None:
        from chainrule._missing import missing

        raise missing("torch.cuda", "graph")


class StreamContext:
    """``torch.cuda.StreamContext``: makes ``stream`` current inside the block; with
    ``None`` it does nothing, as in PyTorch. chainrule has no CUDA streams, so ``None`` is
    the only stream there is to give it."""

    def __init__(self, stream: Stream | None) -> None:
        if stream is not None:
            from chainrule._missing import missing

            raise missing("torch.cuda", "StreamContext")
        self.stream = stream

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


def stream(stream: Stream | None) -> StreamContext:
    """``torch.cuda.stream``: a :class:`StreamContext` for ``stream``."""
    return StreamContext(stream)


def __getattr__(name: str):
    if name == "OutOfMemoryError":  # (torch.cuda.OutOfMemoryError is torch.OutOfMemoryError)
        from .._device_errors import OutOfMemoryError

        return OutOfMemoryError
    if name == "amp":  # torch.cuda.amp, deprecated (loaded on first use)
        import importlib

        return importlib.import_module(f"{__name__}.amp")
    from chainrule._missing import (
        missing,
    )  # (absolute: under `chainrule run` these modules are also torch.*)

    raise missing("torch.cuda", name)
