"""torch.nn layers under their constructor options, against PyTorch: each layer built in
both libraries with the same weights (the state_dict copied through NumPy), run on float64
inputs (unbatched and empty batches included), comparing the output, the input's and every
parameter's gradient, and the buffers after the steps (running statistics in train mode);
and the errors of the option combinations PyTorch refuses (type and message). The cases
are the ones an option sweep found differing, with a sample of the grid around them."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
from tests.oracle import assert_close, assert_same_error

import chainrule as cr


def _dt(lib) -> Any:
    return lib.float64


def _flat(out: Any) -> list:
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [] if out is None else [out]


def _lib_value(lib, value: Any) -> Any:
    """A NumPy input as ``lib``'s tensor (float arrays require grad), others unchanged."""
    if isinstance(value, np.ndarray):
        t = lib.tensor(value)
        return t.requires_grad_() if value.dtype.kind == "f" else t
    return value


def compare_module(
    build: Callable[[Any], Any],
    inputs: list,
    *,
    train: bool = False,
    steps: int = 1,
    fwd: Callable | None = None,
    rtol: float = 1e-7,
    atol: float = 1e-9,
) -> None:
    """``build(lib)`` in both libraries, torch's state_dict loaded into chainrule's; then
    ``steps`` times: forward (``fwd(module, *inputs)``, else ``module(*inputs)``), backward
    of every float output with a random gradient, and the outputs, the float inputs'
    gradients, the parameters' gradients and values, and the buffers compared."""
    fwd = fwd or (lambda m, *xs: m(*xs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (warnings are not what this file compares)
        torch.manual_seed(0)
        tm, cm = build(torch), build(cr)
        cm.load_state_dict({k: cr.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
        tm.train(train)
        cm.train(train)
        tin = [_lib_value(torch, x) for x in inputs]
        cin = [_lib_value(cr, x) for x in inputs]
        for step in range(steps):
            tout, cout = _flat(fwd(tm, *tin)), _flat(fwd(cm, *cin))
            assert_close(cout, tout, rtol, atol, requires_grad=False, what="output")
            pairs = [(c, t) for c, t in zip(cout, tout) if t.requires_grad]
            if pairs:
                r = np.random.default_rng(step)
                grads = [r.standard_normal(tuple(t.shape)) for _, t in pairs]
                torch.autograd.backward([t for _, t in pairs], [torch.tensor(g) for g in grads])
                cr.autograd.backward([c for c, _ in pairs], [cr.tensor(g) for g in grads])
            for i, (c, t) in enumerate(zip(cin, tin)):
                if isinstance(t, torch.Tensor) and t.requires_grad:
                    assert_close(c.grad, t.grad, rtol * 10, atol * 10, what=f"input {i} grad")
            cparams = dict(cm.named_parameters())
            for name, p in tm.named_parameters():
                assert_close(cparams[name], p, rtol, atol, requires_grad=False, what=name)
                grad = cparams[name].grad
                want = p.grad
                if want is not None and want.is_sparse:
                    want, grad = want.to_dense(), grad.to_dense()
                assert_close(grad, want, rtol * 10, atol * 10, what=f"{name}.grad")
            cbuffers = dict(cm.named_buffers())
            for name, b in tm.named_buffers():
                assert_close(cbuffers[name], b, rtol, atol, requires_grad=False, what=name)


def R(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed + sum(shape)).standard_normal(shape)


def I64(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.int64)


# ----- empty batches: normalization (running statistics kept) and recurrent layers ---------

EMPTY_BATCH = {
    "BatchNorm1d": (lambda lib: lib.nn.BatchNorm1d(4, dtype=_dt(lib)), (0, 4, 5)),
    "BatchNorm1d_2d": (lambda lib: lib.nn.BatchNorm1d(4, dtype=_dt(lib)), (0, 4)),
    "BatchNorm2d_no_affine": (
        lambda lib: lib.nn.BatchNorm2d(4, affine=False, dtype=_dt(lib)),
        (0, 4, 3, 2),
    ),
    "BatchNorm3d_cumulative": (
        lambda lib: lib.nn.BatchNorm3d(4, momentum=None, dtype=_dt(lib)),
        (0, 4, 2, 2, 2),
    ),
    "RNN": (lambda lib: lib.nn.RNN(3, 4, num_layers=2, dtype=_dt(lib)), (5, 0, 3)),
    "LSTM_proj_bi": (
        lambda lib: lib.nn.LSTM(3, 4, proj_size=2, bidirectional=True, dtype=_dt(lib)),
        (5, 0, 3),
    ),
    "GRU_no_bias": (lambda lib: lib.nn.GRU(3, 4, bias=False, dtype=_dt(lib)), (5, 0, 3)),
}


@pytest.mark.parametrize("name", sorted(EMPTY_BATCH))
def test_empty_batch_matches_torch(name):
    build, shape = EMPTY_BATCH[name]
    compare_module(build, [R(*shape)], train=True, steps=2)


# ----- ConvTranspose: a 1x1 kernel with output_padding (the weight gradient's windows) -----

POINTWISE_TRANSPOSED = [
    (1, dict(groups=3, dilation=2, output_padding=1), (1, 6, 8)),
    (1, dict(groups=1, dilation=3, output_padding=2), (2, 6, 5)),
    (2, dict(groups=3, dilation=(2, 3), output_padding=(1, 2)), (2, 6, 4, 3)),
    (3, dict(dilation=2, output_padding=(1, 0, 1)), (1, 6, 2, 3, 2)),
]


@pytest.mark.parametrize("d, kw, shape", POINTWISE_TRANSPOSED)
def test_pointwise_transposed_output_padding_matches_torch(d, kw, shape):
    def build(lib):
        return getattr(lib.nn, f"ConvTranspose{d}d")(6, 3, 1, dtype=_dt(lib), **kw)

    compare_module(build, [R(*shape)])


# ----- max pooling: windows wholly in the padding (ceil_mode, dilation) -------------------

EMPTY_WINDOWS = [
    (1, dict(kernel_size=3, stride=3, padding=1, dilation=2, ceil_mode=True), (1, 3, 1)),
    (2, dict(kernel_size=(3, 2), stride=(3, 1), padding=(0, 1), dilation=(1, 2)), (3, 5, 1)),
    (3, dict(kernel_size=(2, 2, 4), stride=(2, 2, 1), padding=(1, 1, 0), dilation=(1, 2, 2)),
     (2, 3, 8, 1, 8)),
]  # fmt: skip


@pytest.mark.parametrize("d, kw, shape", EMPTY_WINDOWS)
def test_max_pool_windows_in_padding(d, kw, shape):
    """-inf and PyTorch's indices there; the gradient reaches only the windows that read x
    (torch's own backward corrupts memory on these, so it is built from its indices)."""
    x = R(*shape)
    kw = dict(kw, ceil_mode=True)
    with torch.no_grad():
        want, want_index = getattr(torch.nn.functional, f"max_pool{d}d")(
            torch.tensor(x), return_indices=True, **kw
        )
    assert torch.isinf(want).any()  # (the case has windows in the padding)
    cx = cr.tensor(x, requires_grad=True)
    got, got_index = getattr(cr.nn.functional, f"max_pool{d}d")(cx, return_indices=True, **kw)
    assert_close(got, want, requires_grad=False)
    assert_close(got_index, want_index, exact=True)
    g = np.random.default_rng(1).standard_normal(tuple(want.shape))
    got.backward(cr.tensor(g))
    lead = int(np.prod(shape[: len(shape) - d]))
    expected = np.zeros((lead, int(np.prod(shape[-d:]))))
    finite = np.isfinite(want.numpy()).reshape(lead, -1)
    index = want_index.numpy().reshape(lead, -1)
    for row in range(lead):
        np.add.at(expected[row], index[row][finite[row]], g.reshape(lead, -1)[row][finite[row]])
    np.testing.assert_allclose(cx.grad.numpy(), expected.reshape(shape))


# ----- embeddings -------------------------------------------------------------------------


def test_embedding_bag_max_all_bags_empty_matches_torch():
    def build(lib):
        return lib.nn.EmbeddingBag(10, 3, mode="max", dtype=_dt(lib))

    compare_module(build, [I64(), I64(0, 0)])


@pytest.mark.parametrize("bag", [False, True])
def test_sparse_frequency_scaling_refused_in_backward(bag):
    """sparse=True with scale_grad_by_freq: the forward runs (inference), the backward
    raises PyTorch's error."""

    def fn(lib):
        if bag:
            m = lib.nn.EmbeddingBag(10, 3, sparse=True, scale_grad_by_freq=True)
            y = m(lib.tensor([1, 2, 2, 5]), lib.tensor([0, 2]))
        else:
            m = lib.nn.Embedding(10, 3, sparse=True, scale_grad_by_freq=True)
            y = m(lib.tensor([[1, 2, 2, 5]]))
        assert tuple(y.shape) == ((2, 3) if bag else (1, 4, 3))
        y.sum().backward()

    assert_same_error(fn)


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_embedding_bag_frequency_scaling_counts_each_index(mode):
    """Deliberate difference: PyTorch 2.13's CPU backward divides a once-read index sorted
    after a repeated one by the repeated one's count (pytorch/pytorch#190063); chainrule
    divides each row's gradient by its own index's count."""
    weight = cr.tensor(R(10, 3), requires_grad=True)
    indices, offsets = [1, 2, 2, 5, 2, 3, 2, 9], [0, 3, 3, 5]
    y = cr.nn.functional.embedding_bag(
        cr.tensor(indices), weight, cr.tensor(offsets), mode=mode, scale_grad_by_freq=True
    )
    y.sum().backward()
    bags = np.split(np.array(indices), offsets[1:])
    expected = np.zeros(10)
    counts = np.bincount(indices, minlength=10)
    for bag in bags:
        for i in bag:
            expected[i] += (1 / len(bag) if mode == "mean" else 1.0) / counts[i]
    np.testing.assert_allclose(weight.grad.numpy()[:, 0], expected)


# ----- CTC: log_probs as a leaf ------------------------------------------------------------


def test_ctc_loss_leaf_gradient_is_the_derivative():
    """Deliberate difference: PyTorch's CTC backward assumes log_probs came out of
    log_softmax (its gradient is right only through it); chainrule's is ∂loss/∂log_probs
    itself, checked here by central differences. Through log_softmax the two agree
    (tests/nn/functional/test_losses.py)."""
    lp = np.log(np.random.default_rng(0).dirichlet(np.ones(5), size=(8, 2)))
    targets, lengths, target_lengths = cr.tensor([[1, 2, 2], [3, 1, 4]]), (8, 6), (3, 2)

    def loss(x):
        return cr.nn.functional.ctc_loss(x, targets, lengths, target_lengths).item()

    x = cr.tensor(lp, requires_grad=True)
    cr.nn.functional.ctc_loss(x, targets, lengths, target_lengths).backward()
    fd = np.zeros(lp.shape)
    for i in np.ndindex(lp.shape):
        up, down = lp.copy(), lp.copy()
        up[i] += 1e-6
        down[i] -= 1e-6
        fd[i] = (loss(cr.tensor(up)) - loss(cr.tensor(down))) / 2e-6
    np.testing.assert_allclose(x.grad.numpy(), fd, atol=1e-7)


# ----- errors of refused option combinations ----------------------------------------------

ERRORS = {
    # a kernel with a dimension of 0
    "conv1d_kernel_0": lambda lib: lib.nn.Conv1d(2, 3, 0, dtype=_dt(lib))(lib.zeros(1, 2, 5)),
    "conv2d_kernel_0": lambda lib: lib.nn.Conv2d(2, 3, (2, 0), dtype=_dt(lib))(
        lib.zeros(1, 2, 5, 5)
    ),
    "conv3d_kernel_0": lambda lib: lib.nn.Conv3d(2, 3, (0, 2, 2), dtype=_dt(lib))(
        lib.zeros(1, 2, 5, 5, 5)
    ),
    "conv_transpose2d_kernel_0": lambda lib: lib.nn.ConvTranspose2d(2, 3, 0, dtype=_dt(lib))(
        lib.zeros(1, 2, 5, 5)
    ),
    "conv_transpose3d_kernel_0": lambda lib: lib.nn.ConvTranspose3d(2, 3, 0, dtype=_dt(lib))(
        lib.zeros(1, 2, 5, 5, 5)
    ),
    # 1-d convolutions report as PyTorch's 2-d kernels do (height 1)
    "conv1d_dilation_0": lambda lib: lib.nn.Conv1d(2, 3, 3, dilation=0, dtype=_dt(lib))(
        lib.zeros(1, 2, 6)
    ),
    "conv_transpose1d_dilation_0": lambda lib: lib.nn.ConvTranspose1d(
        2, 3, 3, dilation=0, dtype=_dt(lib)
    )(lib.zeros(1, 2, 6)),
    "conv_transpose1d_output_padding": lambda lib: lib.nn.ConvTranspose1d(
        2, 3, 3, stride=2, output_padding=2, dtype=_dt(lib)
    )(lib.zeros(1, 2, 6)),
    "conv_transpose1d_output_too_small": lambda lib: lib.nn.ConvTranspose1d(
        2, 3, 3, padding=5, dtype=_dt(lib)
    )(lib.zeros(1, 2, 6)),
    "conv_transpose1d_module_same": lambda lib: lib.nn.ConvTranspose1d(2, 3, 3, padding="same")(
        lib.zeros(1, 2, 5)
    ),
    "conv_transpose3d_module_valid": lambda lib: lib.nn.ConvTranspose3d(2, 3, 2, padding="valid")(
        lib.zeros(1, 2, 3, 3, 3)
    ),
    "conv_transpose2d_same": lambda lib: lib.nn.functional.conv_transpose2d(
        lib.zeros(1, 2, 3, 3), lib.zeros(2, 2, 3, 3), padding="same"
    ),
    # normalization
    "layer_norm_empty_shape": lambda lib: lib.nn.LayerNorm(())(lib.zeros(2, 3)),
    "rms_norm_empty_shape": lambda lib: lib.nn.functional.rms_norm(lib.zeros(2, 3), ()),
    "local_response_norm_size_0": lambda lib: lib.nn.LocalResponseNorm(0)(lib.zeros(2, 3, 4)),
    "local_response_norm_size_0_4d": lambda lib: lib.nn.LocalResponseNorm(0)(lib.zeros(2, 3, 4, 4)),
    # embeddings and losses
    "embedding_no_rows": lambda lib: lib.nn.Embedding(0, 3)(lib.tensor([0])),
    "bce_weight_not_broadcastable": lambda lib: lib.nn.BCELoss(weight=lib.ones(5))(
        lib.full((3,), 0.5), lib.ones(3)
    ),
    "bce_target_above_1": lambda lib: lib.nn.BCELoss()(lib.full((3,), 0.5), lib.full((3,), 1.5)),
    "bce_first_bad_element_target": lambda lib: lib.nn.BCELoss()(
        lib.tensor([0.5, 1.5]), lib.tensor([1.5, 0.5])
    ),
    "bce_first_bad_element_input": lambda lib: lib.nn.BCELoss()(
        lib.tensor([1.5, 0.5]), lib.tensor([-0.5, 1.5])
    ),
    "bce_nan_input": lambda lib: lib.nn.BCELoss()(lib.tensor([0.5, float("nan")]), lib.ones(2)),
    "bce_logits_pos_weight_not_broadcastable": lambda lib: lib.nn.BCEWithLogitsLoss(
        pos_weight=lib.ones(3)
    )(lib.zeros(4, 5), lib.ones(4, 5)),
    "bce_logits_pos_weight_past_loss": lambda lib: lib.nn.BCEWithLogitsLoss(
        pos_weight=lib.ones(2, 4, 5)
    )(lib.zeros(4, 5), lib.ones(4, 5)),
    "bce_logits_weight_past_loss": lambda lib: lib.nn.BCEWithLogitsLoss(
        weight=lib.ones(2, 4, 5), reduction="none"
    )(lib.zeros(4, 5), lib.ones(4, 5)),
    "cosine_embedding_target_size": lambda lib: lib.nn.CosineEmbeddingLoss()(
        lib.ones(4, 5), lib.ones(4, 5), lib.ones(3)
    ),
    # pooling: empty non-batch dims, 3-d kernels larger than the input
    "max_pool1d_empty_length": lambda lib: lib.nn.MaxPool1d(2)(lib.zeros(2, 4, 0)),
    "max_pool1d_no_channels": lambda lib: lib.nn.MaxPool1d(2)(lib.zeros(2, 0, 6)),
    "max_pool3d_empty_depth": lambda lib: lib.nn.MaxPool3d(2)(lib.zeros(2, 4, 0, 5, 3)),
    "avg_pool3d_no_channels": lambda lib: lib.nn.AvgPool3d(2)(lib.zeros(2, 0, 4, 5, 3)),
    "avg_pool3d_kernel_past_input": lambda lib: lib.nn.AvgPool3d(7)(lib.zeros(2, 4, 4, 5, 3)),
    "avg_pool3d_kernel_past_padded": lambda lib: lib.nn.AvgPool3d(2, padding=1, ceil_mode=True)(
        lib.zeros(2, 4, 1, 3, 3)
    ),
    "lp_pool3d_kernel_past_input": lambda lib: lib.nn.LPPool3d(2, 9)(lib.ones(2, 4, 4, 5, 3)),
    "adaptive_avg_pool3d_negative": lambda lib: lib.nn.AdaptiveAvgPool3d(-2)(
        lib.zeros(2, 4, 4, 5, 3)
    ),
    # max_pool1d with return_indices runs PyTorch's 2-d checks
    "max_pool1d_indices_too_small": lambda lib: lib.nn.MaxPool1d(5, return_indices=True)(
        lib.zeros(2, 3, 2)
    ),
    "max_pool1d_indices_dilated": lambda lib: lib.nn.functional.max_pool1d(
        lib.zeros(3, 2), 3, 3, dilation=2, return_indices=True
    ),
    "max_pool1d_indices_kernel_0": lambda lib: lib.nn.functional.max_pool1d(
        lib.zeros(2, 3, 2), 0, return_indices=True
    ),
    "max_pool1d_indices_padding": lambda lib: lib.nn.functional.max_pool1d(
        lib.zeros(2, 3, 4), 2, padding=2, return_indices=True
    ),
    "max_pool1d_indices_dilation_0": lambda lib: lib.nn.functional.max_pool1d(
        lib.zeros(2, 3, 4), 2, dilation=0, return_indices=True
    ),
    "max_pool1d_indices_pair": lambda lib: lib.nn.functional.max_pool1d(
        lib.zeros(2, 3, 4), (2, 2), return_indices=True
    ),
    "max_pool1d_indices_empty": lambda lib: lib.nn.functional.max_pool1d(
        lib.zeros(2, 3, 0), 2, return_indices=True
    ),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_refused_options_raise_torch_error(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (zero-element weights warn at their init)
        assert_same_error(ERRORS[name])


# ----- a sample of the option grid --------------------------------------------------------


def _conv(d, transposed, **kw):
    name = f"{'ConvTranspose' if transposed else 'Conv'}{d}d"
    k = kw.pop("k", 3)
    return lambda lib: getattr(lib.nn, name)(4, 6, k, dtype=_dt(lib), **kw)


GRID = {
    "conv1d_same_even_reflect": (
        _conv(1, False, k=2, padding="same", dilation=1, padding_mode="reflect"),
        [R(2, 4, 9)],
    ),
    "conv2d_valid_groups_circular_unbatched": (
        _conv(2, False, padding=(1, 2), groups=2, stride=2, padding_mode="circular", bias=False),
        [R(4, 7, 8)],
    ),
    "conv3d_same_dilated_replicate": (
        _conv(3, False, padding="same", dilation=2, padding_mode="replicate"),
        [R(2, 4, 5, 6, 4)],
    ),
    "conv_transpose2d_output_size": (
        _conv(2, True, stride=2, padding=1, groups=2),
        [R(2, 4, 5, 6)],
        lambda m, x: m(x, output_size=[10, 12]),
    ),
    "max_pool2d_ceil_dilated_indices": (
        lambda lib: lib.nn.MaxPool2d(3, 2, 1, dilation=2, ceil_mode=True, return_indices=True),
        [R(2, 3, 9, 10)],
    ),
    "avg_pool3d_divisor_exclude_pad": (
        lambda lib: lib.nn.AvgPool3d(3, 2, 1, ceil_mode=True, count_include_pad=False,
                                     divisor_override=3),
        [R(3, 7, 6, 5)],
    ),
    "adaptive_max_pool2d_odd_none": (
        lambda lib: lib.nn.AdaptiveMaxPool2d((None, 3), return_indices=True),
        [R(2, 3, 7, 8)],
    ),
    "lp_pool1d_fractional_p": (
        lambda lib: lib.nn.LPPool1d(3.5, 3, 2, ceil_mode=True),
        [np.abs(R(2, 3, 11)) + 0.1],
    ),
    "batch_norm1d_cumulative_no_affine": (
        lambda lib: lib.nn.BatchNorm1d(4, momentum=None, affine=False, dtype=_dt(lib)),
        [R(3, 4, 5)],
        None,
        dict(train=True, steps=3),
    ),
    "instance_norm2d_running_stats": (
        lambda lib: lib.nn.InstanceNorm2d(4, affine=True, track_running_stats=True,
                                          dtype=_dt(lib)),
        [R(4, 3, 3)],
        None,
        dict(train=True, steps=2),
    ),
    "group_norm_empty_batch": (
        lambda lib: lib.nn.GroupNorm(2, 4, eps=0.1, dtype=_dt(lib)),
        [R(0, 4, 3)],
    ),
    "layer_norm_no_bias": (
        lambda lib: lib.nn.LayerNorm((4, 5), bias=False, eps=0.2, dtype=_dt(lib)),
        [R(3, 4, 5)],
    ),
    "rms_norm_default_eps": (
        lambda lib: lib.nn.RMSNorm(5, dtype=_dt(lib)),
        [R(4, 5)],
    ),
    "lstm_proj_bidirectional_h0_c0_unbatched": (
        lambda lib: lib.nn.LSTM(3, 4, 2, proj_size=2, bidirectional=True, dropout=0.5,
                                dtype=_dt(lib)),
        [R(5, 3), R(4, 2), R(4, 4)],
        lambda m, x, h, c: m(x, (h, c)),
    ),
    "rnn_relu_batch_first_no_bias": (
        lambda lib: lib.nn.RNN(3, 4, 2, nonlinearity="relu", bias=False, batch_first=True,
                               dtype=_dt(lib)),
        [R(2, 5, 3), R(2, 2, 4)],
    ),
    "embedding_max_norm_padding": (
        lambda lib: lib.nn.Embedding(10, 3, padding_idx=-1, max_norm=0.5, norm_type=1.0,
                                     scale_grad_by_freq=True, dtype=_dt(lib)),
        [I64(1, 2, 9, 2, 0)],
        None,
        dict(steps=2),
    ),
    "embedding_bag_last_offset_weights": (
        lambda lib: lib.nn.EmbeddingBag(10, 3, include_last_offset=True, dtype=_dt(lib),
                                        mode="sum", padding_idx=2),
        [I64(1, 2, 4, 5, 4, 3, 2, 9), I64(0, 3, 3, 8), R(8)],
        lambda m, i, o, w: m(i, o, per_sample_weights=w),
    ),
    "multihead_kdim_bias_kv_zero_attn": (
        lambda lib: lib.nn.MultiheadAttention(8, 2, kdim=6, vdim=7, add_bias_kv=True,
                                              add_zero_attn=True, batch_first=True,
                                              dtype=_dt(lib)),
        [R(3, 4, 8), R(3, 5, 6), R(3, 5, 7), np.array([[0, 0, 0, 0, 1]] * 3, dtype=bool)],
        lambda m, q, k, v, mask: m(q, k, v, key_padding_mask=mask, average_attn_weights=False),
    ),
    "encoder_layer_norm_first_callable": (
        lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16, activation=lib.nn.functional.silu,
                                                   norm_first=True, bias=False,
                                                   dtype=_dt(lib)),
        [R(4, 3, 8)],
        lambda m, x: m(x, src_mask=(cr if isinstance(x, cr.Tensor) else torch).nn.Transformer
                       .generate_square_subsequent_mask(4, dtype=_dt(cr if isinstance(
                           x, cr.Tensor) else torch)), is_causal=True),
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(GRID))
def test_option_grid_matches_torch(name):
    build, inputs, *rest = GRID[name]
    fwd = rest[0] if rest else None
    options = rest[1] if len(rest) > 1 else {}
    compare_module(build, inputs, fwd=fwd, rtol=1e-6, atol=1e-8, **options)


LOSSES = {
    "cross_entropy_weight_smoothing_ignore": (
        lambda lib, w: lib.nn.CrossEntropyLoss(weight=w, ignore_index=1, label_smoothing=0.2),
        [R(4, 5), I64(0, 1, 4, 1)],
    ),
    "cross_entropy_probabilities_none": (
        lambda lib, w: lib.nn.CrossEntropyLoss(weight=w, reduction="none", label_smoothing=0.1),
        [R(4, 5, 2), np.full((4, 5, 2), 0.2)],
    ),
    "nll_all_ignored": (
        lambda lib, w: lib.nn.NLLLoss(weight=w),
        [R(4, 5), I64(-100, -100, -100, -100)],
    ),
    "bce_with_logits_pos_weight": (
        lambda lib, w: lib.nn.BCEWithLogitsLoss(weight=w, pos_weight=w + 0.5),
        [R(3, 5), np.linspace(0, 1, 15).reshape(3, 5)],
    ),
    "poisson_full_rate": (
        lambda lib, w: lib.nn.PoissonNLLLoss(log_input=False, full=True, eps=0.5),
        [np.abs(R(3, 5)) + 0.1, np.arange(15.0).reshape(3, 5) % 4],
    ),
    "gaussian_full_eps_broadcast_var": (
        lambda lib, w: lib.nn.GaussianNLLLoss(full=True, eps=0.5, reduction="sum"),
        [R(3, 5), R(3, 5, seed=1), np.abs(R(3, 1)) + 0.01],
    ),
    "huber_delta": (lambda lib, w: lib.nn.HuberLoss(delta=0.3), [R(3, 5), R(3, 5, seed=1)]),
    "margin_ranking": (
        lambda lib, w: lib.nn.MarginRankingLoss(margin=0.7, reduction="none"),
        [R(4), R(4, seed=1), np.array([1.0, -1.0, 1.0, -1.0])],
    ),
    "multilabel_margin_unbatched": (
        lambda lib, w: lib.nn.MultiLabelMarginLoss(),
        [R(5), I64(3, 0, -1, 1, 2)],
    ),
    "triplet_with_distance_swap": (
        lambda lib, w: lib.nn.TripletMarginWithDistanceLoss(
            distance_function=lib.nn.PairwiseDistance(p=1.0), margin=0.5, swap=True
        ),
        [R(4, 5), R(4, 5, seed=1), R(4, 5, seed=2)],
    ),
    "ctc_concatenated_targets_zero_infinity": (
        lambda lib, w: lib.nn.CTCLoss(blank=4, zero_infinity=True, reduction="sum"),
        [R(6, 2, 5), I64(0, 1, 1, 2, 3, 0, 1), I64(6, 3), I64(4, 3)],
        lambda m, x, *rest: m(x.log_softmax(-1), *rest),
    ),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_options_match_torch(name):
    build, inputs, *rest = LOSSES[name]
    weight = np.linspace(0.5, 1.5, 5)
    compare_module(
        lambda lib: build(lib, lib.tensor(weight)),
        inputs,
        fwd=rest[0] if rest else None,
        rtol=1e-6,
        atol=1e-8,
    )
