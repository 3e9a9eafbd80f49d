"""Where a Hessian-vector product's time goes: the bench's HVP of the MLP's loss (bench/run.py
``hvp_lib``) split into its four phases (forward, the first gradient with create_graph, the
dot with v, the second gradient), chainrule and PyTorch interleaved, the best of each.

    OMP_NUM_THREADS=1 PYTHONPATH=src python tools/hvp_phases.py           # batch 128
    OMP_NUM_THREADS=1 PYTHONPATH=src python tools/hvp_phases.py --tiny    # the Python alone

``--tiny`` runs the same network at 2 x 8 -> 8 -> 4, where NumPy's calls cost next to nothing:
what is left is the Python around them. ``--cold`` collects garbage before each run, as the
bench does.
"""

from __future__ import annotations

import argparse
import gc
import time

import numpy as np
import torch

import chainrule

PHASES = ("forward", "grad 1", "dot", "grad 2", "total")


def mlp(batch: int, n_in: int, hidden: int, classes: int):
    """The bench's data (bench/run.py ``mlp_data``) for any size."""
    r = np.random.default_rng(0)
    x = r.standard_normal((batch, n_in)).astype(np.float32)
    target = r.integers(0, classes, batch)
    w1 = (r.standard_normal((hidden, n_in)) / 28).astype(np.float32)
    w2 = (r.standard_normal((classes, hidden)) / 16).astype(np.float32)
    return x, target, [w1, np.zeros(hidden, np.float32), w2, np.zeros(classes, np.float32)]


def phases(lib, sizes: tuple):
    x_np, t_np, weights = mlp(*sizes)
    F = lib.nn.functional
    params = [lib.from_numpy(w).requires_grad_() for w in weights]
    vs = [lib.ones_like(p) for p in params]
    x, target = lib.from_numpy(x_np), lib.from_numpy(t_np)

    def run() -> np.ndarray:
        w1, b1, w2, b2 = params
        t0 = time.perf_counter()
        loss = F.cross_entropy(F.linear(F.relu(F.linear(x, w1, b1)), w2, b2), target)
        t1 = time.perf_counter()
        grads = lib.autograd.grad(loss, params, create_graph=True)
        t2 = time.perf_counter()
        dot = sum((g * v).sum() for g, v in zip(grads, vs))
        t3 = time.perf_counter()
        lib.autograd.grad(dot, params)
        t4 = time.perf_counter()
        return np.array([t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0])

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiny", action="store_true", help="2 x 8 -> 8 -> 4: the Python alone")
    parser.add_argument("--cold", action="store_true", help="gc.collect() before each run")
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    torch.set_num_threads(1)
    sizes = (2, 8, 8, 4) if args.tiny else (128, 784, 256, 10)
    fns = {"chainrule": phases(chainrule, sizes), "PyTorch": phases(torch, sizes)}
    best = {name: np.full(len(PHASES), np.inf) for name in fns}
    for _ in range(args.runs):
        for name, fn in fns.items():
            if args.cold:
                gc.collect()
            best[name] = np.minimum(best[name], fn())
    print(f"{'µs':10s}" + "".join(f"{p:>10s}" for p in PHASES))
    for name, t in best.items():
        print(f"{name:10s}" + "".join(f"{v * 1e6:10.1f}" for v in t))


if __name__ == "__main__":
    main()
