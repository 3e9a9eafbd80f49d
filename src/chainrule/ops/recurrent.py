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
# ``lstm_layer(xw, w_hh, h0, c0)`` runs the recurrence over all T steps in one op, as
# PyTorch's oneDNN layer (``MkldnnRnnLayerBackward0``) does: xw (T, B, 4H) holds the input's
# part of every gate (x W_ihᵀ + b_ih + b_hh, one product outside), and the output Y (T, B, 6H)
# holds [h_t, c_t, i_t, f_t, g_t, o_t] for every step: the states, then the gates' values,
# which backward reads instead of recomputing them (PyTorch's layer keeps them in its
# workspace). Backward through time is one loop of one product per step, and W_hh's
# gradient one product over all steps.


def _lstm_layer(xw, w_hh, h0, c0):
    """Y[t] = [h_t, c_t, i, f, g, o], a_t = xw_t + h_{t-1} W_hhᵀ, i, f, o = σ(a_{i,f,o}),
    g = tanh(a_g), c_t = f c_{t-1} + i g, h_t = o tanh(c_t)"""
    n = h0.shape[-1]
    out = xp.empty((*xw.shape[:-1], 6 * n), dtype=xw.dtype)
    w_t = w_hh.T
    h, c = h0, c0
    for t in range(xw.shape[0]):
        y = out[t]
        s = y[:, 2 * n :]
        xp.matmul(h, w_t, out=s)
        s += xw[t]
        g = s[:, 2 * n : 3 * n]
        xp.tanh(g, out=g)
        for part in (s[:, : 2 * n], s[:, 3 * n :]):  # σ(a) = 1 / (1 + e^-a), in place
            xp.negative(part, out=part)
            xp.exp(part, out=part)
            part += 1
            xp.reciprocal(part, out=part)
        c = xp.multiply(s[:, n : 2 * n], c, out=y[:, n : 2 * n])
        c += s[:, :n] * g
        h = xp.multiply(s[:, 3 * n :], xp.tanh(c), out=y[:, :n])
    return out


class _Steps:
    """The layer's values at every step, read from its output Y: h_{t-1}, c_{t-1}, the gates
    i, f, g, o and tanh(c_t) (arrays or tensors alike)."""

    def __init__(self, h0, c0, ans) -> None:
        n = h0.shape[-1]
        self.n, self.steps, self.batch = n, ans.shape[0], ans.shape[1]
        self.h_prev = _join_steps(h0, ans[:-1, :, :n])
        self.c_prev = _join_steps(c0, ans[:-1, :, n : 2 * n])
        self.i, self.f = ans[..., 2 * n : 3 * n], ans[..., 3 * n : 4 * n]
        self.g, self.o = ans[..., 4 * n : 5 * n], ans[..., 5 * n :]
        self.tc = unary.tanh(ans[..., n : 2 * n])

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


# the last backward through time: every input's VJP reads the one pass (see _through_time)
_LAST: list = [None, None]


def _through_time(g, h0, c0, w_hh, ans):
    """d/da_t for every step (T, B, 4H), d/dh0, d/dc0 and the steps' values.

    One pass serves the VJPs of all four inputs: a node calls them one after another with
    the same ``g`` and saved ``ans``, so the pass is kept for the calls that follow (by the
    identity of those two, weakly referenced: a later backward never reads a stale one).
    """
    key = _LAST[0]
    if key is not None and key[0]() is g and key[1]() is ans:
        return _LAST[1]
    v = _Steps(h0, c0, ans)
    n = v.n
    g_h, g_c = g[..., :n], g[..., n : 2 * n]
    act = v.gates_derivative()
    # the gates' own gradients (their columns of Y; none when only the states were read),
    # then what each step's dh and dc are multiplied by, for all steps at once
    g_gates = g[..., 2 * n :]
    direct = g_gates * act if isinstance(g_gates, Tensor) or g_gates.any() else None
    d_c_from_h = v.o * (1 - v.tc * v.tc)
    d_ifg = _join((v.g, v.c_prev, v.i)).reshape(v.steps, v.batch, 3, n)
    d_o = v.tc * act[..., 3 * n :]
    act_ifg = act[..., : 3 * n].reshape(v.steps, v.batch, 3, n)
    d_ifg = d_ifg * act_ifg
    grads: list = [None] * v.steps
    carry_h = carry_c = None
    for t in range(v.steps - 1, -1, -1):
        dh = g_h[t] if carry_h is None else g_h[t] + carry_h
        dc = g_c[t] + dh * d_c_from_h[t]
        if carry_c is not None:
            dc = dc + carry_c
        da = _join(((dc[:, None, :] * d_ifg[t]).reshape(v.batch, 3 * n), dh * d_o[t]))
        if direct is not None:
            da = da + direct[t]
        grads[t] = da
        carry_h = da @ w_hh
        carry_c = dc * v.f[t]
    d_a = joining.stack(grads, dim=0)
    result = (d_a, carry_h, carry_c, v)
    _LAST[0] = (weakref.ref(g), weakref.ref(ans))
    _LAST[1] = result
    return result


def _layer_vjp_xw(g, w_hh, h0, c0, ans):
    """d/dxw_t = d/da_t, backward through time"""
    return _through_time(g, h0, c0, w_hh, ans)[0]


def _layer_vjp_w_hh(g, w_hh, h0, c0, ans):
    """d/dW_hh = Σ_t (d/da_t)ᵀ h_{t-1}: one product over all steps"""
    d_a, _, _, v = _through_time(g, h0, c0, w_hh, ans)
    rows = v.steps * v.batch
    return d_a.reshape(rows, 4 * v.n).T @ v.h_prev.reshape(rows, v.n)


def _layer_vjp_h0(g, w_hh, h0, c0, ans):
    """d/dh0 = (d/da_0) W_hh"""
    return _through_time(g, h0, c0, w_hh, ans)[1]


def _layer_vjp_c0(g, w_hh, h0, c0, ans):
    """d/dc0 = (d/dc_0) f_0"""
    return _through_time(g, h0, c0, w_hh, ans)[2]


def _layer_tangent(v, w_hh, d_a, dh, dc):
    """[dh_t, dc_t, the gates' tangents] for every step, from the tangents of the gates'
    inputs d_a (T, B, 4H, without the recurrent part) and of the initial state:
    da_t = d_a[t] + dh_{t-1} W_hhᵀ, dc_t = f' c_{t-1} + f dc_{t-1} + i' g + i g',
    dh_t = o' tanh c_t + o tanh'(c_t) dc_t"""
    n = v.n
    act = v.gates_derivative()
    outs = []
    w_t = w_hh.T
    for t in range(v.steps):
        da = d_a[t] if dh is None else d_a[t] + dh @ w_t
        ds = da * act[t]  # the gates' tangents: i', f', g', o'
        dc_new = ds[:, n : 2 * n] * v.c_prev[t] + ds[:, :n] * v.g[t] + ds[:, 2 * n : 3 * n] * v.i[t]
        if dc is not None:
            dc_new = dc_new + v.f[t] * dc
        dc = dc_new
        tc = v.tc[t]
        dh = ds[:, 3 * n :] * tc + v.o[t] * (1 - tc * tc) * dc
        outs.append(_join((dh, dc, ds)))
    return joining.stack(outs, dim=0)


def _layer_jvp_xw(t, w_hh, h0, c0, ans):
    """the tangent carried through time from da_t = t_t"""
    return _layer_tangent(_Steps(h0, c0, ans), w_hh, t, None, None)


def _layer_jvp_w_hh(t, w_hh, h0, c0, ans):
    """the tangent carried through time from da_t = h_{t-1} tᵀ"""
    v = _Steps(h0, c0, ans)
    rows = v.steps * v.batch
    d_a = (v.h_prev.reshape(rows, v.n) @ t.T).reshape(v.steps, v.batch, 4 * v.n)
    return _layer_tangent(v, w_hh, d_a, None, None)


def _layer_jvp_h0(t, w_hh, h0, c0, ans):
    """the tangent carried through time from h_0's, dh_0 = t"""
    v = _Steps(h0, c0, ans)
    return _layer_tangent(v, w_hh, ans[..., 2 * v.n :] * 0, t, None)


def _layer_jvp_c0(t, w_hh, h0, c0, ans):
    """the tangent carried through time from c_0's, dc_0 = t"""
    v = _Steps(h0, c0, ans)
    return _layer_tangent(v, w_hh, ans[..., 2 * v.n :] * 0, None, t)


lstm_layer = defop(
    "lstm_layer",
    _lstm_layer,
    args=("xw", "w_hh", "h0", "c0"),
    dtypes=FLOAT,
    node="MkldnnRnnLayerBackward0",
    vjp=(_layer_vjp_xw, _layer_vjp_w_hh, _layer_vjp_h0, _layer_vjp_c0),
    jvp=(_layer_jvp_xw, _layer_jvp_w_hh, _layer_jvp_h0, _layer_jvp_c0),
)
