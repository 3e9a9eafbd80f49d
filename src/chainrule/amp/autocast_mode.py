"""``torch.autocast``: a thread-local region in which listed ops run in a chosen dtype.

Inside ``autocast("cpu", dtype=float16)`` an op on PyTorch's lower-precision list computes
``op(cast(x, float16), ...)``, one on its float32 list ``op(cast(x, float32), ...)``; the
casts are recorded, so d/dx op(cast(x)) = cast_back(∂op · g): gradients return in the
inputs' own dtypes. Which op gets which cast is ``policy.py``'s table (PyTorch's CPU lists,
the same for bfloat16 and float16); this module holds the switches (per thread and device
type) and the context manager that sets them.

bfloat16, PyTorch's default CPU autocast dtype, needs the optional package ml_dtypes: an
enabled autocast in bfloat16 loads it on entry (``_dtypes._load_reduced``'s error without
it), so no region starts whose first cast would fail.
"""

from __future__ import annotations

import functools
import threading
import warnings
from collections.abc import Callable
from typing import Any

from .. import _dtypes, _modes

# the autocast dtype a device type starts with (PyTorch's)
_DEFAULT_DTYPE = {"cpu": _dtypes.bfloat16, "cuda": _dtypes.float16}
_DEVICE_TYPES = ("cpu", "cuda")
_SUPPORTED = "torch.bfloat16, torch.float16"


class _Switches(threading.local):
    """This thread's autocast state: enabled and dtype per device type, nesting depth."""

    def __init__(self) -> None:
        self.enabled = {"cpu": False, "cuda": False}
        self.dtype = dict(_DEFAULT_DTYPE)
        self.nesting = 0
        self.cache_enabled = True


switches = _Switches()
_on_lock = threading.Lock()
_threads_on: set = set()  # the threads with some autocast enabled (process-wide flag)


def _check_device_type(device_type: Any) -> None:
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")


def _known(device_type: str) -> str:
    """``device_type`` itself, once it names a device type (PyTorch's error if not)."""
    from .._tensor import device

    device(device_type)
    return device_type


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast has a policy for ``device_type`` (PyTorch's: cpu and cuda here)."""
    return _known(device_type) in _DEVICE_TYPES


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether autocast is on for ``device_type`` in this thread (no argument: cuda's,
    as PyTorch's deprecated form)."""
    return switches.enabled.get("cuda" if device_type is None else _known(device_type), False)


def get_autocast_dtype(device_type: str) -> Any:
    """The dtype autocast casts to on ``device_type`` in this thread."""
    return switches.dtype.get(_known(device_type), _dtypes.float16)


def set_autocast_dtype(device_type: str, dtype: Any) -> None:
    """Set the dtype autocast casts to on ``device_type`` in this thread."""
    switches.dtype[_known(device_type)] = dtype


def set_autocast_enabled(device_type: str, enabled: bool) -> None:
    """Turn autocast on or off for ``device_type`` in this thread; ops consult the policy
    (``_modes.usual`` False) while any thread has it on."""
    switches.enabled[device_type] = bool(enabled)
    me = threading.get_ident()
    with _on_lock:
        if any(switches.enabled.values()):
            _threads_on.add(me)
        else:
            _threads_on.discard(me)
        active = bool(_threads_on)
    from . import policy

    policy.activate(active)
    _modes.mark("autocast", active)


class autocast:
    """Context manager and decorator: inside, listed ops run in ``dtype`` on ``device_type``.

    As PyTorch's, with these differences: an enabled autocast in bfloat16 (the CPU's
    default dtype) without ml_dtypes raises NotImplementedInChainrule; ``cache_enabled``
    is accepted and ignored (each op casts its weights anew: the values and gradients are
    the same, the graph holds one cast node per use instead of one per weight); autocast on "cuda" only tracks the state
    (chainrule has no CUDA here, and PyTorch disables it with its warning then).
    """

    def __init__(
        self,
        device_type: str,
        dtype: Any = None,
        enabled: bool = True,
        cache_enabled: bool | None = None,
    ) -> None:
        _check_device_type(device_type)
        self.device = device_type
        self.fast_dtype = switches.dtype.get(_known(device_type)) if dtype is None else dtype
        if not is_autocast_available(device_type):
            raise RuntimeError(
                f"User specified an unsupported autocast device_type '{device_type}'"
            )
        self._cache_enabled = switches.cache_enabled if cache_enabled is None else cache_enabled
        if enabled:
            if device_type == "cuda":
                from .. import cuda

                if not cuda.is_available():
                    warnings.warn(
                        "CUDA is not available or torch_xla is imported. Disabling autocast.",
                        stacklevel=2,
                    )
                    enabled = False
            elif not (self.fast_dtype is _dtypes.bfloat16 or self.fast_dtype is _dtypes.float16):
                name = device_type.upper()
                warnings.warn(
                    f"In {name} autocast, but the target dtype is not supported. Disabling "
                    f"autocast.\n{name} Autocast only supports dtypes of {_SUPPORTED} currently.",
                    stacklevel=2,
                )
                enabled = False
            if enabled and self.fast_dtype is _dtypes.bfloat16:
                _dtypes.bfloat16.np  # noqa: B018 - ml_dtypes loaded now, or its clear error
        self._enabled = enabled

    def __enter__(self) -> autocast:
        self.prev = switches.enabled[self.device]
        self.prev_fastdtype = switches.dtype[self.device]
        self.prev_cache_enabled = switches.cache_enabled
        switches.dtype[self.device] = self.fast_dtype
        switches.nesting += 1
        switches.cache_enabled = self._cache_enabled
        set_autocast_enabled(self.device, self._enabled)
        return self

    def __exit__(self, *exc: Any) -> bool:
        switches.nesting -= 1
        switches.dtype[self.device] = self.prev_fastdtype
        switches.cache_enabled = self.prev_cache_enabled
        set_autocast_enabled(self.device, self.prev)
        return False

    def __call__(self, func: Callable) -> Callable:
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                "Did you mean to use autocast as a context manager? For example:\n"
                "    with torch.autocast(device_type=...):\n"
                "        output = model(input)"
            )

        @functools.wraps(func)
        def in_autocast(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return in_autocast


def _cast(value: Any, dtype: Any) -> Any:
    """``value`` with its floating tensors (nested in lists, tuples, dicts) cast to dtype."""
    from .._tensor import Tensor

    if isinstance(value, Tensor):
        return value.to(dtype) if value.is_floating_point() else value
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, dtype) for v in value)
    if isinstance(value, dict):
        return {k: _cast(v, dtype) for k, v in value.items()}
    return value


def custom_fwd(fwd: Callable | None = None, *, device_type: str, cast_inputs: Any = None):
    """Decorator for a custom Function's ``forward``: records the autocast state for
    ``custom_bwd``; with ``cast_inputs`` and autocast on, the floating inputs are cast to it
    and the forward runs with autocast off."""
    _check_device_type(device_type)
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def forward(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0]
        ctx._dtype = switches.dtype.get(device_type)
        on = is_autocast_enabled(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = on
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False
        if not on:
            return fwd(*args, **kwargs)
        with autocast(device_type, enabled=False):
            return fwd(*_cast(args, cast_inputs), **_cast(kwargs, cast_inputs))

    return forward


def custom_bwd(bwd: Callable | None = None, *, device_type: str):
    """Decorator for a custom Function's ``backward``: it runs with the autocast state its
    forward ran with (``custom_fwd``)."""
    _check_device_type(device_type)
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def backward(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0]
        with autocast(device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)

    return backward
