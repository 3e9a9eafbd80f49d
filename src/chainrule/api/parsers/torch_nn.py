"""The ``torch.<name>`` forms of nn.functional's functions, with ATen's signatures: the
reduction as an int (0 'none', 1 'mean', 2 'sum'), dropout's ``train`` required, the
normalization layers' weight and bias before the running statistics."""

from __future__ import annotations

from collections.abc import Sequence

from ..._tensor import Tensor
from ...amp.policy import runs_in_float32
from . import class_losses, dropout, embedding, losses, norm_layers

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(reduction: int) -> str:
    """The reduction an int names; any other int reduces nothing, as in PyTorch."""
    return _REDUCTIONS.get(reduction, "none")


# ----- dropout ---------------------------------------------------------------------------------


def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """torch.dropout_(input, p, train): dropout written into input."""
    return dropout.dropout_impl(input, p, train, feature=False, alpha=False, inplace=True)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """torch.feature_dropout(input, p, train): whole channels (dim 1) at once."""
    return dropout.dropout_impl(input, p, train, feature=True, alpha=False, inplace=False)


def feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """torch.feature_dropout_(input, p, train): feature_dropout written into input."""
    return dropout.dropout_impl(input, p, train, feature=True, alpha=False, inplace=True)


def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """torch.alpha_dropout_(input, p, train): alpha_dropout written into input."""
    return dropout.dropout_impl(input, p, train, feature=False, alpha=True, inplace=True)


def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """torch.feature_alpha_dropout_(input, p, train): feature_alpha_dropout written into
    input."""
    return dropout.dropout_impl(input, p, train, feature=True, alpha=True, inplace=True)


def torch_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """torch.dropout(input, p, train)."""
    return dropout.dropout_impl(input, p, train, feature=False, alpha=False, inplace=False)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """torch.alpha_dropout(input, p, train)."""
    return dropout.dropout_impl(input, p, train, feature=False, alpha=True, inplace=False)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """torch.feature_alpha_dropout(input, p, train)."""
    return dropout.dropout_impl(input, p, train, feature=True, alpha=True, inplace=False)


# ----- normalization ---------------------------------------------------------------------------


def batch_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool = True,
) -> Tensor:
    """torch.batch_norm: nn.functional.batch_norm with ATen's argument order."""
    return norm_layers.batch_norm(
        input, running_mean, running_var, weight, bias, training, momentum, eps
    )


def instance_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    use_input_stats: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool = True,
) -> Tensor:
    """torch.instance_norm: nn.functional.instance_norm with ATen's argument order."""
    return norm_layers.instance_norm(
        input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
    )


def layer_norm(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
    cudnn_enable: bool = True,
) -> Tensor:
    """torch.layer_norm."""
    return norm_layers.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
    cudnn_enabled: bool = True,
) -> Tensor:
    """torch.group_norm."""
    return norm_layers.group_norm(input, num_groups, weight, bias, eps)


# ----- losses with the reduction as an int ---------------------------------------------------


@runs_in_float32  # (inside a CPU autocast: float32 as a whole, as PyTorch)
def kl_div(
    input: Tensor, target: Tensor, reduction: int = 1, *, log_target: bool = False
) -> Tensor:
    """torch.kl_div: target·(log target - input), reduced (no 'batchmean')."""
    return losses.kl_div_pointwise(input, target, _reduction(reduction), log_target)


@runs_in_float32  # (inside a CPU autocast: float32 as a whole, as PyTorch)
def poisson_nll_loss(
    input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float, reduction: int
) -> Tensor:
    """torch.poisson_nll_loss."""
    return losses.poisson_nll_loss(
        input, target, log_input, full, eps=eps, reduction=_reduction(reduction)
    )


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    pos_weight: Tensor | None = None,
    reduction: int = 1,
) -> Tensor:
    """torch.binary_cross_entropy_with_logits (input and target may broadcast)."""
    return losses.bce_with_logits(input, target, weight, pos_weight, _reduction(reduction))


@runs_in_float32  # (inside a CPU autocast: float32 as a whole, as PyTorch)
def cosine_embedding_loss(
    input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, reduction: int = 1
) -> Tensor:
    """torch.cosine_embedding_loss."""
    return class_losses.cosine_embedding_loss(
        input1, input2, target, margin, reduction=_reduction(reduction)
    )


@runs_in_float32  # (inside a CPU autocast: float32 as a whole, as PyTorch)
def margin_ranking_loss(
    input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, reduction: int = 1
) -> Tensor:
    """torch.margin_ranking_loss."""
    return class_losses.margin_ranking_loss(
        input1, input2, target, margin, reduction=_reduction(reduction)
    )


@runs_in_float32  # (inside a CPU autocast: float32 as a whole, as PyTorch)
def hinge_embedding_loss(
    input: Tensor, target: Tensor, margin: float = 1.0, reduction: int = 1
) -> Tensor:
    """torch.hinge_embedding_loss."""
    return class_losses.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


@runs_in_float32  # (inside a CPU autocast: float32 as a whole, as PyTorch)
def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    reduction: int = 1,
) -> Tensor:
    """torch.triplet_margin_loss."""
    return class_losses.triplet_margin_loss(
        anchor, positive, negative, margin, p, eps, swap, reduction=_reduction(reduction)
    )


# ----- embedding -------------------------------------------------------------------------------


def torch_embedding(
    weight: Tensor,
    indices: Tensor,
    padding_idx: int = -1,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """torch.embedding(weight, indices, ...): the rows of weight at indices."""
    return embedding.embedding_rows(weight, indices, padding_idx, scale_grad_by_freq)


def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Tensor | Sequence[int],
    target_lengths: Tensor | Sequence[int],
    blank: int = 0,
    reduction: int = 1,
    zero_infinity: bool = False,
) -> Tensor:
    """torch.ctc_loss."""
    return class_losses.ctc_loss(
        log_probs,
        targets,
        input_lengths,
        target_lengths,
        blank,
        _reduction(reduction),
        zero_infinity,
    )
