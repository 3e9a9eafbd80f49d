"""The linear difference equation behind every IIR filter of torchaudio.functional.

``lfilter`` solves ``sum_k a[k] y[t-k] = sum_k b[k] x[t-k]`` for ``y``. It is split in
an FIR part (the right-hand side, a sum of shifted copies of ``x``, differentiated by
chainrule's autograd) and an all-pole part (``_AllPole``, a recursion run on arrays
whose backward is written out: the adjoint of a causal all-pole filter is the same
filter run backwards in time).
"""

from __future__ import annotations

import numpy as np

import chainrule
from chainrule import Tensor
from chainrule.autograd import Function

__all__ = ["lfilter", "filtfilt"]

# Samples per block of the all-pole recursion: inside a block the output is a matrix
# product (impulse response Toeplitz matrix), only the block-to-block state is a loop.
_BLOCK = 32


def _shifted(x: Tensor, k: int) -> Tensor:
    """``x[..., t - k]`` with zeros for ``t < k`` (a delay by ``k`` samples)."""
    if k == 0:
        return x
    length = x.shape[-1]
    if k >= length:
        return chainrule.zeros_like(x)
    return chainrule.nn.functional.pad(x[..., : length - k], (k, 0))


def _fir(x: Tensor, b: Tensor) -> Tensor:
    """``y[n, c, t] = sum_k b[c, k] x[n, c, t - k]`` for ``x`` of shape ``(N, C, T)``."""
    out = x * b[:, 0:1]
    for k in range(1, b.shape[1]):
        out = out + _shifted(x, k) * b[:, k : k + 1]
    return out


def _block_responses(a: np.ndarray, length: int) -> tuple[np.ndarray, np.ndarray]:
    """Impulse response ``h (C, L)`` of ``1 / A(z)`` and the responses ``g (C, L, p)`` to
    the initial conditions ``y[-k] = 1`` (``k = 1..p``), with zero input."""
    n_filter, n_coef = a.shape
    p = n_coef - 1
    traj = np.zeros((n_filter, p + 1, p + length))
    for k in range(1, p + 1):
        traj[:, k, p - k] = 1.0
    drive = np.zeros((p + 1, length))
    drive[0, 0] = 1.0
    a_past = a[:, 1:]  # (C, p): a[k] multiplies y[t - k]
    for m in range(length):
        past = traj[:, :, p + m - 1 :: -1][:, :, :p]  # y[t - 1], ..., y[t - p]
        traj[:, :, p + m] = drive[:, m] - np.einsum("ck,cjk->cj", a_past, past)
    return traj[:, 0, p:], np.transpose(traj[:, 1:, p:], (0, 2, 1))


def _per_filter_matmul(stacks: np.ndarray, matrices: np.ndarray) -> np.ndarray:
    """``out[n, c, b] = stacks[n, c, b] @ matrices[c]`` as one product per filter ``c``."""
    n_batch, n_filter, n_block, width = stacks.shape
    rows = np.ascontiguousarray(np.swapaxes(stacks, 0, 1)).reshape(n_filter, -1, width)
    out = np.matmul(rows, np.ascontiguousarray(matrices))
    return np.swapaxes(out.reshape(n_filter, n_batch, n_block, -1), 0, 1)


def _all_pole_sequential(x: np.ndarray, a: np.ndarray) -> np.ndarray:
    """The recursion ``y[t] = x[t] - sum_{k>=1} a[c, k] y[t - k]`` one sample at a time
    (used for inputs with inf/NaN, which the block products would smear over a block)."""
    p = a.shape[1] - 1
    y = np.zeros(x.shape[:-1] + (p + x.shape[-1],))
    a_flipped = a[:, :0:-1].astype(np.float64)  # a[p], ..., a[1]
    for t in range(x.shape[-1]):
        y[..., p + t] = x[..., t] - np.sum(y[..., t : t + p] * a_flipped, axis=-1)
    return y[..., p:]


def _all_pole_array(x: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Solve ``y[t] = x[t] - sum_{k>=1} a[c, k] y[t - k]`` for ``x (N, C, T)``.

    ``a[:, 0]`` is taken as 1 (the caller normalises). Computed in float64 by blocks of
    ``L`` samples: ``Y_b = H X_b + G s_b`` with ``H`` the Toeplitz matrix of the impulse
    response and ``s_b`` the last ``p`` outputs before the block, so only the
    ``p``-dimensional state ``s_b`` is a loop (over blocks).
    """
    n_batch, n_filter, n_time = x.shape
    p = a.shape[1] - 1
    if p == 0 or n_time == 0:
        return x.astype(np.float64)
    if not np.isfinite(x).all():
        return _all_pole_sequential(x, a)
    length = max(_BLOCK, p)
    h, g = _block_responses(a.astype(np.float64), length)
    lag = np.arange(length)[:, None] - np.arange(length)[None, :]
    toeplitz = np.where(lag >= 0, h[:, np.clip(lag, 0, None)], 0.0)  # (C, L, L)
    n_block = -(-n_time // length)
    padded = np.zeros((n_batch, n_filter, n_block * length))
    padded[..., :n_time] = x
    blocks = padded.reshape(n_batch, n_filter, n_block, length)
    zero_state = _per_filter_matmul(blocks, np.swapaxes(toeplitz, -1, -2))  # (N, C, B, L)
    tail = zero_state[..., length - p :][..., ::-1]  # y[end - k], k = 1..p, from the input
    g_tail = g[:, length - p :][:, ::-1]  # (C, p, p): the state's share of those outputs
    states = np.zeros((n_batch, n_filter, n_block, p))
    for b in range(1, n_block):
        states[:, :, b] = tail[:, :, b - 1] + np.einsum("cmk,nck->ncm", g_tail, states[:, :, b - 1])
    y = zero_state + _per_filter_matmul(states, np.swapaxes(g, -1, -2))
    return y.reshape(n_batch, n_filter, -1)[..., :n_time]


class _AllPole(Function):
    """``y = x / A(z)`` per filter ``c`` (``a[:, 0] == 1``), for ``x`` of shape ``(N, C, T)``.

    Backward: ``dL/dx = flip(flip(dL/dy) / A(z))`` and
    ``dL/da[c, k] = -sum_{n,t} dL/dx[n, c, t] y[n, c, t - k]``.
    """

    @staticmethod
    def forward(ctx, x: Tensor, a: Tensor) -> Tensor:
        x_arr = x.detach().numpy()
        with np.errstate(all="ignore"):  # inf/NaN propagate silently, as in torch
            y_arr = _all_pole_array(x_arr, a.detach().numpy())
        y = chainrule.from_numpy(np.ascontiguousarray(y_arr.astype(x_arr.dtype)))
        ctx.save_for_backward(a, y)
        return y

    @staticmethod
    def backward(ctx, grad_y: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, y = ctx.saved_tensors
        grad_x = _AllPole.apply(grad_y.flip(-1), a).flip(-1)
        grad_a = None
        if ctx.needs_input_grad[1]:
            grad_a = chainrule.stack(
                [-(grad_x * _shifted(y, k)).sum((0, 2)) for k in range(a.shape[1])], dim=1
            )
        return grad_x, grad_a


def lfilter(
    waveform: Tensor,
    a_coeffs: Tensor,
    b_coeffs: Tensor,
    clamp: bool = True,
    batching: bool = True,
) -> Tensor:
    """IIR filter: solve ``sum_k a[k] y[t-k] = sum_k b[k] x[t-k]`` (zero initial state).

    ``a_coeffs``/``b_coeffs`` are ``(order + 1,)`` or ``(num_filters, order + 1)``; with
    2-D coefficients and ``batching`` the filter ``i`` acts on ``waveform[..., i, :]``,
    without ``batching`` every filter acts on the whole waveform (output
    ``(..., num_filters, time)``). Differentiable in all three tensors.
    """
    if a_coeffs.size() != b_coeffs.size():
        raise ValueError(
            "Expected coeffs to be the same size."
            f"Found: a_coeffs size: {a_coeffs.size()}, b_coeffs size: {b_coeffs.size()}"
        )
    if a_coeffs.ndim > 2:
        raise ValueError(
            f"Expected coeffs to have greater than 1 dimension. Found: {a_coeffs.ndim}"
        )
    if a_coeffs.ndim > 1:
        if batching:
            if waveform.ndim <= 0:
                raise ValueError(
                    "Expected waveform to have a positive number of dimensions."
                    f"Found: {waveform.ndim}"
                )
            if waveform.shape[-2] != a_coeffs.shape[0]:
                raise ValueError(
                    "Expected number of batches in waveform and coeffs to be the same."
                    f"Found: coeffs batches: {a_coeffs.shape[0]}, "
                    f"waveform batches: {waveform.shape[-2]}"
                )
        else:
            waveform = chainrule.stack([waveform] * a_coeffs.shape[0], -2)
    else:
        a_coeffs = a_coeffs.unsqueeze(0)
        b_coeffs = b_coeffs.unsqueeze(0)
    shape = waveform.shape
    x = waveform.reshape(-1, a_coeffs.shape[0], shape[-1])
    a0 = a_coeffs[:, 0:1]
    output = _AllPole.apply(_fir(x, b_coeffs / a0), a_coeffs / a0)
    if clamp:
        output = chainrule.clamp(output, min=-1.0, max=1.0)
    return output.reshape(tuple(shape[:-1]) + tuple(output.shape[-1:]))


def filtfilt(
    waveform: Tensor,
    a_coeffs: Tensor,
    b_coeffs: Tensor,
    clamp: bool = True,
) -> Tensor:
    """Zero-phase filtering: ``lfilter`` forward in time, then again on the time-reversed
    result (squared magnitude response, no phase shift); clamps only at the end."""
    forward = lfilter(waveform, a_coeffs, b_coeffs, clamp=False, batching=True)
    return lfilter(forward.flip(-1), a_coeffs, b_coeffs, clamp=clamp, batching=True).flip(-1)
