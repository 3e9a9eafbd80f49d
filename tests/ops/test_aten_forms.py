"""PyTorch's thin ATen forms against PyTorch (api/parsers/aten_forms.py): the ``*_copy``
functions (values, gradients, tangents, second derivatives, node names, fresh memory, out=),
unsafe_split/unsafe_chunk (shared memory without view tracking), the native norm layers'
outputs and statistics, native_dropout's mask, nonzero_static, empty_permuted, and errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import cases
import chainrule as cr
from oracle import (
    FLOATS,
    R,
    check,
    check_double_backward,
    check_fd,
    compare,
    distinct,
    randn,
    same_node,
)


def _flat(pieces):
    """Several outputs as one tensor (the pieces flattened and joined), for check."""
    return torch_or_cr(pieces).cat([p.reshape(-1) for p in pieces])


def torch_or_cr(pieces):
    return torch if isinstance(pieces[0], torch.Tensor) else cr


X = R(3, 4, 5)

# name -> (fn(lib, x), input): one output each
COPIES = {
    "alias_copy": (lambda L, x: L.alias_copy(x), X),
    "diagonal_copy": (lambda L, x: L.diagonal_copy(x, 1, 2, 1), X),
    "expand_copy": (lambda L, x: L.expand_copy(x, (2, 3, -1, 5)), R(3, 1, 5)),
    "permute_copy": (lambda L, x: L.permute_copy(x, (2, 0, -2)), X),
    "select_copy": (lambda L, x: L.select_copy(x, 1, -2), X),
    "slice_copy": (lambda L, x: L.slice_copy(x, 2, 1, 100, 2), X),
    "slice_copy_negative": (lambda L, x: L.slice_copy(x, -1, -3), X),
    "squeeze_copy": (lambda L, x: L.squeeze_copy(x), R(3, 1, 5)),
    "squeeze_copy_dim": (lambda L, x: L.squeeze_copy(x, 1), R(3, 1, 5)),
    "squeeze_copy_dims": (lambda L, x: L.squeeze_copy(x, [0, 1]), R(3, 1, 5)),
    "t_copy": (lambda L, x: L.t_copy(x), R(4, 5)),
    "t_copy_1d": (lambda L, x: L.t_copy(x), R(5)),
    "transpose_copy": (lambda L, x: L.transpose_copy(x, 0, 2), X),
    "unfold_copy": (lambda L, x: L.unfold_copy(x, 2, 2, 1), X),
    "unsqueeze_copy": (lambda L, x: L.unsqueeze_copy(x, -1), X),
    "view_copy": (lambda L, x: L.view_copy(x, (12, -1)), X),
    "view_copy_list": (lambda L, x: L.view_copy(x, [60]), X),
    "narrow_copy": (lambda L, x: L.narrow_copy(x, 1, -3, 2), X),
    "narrow_copy_method": (lambda L, x: x.narrow_copy(1, 1, 2), X),
}

# name -> (fn(lib, x) returning several tensors, input)
PIECES = {
    "split_copy": (lambda L, x: L.split_copy(x, 3, 1), X),
    "split_with_sizes_copy": (lambda L, x: L.split_with_sizes_copy(x, [1, 3], 1), X),
    "unbind_copy": (lambda L, x: L.unbind_copy(x, 1), X),
    "unsafe_split": (lambda L, x: L.unsafe_split(x, 3, 1), X),
    "unsafe_split_method": (lambda L, x: x.unsafe_split(2, -1), X),
    "unsafe_split_with_sizes": (lambda L, x: L.unsafe_split_with_sizes(x, [1, 3], 1), X),
    "unsafe_split_with_sizes_method": (lambda L, x: x.unsafe_split_with_sizes([2, 0, 1]), X),
    "unsafe_chunk": (lambda L, x: L.unsafe_chunk(x, 3, 2), X),
    "unsafe_chunk_method": (lambda L, x: x.unsafe_chunk(2), X),
}

ALL = {
    **COPIES,
    **{name: (lambda L, x, f=f: _flat(f(L, x)), x) for name, (f, x) in PIECES.items()},
}


@pytest.mark.parametrize("dtype", FLOATS, ids=["f32", "f64"])
@pytest.mark.parametrize("name", list(ALL))
def test_matches_torch(name, dtype):
    fn, x = ALL[name]
    check(fn, x, dtype=dtype)


@pytest.mark.parametrize("name", list(ALL))
def test_finite_differences(name):
    fn, x = ALL[name]
    check_fd(fn, x)


@pytest.mark.parametrize("name", list(ALL))
def test_double_backward(name):
    fn, x = ALL[name]
    check_double_backward(fn, x)


@pytest.mark.parametrize("name", list(COPIES))
def test_node_is_torchs(name):
    fn, x = COPIES[name]
    same_node(check(fn, x, dtype=np.float64, forward=False))  # (forward mode: test above)


@pytest.mark.parametrize("name", list(PIECES))
def test_pieces_nodes_are_torchs(name):
    fn, x = PIECES[name]

    def names(L):
        pieces = fn(L, L.tensor(x, requires_grad=True) * 2)
        return [(p.grad_fn.name(), p.is_contiguous(), tuple(p.shape)) for p in pieces]

    assert names(cr) == names(torch)


@pytest.mark.parametrize("name", [*COPIES, "split_copy", "unbind_copy"])
def test_copies_own_their_memory(name):
    """A copy is no view: writing into the input leaves it as it was, and it is writable."""
    fn, x = {**COPIES, **PIECES}[name]
    base = cr.tensor(x)
    out = fn(cr, base)
    pieces = out if isinstance(out, tuple) else (out,)
    before = [p.clone() for p in pieces]
    base.add_(1.0)
    for p, b in zip(pieces, before):
        assert p.is_contiguous()
        assert cr.equal(p, b)
        p.mul_(2.0)  # (its own memory, its own version counter)
        assert p._version == 1


def test_unsafe_split_shares_memory_without_view_checks():
    """As in PyTorch: the pieces see writes into the input, and may be modified in place
    even where split's views refuse it."""

    def run(L):
        x = L.tensor(randn((4, 3)), requires_grad=True)
        y = x * 1
        a, b = L.unsafe_split(y, 2)
        with torch.no_grad() if L is torch else cr.no_grad():
            y[0, 0] = 100.0
        seen = a[0, 0].item()
        a.mul_(3.0)  # (split's pieces would raise here)
        (a.sum() + b.sum()).backward()
        return seen, a._version, x.grad

    compare(run)


def test_split_views_refuse_what_unsafe_split_allows():
    for lib in (cr, torch):
        a, _ = lib.split(lib.tensor(randn((4, 3)), requires_grad=True) * 1, 2)
        with pytest.raises(RuntimeError, match="is a view and is being modified inplace"):
            a.mul_(2.0)


def test_detach_copy_has_no_derivative_as_in_torch():
    for lib in (cr, torch):
        x = lib.tensor(randn((2, 3)), requires_grad=True)
        y = lib.detach_copy(x * 2)
        assert y.requires_grad and y.grad_fn.name().endswith("NotImplemented")
        np.testing.assert_array_equal(y.detach().cpu().numpy(force=True), 2 * randn((2, 3)))
        with pytest.raises(RuntimeError, match="derivative for aten::detach_copy is not"):
            y.sum().backward()


def test_out_writes_the_copy():
    def run(L):
        x = L.tensor(R(3, 4))
        outs = [L.empty(0, dtype=x.dtype) for _ in range(4)]
        L.t_copy(x, out=outs[0])
        L.view_copy(x, (4, 3), out=outs[1])
        L.expand_copy(x[:1], (2, 3, 4), out=outs[2])
        L.narrow_copy(x, 1, 1, 2, out=outs[3])
        return outs

    compare(run)


def test_view_copy_to_a_dtype():
    compare(lambda L: L.view_copy(L.tensor(R(3, 4), dtype=L.float32), L.int32))


# ----- native norm layers, dropout ----------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS, ids=["f32", "f64"])
@pytest.mark.parametrize("affine", [True, False])
def test_native_layer_norm(dtype, affine):
    w, b = (R(4).astype(dtype), R(4, seed=1).astype(dtype)) if affine else (None, None)

    def run(L, norm_shape=(4,)):
        x = L.tensor(R(2, 3, 4).astype(dtype), requires_grad=True)
        ws = [None if a is None else L.tensor(a, requires_grad=True) for a in (w, b)]
        out, mean, rstd = L.native_layer_norm(x, norm_shape, *ws, 1e-5)
        out.backward(L.tensor(R(2, 3, 4, seed=2).astype(dtype)))
        grads = [t.grad for t in (x, *ws) if t is not None]
        return out, mean, rstd, mean.requires_grad, out.grad_fn.name(), grads

    compare(run, rtol=1e-5, atol=1e-5)
    if not affine:
        compare(lambda L: run(L, [3, 4]), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("training", [True, False])
def test_native_batch_norm(training):
    def run(L):
        x = L.tensor(R(4, 3, 5), requires_grad=True)
        w, b = (L.tensor(R(3, seed=s), requires_grad=True) for s in (1, 2))
        rm, rv = L.zeros(3, dtype=x.dtype), L.ones(3, dtype=x.dtype)
        out, mean, invstd = L.native_batch_norm(x, w, b, rm, rv, training, 0.1, 1e-5)
        out.backward(L.tensor(R(4, 3, 5, seed=3)))
        return out, mean, invstd, rm, rv, out.grad_fn.name(), x.grad, w.grad, b.grad

    compare(run, rtol=1e-9, atol=1e-10)


def test_native_batch_norm_without_parameters():
    def run(L):
        x = L.tensor(R(4, 3, 2, 2))
        return L.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-3)

    compare(run, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("groups", [1, 3])
def test_native_group_norm(groups):
    def run(L):
        x = L.tensor(R(4, 3, 5), requires_grad=True)
        w, b = (L.tensor(R(3, seed=s), requires_grad=True) for s in (1, 2))
        out, mean, rstd = L.native_group_norm(x, w, b, 4, 3, 5, groups, 1e-5)
        out.backward(L.tensor(R(4, 3, 5, seed=3)))
        # (mean and rstd: PyTorch's require grad, chainrule's do not; the values match)
        return out, mean.detach(), rstd.detach(), out.grad_fn.name(), x.grad, w.grad, b.grad

    compare(run, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
def test_native_dropout_output_is_input_times_scaled_mask(p):
    cr.manual_seed(0)
    x = cr.tensor(R(50, 40), requires_grad=True)
    out, mask = cr.native_dropout(x, p, True)
    assert mask.dtype == cr.bool and out.grad_fn.name() == "NativeDropoutBackward0"
    scale = 0.0 if p == 1 else 1 / (1 - p)
    np.testing.assert_allclose(
        out.detach().numpy(force=True),
        x.detach().numpy(force=True) * mask.numpy(force=True) * scale,
    )
    kept = mask.numpy(force=True).mean()
    assert abs(kept - (1 - p)) < 0.05
    out.backward(cr.ones_like(out))
    np.testing.assert_allclose(x.grad.numpy(force=True), mask.numpy(force=True) * scale)


def test_native_dropout_out_of_training_as_torch():
    def run(L):
        x = L.tensor(R(3, 4), requires_grad=True)
        out, mask = L.native_dropout(x, 0.5, False)
        out.backward(L.tensor(R(3, 4, seed=1)))
        return out, mask, out.grad_fn.name(), x.grad

    compare(run)


# ----- nonzero_static, empty_permuted ---------------------------------------------------------


@pytest.mark.parametrize(
    "values, size, fill",
    [
        ([[0, 1], [2, 0]], 3, -1),
        ([[0, 1], [2, 0]], 1, 7),
        ([0.0, 1.0, 3.0], 4, -1),
        ([[0, 0]], 2, 5),
        (2.0, 2, -1),
    ],
    ids=str,
)
def test_nonzero_static(values, size, fill):
    compare(lambda L: L.nonzero_static(L.tensor(values), size=size, fill_value=fill))
    compare(lambda L: L.tensor(values).nonzero_static(size=size))


@pytest.mark.parametrize("layout", [(2, 0, 1), (0, 1, 2), (1, 2, 0)], ids=str)
def test_empty_permuted_strides(layout):
    def run(L):
        e = L.empty_permuted((2, 3, 4), layout, dtype=L.float64)
        return tuple(e.shape), e.stride(), e.dtype == L.float64

    assert run(cr) == run(torch)


ERRORS = {
    "permute_copy_dims": (lambda L, x: L.permute_copy(x, (0, 1)), [X]),
    "permute_copy_repeat": (lambda L, x: L.permute_copy(x, (0, 1, 1)), [X]),
    "select_copy_range": (lambda L, x: L.select_copy(x, 1, 4), [X]),
    "expand_copy_size": (lambda L, x: L.expand_copy(x, (3, 2, 5)), [X]),
    "t_copy_3d": (lambda L, x: L.t_copy(x), [X]),
    "view_copy_size": (lambda L, x: L.view_copy(x, (7, -1)), [X]),
    "narrow_copy_long": (lambda L, x: L.narrow_copy(x, 1, 2, 3), [X]),
    "split_copy_negative": (lambda L, x: L.split_copy(x, -1), [X]),
    "split_with_sizes_copy_sum": (lambda L, x: L.split_with_sizes_copy(x, [1, 2], 1), [X]),
    "unbind_copy_0d": (lambda L, x: L.unbind_copy(x), [np.float64(1.0)]),
    "unfold_copy_size": (lambda L, x: L.unfold_copy(x, 0, 4, 1), [X]),
    "unsafe_split_list": (lambda L, x: L.unsafe_split(x, [1, 3], 1), [X]),
    "unsafe_chunk_zero": (lambda L, x: L.unsafe_chunk(x, 0), [X]),
    "diagonal_copy_dims": (lambda L, x: L.diagonal_copy(x, 0, 1, 1), [X]),
    "layer_norm_shape": (lambda L, x: L.native_layer_norm(x, [4], None, None, 1e-5), [X]),
    "embedding_bag_mode": (
        lambda L, w: L.embedding_bag(w, L.tensor([1, 2]), L.tensor([0]), False, 3),
        [R(4, 3)],
    ),
    "conv_tbc_channels": (lambda L, x, w, b: L.conv_tbc(x, w, b), [R(5, 2, 3), R(2, 4, 5), R(5)]),
    "group_norm_channels": (
        lambda L, x: L.native_group_norm(x, None, None, 3, 4, 5, 3, 1e-5),
        [X],
    ),
}

test_errors_match_torch = cases.same_errors_as_torch(ERRORS)


# ----- the functional recurrent kernels ------------------------------------------------------


def _flat_weights(L, gates, inputs, hidden, layers, directions, bias=True, proj=0):
    """PyTorch's flat weight list: per layer and direction w_ih, w_hh[, b_ih, b_hh][, w_hr]."""
    out, seed = [], 10
    for layer in range(layers):
        for _ in range(directions):
            width = inputs if layer == 0 else (proj or hidden) * directions
            shapes = [(gates * hidden, width), (gates * hidden, proj or hidden)]
            shapes += [(gates * hidden,)] * 2 if bias else []
            shapes += [(proj, hidden)] if proj else []
            for shape in shapes:
                out.append(L.tensor(randn(shape, seed) * 0.4, requires_grad=True))
                seed += 1
    return out


RECURRENT = {  # name -> (kind, gates, layers, directions, bias, batch_first, proj)
    "rnn_tanh": ("rnn_tanh", 1, 1, 1, True, False, 0),
    "rnn_tanh_deep_bidirectional": ("rnn_tanh", 1, 2, 2, True, False, 0),
    "rnn_relu_batch_first": ("rnn_relu", 1, 2, 1, False, True, 0),
    "gru": ("gru", 3, 1, 1, True, False, 0),
    "gru_deep_bidirectional": ("gru", 3, 2, 2, True, True, 0),
    "lstm": ("lstm", 4, 1, 1, True, False, 0),
    "lstm_deep_bidirectional": ("lstm", 4, 2, 2, True, True, 0),
    "lstm_no_bias": ("lstm", 4, 2, 1, False, False, 0),
    "lstm_projected": ("lstm", 4, 1, 2, True, False, 4),
}


@pytest.mark.parametrize("name", list(RECURRENT))
def test_recurrent_kernels_match_torch(name):
    kind, gates, layers, dirs, bias, batch_first, proj = RECURRENT[name]
    T, B, I, H = 4, 3, 5, 6

    def run(L):
        x = L.tensor(randn((B, T, I) if batch_first else (T, B, I), 1), requires_grad=True)
        h0 = L.tensor(randn((layers * dirs, B, proj or H), 2), requires_grad=True)
        hx = h0
        leaves = [x, h0]
        if kind == "lstm":
            c0 = L.tensor(randn((layers * dirs, B, H), 3), requires_grad=True)
            hx, leaves = (h0, c0), leaves + [c0]
        params = _flat_weights(L, gates, I, H, layers, dirs, bias, proj)
        outs = getattr(L, kind)(x, hx, params, bias, layers, 0.0, False, dirs == 2, batch_first)
        total = sum((o * L.tensor(randn(tuple(o.shape), 4))).sum() for o in outs)
        return outs, L.autograd.grad(total, leaves + params)

    compare(run, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("kind", ["rnn_tanh_cell", "rnn_relu_cell", "gru_cell", "lstm_cell"])
@pytest.mark.parametrize("bias", [True, False])
def test_recurrent_cells_match_torch(kind, bias):
    gates = {"rnn_tanh_cell": 1, "rnn_relu_cell": 1, "gru_cell": 3, "lstm_cell": 4}[kind]

    def run(L):
        x, h, c = (
            L.tensor(randn(s, k), requires_grad=True)
            for k, s in enumerate([(3, 5), (3, 6), (3, 6)])
        )
        ws = [L.tensor(randn(s, 5 + k) * 0.4, requires_grad=True)
              for k, s in enumerate([(gates * 6, 5), (gates * 6, 6), (gates * 6,), (gates * 6,)])]  # fmt: skip
        ws = ws if bias else ws[:2]
        hx = (h, c) if kind == "lstm_cell" else h
        out = getattr(L, kind)(x, hx, *ws)
        outs = out if isinstance(out, tuple) else (out,)
        total = sum((o * L.tensor(randn(tuple(o.shape), 9))).sum() for o in outs)
        leaves = [x, h, c] if kind == "lstm_cell" else [x, h]
        return outs, L.autograd.grad(total, leaves + ws)

    compare(run, rtol=1e-9, atol=1e-10)


def test_recurrent_dropout_between_layers_in_training():
    """dropout applies between layers only in training: out of training, p has no effect."""

    def run(L, p, train):
        x = L.tensor(randn((4, 3, 5), 1))
        params = _flat_weights(L, 3, 5, 6, 2, 1)
        return L.gru(x, L.zeros(2, 3, 6, dtype=x.dtype), params, True, 2, p, train, False, False)

    compare(lambda L: run(L, 0.7, False), rtol=1e-9, atol=1e-10)
    cr.manual_seed(0)
    dropped = run(cr, 1.0, True)[0]  # every element between the layers dropped
    alone = run(cr, 0.0, True)[0]
    assert not cr.allclose(dropped, alone)


# ----- conv_tbc, embedding_bag -----------------------------------------------------------------


@pytest.mark.parametrize("pad", [0, 1, 2])
@pytest.mark.parametrize("dtype", FLOATS, ids=["f32", "f64"])
def test_conv_tbc(dtype, pad):
    # (chainrule's node is PermuteBackward0, PyTorch's ConvTbcBackward0: values compared)
    fn = lambda L, x, w, b: L.conv_tbc(x, w, b, pad)  # noqa: E731
    # torch has no forward mode for conv_tbc (chainrule's composition has one)
    check(fn, R(7, 2, 4), R(3, 4, 5), R(5), dtype=dtype, forward=False)


BAG_INDICES = np.array([1, 2, 4, 5, 4, 3, 2, 9])
BAG_OFFSETS = np.array([0, 3, 3, 6])


# (include_last_offset in float64 only: PyTorch's float32 fast path reads it differently)
BAG_CASES = [
    (dtype, mode, last, padding_idx)
    for dtype in FLOATS
    for mode in (0, 1, 2)
    for last in ([False, True] if dtype == np.float64 else [False])
    for padding_idx in (None, 4)
]


@pytest.mark.parametrize(
    "dtype, mode, last, padding_idx",
    BAG_CASES,
    ids=[f"{np.dtype(d).name}-{m}-{la}-{p}" for d, m, la, p in BAG_CASES],
)
def test_embedding_bag(dtype, mode, last, padding_idx):
    def run(L):
        w = L.tensor(distinct((10, 3)).astype(dtype), requires_grad=True)
        idx, off = L.tensor(BAG_INDICES), L.tensor(BAG_OFFSETS)
        out = L.embedding_bag(w, idx, off, False, mode, False, None, last, padding_idx)
        out[0].backward(L.tensor(randn(tuple(out[0].shape), 3).astype(dtype)))
        return (*out, out[0].grad_fn.name(), w.grad)

    compare(run, rtol=1e-5, atol=1e-6)


def test_embedding_bag_per_sample_weights():
    def run(L):
        w = L.tensor(R(10, 3), requires_grad=True)
        psw = L.tensor(np.linspace(0.1, 0.8, 8), requires_grad=True)
        out = L.embedding_bag(w, L.tensor(BAG_INDICES), L.tensor(BAG_OFFSETS), False, 0, False, psw)
        out[0].backward(L.tensor(randn(tuple(out[0].shape), 3)))
        return (*out, w.grad, psw.grad)

    compare(run, rtol=1e-9, atol=1e-10)


def test_conv_tbc_in_functional():
    fn = lambda L, x, w, b: L.nn.functional.conv_tbc(x, w, b, 1)  # noqa: E731
    # torch has no forward mode for conv_tbc (chainrule's composition has one)
    check(fn, R(6, 2, 3), R(2, 3, 4), R(4), dtype=np.float64, forward=False)


# ----- segment_reduce ----------------------------------------------------------------------------

SEGMENT_DATA = distinct((6, 3))
SEGMENTS = {  # name -> (reduce, keyword arguments of the segments, initial)
    "sum": ("sum", {"lengths": np.array([2, 0, 3, 1])}, None),
    "sum_offsets_initial": ("sum", {"offsets": np.array([0, 2, 2, 5, 6])}, 1.5),
    "mean": ("mean", {"lengths": np.array([2, 1, 3])}, None),
    "mean_initial": ("mean", {"lengths": np.array([2, 0, 3, 1])}, 2.0),
    "max": ("max", {"lengths": np.array([2, 1, 3])}, None),
    "amax_initial": ("amax", {"lengths": np.array([2, 0, 3, 1])}, 0.5),
    "min": ("min", {"offsets": np.array([0, 4, 6])}, None),
    "prod": ("prod", {"lengths": np.array([2, 1, 3])}, None),
    "prod_initial": ("prod", {"lengths": np.array([3, 0, 3])}, -2.0),
}


def _segment_fn(name):
    reduce, segments, initial = SEGMENTS[name]

    def fn(L, x):
        kw = {k: L.tensor(v) for k, v in segments.items()}
        return L.segment_reduce(x, reduce, **kw, initial=initial)

    return fn


@pytest.mark.parametrize("dtype", FLOATS, ids=["f32", "f64"])
@pytest.mark.parametrize("name", list(SEGMENTS))
def test_segment_reduce(name, dtype):
    # torch has no forward mode for segment_reduce (chainrule's raises its error too)
    same_node(check(_segment_fn(name), SEGMENT_DATA, dtype=dtype, forward=False))


@pytest.mark.parametrize("name", [n for n in SEGMENTS if not n.startswith(("max", "amax", "min"))])
def test_segment_reduce_finite_differences(name):
    # (PyTorch has no second derivative here: its backward raises; chainrule's VJPs are ops)
    check_fd(_segment_fn(name), SEGMENT_DATA)


def test_segment_reduce_ties_and_zeros_as_torch():
    def run(L):
        ties = L.tensor([[1.0, 2.0], [1.0, 4.0], [1.0, 3.0]], requires_grad=True)
        zeros = L.tensor([[0.0, 2.0, 5.0], [3.0, 0.0, 2.0], [0.0, 4.0, 3.0]], requires_grad=True)
        one = L.tensor([3])
        a = L.segment_reduce(ties, "max", lengths=one)
        b = L.segment_reduce(zeros, "prod", lengths=one)
        ga = L.autograd.grad(a.sum(), ties)
        gb = L.autograd.grad((b * L.tensor([1.0, 2.0, 3.0])).sum(), zeros)
        return a, b, ga, gb, L.segment_reduce(ties, "sum", lengths=L.tensor([1, 1]), unsafe=True)

    compare(run)


SEGMENT_ERRORS = {
    "lengths_sum": (
        lambda L, x: L.segment_reduce(x, "sum", lengths=L.tensor([2, 2])),
        [SEGMENT_DATA],
    ),
    "reduce_name": (lambda L, x: L.segment_reduce(x, "avg", lengths=L.tensor([6])), [SEGMENT_DATA]),
    "no_segments": (lambda L, x: L.segment_reduce(x, "sum"), [SEGMENT_DATA]),
}

test_segment_errors_match_torch = cases.same_errors_as_torch(SEGMENT_ERRORS)
