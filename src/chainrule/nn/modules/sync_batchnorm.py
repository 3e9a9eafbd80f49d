"""Batch normalisation whose statistics are those of every process's batch together: the
autograd Function behind ``nn.SyncBatchNorm`` in training across processes.

Per channel c, over the n values of c in the union of the processes' batches,

    mean = Σx / n,   var = Σ(x - mean)² / n,   y = (x - mean)·invstd·weight + bias,

with ``invstd = 1/√(var + eps)``. Each process holds only its own values, so it sums them
and a ``sum_over_ranks`` call (an in-place all-reduce) adds up the per-process sums: first
Σx with the count n, then Σ(x - mean)² about the global mean (two rounds rather than one
of Σx and Σx², whose difference loses digits when the mean is large against the spread).

The gradient of the input on each process is that of the concatenated batch,

    dL/dx = (g - Σg/n - (x - mean)·invstd²·Σg·(x - mean)/n)·invstd·weight,

where g is this process's ``grad_output`` and the two sums run over every process (one
more all-reduce). The weight and bias gradients, Σg·(x - mean)·invstd and Σg, are left as
this process's own share: DistributedDataParallel adds (averages) them, as for any
parameter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..._tensor import Tensor
from ...autograd.function import Function, once_differentiable

__all__: list[str] = []


def _channel_dims(x: Tensor) -> list[int]:
    """Every dim but the channels' (dim 1): the dims a channel's statistics run over."""
    return [0, *range(2, x.dim())]


def _per_channel(v: Tensor, x: Tensor) -> Tensor:
    """A (C,) vector shaped to broadcast along dim 1 of ``x``."""
    return v.reshape([1, -1] + [1] * (x.dim() - 2))


class SyncBatchNorm(Function):
    """y = (x - mean)·invstd·weight + bias with the statistics of all processes' batches;
    the running statistics (when given) updated in place with the global mean and the
    global unbiased variance var·n/(n - 1)."""

    @staticmethod
    def forward(
        ctx: Any,
        input: Tensor,
        weight: Tensor | None,
        bias: Tensor | None,
        running_mean: Tensor | None,
        running_var: Tensor | None,
        eps: float,
        momentum: float,
        sum_over_ranks: Callable[[Tensor], Any],
    ) -> Tensor:
        channels = input.shape[1]
        dims = _channel_dims(input)
        totals = input.new_zeros(channels + 1)  # (Σx per channel, then the count)
        totals[:channels] = input.sum(dims)
        totals[channels] = input.numel() // channels
        sum_over_ranks(totals)
        n = totals[channels].item()
        mean = totals[:channels] / n
        centred = input - _per_channel(mean, input)
        squares = (centred * centred).sum(dims)
        sum_over_ranks(squares)
        var = squares / n
        invstd = (var + eps).rsqrt()
        if running_mean is not None:
            running_mean.copy_(momentum * mean + (1 - momentum) * running_mean)
        if running_var is not None:
            unbiased = var * (n / (n - 1) if n > 1 else float("inf"))  # (n = 1: nan, as 0/0)
            running_var.copy_(momentum * unbiased + (1 - momentum) * running_var)
        scale = invstd if weight is None else invstd * weight
        out = centred * _per_channel(scale, input)
        if bias is not None:
            out = out + _per_channel(bias, input)
        ctx.save_for_backward(input, weight)
        ctx.mean, ctx.invstd, ctx.n = mean, invstd, n
        ctx.sum_over_ranks = sum_over_ranks
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad_output: Tensor) -> tuple:
        input, weight = ctx.saved_tensors
        dims = _channel_dims(input)
        channels = input.shape[1]
        centred = input - _per_channel(ctx.mean, input)
        invstd = ctx.invstd
        sums = grad_output.new_zeros(2 * channels)  # (Σg, then Σg·(x - mean))
        sums[:channels] = grad_output.sum(dims)
        sums[channels:] = (grad_output * centred).sum(dims)
        needs = ctx.needs_input_grad
        grad_weight = sums[channels:] * invstd if weight is not None and needs[1] else None
        grad_bias = sums[:channels] if needs[2] else None
        grad_input = None
        if needs[0]:
            total = sums.clone()  # (this process's sums stay for the weight and bias)
            ctx.sum_over_ranks(total)
            sum_g, sum_gc = total[:channels], total[channels:]
            k = invstd * invstd * sum_gc / ctx.n
            scale = invstd if weight is None else invstd * weight
            grad_input = (
                grad_output - _per_channel(sum_g / ctx.n, input) - centred * _per_channel(k, input)
            ) * _per_channel(scale, input)
        return grad_input, grad_weight, grad_bias, None, None, None, None, None
