"""Recurrent ops: the fused LSTM cell (one step), and whole layers of the LSTM, the GRU and
the Elman RNN (every step of one direction of one layer in one op).

``lstm_cell(gates, state)`` takes the gate pre-activations ``gates = [a_i, a_f, a_g, a_o]``
(PyTorch's order, each of width H: ``x W_ihᵀ + b_ih + h W_hhᵀ + b_hh``, computed outside by
one matrix product per step) and a ``state`` whose last H columns are the previous cell state
``c``, and returns ``[h', c']`` joined along the last dim, with

    i = σ(a_i), f = σ(a_f), g = tanh(a_g), o = σ(a_o)
    c' = f c + i g,    h' = o tanh(c')

as PyTorch's fused cell (``ThnnFusedLstmCellBackward0``); nn.LSTM runs it per step for
packed sequences and projections. ``lstm_layer``, ``gru_layer`` and ``rnn_layer`` take a
layer's input (T, B, I), weights, biases and initial state and return several outputs from
one node: the hidden states, and what backward reads (the gates' values and the like). The
recurrence is one matrix product per step forward (for the LSTM the input's part of the step
in the same product; for the GRU and RNN the input's part of every step one product) and one
per step backward, each weight's gradient one product over all steps. Their
VJPs and JVPs are written in chainrule's ops (the plain LSTM backward also on preallocated
arrays), so higher derivatives and forward mode come with them.
"""

from __future__ import annotations

from .._backend import address, ndarray, scalar, xp
from .._tensor import Tensor
from ..autograd.recording import FLOAT, KEEP, defop
from ..autograd.sharing import shared
from . import activations, indexing, joining, reductions, unary


def _lstm_cell(gates, state):
    """[h', c'] with c' = σ(a_f) c + σ(a_i) tanh(a_g), h' = σ(a_o) tanh(c')"""
    n = gates.shape[-1] // 4
    s = 1 / (1 + xp.exp(-gates))
    c = s[..., n : 2 * n] * state[..., -n:] + s[..., :n] * xp.tanh(gates[..., 2 * n : 3 * n])
    return xp.concatenate((s[..., 3 * n :] * xp.tanh(c), c), axis=-1)


def _parts(gates, state, ans):
    """i, f, g, o, the previous c, tanh(c') and the width H (arrays or tensors alike)"""
    n = gates.shape[-1] // 4
    s = activations.sigmoid(gates)  # one call for the three sigmoid gates
    g = unary.tanh(gates[..., 2 * n : 3 * n])
    return (
        s[..., :n],
        s[..., n : 2 * n],
        g,
        s[..., 3 * n :],
        state[..., -n:],
        unary.tanh(ans[..., n:]),
        n,
    )


def _join(parts):
    """the pieces joined along the last dim"""
    offsets = [0]
    for p in parts:
        offsets.append(offsets[-1] + p.shape[-1])
    return joining.cat(list(parts), dim=len(parts[0].shape) - 1, offsets=tuple(offsets))


def _cell_state_grad(g, o, tc, n):
    """dL/dc' = g_c + g_h o (1 - tanh²c'): the cell state's gradient, both paths"""
    return g[..., n:] + g[..., :n] * o * (1 - tc * tc)


def _gates_vjp(g, gates, state, ans):
    """d/da = [dc g σ'(a_i), dc c σ'(a_f), dc i tanh'(a_g), g_h tanh(c') σ'(a_o)]"""
    i, f, gg, o, c, tc, n = _parts(gates, state, ans)
    dc = _cell_state_grad(g, o, tc, n)
    return _join(
        (
            dc * gg * (i * (1 - i)),
            dc * c * (f * (1 - f)),
            dc * i * (1 - gg * gg),
            g[..., :n] * tc * (o * (1 - o)),
        )
    )


def _state_vjp(g, gates, state, ans):
    """d/dc = dc f in the last H columns, 0 in the others"""
    i, f, gg, o, c, tc, n = _parts(gates, state, ans)
    dc = _cell_state_grad(g, o, tc, n) * f
    lead = state.shape[-1] - n
    if not lead:
        return dc
    return _join((state[..., :lead] * 0, dc))


def _from_cell(dc, o, tc, n):
    """[dh', dc'] from a tangent dc' of the cell state: dh' = o (1 - tanh²c') dc'"""
    return _join((o * (1 - tc * tc) * dc, dc))


def _gates_jvp(t, gates, state, ans):
    """dc' = t_i g σ'(a_i) + t_f c σ'(a_f) + t_g i tanh'(a_g), dh' = t_o tanh(c') σ'(a_o) + o tanh'(c') dc'"""
    i, f, gg, o, c, tc, n = _parts(gates, state, ans)
    dc = (
        t[..., :n] * gg * (i * (1 - i))
        + t[..., n : 2 * n] * c * (f * (1 - f))
        + t[..., 2 * n : 3 * n] * i * (1 - gg * gg)
    )
    dh = t[..., 3 * n :] * tc * (o * (1 - o)) + o * (1 - tc * tc) * dc
    return _join((dh, dc))


def _state_jvp(t, gates, state, ans):
    """dc' = f t_c, dh' = o (1 - tanh²c') f t_c"""
    i, f, gg, o, c, tc, n = _parts(gates, state, ans)
    return _from_cell(f * t[..., -n:], o, tc, n)


lstm_cell = defop(
    "lstm_cell",
    _lstm_cell,
    args=("gates", "state"),
    dtypes=FLOAT,
    node="ThnnFusedLstmCellBackward0",
    vjp=(_gates_vjp, _state_vjp),
    jvp=(_gates_jvp, _state_jvp),
)


# ----- a whole LSTM layer ----------------------------------------------------------------------
#
# ``lstm_layer(x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse=False)`` is one direction of one
# layer in one op with four outputs, as PyTorch's oneDNN layer (``MkldnnRnnLayerBackward0``,
# which takes the same inputs): the hidden states h (T, B, H), the cell states c (T, B, H), the
# gates' values (T, 4, B, H) and tanh(c) (T, B, H), all in time order (``reverse`` runs the
# recurrence from the last step to the first). The gates are kept as the layer works them,
# gate-major per step in the order i, f, o, g (the three sigmoid gates one block; PyTorch's
# weights stack them i, f, g, o); backward reads them and tanh(c) instead of recomputing them
# (PyTorch's layer keeps them in its workspace).
#
# Each step's gates are one product of [h_{t-1}, x_t, 1] (see _lstm_layer); backward through
# time is one product per step, and each weight's gradient one product over all steps.
# Forward and the plain backward (arrays: no
# create_graph) run on preallocated arrays, in place, a handful of NumPy calls a step; with
# create_graph the VJPs get tensors and run the same formulas composed of chainrule's ops
# (_Steps, _composed_through_time), so higher derivatives follow; forward mode uses those.

# PyTorch's gate order i, f, g, o to the layer's i, f, o, g (the permutation is its own inverse)
_IFOG = [0, 1, 3, 2]


def _number(value: float, like):
    """``value`` as the operand beside arrays like ``like``: on NumPy's, a kept 0-d array of
    their dtype (no conversion per call: _backend.scalar); a device's takes the number"""
    return scalar(value, like.dtype) if like.__class__ is ndarray else value


def _aligned_empty(shape: tuple, dtype, like):
    """an empty array on the device of ``like``, on NumPy's with its first element on a
    64-byte boundary: OpenBLAS's kernels for small products (a step's, which it runs without
    packing) take about a quarter less time on a second operand so aligned (15 against
    20 µs for a step's forward), and NumPy's allocator aligns to 16 bytes only"""
    if like.__class__ is not ndarray:
        return xp.empty(shape, dtype=dtype)
    size = xp.dtype(dtype).itemsize
    for k in shape:
        size *= k
    buf = xp.empty(size + 64, dtype=xp.uint8)
    start = -address(buf) % 64
    return buf[start : start + size].view(dtype).reshape(shape)


def _aligned(a):
    """``a`` C-contiguous and aligned as _aligned_empty aligns: ``a`` itself when it already
    is (the callers only read it), else a copy"""
    if a.__class__ is not ndarray:
        return xp.ascontiguousarray(a)
    if a.flags.c_contiguous and address(a) % 64 == 0:
        return a
    out = _aligned_empty(a.shape, a.dtype, a)
    xp.copyto(out, a)
    return out


def _order(steps: int, reverse: bool) -> range:
    """the time steps in the order the recurrence runs them"""
    return range(steps - 1, -1, -1) if reverse else range(steps)


def _gate_blocks(w, n: int, out) -> None:
    """W's four (H, K) gate blocks transposed into ``out`` (4, K, H), in the layer's order
    i, f, o, g, those of the sigmoid gates halved (see _lstm_layer): one pass over W"""
    blocks = w.reshape(4, n, -1).transpose(0, 2, 1)
    half = _number(0.5, w)
    xp.multiply(blocks[:2], half, out=out[:2])  # i, f
    xp.multiply(blocks[3], half, out=out[2])  # o
    xp.copyto(out[3], blocks[2])  # g


def _lstm_layer(x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse=False):
    """h_t, c_t, [i, f, o, g]_t, tanh(c_t) for every step: a_t = x_t W_ihᵀ + b_ih + b_hh +
    h_{t-1} W_hhᵀ, i, f, o = σ(a_{i,f,o}), g = tanh(a_g), c_t = f c_{t-1} + i g,
    h_t = o tanh(c_t)"""
    steps, batch, size = x.shape
    n = h0.shape[-1]
    dtype = x.dtype
    # A step's gates are one product [h_{t-1}, x_t, 1] @ [W_hhᵀ; W_ihᵀ; b_ih + b_hh] per gate
    # (batched over the four gates, which OpenBLAS runs faster than one (B, K) @ (K, 4H)
    # product): a product with 65 more rows than h W_hhᵀ alone costs 4 µs more a step for
    # these sizes, and spares the input's product over all steps, the bias added to its
    # result and that result added to each step's (10 µs a step, and a pass over the
    # gates' memory). The rows [h_{t-1}, x_t, 1] of every step lie in one buffer, each
    # step writing its h_t into the next one's.
    # σ(a) = (1 + tanh(a/2)) / 2: the weights and biases of i, f, o come halved, so that
    # one tanh serves the four gates of a step, and σ's affine map then runs once on the
    # block of the three sigmoid gates.
    k = n + size + 1
    weights = _aligned_empty((4, k, n), dtype, x)
    _gate_blocks(w_hh, n, weights[:, :n])
    _gate_blocks(w_ih, n, weights[:, n : n + size])
    bias = (b_ih + b_hh).reshape(4, n)[_IFOG]
    bias[:3] *= _number(0.5, x)
    weights[:, n + size] = bias
    rows = xp.empty((steps, batch, k), dtype=dtype)
    rows[:, :, n : n + size] = x
    rows[:, :, n + size] = 1
    gates = xp.empty((steps, 4, batch, n), dtype=dtype)  # gate-major per step
    hs = xp.empty((steps, batch, n), dtype=dtype)
    cs = xp.empty_like(hs)
    tcs = xp.empty_like(hs)
    ig = xp.empty((batch, n), dtype=dtype)
    # the product's result in an aligned buffer every step reuses (warm in the cache: 3 µs
    # a step faster than written straight into the step's gates)
    rec = _aligned_empty((4, batch, n), dtype, x)
    half = _number(0.5, x)
    matmul, multiply, tanh = xp.matmul, xp.multiply, xp.tanh
    order = _order(steps, reverse)
    h_rows = rows[:, :, :n]  # h_{t-1} in each step's rows
    if steps:
        xp.copyto(h_rows[order[0]], h0)
    copyto = xp.copyto
    c = c0
    after = -1 if reverse else 1
    last = order[-1] if steps else None
    for t in order:
        s = gates[t]
        matmul(rows[t], weights, out=rec)
        tanh(rec, out=s)
        sig = s[:3]
        sig *= half
        sig += half  # i, f, o
        c_t = cs[t]
        multiply(s[1], c, out=c_t)
        multiply(s[0], s[3], out=ig)
        c_t += ig
        tc = tcs[t]
        tanh(c_t, out=tc)
        h = hs[t]
        multiply(s[2], tc, out=h)
        if t != last:
            copyto(h_rows[t + after], h)
        c = c_t
    return hs, cs, gates, tcs


@shared
def _through_time(g, w_hh, h0, c0, ans, reverse):
    """d/da_t for every step (T, B, 4H, in time order, PyTorch's gate order), d/dh0 and
    d/dc0: backward through time, one pass for the VJPs of all inputs (``shared``)."""
    if isinstance(ans[0], Tensor):
        return _composed_through_time(g, w_hh, h0, c0, ans, reverse)
    return _array_through_time(g, w_hh, h0, c0, ans, reverse)


def _array_through_time(g, w_hh, h0, c0, ans, reverse):
    """The pass on arrays, per step (latest first): dh_t = g_h + da_{t+1} W_hh,
    dc_t = g_c + dh_t o (1 - tanh²c_t) + dc_{t+1} f_{t+1}, da_t = [dc g σ'(a_i),
    dc c_{t-1} σ'(a_f), dc i tanh'(a_g), dh tanh(c_t) σ'(a_o)], with σ' = σ (1 - σ) and
    tanh'(a_g) = 1 - g². d/dh0, the product at the step the recurrence ran first, is
    left to _layer_vjp_h0 (None here): only h0's gradient reads it."""
    hs, cs, gates, tcs = ans
    steps, batch, n = hs.shape
    dtype = hs.dtype
    one = _number(1, hs)
    add, multiply, subtract, matmul = xp.add, xp.multiply, xp.subtract, xp.matmul
    g_h, g_c, g_gates, g_tc = g
    # gradients that reach c_t and the gates directly (not through h): their own factors
    # (rare: nn.LSTM's outputs are h_t, h_n and c_n)
    if g_tc is not None:
        g_tc = g_tc * (1 - tcs * tcs)
        g_c = g_tc if g_c is None else g_c + g_tc
    direct = None
    if g_gates is not None:  # (T, 4, B, H) in the order i, f, o, g: to d_a's i, f, g, o
        direct = xp.empty((steps, 4, batch, n), dtype=dtype)
        sig, gg = gates[:, :3], gates[:, 3]
        derivative = (sig * (1 - sig), 1 - gg * gg)
        for j, gate in enumerate(_IFOG):
            part = derivative[1] if gate == 3 else derivative[0][:, gate]
            multiply(g_gates[:, gate], part, out=direct[:, j])
    # d_a in PyTorch's layout (T, B, 4H), worked gate-major per step through a transposed
    # view (B, 4, H) -> (4, B, H)
    d_a = xp.empty((steps, batch, 4, n), dtype=dtype)
    by_gate = d_a.transpose(0, 2, 1, 3)
    # da W_hh as the sum of two products (B, 2H) @ (2H, H), of the gates i, f and g, o, one
    # batched product that reads da as it lies (rows 4H apart): OpenBLAS runs it in 14 µs, a
    # batch of the four gates' (H, H) blocks and their sum in 16.5, one (B, 4H) @ (4H, H)
    # product in 25
    pairs = d_a.reshape(steps, batch, 2, 2 * n).transpose(0, 2, 1, 3)
    w_pairs = _aligned(w_hh.reshape(2, 2 * n, n))
    per_pair = _aligned_empty((2, batch, n), dtype, hs)
    dh = xp.empty((batch, n), dtype=dtype)
    dc = xp.empty((batch, n), dtype=dtype)
    carry_h = xp.empty((batch, n), dtype=dtype)
    carry_c = xp.empty((batch, n), dtype=dtype)
    # what dc_t multiplies, k = [g σ'(a_i), c_{t-1} σ'(a_f), i tanh'(a_g)], and what dh_t
    # multiplies, k_o = tanh(c) σ'(a_o) and from_h = o tanh'(c) = o - h tanh(c) (dc_t's part
    # from dh_t): worked per step on its (B, H) blocks, in buffers a step reuses. (Worked
    # for all steps before the pass they took 1.3 MB more and as many passes over memory;
    # in the bench's runs, which start with cold caches, 2-3% slower; worked for 8 steps at
    # a time, as fast as per step: the passes over memory cost, not the calls.)
    k = xp.empty((3, batch, n), dtype=dtype)
    d_sig = xp.empty((3, batch, n), dtype=dtype)
    from_h = xp.empty((batch, n), dtype=dtype)
    k_i, k_f, k_g = k
    ds_i, ds_f, k_o = d_sig  # σ' of i and f; k_o = h (1 - σ(a_o)) = tanh(c) σ'(a_o)
    ds_if = d_sig[:2]
    per_i, per_o = per_pair
    first, last = (0, steps - 1) if reverse else (steps - 1, 0)
    for t in _order(steps, not reverse):
        s = gates[t]  # i, f, o, g
        i, f, o, gg = s[0], s[1], s[2], s[3]
        h, tc = hs[t], tcs[t]
        if reverse:  # c_{t-1}: the cell state the recurrence carried into step t
            c_prev = cs[t + 1] if t != last else c0
        else:
            c_prev = cs[t - 1] if t else c0
        subtract(one, s[:3], out=d_sig)
        multiply(h, k_o, out=k_o)
        ds_if *= s[:2]
        multiply(ds_i, gg, out=k_i)
        multiply(ds_f, c_prev, out=k_f)
        multiply(gg, gg, out=k_g)
        subtract(one, k_g, out=k_g)
        k_g *= i
        multiply(h, tc, out=from_h)
        subtract(o, from_h, out=from_h)
        if t == first:  # nothing carried back into the latest step
            dh_t = dh * 0 if g_h is None else g_h[t]
            multiply(dh_t, from_h, out=dc)
        else:
            if g_h is None:
                dh_t = carry_h
            else:
                dh_t = dh
                add(g_h[t], carry_h, out=dh)
            multiply(dh_t, from_h, out=dc)
            dc += carry_c
        if g_c is not None:
            dc += g_c[t]
        da = by_gate[t]
        multiply(dc, k_i, out=da[0])
        multiply(dc, k_f, out=da[1])
        multiply(dc, k_g, out=da[2])
        multiply(dh_t, k_o, out=da[3])
        if direct is not None:
            da += direct[t]
        multiply(dc, f, out=carry_c)
        if t != last:
            matmul(pairs[t], w_pairs, out=per_pair)
            add(per_i, per_o, out=carry_h)
    return d_a.reshape(steps, batch, 4 * n), None, carry_c


class _Steps:
    """The layer's values at every step in the order the recurrence ran them, from its
    outputs so ordered: h_{t-1}, c_{t-1}, the gates i, f, g, o and tanh(c_t) (tensors, for
    create_graph and forward mode)."""

    def __init__(self, h0, c0, ans) -> None:
        hs, cs, gates, tcs = ans
        n = h0.shape[-1]
        self.n, self.steps, self.batch = n, hs.shape[0], hs.shape[1]
        self.h_prev = _join_steps(h0, hs[:-1])
        self.c_prev = _join_steps(c0, cs[:-1])
        self.i, self.f = gates[:, 0], gates[:, 1]
        self.o, self.g = gates[:, 2], gates[:, 3]
        self.tc = tcs

    def gates_derivative(self):
        """[σ'(a_i), σ'(a_f), tanh'(a_g), σ'(a_o)] for every step, (T, B, 4H), PyTorch's
        gate order"""
        return _join(
            (
                self.i * (1 - self.i),
                self.f * (1 - self.f),
                1 - self.g * self.g,
                self.o * (1 - self.o),
            )
        )


def _join_steps(first, rest):
    """first (B, H) as step 0, then rest (T-1, B, H)"""
    first = first[None]
    if rest.shape[0] == 0:
        return first
    return joining.cat([first, rest], dim=0, offsets=(0, 1, 1 + rest.shape[0]))


def _h_prev(h0, hs, reverse: bool):
    """h_{t-1} for every step in time order: the hidden state carried into step t"""
    if not reverse:
        return _join_steps(h0, hs[:-1])
    if hs.shape[0] == 1:
        return h0[None]
    return joining.cat([hs[1:], h0[None]], dim=0, offsets=(0, hs.shape[0] - 1, hs.shape[0]))


def _grad_w_hh(d, h0, hs, reverse: bool):
    """Σ_t d_tᵀ h_{t-1} for d (T, B, K) and the hidden states hs (T, B, H): one product over
    all steps. On arrays the step whose h_{t-1} is h0 is its own small product, left out
    where it adds nothing (h0 zero, as nn's default state, and d finite there): no joined
    copy of the hidden states."""
    if isinstance(d, Tensor) or isinstance(hs, Tensor):
        return _rows(d).T @ _rows(_h_prev(h0, hs, reverse))
    rows, batch = _rows(d), d.shape[1]
    if reverse:  # the last step's h_{t-1} is h0
        later, first, prev = rows[:-batch], rows[-batch:], hs[1:]
    else:
        later, first, prev = rows[batch:], rows[:batch], hs[:-1]
    grad = later.T @ _rows(prev)
    if h0.any() or not xp.isfinite(first).all():
        grad += first.T @ h0
    return grad


def _flip_time(t):
    """t in the other time order"""
    return joining.flip(t, dims=(0,))


def _composed_through_time(g, w_hh, h0, c0, ans, reverse):
    """The pass of _array_through_time composed of chainrule's ops (tensors, recorded)."""
    if reverse:  # the steps in the order the recurrence ran them, then back
        ans = tuple(_flip_time(a) for a in ans)
        g = tuple(None if x is None else _flip_time(x) for x in g)
    v = _Steps(h0, c0, ans)
    n = v.n
    g_h, g_c, g_gates, g_tc = g
    act = v.gates_derivative()
    one_minus_tc2 = 1 - v.tc * v.tc
    if g_tc is not None:
        g_tc = g_tc * one_minus_tc2
        g_c = g_tc if g_c is None else g_c + g_tc
    direct = None
    if g_gates is not None:  # (T, 4, B, H), i, f, o, g: to PyTorch's order, (T, B, 4H)
        direct = _join(tuple(g_gates[:, k] for k in _IFOG)) * act
    d_c_from_h = v.o * one_minus_tc2
    d_ifg = _join((v.g, v.c_prev, v.i)).reshape(v.steps, v.batch, 3, n)
    d_o = v.tc * act[..., 3 * n :]
    d_ifg = d_ifg * act[..., : 3 * n].reshape(v.steps, v.batch, 3, n)
    grads: list = [None] * v.steps
    carry_h = carry_c = None
    for t in range(v.steps - 1, -1, -1):
        dh = carry_h if g_h is None else g_h[t] if carry_h is None else g_h[t] + carry_h
        if dh is None:
            dh = d_c_from_h[t] * 0
        dc = dh * d_c_from_h[t]
        if g_c is not None:
            dc = dc + g_c[t]
        if carry_c is not None:
            dc = dc + carry_c
        da = _join(((dc[:, None, :] * d_ifg[t]).reshape(v.batch, 3 * n), dh * d_o[t]))
        if direct is not None:
            da = da + direct[t]
        grads[t] = da
        carry_h = da @ w_hh
        carry_c = dc * v.f[t]
    d_a = joining.stack(grads, dim=0)
    return (_flip_time(d_a) if reverse else d_a), carry_h, carry_c


def _rows(a):
    """a (T, B, K) as a (T·B, K) matrix"""
    return a.reshape(a.shape[0] * a.shape[1], a.shape[2])


def _layer_vjp_x(g, w_ih, w_hh, h0, c0, ans, reverse):
    """d/dx_t = (d/da_t) W_ih, d/da_t from backward through time"""
    d_a = _through_time(g, w_hh, h0, c0, ans, reverse)[0]
    return (_rows(d_a) @ w_ih).reshape(d_a.shape[0], d_a.shape[1], w_ih.shape[1])


def _layer_vjp_w_ih(g, x, w_hh, h0, c0, ans, reverse):
    """d/dW_ih = Σ_t (d/da_t)ᵀ x_t: one product over all steps"""
    d_a = _through_time(g, w_hh, h0, c0, ans, reverse)[0]
    return _rows(d_a).T @ _rows(x)


def _layer_vjp_bias(g, w_hh, h0, c0, ans, reverse):
    """d/db_ih = d/db_hh = Σ_t d/da_t"""
    d_a = _through_time(g, w_hh, h0, c0, ans, reverse)[0]
    if isinstance(d_a, Tensor):
        return reductions.sum(d_a, dim=(0, 1))
    return _column_sums_once(d_a).copy()  # (the other bias's: the same sum, its own array)


def _column_sums(d):
    """Σ over the steps and the batch of an array d (T, B, K): for float32 and float64 a
    product with ones, which BLAS runs in a quarter of the time of NumPy's sum over the
    first two dims"""
    if d.dtype.itemsize < 4:  # (no BLAS for half precision)
        return reductions.sum(d, dim=(0, 1))
    rows = _rows(d)
    return xp.matmul(xp.ones(rows.shape[0], dtype=rows.dtype), rows)


_column_sums_once = shared(_column_sums)  # (for the two biases of one LSTM node)


def _layer_vjp_w_hh(g, w_hh, h0, c0, ans, reverse):
    """d/dW_hh = Σ_t (d/da_t)ᵀ h_{t-1}: one product over all steps"""
    d_a = _through_time(g, w_hh, h0, c0, ans, reverse)[0]
    return _grad_w_hh(d_a, h0, ans[0], reverse)


def _layer_vjp_h0(g, w_hh, h0, c0, ans, reverse):
    """d/dh0 = (d/da_first) W_hh, at the step the recurrence ran first"""
    d_a, grad, _ = _through_time(g, w_hh, h0, c0, ans, reverse)
    if grad is None:  # (the pass on arrays leaves this product to the one VJP that reads it)
        grad = d_a[-1 if reverse else 0] @ w_hh
    return grad


def _layer_vjp_c0(g, w_hh, h0, c0, ans, reverse):
    """d/dc0 = (d/dc_first) f_first, at the step the recurrence ran first"""
    return _through_time(g, w_hh, h0, c0, ans, reverse)[2]


def _layer_tangent(v, w_hh, d_a, dh, dc):
    """the tangents of [h_t], [c_t], [i, f, g, o] and [tanh c_t] for every step, from the
    tangents of the gates' inputs d_a (T, B, 4H, without the recurrent part) and of the
    initial state: da_t = d_a[t] + dh_{t-1} W_hhᵀ, dc_t = f' c_{t-1} + f dc_{t-1} + i' g + i g',
    dh_t = o' tanh c_t + o tanh'(c_t) dc_t"""
    n = v.n
    act = v.gates_derivative()
    d_hs, d_cs, d_gates, d_tcs = [], [], [], []
    w_t = w_hh.T
    for t in range(v.steps):
        da = d_a[t] if dh is None else d_a[t] + dh @ w_t
        ds = da * act[t]  # the gates' tangents: i', f', g', o'
        dc_new = ds[:, n : 2 * n] * v.c_prev[t] + ds[:, :n] * v.g[t] + ds[:, 2 * n : 3 * n] * v.i[t]
        if dc is not None:
            dc_new = dc_new + v.f[t] * dc
        dc = dc_new
        tc = v.tc[t]
        d_tc = (1 - tc * tc) * dc
        dh = ds[:, 3 * n :] * tc + v.o[t] * d_tc
        d_hs.append(dh)
        d_cs.append(dc)
        d_gates.append(joining.stack([ds[:, k * n : (k + 1) * n] for k in _IFOG], dim=0))
        d_tcs.append(d_tc)
    return tuple(joining.stack(d, dim=0) for d in (d_hs, d_cs, d_gates, d_tcs))


def _gates_shaped(ans, w_hh):
    """a tensor of the pre-activations' shape (T, B, 4H): h_t's first column times W_hh's
    first column (its values of no use)"""
    return ans[0][..., :1] * w_hh[:, 0]


def _carried(w_hh, h0, c0, ans, reverse, d_a=None, dh=None, dc=None):
    """the outputs' tangents, carried through time from the gates' inputs' (d_a, time
    order, None for none) and the initial state's (dh, dc)"""
    if reverse:
        ans = tuple(_flip_time(a) for a in ans)
        d_a = None if d_a is None else _flip_time(d_a)
    if d_a is None:
        d_a = _gates_shaped(ans, w_hh) * 0
    out = _layer_tangent(_Steps(h0, c0, ans), w_hh, d_a, dh, dc)
    return tuple(_flip_time(t) for t in out) if reverse else out


def _layer_jvp_x(t, w_ih, w_hh, h0, c0, ans, reverse):
    """the tangents carried through time from da_t = t_t W_ihᵀ"""
    d_a = (_rows(t) @ w_ih.T).reshape(t.shape[0], t.shape[1], w_ih.shape[0])
    return _carried(w_hh, h0, c0, ans, reverse, d_a)


def _layer_jvp_w_ih(t, x, w_hh, h0, c0, ans, reverse):
    """the tangents carried through time from da_t = x_t tᵀ"""
    d_a = (_rows(x) @ t.T).reshape(x.shape[0], x.shape[1], t.shape[0])
    return _carried(w_hh, h0, c0, ans, reverse, d_a)


def _layer_jvp_bias(t, w_hh, h0, c0, ans, reverse):
    """the tangents carried through time from da_t = t"""
    return _carried(w_hh, h0, c0, ans, reverse, _gates_shaped(ans, w_hh) * 0 + t)


def _layer_jvp_w_hh(t, w_hh, h0, c0, ans, reverse):
    """the tangents carried through time from da_t = h_{t-1} tᵀ"""
    hs = ans[0]
    d_a = (_rows(_h_prev(h0, hs, reverse)) @ t.T).reshape(hs.shape[0], hs.shape[1], t.shape[0])
    return _carried(w_hh, h0, c0, ans, reverse, d_a)


def _layer_jvp_h0(t, w_hh, h0, c0, ans, reverse):
    """the tangents carried through time from h_0's, dh_0 = t"""
    return _carried(w_hh, h0, c0, ans, reverse, dh=t)


def _layer_jvp_c0(t, w_hh, h0, c0, ans, reverse):
    """the tangents carried through time from c_0's, dc_0 = t"""
    return _carried(w_hh, h0, c0, ans, reverse, dc=t)


def _layer_node(x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse=False) -> str:
    # PyTorch runs a float32 LSTM on oneDNN's fused layer, a float64 one step by step, its
    # output then the stack of the steps' (the last node of that graph names this one)
    return "StackBackward0" if x.dtype == xp.float64 else "MkldnnRnnLayerBackward0"


lstm_layer = defop(
    "lstm_layer",
    _lstm_layer,
    args=("x", "w_ih", "w_hh", "b_ih", "b_hh", "h0", "c0"),
    dtypes=FLOAT,
    node=_layer_node,
    vjp=(
        _layer_vjp_x,
        _layer_vjp_w_ih,
        _layer_vjp_w_hh,
        _layer_vjp_bias,
        _layer_vjp_bias,
        _layer_vjp_h0,
        _layer_vjp_c0,
    ),
    jvp=(
        _layer_jvp_x,
        _layer_jvp_w_ih,
        _layer_jvp_w_hh,
        _layer_jvp_bias,
        _layer_jvp_bias,
        _layer_jvp_h0,
        _layer_jvp_c0,
    ),
    shares=True,  # (one pass back through time for every input's VJP)
)


# ----- a whole GRU layer -----------------------------------------------------------------------
#
# ``gru_layer(x, w_ih, w_hh, b_ih, b_hh, h0, reverse=False)``: one direction of one GRU layer
# in one op, with four outputs: the hidden states h (T, B, H), the gates' values [r, z, n]
# (T, B, 3H), the recurrent part of the candidate's pre-activation, h W_hnᵀ + b_hn
# (T, B, H), and a copy of h: backward reads the last three, so the first is free to change
# in place (nn.GRU transposes it in place for batch_first). PyTorch runs its GRU step by step
# and stacks the steps' outputs, so the node is named as that stack (StackBackward0). Forward runs on preallocated
# arrays; backward through time is written once in chainrule's ops (arrays without
# create_graph, tensors with it), one product per step.


def _gru_layer(x, w_ih, w_hh, b_ih, b_hh, h0, reverse=False):
    """h_t, [r, z, n], h_{t-1} W_hnᵀ + b_hn, h_t for every step: r, z = σ(x W_i{r,z}ᵀ + b_i{r,z} +
    h_{t-1} W_h{r,z}ᵀ + b_h{r,z}), n = tanh(x W_inᵀ + b_in + r (h_{t-1} W_hnᵀ + b_hn)),
    h_t = (1 - z) n + z h_{t-1}"""
    steps, batch = x.shape[0], x.shape[1]
    n = h0.shape[-1]
    dtype = x.dtype
    hs = xp.empty((steps, batch, n), dtype=dtype)
    hns = xp.empty_like(hs)
    gates = xp.empty((steps, batch, 3 * n), dtype=dtype)
    # σ(a) = 1 / (1 + e^-a), tanh(a) = 2σ(2a) - 1: pre-activations scaled by -1 (-2 for n)
    scale = xp.repeat(xp.asarray([-1.0, -1.0, -2.0], dtype=dtype), n)
    flat = gates.reshape(steps * batch, 3 * n)
    xp.matmul(x.reshape(steps * batch, x.shape[-1]), (w_ih * scale[:, None]).T, out=flat)
    flat += b_ih * scale
    w_t = _aligned((w_hh * scale[:, None]).T)
    b_s = b_hh * scale
    hw = xp.empty((batch, 3 * n), dtype=dtype)
    tmp = xp.empty((batch, n), dtype=dtype)
    h = h0
    for t in _order(steps, reverse):
        a = gates[t]
        xp.matmul(h, w_t, out=hw)
        hw += b_s
        rz = a[:, : 2 * n]
        rz += hw[:, : 2 * n]
        xp.exp(rz, out=rz)
        rz += 1
        xp.reciprocal(rz, out=rz)
        xp.multiply(hw[:, 2 * n :], -0.5, out=hns[t])
        cand = a[:, 2 * n :]
        xp.multiply(a[:, :n], hw[:, 2 * n :], out=tmp)
        cand += tmp
        xp.exp(cand, out=cand)
        cand += 1
        xp.reciprocal(cand, out=cand)
        cand *= 2
        cand -= 1
        xp.subtract(h, cand, out=tmp)  # h_t = n + z (h_{t-1} - n)
        tmp *= a[:, n : 2 * n]
        xp.add(cand, tmp, out=hs[t])
        h = hs[t]
    return hs, gates, hns, hs.copy()


@shared
def _gru_through_time(g, w_hh, h0, ans, reverse):
    """d/d(x's part) and d/d(h's part) of the pre-activations for every step (T, B, 3H each,
    time order) and d/dh0, one pass for the VJPs of all inputs (``shared``)."""
    return _gru_pass(g, w_hh, h0, ans, reverse)


def _gru_pass(g, w_hh, h0, ans, reverse):
    """Latest step first: dh_t = g_h + (carried from t+1); dn = dh (1 - z) tanh'; dz = dh
    (h_{t-1} - n) σ'(z); dr = dn (h W_hnᵀ + b_hn) σ'(r); the h part gets [dr, dz, dn r],
    the x part [dr, dz, dn]; carried back: [dr, dz, dn r] W_hh + dh z."""
    if reverse:
        ans = tuple(_flip_time(a) for a in ans)
        g = tuple(None if x is None else _flip_time(x) for x in g)
    _, gates, hns, hs = ans
    g_h, g_gates, g_hn, g_copy = g
    if g_copy is not None:
        g_h = g_copy if g_h is None else g_h + g_copy
    n = hs.shape[-1]
    steps = hs.shape[0]
    r, z, cand = gates[..., :n], gates[..., n : 2 * n], gates[..., 2 * n :]
    h_prev = _join_steps(h0, hs[:-1])
    d_tanh = 1 - cand * cand
    d_sz = z * (1 - z)
    d_sr = r * (1 - r)
    from_h_n = (1 - z) * d_tanh
    from_h_z = (h_prev - cand) * d_sz
    from_n_r = hns * d_sr
    direct_n = direct_z = direct_r = None
    if g_gates is not None:  # gradients reaching the gates' values directly
        direct_n = g_gates[..., 2 * n :] * d_tanh
        direct_z = g_gates[..., n : 2 * n] * d_sz
        direct_r = g_gates[..., :n] * d_sr
    xs: list = [None] * steps
    hws: list = [None] * steps
    carry = None
    for t in range(steps - 1, -1, -1):
        dh = carry if g_h is None else g_h[t] if carry is None else g_h[t] + carry
        if dh is None:
            dh = hs[t] * 0
        dn = dh * from_h_n[t]
        dz = dh * from_h_z[t]
        if direct_n is not None:
            dn = dn + direct_n[t]
            dz = dz + direct_z[t]
        dr = dn * from_n_r[t]
        d_hn = dn * r[t]
        if direct_r is not None:
            dr = dr + direct_r[t]
        if g_hn is not None:
            d_hn = d_hn + g_hn[t]
        hw = _join((dr, dz, d_hn))
        xs[t] = _join((dr, dz, dn))
        hws[t] = hw
        carry = hw @ w_hh + dh * z[t]
    d_x, d_h = joining.stack(xs, dim=0), joining.stack(hws, dim=0)
    if reverse:
        d_x, d_h = _flip_time(d_x), _flip_time(d_h)
    return d_x, d_h, carry


def _gru_vjp_x(g, w_ih, w_hh, h0, ans, reverse):
    """d/dx_t = (d/d x's part_t) W_ih"""
    d_x = _gru_through_time(g, w_hh, h0, ans, reverse)[0]
    return (_rows(d_x) @ w_ih).reshape(d_x.shape[0], d_x.shape[1], w_ih.shape[1])


def _gru_vjp_w_ih(g, x, w_hh, h0, ans, reverse):
    """d/dW_ih = Σ_t (d/d x's part_t)ᵀ x_t: one product over all steps"""
    return _rows(_gru_through_time(g, w_hh, h0, ans, reverse)[0]).T @ _rows(x)


def _gru_vjp_b_ih(g, w_hh, h0, ans, reverse):
    """d/db_ih = Σ_t d/d x's part_t"""
    return reductions.sum(_gru_through_time(g, w_hh, h0, ans, reverse)[0], dim=(0, 1))


def _gru_vjp_w_hh(g, w_hh, h0, ans, reverse):
    """d/dW_hh = Σ_t (d/d h's part_t)ᵀ h_{t-1}: one product over all steps"""
    d_h = _gru_through_time(g, w_hh, h0, ans, reverse)[1]
    return _grad_w_hh(d_h, h0, ans[3], reverse)


def _gru_vjp_b_hh(g, w_hh, h0, ans, reverse):
    """d/db_hh = Σ_t d/d h's part_t"""
    return reductions.sum(_gru_through_time(g, w_hh, h0, ans, reverse)[1], dim=(0, 1))


def _gru_vjp_h0(g, w_hh, h0, ans, reverse):
    """d/dh0: carried back through time to the step the recurrence ran first"""
    return _gru_through_time(g, w_hh, h0, ans, reverse)[2]


def _gru_carried(w_hh, h0, ans, reverse, d_x=None, d_h=None, dh=None):
    """the outputs' tangents carried through time from the tangents of the pre-activations'
    x part (d_x) and h part (d_h, without the recurrence; time order, None for none) and of
    h0 (dh): d(hW)_t = d_h[t] + dh_{t-1} W_hhᵀ, dr = (d_x + d(hW))_r σ'(r), dz likewise,
    dhn = d(hW)_n, dn = (d_x,n + dr hn + r dhn) tanh'(n), dh_t = (1 - z) dn + dz (h_{t-1} - n)
    + z dh_{t-1}"""
    if reverse:
        ans = tuple(_flip_time(a) for a in ans)
        d_x = None if d_x is None else _flip_time(d_x)
        d_h = None if d_h is None else _flip_time(d_h)
    _, gates, hns, hs = ans
    n = hs.shape[-1]
    r, z, cand = gates[..., :n], gates[..., n : 2 * n], gates[..., 2 * n :]
    h_prev = _join_steps(h0, hs[:-1])
    w_t = w_hh.T
    d_hs, d_gates, d_hns = [], [], []
    for t in range(hs.shape[0]):
        pre = gates[t] * 0 if d_x is None else d_x[t]
        hw = None if d_h is None else d_h[t]
        if dh is not None:
            rec = dh @ w_t
            hw = rec if hw is None else hw + rec
        if hw is None:
            hw = gates[t] * 0
        d_r = (pre[:, :n] + hw[:, :n]) * (r[t] * (1 - r[t]))
        d_z = (pre[:, n : 2 * n] + hw[:, n : 2 * n]) * (z[t] * (1 - z[t]))
        d_hn = hw[:, 2 * n :]
        d_n = (pre[:, 2 * n :] + d_r * hns[t] + r[t] * d_hn) * (1 - cand[t] * cand[t])
        new = (1 - z[t]) * d_n + d_z * (h_prev[t] - cand[t])
        dh = new if dh is None else new + z[t] * dh
        d_hs.append(dh)
        d_gates.append(_join((d_r, d_z, d_n)))
        d_hns.append(d_hn)
    out = tuple(joining.stack(d, dim=0) for d in (d_hs, d_gates, d_hns))
    if reverse:
        out = tuple(_flip_time(t) for t in out)
    return (*out, out[0])


def _gru_jvp_x(t, w_ih, w_hh, h0, ans, reverse):
    """the tangents carried through time from the x part's, t_t W_ihᵀ"""
    d_x = (_rows(t) @ w_ih.T).reshape(t.shape[0], t.shape[1], w_ih.shape[0])
    return _gru_carried(w_hh, h0, ans, reverse, d_x=d_x)


def _gru_jvp_w_ih(t, x, w_hh, h0, ans, reverse):
    """the tangents carried through time from the x part's, x_t tᵀ"""
    d_x = (_rows(x) @ t.T).reshape(x.shape[0], x.shape[1], t.shape[0])
    return _gru_carried(w_hh, h0, ans, reverse, d_x=d_x)


def _gru_jvp_b_ih(t, w_hh, h0, ans, reverse):
    """the tangents carried through time from the x part's, t"""
    return _gru_carried(w_hh, h0, ans, reverse, d_x=ans[1] * 0 + t)


def _gru_jvp_w_hh(t, w_hh, h0, ans, reverse):
    """the tangents carried through time from the h part's, h_{t-1} tᵀ"""
    d_h = (_rows(_h_prev(h0, ans[3], reverse)) @ t.T).reshape(ans[1].shape)
    return _gru_carried(w_hh, h0, ans, reverse, d_h=d_h)


def _gru_jvp_b_hh(t, w_hh, h0, ans, reverse):
    """the tangents carried through time from the h part's, t"""
    return _gru_carried(w_hh, h0, ans, reverse, d_h=ans[1] * 0 + t)


def _gru_jvp_h0(t, w_hh, h0, ans, reverse):
    """the tangents carried through time from h_0's, dh_0 = t"""
    return _gru_carried(w_hh, h0, ans, reverse, dh=t)


gru_layer = defop(
    "gru_layer",
    _gru_layer,
    args=("x", "w_ih", "w_hh", "b_ih", "b_hh", "h0"),
    dtypes=FLOAT,
    node="StackBackward0",
    ans_reads=(1, 2, 3),
    vjp=(_gru_vjp_x, _gru_vjp_w_ih, _gru_vjp_w_hh, _gru_vjp_b_ih, _gru_vjp_b_hh, _gru_vjp_h0),
    jvp=(_gru_jvp_x, _gru_jvp_w_ih, _gru_jvp_w_hh, _gru_jvp_b_ih, _gru_jvp_b_hh, _gru_jvp_h0),
    shares=True,  # (one pass back through time for every input's VJP)
)


# ----- a whole Elman RNN layer -------------------------------------------------------------------
#
# ``rnn_layer(x, w_ih, w_hh, b_ih, b_hh, h0, nonlinearity="tanh", reverse=False)``: one
# direction of one RNN layer in one op, with two outputs: the hidden states h (T, B, H) and a
# copy of them that backward reads (so the first is free to change in place, as PyTorch's
# stacked steps are). Named as PyTorch's stack of the steps (StackBackward0).


def _rnn_layer(x, w_ih, w_hh, b_ih, b_hh, h0, nonlinearity="tanh", reverse=False):
    """h_t = tanh(x_t W_ihᵀ + b_ih + h_{t-1} W_hhᵀ + b_hh) (or relu) for every step, twice"""
    steps, batch = x.shape[0], x.shape[1]
    n = h0.shape[-1]
    hs = xp.empty((steps, batch, n), dtype=x.dtype)
    flat = hs.reshape(steps * batch, n)
    xp.matmul(x.reshape(steps * batch, x.shape[-1]), w_ih.T, out=flat)
    flat += b_ih + b_hh
    w_t = _aligned(w_hh.T)
    hw = xp.empty((batch, n), dtype=x.dtype)
    h = h0
    for t in _order(steps, reverse):
        a = hs[t]
        xp.matmul(h, w_t, out=hw)
        a += hw
        if nonlinearity == "tanh":
            xp.tanh(a, out=a)
        else:
            xp.maximum(a, 0, out=a)
        h = a
    return hs, hs.copy()


@shared
def _rnn_through_time(g, w_hh, ans, nonlinearity, reverse):
    """d/da_t for every step (time order) and d/dh0: latest step first, dh_t = g_t +
    da_{t+1} W_hh, da_t = dh_t act'(a_t), with tanh' = 1 - h², relu' = [h > 0]; one pass
    for the VJPs of all inputs (``shared``)"""
    hs = ans[1]
    g_h = g[0] if g[1] is None else g[1] if g[0] is None else g[0] + g[1]
    d_act = 1 - hs * hs if nonlinearity == "tanh" else unary.sign(hs)
    if reverse:
        d_act, g_h = _flip_time(d_act), _flip_time(g_h)
    das: list = [None] * hs.shape[0]
    carry = None
    for t in range(hs.shape[0] - 1, -1, -1):
        dh = g_h[t] if carry is None else g_h[t] + carry
        das[t] = dh * d_act[t]
        carry = das[t] @ w_hh
    d_a = joining.stack(das, dim=0)
    return (_flip_time(d_a) if reverse else d_a), carry


def _rnn_vjp_x(g, w_ih, w_hh, ans, nonlinearity, reverse):
    """d/dx_t = (d/da_t) W_ih"""
    d_a = _rnn_through_time(g, w_hh, ans, nonlinearity, reverse)[0]
    return (_rows(d_a) @ w_ih).reshape(d_a.shape[0], d_a.shape[1], w_ih.shape[1])


def _rnn_vjp_w_ih(g, x, w_hh, ans, nonlinearity, reverse):
    """d/dW_ih = Σ_t (d/da_t)ᵀ x_t: one product over all steps"""
    return _rows(_rnn_through_time(g, w_hh, ans, nonlinearity, reverse)[0]).T @ _rows(x)


def _rnn_vjp_bias(g, w_hh, ans, nonlinearity, reverse):
    """d/db_ih = d/db_hh = Σ_t d/da_t"""
    d_a = _rnn_through_time(g, w_hh, ans, nonlinearity, reverse)[0]
    return reductions.sum(d_a, dim=(0, 1))


def _rnn_vjp_w_hh(g, w_hh, h0, ans, nonlinearity, reverse):
    """d/dW_hh = Σ_t (d/da_t)ᵀ h_{t-1}: one product over all steps"""
    d_a = _rnn_through_time(g, w_hh, ans, nonlinearity, reverse)[0]
    return _grad_w_hh(d_a, h0, ans[1], reverse)


def _rnn_vjp_h0(g, w_hh, ans, nonlinearity, reverse):
    """d/dh0 = (d/da_first) W_hh, at the step the recurrence ran first"""
    return _rnn_through_time(g, w_hh, ans, nonlinearity, reverse)[1]


def _rnn_carried(w_hh, ans, nonlinearity, reverse, d_a=None, dh=None):
    """the outputs' tangents from the pre-activations' (d_a, time order, without the
    recurrence) and h0's (dh): dh_t = (d_a[t] + dh_{t-1} W_hhᵀ) act'(a_t)"""
    hs = ans[1]
    d_act = 1 - hs * hs if nonlinearity == "tanh" else unary.sign(hs)
    if reverse:
        d_act = _flip_time(d_act)
        d_a = None if d_a is None else _flip_time(d_a)
    w_t = w_hh.T
    outs = []
    for t in range(hs.shape[0]):
        pre = None if d_a is None else d_a[t]
        if dh is not None:
            pre = dh @ w_t if pre is None else pre + dh @ w_t
        if pre is None:
            pre = d_act[t] * 0
        dh = pre * d_act[t]
        outs.append(dh)
    out = joining.stack(outs, dim=0)
    if reverse:
        out = _flip_time(out)
    return out, out


def _rnn_jvp_x(t, w_ih, w_hh, ans, nonlinearity, reverse):
    """the tangents carried through time from da_t = t_t W_ihᵀ"""
    d_a = (_rows(t) @ w_ih.T).reshape(t.shape[0], t.shape[1], w_ih.shape[0])
    return _rnn_carried(w_hh, ans, nonlinearity, reverse, d_a)


def _rnn_jvp_w_ih(t, x, w_hh, ans, nonlinearity, reverse):
    """the tangents carried through time from da_t = x_t tᵀ"""
    d_a = (_rows(x) @ t.T).reshape(x.shape[0], x.shape[1], t.shape[0])
    return _rnn_carried(w_hh, ans, nonlinearity, reverse, d_a)


def _rnn_jvp_bias(t, w_hh, ans, nonlinearity, reverse):
    """the tangents carried through time from da_t = t"""
    return _rnn_carried(w_hh, ans, nonlinearity, reverse, ans[1] * 0 + t)


def _rnn_jvp_w_hh(t, w_hh, h0, ans, nonlinearity, reverse):
    """the tangents carried through time from da_t = h_{t-1} tᵀ"""
    d_a = (_rows(_h_prev(h0, ans[1], reverse)) @ t.T).reshape(ans[1].shape)
    return _rnn_carried(w_hh, ans, nonlinearity, reverse, d_a)


def _rnn_jvp_h0(t, w_hh, ans, nonlinearity, reverse):
    """the tangents carried through time from h_0's, dh_0 = t"""
    return _rnn_carried(w_hh, ans, nonlinearity, reverse, dh=t)


rnn_layer = defop(
    "rnn_layer",
    _rnn_layer,
    args=("x", "w_ih", "w_hh", "b_ih", "b_hh", "h0"),
    dtypes=FLOAT,
    node="StackBackward0",
    ans_reads=(1,),
    vjp=(_rnn_vjp_x, _rnn_vjp_w_ih, _rnn_vjp_w_hh, _rnn_vjp_bias, _rnn_vjp_bias, _rnn_vjp_h0),
    jvp=(_rnn_jvp_x, _rnn_jvp_w_ih, _rnn_jvp_w_hh, _rnn_jvp_bias, _rnn_jvp_bias, _rnn_jvp_h0),
    conventions="relu'(0) = 0, as PyTorch's.",
    shares=True,  # (one pass back through time for every input's VJP)
)


# ----- a layer's final state -----------------------------------------------------------------
#
# ``last_state(states, reverse=False)``: the state after the step the recurrence ran last
# (the last one, the first for a reverse layer) of a layer's states (T, B, H), as a stack of
# one (1, B, H): what PyTorch's h_n and c_n are for one layer and direction, the stack of the
# layer's final state (StackBackward0). One op instead of selecting the step and stacking it.


def _last_key(steps: int, reverse: bool) -> tuple:
    """the index of the step the recurrence ran last, kept as a dim"""
    k = 0 if reverse else steps - 1
    return (slice(k, k + 1),)


def _last_state(x, reverse=False):
    """x[T-1] (x[0] when reverse) stacked: (1, B, H)"""
    return x[_last_key(x.shape[0], reverse)].copy()


last_state = defop(
    "last_state",
    _last_state,
    dtypes=KEEP,
    node="StackBackward0",
    vjp=lambda g, x_shape, reverse: indexing.index_into_zeros(
        g, shape=x_shape, key=_last_key(x_shape[0], reverse)
    ),  # Jᵀg = zeros of x's shape with g at the step the recurrence ran last
    jvp=lambda t, reverse: last_state(t, reverse=reverse),  # J t = t's last step
    fp_errors=False,
)
