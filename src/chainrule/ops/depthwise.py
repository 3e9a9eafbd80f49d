"""Depthwise 2-d convolutions (one input channel and one filter per group) as products with
banded matrices (the products below allow m filters per group, m = 1 is where they are the
faster: ``applies``).

Along a row, one row of a filter's taps maps a row of x to a row of y by a banded
(Toeplitz) matrix: y[j] = Σ_dx w[dx] · x[j·s + dx·d] = (x T)[j], T[u, j] = w[dx] at
u = j·s + dx·d. So with x laid channel by channel, its rows (n, h) one after another,
(C, N·Hp, Wp), the convolution is, for each row of taps dy, one product per channel with
x's rows read dy·d rows down, summed over dy (the rows past each image's last output row
are computed and dropped). Rows are cut into blocks of B outputs (B divides the row;
``_block``), each block's inputs a strided view of the padded rows (a matrix BLAS takes as
it lies), so the band's matrix is the same small one for every block: the products do
(B·s + (k - 1)·d)/k times the taps' work, in a few large BLAS calls, where the windows of
``windows.correlate``
copy x k·k times and multiply each channel's patches separately. Forward and backward, a
3x3 on (16, 32, 16, 16): 3.7 -> 1.7 ms (PyTorch 0.7); on (8, 32, 56, 56): 25 -> 15 ms
(PyTorch 2.8); a 7x7 on (8, 64, 28, 28): 101 -> 14 ms (PyTorch 24).

The transposes are the same products transposed: the input's gradient is g's rows times
Tᵀ, added back over the blocks' overlapping inputs; the weight's is x's rows (transposed)
times g's, of which each tap's band is summed.

A zero of T times an infinite x is nan, where the windows would have left that product
out: each of the three takes this path only for a finite x (the input's gradient: a finite
g)."""

from __future__ import annotations

from typing import Any

from .._backend import all_finite, ndarray, xp

_BLOCK = 32  # outputs per block of a row (at most; a divisor of the row's length)
_WIDEST_UNBLOCKED = 64  # a row this long or shorter may go in one block


def _block(ow: int) -> int:
    """B: the largest divisor of ``ow`` up to _BLOCK; the whole row where that is small and
    the row not too long; 0 where neither (the windows then)."""
    if ow <= _BLOCK:
        return ow
    b = max(d for d in range(1, _BLOCK + 1) if ow % d == 0)
    if b >= _BLOCK // 2:
        return b
    return ow if ow <= _WIDEST_UNBLOCKED else 0


def applies(x: Any, channels_per_group: int, filters: int, stride, groups: int) -> bool:
    """Whether a 2-d convolution of a (non-empty) host array is depthwise, one input channel
    and one filter per group, with stride 1 down the rows (with m filters per group the
    windows measured as fast: m = 2 on (16, 8, 16, 16) 0.73 against 0.81 ms)."""
    return (
        x.__class__ is ndarray
        and x.ndim == 4
        and groups > 1
        and channels_per_group == 1
        and filters == groups
        and stride[0] == 1
        and x.size > 0
    )


class _Rows:
    """The shapes of the banded products of one depthwise convolution: x (N, C, H, W)
    padded to (Hp, Wp), y (N, C·m, OH, OW), kernel (kh, kw), blocks of B outputs."""

    def __init__(self, x_shape, w_shape, stride, padding, dilation, out=None) -> None:
        n, c, h, w = x_shape
        f, _, self.kh, self.kw = w_shape
        self.n, self.c, self.m = n, c, f // c
        self.ph, self.pw = padding
        self.s, (self.dh, self.dw) = stride[1], dilation
        self.hp, self.wp = h + 2 * self.ph, w + 2 * self.pw
        self.oh = self.hp - self.dh * (self.kh - 1)
        self.ow = (self.wp - self.dw * (self.kw - 1) - 1) // self.s + 1 if out is None else out
        self.b = _block(self.ow) if self.oh > 0 and self.ow > 0 else 0
        if self.b:
            self.nb = self.ow // self.b
            self.kb = (self.b - 1) * self.s + (self.kw - 1) * self.dw + 1  # a block's inputs
            self.rows = n * self.hp  # x's rows
            self.valid = self.rows - self.dh * (self.kh - 1)  # rows a product gives

    def x_rows(self, x: Any) -> Any:
        """x (N, C, H, W) zero-padded, per channel its rows one after another: (C, rows, Wp)."""
        padded = xp.zeros((self.c, self.n, self.hp, self.wp), dtype=x.dtype)
        ph, pw = self.ph, self.pw
        padded[:, :, ph : ph + x.shape[2], pw : pw + x.shape[3]] = x.transpose(1, 0, 2, 3)
        return padded.reshape(self.c, self.rows, self.wp)

    def g_rows(self, g: Any) -> Any:
        """g (N, C·m, OH, OW) as (C, valid rows, blocks, m·B): zero past each image's last
        output row."""
        out = xp.zeros((self.c, self.n, self.hp, self.nb, self.m, self.b), dtype=g.dtype)
        parts = g.reshape(self.n, self.c, self.m, self.oh, self.nb, self.b)
        out[:, :, : self.oh] = parts.transpose(1, 0, 3, 4, 2, 5)
        return out.reshape(self.c, self.rows, self.nb, self.m * self.b)[:, : self.valid]

    def bands(self, w: Any) -> Any:
        """T (kh, C, kb, m·B): per row of taps and channel, T[u, (q, j)] = w[(c, q), dy, dx]
        at u = j·s + dx·d."""
        t = xp.zeros((self.kh, self.c, self.kb, self.m, self.b), dtype=w.dtype)
        j = xp.arange(self.b)
        taps = w.reshape(self.c, self.m, self.kh, self.kw).transpose(2, 0, 3, 1)  # (kh, C, kw, m)
        for dx in range(self.kw):
            t[:, :, j * self.s + dx * self.dw, :, j] = taps[:, :, dx]  # (indexed dims first)
        return t.reshape(self.kh, self.c, self.kb, self.m * self.b)

    def window(self, a: Any, dy: int, k: int) -> Any:
        """Block k's inputs in the rows dy·d down of a (C, rows, Wp): (C, valid rows, kb), a
        strided view (a matrix per channel, as BLAS takes it)."""
        top, left = dy * self.dh, k * self.b * self.s
        return a[:, top : top + self.valid, left : left + self.kb]


def correlate(x: Any, w: Any, stride, padding, dilation, bias: Any = None) -> Any:
    """``windows.correlate`` of a depthwise convolution: Σ_dy (x's rows dy down) · T_dy."""
    if not all_finite(x):
        return None
    r = _Rows(x.shape, w.shape, stride, padding, dilation)
    if not r.b:
        return None
    a, t = r.x_rows(x), r.bands(w)
    out = xp.empty((r.n, r.c * r.m, r.oh, r.ow), dtype=x.dtype)
    parts = out.reshape(r.n, r.c, r.m, r.oh, r.ow)
    for k in range(r.nb):
        y = xp.matmul(r.window(a, 0, k), t[0])
        for dy in range(1, r.kh):
            y += xp.matmul(r.window(a, dy, k), t[dy])  # (C, valid rows, m·B)
        # y[c, n·Hp + i, q·B + j] -> out[n, (c, q), i, k·B + j]
        item = y.itemsize
        row = r.m * r.b * item
        view = xp.lib.stride_tricks.as_strided(
            y,
            (r.n, r.c, r.m, r.oh, r.b),
            (r.hp * row, y.strides[0], r.b * item, row, item),
            writeable=False,
        )
        parts[..., k * r.b : (k + 1) * r.b] = view
    if bias is not None:
        out += bias.reshape(-1, 1, 1)
    return out


def correlate_transpose(g: Any, w: Any, stride, padding, dilation, x_shape) -> Any:
    """``windows.correlate_transpose`` of a depthwise convolution, its result of ``x_shape``
    (output_padding included): g's rows times each T_dyᵀ, added dy rows down and over the
    blocks' overlapping inputs."""
    if not all_finite(g):
        return None
    r = _Rows(x_shape, w.shape, stride, padding, dilation, out=g.shape[3])
    if not r.b or r.oh != g.shape[2]:
        return None
    gr, t = r.g_rows(g), r.bands(w)
    full = xp.zeros((r.c, r.rows, r.wp), dtype=g.dtype)
    for k in range(r.nb):
        for dy in range(r.kh):
            part = r.window(full, dy, k)
            part += xp.matmul(gr[:, :, k], t[dy].transpose(0, 2, 1))
    image = full.reshape(r.c, r.n, r.hp, r.wp)
    crop = image[:, :, r.ph : r.ph + x_shape[2], r.pw : r.pw + x_shape[3]]
    return xp.ascontiguousarray(crop.transpose(1, 0, 2, 3))


def correlate_weight(x: Any, g: Any, stride, padding, dilation, kernel) -> Any:
    """``windows.correlate_weight`` of a depthwise convolution: per row of taps, x's rows
    (dy down, transposed) times g's, each tap's band of that summed."""
    f = g.shape[1]
    if not all_finite(x):  # (x's rows below each image's last output row meet g's zeros)
        return None
    r = _Rows(x.shape, (f, 1, *kernel), stride, padding, dilation, out=g.shape[3])
    if not r.b or r.oh != g.shape[2]:
        return None
    a, gr = r.x_rows(x), r.g_rows(g)
    j = xp.arange(r.b)
    u = j[None, :] * r.s + xp.arange(r.kw)[:, None] * r.dw  # (kw, B): the band of each tap
    col = xp.arange(r.m)[:, None] * r.b + j[None, :]  # (m, B)
    gw = xp.empty((r.c, r.m, r.kh, r.kw), dtype=g.dtype)
    for dy in range(r.kh):
        prod = xp.matmul(r.window(a, dy, 0).transpose(0, 2, 1), gr[:, :, 0])  # (C, kb, m·B)
        for k in range(1, r.nb):
            prod += xp.matmul(r.window(a, dy, k).transpose(0, 2, 1), gr[:, :, k])
        band = prod[:, u[:, None, :], col[None, :, :]]  # (C, kw, m, B)
        gw[:, :, dy] = band.sum(axis=-1).transpose(0, 2, 1)
    return gw.reshape(f, 1, *kernel)
