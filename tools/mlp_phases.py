"""Where the MLP 784-256-10 train step's time goes, phase by phase, for chainrule, PyTorch
and the bench's hand-written NumPy, in the bench's conditions: each step after a
``gc.collect()``, the three candidates interleaved (see ``bench/run.py``'s ``race``). Prints
the median of the fastest fifth of the steps per phase, in µs.

    PYTHONPATH=src OMP_NUM_THREADS=1 python tools/mlp_phases.py [batch] [steps]
"""

from __future__ import annotations

import gc
import os
import sys
import time

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

import chainrule  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
from run import mlp_data, mlp_model  # noqa: E402

PHASES = ("zero_grad", "forward", "loss", "backward", "step")
_clock = time.perf_counter


def library_step(lib, batch: int):
    """One optim.SGD step of the bench's model, timed by phase."""
    model, x, target = mlp_model(lib, batch)
    F = lib.nn.functional
    opt = lib.optim.SGD(model.parameters(), lr=0.01)

    def run() -> list:
        t = [_clock()]
        opt.zero_grad()
        t.append(_clock())
        z = model(x)
        t.append(_clock())
        loss = F.cross_entropy(z, target)
        t.append(_clock())
        loss.backward()
        t.append(_clock())
        opt.step()
        t.append(_clock())
        return np.diff(t)

    return run


def numpy_step(batch: int):
    """The bench's hand-written step (``mlp_numpy``), timed by the same phases."""
    x, target, (w1, b1, w2, b2) = mlp_data(batch)
    rows = np.arange(batch)
    lr = np.float32(0.01)

    def run() -> list:
        t = [_clock()]
        t.append(_clock())  # (no zero_grad)
        h = x @ w1.T
        h += b1
        a = np.maximum(h, 0)
        z = a @ w2.T
        z += b2
        t.append(_clock())
        z -= z.max(1, keepdims=True)
        e = np.exp(z)
        p = e / e.sum(1, keepdims=True)
        -np.log(p[rows, target]).mean()
        t.append(_clock())
        p[rows, target] -= 1
        p /= batch
        g_w2, g_b2 = p.T @ a, p.sum(0)
        g_a = p @ w2
        g_a *= h > 0
        g_w1, g_b1 = g_a.T @ x, g_a.sum(0)
        t.append(_clock())
        for w, g in ((w1, g_w1), (b1, g_b1), (w2, g_w2), (b2, g_b2)):
            g *= lr
            w -= g
        t.append(_clock())
        return np.diff(t)

    return run


def main() -> None:
    torch.set_num_threads(1)
    batch = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    runs = {
        "chainrule": library_step(chainrule, batch),
        "PyTorch": library_step(torch, batch),
        "NumPy": numpy_step(batch),
    }
    gc.collect()
    gc.freeze()
    times: dict = {name: [] for name in runs}
    for _ in range(steps):
        for name, run in runs.items():
            gc.collect()
            times[name].append(run())
    print(f"batch {batch}, µs:   " + " ".join(f"{p:>9s}" for p in PHASES) + "      step")
    for name, rows in times.items():
        a = np.array(rows) * 1e6
        fastest = a[np.argsort(a.sum(1))[: max(1, len(a) // 5)]]
        phases = np.median(fastest, 0)
        print(
            f"{name:10s}      " + " ".join(f"{v:9.1f}" for v in phases) + f"  {phases.sum():8.1f}"
        )


if __name__ == "__main__":
    main()
