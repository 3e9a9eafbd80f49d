"""``torch.nn.functional``'s embeddings: embedding (with padding_idx, max_norm's in-place
renormalization of the rows read, scale_grad_by_freq; ``sparse`` gives a dense gradient),
embedding_bag (sum, mean or max over bags given by offsets or by the rows of a 2-D input,
per_sample_weights, include_last_offset, padding_idx), and one_hot."""

from __future__ import annotations

from typing import Any

from ..._backend import on_device_of, xp
from ..._dtypes import int64
from ..._tensor import Tensor, wrap
from ...autograd import grad_mode
from ...ops import embedding as ops


def _check_indices(indices: Tensor, function: str, argument: str = "indices") -> None:
    if indices.dtype.name not in ("int64", "int32"):
        raise RuntimeError(
            f"Expected tensor for argument #1 '{argument}' to have one of the following scalar "
            f"types: Long, Int; but got {indices.dtype.legacy_type} instead (while checking "
            f"arguments for {function})"
        )


def embedding_renorm_(weight: Tensor, input: Tensor, max_norm: float, norm_type: float) -> Tensor:
    """The rows of weight that input reads, scaled in place to p-norm max_norm where their
    norm exceeds it (by max_norm / (norm + 1e-7), as PyTorch); no gradient is recorded."""
    _check_indices(input, "embedding_renorm_", "indices")
    rows = xp.unique(input._data.reshape(-1))
    data = weight._data
    norms = xp.linalg.norm(data[rows], ord=norm_type, axis=1) if rows.size else rows
    over = norms > max_norm
    if over.any():
        scale = (max_norm / (norms[over] + 1e-7)).astype(data.dtype)
        data[rows[over]] = data[rows[over]] * scale[:, None]
    weight._bump()
    return weight


def _padding(padding_idx: int | None, num_embeddings: int) -> int:
    """padding_idx as a row number, -1 for none, with PyTorch's check."""
    if padding_idx is None:
        return -1
    if padding_idx > 0 and padding_idx >= num_embeddings:
        raise AssertionError("Padding_idx must be within num_embeddings")
    if padding_idx < 0:
        if padding_idx < -num_embeddings:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx = num_embeddings + padding_idx
    return padding_idx


def embedding_rows(
    weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False
) -> Tensor:
    """The op: weight's rows at indices (EmbeddingBackward0)."""
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    _check_indices(indices, "embedding")
    index = indices._data
    if index.size and not weight.shape[0]:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    if index.size and (index.min() < 0 or index.max() >= weight.shape[0]):
        raise IndexError("index out of range in self")
    return ops.embedding(
        weight,
        indices=index.astype(xp.int64, copy=False),
        padding_idx=int(padding_idx),
        scale_grad_by_freq=bool(scale_grad_by_freq),
    )


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """weight's rows at the indices of input: out[..., :] = weight[input[...], :]. The row
    padding_idx gets no gradient; with max_norm the rows read are first renormalized in
    place; scale_grad_by_freq divides each index's gradient by its count in input."""
    padding = _padding(padding_idx, weight.shape[0])
    if max_norm is not None:
        with grad_mode.no_grad():
            embedding_renorm_(weight, input, max_norm, norm_type)
    if sparse and weight.requires_grad and grad_mode.is_grad_enabled():
        from ...sparse import _ops  # (a sparse gradient for weight: chainrule/sparse)

        def rows() -> Tensor:
            return embedding_rows(weight.detach(), input, padding)

        out = _ops.embedding(weight, input, padding, rows)
        if scale_grad_by_freq:  # (PyTorch refuses it in the backward, the forward runs)
            out.register_hook(_refuse_sparse_frequencies)
        return out
    return embedding_rows(weight, input, padding, scale_grad_by_freq)


def _refuse_sparse_frequencies(grad: Tensor) -> None:
    """embedding's backward with sparse=True and scale_grad_by_freq=True: not supported"""
    raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse gradients")


_MODES = ("sum", "mean", "max")


def embedding_bag(
    input: Tensor,
    weight: Tensor,
    offsets: Tensor | None = None,
    max_norm: float | None = None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> Tensor:
    """Per bag, the sum, mean or max of weight's rows at its indices (EmbeddingBagBackward0):
    a 2-D input is one bag per row; a 1-D input is cut into bags at ``offsets`` (with
    include_last_offset, the last offset ends the last bag). per_sample_weights scale the
    rows ('sum' only); padding_idx is left out of its bag (an empty bag gives 0)."""
    if weight.dtype is int64 and input.is_floating_point():
        import warnings

        warnings.warn(
            "Argument order of nn.functional.embedding_bag was changed. Usage "
            "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
            "`embedding_bag(input, weight, ...)`.",
            UserWarning,
            stacklevel=2,
        )
        weight, input = input, weight
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, "
            f"then it must have the same shape as the input ({input.shape})"
        )
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a "
                "mini-batch of fixed length sequences. However, found offsets of type "
                f"{_type_name(offsets)}"
            )
        starts = xp.arange(0, input.numel(), max(input.shape[1], 1))[: input.shape[0]]
        include_last_offset = False
        flat = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        starts = None
        flat = input
    else:
        raise ValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}"
        )
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if max_norm is not None:
        with grad_mode.no_grad():
            embedding_renorm_(weight, flat, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub."
        )
    _check_indices(flat, "embedding_bag")
    if offsets is not None:
        _check_indices(offsets, "embedding_bag")
        starts = offsets._data
    indices = flat._data.astype(xp.int64, copy=False)
    with on_device_of(indices):  # the bags where the indices are
        bags, n_bags, used = _bags(starts, indices.size, include_last_offset)
    if used < indices.size:  # indices past the last offset (include_last_offset) are unused
        indices = indices[:used]
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights[:used]
    bad = (indices < 0) | (indices >= weight.shape[0])
    if bad.any():
        raise RuntimeError(
            "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be "
            f"{indices[bad][0]}"
        )
    padding = _padding(padding_idx, weight.shape[0]) if padding_idx is not None else None
    if sparse and weight.requires_grad and grad_mode.is_grad_enabled():
        from ...sparse import _ops  # (a sparse gradient for weight: chainrule/sparse)

        def bag(rows: Tensor, weights: Tensor | None, at: Any, pad: int) -> Tensor:
            return ops.embedding_bag(
                rows, weights, indices=at, bags=bags, n_bags=n_bags, mode=mode, padding_idx=pad
            )

        out = _ops.embedding_bag(weight, per_sample_weights, indices, padding, bag)
        if scale_grad_by_freq:  # (PyTorch refuses it in the backward, the forward runs)
            out.register_hook(_refuse_sparse_frequencies)
        return out
    return ops.embedding_bag(
        weight,
        per_sample_weights,
        indices=indices,
        bags=bags,
        n_bags=n_bags,
        mode=mode,
        padding_idx=padding,
        scale_grad_by_freq=bool(scale_grad_by_freq),
    )


def _type_name(value: Any) -> str:
    """type(value) as PyTorch's message prints it (a chainrule tensor as torch's)."""
    return "<class 'torch.Tensor'>" if isinstance(value, Tensor) else str(type(value))


def _bags(starts: Any, n: int, include_last_offset: bool) -> tuple:
    """Each index's bag number from the bags' start offsets, the number of bags, and how
    many indices the bags use."""
    starts = xp.asarray(starts, dtype=xp.int64)
    if starts.size and starts[0] != 0:
        raise RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
            f"from position 0. However, got {starts[0]}\n[ torch.LongTensor{{}} ]"
        )
    if starts.size and starts[-1] > n:
        raise RuntimeError(
            f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] of "
            f"{starts[-1]}"
        )
    used = n
    if include_last_offset:
        used = int(starts[-1]) if starts.size else 0
        starts = starts[:-1]
    bags = xp.searchsorted(starts, xp.arange(used), side="right") - 1
    return bags, starts.size, used


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """An int64 tensor of input's shape plus a last dim of num_classes (input's max + 1 for
    -1): 1 at each entry's class, 0 elsewhere."""
    if tensor.dtype is not int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    data = tensor._data
    if data.size == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        with on_device_of(data):
            return wrap(xp.zeros(data.shape + (num_classes,), dtype=xp.int64))
    if data.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(data.max()) + 1
    elif data.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    with on_device_of(data):  # the classes where the input is
        return wrap((data[..., None] == xp.arange(num_classes)).astype(xp.int64))
