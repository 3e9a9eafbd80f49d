"""``torch.cpu.amp`` and ``torch.cuda.amp``: the old per-device spellings of ``torch.amp``,
each a FutureWarning and then the ``torch.amp`` object for that device."""

from __future__ import annotations

import warnings
from typing import Any

from .. import _dtypes
from .autocast_mode import autocast, custom_bwd, custom_fwd
from .grad_scaler import GradScaler


def _deprecated(old: str, new: str) -> None:
    """PyTorch's FutureWarning: ``old(args...)`` is deprecated, use ``new`` instead."""
    warnings.warn(
        f"`{old}(args...)` is deprecated. Please use `{new}` instead.",
        FutureWarning,
        stacklevel=3,
    )


class CpuAutocast(autocast):
    """``torch.cpu.amp.autocast(enabled, dtype, cache_enabled)``: autocast("cpu", ...)."""

    def __init__(
        self, enabled: bool = True, dtype: Any = _dtypes.bfloat16, cache_enabled: bool = True
    ):
        _deprecated("torch.cpu.amp.autocast", "torch.amp.autocast('cpu', args...)")
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class CudaAutocast(autocast):
    """``torch.cuda.amp.autocast(enabled, dtype, cache_enabled)``: autocast("cuda", ...)."""

    def __init__(
        self, enabled: bool = True, dtype: Any = _dtypes.float16, cache_enabled: bool = True
    ):
        _deprecated("torch.cuda.amp.autocast", "torch.amp.autocast('cuda', args...)")
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class CpuGradScaler(GradScaler):
    """``torch.cpu.amp.GradScaler(...)``: GradScaler("cpu", ...)."""

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        _deprecated("torch.cpu.amp.GradScaler", "torch.amp.GradScaler('cpu', args...)")
        super().__init__("cpu", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


class CudaGradScaler(GradScaler):
    """``torch.cuda.amp.GradScaler(...)``: GradScaler("cuda", ...)."""

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        _deprecated("torch.cuda.amp.GradScaler", "torch.amp.GradScaler('cuda', args...)")
        super().__init__(
            "cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled
        )


for _cls, _name in (
    (CpuAutocast, "autocast"),
    (CudaAutocast, "autocast"),
    (CpuGradScaler, "GradScaler"),
    (CudaGradScaler, "GradScaler"),
):
    _cls.__name__ = _cls.__qualname__ = _name


def _cuda_custom_fwd(fwd: Any = None, *, cast_inputs: Any = None) -> Any:
    """``torch.cuda.amp.custom_fwd``: custom_fwd(device_type="cuda")."""
    _deprecated("torch.cuda.amp.custom_fwd", "torch.amp.custom_fwd(args..., device_type='cuda')")
    return custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def _cuda_custom_bwd(bwd: Any = None) -> Any:
    """``torch.cuda.amp.custom_bwd``: custom_bwd(device_type="cuda")."""
    _deprecated("torch.cuda.amp.custom_bwd", "torch.amp.custom_bwd(args..., device_type='cuda')")
    return custom_bwd(bwd, device_type="cuda")
