"""nn.RNN, nn.LSTM, nn.GRU and their cells side by side with torch.nn, the same weights
loaded into both: outputs, final states, gradients of the input, of the initial states and
of every parameter, node names, in float32 and float64; layers, directions, batch_first,
proj_size, unbatched and packed input, dropout; reprs, state_dict keys, initialisation by
statistics, PyTorch's errors. The fused LSTM cell op against PyTorch's composition of it:
values, gradients, tangents, finite differences, second derivatives."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from chainrule.ops.recurrent import gru_layer, last_state, lstm_cell, lstm_layer, rnn_layer
from oracle import (
    DT_IDS,
    FLOATS,
    assert_close,
    assert_same_error,
    check,
    check_double_backward,
    check_fd,
    randn,
)

TOL = {np.float32: (2e-4, 2e-5), np.float64: (1e-9, 1e-11)}


def build(lib, cls: str, args: tuple, kwargs: dict, dtype=np.float64):
    """The module on ``lib`` with torch's weights (a fixed seed), in ``dtype``."""
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dropout with one layer, proj_size and oneDNN
        ref = getattr(torch.nn, cls)(*args, **kwargs).to(torch.from_numpy(np.zeros(0, dtype)).dtype)
        if lib is torch:
            return ref
        mod = getattr(cr.nn, cls)(*args, **kwargs)
    mod = mod.double() if dtype == np.float64 else mod.float()
    state = {k: cr.tensor(v.detach().numpy().copy()) for k, v in ref.state_dict().items()}
    mod.load_state_dict(state)
    return mod


def tensor(lib, a: np.ndarray, requires_grad: bool = True):
    return lib.tensor(a.copy(), requires_grad=requires_grad)


def node(t) -> str | None:
    return None if t.grad_fn is None else t.grad_fn.name()


# ----- the fused LSTM cell op ------------------------------------------------------------


def _cell(lib, gates, state):
    """[h', c'] from the gates and the last H columns of state: the op on chainrule, the
    composition of PyTorch's ops on torch."""
    if lib is cr:
        return lstm_cell(gates, state)
    n = gates.shape[-1] // 4
    i, f, g, o = gates.chunk(4, -1)
    c = f.sigmoid() * state[..., -n:] + i.sigmoid() * g.tanh()
    return torch.cat([o.sigmoid() * c.tanh(), c], -1)


CELL_CASES = {
    "state_is_c": (randn((3, 8)), randn((3, 2), seed=1)),
    "state_is_hc": (randn((3, 8)), randn((3, 4), seed=1)),
    "unbatched": (randn((8,)), randn((2,), seed=1)),
    "wide_state": (randn((2, 12)), randn((2, 7), seed=1)),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("case", list(CELL_CASES))
def test_lstm_cell_op(case, dtype):
    res = check(_cell, *CELL_CASES[case], dtype=dtype)
    assert res.cr_out.grad_fn.name() == "ThnnFusedLstmCellBackward0"


@pytest.mark.parametrize("case", list(CELL_CASES))
def test_lstm_cell_op_fd(case):
    check_fd(_cell, *CELL_CASES[case])


@pytest.mark.parametrize("case", ["state_is_c", "state_is_hc"])
def test_lstm_cell_op_double_backward(case):
    check_double_backward(_cell, *CELL_CASES[case])


def _layer(lib, x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse=False):
    """h_t, c_t, the gates [i, f, o, g] (gate-major per step, (T, 4, B, H)) and tanh(c_t) for
    every step (in time order; ``reverse`` runs the recurrence from the last step): the
    whole-layer op on chainrule, the steps composed of PyTorch's ops on torch."""
    if lib is cr:
        return lstm_layer(x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse=reverse)
    h, c, ys = h0, c0, {}
    steps = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
    for t in steps:
        i, f, g, o = (x[t] @ w_ih.T + b_ih + b_hh + h @ w_hh.T).chunk(4, -1)
        i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
        c = f * c + i * g
        tc = c.tanh()
        h = o * tc
        ys[t] = (h, c, torch.stack([i, f, o, g]), tc)
    return tuple(torch.stack(y) for y in zip(*[ys[t] for t in range(x.shape[0])]))


def _layer_all(lib, *inputs, reverse=False):
    """The layer's four outputs joined: a gradient reaches every one."""
    return lib.cat([out.reshape(-1) for out in _layer(lib, *inputs, reverse=reverse)])


def _layer_h(lib, *inputs, reverse=False):
    """Only the hidden states: the others get no gradient (None in the op's VJPs)."""
    return _layer(lib, *inputs, reverse=reverse)[0]


def _layer_c_n(lib, *inputs, reverse=False):
    """Only the last cell state, as nn.LSTM's c_n reads it."""
    return _layer(lib, *inputs, reverse=reverse)[1][0 if reverse else -1]


def _reversed(fn):
    def run(lib, *inputs):
        return fn(lib, *inputs, reverse=True)

    return run


LAYER_FNS = {
    "all": _layer_all,
    "h": _layer_h,
    "c_n": _layer_c_n,
    "all_reverse": _reversed(_layer_all),
    "c_n_reverse": _reversed(_layer_c_n),
}


def _layer_case(steps: int, batch: int, inputs: int, hidden: int) -> tuple:
    """x, W_ih, W_hh, b_ih, b_hh, h0, c0"""
    shapes = [
        (steps, batch, inputs),
        (4 * hidden, inputs),
        (4 * hidden, hidden),
        (4 * hidden,),
        (4 * hidden,),
        (batch, hidden),
        (batch, hidden),
    ]
    return tuple(randn(s, seed=i) for i, s in enumerate(shapes))


LAYER_CASES = {
    "t4_b2_i2_h3": _layer_case(4, 2, 2, 3),
    "t1_b3_i3_h2": _layer_case(1, 3, 3, 2),
    "t3_b1_i1_h4": _layer_case(3, 1, 1, 4),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("case", list(LAYER_CASES))
@pytest.mark.parametrize("outputs", list(LAYER_FNS))
def test_lstm_layer_op(outputs, case, dtype):
    check(LAYER_FNS[outputs], *LAYER_CASES[case], dtype=dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_lstm_layer_op_node(dtype):
    """One node for the four outputs, named as PyTorch names the node its LSTM output
    comes from: oneDNN's fused layer in float32, the stack of the steps in float64."""
    inputs = [cr.tensor(a.astype(dtype), requires_grad=True) for a in LAYER_CASES["t4_b2_i2_h3"]]
    outs = lstm_layer(*inputs)
    name = "MkldnnRnnLayerBackward0" if dtype == np.float32 else "StackBackward0"
    assert [o.grad_fn.name() for o in outs] == [name] * 4
    assert len({id(o.grad_fn) for o in outs}) == 1
    assert [o._output_nr for o in outs] == [0, 1, 2, 3]


@pytest.mark.parametrize("outputs", list(LAYER_FNS))
@pytest.mark.parametrize("case", ["t4_b2_i2_h3", "t1_b3_i3_h2"])
def test_lstm_layer_op_fd(case, outputs):
    check_fd(LAYER_FNS[outputs], *LAYER_CASES[case])


@pytest.mark.parametrize("outputs", list(LAYER_FNS))
def test_lstm_layer_op_double_backward(outputs):
    check_double_backward(LAYER_FNS[outputs], *LAYER_CASES["t4_b2_i2_h3"])


@pytest.mark.parametrize("steps", [1, 2, 5])
@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_lstm_layer_array_pass_matches_composed(dtype, reverse, steps):
    """The pass through time on arrays (a plain backward: preallocated, in place; the step
    backward reaches first carries nothing in, the product giving d/dh0 is left to h0's
    VJP) gives what the same formulas composed of chainrule's ops give (create_graph), with
    a gradient reaching every output, and both match PyTorch's."""
    arrays = [a.astype(dtype) for a in _layer_case(steps, 3, 2, 4)]
    weights = [
        randn(s, seed=20 + k).astype(dtype)
        for k, s in enumerate([(steps, 3, 4), (steps, 3, 4), (steps, 4, 3, 4), (steps, 3, 4)])
    ]

    def grads(lib, create_graph):
        ts = [lib.tensor(a, requires_grad=True) for a in arrays]
        outs = _layer(lib, *ts, reverse=reverse)
        loss = sum((o * lib.tensor(w)).sum() for o, w in zip(outs, weights))
        gs = lib.autograd.grad(loss, ts, create_graph=create_graph)
        return [g.detach().numpy() for g in gs]

    plain, composed, theirs = grads(cr, False), grads(cr, True), grads(torch, False)
    tol = TOL[dtype]
    for a, b, c in zip(plain, composed, theirs):
        np.testing.assert_allclose(a, b, rtol=tol[0], atol=tol[1])
        np.testing.assert_allclose(a, c, rtol=tol[0], atol=tol[1])


def _last(lib, x, reverse=False):
    """The step a layer's recurrence ran last, stacked (its h_n for one layer and direction):
    the op on chainrule, PyTorch's stack of the selected step on torch."""
    if lib is cr:
        return last_state(x, reverse=reverse)
    return torch.stack([x[0 if reverse else -1]], 0)


@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_last_state_op(dtype, reverse):
    """last_state against PyTorch's stack of the last step: values, gradients, tangents, the
    node's name; against chainrule's own select and stack (the general path of h_n): values,
    gradients and name; finite differences and second derivatives."""
    x = randn((4, 3, 2))
    res = check(_last, x, reverse, dtype=dtype)
    assert res.cr_out.grad_fn.name() == "StackBackward0"
    a, b = (cr.tensor(x.astype(dtype), requires_grad=True) for _ in range(2))
    ours, general = last_state(a, reverse=reverse), cr.stack([b[0 if reverse else -1]], 0)
    g = cr.tensor(randn((1, 3, 2), seed=3).astype(dtype))
    ours.backward(g)
    general.backward(g)
    np.testing.assert_array_equal(ours.detach().numpy(), general.detach().numpy())
    np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())
    assert ours.grad_fn.name() == general.grad_fn.name()
    check_fd(_last, x, reverse)
    check_double_backward(_last, x, reverse)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
def test_default_state_is_zeros(cls, dtype):
    """No initial state given: the layers' zeros (wrapped as they are on the host) give what
    an explicit zero state made by chainrule.zeros gives: outputs, final states, gradients."""
    x = randn((4, 2, 3)).astype(dtype)

    def run(hx):
        mod = build(cr, cls, (3, 5), {"num_layers": 2}, dtype)
        out, hidden = mod(cr.tensor(x), hx)
        hidden = hidden if cls == "LSTM" else (hidden,)
        (out.sum() + sum(h.sum() for h in hidden)).backward()
        return [out, *hidden, *[p.grad for p in mod.parameters()]]

    zeros = cr.zeros(2, 2, 5, dtype=cr.from_numpy(x).dtype)
    explicit = run((zeros, zeros) if cls == "LSTM" else zeros)
    for a, b in zip(run(None), explicit):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
        assert a.dtype == b.dtype


def test_lstm_bias_grads_apart():
    """The two biases get the same gradient as two arrays: accumulating into one leaves the
    other as it was, as in PyTorch."""
    x = randn((4, 2, 3)).astype(np.float32)

    def run(lib):
        mod = build(lib, "LSTM", (3, 5), {}, np.float32)
        for _ in range(2):  # the second backward accumulates
            out, _ = mod(lib.tensor(x))
            (out * out).sum().backward()
            mod.bias_ih_l0.grad.mul_(3)
        return mod.bias_ih_l0.grad, mod.bias_hh_l0.grad

    ours, theirs = run(cr), run(torch)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=2e-4, atol=2e-5)


def test_lstm_layer_op_some_inputs():
    """Gradients of only some inputs (the others constants): one pass through time serves
    whichever VJPs run; a second backward (retain_graph) gives the same."""
    inputs = LAYER_CASES["t4_b2_i2_h3"]

    def fn(lib, some):
        ts = [lib.tensor(a, requires_grad=i in some) for i, a in enumerate(inputs)]
        y = _layer_all(lib, *ts)
        w = lib.tensor(randn(tuple(y.shape), seed=9))
        wanted = [ts[i] for i in some]
        first = lib.autograd.grad(y, wanted, w, retain_graph=True)
        second = lib.autograd.grad(y, wanted[-1:], w * 2)
        return first, second

    for some in [(0, 6), (1, 3), (2,), (4, 5)]:
        assert_close(fn(cr, some), fn(torch, some), 1e-10, 1e-12)


def _gru(lib, x, w_ih, w_hh, b_ih, b_hh, h0, reverse=False):
    """h_t, [r, z, n], h_{t-1} W_hnᵀ + b_hn and h_t again for every step (time order): the
    whole-layer op on chainrule, PyTorch's ops step by step on torch."""
    if lib is cr:
        return gru_layer(x, w_ih, w_hh, b_ih, b_hh, h0, reverse=reverse)
    h, ys = h0, {}
    n = h0.shape[-1]
    steps = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
    for t in steps:
        xg = x[t] @ w_ih.T + b_ih
        hg = h @ w_hh.T + b_hh
        r = (xg[:, :n] + hg[:, :n]).sigmoid()
        z = (xg[:, n : 2 * n] + hg[:, n : 2 * n]).sigmoid()
        cand = (xg[:, 2 * n :] + r * hg[:, 2 * n :]).tanh()
        ys[t] = (cand + z * (h - cand), torch.cat([r, z, cand], -1), hg[:, 2 * n :])
        h = ys[t][0]
    hs, gates, hns = (torch.stack(y) for y in zip(*[ys[t] for t in range(x.shape[0])]))
    return hs, gates, hns, hs


def _gru_case(steps: int, batch: int, inputs: int, hidden: int) -> tuple:
    """x, W_ih, W_hh, b_ih, b_hh, h0"""
    shapes = [
        (steps, batch, inputs),
        (3 * hidden, inputs),
        (3 * hidden, hidden),
        (3 * hidden,),
        (3 * hidden,),
        (batch, hidden),
    ]
    return tuple(randn(s, seed=i) for i, s in enumerate(shapes))


GRU_CASES = {"t4_b2_i2_h3": _gru_case(4, 2, 2, 3), "t1_b3_i3_h2": _gru_case(1, 3, 3, 2)}

GRU_FNS = {
    "all": lambda lib, *a: lib.cat(_gru(lib, *a), -1),
    "h": lambda lib, *a: _gru(lib, *a)[0],
    "h_n": lambda lib, *a: _gru(lib, *a)[0][-1],
    "all_reverse": lambda lib, *a: lib.cat(_gru(lib, *a, reverse=True), -1),
    "h_reverse": lambda lib, *a: _gru(lib, *a, reverse=True)[0],
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("case", list(GRU_CASES))
@pytest.mark.parametrize("outputs", list(GRU_FNS))
def test_gru_layer_op(outputs, case, dtype):
    res = check(GRU_FNS[outputs], *GRU_CASES[case], dtype=dtype)
    assert res.cr_out.grad_fn.name() in ("StackBackward0", "CatBackward0", "SelectBackward0")


@pytest.mark.parametrize("outputs", list(GRU_FNS))
def test_gru_layer_op_fd(outputs):
    check_fd(GRU_FNS[outputs], *GRU_CASES["t4_b2_i2_h3"])


@pytest.mark.parametrize("outputs", ["all", "h_reverse"])
def test_gru_layer_op_double_backward(outputs):
    check_double_backward(GRU_FNS[outputs], *GRU_CASES["t4_b2_i2_h3"])


def _rnn(lib, x, w_ih, w_hh, b_ih, b_hh, h0, nonlinearity="tanh", reverse=False):
    """h_t for every step (time order), twice: the whole-layer op on chainrule, PyTorch's
    ops step by step on torch."""
    if lib is cr:
        return rnn_layer(x, w_ih, w_hh, b_ih, b_hh, h0, nonlinearity=nonlinearity, reverse=reverse)
    act = torch.tanh if nonlinearity == "tanh" else torch.relu
    h, ys = h0, {}
    for t in range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0]):
        h = ys[t] = act(x[t] @ w_ih.T + b_ih + h @ w_hh.T + b_hh)
    hs = torch.stack([ys[t] for t in range(x.shape[0])])
    return hs, hs


def _rnn_case(steps: int, batch: int, inputs: int, hidden: int) -> tuple:
    """x, W_ih, W_hh, b_ih, b_hh, h0"""
    shapes = [
        (steps, batch, inputs),
        (hidden, inputs),
        (hidden, hidden),
        (hidden,),
        (hidden,),
        (batch, hidden),
    ]
    return tuple(randn(s, seed=i) for i, s in enumerate(shapes))


RNN_CASES = {"t4_b2_i2_h3": _rnn_case(4, 2, 2, 3), "t1_b3_i3_h2": _rnn_case(1, 3, 3, 2)}

RNN_FNS = {
    "tanh": lambda lib, *a: lib.cat(_rnn(lib, *a), -1),
    "relu": lambda lib, *a: lib.cat(_rnn(lib, *a, nonlinearity="relu"), -1),
    "tanh_reverse": lambda lib, *a: _rnn(lib, *a, reverse=True)[0],
    "relu_reverse_h_n": lambda lib, *a: _rnn(lib, *a, nonlinearity="relu", reverse=True)[1][0],
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("case", list(RNN_CASES))
@pytest.mark.parametrize("outputs", list(RNN_FNS))
def test_rnn_layer_op(outputs, case, dtype):
    check(RNN_FNS[outputs], *RNN_CASES[case], dtype=dtype)


@pytest.mark.parametrize("outputs", list(RNN_FNS))
def test_rnn_layer_op_fd(outputs):
    check_fd(RNN_FNS[outputs], *RNN_CASES["t4_b2_i2_h3"])


@pytest.mark.parametrize("outputs", ["tanh", "relu_reverse_h_n"])
def test_rnn_layer_op_double_backward(outputs):
    check_double_backward(RNN_FNS[outputs], *RNN_CASES["t4_b2_i2_h3"])


def test_output_written_in_place():
    """PyTorch saves its oneDNN LSTM layer's output, not its GRU's or RNN's stacked steps:
    after an in-place write to the output, the LSTM's backward raises PyTorch's error, the
    others' run."""

    def fn(lib, cls):
        lib.manual_seed(0)
        out, _ = getattr(lib.nn, cls)(3, 4)(lib.randn(5, 2, 3))
        out.add_(1)
        out.sum().backward()

    assert_same_error(lambda lib: fn(lib, "LSTM"))
    fn(cr, "GRU")
    fn(cr, "RNN")


# ----- the layers side by side -----------------------------------------------------------

# (class, constructor kwargs); input 3 features, hidden 5
LAYERS = {
    "rnn": ("RNN", {}),
    "rnn_relu": ("RNN", {"nonlinearity": "relu"}),
    "rnn_2l_bi": ("RNN", {"num_layers": 2, "bidirectional": True}),
    "rnn_nobias_bf": ("RNN", {"bias": False, "batch_first": True}),
    "gru": ("GRU", {}),
    "gru_2l_bi": ("GRU", {"num_layers": 2, "bidirectional": True}),
    "gru_nobias_bf": ("GRU", {"bias": False, "batch_first": True}),
    "lstm": ("LSTM", {}),
    "lstm_2l": ("LSTM", {"num_layers": 2}),
    "lstm_bi": ("LSTM", {"bidirectional": True}),
    "lstm_2l_bi_bf": ("LSTM", {"num_layers": 2, "bidirectional": True, "batch_first": True}),
    "lstm_nobias": ("LSTM", {"bias": False}),
    "lstm_proj": ("LSTM", {"proj_size": 2}),
    "lstm_proj_2l_bi": ("LSTM", {"proj_size": 3, "num_layers": 2, "bidirectional": True}),
    "lstm_eval_dropout": ("LSTM", {"num_layers": 2, "dropout": 0.5}),
}


def _hidden_shapes(cls: str, kwargs: dict, batch: int | None) -> list[tuple]:
    d = (2 if kwargs.get("bidirectional") else 1) * kwargs.get("num_layers", 1)
    h = kwargs.get("proj_size") or 5
    lead = (d,) if batch is None else (d, batch)
    return [(*lead, h), (*lead, 5)] if cls == "LSTM" else [(*lead, h)]


def _run_layer(lib, cls, kwargs, dtype, x, hiddens, packed=None):
    """Forward, a random non-scalar backward; what came out, the gradients, node names."""
    mod = build(lib, cls, (3, 5), kwargs, dtype)
    if "dropout" in kwargs:
        mod.eval()
    xt = tensor(lib, x)
    hs = [tensor(lib, h) for h in hiddens]
    inp = xt
    if packed is not None:
        lengths, sort = packed
        inp = lib.nn.utils.rnn.pack_padded_sequence(
            xt, lengths, batch_first=kwargs.get("batch_first", False), enforce_sorted=sort
        )
    hx = None if not hs else (tuple(hs) if cls == "LSTM" else hs[0])
    out, hidden = mod(inp, hx)
    names = []
    if packed is not None:
        assert type(out).__name__ == "PackedSequence"
        names.append(("batch_sizes", out.batch_sizes.tolist()))
        out = out.data
    states = list(hidden) if cls == "LSTM" else [hidden]
    names += [node(out)] + [node(s) for s in states]
    rng = np.random.default_rng(7)
    loss = 0
    for t in [out, *states]:
        w = lib.tensor(rng.standard_normal(tuple(t.shape)).astype(dtype))
        loss = loss + (t * w).sum()
    loss.backward()
    grads = [xt.grad] + [h.grad for h in hs] + [p.grad for _, p in mod.named_parameters()]
    return [out, *states], grads, names


def _compare_layer(cls, kwargs, dtype, x, hiddens, packed=None):
    got = _run_layer(cr, cls, kwargs, dtype, x, hiddens, packed)
    want = _run_layer(torch, cls, kwargs, dtype, x, hiddens, packed)
    rtol, atol = TOL[dtype]
    assert_close(got[0], want[0], rtol, atol, what="outputs")
    assert_close(got[1], want[1], rtol, atol, what="grads", requires_grad=False)
    assert got[2] == want[2]  # the node names, the output's among them


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("layer", list(LAYERS))
def test_layer_batched(layer, dtype):
    cls, kwargs = LAYERS[layer]
    shape = (2, 4, 3) if kwargs.get("batch_first") else (4, 2, 3)
    _compare_layer(cls, kwargs, dtype, randn(shape).astype(dtype), [])


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("layer", list(LAYERS))
def test_layer_initial_state(layer, dtype):
    cls, kwargs = LAYERS[layer]
    shape = (2, 4, 3) if kwargs.get("batch_first") else (4, 2, 3)
    hiddens = [
        randn(s, seed=i + 1).astype(dtype) for i, s in enumerate(_hidden_shapes(cls, kwargs, 2))
    ]
    _compare_layer(cls, kwargs, dtype, randn(shape).astype(dtype), hiddens)


def _names(lib, cls, kwargs, dtype, with_state, batch_first):
    """The node names of the output and the final states (h_n, and c_n for the LSTM)."""
    mod = build(lib, cls, (3, 5), kwargs, dtype)
    x = tensor(lib, randn((2, 4, 3) if batch_first else (4, 2, 3)).astype(dtype))
    hx = None
    if with_state:
        hs = [tensor(lib, randn(s).astype(dtype)) for s in _hidden_shapes(cls, kwargs, 2)]
        hx = tuple(hs) if cls == "LSTM" else hs[0]
    out, hidden = mod(x, hx)
    return [node(t) for t in [out, *(hidden if cls == "LSTM" else [hidden])]]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("with_state", [False, True], ids=["no_state", "state"])
@pytest.mark.parametrize("batch_first", [False, True], ids=["seq_first", "batch_first"])
@pytest.mark.parametrize("bidirectional", [False, True], ids=["uni", "bi"])
@pytest.mark.parametrize("num_layers", [1, 2], ids=["1l", "2l"])
@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
def test_node_names(cls, num_layers, bidirectional, batch_first, with_state, dtype):
    """out.grad_fn, h_n.grad_fn (and c_n.grad_fn) named as PyTorch names them: for a float32
    LSTM the output is oneDNN's fused layer's own (MkldnnRnnLayerBackward0), in float64 the
    stack of its steps'; the bidirectional output is a cat, the batch_first one a
    transpose (in place for the RNN and GRU), the final states stacks."""
    kwargs = {"num_layers": num_layers, "bidirectional": bidirectional, "batch_first": batch_first}
    args = (cls, kwargs, dtype, with_state, batch_first)
    assert _names(cr, *args) == _names(torch, *args)


@pytest.mark.parametrize("with_state", [False, True], ids=["no_state", "state"])
@pytest.mark.parametrize("layer", ["rnn", "gru_2l_bi", "lstm", "lstm_proj_2l_bi"])
def test_layer_unbatched(layer, with_state):
    cls, kwargs = LAYERS[layer]
    hiddens = [randn(s, seed=i + 1) for i, s in enumerate(_hidden_shapes(cls, kwargs, None))]
    _compare_layer(cls, kwargs, np.float64, randn((4, 3)), hiddens if with_state else [])


PACKED = {
    "sorted": ([4, 3, 1], True),
    "unsorted": ([2, 4, 1], False),
    "equal_lengths": ([4, 4, 4], True),
    "unsorted_ties": ([3, 1, 3], False),
}


@pytest.mark.parametrize(
    "layer,lengths,dtype",
    [
        (layer, lengths, np.float64)
        for layer in [
            "rnn_2l_bi",
            "gru",
            "lstm",
            "lstm_2l_bi_bf",
            "lstm_proj_2l_bi",
            "gru_nobias_bf",
        ]
        for lengths in PACKED
    ]
    + [(layer, "unsorted", np.float32) for layer in ["rnn_2l_bi", "gru", "lstm_2l_bi_bf"]],
    ids=str,
)
def test_layer_packed(layer, lengths, dtype):
    cls, kwargs = LAYERS[layer]
    shape = (3, 4, 3) if kwargs.get("batch_first") else (4, 3, 3)
    hiddens = [
        randn(s, seed=i + 1).astype(dtype) for i, s in enumerate(_hidden_shapes(cls, kwargs, 3))
    ]
    x = randn(shape).astype(dtype)
    _compare_layer(cls, kwargs, dtype, x, hiddens, PACKED[lengths])
    _compare_layer(cls, kwargs, dtype, x, [], PACKED[lengths])


def test_packed_output_pads_back():
    """pack -> LSTM -> pad gives the padded output and lengths in the original order."""

    def fn(lib):
        mod = build(lib, "LSTM", (3, 5), {"bidirectional": True})
        x = tensor(lib, randn((4, 3, 3)))
        rnn = lib.nn.utils.rnn
        out, (h, c) = mod(rnn.pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False))
        padded, lengths = rnn.pad_packed_sequence(out, total_length=5)
        return padded, lengths, h, c, out.sorted_indices, out.unsorted_indices

    got = fn(cr)
    want = fn(torch)
    assert_close(got, want, 1e-9, 1e-11)


# ----- dropout between layers -------------------------------------------------------------


def test_dropout_one_zeroes_the_second_layers_input():
    """p = 1 in training: the second layer sees zeros, on both libraries alike."""

    def fn(lib):
        mod = build(lib, "GRU", (3, 5), {"num_layers": 2, "dropout": 1.0})
        out, h = mod(tensor(lib, randn((4, 2, 3))))
        return out, h

    assert_close(*[fn(lib) for lib in (cr, torch)], 1e-9, 1e-11)


def test_dropout_in_training_is_applied():
    """p = 0.5 in training: the output changes from run to run and differs from eval's,
    with the shapes of eval's; eval is deterministic."""
    mod = build(cr, "LSTM", (3, 5), {"num_layers": 2, "dropout": 0.5})
    x = cr.tensor(randn((6, 4, 3)))
    cr.manual_seed(0)
    a, _ = mod(x)
    b, _ = mod(x)
    mod.eval()
    c, (h, _) = mod(x)
    d, _ = mod(x)
    assert tuple(a.shape) == tuple(c.shape) == (6, 4, 5) and tuple(h.shape) == (2, 4, 5)
    assert not np.allclose(a.detach().numpy(), b.detach().numpy()) and not np.allclose(
        a.detach().numpy(), c.detach().numpy()
    )
    np.testing.assert_array_equal(c.detach().numpy(), d.detach().numpy())


def test_dropout_rate_between_layers():
    """The second layer's input is zeroed at rate p and scaled by 1/(1 - p): with an identity
    second layer's weights this shows in the first layer's output the mask is applied to."""
    mod = cr.nn.RNN(200, 200, num_layers=2, dropout=0.3, nonlinearity="relu", bias=False)
    with cr.no_grad():
        mod.weight_ih_l0.copy_(cr.eye(200))
        mod.weight_hh_l0.zero_()
        mod.weight_ih_l1.copy_(cr.eye(200))
        mod.weight_hh_l1.zero_()
    cr.manual_seed(1)
    out, _ = mod(cr.ones(50, 4, 200))
    v = out.detach().numpy()
    assert abs((v == 0).mean() - 0.3) < 0.01
    np.testing.assert_allclose(v[v != 0], 1 / 0.7, rtol=1e-6)


# ----- gradcheck ------------------------------------------------------------------------


@pytest.mark.parametrize("cls", ["LSTM", "GRU"])
def test_gradcheck(cls):
    mod = build(cr, cls, (2, 2), {"bidirectional": True}).double()
    x = cr.tensor(randn((3, 1, 2)), requires_grad=True)
    h0 = cr.tensor(randn((2, 1, 2), seed=1), requires_grad=True)
    names = [n for n, _ in mod.named_parameters()]

    def fn(x, h0, *ps):
        hx = (h0, h0 * 0.5) if cls == "LSTM" else h0
        out, _ = cr.func.functional_call(mod, dict(zip(names, ps)), (x, hx))
        return out

    ps = [p.detach().clone().requires_grad_() for p in mod.parameters()]
    assert cr.autograd.gradcheck(fn, (x, h0, *ps))


# ----- cells ---------------------------------------------------------------------------

CELLS = {
    "rnn_cell": ("RNNCell", {}),
    "rnn_cell_relu": ("RNNCell", {"nonlinearity": "relu"}),
    "rnn_cell_nobias": ("RNNCell", {"bias": False}),
    "lstm_cell": ("LSTMCell", {}),
    "lstm_cell_nobias": ("LSTMCell", {"bias": False}),
    "gru_cell": ("GRUCell", {}),
    "gru_cell_nobias": ("GRUCell", {"bias": False}),
}


def _run_cell(lib, cls, kwargs, dtype, x, hiddens):
    mod = build(lib, cls, (3, 5), kwargs, dtype)
    xt = tensor(lib, x)
    hs = [tensor(lib, h) for h in hiddens]
    hx = None if not hs else (tuple(hs) if cls == "LSTMCell" else hs[0])
    out = mod(xt, hx)
    outs = list(out) if cls == "LSTMCell" else [out]
    names = [node(o) for o in outs]
    rng = np.random.default_rng(7)
    sum(
        (o * lib.tensor(rng.standard_normal(tuple(o.shape)).astype(dtype))).sum() for o in outs
    ).backward()
    grads = [xt.grad] + [h.grad for h in hs] + [p.grad for _, p in mod.named_parameters()]
    return outs, grads, names


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("batched", [True, False], ids=["batched", "unbatched"])
@pytest.mark.parametrize("with_state", [False, True], ids=["no_state", "state"])
@pytest.mark.parametrize("cell", list(CELLS))
def test_cell(cell, with_state, batched, dtype):
    cls, kwargs = CELLS[cell]
    lead = (2,) if batched else ()
    n_states = 2 if cls == "LSTMCell" else 1
    hiddens = [randn((*lead, 5), seed=i + 1).astype(dtype) for i in range(n_states)]
    x = randn((*lead, 3)).astype(dtype)
    got = _run_cell(cr, cls, kwargs, dtype, x, hiddens if with_state else [])
    want = _run_cell(torch, cls, kwargs, dtype, x, hiddens if with_state else [])
    rtol, atol = TOL[dtype]
    assert_close(got[0], want[0], rtol, atol, what="outputs")
    assert_close(got[1], want[1], rtol, atol, what="grads", requires_grad=False)
    assert got[2] == want[2]


# ----- parameters, reprs, state_dict, init ------------------------------------------------

CONSTRUCT = [
    ("RNN", (3, 5), {}),
    ("RNN", (3, 5, 2), {"nonlinearity": "relu", "bias": False, "batch_first": True}),
    ("RNN", (3, 5, 2, "relu"), {}),
    ("GRU", (3, 5), {"num_layers": 3, "dropout": 0.25, "bidirectional": True}),
    ("LSTM", (3, 5), {"proj_size": 2, "num_layers": 2, "bidirectional": True}),
    ("LSTM", (3, 5), {"bias": False, "proj_size": 4}),
    ("RNNCell", (3, 5), {"nonlinearity": "relu"}),
    ("RNNCell", (3, 5), {"bias": False}),
    ("LSTMCell", (3, 5), {}),
    ("GRUCell", (3, 5), {"bias": False}),
]


@pytest.mark.parametrize("cls,args,kwargs", CONSTRUCT, ids=lambda v: str(v))
def test_structure(cls, args, kwargs):
    """repr, parameter names and shapes, state_dict keys, all_weights, constants."""

    def fn(lib):
        mod = build(lib, cls, args, kwargs)
        res = [
            repr(mod),
            [(n, tuple(p.shape)) for n, p in mod.named_parameters()],
            list(mod.state_dict()),
            repr(lib.nn.Sequential(mod, lib.nn.Identity())),
        ]
        if not cls.endswith("Cell"):
            res += [
                [[tuple(p.shape) for p in ws] for ws in mod.all_weights],
                mod._flat_weights_names,
                [tuple(w.shape) for w in mod._flat_weights],
                mod.mode,
                mod.dropout,
                mod.flatten_parameters(),
            ]
        return res

    assert fn(cr) == fn(torch)


@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN", "LSTMCell", "GRUCell", "RNNCell"])
def test_default_init(cls):
    """Every parameter uniform in ±1/√hidden_size: bounds, mean and std of U(-k, k)."""
    mod = getattr(cr.nn, cls)(64, 100)
    k = 1 / np.sqrt(100)
    for name, p in mod.named_parameters():
        v = p.detach().numpy()
        assert v.dtype == np.float32, name
        bound = v.dtype.type(k)  # a float32 draw may round to float32(±k), just past ±k
        assert v.min() >= -bound and v.max() <= bound, name
        if v.size > 1000:
            assert v.max() > 0.99 * k and v.min() < -0.99 * k, name
            assert abs(v.mean()) < 0.05 * k, name
            assert abs(v.std() - 2 * k / np.sqrt(12)) < 0.03 * k, name


def test_dtype_and_conversions():
    mod = cr.nn.LSTM(3, 4, dtype=cr.float64)
    assert all(p.dtype == cr.float64 for p in mod.parameters())
    mod.float()
    assert all(p.dtype == cr.float32 for p in mod.all_weights[0])
    out, (h, c) = mod(cr.randn(2, 3, 3))
    assert out.dtype == cr.float32 and h.dtype == c.dtype == cr.float32


def test_assigned_weight_is_used():
    """A parameter replaced by assignment is the one the layer reads (as _flat_weights)."""

    def fn(lib):
        mod = build(lib, "GRU", (3, 5), {})
        mod.weight_hh_l0 = lib.nn.Parameter(lib.ones(15, 5, dtype=lib.float64))
        out, h = mod(lib.tensor(randn((4, 2, 3))))
        return out, h, mod._flat_weights[1]

    assert_close(fn(cr), fn(torch), 1e-9, 1e-11, requires_grad=False)


# ----- errors ------------------------------------------------------------------------------

CONSTRUCTOR_ERRORS = {
    "dropout_range": ("LSTM", (3, 5), {"dropout": 1.5}),
    "dropout_bool": ("GRU", (3, 5), {"dropout": True}),
    "bias_type": ("RNN", (3, 5), {"bias": 1}),
    "batch_first_type": ("RNN", (3, 5), {"batch_first": "yes"}),
    "input_size_type": ("LSTM", (3.0, 5), {}),
    "input_size_zero": ("LSTM", (0, 5), {}),
    "hidden_size_type": ("GRU", (3, "5"), {}),
    "hidden_size_zero": ("GRU", (3, 0), {}),
    "num_layers_zero": ("LSTM", (3, 5), {"num_layers": 0}),
    "proj_negative": ("LSTM", (3, 5), {"proj_size": -1}),
    "proj_too_big": ("LSTM", (3, 5), {"proj_size": 5}),
    "proj_on_rnn": ("RNN", (3, 5), {"proj_size": 2}),
    "proj_on_gru": ("GRU", (3, 5), {"proj_size": 2}),
    "nonlinearity": ("RNN", (3, 5), {"nonlinearity": "sigmoid"}),
    "rnn_base_mode": ("RNNBase", ("FOO", 3, 5), {}),
}


@pytest.mark.parametrize("case", list(CONSTRUCTOR_ERRORS))
def test_constructor_errors(case):
    cls, args, kwargs = CONSTRUCTOR_ERRORS[case]
    assert_same_error(lambda lib: getattr(lib.nn, cls)(*args, **kwargs))


def test_dropout_with_one_layer_warns():
    for lib in (cr, torch):
        with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
            lib.nn.LSTM(3, 5, dropout=0.2)


def _f(lib, shape, dtype=np.float32):
    return lib.tensor(np.zeros(shape, dtype))


FORWARD_ERRORS = {
    "rnn_4d": ("RNN", {}, lambda L: ((_f(L, (1, 2, 3, 3)),), {})),
    "gru_1d": ("GRU", {}, lambda L: ((_f(L, (3,)),), {})),
    "lstm_4d": ("LSTM", {}, lambda L: ((_f(L, (1, 2, 3, 3)),), {})),
    "input_size": ("LSTM", {}, lambda L: ((_f(L, (4, 2, 4)),), {})),
    "input_dtype": ("GRU", {}, lambda L: ((_f(L, (4, 2, 3), np.float64),), {})),
    "hidden_size": ("RNN", {}, lambda L: ((_f(L, (4, 2, 3)), _f(L, (1, 2, 4))), {})),
    "hidden_batch": ("GRU", {}, lambda L: ((_f(L, (4, 2, 3)), _f(L, (1, 3, 5))), {})),
    "hidden_layers": (
        "RNN",
        {"num_layers": 2},
        lambda L: ((_f(L, (4, 2, 3)), _f(L, (1, 2, 5))), {}),
    ),
    "hidden_dims_batched": ("RNN", {}, lambda L: ((_f(L, (4, 2, 3)), _f(L, (2, 5))), {})),
    "hidden_dims_unbatched": ("GRU", {}, lambda L: ((_f(L, (4, 3)), _f(L, (1, 1, 5))), {})),
    "lstm_h_size": (
        "LSTM",
        {},
        lambda L: ((_f(L, (4, 2, 3)), (_f(L, (1, 2, 4)), _f(L, (1, 2, 5)))), {}),
    ),
    "lstm_c_size": (
        "LSTM",
        {"proj_size": 2},
        lambda L: ((_f(L, (4, 2, 3)), (_f(L, (1, 2, 2)), _f(L, (1, 2, 2)))), {}),
    ),
    "lstm_dims_batched": (
        "LSTM",
        {},
        lambda L: ((_f(L, (4, 2, 3)), (_f(L, (2, 5)), _f(L, (1, 2, 5)))), {}),
    ),
    "lstm_dims_unbatched": (
        "LSTM",
        {},
        lambda L: ((_f(L, (4, 3)), (_f(L, (1, 5)), _f(L, (1, 1, 5)))), {}),
    ),
    "packed_hidden_batch": (
        "GRU",
        {},
        lambda L: (
            (L.nn.utils.rnn.pack_sequence([_f(L, (3, 3)), _f(L, (2, 3))]), _f(L, (1, 3, 5))),
            {},
        ),
    ),
    "packed_input_size": (
        "LSTM",
        {},
        lambda L: ((L.nn.utils.rnn.pack_sequence([_f(L, (3, 4)), _f(L, (2, 4))]),), {}),
    ),
    "rnn_cell_3d": ("RNNCell", {}, lambda L: ((_f(L, (1, 2, 3)),), {})),
    "rnn_cell_hidden_3d": ("RNNCell", {}, lambda L: ((_f(L, (2, 3)), _f(L, (1, 2, 5))), {})),
    "gru_cell_3d": ("GRUCell", {}, lambda L: ((_f(L, (1, 2, 3)),), {})),
    "lstm_cell_3d": ("LSTMCell", {}, lambda L: ((_f(L, (1, 2, 3)),), {})),
    "lstm_cell_hx_3d": (
        "LSTMCell",
        {},
        lambda L: ((_f(L, (2, 3)), (_f(L, (2, 5)), _f(L, (1, 2, 5)))), {}),
    ),
    "cell_input_size": ("GRUCell", {}, lambda L: ((_f(L, (2, 4)),), {})),
    "cell_hidden_batch": ("RNNCell", {}, lambda L: ((_f(L, (2, 3)), _f(L, (3, 5))), {})),
    "cell_hidden_size": (
        "LSTMCell",
        {},
        lambda L: ((_f(L, (2, 3)), (_f(L, (2, 4)), _f(L, (2, 4)))), {}),
    ),
}


@pytest.mark.parametrize("case", list(FORWARD_ERRORS))
def test_forward_errors(case):
    cls, kwargs, make = FORWARD_ERRORS[case]

    def fn(lib):
        args, kw = make(lib)
        return build(lib, cls, (3, 5), kwargs, np.float32)(*args, **kw)

    assert_same_error(fn)


def test_cell_unknown_nonlinearity():
    def fn(lib):
        mod = lib.nn.RNNCell(3, 5)
        mod.nonlinearity = "gelu"
        return mod(lib.zeros(2, 3))

    assert_same_error(fn)


def test_step_operands_aligned():
    """The copies the layers' step products read start on a 64-byte boundary (OpenBLAS's
    small-product kernels run faster so) and hold the same values, in any layout."""
    from chainrule._backend import address
    from chainrule.ops.recurrent import _aligned, _aligned_empty

    a = randn((4, 5, 3)).astype(np.float32).transpose(0, 2, 1)
    for _ in range(8):  # allocations land at various offsets
        b = _aligned(a)
        assert address(b) % 64 == 0 and b.flags.c_contiguous
        np.testing.assert_array_equal(b, a)
        e = _aligned_empty((2, 3), np.float64, a)
        assert address(e) % 64 == 0 and e.shape == (2, 3) and e.dtype == np.float64
        assert _aligned(b) is b  # already so: no copy


def test_gate_blocks():
    """The layer's copy of a weight: its gate blocks transposed, in the order i, f, o, g,
    the sigmoid gates' halved (σ(a) = (1 + tanh(a/2)) / 2), written into a slice of the
    step's operand."""
    from chainrule.ops.recurrent import _gate_blocks

    w = randn((4 * 3, 5)).astype(np.float32)
    out = np.full((4, 7, 3), 9, np.float32)
    _gate_blocks(w, 3, out[:, 1:6])
    i, f, g, o = w.reshape(4, 3, 5)
    expected = np.stack([i.T / 2, f.T / 2, o.T / 2, g.T])
    np.testing.assert_array_equal(out[:, 1:6], expected)
    assert (out[:, 0] == 9).all() and (out[:, 6] == 9).all()


# the layers' ops with only W_hh requiring grad: what the gradient of W_hh reads
_W_HH_LAYERS = {
    "lstm": (_layer_case, 4, lambda lib, *a, reverse: _layer(lib, *a, reverse=reverse)[0]),
    "gru": (_gru_case, 3, lambda lib, *a, reverse: _gru(lib, *a, reverse=reverse)[0]),
    "rnn": (_rnn_case, 1, lambda lib, *a, reverse: _rnn(lib, *a, reverse=reverse)[0]),
}


@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
@pytest.mark.parametrize("h0", ["zero", "random"])
@pytest.mark.parametrize("layer", list(_W_HH_LAYERS))
def test_w_hh_grad_initial_step(layer, h0, reverse):
    """d/dW_hh = Σ_t d_tᵀ h_{t-1}: on arrays the step whose h_{t-1} is h0 is its own
    product, left out where h0 is zero; the same values as the formula composed of
    chainrule's ops (create_graph) and as PyTorch's, with h0 zero or not, either way."""
    case, _, fn = _W_HH_LAYERS[layer]
    inputs = list(case(5, 3, 2, 4))
    if h0 == "zero":
        inputs[5] = np.zeros_like(inputs[5])
    g = randn((5, 3, 4), seed=30)

    def grad(lib, create_graph=False):
        ts = [lib.tensor(a, requires_grad=k == 2) for k, a in enumerate(inputs)]
        out = fn(lib, *ts, reverse=reverse)
        (w,) = lib.autograd.grad(out, [ts[2]], lib.tensor(g), create_graph=create_graph)
        return w.detach().numpy()

    plain = grad(cr)
    np.testing.assert_allclose(plain, grad(cr, True), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(plain, grad(torch), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
def test_w_hh_grad_zero_h0_nonfinite(reverse):
    """A zero h0 leaves its step out of d/dW_hh only where the step's gradient is finite:
    an infinite one there gives NaN (∞ · 0), as PyTorch's does."""
    inputs = list(_rnn_case(3, 2, 2, 3))
    inputs[5] = np.zeros_like(inputs[5])
    g = randn((3, 2, 3), seed=31)
    g[-1 if reverse else 0, 0, 0] = np.inf

    def grad(lib):
        ts = [lib.tensor(a, requires_grad=k == 2) for k, a in enumerate(inputs)]
        out = _rnn(lib, *ts, reverse=reverse)[0]
        (w,) = lib.autograd.grad(out, [ts[2]], lib.tensor(g))
        return w.detach().numpy()

    ours, theirs = grad(cr), grad(torch)
    assert np.isnan(ours).any()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_lstm_bias_grad_column_sums(dtype):
    """d/db of the plain backward (a product of the gradient's rows with ones) is the sum
    over steps and batch that the composed backward (create_graph) and PyTorch take."""
    inputs = [a.astype(dtype) for a in _layer_case(6, 3, 2, 4)]
    g = randn((6, 3, 4), seed=32).astype(dtype)

    def grads(lib, create_graph=False):
        ts = [lib.tensor(a, requires_grad=k in (3, 4)) for k, a in enumerate(inputs)]
        out = _layer(lib, *ts)[0]
        gs = lib.autograd.grad(out, [ts[3], ts[4]], lib.tensor(g), create_graph=create_graph)
        return [w.detach().numpy() for w in gs]

    plain, composed, theirs = grads(cr), grads(cr, True), grads(torch)
    tol = TOL[dtype]
    for a, b, c in zip(plain, composed, theirs):
        np.testing.assert_allclose(a, b, rtol=tol[0], atol=tol[1])
        np.testing.assert_allclose(a, c, rtol=tol[0], atol=tol[1])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_column_sums(dtype):
    """The bias gradients' sum over steps and batch: a product with ones for float32 and
    float64, NumPy's sum for half precision (no BLAS), the same values."""
    from chainrule.ops.recurrent import _column_sums

    d = randn((5, 3, 8), seed=33).astype(dtype)
    out = _column_sums(d)
    assert out.shape == (8,) and out.dtype == dtype
    tol = 1e-2 if dtype == np.float16 else 1e-6
    np.testing.assert_allclose(out, d.astype(np.float64).sum(axis=(0, 1)), rtol=tol, atol=tol)
