"""PyTorch's thin ATen forms of existing ops, with their signatures:

- the ``*_copy`` functions (``transpose_copy``, ``view_copy``, ``split_copy``, ...): the view
  op's checks, then ``ops/aten_forms.py``'s op, a contiguous copy with its own memory and no
  view relation, in one node named as PyTorch's (``TransposeBackward0_copy``);
- ``unsafe_split``, ``unsafe_split_with_sizes``, ``unsafe_chunk``: split's pieces sharing
  the input's memory but not recorded as views (``UnsafeSplitBackward0``), so in-place
  writes into them are allowed, as in PyTorch;
- ``native_layer_norm``, ``native_batch_norm``, ``native_group_norm``: the norm layers' output
  with the statistics PyTorch's kernels return (the mean and 1/√(var + eps));
  ``native_dropout``: the output and the boolean keep-mask;
- ``nonzero_static`` (nonzero padded or cut to a fixed row count) and ``empty_permuted``;
- the functional recurrent kernels ``rnn_tanh``, ``rnn_relu``, ``lstm``, ``gru`` (PyTorch's
  flat weight list) and their ``_cell`` forms, run by the nn layers' own code on the weights
  given; ``conv_tbc`` (conv1d in time-batch-channel layout); torch-level ``embedding_bag``
  (its 4-tuple); ``segment_reduce`` (1-D lengths or offsets along axis 0).

Where chainrule differs: ``native_group_norm``'s mean and rstd do not require grad
(PyTorch's do, with gradients that its node ignores); the split ``*_copy`` functions take no
``out=`` list; ``conv_tbc`` records PermuteBackward0 (PyTorch: ConvTbcBackward0) and has a
forward mode (PyTorch's has none); the recurrent kernels record the nn layers' nodes, not
PyTorch's fused ones, and take no packed ``data, batch_sizes`` form; ``segment_reduce`` has
second derivatives (PyTorch's backward raises) and no N-D lengths or other axis."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import _creation
from ..._backend import on_device_of, xp
from ..._tensor import Tensor, _make
from ...autograd import grad_mode
from ...ops import aten_forms as ops_forms
from ...ops import reductions, shapes
from ...ops.linalg import matrices
from ..args import shape_args
from . import dropout as p_dropout
from . import indexing as p_indexing
from . import norm_layers as p_norm_layers
from . import shapes as p_shapes
from .shapes import _dim, expanded_shape

# ----- the *_copy functions ---------------------------------------------------------------


def alias_copy(input: Tensor) -> Tensor:
    """A copy of input (AliasBackward0_copy)."""
    return ops_forms.alias_copy(input)


def detach_copy(input: Tensor) -> Tensor:
    """A copy of input that PyTorch records with no derivative: it requires grad when input
    does, and backward through it raises."""
    return ops_forms.detach_copy(input)


def diagonal_copy(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal over dims (dim1, dim2) as the last dim, copied."""
    nd = input.ndim
    d1, d2 = reductions.dims_of(dim1, nd)[0], reductions.dims_of(dim2, nd)[0]
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return matrices.diagonal_copy(input, offset=offset, dim1=d1, dim2=d2)


def expand_copy(input: Tensor, size: Sequence[int], *, implicit: bool = False) -> Tensor:
    """input broadcast to ``size`` (-1 keeps a dim), copied."""
    shape = expanded_shape(input, [int(s) for s in shape_args((size,))])
    return ops_forms.expand_copy(input, shape=tuple(shape))


def permute_copy(input: Tensor, dims: Sequence[int]) -> Tensor:
    """input with its dims reordered, copied."""
    nd = input._data.ndim
    dims = tuple(dims)
    if len(dims) != nd:
        p_shapes.permute(input.detach(), dims)  # (its error)
    wrapped = tuple(_dim(d, nd) for d in dims)
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return ops_forms.permute_copy(input, dims=wrapped)


def select_copy(input: Tensor, dim: int, index: int) -> Tensor:
    """input at position ``index`` of dim ``dim``, that dim removed, copied."""
    return ops_forms.select_copy(input, key=p_shapes.select_key(input, dim, index))


def slice_copy(
    input: Tensor, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1
) -> Tensor:
    """input[start:end:step] along ``dim`` (bounds clamped, negatives wrapped), copied."""
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError("slice() cannot be applied to a 0-dim tensor.")
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    d = _dim(dim, nd)
    start, stop, step = slice(start, end, step).indices(input._data.shape[d])
    return ops_forms.slice_copy(input, key=shapes._key_of(d, slice(start, max(stop, start), step)))


def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """The ``length`` elements of input from ``start`` along ``dim``, copied
    (NarrowCopyBackward0)."""
    with grad_mode.no_grad():
        p_shapes.narrow(input, dim, start, length)  # (its checks and errors)
    d = _dim(dim, input._data.ndim)
    s = operator.index(start) % max(input._data.shape[d], 1)
    return ops_forms.narrow_copy(input, key=shapes._key_of(d, slice(s, s + length)))


def _split_sizes(pieces: tuple, d: int) -> tuple:
    """The sizes along dim ``d`` of the pieces a split made."""
    return tuple(p._data.shape[d] for p in pieces)


def split_copy(input: Tensor, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:
    """input cut along ``dim`` into pieces of ``split_size`` (the last may be smaller),
    each copied (SplitBackward0_copy)."""
    with grad_mode.no_grad():  # split's checks, errors and sizes
        pieces = p_shapes.split(input, split_size, dim)
    d = _dim(dim, input._data.ndim)
    sizes = _split_sizes(pieces, d)
    return ops_forms.split_copy(input, dim=d, sizes=sizes, kind="Split")


def split_with_sizes_copy(
    input: Tensor, split_sizes: Sequence[int], dim: int = 0
) -> tuple[Tensor, ...]:
    """input cut along ``dim`` into pieces of ``split_sizes``, each copied."""
    sizes = [operator.index(s) for s in split_sizes]
    with grad_mode.no_grad():
        p_shapes.split(input, sizes, dim)  # (its checks and errors)
    d = _dim(dim, input._data.ndim)
    return ops_forms.split_copy(input, dim=d, sizes=tuple(sizes), kind="SplitWithSizes")


def unbind_copy(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """The slices of input along ``dim``, that dim removed, each copied."""
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _dim(dim, nd)
    sizes = (1,) * input._data.shape[d]
    return ops_forms.split_copy(input, dim=d, sizes=sizes, unbind=True, kind="Unbind")


def _reshaped_copy(input: Tensor, view: Tensor, kind: str) -> Tensor:
    """input copied into the shape of ``view`` (a view of it the parser made, no grad)."""
    return ops_forms.reshape_copy(input, shape=tuple(view._data.shape), kind=kind)


def squeeze_copy(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    """input without its size-1 dims (only among ``dim`` when given), copied."""
    with grad_mode.no_grad():
        view = p_shapes.squeeze(input, dim)
    variant = 0 if dim is None else 2 if isinstance(dim, (tuple, list)) else 1
    return _reshaped_copy(input, view, f"SqueezeBackward{variant}")


def unsqueeze_copy(input: Tensor, dim: int) -> Tensor:
    """input with a size-1 dim inserted at ``dim``, copied."""
    with grad_mode.no_grad():
        view = p_shapes.unsqueeze(input, dim)
    return _reshaped_copy(input, view, "UnsqueezeBackward0")


def view_copy(input: Tensor, *size: Any) -> Tensor:
    """input in a new shape (one dim may be -1), copied; or its bytes read as another
    dtype, copied."""
    from ..._dtypes import dtype as DType

    if len(size) == 1 and isinstance(size[0], DType):
        with grad_mode.no_grad():
            view = p_shapes.view(input, size[0])
        return _make(view._data.copy(order="C"), view._dtype)
    with grad_mode.no_grad():
        view = p_shapes.view(input, *size)
    return _reshaped_copy(input, view, "ViewBackward0")


def transpose_copy(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """input with dims dim0 and dim1 swapped, copied."""
    nd = input._data.ndim
    return ops_forms.transpose_copy(input, dim0=_dim(dim0, nd), dim1=_dim(dim1, nd))


def t_copy(input: Tensor) -> Tensor:
    """The transpose of a matrix (a 0-d or 1-D tensor as it is), copied (TBackward0_copy)."""
    nd = input._data.ndim
    if nd > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
    last = 1 if nd == 2 else 0
    return ops_forms.transpose_copy(input, dim0=0, dim1=last, kind="T")


def unfold_copy(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """The windows of ``size`` elements every ``step`` along ``dimension`` as a new last
    dim, copied."""
    with grad_mode.no_grad():
        p_indexing.unfold(input, dimension, size, step)  # (its checks and errors)
    d = _dim(dimension, input._data.ndim)
    return ops_forms.unfold_copy(input, dimension=d, size=size, step=step)


# ----- split and chunk without view tracking ------------------------------------------------


def _unsafe_pieces(input: Tensor, split: Any, dim: int, kind: str) -> tuple[Tensor, ...]:
    """split's pieces (its checks and sizes), sharing input's memory but not recorded as its
    views: no in-place check, separate version counters."""
    with grad_mode.no_grad():
        pieces = p_shapes.split(input, split, dim)
    d = _dim(dim, input._data.ndim)
    return shapes.split(input, dim=d, sizes=_split_sizes(pieces, d), kind=kind)


def unsafe_split(input: Tensor, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:
    """input cut along ``dim`` into pieces of ``split_size`` (the last may be smaller), not
    recorded as views (UnsafeSplitBackward0)."""
    if not isinstance(split_size, int) and not hasattr(split_size, "__index__"):
        raise TypeError(
            "unsafe_split(): argument 'split_size' (position 2) must be int, not "
            f"{type(split_size).__name__}"
        )
    return _unsafe_pieces(input, split_size, dim, "UnsafeSplit")


def unsafe_split_with_sizes(
    input: Tensor, split_sizes: Sequence[int], dim: int = 0
) -> tuple[Tensor, ...]:
    """input cut along ``dim`` into pieces of ``split_sizes``, not recorded as views
    (UnsafeSplitWithSizesBackward0)."""
    sizes = [operator.index(s) for s in split_sizes]
    return _unsafe_pieces(input, sizes, dim, "UnsafeSplitWithSizes")


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """chunk's pieces, sharing input's memory but not recorded as its views
    (UnsafeSplitBackward0)."""
    with grad_mode.no_grad():
        pieces = p_shapes.chunk(input, chunks, dim)
    d = _dim(dim, input._data.ndim)
    return shapes.split(input, dim=d, sizes=_split_sizes(pieces, d), kind="UnsafeSplit")


# ----- the native norm layers and dropout -----------------------------------------------------


def _mean_rstd(data: Any, axes: tuple, eps: float, shape: tuple) -> tuple[Tensor, Tensor]:
    """The mean and 1/√(var + eps) (biased variance) of ``data`` over ``axes``, reshaped to
    ``shape``: the statistics PyTorch's norm kernels return (no gradient)."""
    wide = data.astype(xp.float64)
    mean = wide.mean(axis=axes, keepdims=True)
    var = ((wide - mean) ** 2).mean(axis=axes, keepdims=True)
    rstd = 1.0 / xp.sqrt(var + eps)
    return tuple(_make(s.astype(data.dtype).reshape(shape), _dtype_of(data)) for s in (mean, rstd))


def _dtype_of(data: Any):
    from ..._dtypes import _FROM_NP

    return _FROM_NP[data.dtype]


def native_layer_norm(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Tensor | None,
    bias: Tensor | None,
    eps: float,
) -> tuple[Tensor, Tensor, Tensor]:
    """(layer_norm's output, the mean, 1/√(var + eps)); the statistics have input's leading
    dims and a size-1 dim per normalized one."""
    out = p_norm_layers.layer_norm(input, normalized_shape, weight, bias, eps)
    k = len(tuple(normalized_shape))
    nd = input._data.ndim
    lead = tuple(input._data.shape[: nd - k])
    mean, rstd = _mean_rstd(input._data, tuple(range(nd - k, nd)), eps, lead + (1,) * k)
    return out, mean, rstd


def native_batch_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
) -> tuple[Tensor, Tensor, Tensor]:
    """(batch_norm's output, the batch's mean, its 1/√(var + eps)) per channel in training
    (the running statistics updated); out of training the two statistics are empty."""
    data = input._data
    out = p_norm_layers.batch_norm(
        input, running_mean, running_var, weight, bias, training, momentum, eps
    )
    if not training:
        with on_device_of(data):
            empties = [_make(xp.empty((0,), dtype=data.dtype), input._dtype) for _ in "mv"]
        return out, *empties
    axes = (0,) + tuple(range(2, data.ndim))
    mean, rstd = _mean_rstd(data, axes, eps, (data.shape[1],))
    return out, mean, rstd


def native_group_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    N: int,
    C: int,
    HxW: int,
    group: int,
    eps: float,
) -> tuple[Tensor, Tensor, Tensor]:
    """(group_norm's output, the mean, 1/√(var + eps)) per sample and group, of shape
    (N, group)."""
    if input._data.size != N * C * HxW:
        raise RuntimeError(
            f"Expected input to have {N * C * HxW} elements, but got {input._data.size}"
        )
    out = p_norm_layers.group_norm(input, group, weight, bias, eps)
    grouped = input._data.reshape(N, group, -1)
    mean, rstd = _mean_rstd(grouped, (2,), eps, (N, group))
    return out, mean, rstd


def native_dropout(input: Tensor, p: float, train: bool | None) -> tuple[Tensor, Tensor]:
    """(input·mask/(1 - p), mask): mask a boolean tensor, each element kept with probability
    1 - p (every one out of training): PyTorch's mask for the same seed."""
    data = input._data
    if train is False:
        keep, scale = np.ones(data.shape, dtype=bool), 1.0
    else:
        p_dropout._check_p(p)
        keep = p_dropout._bernoulli(data.shape, 1 - p, input).astype(bool)
        scale = 1.0 / (1.0 - p) if p < 1 else 0.0
    with on_device_of(data):  # (drawn on the host, used where input is)
        keep = xp.asarray(keep)
        mask = keep.astype(data.dtype) * data.dtype.type(scale)
    out = ops_forms.native_dropout(input, mask=mask)
    return out, _make(keep, _dtype_of(keep))


# ----- nonzero_static, empty_permuted ----------------------------------------------------------


def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """The indices of the nonzero elements as a (size, ndim) int64 tensor: the first ``size``
    rows of nonzero's, padded with ``fill_value`` rows."""
    size = operator.index(size)
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, got {size}")
    data = input._data
    with on_device_of(data):  # the indices where the input is
        if data.ndim:
            found = xp.argwhere(data)
        else:
            found = xp.zeros((int(bool(data)), 0), dtype=xp.int64)
        out = xp.full((size, data.ndim), fill_value, dtype=xp.int64)
        n = min(size, found.shape[0])
        out[:n] = found[:n]
    return _make(out, _dtype_of(out))


def empty_permuted(
    size: Sequence[int],
    physical_layout: Sequence[int],
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """An uninitialised tensor (chainrule's are zeros) of ``size`` whose memory holds its dims
    in the order ``physical_layout`` (outermost first)."""
    size = tuple(int(s) for s in size)
    order = tuple(int(d) for d in physical_layout)
    if sorted(order) != list(range(len(size))):
        raise RuntimeError(
            f"Number of dimensions in size does not match the length of the physical_layout; "
            f"i.e. len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}"
            if len(order) != len(size)
            else f"Dimension {order} is not a permutation of the dims"
        )
    physical = _creation.empty(
        tuple(size[d] for d in order), dtype=dtype, device=device, pin_memory=bool(pin_memory)
    )
    inverse = [0] * len(order)
    for i, d in enumerate(order):
        inverse[d] = i
    out = _make(physical._data.transpose(inverse), physical._dtype)
    if requires_grad:
        out.requires_grad_(True)
    return out


# ----- the functional recurrent kernels ------------------------------------------------------


def _carrier(cls: type, weights: dict, **attrs: Any) -> Any:
    """An instance of the nn layer ``cls`` that holds ``weights`` (the tensors given, not
    parameters of its own) and ``attrs``: its forward code runs on them. Made without the
    layer's __init__, which would draw random weights."""
    from ...nn.modules.module import Module

    layer = cls.__new__(cls)
    Module.__init__(layer)
    for name, value in {**attrs, **weights}.items():
        object.__setattr__(layer, name, value)
    return layer


_MODES = {"rnn_tanh": ("RNN", 1), "rnn_relu": ("RNN", 1), "lstm": ("LSTM", 4), "gru": ("GRU", 3)}


def _recurrent(
    kind: str,
    input: Tensor,
    hx: Any,
    params: Sequence[Tensor],
    has_biases: bool,
    num_layers: int,
    dropout: float,
    train: bool,
    bidirectional: bool,
    batch_first: bool,
) -> tuple:
    """Every layer and direction of the recurrence ``kind`` over a padded input, the weights
    given as PyTorch's flat list (per layer and direction: w_ih, w_hh[, b_ih, b_hh][, w_hr]),
    run by the nn layer's own loop (nn/modules/rnn.py)."""
    from ...nn.modules import rnn

    name, gates = _MODES[kind]
    params = list(params)
    directions = 2 if bidirectional else 1
    per = len(params) // (num_layers * directions)
    if per * num_layers * directions != len(params) or per < 2:
        raise RuntimeError(
            f"{kind}: expected {num_layers * directions} groups of weights, got "
            f"{len(params)} tensors"
        )
    hidden = params[1].shape[0] // gates
    projected = kind == "lstm" and per in (3, 5)
    stems = ["weight_ih", "weight_hh"]
    stems += ["bias_ih", "bias_hh"] if has_biases else []
    stems += ["weight_hr"] if projected else []
    if len(stems) != per:
        raise RuntimeError(f"{kind}: got {per} weights per layer, expected {len(stems)}")
    weights, all_names = {}, []
    for k in range(num_layers * directions):
        suffix = f"_l{k // directions}" + ("_reverse" if k % directions else "")
        names = [s + suffix for s in stems]
        weights.update(zip(names, params[k * per : (k + 1) * per]))
        all_names.append(names)
    layer = _carrier(
        {"RNN": rnn.RNN, "LSTM": rnn.LSTM, "GRU": rnn.GRU}[name],
        weights,
        mode={"rnn_tanh": "RNN_TANH", "rnn_relu": "RNN_RELU"}.get(kind, name),
        nonlinearity="relu" if kind == "rnn_relu" else "tanh",
        input_size=params[0].shape[1],
        hidden_size=hidden,
        num_layers=num_layers,
        bias=bool(has_biases),
        batch_first=False,
        dropout=float(dropout),
        bidirectional=bool(bidirectional),
        proj_size=params[per - 1].shape[0] if projected else 0,
        training=bool(train),
        _all_weights=all_names,
        _flat_weights_names=[n for names in all_names for n in names],
    )
    x = input.transpose(0, 1) if batch_first else input
    output, hidden_out = layer._run(x, hx, None)
    if batch_first:
        output = output.transpose(0, 1)
    return (output, *hidden_out) if kind == "lstm" else (output, hidden_out)


def rnn_tanh(input: Tensor, hx: Tensor, params: Sequence[Tensor], has_biases: bool,
             num_layers: int, dropout: float, train: bool, bidirectional: bool,
             batch_first: bool) -> tuple[Tensor, Tensor]:  # fmt: skip
    """(output, h_n) of h_t = tanh(x_t W_ihᵀ + b_ih + h_{t-1} W_hhᵀ + b_hh), layer after
    layer (dropout between layers in training), as torch.rnn_tanh."""
    return _recurrent("rnn_tanh", input, hx, params, has_biases, num_layers, dropout, train,
                      bidirectional, batch_first)  # fmt: skip


def rnn_relu(input: Tensor, hx: Tensor, params: Sequence[Tensor], has_biases: bool,
             num_layers: int, dropout: float, train: bool, bidirectional: bool,
             batch_first: bool) -> tuple[Tensor, Tensor]:  # fmt: skip
    """(output, h_n) of h_t = relu(x_t W_ihᵀ + b_ih + h_{t-1} W_hhᵀ + b_hh), as
    torch.rnn_relu."""
    return _recurrent("rnn_relu", input, hx, params, has_biases, num_layers, dropout, train,
                      bidirectional, batch_first)  # fmt: skip


def gru(input: Tensor, hx: Tensor, params: Sequence[Tensor], has_biases: bool,
        num_layers: int, dropout: float, train: bool, bidirectional: bool,
        batch_first: bool) -> tuple[Tensor, Tensor]:  # fmt: skip
    """(output, h_n) of the GRU (gates r, z, n), as torch.gru."""
    return _recurrent("gru", input, hx, params, has_biases, num_layers, dropout, train,
                      bidirectional, batch_first)  # fmt: skip


def lstm(input: Tensor, hx: Sequence[Tensor], params: Sequence[Tensor], has_biases: bool,
         num_layers: int, dropout: float, train: bool, bidirectional: bool,
         batch_first: bool) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip
    """(output, h_n, c_n) of the LSTM (gates i, f, g, o; projected by w_hr when the flat
    list has it), as torch.lstm."""
    return _recurrent("lstm", input, tuple(hx), params, has_biases, num_layers, dropout, train,
                      bidirectional, batch_first)  # fmt: skip


def _cell(cls: type, input: Tensor, hx: Any, w_ih: Tensor, w_hh: Tensor,
          b_ih: Tensor | None, b_hh: Tensor | None, gates: int, **attrs: Any) -> Any:  # fmt: skip
    """One step of the nn cell ``cls`` on the given weights."""
    weights = {"weight_ih": w_ih, "weight_hh": w_hh, "bias_ih": b_ih, "bias_hh": b_hh}
    cell = _carrier(
        cls,
        weights,
        input_size=w_ih.shape[1],
        hidden_size=w_hh.shape[0] // gates,
        bias=b_ih is not None,
        **attrs,
    )
    return cell.forward(input, hx)


def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
                  b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:  # fmt: skip
    """h' = tanh(x W_ihᵀ + b_ih + h W_hhᵀ + b_hh)."""
    from ...nn.modules.rnn import RNNCell

    return _cell(RNNCell, input, hx, w_ih, w_hh, b_ih, b_hh, 1, nonlinearity="tanh")


def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
                  b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:  # fmt: skip
    """h' = relu(x W_ihᵀ + b_ih + h W_hhᵀ + b_hh)."""
    from ...nn.modules.rnn import RNNCell

    return _cell(RNNCell, input, hx, w_ih, w_hh, b_ih, b_hh, 1, nonlinearity="relu")


def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
             b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:  # fmt: skip
    """One GRU step: h' = (1 - z) n + z h."""
    from ...nn.modules.rnn import GRUCell

    return _cell(GRUCell, input, hx, w_ih, w_hh, b_ih, b_hh, 3)


def lstm_cell(input: Tensor, hx: Sequence[Tensor], w_ih: Tensor, w_hh: Tensor,
              b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> tuple[Tensor, Tensor]:  # fmt: skip
    """One LSTM step: (h', c') with c' = f c + i g, h' = o tanh(c')."""
    from ...nn.modules.rnn import LSTMCell

    return _cell(LSTMCell, input, tuple(hx), w_ih, w_hh, b_ih, b_hh, 4)


# ----- conv_tbc, embedding_bag -----------------------------------------------------------------


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """A 1-D convolution in time-batch-channel layout: input (T, B, C_in), weight
    (K, C_in, C_out), bias (C_out,); out[t, b] = bias + Σ_k input[t + k - pad, b] weight[k]
    (zero-padded by ``pad`` at both ends), of shape (T + 2·pad - K + 1, B, C_out). Computed
    as conv1d on the permuted input, so its node is PermuteBackward0 (PyTorch's:
    ConvTbcBackward0)."""
    if input.ndim != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.ndim != 3:
        raise RuntimeError(
            "Weight tensor must have 3 dims: kernel_width, in_channels, out_channels."
        )
    if bias.ndim != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    from . import convolution as p_convolution

    out = p_convolution.conv1d(
        input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=int(pad)
    )
    return out.permute(2, 0, 1)


_BAG_MODES = ("sum", "mean", "max")


def embedding_bag(
    weight: Tensor,
    indices: Tensor,
    offsets: Tensor,
    scale_grad_by_freq: bool = False,
    mode: int = 0,
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """torch.embedding_bag: (output, offset2bag, bag_size, max_indices). output is
    nn.functional.embedding_bag's (mode 0 sum, 1 mean, 2 max); offset2bag the bag of each
    index; bag_size the indices per bag that are not padding_idx; max_indices, for 'max', the
    row each output element came from (for 'mean' bag_size again). As PyTorch's CPU kernel:
    for 'sum' bag_size and max_indices are zeros, and with float32/float16 weights and no
    padding_idx offset2bag is empty; with include_last_offset the last bag runs to the end
    of the indices. (Where chainrule differs: for that last bag PyTorch's float32/float16
    fast path sums only up to the last offset, and divides a mean by the count to the end;
    chainrule sums to the end in every dtype, as PyTorch's float64 path does.)"""
    if mode not in (0, 1, 2):
        raise RuntimeError("`mode` must be sum, mean, or max.")
    from . import embedding as p_embedding

    if include_last_offset and offsets.ndim == 1 and offsets.shape[0]:
        # PyTorch's kernel ignores the last offset: the last bag runs to the end of the
        # indices (nn.functional.embedding_bag here ends it at that offset)
        offsets = offsets[:-1]
    output = p_embedding.embedding_bag(
        indices, weight, offsets, None, 2, scale_grad_by_freq, _BAG_MODES[mode], sparse,
        per_sample_weights, False, padding_idx,
    )  # fmt: skip
    idx, starts = indices._data, offsets._data
    with on_device_of(idx):
        n, bags = idx.shape[0], output.shape[0]
        starts = starts[:bags]
        offset2bag = xp.searchsorted(starts, xp.arange(n), side="right") - 1
        offset2bag = offset2bag.astype(xp.int64)
        kept = xp.ones(n, dtype=bool) if padding_idx is None else idx != padding_idx
        counts = xp.zeros(bags, dtype=xp.int64)
        xp.add.at(counts, offset2bag[kept], 1)
        zeros = xp.zeros(bags, dtype=xp.int64)
        if mode == 0:
            fast = weight._data.dtype.char in "fe" and padding_idx is None
            o2b = xp.zeros(0, dtype=xp.int64) if fast else offset2bag
            aux = (o2b, zeros, zeros.copy())
        elif mode == 1:
            aux = (offset2bag, counts, counts.copy())
        else:
            aux = (offset2bag, counts, _max_rows(weight._data, idx, offset2bag, kept, bags))
    return (output, *(_make(a, _dtype_of(a)) for a in aux))


def _max_rows(w: Any, idx: Any, offset2bag: Any, kept: Any, bags: int) -> Any:
    """For each bag and column, the weight row whose entry is the bag's largest (0 for a bag
    with no row): the first such row in the bag's order."""
    out = xp.zeros((bags, w.shape[1]), dtype=xp.int64)
    best = xp.full((bags, w.shape[1]), -xp.inf)
    for i in range(idx.shape[0]):
        if not bool(kept[i]):
            continue
        b, row = int(offset2bag[i]), int(idx[i])
        larger = w[row] > best[b]
        out[b] = xp.where(larger, row, out[b])
        best[b] = xp.where(larger, w[row], best[b])
    return out


# ----- segment_reduce ----------------------------------------------------------------------------

_SEGMENT_REDUCTIONS = {"sum": "sum", "mean": "mean", "max": "max", "amax": "max",
                       "min": "min", "amin": "min", "prod": "prod"}  # fmt: skip


def segment_reduce(
    data: Tensor,
    reduce: str,
    *,
    lengths: Tensor | None = None,
    indices: Tensor | None = None,
    offsets: Tensor | None = None,
    axis: int = 0,
    unsafe: bool = False,
    initial: float | None = None,
) -> Tensor:
    """Each segment of data's rows (along axis 0: ``lengths`` rows each, or from one offset to
    the next) reduced by sum, mean, max, min or prod, starting from ``initial`` (an empty
    segment gives initial, else 0, nan, -inf, inf or 1) (SegmentReduceBackward0). Only 1-D
    lengths or offsets along axis 0; ``indices`` is unsupported, as in PyTorch."""
    if reduce not in _SEGMENT_REDUCTIONS:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if _dim(axis, data.ndim) != 0 or (lengths if lengths is not None else offsets).ndim != 1:
        raise NotImplementedError(
            "segment_reduce: chainrule reduces 1-D lengths or offsets along axis 0 only"
        )
    with on_device_of(data._data):
        if offsets is not None:  # (offsets win over lengths, and need not cover data)
            bounds = [int(o) for o in offsets._data.astype(xp.int64).tolist()]
            sizes = [b - a for a, b in zip(bounds, bounds[1:])]
            if min(sizes, default=0) < 0:
                raise RuntimeError("Expected segment_length >= 0 to be true, but got false.")
            if bounds and bounds[0] != 0:  # (the rows before the first offset: not used)
                data = data[bounds[0] :]
        else:
            sizes = [int(s) for s in lengths._data.astype(xp.int64).tolist()]  # type: ignore[union-attr]
            if min(sizes, default=0) < 0:
                raise RuntimeError("lengths contains negative value!")
            if not unsafe and sum(sizes) != data.shape[0]:
                raise RuntimeError(
                    "segment_reduce(): Expected all rows of lengths along axis to sum to "
                    "data.size(lengths.dim()-1) when !unsafe."
                )
        total = sum(sizes)
        n = len(sizes)
        ids = xp.zeros(data.shape[0], dtype=xp.int64)
        ids[:total] = xp.repeat(xp.arange(n), sizes)
    return ops_forms.segment_reduce(
        data, reduce=_SEGMENT_REDUCTIONS[reduce], ids=ids, m=total, n=n, initial=initial
    )
