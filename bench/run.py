"""Side-by-side benchmarks: chainrule, PyTorch (CPU) and hand-written NumPy, one process.

Run with ``make bench`` (``--quick``: fewer repeats, about two minutes). Single-threaded
(the Makefile sets the thread variables, and so does this script when run directly).
Each row is a function of the repeat count returning (chainrule, PyTorch, NumPy); the
candidates run interleaved and the best run counts. The ratios to PyTorch and NumPy are
printed beside the targets of issue 12, and the table is written to docs/benchmarks.md.

Peak memory: tracemalloc sees NumPy's buffers and Python's objects but not PyTorch's
allocator, so where PyTorch is compared (the million-op chain) each library runs alone in a
fresh subprocess and the peak is the growth of the process's resident set over the run
(``ru_maxrss`` at the end minus the resident set just before), one ruler for all three.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import gc  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

import chainrule  # noqa: E402

try:
    import torch

    torch.set_num_threads(1)
except ImportError:  # the table then has no PyTorch column
    torch = None

NAN = float("nan")


def race(fns: dict, repeat: int, timed: bool = False) -> dict:
    """The fastest of ``repeat`` runs of each function, in seconds.

    The runs are interleaved (chainrule, PyTorch, NumPy, chainrule, ...), so a burst of
    load from elsewhere on a shared machine, or the allocator's state, falls on all of
    them alike rather than on whichever ran first. With ``timed`` each function returns
    the seconds of the part it times itself (a backward after its untimed forward).
    """
    best = {name: float("inf") for name in fns}
    # What the candidates' setup left (their models, and what a library imported lazily on
    # the way: PyTorch's optimizers import torch._dynamo, about 117,000 objects) moves out
    # of the collector's sight too, as main() does for the modules imported at the start:
    # otherwise each gc.collect() below walks it (40 ms), evicting the caches, and every
    # run after it starts cold (2-2.8x slower for all three).
    gc.collect()
    gc.freeze()
    for _ in range(repeat):
        for name, fn in fns.items():
            if fn is None:
                best[name] = NAN
                continue
            gc.collect()
            t0 = time.perf_counter()
            out = fn()
            t = out if timed else time.perf_counter() - t0
            best[name] = min(best[name], t)
    return best


# Runs per candidate of a train step's row (MLP, HVP, CNN, LSTM, GRU), times the repeat: a
# step's time moves by 10-15% with the state the previous run left in the caches, and the
# fastest of 5 runs still moved the MLP rows' ratios by ±0.07 between bench runs; the
# fastest of 20 moves less. (A step takes 0.5-5 ms: this adds seconds to the bench.)
STEPS = 20


def triple(t: dict, scale: float) -> tuple:
    return tuple(t[k] * scale for k in ("cr", "pt", "np"))


# ----- 1. recording one op, and backward of a one-op graph ---------------------------------

OPS = {
    "add": lambda x, y: x + y,
    "mul": lambda x, y: x * y,
    "matmul": lambda x, y: x @ y,
    "sum": lambda x, y: x.sum(),
    "relu": None,  # the library's own relu (np.maximum for NumPy)
    "x[1:]": lambda x, y: x[1:],
}
LOOP = 200  # calls per timed run: a single call is below the timer's resolution


def one_op(lib, name: str, shape: tuple):
    """``LOOP`` recordings of op ``name`` on inputs that require grad (NumPy: the bare op)."""
    r = np.random.default_rng(0)
    a, b = (r.standard_normal(shape).astype(np.float32) for _ in range(2))
    if lib is np:
        x, y = a, b
        fn = (lambda x, y: np.maximum(x, 0)) if name == "relu" else OPS[name]
    else:
        x = lib.from_numpy(a).requires_grad_()
        y = lib.from_numpy(b).requires_grad_()
        fn = (lambda x, y: lib.relu(x)) if name == "relu" else OPS[name]

    def run():
        for _ in range(LOOP):
            fn(x, y)

    return run


def one_op_row(name: str, shape: tuple, repeat: int) -> tuple:
    t = race({k: one_op(lib, name, shape) for k, lib in LIBS.items()}, 5 * repeat)
    return triple(t, 1e6 / LOOP)


def one_backward(lib):
    """Backward of ``LOOP`` one-op graphs ``y = x * 2``, made before the clock starts."""
    if lib is np:
        g = np.ones(3, np.float32)

        def run_np():
            ys = [g * 2 for _ in range(LOOP)]
            t0 = time.perf_counter()
            for _ in ys:
                g * 2
            return time.perf_counter() - t0

        return run_np
    x = lib.randn(3, requires_grad=True)
    g = lib.ones(3)

    def run():
        ys = [x * 2 for _ in range(LOOP)]
        t0 = time.perf_counter()
        for y in ys:
            y.backward(g)
        return time.perf_counter() - t0

    return run


def one_backward_row(repeat: int) -> tuple:
    t = race({k: one_backward(lib) for k, lib in LIBS.items()}, 5 * repeat, timed=True)
    return triple(t, 1e6 / LOOP)


# ----- 2. the seed's loop stretched into a chain of tiny ops -----------------------------


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


def chain_row(repeat: int) -> tuple:
    n = 2000
    t = race(
        {
            "cr": chain_lib(chainrule, n),
            "pt": chain_lib(torch, n) if torch else None,
            "np": chain_numpy(n),
        },
        4 * repeat,  # a run takes milliseconds: more of them, to see past the noise
    )
    return triple(t, 1e6 / n)


_CHILD = """
import os, resource, sys, time
import numpy as np
sys.path[:0] = {path!r}
import bench.run as b
lib = {{"cr": "chainrule", "pt": "torch", "np": None}}[{which!r}]
if lib == "torch":
    import torch; torch.set_num_threads(1)
fn = b.chain_numpy({n}) if lib is None else b.chain_lib(__import__(lib), {n})
b.chain_numpy(10)() if lib is None else b.chain_lib(__import__(lib), 10)()
with open("/proc/self/statm") as f:
    before = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
t0 = time.perf_counter()
fn()
t = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(t, peak - before)
"""


def long_chain_rows(repeat: int) -> list:
    """The million-op chain, each library alone in a fresh process: time and peak RSS growth."""
    n = 1_000_000
    root = str(Path(__file__).resolve().parent.parent)
    path = [root, str(Path(chainrule.__file__).resolve().parent.parent)]
    best = {k: (float("inf"), float("inf")) for k in LIBS}
    for _ in range(repeat):
        for which in LIBS:
            if which == "pt" and torch is None:
                best[which] = (NAN, NAN)
                continue
            code = _CHILD.format(path=path, which=which, n=n)
            out = subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout.split()
            t, peak = float(out[0]), float(out[1])
            best[which] = (min(best[which][0], t), min(best[which][1], peak))
    return [
        ("tiny-op chain, 1,000,000 ops, fwd+bwd (s)", *(best[k][0] for k in LIBS), 0.5, None),
        (
            "tiny-op chain, 1,000,000 ops, peak RSS growth (MiB)",
            *(best[k][1] / 2**20 for k in LIBS),
            0.4,
            None,
        ),
    ]


# ----- 3. a large elementwise expression --------------------------------------------------


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


def peak_bytes(fn) -> int:
    """Peak memory NumPy allocates during ``fn`` (tracemalloc sees NumPy's buffers)."""
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def big_rows(repeat: int) -> list:
    x_np = np.random.default_rng(0).standard_normal(4_000_000).astype(np.float32)
    fns = {
        "cr": big_lib(chainrule, x_np),
        "pt": big_lib(torch, x_np) if torch else None,
        "np": big_numpy(x_np),
    }
    t = race(fns, 2 * repeat)
    m_cr = peak_bytes(fns["cr"]) / 2**20
    m_np = peak_bytes(fns["np"]) / 2**20
    return [
        ("4M-element expression, fwd+bwd (ms)", *triple(t, 1e3), None, 1.05),
        ("4M-element expression, peak memory, tracemalloc (MiB)", m_cr, NAN, m_np, None, 1.25),
    ]


# ----- 4. an MLP 784-256-10 train step, and a Hessian-vector product of its loss ----------


def mlp_data(batch: int):
    r = np.random.default_rng(0)
    x = r.standard_normal((batch, 784)).astype(np.float32)
    target = r.integers(0, 10, batch)
    w1 = (r.standard_normal((256, 784)) / 28).astype(np.float32)
    w2 = (r.standard_normal((10, 256)) / 16).astype(np.float32)
    b1 = np.zeros(256, np.float32)
    b2 = np.zeros(10, np.float32)
    return x, target, [w1, b1, w2, b2]


def mlp_model(lib, batch: int) -> tuple:
    """Linear(784, 256) + ReLU + Linear(256, 10) with ``mlp_data``'s weights, and its batch:
    (model, x, target) in ``lib`` (also tools/mlp_phases.py's)."""
    x_np, t_np, weights = mlp_data(batch)
    nn = lib.nn
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    with lib.no_grad():
        for p, w in zip(model.parameters(), weights):
            p.copy_(lib.from_numpy(w))
    return model, lib.from_numpy(x_np), lib.from_numpy(t_np)


def mlp_lib(lib, batch: int, how: str):
    """``mlp_model``'s cross-entropy, backward and an SGD step: ``optim.SGD``
    (``how="sgd"``) or ``p -= lr * p.grad`` under no_grad (``"manual"``)."""
    model, x, target = mlp_model(lib, batch)
    F = lib.nn.functional
    params = list(model.parameters())
    opt = lib.optim.SGD(params, lr=0.01)

    def sgd():
        opt.zero_grad()
        F.cross_entropy(model(x), target).backward()
        opt.step()

    def manual():
        for p in params:
            p.grad = None
        F.cross_entropy(model(x), target).backward()
        with lib.no_grad():
            for p in params:
                p -= 0.01 * p.grad

    return sgd if how == "sgd" else manual


def mlp_numpy(batch: int):
    x, target, (w1, b1, w2, b2) = mlp_data(batch)
    rows = np.arange(batch)
    lr = np.float32(0.01)

    def run():
        h = x @ w1.T
        h += b1
        a = np.maximum(h, 0)
        z = a @ w2.T
        z += b2
        z -= z.max(1, keepdims=True)
        e = np.exp(z)
        p = e / e.sum(1, keepdims=True)
        loss = -np.log(p[rows, target]).mean()  # noqa: F841 - the forward value
        p[rows, target] -= 1
        p /= batch  # d loss / d z
        g_w2 = p.T @ a
        g_b2 = p.sum(0)
        g_a = p @ w2
        g_a *= h > 0  # relu'
        g_w1 = g_a.T @ x
        g_b1 = g_a.sum(0)
        for w, g in ((w1, g_w1), (b1, g_b1), (w2, g_w2), (b2, g_b2)):
            g *= lr
            w -= g

    return run


def mlp_row(batch: int, how: str, repeat: int) -> tuple:
    t = race(
        {
            "cr": mlp_lib(chainrule, batch, how),
            "pt": mlp_lib(torch, batch, how) if torch else None,
            "np": mlp_numpy(batch),
        },
        STEPS * repeat,
    )
    return triple(t, 1e3)


def hvp_lib(lib, batch: int = 128):
    """H v of the MLP's loss with respect to its weights: grad of (grad loss) . v."""
    x_np, t_np, weights = mlp_data(batch)
    F = lib.nn.functional
    params = [lib.from_numpy(w).requires_grad_() for w in weights]
    vs = [lib.ones_like(p) for p in params]
    x, target = lib.from_numpy(x_np), lib.from_numpy(t_np)

    def run():
        w1, b1, w2, b2 = params
        loss = F.cross_entropy(F.linear(F.relu(F.linear(x, w1, b1)), w2, b2), target)
        grads = lib.autograd.grad(loss, params, create_graph=True)
        dot = sum((g * v).sum() for g, v in zip(grads, vs))
        return lib.autograd.grad(dot, params)

    return run


def hvp_numpy(batch: int = 128):
    """H v by hand: the directional derivative along v of the gradient (Pearlmutter's
    R-operator, forward over the hand-written backward), R{·} of each step of mlp_numpy's
    backward. Three large products (x W1ᵀ, x V1ᵀ, R{dh}ᵀ x) where autograd needs four: it
    also forms the gradient of W1, whose dot with V1 it differentiates."""
    x, target, (w1, b1, w2, b2) = mlp_data(batch)
    v1, c1, v2, c2 = (np.ones_like(w) for w in (w1, b1, w2, b2))
    rows = np.arange(batch)

    def run():
        h = x @ w1.T
        h += b1
        on = h > 0
        a = h * on
        z = a @ w2.T
        z += b2
        z -= z.max(1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(1, keepdims=True)
        dz = p.copy()
        dz[rows, target] -= 1
        dz /= batch  # d loss / d z
        r_h = x @ v1.T  # R{h}, R{a}, R{z}, R{softmax}
        r_h += c1
        r_a = r_h * on
        r_z = r_a @ w2.T + a @ v2.T
        r_z += c2
        r_dz = r_z - (p * r_z).sum(1, keepdims=True)
        r_dz *= p
        r_dz /= batch
        h_w2 = r_dz.T @ a + dz.T @ r_a  # R{d loss / d W2} = (H v) for W2, and so on
        h_b2 = r_dz.sum(0)
        r_dh = r_dz @ w2 + dz @ v2
        r_dh *= on
        h_w1 = r_dh.T @ x
        h_b1 = r_dh.sum(0)
        return h_w1, h_b1, h_w2, h_b2

    return run


def hvp_row(repeat: int) -> tuple:
    t = race(
        {"cr": hvp_lib(chainrule), "pt": hvp_lib(torch) if torch else None, "np": hvp_numpy()},
        STEPS * repeat,
    )
    return triple(t, 1e3)


# ----- 5. a LeNet-style train step built from nn modules ----------------------------------


def lenet(lib):
    """LeNet: Conv2d(1,6,5) + ReLU + MaxPool2d(2) + Conv2d(6,16,5) + ReLU + MaxPool2d(2) +
    Flatten + Linear(256,120) + ReLU + Linear(120,10), its weights from seed 0."""
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

    return LeNet()


def cnn_lib(lib):
    """Conv2d(1,6,5) + ReLU + MaxPool2d(2) + Conv2d(6,16,5) + ReLU + MaxPool2d(2) + Flatten +
    Linear(256,120) + ReLU + Linear(120,10), cross-entropy, backward (no optimizer) on a
    batch of 64 1x28x28 inputs."""
    F = lib.nn.functional
    model = lenet(lib)
    x = lib.randn(64, 1, 28, 28)
    target = lib.randint(0, 10, (64,))

    def run():
        model.zero_grad()
        F.cross_entropy(model(x), target).backward()
        return model.conv1.weight.grad

    return run


def cnn_row(repeat: int) -> tuple:
    t = race(
        {"cr": cnn_lib(chainrule), "pt": cnn_lib(torch) if torch else None, "np": None},
        STEPS * repeat,
    )
    return triple(t, 1e3)


# ----- 6. an LSTM train step (nn-rnn) --------------------------------------------------------

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
        STEPS * repeat,
    )
    return triple(t, 1e3)


def gru_row(repeat: int) -> tuple:
    """The same train step with nn.GRU (3 gates), chainrule and PyTorch, in ms."""
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
        STEPS * repeat,
    )
    return triple(t, 1e3)


# ----- 7. a transformer encoder layer's train step (not one of issue 12's rows) ----------------


def transformer_lib(lib, activation: str):
    """nn.TransformerEncoderLayer(64, 4 heads, feed-forward 128, no dropout, batch first)
    and a Linear(64, 10) head on the mean over the sequence, cross-entropy, backward and an
    optim.SGD step, on a (16, 32, 64) batch: attention, layer norm, GELU or ReLU."""
    lib.manual_seed(0)
    layer = lib.nn.TransformerEncoderLayer(
        64, 4, 128, dropout=0.0, activation=activation, batch_first=True
    )
    head = lib.nn.Linear(64, 10)
    opt = lib.optim.SGD([*layer.parameters(), *head.parameters()], lr=0.01)
    r = np.random.default_rng(0)
    x = lib.from_numpy(r.standard_normal((16, 32, 64)).astype(np.float32))
    target = lib.from_numpy(r.integers(0, 10, 16))

    def run():
        opt.zero_grad()
        lib.nn.functional.cross_entropy(head(layer(x).mean(1)), target).backward()
        opt.step()

    return run


def transformer_row(activation: str, repeat: int) -> tuple:
    t = race(
        {
            "cr": transformer_lib(chainrule, activation),
            "pt": transformer_lib(torch, activation) if torch else None,
            "np": None,
        },
        STEPS * repeat,
    )
    return triple(t, 1e3)


# ----- 8. a small residual network's train step (not one of issue 12's rows) ------------------


def resnet_lib(lib):
    """Conv2d(3, 16, 3) + BatchNorm2d + ReLU and two residual blocks (two 3x3 convolutions of
    16 channels with batch norm each), global average pooling and a Linear(16, 10) head,
    cross-entropy, backward and an optim.SGD step with momentum, on a (32, 3, 16, 16)
    batch."""
    nn = lib.nn
    lib.manual_seed(0)

    class Block(nn.Module):
        def __init__(self, c: int) -> None:
            super().__init__()
            self.c1, self.b1 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
            self.c2, self.b2 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)

        def forward(self, x):
            y = lib.relu(self.b1(self.c1(x)))
            return lib.relu(self.b2(self.c2(y)) + x)

    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1),
        nn.BatchNorm2d(16),
        nn.ReLU(),
        Block(16),
        Block(16),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(16, 10),
    )
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    r = np.random.default_rng(0)
    x = lib.from_numpy(r.standard_normal((32, 3, 16, 16)).astype(np.float32))
    target = lib.from_numpy(r.integers(0, 10, 32))

    def run():
        opt.zero_grad()
        lib.nn.functional.cross_entropy(model(x), target).backward()
        opt.step()

    return run


def resnet_row(repeat: int) -> tuple:
    t = race(
        {"cr": resnet_lib(chainrule), "pt": resnet_lib(torch) if torch else None, "np": None},
        STEPS * repeat,
    )
    return triple(t, 1e3)


# ----- the table ----------------------------------------------------------------------------

LIBS = {"cr": chainrule, "pt": torch, "np": np}


def rows_table() -> list:
    """(name, function of the repeat count -> (chainrule, PyTorch, NumPy), target of
    chainrule / PyTorch, target of chainrule / NumPy); a function may give a list of rows
    (each with its own name and targets; ``name`` then only selects it for ``--only``)."""
    table = []
    for shape, label in (((3,), "3"), ((100, 100), "100x100")):
        for op in OPS:
            table.append(
                (
                    f"record `{op}`, {label}, forward (µs)",
                    lambda r, op=op, shape=shape: one_op_row(op, shape, r),
                    1.0,
                    None,
                )
            )
    table += [
        ("backward of a one-op graph `x * 2`, 3 (µs)", one_backward_row, 0.7, None),
        ("tiny-op chain, 2,000 ops, fwd+bwd (µs/op)", chain_row, 0.5, None),
    ]
    for batch in (16, 128):
        for how in ("sgd", "manual"):
            upd = "optim.SGD" if how == "sgd" else "p -= lr * p.grad"
            table.append(
                (
                    f"MLP 784-256-10 train step, batch {batch}, {upd} (ms)",
                    lambda r, b=batch, h=how: mlp_row(b, h, r),
                    1.0,
                    1.2,
                )
            )
    table += [
        ("Hessian-vector product of the MLP's loss, batch 128 (ms)", hvp_row, 1.0, None),
        ("1,000,000-op chain", long_chain_rows, None, None),
        ("4M-element expression", big_rows, None, None),
        ("CNN train step, LeNet batch 64, fwd+bwd (ms)", cnn_row, 1.2, None),
        ("LSTM train step, seq 32, batch 16, 64 -> 128 (ms)", lstm_row, 1.2, None),
        ("GRU train step, seq 32, batch 16, 64 -> 128 (ms)", gru_row, 1.2, None),
    ]
    table.append(
        (
            "Residual CNN train step, 2 blocks, batch norm, (32, 3, 16, 16) (ms)",
            resnet_row,
            None,
            None,
        )
    )
    for act in ("relu", "gelu"):
        table.append(
            (
                f"Transformer encoder layer train step, {act}, (16, 32, 64) (ms)",
                lambda r, a=act: transformer_row(a, r),
                None,
                None,
            )
        )
    return table


def ratio(a: float, b: float, target: float | None) -> str:
    if not b == b or not a == a:  # nan: no such candidate
        return ""
    r = a / b
    if target is None:
        return f"{r:.2f}x"
    return f"{r:.2f}x {'≤' if r <= target else '>'} {target:g}"


def processor() -> str:
    """The processor's model name, as Linux reports it (else the platform's word)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def blas_kernels() -> str:
    """Which BLAS NumPy runs and, for OpenBLAS, the kernels it chose for this processor
    (OPENBLAS_CORETYPE, when set, overrides the choice: the Makefile unsets it)."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "NumPy's BLAS unknown (no threadpoolctl)"
    for info in threadpool_info():
        if info.get("user_api") == "blas":
            arch = info.get("architecture")
            kernels = f" with {arch} kernels" if arch else ""
            forced = " (forced by OPENBLAS_CORETYPE)" if os.environ.get("OPENBLAS_CORETYPE") else ""
            return f"NumPy on {info.get('internal_api')} {info.get('version')}{kernels}{forced}"
    return "NumPy's BLAS unknown"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats (about 2 minutes)")
    parser.add_argument("--only", default="", help="run only the rows whose name contains this")
    parser.add_argument("--out", default="docs/benchmarks.md")
    args = parser.parse_args()
    repeat = 1 if args.quick else 3
    # The modules' objects (PyTorch's, NumPy's, chainrule's) move out of the collector's
    # sight: a collection then costs what the benchmark's own objects cost, for each alike.
    gc.collect()
    gc.freeze()
    results = []
    start = time.perf_counter()
    for name, fn, t_pt, t_np in rows_table():
        if args.only and args.only not in name:
            continue
        out = fn(repeat)
        for row in out if isinstance(out, list) else [(name, *out, t_pt, t_np)]:
            results.append(row)
            print(row[0], *(f"{v:.3f}" for v in row[1:4]), file=sys.stderr)
    lines = [
        "| benchmark | chainrule | PyTorch | NumPy | chainrule / PyTorch (target) "
        "| chainrule / NumPy (target) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, cr, pt, npy, t_pt, t_np in results:
        lines.append(
            f"| {name} | {cr:.3f} | {pt:.3f} | {npy:.3f} | {ratio(cr, pt, t_pt)} "
            f"| {ratio(cr, npy, t_np)} |"
        )
    table = "\n".join(lines)
    print(table)
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    env = (
        f"Python {platform.python_version()}, NumPy {np.__version__}, "
        f"PyTorch {torch.__version__ if torch else 'absent'}, {platform.machine()} "
        f"({processor()}), "
        f"{os.cpu_count()} cores, {blas_kernels()}, "
        "single-threaded (OMP/MKL/OPENBLAS_NUM_THREADS=1), "
        f"load average at the end {load}, {time.perf_counter() - start:.0f} s"
        f"{' (--quick)' if args.quick else ''}."
    )
    print(env)
    if args.only:
        return 0
    doc = Path(args.out)
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(
        "# Benchmarks\n\n"
        "Made by `make bench` (`python bench/run.py`): chainrule, PyTorch (CPU) and hand-written "
        "NumPy, side by side in one process, best of several interleaved runs; the targets are "
        "issue 12's. Peak memory of the 4M-element expression is what tracemalloc sees NumPy "
        "allocate (PyTorch's allocator is not traced, so its column is empty); peak memory of "
        "the million-op chain is the growth of the resident set of a fresh process running "
        "only that chain, for each library alike. The machines are shared and noisy: compare "
        "ratios from one run, not absolute times across runs. All three run with PyTorch "
        "imported, which leaves glibc's allocator keeping freed weight-sized blocks (observed: "
        "its import has the effect of a large block freed); chainrule's own import raises those "
        "thresholds too (src/chainrule/_backend.py), so a script without PyTorch runs as fast "
        "(without it, the MLP step on batch 16 took 1.2 ms instead of 0.71: each step "
        "re-faulted the pages of its gradients). Where the time goes, row by row, and what is "
        "left below each target: docs/performance.md. `make bench` runs without "
        "OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, which some machines set for older OpenBLAS "
        "builds: they hold NumPy's OpenBLAS to older kernels than the processor's (and "
        "leave PyTorch's own alone); the line below names the kernels it ran.\n\n"
        f"{env}\n\n{table}\n"
    )
    print(f"\nwrote {doc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
