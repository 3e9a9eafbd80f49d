"""The fused LSTM cell: one op per time step for the gate nonlinearities and the state update,
as PyTorch's fused cell (``ThnnFusedLstmCellBackward0``).

``lstm_cell(gates, state)`` takes the gate pre-activations ``gates = [a_i, a_f, a_g, a_o]``
(PyTorch's order, each of width H: ``x W_ihᵀ + b_ih + h W_hhᵀ + b_hh``, computed outside by
one matrix product per step) and a ``state`` whose last H columns are the previous cell state
``c``, and returns ``[h', c']`` joined along the last dim, with

    i = σ(a_i), f = σ(a_f), g = tanh(a_g), o = σ(a_o)
    c' = f c + i g,    h' = o tanh(c')

One op in place of the dozen a step composes (the gates' split, three sigmoids, two tanh,
three products and a sum), so a layer records four nodes per step (the recurrent product,
this cell and two slices). Its VJPs and JVPs are written in chainrule's ops, so higher
derivatives and forward mode come with them.
"""

from __future__ import annotations

import weakref

from .._backend import xp
from .._tensor import Tensor
from ..autograd.recording import FLOAT, defop
from . import activations, joining, unary


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
# ``lstm_layer(xw, w_hh, h0, c0)`` runs the recurrence over all T steps in one op with four
# outputs, as PyTorch's oneDNN layer (``MkldnnRnnLayerBackward0``) does: xw (T, B, 4H) holds
# the input's part of every gate (x W_ihᵀ + b_ih + b_hh, one product outside); the outputs
# are the hidden states h (T, B, H), the cell states c (T, B, H), the gates' values
# [i, f, g, o] (T, B, 4H) and tanh(c) (T, B, H). Backward reads the last two instead of
# recomputing them (PyTorch's layer keeps them in its workspace). Backward through time is
# one loop of one product per step, and W_hh's gradient one product over all steps.
#
# Forward and the plain backward (arrays: no create_graph) are written on preallocated
# arrays, every gate nonlinearity in place, one call per step for each; with create_graph
# the VJPs get tensors and run the same formulas composed of chainrule's ops (_Steps,
# _composed_through_time), so higher derivatives follow, and forward mode uses those too.


def _lstm_layer(xw, w_hh, h0, c0):
    """h_t, c_t, [i, f, g, o], tanh(c_t) for every step: a_t = xw_t + h_{t-1} W_hhᵀ,
    i, f, o = σ(a_{i,f,o}), g = tanh(a_g), c_t = f c_{t-1} + i g, h_t = o tanh(c_t)"""
    steps, batch = xw.shape[0], xw.shape[1]
    n = h0.shape[-1]
    dtype = xw.dtype
    hs = xp.empty((steps, batch, n), dtype=dtype)
    cs = xp.empty_like(hs)
    tcs = xp.empty_like(hs)
    gates = xp.empty((steps, batch, 4 * n), dtype=dtype)
    # σ(a) = 1 / (1 + e^-a) for the four gates in one pass, with tanh(a) = 2σ(2a) - 1 for g:
    # the pre-activations come scaled by -1 (-2 for g) from the scaled weights and input part
    scale = xp.repeat(xp.asarray([-1.0, -1.0, -2.0, -1.0], dtype=dtype), n)
    w_t = (w_hh * scale[:, None]).T
    xs = xw * scale
    ig = xp.empty((batch, n), dtype=dtype)
    h, c = h0, c0
    for t in range(steps):
        a = gates[t]
        xp.matmul(h, w_t, out=a)
        a += xs[t]
        xp.exp(a, out=a)
        a += 1
        xp.reciprocal(a, out=a)
        g = a[:, 2 * n : 3 * n]
        g *= 2
        g -= 1
        c_t = cs[t]
        xp.multiply(a[:, n : 2 * n], c, out=c_t)
        xp.multiply(a[:, :n], g, out=ig)
        c_t += ig
        xp.tanh(c_t, out=tcs[t])
        xp.multiply(a[:, 3 * n :], tcs[t], out=hs[t])
        h, c = hs[t], c_t
    return hs, cs, gates, tcs


def _through_time(g, h0, c0, w_hh, ans):
    """d/da_t for every step (T, B, 4H), d/dh0 and d/dc0: backward through time.

    One pass serves the VJPs of all four inputs: a node calls them one after another with
    the same ``g`` and saved ``ans``, so the pass is kept for the calls that follow (keyed
    by the tuple ``g``, made afresh for each backward, and the saved outputs' identity).
    """
    key = _LAST[0]
    if key is not None and key[0] is g and key[1]() is ans[0]:
        return _LAST[1]
    if isinstance(ans[0], Tensor):
        result = _composed_through_time(g, h0, c0, w_hh, ans)
    else:
        result = _array_through_time(g, h0, c0, w_hh, ans)
    _LAST[0] = (g, weakref.ref(ans[0]))
    _LAST[1] = result
    return result


# the last backward through time (see _through_time)
_LAST: list = [None, None]


def _array_through_time(g, h0, c0, w_hh, ans):
    """The pass on arrays: what each step's dh and dc are multiplied by, for all steps at
    once, then per step dh_t = g_h + da_{t+1} W_hh, dc_t = g_c + dh_t o (1 - tanh²c_t) +
    dc_{t+1} f_{t+1}, da_t = [dc g σ'(a_i), dc c_{t-1} σ'(a_f), dc i tanh'(a_g),
    dh tanh(c_t) σ'(a_o)]."""
    hs, cs, gates, tcs = ans
    steps, batch, n = hs.shape
    dtype = hs.dtype
    q = gates.reshape(steps, batch, 4, n)
    i, f, gg, o = q[:, :, 0], q[:, :, 1], q[:, :, 2], q[:, :, 3]
    g_h, g_c, g_gates, g_tc = g
    # d_ifg[t] = [g σ'(a_i), c_{t-1} σ'(a_f), i tanh'(a_g)]; d_o = tanh(c) σ'(a_o);
    # from_h = o tanh'(c): dc_t's part from dh_t
    d_ifg = xp.empty((steps, batch, 3, n), dtype=dtype)
    part = d_ifg[:, :, 0]
    xp.subtract(1, i, out=part)
    part *= i
    part *= gg
    part = d_ifg[:, :, 1]
    xp.subtract(1, f, out=part)
    part *= f
    part[0] *= c0
    part[1:] *= cs[:-1]
    part = d_ifg[:, :, 2]
    xp.multiply(gg, gg, out=part)
    xp.subtract(1, part, out=part)
    part *= i
    d_o = xp.subtract(1, o)
    d_o *= o
    d_o *= tcs
    d_tc = xp.multiply(tcs, tcs)
    xp.subtract(1, d_tc, out=d_tc)  # tanh'(c_t)
    from_h = d_tc * o
    # gradients that reach c_t and the gates directly (not through h)
    if g_tc is not None:
        g_tc = g_tc * d_tc
        g_c = g_tc if g_c is None else g_c + g_tc
    direct = None
    if g_gates is not None:
        act = xp.empty((steps, batch, 4, n), dtype=dtype)  # σ'(a_i), σ'(a_f), tanh'(a_g), σ'(a_o)
        for k, s in ((0, i), (1, f), (3, o)):
            xp.subtract(1, s, out=act[:, :, k])
            act[:, :, k] *= s
        xp.multiply(gg, gg, out=act[:, :, 2])
        xp.subtract(1, act[:, :, 2], out=act[:, :, 2])
        direct = g_gates.reshape(steps, batch, 4, n) * act
    d_a = xp.empty((steps, batch, 4, n), dtype=dtype)
    dh = xp.empty((batch, n), dtype=dtype)
    dc = xp.empty((batch, n), dtype=dtype)
    carry_h = xp.zeros((batch, n), dtype=dtype)
    carry_c = xp.zeros((batch, n), dtype=dtype)
    for t in range(steps - 1, -1, -1):
        if g_h is None:
            dh[...] = carry_h
        else:
            xp.add(g_h[t], carry_h, out=dh)
        xp.multiply(dh, from_h[t], out=dc)
        dc += carry_c
        if g_c is not None:
            dc += g_c[t]
        da = d_a[t]
        xp.multiply(dc[:, None, :], d_ifg[t], out=da[:, :3])
        xp.multiply(dh, d_o[t], out=da[:, 3])
        if direct is not None:
            da += direct[t]
        xp.matmul(da.reshape(batch, 4 * n), w_hh, out=carry_h)
        xp.multiply(dc, f[t], out=carry_c)
    return d_a.reshape(steps, batch, 4 * n), carry_h, carry_c


class _Steps:
    """The layer's values at every step, from its outputs: h_{t-1}, c_{t-1}, the gates
    i, f, g, o and tanh(c_t) (tensors, for create_graph and forward mode)."""

    def __init__(self, h0, c0, ans) -> None:
        hs, cs, gates, tcs = ans
        n = h0.shape[-1]
        self.n, self.steps, self.batch = n, hs.shape[0], hs.shape[1]
        self.h_prev = _join_steps(h0, hs[:-1])
        self.c_prev = _join_steps(c0, cs[:-1])
        self.i, self.f = gates[..., :n], gates[..., n : 2 * n]
        self.g, self.o = gates[..., 2 * n : 3 * n], gates[..., 3 * n :]
        self.tc = tcs

    def gates_derivative(self):
        """[σ'(a_i), σ'(a_f), tanh'(a_g), σ'(a_o)] for every step, (T, B, 4H)"""
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


def _composed_through_time(g, h0, c0, w_hh, ans):
    """The pass of _array_through_time composed of chainrule's ops (tensors, recorded)."""
    v = _Steps(h0, c0, ans)
    n = v.n
    g_h, g_c, g_gates, g_tc = g
    act = v.gates_derivative()
    one_minus_tc2 = 1 - v.tc * v.tc
    if g_tc is not None:
        g_tc = g_tc * one_minus_tc2
        g_c = g_tc if g_c is None else g_c + g_tc
    direct = g_gates * act if g_gates is not None else None
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
    return joining.stack(grads, dim=0), carry_h, carry_c


def _layer_vjp_xw(g, w_hh, h0, c0, ans):
    """d/dxw_t = d/da_t, backward through time"""
    return _through_time(g, h0, c0, w_hh, ans)[0]


def _layer_vjp_w_hh(g, w_hh, h0, c0, ans):
    """d/dW_hh = Σ_t (d/da_t)ᵀ h_{t-1}: one product over all steps"""
    d_a = _through_time(g, h0, c0, w_hh, ans)[0]
    hs = ans[0]
    steps, batch, n = hs.shape
    rows = steps * batch
    h_prev = _join_steps(h0, hs[:-1]).reshape(rows, n)
    return d_a.reshape(rows, 4 * n).T @ h_prev


def _layer_vjp_h0(g, w_hh, h0, c0, ans):
    """d/dh0 = (d/da_0) W_hh"""
    return _through_time(g, h0, c0, w_hh, ans)[1]


def _layer_vjp_c0(g, w_hh, h0, c0, ans):
    """d/dc0 = (d/dc_0) f_0"""
    return _through_time(g, h0, c0, w_hh, ans)[2]


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
        d_gates.append(ds)
        d_tcs.append(d_tc)
    return tuple(joining.stack(d, dim=0) for d in (d_hs, d_cs, d_gates, d_tcs))


def _layer_jvp_xw(t, w_hh, h0, c0, ans):
    """the tangents carried through time from da_t = t_t"""
    return _layer_tangent(_Steps(h0, c0, ans), w_hh, t, None, None)


def _layer_jvp_w_hh(t, w_hh, h0, c0, ans):
    """the tangents carried through time from da_t = h_{t-1} tᵀ"""
    v = _Steps(h0, c0, ans)
    rows = v.steps * v.batch
    d_a = (v.h_prev.reshape(rows, v.n) @ t.T).reshape(v.steps, v.batch, 4 * v.n)
    return _layer_tangent(v, w_hh, d_a, None, None)


def _layer_jvp_h0(t, w_hh, h0, c0, ans):
    """the tangents carried through time from h_0's, dh_0 = t"""
    v = _Steps(h0, c0, ans)
    return _layer_tangent(v, w_hh, ans[2] * 0, t, None)


def _layer_jvp_c0(t, w_hh, h0, c0, ans):
    """the tangents carried through time from c_0's, dc_0 = t"""
    v = _Steps(h0, c0, ans)
    return _layer_tangent(v, w_hh, ans[2] * 0, None, t)


lstm_layer = defop(
    "lstm_layer",
    _lstm_layer,
    args=("xw", "w_hh", "h0", "c0"),
    dtypes=FLOAT,
    # PyTorch runs a float32 LSTM on oneDNN's fused layer, a float64 one step by step, its
    # output then the stack of the steps' (the last node of that graph names this one)
    node=lambda xw, w_hh, h0, c0: (
        "StackBackward0" if xw.dtype == xp.float64 else "MkldnnRnnLayerBackward0"
    ),
    vjp=(_layer_vjp_xw, _layer_vjp_w_hh, _layer_vjp_h0, _layer_vjp_c0),
    jvp=(_layer_jvp_xw, _layer_jvp_w_hh, _layer_jvp_h0, _layer_jvp_c0),
)
