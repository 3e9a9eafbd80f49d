"""``torch.ao.nn.intrinsic``'s fused modules: sequences ``fuse_modules`` makes (a layer and
the ReLU after it) that quantization treats as one layer."""

from __future__ import annotations

from typing import Any

from chainrule import nn

__all__ = [
    "BNReLU2d",
    "BNReLU3d",
    "ConvReLU1d",
    "ConvReLU2d",
    "ConvReLU3d",
    "LinearReLU",
]


class _FusedModule(nn.Sequential):
    """A fused sequence of modules (marks the fused ones for ``prepare`` and ``convert``)."""


def _fused(name: str, first: str, doc: str) -> type:
    def __init__(self: Any, layer: Any, relu: Any) -> None:  # noqa: N807
        kind = getattr(nn, first)
        if type(layer) is not kind or type(relu) is not nn.ReLU:
            raise AssertionError(f"Incorrect types for input modules{type(layer)}{type(relu)}")
        _FusedModule.__init__(self, layer, relu)

    return type(
        name, (_FusedModule,), {"__init__": __init__, "__doc__": doc, "__module__": __name__}
    )


LinearReLU = _fused("LinearReLU", "Linear", "Linear followed by ReLU, fused.")
ConvReLU1d = _fused("ConvReLU1d", "Conv1d", "Conv1d followed by ReLU, fused.")
ConvReLU2d = _fused("ConvReLU2d", "Conv2d", "Conv2d followed by ReLU, fused.")
ConvReLU3d = _fused("ConvReLU3d", "Conv3d", "Conv3d followed by ReLU, fused.")
BNReLU2d = _fused("BNReLU2d", "BatchNorm2d", "BatchNorm2d followed by ReLU, fused.")
BNReLU3d = _fused("BNReLU3d", "BatchNorm3d", "BatchNorm3d followed by ReLU, fused.")
