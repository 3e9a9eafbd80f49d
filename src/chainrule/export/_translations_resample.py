"""``F.interpolate`` as the ATen resampling calls PyTorch's export writes for it
(``upsample_nearest2d.vec``, ``upsample_bilinear2d.vec``, ...: the input, the output size
or the scale factors, and ``align_corners`` for the linear modes), and those overloads as
chainrule calls, for graphs that chainrule traces or loads."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["RESAMPLE_ARGS", "RESAMPLE_TABLE", "interpolate"]

_LINEAR = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}


def _overload(mode: str, rank: int) -> str:
    if mode == "nearest":
        return f"upsample_nearest{rank}d.vec"
    if mode == "nearest-exact":
        return f"_upsample_nearest_exact{rank}d.vec"
    return f"upsample_{mode}{rank}d.vec"


def interpolate(
    input: Any,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> tuple[str, list, dict]:
    """The ATen call of ``F.interpolate(input, ...)`` (the call itself has run: its
    arguments are valid)."""
    if antialias:
        raise NotImplementedError("chainrule.export cannot export interpolate with antialias")
    if mode not in ("nearest", "nearest-exact", *_LINEAR):
        raise NotImplementedError(f"chainrule.export cannot export interpolate mode {mode}")
    rank = input.dim() - 2
    sizes = None if size is None else ([int(size)] * rank if isinstance(size, int) else list(size))
    scales = None
    if scale_factor is not None:
        scales = [
            float(s)
            for s in (scale_factor if isinstance(scale_factor, Sequence) else [scale_factor] * rank)
        ]
        if recompute_scale_factor:  # (the output size from the scales, the scales dropped)
            sizes = [math.floor(float(n) * s) for n, s in zip(input.shape[2:], scales)]
            scales = None
    args: list = [input, sizes]
    if mode in _LINEAR:
        args.append(bool(align_corners))
    return _overload(mode, rank), [*args, scales], {}


def _nearest(mode: str) -> Callable:
    def run(input: Any, output_size: Any = None, scale_factors: Any = None) -> Any:
        from .. import nn

        scales = None if scale_factors is None else list(scale_factors)
        size = None if output_size is None else list(output_size)
        return nn.functional.interpolate(input, size, scales, mode)

    return run


def _linear(mode: str) -> Callable:
    def run(input: Any, output_size: Any, align_corners: bool, scale_factors: Any = None) -> Any:
        from .. import nn

        scales = None if scale_factors is None else list(scale_factors)
        size = None if output_size is None else list(output_size)
        return nn.functional.interpolate(input, size, scales, mode, align_corners)

    return run


RESAMPLE_TABLE: dict[str, Callable] = {}
RESAMPLE_ARGS: dict[str, str] = {}
for _rank in (1, 2, 3):
    for _mode in ("nearest", "nearest-exact"):
        RESAMPLE_TABLE[_overload(_mode, _rank)] = _nearest(_mode)
        RESAMPLE_ARGS[_overload(_mode, _rank)] = "input output_size scale_factors"
for _mode, _rank in _LINEAR.items():
    RESAMPLE_TABLE[_overload(_mode, _rank)] = _linear(_mode)
    RESAMPLE_ARGS[_overload(_mode, _rank)] = "input output_size align_corners scale_factors"
