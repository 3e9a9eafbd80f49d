"""SoX-like effects of torchaudio.functional: gain, contrast, dcshift, dither,
overdrive, phaser and flanger.

Phaser and flanger are linear, time-varying delay lines with feedback. Their
modulation does not depend on the signal, so each is a recursion
``W[t] = u[t] + sum_j c[t, j] W[s_j(t)]`` with fixed read positions ``s_j(t) < t``;
``_DelayRecursion`` runs it on arrays and differentiates it by running the adjoint
recursion backwards in time.
"""

from __future__ import annotations

import math

import numpy as np

import chainrule
from chainrule import Tensor
from chainrule.autograd import Function

from ._filtering_lfilter import lfilter

__all__ = ["contrast", "dcshift", "dither", "flanger", "gain", "overdrive", "phaser"]


def gain(waveform: Tensor, gain_db: float = 1.0) -> Tensor:
    """``waveform * 10^(gain_db / 20)``."""
    if gain_db == 0:
        return waveform
    return waveform * (10 ** (gain_db / 20))


def contrast(waveform: Tensor, enhancement_amount: float = 75.0) -> Tensor:
    """SoX contrast: ``sin(pi x / 2 + (amount / 750) sin(2 pi x))``."""
    if not 0 <= enhancement_amount <= 100:
        raise ValueError("Allowed range of values for enhancement_amount : 0-100")
    phase = waveform * (math.pi / 2)
    return chainrule.sin(phase + enhancement_amount / 750.0 * chainrule.sin(phase * 4))


def dcshift(waveform: Tensor, shift: float, limiter_gain: float | None = None) -> Tensor:
    """``clamp(x + shift, -1, 1)``; with ``limiter_gain``, samples beyond the threshold
    ``1 - (|shift| - limiter_gain)`` on the side of the shift are compressed by
    ``limiter_gain`` instead of clipped."""
    if limiter_gain is None or shift == 0:
        return chainrule.clamp(waveform + shift, min=-1, max=1)
    threshold = 1.0 - (abs(shift) - limiter_gain)
    plain = chainrule.clamp(waveform + shift, min=-1, max=1)
    if shift > 0:
        peak = waveform > threshold
        limited = (waveform - threshold) * limiter_gain / (1 - threshold) + threshold + shift
        limited = chainrule.clamp(limited, max=threshold)
    else:
        peak = waveform < -threshold
        limited = (waveform + threshold) * limiter_gain / (1 - threshold) - threshold + shift
        limited = chainrule.clamp(limited, min=-threshold)
    return chainrule.where(peak, limited, plain)


def _random_index(high: int) -> int:
    """A uniform integer in ``[0, high)`` (0 when ``high <= 0``)."""
    return int(chainrule.randint(high, (1,)).item()) if high > 0 else 0


def dither(waveform: Tensor, density_function: str = "TPDF", noise_shaping: bool = False) -> Tensor:
    """Quantise to 16 bits after adding dither: ``round(x (2^15 - 2) + d) / 2^15``.

    ``d`` is a Bartlett (triangular) window over time for ``"TPDF"``, one random sample
    of the waveform minus 0.5 for ``"RPDF"``, and a sum of seven random samples of the
    waveform for ``"GPDF"`` (SoX-like, as torchaudio). ``noise_shaping`` adds the
    previous sample's quantisation error: ``y[t] += y[t-1] - x[t-1]``.
    """
    shape = waveform.shape
    x = waveform.reshape(-1, shape[-1])
    last_channel = x.shape[0] - 1
    last_time = x.shape[-1] - 1
    scaled = x * (2**15 - 2)
    if density_function == "RPDF":
        noise = x[_random_index(last_channel), _random_index(last_time)] - 0.5
    elif density_function == "GPDF":
        noise = x[_random_index(last_channel), _random_index(last_time)]
        for _ in range(6):
            noise = noise + x[_random_index(last_channel), _random_index(last_time)]
    else:
        noise = chainrule.bartlett_window(last_time + 1, dtype=x.dtype, device=x.device)
    dithered = chainrule.round(scaled + noise) / 2**15
    if noise_shaping:
        error = dithered - x
        delayed = chainrule.nn.functional.pad(error[:, :-1], (1, 0))
        dithered = dithered + delayed
    return dithered.reshape(shape)


def overdrive(waveform: Tensor, gain: float = 20, colour: float = 20) -> Tensor:
    """SoX overdrive: the soft clipper ``t = u - u^3 / 3`` (``+-2/3`` beyond
    ``|u| > 1``) of ``u = x 10^(gain/20) + colour/200``, then
    ``y = clamp(x / 2 + 0.75 HP(t))`` with the DC blocker ``HP(z) = (1 - z^-1) /
    (1 - 0.995 z^-1)``."""
    u = waveform * math.exp(gain * math.log(10) / 20.0) + colour / 200
    clipped = chainrule.where(u < -1, -2.0 / 3.0, chainrule.where(u > 1, 2.0 / 3.0, u - u**3 / 3))
    a = chainrule.tensor([1.0, -0.995], dtype=waveform.dtype, device=waveform.device)
    b = chainrule.tensor([1.0, -1.0], dtype=waveform.dtype, device=waveform.device)
    blocked = lfilter(clipped, a, b, clamp=False)
    return chainrule.clamp(waveform * 0.5 + blocked * 0.75, min=-1, max=1)


def _wave_table(kind: str, size: int, low: float, high: float, phase: float) -> np.ndarray:
    """One period (``size`` samples) of a sine or triangle between ``low`` and ``high``,
    starting at ``phase`` radians (SoX's ``lsx_generate_wave_table``), float64."""
    offset = int(phase / math.pi / 2 * size + 0.5)
    point = (np.arange(size) + offset) % size
    if kind == "SINE":
        d = (np.sin(point / size * 2 * math.pi) + 1) / 2
    else:
        d = point * 2 / size
        quarter = (4 * point) // size
        d = np.select(
            [quarter == 0, quarter == 1, quarter == 2, quarter == 3],
            [d + 0.5, 1.5 - d, 1.5 - d, d - 1.5],
        )
    return d * (high - low) + low


class _DelayRecursion(Function):
    """``W[..., c, t] = u[..., c, t] + sum_j coef[t, c, j] W[..., c, source[t, c, j]]``
    with ``source < t`` (``-1`` reads zero), for ``u`` of shape ``(N, C, T)``.

    Backward (the adjoint, in reverse time): ``g_u[t] = g_W[t]`` after adding
    ``coef[t', c, j] g_W[t']`` to ``g_W[source[t', c, j]]`` for every ``t' > t``.
    """

    @staticmethod
    def forward(ctx, u: Tensor, source: np.ndarray, coef: np.ndarray) -> Tensor:
        u_arr = u.detach().numpy().astype(np.float64)
        w = np.zeros(u_arr.shape[:-1] + (u_arr.shape[-1] + 1,))  # w[..., 0] is the zero
        channels = np.arange(u_arr.shape[1])
        with np.errstate(all="ignore"):  # inf/NaN propagate silently, as in torch
            for t in range(u_arr.shape[-1]):
                acc = u_arr[:, :, t].copy()
                for j in range(source.shape[-1]):
                    acc += coef[t, :, j] * w[:, channels, source[t, :, j] + 1]
                w[:, :, t + 1] = acc
        ctx.source, ctx.coef = source, coef
        return chainrule.from_numpy(np.ascontiguousarray(w[..., 1:].astype(u_arr.dtype))).to(
            u.dtype
        )

    @staticmethod
    def backward(ctx, grad_w: Tensor) -> tuple[Tensor, None, None]:
        source, coef = ctx.source, ctx.coef
        g = np.concatenate(
            [np.zeros(grad_w.shape[:-1] + (1,)), grad_w.detach().numpy().astype(np.float64)], -1
        )
        channels = np.arange(g.shape[1])
        with np.errstate(all="ignore"):
            for t in range(g.shape[-1] - 2, -1, -1):
                for j in range(source.shape[-1]):
                    g[:, channels, source[t, :, j] + 1] += coef[t, :, j] * g[:, :, t + 1]
        return chainrule.from_numpy(np.ascontiguousarray(g[..., 1:])).to(grad_w.dtype), None, None


def _read(w: Tensor, source: np.ndarray, coef: np.ndarray) -> Tensor:
    """``D[..., c, t] = sum_j coef[t, c, j] w[..., c, source[t, c, j]]`` (``-1`` reads 0)."""
    padded = chainrule.nn.functional.pad(w, (1, 0))
    out = None
    for j in range(source.shape[-1]):
        index = chainrule.from_numpy(np.ascontiguousarray(source[:, :, j].T + 1))
        index = index.expand(w.shape[:-1] + (w.shape[-1],))
        weight = chainrule.from_numpy(np.ascontiguousarray(coef[:, :, j].T)).to(w.dtype)
        term = padded.gather(-1, index) * weight
        out = term if out is None else out + term
    return out


def phaser(
    waveform: Tensor,
    sample_rate: int,
    gain_in: float = 0.4,
    gain_out: float = 0.74,
    delay_ms: float = 3.0,
    decay: float = 0.4,
    mod_speed: float = 0.5,
    sinusoidal: bool = True,
) -> Tensor:
    """SoX phaser: ``W[t] = gain_in x[t] + decay W[t - d(t)]`` with the delay ``d(t)``
    modulated (sine or triangle at ``mod_speed`` Hz) up to ``delay_ms``;
    output ``clamp(gain_out W)``."""
    shape = waveform.shape
    x = waveform.reshape(-1, 1, shape[-1])
    n_time = shape[-1]
    buf_len = int(delay_ms * 0.001 * sample_rate + 0.5)
    mod_len = int(sample_rate / mod_speed + 0.5)
    table = _wave_table(
        "SINE" if sinusoidal else "TRIANGLE", mod_len, 1.0, float(buf_len), math.pi / 2
    )
    modulation = np.where(table < 0, table - 0.5, table + 0.5).astype(np.int32)
    t = np.arange(n_time)
    source = t - 1 - (buf_len - modulation[t % mod_len]) % buf_len
    source = np.where(source < 0, -1, source)[:, None, None]
    coef = np.full(source.shape, float(decay))
    w = _DelayRecursion.apply(x * gain_in, source, coef)
    return chainrule.clamp(w * gain_out, min=-1, max=1).reshape(shape)


def flanger(
    waveform: Tensor,
    sample_rate: int,
    delay: float = 0.0,
    depth: float = 2.0,
    regen: float = 0.0,
    width: float = 71.0,
    speed: float = 0.5,
    phase: float = 25.0,
    modulation: str = "sinusoidal",
    interpolation: str = "linear",
) -> Tensor:
    """SoX flanger on ``(..., channel, time)`` (at most 4 channels): a delay line swept
    between ``delay`` and ``delay + depth`` ms at ``speed`` Hz (channel ``c`` offset by
    ``c * phase`` percent of the period), fed back with ``regen`` percent and mixed in
    with ``width`` percent; fractional delays are interpolated linearly or
    quadratically."""
    if modulation not in ("sinusoidal", "triangular"):
        raise ValueError('Only "sinusoidal" or "triangular" modulation allowed')
    if interpolation not in ("linear", "quadratic"):
        raise ValueError('Only "linear" or "quadratic" interpolation allowed')
    shape = waveform.shape
    if shape[-2] > 4:
        raise ValueError("Max 4 channels allowed")
    x = waveform.reshape(-1, shape[-2], shape[-1])
    n_channel, n_time = shape[-2], shape[-1]
    feedback_gain = regen / 100
    delay_gain = width / 100
    in_gain = 1.0 / (1 + delay_gain)
    delay_gain = delay_gain / (1 + delay_gain) * (1 - abs(feedback_gain))
    buf_len = int((delay / 1000 + depth / 1000) * sample_rate + 0.5) + 2
    lfo_len = int(sample_rate / speed)
    lfo = _wave_table(
        "SINE" if modulation == "sinusoidal" else "TRIANGLE",
        lfo_len,
        float(math.floor(delay / 1000 * sample_rate + 0.5)),
        buf_len - 2.0,
        3 * math.pi / 2,
    ).astype(np.float32)
    channel_shift = (np.arange(n_channel) * lfo_len * (phase / 100) + 0.5).astype(np.int64)
    t = np.arange(n_time)
    lag = lfo[(t[:, None] % lfo_len + channel_shift[None, :]) % lfo_len].astype(np.float64)
    frac = lag - np.floor(lag)
    base = np.floor(lag).astype(np.int64)
    if interpolation == "linear":
        offsets, coef = [0, 1], [1 - frac, frac]
    else:
        f2 = frac * frac
        offsets = [0, 1, 2]
        coef = [1 - 1.5 * frac + 0.5 * f2, 2 * frac - f2, 0.5 * f2 - 0.5 * frac]
    # The slot read at delay d was written d (mod buf_len) samples earlier.
    source = np.stack([t[:, None] - (base + k) % buf_len for k in offsets], -1)
    source = np.where(source < 0, -1, source)
    coef = np.stack(coef, -1)
    # The written value is x[t] + feedback_gain * D[t - 1]: a recursion on it, then D.
    fb_source = np.concatenate([np.full((1,) + source.shape[1:], -1), source[:-1]], 0)
    fb_coef = np.concatenate([np.zeros((1,) + coef.shape[1:]), coef[:-1] * feedback_gain], 0)
    written = _DelayRecursion.apply(x, fb_source, fb_coef)
    delayed = _read(written, source, coef)
    out = x * in_gain + delayed * delay_gain
    return chainrule.clamp(out, min=-1, max=1).reshape(shape)
