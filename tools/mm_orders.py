"""Which operand order OpenBLAS runs faster for ``x @ w.T`` (rows x (m, k) times a transposed
w (n, k)): the time of (w xᵀ)ᵀ copied back to rows over that of ``x @ w.T``, for a grid of m,
n, k, float32 and float64, and for an untransposed w. _backend.mm switches order where this
grid shows it faster (float32, n >= 128, m n >= 2048, m <= 32, or m <= 64 with k >= 512).

    OMP_NUM_THREADS=1 python tools/mm_orders.py
"""

from __future__ import annotations

import timeit

import numpy as np


def best_us(fn) -> float:
    n = max(3, int(0.01 / max(timeit.timeit(fn, number=3) / 3, 1e-7)))
    return min(timeit.repeat(fn, number=n, repeat=5)) / n * 1e6


def main() -> None:
    r = np.random.default_rng(0)
    ns = (64, 128, 256, 512, 1024)
    for dt in (np.float32, np.float64):
        for layout in ("x @ w.T", "x @ contiguous wᵀ"):
            for k in (64, 256, 784):
                print(f"\n{np.dtype(dt).name}, {layout}, k = {k}: rows m, columns n")
                print("     " + " ".join(f"{n:6d}" for n in ns))
                for m in (4, 8, 16, 32, 64, 96, 128):
                    ratios = []
                    for n in ns:
                        x = r.standard_normal((m, k)).astype(dt)
                        w = r.standard_normal((n, k)).astype(dt)
                        b = w.T if layout == "x @ w.T" else np.ascontiguousarray(w.T)
                        plain = best_us(lambda x=x, b=b: x @ b)
                        swapped = best_us(lambda x=x, b=b: np.ascontiguousarray((b.T @ x.T).T))
                        ratios.append(swapped / plain)
                    print(f"{m:4d} " + " ".join(f"{v:6.2f}" for v in ratios))


if __name__ == "__main__":
    main()
