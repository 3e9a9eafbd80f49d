"""What the VJPs of one node compute alike, computed once (autograd/sharing.py): a helper
wrapped in ``shared`` runs once per node of an op defined with ``shares=True`` for the same
arguments, and as often as it is called anywhere else; its results are dropped when the
node is done. The ops that share (layer, batch and group norm, attention, the recurrent
layers) compute each shared value once per backward, with PyTorch's gradients."""

from __future__ import annotations

import threading
import weakref

import numpy as np
import pytest

import chainrule as cr
from chainrule.autograd import sharing
from chainrule.ops import attention, norm_arrays, norm_layers, recurrent
from oracle import check, randn

CALLS: list = []


def _counted(fn):
    def counting(*args):
        CALLS.append(args)
        return fn(*args)

    return counting


def _count_calls(monkeypatch, module, name, fn):
    CALLS.clear()
    monkeypatch.setattr(module, name, sharing.shared(_counted(fn)))


@sharing.shared
def _square(x, axes):
    CALLS.append(axes)
    return x * x


def _layer_norm_grads(create_graph: bool = False) -> tuple:
    x = cr.tensor(randn((4, 5, 6), seed=1), requires_grad=True)
    w = cr.tensor(randn((6,), seed=2), requires_grad=True)
    y = cr.nn.functional.layer_norm(x, (6,), w)
    return cr.autograd.grad((y * y * y).sum(), (x, w), create_graph=create_graph)


# what layer_norm's VJPs share: on arrays the rows' sums (its forward kept the rows'
# statistics), with create_graph x̂ (with ops)
_LN_SHARED = {
    False: (norm_arrays, "row_sums", norm_arrays.row_sums.__wrapped__),
    True: (norm_layers, "_normalized_once", norm_layers.normalized),
}


@pytest.mark.parametrize("create_graph", [False, True], ids=["arrays", "create_graph"])
def test_a_shared_helper_runs_once_per_node(monkeypatch, create_graph):
    """What layer_norm's VJPs of x and of the weight share: once with shares=True, once per
    VJP without (the op's plans rebuilt), the same gradients either way."""
    _count_calls(monkeypatch, *_LN_SHARED[create_graph])
    shared = _layer_norm_grads(create_graph)
    assert len(CALLS) == 1
    op = norm_layers.layer_norm
    monkeypatch.setattr(op, "shares", False)
    monkeypatch.setattr(op, "_plans", [None] * len(op._plans))
    CALLS.clear()
    apart = _layer_norm_grads(create_graph)
    assert len(CALLS) == 2
    for a, b in zip(shared, apart):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    # outside a node's VJPs (a forward, a plain call) a shared helper runs every time
    CALLS.clear()
    a = np.ones(3)
    _square(a, (0,))
    _square(a, (0,))
    assert len(CALLS) == 2


def test_arguments_are_the_same_objects_or_equal_tuples_of_numbers():
    a, b = np.ones(3), np.ones(3)
    previous = sharing.open_memo()
    try:
        CALLS.clear()
        first = _square(a, (0, 1))
        assert _square(a, (0, 1)) is first  # (a tuple of numbers built afresh: by value)
        assert _square(b, (0, 1)) is not first  # (an equal array, another object)
        assert _square(a, (1,)) is not first
        assert _square(a, (a,)) is not _square(a, (b,))  # (a tuple of arrays: by identity)
        assert len(CALLS) == 5
    finally:
        sharing.close_memo(previous)


def test_the_results_are_dropped_when_the_node_is_done(monkeypatch):
    kept = []

    plain = norm_arrays.row_sums.__wrapped__

    def row_sums(*args):
        out = plain(*args)
        kept.append(weakref.ref(out[0]))
        return out

    monkeypatch.setattr(norm_arrays, "row_sums", sharing.shared(row_sums))
    _layer_norm_grads()
    assert len(kept) == 1 and kept[0]() is None  # (nothing holds x - mean after backward)
    assert getattr(sharing._local, "memo", None) is None


def test_a_backward_inside_a_vjp_keeps_its_own_results(monkeypatch):
    """A custom Function whose backward runs another backward through a sharing node, itself
    under a sharing node: each node's results are its own, the outer ones restored after."""
    _count_calls(monkeypatch, *_LN_SHARED[False])

    class Inner(cr.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            with cr.enable_grad():
                gx, gw = _layer_norm_grads()  # (a layer norm's backward of its own)
            return g * (gx * gx).sum()

    def layer_norm_of_inner(lib, inner):
        x = cr.tensor(randn((3, 6), seed=3), requires_grad=True)
        w = cr.tensor(randn((6,), seed=4), requires_grad=True)
        y = cr.nn.functional.layer_norm(inner(x), (6,), w)
        y.pow(3).sum().backward()
        return x.grad, w.grad

    got = layer_norm_of_inner(cr, Inner.apply)
    assert len(CALLS) == 2  # (the outer node's x̂ and the inner one's, each once)
    want = layer_norm_of_inner(cr, lambda x: x)
    factor = (_layer_norm_grads()[0] ** 2).sum().item()
    np.testing.assert_allclose(got[0].numpy(), want[0].numpy() * factor, rtol=1e-12)
    np.testing.assert_allclose(got[1].numpy(), want[1].numpy(), rtol=1e-12)
    assert getattr(sharing._local, "memo", None) is None


def test_threads_keep_their_own_results():
    errors = []

    def work():
        try:
            for _ in range(20):
                x = cr.tensor(randn((4, 6), seed=1), requires_grad=True)
                w = cr.tensor(randn((6,), seed=2), requires_grad=True)
                cr.nn.functional.layer_norm(x, (6,), w).pow(2).sum().backward()
                assert x.grad is not None and w.grad is not None
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


# ----- the ops that share -------------------------------------------------------------------


@pytest.mark.parametrize("weight", [True, False], ids=["weight", "no_weight"])
def test_layer_norm_normalizes_once_per_backward(monkeypatch, weight):
    _count_calls(monkeypatch, *_LN_SHARED[False])
    x = randn((4, 5, 6), seed=3)
    w = randn((6,), seed=4) if weight else None
    # (forward=False: forward mode calls the helper on its own, and the count is backward's)
    check(lambda L, x, w: L.nn.functional.layer_norm(x, (6,), w), x, w, forward=False)
    assert len(CALLS) == 1  # (chainrule's backward: x's and the weight's gradients)


def test_batch_and_group_norm_normalize_once_per_backward(monkeypatch):
    # (batch norm on arrays in training: the sums its x and weight gradients share)
    plain = norm_arrays.batch_sums.__wrapped__
    _count_calls(monkeypatch, norm_arrays, "batch_sums", plain)
    x, w, b = randn((4, 3, 5), seed=5), randn((3,), seed=6), randn((3,), seed=7)
    # (forward=False: forward mode calls the helper on its own, and the count is backward's)
    check(
        lambda L, x, w, b: L.nn.functional.batch_norm(x, None, None, w, b, True),
        x,
        w,
        b,
        forward=False,
    )
    assert len(CALLS) == 1
    _count_calls(
        monkeypatch, norm_arrays, "group_channel_sums", norm_arrays.group_channel_sums.__wrapped__
    )
    x = randn((2, 4, 5), seed=8)
    w, b = randn((4,), seed=9), randn((4,), seed=10)
    check(
        lambda L, x, w, b: L.nn.functional.group_norm(x, 2, w, b), x, w, b, forward=False
    )  # (as above)
    assert len(CALLS) == 1


@pytest.mark.parametrize("create_graph", [False, True], ids=["arrays", "create_graph"])
def test_attention_computes_its_probabilities_once_per_backward(monkeypatch, create_graph):
    """On arrays backward reads the forward's P (kept as a parameter): none computed; with
    create_graph P is computed with ops, once for the VJPs of q, k, v and the mask."""
    _count_calls(monkeypatch, attention, "_probabilities_once", attention._probabilities)
    q, k, v = (
        cr.tensor(randn(s, seed=9 + i), requires_grad=True)
        for i, s in enumerate([(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)])
    )
    mask = cr.tensor(randn((4, 5), seed=12), requires_grad=True)
    out = cr.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    grads = cr.autograd.grad(out.pow(2).sum(), (q, k, v, mask), create_graph=create_graph)
    assert len(CALLS) == (1 if create_graph else 0)
    check(
        lambda L, q, k, v, m: L.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m),
        *(t.detach().numpy() for t in (q, k, v, mask)),
    )
    assert all(g is not None for g in grads)


@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
def test_recurrent_layers_go_back_through_time_once(monkeypatch, cls):
    name = {"LSTM": "_through_time", "GRU": "_gru_through_time", "RNN": "_rnn_through_time"}
    plain = getattr(recurrent, name[cls]).__wrapped__
    _count_calls(monkeypatch, recurrent, name[cls], plain)
    cr.manual_seed(0)
    layer = getattr(cr.nn, cls)(3, 4)
    x = cr.tensor(randn((5, 2, 3), seed=11).astype(np.float32), requires_grad=True)
    out, _ = layer(x)
    out.pow(2).sum().backward()
    assert len(CALLS) == 1
    # the two biases of an LSTM get equal gradients, each its own array
    if cls == "LSTM":
        b_ih, b_hh = layer.bias_ih_l0.grad, layer.bias_hh_l0.grad
        np.testing.assert_array_equal(b_ih.numpy(), b_hh.numpy())
        assert not np.shares_memory(b_ih.numpy(), b_hh.numpy())


def test_attention_keeps_a_large_p_for_backward_only_up_to_a_size(monkeypatch):
    """Above KEEP_AT_MOST entries P is not kept from forward to backward: it is computed
    again there (once), with the same gradients."""
    q, k, v = (randn((2, 3, 4, 8), seed=20 + i) for i in range(3))
    grads = []
    for limit, calls in ((1 << 22, 0), (2 * 3 * 4 * 4 - 1, 1)):
        monkeypatch.setattr(attention, "KEEP_AT_MOST", limit)
        _count_calls(monkeypatch, attention, "_probabilities_once", attention._probabilities)
        ts = [cr.tensor(a, requires_grad=True) for a in (q, k, v)]
        cr.nn.functional.scaled_dot_product_attention(*ts).pow(2).sum().backward()
        assert len(CALLS) == calls
        grads.append([t.grad.numpy() for t in ts])
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)
