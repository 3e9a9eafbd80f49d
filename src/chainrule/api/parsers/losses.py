"""``torch.nn.functional``'s losses on values: mse, l1, smooth_l1, huber, binary cross
entropy (on probabilities and on logits), soft_margin, kl_div, poisson_nll, gaussian_nll.

Each maps PyTorch's arguments (``reduction``, and the legacy ``size_average``/``reduce``
mapped as PyTorch maps them) to the fused op of ``ops/losses.py``, or composes the loss
from ops where PyTorch composes it (so the graph ends in the same node), with PyTorch's
errors and warnings. The shared argument handling is here too, for ``class_losses.py``."""

from __future__ import annotations

import math
import warnings
from typing import Any

from ..._backend import xp
from ..._creation import ones_like
from ..._promotion import result_type
from ..._tensor import Tensor
from ...amp.policy import runs_in_float32
from ...autograd import grad_mode
from ...ops import binary, losses, reductions, shapes, unary

REDUCTIONS = ("none", "mean", "sum")

# ----- arguments shared by the losses ---------------------------------------------------------


def legacy_reduction(size_average: bool | None, reduce: bool | None) -> str:
    """PyTorch's mapping of the deprecated ``size_average`` and ``reduce``, with its warning."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(
        "size_average and reduce args will be deprecated, please use "
        f"reduction='{reduction}' instead.",
        UserWarning,
        stacklevel=3,
    )
    return reduction


def reduction_of(
    reduction: str, size_average: bool | None = None, reduce: bool | None = None
) -> str:
    """The reduction: the legacy arguments when given, else ``reduction`` checked (PyTorch's
    ValueError for another string; 'elementwise_mean' is the deprecated 'mean')."""
    if size_average is not None or reduce is not None:
        return legacy_reduction(size_average, reduce)
    if reduction == "elementwise_mean":
        warnings.warn(
            "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
            UserWarning,
            stacklevel=3,
        )
        return "mean"
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def reduce_loss(loss: Tensor, reduction: str) -> Tensor:
    """The loss per element, its mean (MeanBackward0) or its sum (SumBackward0)."""
    if reduction == "mean":
        return reductions.mean(loss)
    if reduction == "sum":
        return reductions.sum(loss)
    return loss


def no_grad_for(function: str, name: str, value: Any) -> None:
    """PyTorch's error for an input it has no derivative for that requires grad."""
    if isinstance(value, Tensor) and value.requires_grad and grad_mode.is_grad_enabled():
        raise RuntimeError(
            f"The function '{function}' is not differentiable with respect to argument "
            f"'{name}'. This input cannot have requires_grad True."
        )


def array_as(value: Tensor | None, like: Tensor) -> Any:
    """A tensor without gradient (a weight, a target) as an array of ``like``'s dtype."""
    if value is None:
        return None
    return value._data.astype(like._data.dtype, copy=False)


def broadcast_pair(input: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
    """input and target expanded to their common shape (PyTorch's broadcast_tensors), with
    its warning when the shapes differ and its error when they do not broadcast."""
    if input.shape == target.shape:
        return input, target
    warnings.warn(
        f"Using a target size ({target.size()}) that is different to the input size "
        f"({input.size()}). This will likely lead to incorrect results due to broadcasting. "
        "Please ensure they have the same size.",
        UserWarning,
        stacklevel=3,
    )
    shape = broadcast_shape(tuple(input.shape), tuple(target.shape))
    return _expanded(input, shape), _expanded(target, shape)


def broadcast_shape(a: tuple, b: tuple) -> tuple:
    """The broadcast of two shapes, with PyTorch's error where they do not broadcast."""
    try:
        return tuple(xp.broadcast_shapes(a, b))
    except ValueError:
        for i in range(1, max(len(a), len(b)) + 1):
            da = a[-i] if i <= len(a) else 1
            db = b[-i] if i <= len(b) else 1
            if da != db and da != 1 and db != 1:
                raise RuntimeError(
                    f"The size of tensor a ({da}) must match the size of tensor b ({db}) at "
                    f"non-singleton dimension {max(len(a), len(b)) - i}"
                ) from None
        raise


def _expanded(t: Tensor, shape: tuple) -> Tensor:
    return t if tuple(t.shape) == shape else shapes.expand(t, shape=shape)


def _weighted_reduction(loss: Tensor, weight: Tensor, input: Tensor, reduction: str) -> Tensor:
    """PyTorch's weighted l1 and mse: loss·weight, its sum, or its sum / Σ weight."""
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    weighted = loss * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return reductions.sum(weighted)
    return reductions.sum(weighted) / reductions.sum(weight)


# ----- regression: mse, l1, smooth_l1, huber --------------------------------------------------


def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """(input - target)², reduced (MseLossBackward0); with ``weight``, the weighted sum,
    divided by Σ weight for the mean."""
    input, target = broadcast_pair(input, target)
    reduction = reduction_of(reduction, size_average, reduce)
    if weight is not None:
        return _weighted_reduction((input - target) ** 2, weight, input, reduction)
    return losses.mse_loss(input, target, reduction=reduction)


@runs_in_float32  # (inside a CPU autocast: float32 as a whole, as PyTorch)
def l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """|input - target|, reduced (PyTorch composes it: abs of the difference, then the mean
    or sum)."""
    input, target = broadcast_pair(input, target)
    reduction = reduction_of(reduction, size_average, reduce)
    loss = unary.abs(input - target)
    if weight is not None:
        return _weighted_reduction(loss, weight, input, reduction)
    return reduce_loss(loss, reduction)


def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """0.5·d²/beta for |d| < beta, |d| - 0.5·beta beyond (d = input - target), reduced;
    beta = 0 is the l1 loss."""
    input, target = broadcast_pair(input, target)
    reduction = reduction_of(reduction, size_average, reduce)
    if beta == 0.0:
        return reduce_loss(unary.abs(input - target), reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return losses.smooth_l1_loss(input, target, reduction=reduction, beta=float(beta))


def huber_loss(
    input: Tensor,
    target: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Tensor | None = None,
) -> Tensor:
    """0.5·d² for |d| < delta, delta·(|d| - 0.5·delta) beyond (d = input - target), reduced;
    with ``weight``, the weighted loss's mean or sum."""
    input, target = broadcast_pair(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if weight is None:
        return losses.huber_loss(
            input, target, reduction=reduction_of(reduction), delta=float(delta)
        )
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    loss = losses.huber_loss(input, target, reduction="none", delta=float(delta)) * weight
    if reduction not in REDUCTIONS:
        raise ValueError(
            f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'."
        )
    return reduce_loss(loss, reduction)


# ----- two classes: binary cross entropy, soft margin -----------------------------------------


def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """-weight·(target·log x + (1 - target)·log(1 - x)) on probabilities x, each log at
    least -100, reduced (BinaryCrossEntropyBackward0)."""
    reduction = reduction_of(reduction, size_average, reduce)
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}) is deprecated. Please ensure they have the same size."
        )
    no_grad_for("binary_cross_entropy", "weight", weight)
    w = None
    if weight is not None:
        from .combining import broadcast_shapes

        broadcast_shapes(input.shape, weight.shape)  # (PyTorch's error for a weight that fails)
        w = xp.broadcast_to(array_as(weight, input), tuple(input.shape))
    return losses.binary_cross_entropy(input, target, weight=w, reduction=reduction)


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """binary cross entropy on logits x, as (1 - target)·x - c·log σ(x) with c = 1 +
    (pos_weight - 1)·target, times weight: stable for any x."""
    reduction = reduction_of(reduction, size_average, reduce)
    if target.shape != input.shape:
        raise ValueError(
            f"Target size ({target.size()}) must be the same as input size ({input.size()})"
        )
    return bce_with_logits(input, target, weight, pos_weight, reduction)


def bce_with_logits(input, target, weight, pos_weight, reduction: str) -> Tensor:
    """The op, its weights checked to need no gradient."""
    for name, value in (("weight", weight), ("pos_weight", pos_weight)):
        no_grad_for("binary_cross_entropy_with_logits", name, value)
    # PyTorch's weights act in place on the loss: they broadcast to its shape, not past it
    shape = tuple(input.shape)
    for a, b in ((pos_weight, target), (input, weight)):
        if a is not None and b is not None:
            wide = broadcast_shape(tuple(a.shape), tuple(b.shape))
            if wide != shape:
                raise RuntimeError(
                    f"output with shape {list(shape)} doesn't match the broadcast shape "
                    f"{list(wide)}"
                )
    # a target of a narrower floating dtype than the input's gives the loss its dtype
    # (PyTorch's), computed in the promoted one
    loss_dtype = None
    if target.dtype.is_floating_point and target.dtype is not input.dtype:
        if result_type((input, target)) is not target.dtype:
            loss_dtype = target.dtype
    return losses.binary_cross_entropy_with_logits(
        input,
        target,
        weight=array_as(weight, input),
        pos_weight=array_as(pos_weight, input),
        reduction=reduction,
        loss_dtype=loss_dtype,
    )


def soft_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """log(1 + e^(-target·input)) for labels ±1, reduced (SoftMarginLossBackward0)."""
    reduction = reduction_of(reduction, size_average, reduce)
    no_grad_for("soft_margin_loss", "target", target)
    return losses.soft_margin_loss(input, target=array_as(target, input), reduction=reduction)


# ----- distributions: kl_div, poisson_nll, gaussian_nll ----------------------------------------


@runs_in_float32  # (inside a CPU autocast: float32 as a whole, as PyTorch)
def kl_div(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """target·(log target - input) pointwise (input: log-probabilities; log_target: target
    given as log-probabilities too), reduced; 'batchmean' divides the sum by the batch."""
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    elif reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.",
            UserWarning,
            stacklevel=2,
        )
    batchmean = reduction == "batchmean"
    loss = kl_div_pointwise(
        input, target, "sum" if batchmean else reduction_of(reduction), log_target
    )
    if batchmean and input.ndim != 0:
        loss = loss / input.shape[0]
    return loss


def kl_div_pointwise(input: Tensor, target: Tensor, reduction: str, log_target: bool) -> Tensor:
    """target·(log target - input), reduced (PyTorch's kl_div kernel, composed)."""
    if input.is_complex() or target.is_complex():
        raise RuntimeError("kl_div: Complex inputs not supported.")
    if not input.is_floating_point() or not target.is_floating_point():
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = unary.exp(target) * (target - input)
    else:
        loss = binary.xlogy(target, target) - target * input
    return reduce_loss(loss, reduction)


@runs_in_float32  # (inside a CPU autocast: float32 as a whole, as PyTorch)
def poisson_nll_loss(
    input: Tensor,
    target: Tensor,
    log_input: bool = True,
    full: bool = False,
    size_average: bool | None = None,
    eps: float = 1e-8,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """e^input - target·input (log_input), or input - target·log(input + eps); with
    ``full``, Stirling's term target·log target - target + log(2π target)/2 where target > 1."""
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    if reduction not in REDUCTIONS:
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        loss = unary.exp(input) - target * input
    else:
        loss = input - target * unary.log(input + eps)
    if full:
        stirling = target * unary.log(target) - target + unary.log(target * (2 * math.pi)) * 0.5
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return reduce_loss(loss, reduction)


def gaussian_nll_loss(
    input: Tensor,
    target: Tensor,
    var: Tensor | float,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
) -> Tensor:
    """(log var + (input - target)²/var)/2, var clamped at eps (without gradient through the
    clamp, as PyTorch); with ``full``, plus log(2π)/2."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = ones_like(input) * var
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = var.unsqueeze(-1)
        elif input.ndim != var.ndim or (
            sum(y for x, y in zip(input.shape, var.shape) if x != y) != 1
        ):
            raise ValueError("var is of incorrect size")
    if reduction not in REDUCTIONS:
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with grad_mode.no_grad():
        var.clamp_(min=eps)
    loss = (unary.log(var) + (input - target) ** 2 / var) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return reduce_loss(loss, reduction)
