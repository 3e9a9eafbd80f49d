"""NumPy's add.reduce against a product with ones (BLAS's matrix-vector product) for a float32
matrix summed along its first or its last axis, single-threaded: the time of add.reduce over
the product's, per number of rows m and columns n. Above 1, BLAS is the faster; what
``_backend.add_reduce`` chooses by (from 4,096 elements).

    OMP_NUM_THREADS=1 python tools/sums_by_blas.py
"""

from __future__ import annotations

import os
import timeit

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

ROWS = (4, 16, 64, 256, 1024)
COLS = (8, 64, 256, 1024, 4096)


def best(fn, number: int = 2000) -> float:
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def main() -> None:
    ones = np.ones(1 << 14, np.float32)
    for axis in (0, 1):
        print(f"axis {axis}: add.reduce / (ones product), m rows (down) x n columns (across)")
        print("m \\ n " + "".join(f"{n:>8d}" for n in COLS))
        for m in ROWS:
            cells = []
            for n in COLS:
                x = np.random.default_rng(0).standard_normal((m, n)).astype(np.float32)
                if axis == 0:
                    blas = best(lambda x=x, m=m: np.dot(ones[:m], x))
                else:
                    blas = best(lambda x=x, n=n: np.dot(x, ones[:n]))
                cells.append(best(lambda x=x, a=axis: np.add.reduce(x, a)) / blas)
            print(f"{m:<6d}" + "".join(f"{c:8.2f}" for c in cells))
        print()


if __name__ == "__main__":
    main()
