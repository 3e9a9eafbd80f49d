"""``torch.nn.functional``'s losses on classes, margins and embeddings: nll_loss,
cross_entropy, multi_margin, multilabel_margin, multilabel_soft_margin,
cosine_embedding, margin_ranking, hinge_embedding, triplet_margin (with a distance).

nll_loss and the margin losses are the fused ops of ``ops/losses.py``; cross_entropy is
log_softmax then nll_loss (or, for class probabilities and label smoothing, the sums
PyTorch writes); the embedding losses are composed from ops as PyTorch composes them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..._backend import like, ndarray, on_device_of, run_quietly, xp
from ..._creation import zeros_like
from ..._tensor import Tensor, wrap
from ...amp.policy import runs_in_float32
from ...autograd.recorders import recorder
from ...ops import activations, binary, logical, losses, normalizations, reductions, shapes
from .activations import _along as _along_dim
from .activations import _log_softmax_along as _log_softmax_forward
from .activations import _record_log_softmax
from .distances import pairwise_distance
from .losses import REDUCTIONS, array_as, broadcast_shape, no_grad_for, reduce_loss, reduction_of

# ----- classes by index: nll_loss, cross_entropy ----------------------------------------------


def _check_target_dtype(target: Tensor) -> None:
    if target.dtype.name not in ("int64", "uint8"):
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {target.dtype.scalar_name}"
        )


def _check_weight(weight: Tensor | None, n_classes: int, prefix: str = "") -> None:
    if weight is not None and (weight.ndim != 1 or weight.numel() != n_classes):
        raise RuntimeError(
            f"{prefix}weight tensor should be defined either for all {n_classes} classes or no "
            f"classes but got weight tensor of shape: {list(weight.shape)}"
        )


def _nll(input: Tensor, target: Tensor, weight, reduction: str, ignore_index: int) -> Tensor:
    """The op on a checked input of 1, 2 or 4 dims."""
    function = "nll_loss_forward" if input.ndim <= 2 else "nll_loss2d_forward"
    no_grad_for(function, "weight", weight)
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(
            f"expected scalar type {input.dtype.scalar_name} but found {weight.dtype.scalar_name}"
        )
    return losses.nll_loss(
        input,
        target=target._data.astype("int64", copy=False),
        weight=None if weight is None else weight._data,
        ignore_index=int(ignore_index),
        reduction=reduction,
    )


def _nll_nd(input: Tensor, target: Tensor, weight, reduction: str, ignore_index: int) -> Tensor:
    """PyTorch's nll_loss_nd: 1-D and 2-D inputs as they are (NllLossBackward0), 4-D as
    images (NllLoss2DBackward0), 3-D and over 4-D viewed as (N, C, 1, -1)."""
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim != 1 and input.shape[0] != (target.shape[0] if target.ndim else 0):
        raise ValueError(
            f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
            f"({target.shape[0] if target.ndim else 0})."
        )
    if input.ndim <= 2:
        if target.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if input.ndim == 1 and target.ndim == 1:
            if target.shape[0] != 1:
                raise ValueError(
                    "For 1D input, 1D target must have size 1, but got target size: "
                    f"{target.shape[0]}"
                )
            target = target.reshape(())
        _check_weight(weight, input.shape[-1])
        _check_target_dtype(target)
        return _nll(input, target, weight, reduction, ignore_index)
    if input.ndim == 4:
        if target.ndim != 3:
            raise RuntimeError(
                "only batches of spatial targets supported (3D tensors) but got targets of "
                f"dimension: {target.ndim}"
            )
        if weight is not None and weight.numel() != input.shape[1]:
            raise RuntimeError("weight tensor should be defined either for all or no classes")
        _check_target_dtype(target)
        if tuple(target.shape) != (input.shape[0], *input.shape[2:]):
            raise RuntimeError(
                f"size mismatch (got input: {list(input.shape)} , target: {list(target.shape)}"
            )
        return _nll(input, target, weight, reduction, ignore_index)
    n, c = input.shape[:2]
    out_shape = (n, *input.shape[2:])
    if tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(f"Expected target size {list(out_shape)}, got {list(target.shape)}")
    if weight is not None and weight.numel() != c:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    _check_target_dtype(target)
    empty = input.numel() == 0
    flat = shapes.view(input, shape=(n, c, 0, 0) if empty else (n, c, 1, input.numel() // n // c))
    target = target.reshape((n, 0, 0) if target.numel() == 0 else (n, 1, -1))
    out = _nll(flat, target, weight, reduction, ignore_index)
    return shapes.view(out, shape=out_shape) if reduction == "none" else out


def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """-weight[t]·input[t] at each target class t (input: log-probabilities, classes along
    dim 1), reduced; 'mean' divides by Σ weight[t]; targets equal to ignore_index count 0."""
    reduction = reduction_of(reduction, size_average, reduce)
    return _nll_nd(input, target, weight, reduction, ignore_index)


@runs_in_float32  # (inside a CPU autocast: float32 as a whole, as PyTorch)
def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """nll_loss of log_softmax(input) over the classes (dim 1, or 0 for one sample); a
    target of input's shape holds class probabilities; label_smoothing mixes the target
    with the uniform distribution."""
    if (
        weight is None
        and label_smoothing == 0.0
        and size_average is None
        and reduce is None
        and input.__class__ is Tensor
        and target.__class__ is Tensor
        and (reduction == "mean" or reduction == "sum" or reduction == "none")
    ):
        x, t = input._data, target._data
        if (
            x.ndim == 2
            and t.ndim == 1
            and x.shape[0] == t.shape[0]
            and input._dtype._native
            and target._dtype.name == "int64"
        ):
            return _cross_entropy_batch(input, t, reduction, ignore_index)
    reduction = reduction_of(reduction, size_average, reduce)
    class_dim = 0 if input.ndim == 1 else 1
    if input.shape == target.shape:
        return _cross_entropy_probabilities(
            input, target, weight, reduction, ignore_index, label_smoothing, class_dim
        )
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            _bad_smoothing(label_smoothing)
        return _cross_entropy_smoothed(
            input, target, weight, reduction, ignore_index, label_smoothing, class_dim
        )
    log_p = normalizations.log_softmax(input, dim=_class_dim(input, class_dim))
    return _nll_nd(log_p, target, weight, reduction, ignore_index)


def _cross_entropy_batch(input: Tensor, target, reduction: str, ignore_index: int) -> Tensor:
    """``cross_entropy``'s common case, a batch of scores (N, C) of a float dtype and int64
    class indices (N,), no weights or smoothing: what the general path runs once its checks
    have passed, the log_softmax and nll_loss ops (their nodes, values and errors): for a
    host array, their forwards run here and their outputs recorded as F.log_softmax's fast
    path records (``autograd/recorders.py``); else given to the ops' recording step.
    tests/nn/test_mlp_fast_paths.py pins it."""
    params = {
        "target": target,
        "weight": None,
        "ignore_index": int(ignore_index),
        "reduction": reduction,
    }
    x = input._data
    if x.__class__ is ndarray and x.size:
        log_p = _along_dim(_record_log_softmax, _log_softmax_forward, input, x, 1)
        y = log_p._data
        return _record_nll(log_p, y, run_quietly(_nll_forward, y, **params), params)
    log_p = normalizations.log_softmax._fast((input,), (x,), {"dim": 1})
    return losses.nll_loss._fast((log_p,), (log_p._data,), params, _NLL_NODE)


_NLL_NODE = losses.nll_loss._class("NllLossBackward0")  # (the node of a batch: no 2-D images)
_record_nll = recorder(losses.nll_loss, _NLL_NODE)
_nll_forward = losses.nll_loss.forward


def _class_dim(input: Tensor, class_dim: int) -> int:
    if input.ndim == 0:
        return 0
    return class_dim


def _bad_smoothing(label_smoothing: float) -> None:
    raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")


def _cross_entropy_probabilities(
    input, target, weight, reduction, ignore_index, label_smoothing, class_dim
) -> Tensor:
    """-Σ_classes weight·target·log_softmax(input), summed, per sample, or averaged over
    the samples."""
    if not target.is_floating_point():
        raise RuntimeError(
            "Expected floating point type for target with class probabilities, got "
            f"{target.dtype.scalar_name}"
        )
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    n_classes = input.shape[class_dim] if input.ndim else 1
    _check_weight(weight, n_classes, "cross_entropy: ")
    log_p = normalizations.log_softmax(input, dim=_class_dim(input, class_dim))
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            _bad_smoothing(label_smoothing)
        target = target * (1 - label_smoothing) + label_smoothing / n_classes
    product = log_p * target
    if weight is not None:
        product = product * _class_shaped(weight, input)
    if reduction == "none":
        return -reductions.sum(product, dim=class_dim)
    total = -reductions.sum(product)
    if reduction == "sum":
        return total
    return total / (input.numel() // n_classes if input.numel() else 0)


def _class_shaped(weight: Tensor, input: Tensor) -> Tensor:
    """Per-class weights shaped to broadcast along dim 1 of input."""
    if input.ndim <= 1:
        return weight
    return shapes.view(weight, shape=(1, weight.shape[0]) + (1,) * (input.ndim - 2))


def _cross_entropy_smoothed(
    input, target, weight, reduction, ignore_index, label_smoothing, class_dim
) -> Tensor:
    """(1 - ε)·nll_loss + ε/C·(the loss against the uniform distribution), as PyTorch."""
    log_p = normalizations.log_softmax(input, dim=class_dim)
    nll = _nll_nd(log_p, target, weight, reduction, ignore_index)
    n_classes = input.shape[class_dim]
    ignored = target._data == ignore_index
    if weight is not None:
        smooth = -reductions.sum(log_p * _class_shaped(weight, input), dim=class_dim)
    else:
        smooth = -reductions.sum(log_p, dim=class_dim)
    smooth = smooth.masked_fill(wrap(ignored), 0.0) if ignored.any() else smooth
    if reduction == "mean":
        if weight is not None:
            kept = target._data[~ignored].reshape(-1)
            smooth = reductions.sum(smooth) / float(weight._data[kept].sum())
        else:
            smooth = reductions.sum(smooth) / int((~ignored).sum())
    elif reduction == "sum":
        smooth = reductions.sum(smooth)
    return nll * (1 - label_smoothing) + smooth * (label_smoothing / n_classes)


# ----- margins on classes ---------------------------------------------------------------------


def multi_margin_loss(
    input: Tensor,
    target: Tensor,
    p: int = 1,
    margin: float = 1.0,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Σ_(i≠y) weight[y]·max(0, margin - x[y] + x[i])^p / C per sample (y its target class),
    reduced (MultiMarginLossBackward0)."""
    reduction = reduction_of(reduction, size_average, reduce)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    nd = input.ndim
    if not ((nd == 2 and input.shape[1] != 0) or (nd == 1 and input.shape[0] != 0) or nd == 0):
        raise RuntimeError(
            "Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
            f"{list(input.shape)}"
        )
    frames = input.shape[0] if nd == 2 else 1
    classes = input.shape[-1] if nd else 1
    if target.ndim > 1 or target.numel() != frames:
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{frames}], but got "
            f"{list(target.shape)}. Input has shape {list(input.shape)}."
        )
    if weight is not None and weight.numel() != classes:
        raise RuntimeError(
            f"inconsistent weight size, expected {classes} but got {list(weight.shape)}"
        )
    no_grad_for("multi_margin_loss", "weight", weight)
    return losses.multi_margin_loss(
        input,
        target=target._data,
        p=int(p),
        margin=float(margin),
        weight=array_as(weight, input),
        reduction=reduction,
    )


def multilabel_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Σ_(labels j) Σ_(other classes i) max(0, 1 - x[j] + x[i]) / C per sample; a sample's
    labels are its target's entries before the first -1 (MultilabelMarginLossBackward0)."""
    reduction = reduction_of(reduction, size_average, reduce)
    nd = input.ndim
    if not ((nd == 2 and input.shape[1] != 0) or (nd == 1 and input.shape[0] != 0) or nd == 0):
        raise RuntimeError(
            "Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
            f"{list(input.shape)}"
        )
    classes = input.shape[-1] if nd else 1
    if nd <= 1:
        ok = target.ndim <= 1 and target.numel() == classes
    else:
        ok = target.ndim == 2 and tuple(target.shape) == tuple(input.shape)
    if not ok:
        raise RuntimeError(
            f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}"
        )
    return losses.multilabel_margin_loss(input, target=target._data, reduction=reduction)


def multilabel_soft_margin_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """-(target·log σ(x) + (1 - target)·log σ(-x)), weighted, averaged over the classes
    (the last dim), then reduced over the samples."""
    if size_average is not None or reduce is not None:
        reduction = reduction_of(reduction, size_average, reduce)
    loss = -(
        target * activations.log_sigmoid(input) + (1 - target) * activations.log_sigmoid(-input)
    )
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    loss = reductions.sum(loss, dim=class_dim) / input.shape[class_dim]
    if reduction not in REDUCTIONS:
        raise ValueError(reduction + " is not valid")
    return reduce_loss(loss, reduction)


# ----- embeddings: cosine, margin ranking, hinge, triplets --------------------------------------

_COSINE_EPSILON = 1e-12  # PyTorch's, added to each squared norm of cosine_embedding_loss


@runs_in_float32  # (inside a CPU autocast: float32 as a whole, as PyTorch)
def cosine_embedding_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1,
    reduced."""
    reduction = reduction_of(reduction, size_average, reduce)
    dim = target.ndim
    if dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if dim == 1 and not (input1.ndim == 2 and input2.ndim == 2):
        raise RuntimeError(
            "1D target tensor expects 2D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}."
        )
    if dim == 0 and not (input1.ndim == 1 and input2.ndim == 1):
        raise RuntimeError(
            "0D target tensor expects 1D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}."
        )
    prod_sum = reductions.sum(input1 * input2, dim=dim)
    mag1 = reductions.sum(input1 * input1, dim=dim) + _COSINE_EPSILON
    mag2 = reductions.sum(input2 * input2, dim=dim) + _COSINE_EPSILON
    cos = prod_sum / (mag1 * mag2).sqrt()
    zeros = zeros_like(cos)
    pos = 1 - cos
    neg = binary.clamp_min_scalar(cos - margin, min=0)
    broadcast_shape(tuple(target.shape), tuple(cos.shape))  # (PyTorch's error where not)
    output = logical.where(target._data == 1, pos, zeros) + logical.where(
        target._data == -1, neg, zeros
    )
    return reduce_loss(output, reduction)


@runs_in_float32  # (inside a CPU autocast: float32 as a whole, as PyTorch)
def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """max(0, -target·(x1 - x2) + margin), reduced."""
    reduction = reduction_of(reduction, size_average, reduce)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} "
        )
    out = binary.clamp_min_scalar(-target * (input1 - input2) + margin, min=0)
    return reduce_loss(out, reduction)


@runs_in_float32  # (inside a CPU autocast: float32 as a whole, as PyTorch)
def hinge_embedding_loss(
    input: Tensor,
    target: Tensor,
    margin: float = 1.0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """x where target is 1, max(0, margin - x) where it is -1 (both where it is neither),
    reduced."""
    reduction = reduction_of(reduction, size_average, reduce)
    zeros = zeros_like(input)
    margin_clamp = binary.clamp_min_scalar(margin - input, min=0)
    t = target._data
    output = logical.where(t != 1, margin_clamp, zeros) + logical.where(t != -1, input, zeros)
    return reduce_loss(output, reduction)


def _check_triplet_dims(anchor: Tensor, positive: Tensor, negative: Tensor) -> None:
    a, p, n = anchor.ndim, positive.ndim, negative.ndim
    if not (a == p and p == n):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {a}D, positive {p}D, and negative {n}D inputs"
        )


@runs_in_float32  # (inside a CPU autocast: float32 as a whole, as PyTorch)
def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """max(0, margin + d(a, p) - d(a, n)) with d the pairwise p-norm distance (swap: the
    smaller of d(a, n) and d(p, n)), reduced."""
    reduction = reduction_of(reduction, size_average, reduce)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = binary.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return reduce_loss(binary.clamp_min_scalar(d_pos + margin - d_neg, min=0), reduction)


def triplet_margin_with_distance_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    *,
    distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
) -> Tensor:
    """max(0, margin + d(a, p) - d(a, n)) for any distance d (pairwise_distance by
    default), reduced."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    distance = distance_function or pairwise_distance
    d_pos = distance(anchor, positive)
    d_neg = distance(anchor, negative)
    if swap:
        d_neg = binary.minimum(d_neg, distance(positive, negative))
    loss = binary.clamp_min_scalar(margin + d_pos - d_neg, min=0)
    return reduce_loss(loss, reduction)


# ----- sequences: ctc_loss -----------------------------------------------------------------------


def _lengths(value, name: str) -> Any:
    """Lengths given as a tensor (of integers) or a sequence, as an int64 array (on the
    tensor's device)."""
    if isinstance(value, Tensor):
        if not value.dtype.is_floating_point and value.dtype.name != "bool":
            return value._data.reshape(-1).astype(xp.int64)
        raise RuntimeError(f"{name} must be integral")
    return xp.asarray(list(value) if not isinstance(value, int) else [value], dtype=xp.int64)


def _padded_targets(targets: Tensor, target_lengths, batch: int):
    """The targets as (batch, longest), from the padded 2-D form or the concatenated 1-D
    one, with PyTorch's checks."""
    where = "(while checking arguments for ctc_loss_allocate_outputs)"
    for length in target_lengths:
        if length < 0:
            raise RuntimeError(
                f"Expected target_lengths to have value at least 0, but got value {length} " + where
            )
    longest = int(target_lengths.max()) if target_lengths.size else 0
    data = targets._data.astype(xp.int64)
    if targets.ndim == 1:
        total = int(target_lengths.sum())
        if data.shape[0] != total:
            raise RuntimeError(
                f"Expected tensor to have size {total} at dimension 0, but got size "
                f"{data.shape[0]} for argument #2 'targets' {where}"
            )
        starts = xp.cumsum(target_lengths) - target_lengths
        at = starts[:, None] + xp.arange(longest)
        valid = xp.arange(longest) < target_lengths[:, None]
        return xp.where(valid, data[xp.where(valid, at, 0)] if total else 0, 0)
    if data.shape[0] != batch:
        raise RuntimeError(
            f"Expected tensor to have size {batch} at dimension 0, but got size "
            f"{data.shape[0]} for argument #2 'targets' {where}"
        )
    if data.shape[1] < longest:
        raise RuntimeError(
            f"Expected tensor to have size at least {longest} at dimension 1, but got size "
            f"{data.shape[1]} for argument #2 'targets' {where}"
        )
    return data[:, :longest]


def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Tensor | Sequence[int],
    target_lengths: Tensor | Sequence[int],
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:
    """The connectionist temporal classification loss: -log of the total probability of the
    alignments of each target to its input (log_probs: (T, N, C) or (T, C)), per sample
    (CtcLossBackward0), then divided by the target lengths and averaged ('mean') or summed;
    zero_infinity sets impossible alignments' losses (inf) to 0."""
    reduction = reduction_of(reduction)
    batched = log_probs.ndim == 3
    lp = log_probs if batched else shapes.unsqueeze(log_probs, dim=1)
    t_max, batch, labels = lp.shape
    if not 0 <= blank < labels:
        raise RuntimeError("blank must be in label range")
    # (lengths where the log-probabilities are: the lattice is built from both)
    inputs = like(lp._data, _lengths(input_lengths, "input_lengths"))
    lengths = like(lp._data, _lengths(target_lengths, "target_lengths"))
    if inputs.size != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if lengths.size != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    with on_device_of(lp._data):  # (its index arithmetic where the log-probabilities are)
        padded = _padded_targets(targets, lengths, batch)
    where = "(while checking arguments for ctc_loss_allocate_outputs)"
    for length in inputs:
        if length < 0:
            raise RuntimeError(
                f"Expected input_lengths to have value at least 0, but got value {length} " + where
            )
        if length > t_max:
            raise RuntimeError(
                f"Expected input_lengths to have value at most {t_max}, but got value "
                f"{length} " + where
            )
    loss = losses.ctc_loss(
        lp,
        targets=padded,
        input_lengths=inputs,
        target_lengths=lengths,
        blank=int(blank),
        zero_infinity=bool(zero_infinity),
    )
    if zero_infinity:
        loss = logical.where(xp.isinf(loss._data), zeros_like(loss), loss)
    if reduction == "mean":
        per_length = wrap(xp.maximum(lengths, 1).astype(lp._data.dtype))  # (on lp's device)
        loss = reductions.mean(loss / per_length)
    elif reduction == "sum":
        loss = reductions.sum(loss)
    return loss if batched or reduction != "none" else shapes.squeeze(loss, dims=(0,), variant=1)
