"""``torch.ao.quantization.qconfig``: ``QConfig`` (how to observe activations and weights)
and PyTorch's default ones."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import chainrule as torch

from .fake_quantize import (
    FakeQuantize,
    FusedMovingAvgObsFakeQuantize,
    default_fake_quant,
    default_fused_per_channel_wt_fake_quant,
    default_fused_wt_fake_quant,
    default_per_channel_weight_fake_quant,
    default_weight_fake_quant,
)
from .observer import (
    HistogramObserver,
    MovingAverageMinMaxObserver,
    default_dynamic_quant_observer,
    default_observer,
    default_per_channel_weight_observer,
    default_placeholder_observer,
    default_weight_observer,
)

__all__ = [
    "QConfig",
    "QConfigDynamic",
    "default_dynamic_qconfig",
    "default_qat_qconfig",
    "default_qconfig",
    "float16_dynamic_qconfig",
    "get_default_qat_qconfig",
    "get_default_qconfig",
    "per_channel_dynamic_qconfig",
]


class QConfig(namedtuple("QConfig", ["activation", "weight"])):
    """How to observe a module's activations and weights: two observer (or fake
    quantizer) constructors, such as ``MinMaxObserver.with_args(dtype=torch.qint8)``."""

    __slots__ = ()

    def __new__(cls, activation: Any, weight: Any) -> QConfig:
        if isinstance(activation, torch.nn.Module) or isinstance(weight, torch.nn.Module):
            raise ValueError(
                "QConfig received observer instance, please pass observer class instead. "
                "Use MyObserver.with_args(x=1) to override arguments to constructor if needed"
            )
        return super().__new__(cls, activation, weight)


QConfigDynamic = QConfig

default_qconfig = QConfig(activation=default_observer, weight=default_weight_observer)
default_dynamic_qconfig = QConfig(
    activation=default_dynamic_quant_observer, weight=default_weight_observer
)
float16_dynamic_qconfig = QConfig(
    activation=default_placeholder_observer.with_args(dtype=torch.float16, is_dynamic=True),
    weight=default_placeholder_observer.with_args(dtype=torch.float16),
)
per_channel_dynamic_qconfig = QConfig(
    activation=default_dynamic_quant_observer, weight=default_per_channel_weight_observer
)
default_qat_qconfig = QConfig(activation=default_fake_quant, weight=default_weight_fake_quant)

_BACKENDS = ("x86", "fbgemm", "qnnpack", "onednn")


def _check_backend(backend: str) -> None:
    if backend not in _BACKENDS:
        raise AssertionError(
            f"backend: {backend} not supported. backend must be one of {list(_BACKENDS)}"
        )


def get_default_qconfig(backend: str = "x86", version: int = 0) -> QConfig:
    """PyTorch's post-training static quantization qconfig for ``backend`` (its histogram
    activation observer is not implemented in chainrule: making it raises)."""
    _check_backend(backend)
    if version != 0:
        raise AssertionError(f"Version number: {version} in get_default_qconfig is not supported")
    if backend in ("x86", "fbgemm"):
        return QConfig(
            activation=HistogramObserver.with_args(reduce_range=True),
            weight=default_per_channel_weight_observer,
        )
    if backend == "qnnpack":
        return QConfig(
            activation=HistogramObserver.with_args(reduce_range=False),
            weight=default_weight_observer,
        )
    return QConfig(
        activation=HistogramObserver.with_args(reduce_range=False),
        weight=default_per_channel_weight_observer,
    )


def get_default_qat_qconfig(backend: str = "x86", version: int = 1) -> QConfig:
    """PyTorch's quantization-aware training qconfig for ``backend``: version 0 uses
    ``FakeQuantize`` modules, version 1 (the default) the fused ones."""
    _check_backend(backend)
    if version not in (0, 1):
        raise AssertionError(
            f"Version number: {version} in get_default_qat_qconfig is not supported"
        )
    fq = FakeQuantize if version == 0 else FusedMovingAvgObsFakeQuantize
    kwargs: dict = {"observer": MovingAverageMinMaxObserver, "quant_min": 0, "quant_max": 255}
    if backend != "onednn":
        kwargs["reduce_range"] = backend in ("x86", "fbgemm")
    activation = fq.with_args(**kwargs)
    if backend == "qnnpack":
        weight = default_weight_fake_quant if version == 0 else default_fused_wt_fake_quant
    elif version == 0:
        weight = default_per_channel_weight_fake_quant
    else:
        weight = default_fused_per_channel_wt_fake_quant
    return QConfig(activation=activation, weight=weight)
