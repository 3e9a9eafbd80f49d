"""The matrix products of the benchmarks' MLP (784-256-10) in NumPy (this machine's BLAS,
OpenBLAS in NumPy's wheels) and in PyTorch (its CPU build's BLAS), single-threaded, in µs:
what part of a train step or a Hessian-vector product no Python code can win back.

    OMP_NUM_THREADS=1 python tools/products_vs_torch.py
"""

from __future__ import annotations

import functools
import os
import timeit

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)


def best_us(fn) -> float:
    n = max(3, int(0.02 / max(timeit.timeit(fn, number=3) / 3, 1e-7)))
    return min(timeit.repeat(fn, number=n, repeat=5)) / n * 1e6


def main() -> None:
    r = np.random.default_rng(0)
    print("batch  product            NumPy   PyTorch  ratio")
    for m in (16, 128):
        x = r.standard_normal((m, 784)).astype(np.float32)
        w = r.standard_normal((256, 784)).astype(np.float32)
        g = r.standard_normal((m, 256)).astype(np.float32)
        for name, a, b in (
            ("x @ W1ᵀ (forward)", x, w.T),
            ("Gᵀ @ x (dW1)", g.T, x),
            ("G @ W1 (dx)", g, w),
        ):
            ta, tb = torch.from_numpy(a), torch.from_numpy(b)  # (the same strides)
            t_np = best_us(functools.partial(np.matmul, a, b))
            t_pt = best_us(functools.partial(torch.matmul, ta, tb))
            print(f"{m:5d}  {name:17s} {t_np:7.1f} {t_pt:9.1f} {t_np / t_pt:6.2f}")


if __name__ == "__main__":
    main()
