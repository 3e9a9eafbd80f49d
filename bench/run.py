"""Side-by-side benchmarks: chainrule, PyTorch (CPU) and hand-written NumPy, one process.

Run with ``make bench``. Single-threaded (the Makefile sets the thread variables).
Prints a table of times and ratios and writes docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

import chainrule

try:
    import torch

    torch.set_num_threads(1)
except ImportError:  # the table then has no PyTorch column
    torch = None


def race(fns: dict, repeat: int) -> dict:
    """The fastest of ``repeat`` runs of each function, in seconds.

    The runs are interleaved (chainrule, PyTorch, NumPy, chainrule, ...), so a burst of
    load from elsewhere on a shared machine, or the allocator's state, falls on all of
    them alike rather than on whichever ran first.
    """
    best = {name: float("inf") for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            if fn is None:
                best[name] = float("nan")
                continue
            gc.collect()
            t0 = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - t0)
    return best


# ----- 1. the seed's loop stretched into a chain of tiny ops -----------------------------


def chain_lib(lib, n: int):
    def run():
        x = lib.randn(3, requires_grad=True)
        y = x * 2
        for i in range(n - 1):
            y = y * 2 if i % 2 else y * 0.5
        y.backward(lib.ones(3))
        return x.grad

    return run


def chain_numpy(n: int):
    def run():
        x = np.random.randn(3).astype(np.float32)
        factors = []
        y = x * 2
        factors.append(2)
        for i in range(n - 1):
            f = 2 if i % 2 else 0.5
            y = y * f
            factors.append(f)
        g = np.ones(3, np.float32)
        for f in reversed(factors):
            g = g * f
        return g

    return run


# ----- 2. a large elementwise expression --------------------------------------------------


def big_lib(lib, x_np):
    def run():
        x = lib.from_numpy(x_np).requires_grad_()
        ((x * 2 + 1).tanh() * x).sum().backward()
        return x.grad

    return run


def big_numpy(x_np):
    def run():
        x = x_np
        c = np.tanh(x * 2 + 1)
        s = (c * x).sum()  # noqa: F841 - the forward value, as the others compute it
        # backward: d/dx [tanh(2x+1) x] = tanh(2x+1) + x (1 - tanh²(2x+1)) 2
        return c + x * (1 - c * c) * 2

    return run


# ----- 3. a LeNet-style train step built from nn modules ----------------------------------


def cnn_lib(lib):
    """Conv2d(1,6,5) + ReLU + MaxPool2d(2) + Conv2d(6,16,5) + ReLU + MaxPool2d(2) + Flatten +
    Linear(256,120) + ReLU + Linear(120,10), cross-entropy, backward (no optimizer) on a
    batch of 64 1x28x28 inputs."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)

    class LeNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5)
            self.pool = nn.MaxPool2d(2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.flatten = nn.Flatten()
            self.fc1 = nn.Linear(256, 120)
            self.fc2 = nn.Linear(120, 10)

        def forward(self, x):
            x = self.pool(F.relu(self.conv1(x)))
            x = self.pool(F.relu(self.conv2(x)))
            return self.fc2(F.relu(self.fc1(self.flatten(x))))

    model = LeNet()
    x = lib.randn(64, 1, 28, 28)
    target = lib.randint(0, 10, (64,))

    def run():
        model.zero_grad()
        F.cross_entropy(model(x), target).backward()
        return model.conv1.weight.grad

    return run


# ----- 3. an LSTM train step (nn-rnn) --------------------------------------------------------

LSTM_T, LSTM_B, LSTM_IN, LSTM_H = 32, 16, 64, 128


def lstm_lib(lib, x_np, weights, cls="LSTM"):
    """nn.LSTM(64, 128) (or nn.GRU) on a (32, 16, 64) input, the mean of squares of its
    output, backward."""
    lstm = getattr(lib.nn, cls)(LSTM_IN, LSTM_H)
    with lib.no_grad():
        for p, w in zip(lstm.parameters(), weights):
            p.copy_(lib.from_numpy(w))
    x = lib.from_numpy(x_np)

    def run():
        lstm.zero_grad()
        out, _ = lstm(x)
        (out * out).mean().backward()
        return lstm.weight_hh_l0.grad

    return run


def lstm_numpy(x_np, weights):
    """The same step by hand: the gates of all steps in one product, one product per step
    forward and backward, the weight gradients in one product each."""
    w_ih, w_hh, b_ih, b_hh = weights
    T, B, n = LSTM_T, LSTM_B, LSTM_H

    def run():
        xw = (x_np.reshape(T * B, -1) @ w_ih.T + (b_ih + b_hh)).reshape(T, B, 4 * n)
        h = np.zeros((B, n), np.float32)
        c = np.zeros((B, n), np.float32)
        hs, cs, acts = [], [], []
        for t in range(T):
            a = xw[t] + h @ w_hh.T
            s = 1 / (1 + np.exp(-a))
            s[:, 2 * n : 3 * n] = np.tanh(a[:, 2 * n : 3 * n])
            c = s[:, n : 2 * n] * c + s[:, :n] * s[:, 2 * n : 3 * n]
            h = s[:, 3 * n :] * np.tanh(c)
            hs.append(h)
            cs.append(c)
            acts.append(s)
        out = np.stack(hs)
        g_out = 2 * out / out.size
        g_h = np.zeros((B, n), np.float32)
        g_c = np.zeros((B, n), np.float32)
        g_a = np.empty((T, B, 4 * n), np.float32)
        for t in reversed(range(T)):
            s = acts[t]
            i, f, g, o = s[:, :n], s[:, n : 2 * n], s[:, 2 * n : 3 * n], s[:, 3 * n :]
            g_h = g_h + g_out[t]
            tc = np.tanh(cs[t])
            g_c = g_c + g_h * o * (1 - tc * tc)
            c_prev = cs[t - 1] if t else np.zeros_like(c)
            g_a[t, :, :n] = g_c * g * i * (1 - i)
            g_a[t, :, n : 2 * n] = g_c * c_prev * f * (1 - f)
            g_a[t, :, 2 * n : 3 * n] = g_c * i * (1 - g * g)
            g_a[t, :, 3 * n :] = g_h * tc * o * (1 - o)
            g_c = g_c * f
            g_h = g_a[t] @ w_hh
        h_prev = np.concatenate([np.zeros((1, B, n), np.float32), out[:-1]])
        flat = g_a.reshape(T * B, 4 * n)
        g_bias = flat.sum(0)  # noqa: F841 - computed as the others compute it
        g_w_ih = flat.T @ x_np.reshape(T * B, -1)  # noqa: F841
        return flat.T @ h_prev.reshape(T * B, n)

    return run


def lstm_row(repeat: int) -> tuple:
    """chainrule, PyTorch and NumPy times of one LSTM train step, in ms."""
    r = np.random.default_rng(0)
    x_np = r.standard_normal((LSTM_T, LSTM_B, LSTM_IN)).astype(np.float32)
    k = 1 / np.sqrt(LSTM_H)
    shapes = [(4 * LSTM_H, LSTM_IN), (4 * LSTM_H, LSTM_H), (4 * LSTM_H,), (4 * LSTM_H,)]
    weights = [r.uniform(-k, k, s).astype(np.float32) for s in shapes]
    t = race(
        {
            "cr": lstm_lib(chainrule, x_np, weights),
            "pt": lstm_lib(torch, x_np, weights) if torch else None,
            "np": lstm_numpy(x_np, weights),
        },
        3 * repeat,
    )
    return ("LSTM train step, seq 32, batch 16, 64 -> 128 (ms)", *(t[k] * 1e3 for k in t))


def gru_row(repeat: int) -> tuple:
    """chainrule and PyTorch times of the same train step with nn.GRU, in ms."""
    r = np.random.default_rng(0)
    x_np = r.standard_normal((LSTM_T, LSTM_B, LSTM_IN)).astype(np.float32)
    k = 1 / np.sqrt(LSTM_H)
    shapes = [(3 * LSTM_H, LSTM_IN), (3 * LSTM_H, LSTM_H), (3 * LSTM_H,), (3 * LSTM_H,)]
    weights = [r.uniform(-k, k, s).astype(np.float32) for s in shapes]
    t = race(
        {
            "cr": lstm_lib(chainrule, x_np, weights, "GRU"),
            "pt": lstm_lib(torch, x_np, weights, "GRU") if torch else None,
            "np": None,
        },
        3 * repeat,
    )
    return ("GRU train step, seq 32, batch 16, 64 -> 128 (ms)", *(t[k] * 1e3 for k in t))


def peak_bytes(fn) -> int:
    """Peak memory NumPy allocates during ``fn`` (tracemalloc sees NumPy's buffers)."""
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--out", default="docs/benchmarks.md")
    args = parser.parse_args()
    repeat = 3 if args.quick else 7
    rows = []

    n = 2000
    t = race(
        {
            "cr": chain_lib(chainrule, n),
            "pt": chain_lib(torch, n) if torch else None,
            "np": chain_numpy(n),
        },
        4 * repeat,  # a run takes milliseconds: more of them, to see past the noise
    )
    rows.append(
        ("tiny-op chain, 2,000 ops, fwd+bwd (µs/op)", *(t[k] / n * 1e6 for k in ("cr", "pt", "np")))
    )

    x_np = np.random.default_rng(0).standard_normal(4_000_000).astype(np.float32)
    t = race(
        {
            "cr": big_lib(chainrule, x_np),
            "pt": big_lib(torch, x_np) if torch else None,
            "np": big_numpy(x_np),
        },
        2 * repeat,
    )
    rows.append(("4M-element expression, fwd+bwd (ms)", *(t[k] * 1e3 for k in ("cr", "pt", "np"))))
    m_cr = peak_bytes(big_lib(chainrule, x_np)) / 2**20
    m_np = peak_bytes(big_numpy(x_np)) / 2**20
    rows.append(("4M-element expression, peak memory (MiB)", m_cr, float("nan"), m_np))

    t = race(
        {"cr": cnn_lib(chainrule), "pt": cnn_lib(torch) if torch else None, "np": None},
        3 * repeat,
    )
    rows.append(
        ("CNN train step, LeNet batch 64, fwd+bwd (ms)", t["cr"] * 1e3, t["pt"] * 1e3, t["np"])
    )

    n = 200_000
    t = race(
        {
            "cr": chain_lib(chainrule, n),
            "pt": chain_lib(torch, n) if torch else None,
            "np": chain_numpy(n),
        },
        2,
    )
    rows.append(("tiny-op chain, 200,000 ops, fwd+bwd (s)", t["cr"], t["pt"], t["np"]))
    rows.append(lstm_row(repeat))
    rows.append(gru_row(repeat))

    lines = [
        "| benchmark | chainrule | PyTorch | NumPy | chainrule / PyTorch | chainrule / NumPy |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, cr, pt, npy in rows:
        lines.append(
            f"| {name} | {cr:.3f} | {pt:.3f} | {npy:.3f} | {cr / pt:.2f}x | {cr / npy:.2f}x |"
        )
    table = "\n".join(lines)
    print(table)
    env = (
        f"Python {platform.python_version()}, NumPy {np.__version__}, "
        f"PyTorch {torch.__version__ if torch else 'absent'}, {platform.machine()}, "
        f"{os.cpu_count()} cores, single-threaded (OMP/MKL/OPENBLAS_NUM_THREADS=1)."
    )
    doc = Path(args.out)
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(
        "# Benchmarks\n\n"
        "Made by `make bench` (`python bench/run.py`): chainrule, PyTorch (CPU) and hand-written "
        "NumPy, side by side in one process, best of several interleaved runs. Peak memory is what "
        "tracemalloc sees NumPy allocate (PyTorch's allocator is not traced, so its column is "
        "empty). The machines are shared and noisy: compare ratios from one run, not absolute "
        "times across runs.\n\n"
        f"{env}\n\n{table}\n"
    )
    print(f"\nwrote {doc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
