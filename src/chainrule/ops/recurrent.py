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

from .._backend import xp
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
