"""Stochastic depth (Huang et al., 2016): drop whole residual branches at random while
training, scaling the kept ones by ``1 / (1 - p)``."""

from __future__ import annotations

from ... import nn
from ..._tensor import Tensor

__all__ = ["StochasticDepth", "stochastic_depth"]


def stochastic_depth(input: Tensor, p: float, mode: str, training: bool = True) -> Tensor:
    """``input * mask / (1 - p)`` with ``mask ~ Bernoulli(1 - p)`` drawn once per sample
    (``mode='row'``) or once for the batch (``mode='batch'``); ``input`` unchanged when
    not training or ``p == 0``."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"drop probability has to be between 0 and 1, but got {p}")
    if mode not in ["batch", "row"]:
        raise ValueError(f"mode has to be either 'batch' or 'row', but got {mode}")
    if not training or p == 0.0:
        return input
    survival_rate = 1.0 - p
    if mode == "row":
        size = [input.shape[0]] + [1] * (input.ndim - 1)
    else:
        size = [1] * input.ndim
    noise = input.new_empty(size).bernoulli_(survival_rate)
    if survival_rate > 0.0:
        noise.div_(survival_rate)
    return input * noise


class StochasticDepth(nn.Module):
    """:func:`stochastic_depth` as a module (active in training mode)."""

    def __init__(self, p: float, mode: str) -> None:
        super().__init__()
        self.p = p
        self.mode = mode

    def forward(self, input: Tensor) -> Tensor:
        return stochastic_depth(input, self.p, self.mode, self.training)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p={self.p}, mode={self.mode})"
