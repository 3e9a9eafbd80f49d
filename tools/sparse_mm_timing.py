"""torch.sparse.mm forward and backward on a Cora-sized graph (2,708 nodes, 13,264 elements,
16 features), chainrule against PyTorch in one process: docs/performance.md's number.

Run single-threaded: ``env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1
PYTHONPATH=src .venv/bin/python tools/sparse_mm_timing.py``."""

from __future__ import annotations

import time
import warnings

import numpy as np
import torch

import chainrule

warnings.simplefilter("ignore")
N, NNZ, FEATURES = 2708, 13264, 16


def per_step(lib, index: np.ndarray, values: np.ndarray, x: np.ndarray) -> float:
    """Microseconds for one forward and backward of sparse.mm(A, X) (A fixed)."""
    a = lib.sparse_coo_tensor(lib.tensor(index), lib.tensor(values), (N, N)).coalesce()
    dense = lib.tensor(x, requires_grad=True)

    def step() -> None:
        lib.sparse.mm(a, dense).sum().backward()
        dense.grad = None

    for _ in range(3):
        step()
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(20):
            step()
        best = min(best, (time.perf_counter() - start) / 20 * 1e6)
    return best


def main() -> None:
    rng = np.random.default_rng(0)
    index = rng.integers(0, N, (2, NNZ))
    values = rng.random(NNZ).astype(np.float32)
    x = rng.standard_normal((N, FEATURES)).astype(np.float32)
    theirs = per_step(torch, index, values, x)
    ours = per_step(chainrule, index, values, x)
    print(
        f"sparse.mm fwd+bwd ({N}x{N}, {NNZ} elements, x {N}x{FEATURES}): PyTorch "
        f"{theirs:.0f} us, chainrule {ours:.0f} us, ratio {ours / theirs:.2f}"
    )


if __name__ == "__main__":
    main()
