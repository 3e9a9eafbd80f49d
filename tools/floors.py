"""The floor of a recorded op in pure Python over NumPy, against PyTorch (issue 12's rows).

For each op the bench records (``x.sum()`` and ``relu(x)`` on 3 elements and on 100x100
float32 values) this times, interleaved in one process (the bench's ``race``):

- ``pytorch``: PyTorch's recorded op (the row's denominator);
- ``chainrule``: chainrule's recorded op (the row's numerator);
- ``kernel``: NumPy's fastest spelling of the op's values alone (what any library over NumPy
  must call: BLAS's dot with ones for the sum, the clip ufunc for relu), with its 0-d
  array for the sum;
- ``least``: ``kernel`` plus the least a recording can be: one node object (its function,
  its input's edge, what it saves) and one output tensor object (its array, dtype,
  requires_grad, grad_fn), both with ``__slots__``, made as chainrule makes them
  (``object.__new__`` and attribute stores, no ``__init__`` call). No checks, no version
  counter, no modes: less than PyTorch's semantics need.

Where ``least`` is above ``pytorch`` the row's target (1.0x PyTorch) is below what pure
Python over NumPy can reach on this machine.

    PYTHONPATH=src python tools/floors.py [rounds]
"""

from __future__ import annotations

import os
import sys

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

import chainrule  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
from run import LOOP, race  # noqa: E402

torch.set_num_threads(1)
_new = object.__new__
_asarray = np.asarray
try:  # NumPy 2's clip ufunc (np.clip is a Python wrapper around it)
    from numpy._core.umath import clip as _clip_ufunc
except ImportError:  # pragma: no cover - NumPy 1
    from numpy.core.umath import clip as _clip_ufunc


class _Node:
    __slots__ = ("fn", "edge", "saved")


class _Tensor:
    __slots__ = ("data", "dtype", "requires_grad", "grad_fn")


def _record(fn: object, x: _Tensor, y: np.ndarray, saved: object) -> _Tensor:
    """The least recording: a node and an output tensor, 7 stores."""
    node = _new(_Node)
    node.fn = fn
    node.edge = x
    node.saved = saved
    out = _new(_Tensor)
    out.data = y
    out.dtype = x.dtype
    out.requires_grad = True
    out.grad_fn = node
    return out


def cases(shape: tuple) -> dict:
    """Per op, the four candidates on float32 inputs of ``shape`` requiring grad."""
    a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    x_cr = chainrule.from_numpy(a).requires_grad_()
    x_pt = torch.from_numpy(a).requires_grad_()
    x_least = _new(_Tensor)
    x_least.data, x_least.dtype, x_least.requires_grad, x_least.grad_fn = a, a.dtype, True, None
    ones = np.ones(a.size, np.float32)
    zero, inf = np.zeros((), np.float32), np.full((), np.inf, np.float32)

    def sum_kernel(x: np.ndarray) -> np.ndarray:
        return _asarray(x.ravel().dot(ones))

    def relu_kernel(x: np.ndarray) -> np.ndarray:
        return _clip_ufunc(x, zero, inf)

    def loop(fn, x) -> object:
        def run() -> None:
            for _ in range(LOOP):
                fn(x)

        return run

    shape_saved = a.shape
    return {
        "sum": {
            "pytorch": loop(torch.Tensor.sum, x_pt),
            "chainrule": loop(chainrule.Tensor.sum, x_cr),
            "kernel": loop(sum_kernel, a),
            "least": loop(lambda x: _record(sum, x, sum_kernel(x.data), shape_saved), x_least),
        },
        "relu": {
            "pytorch": loop(torch.relu, x_pt),
            "chainrule": loop(chainrule.relu, x_cr),
            "kernel": loop(relu_kernel, a),
            "least": loop(lambda x: _record(max, x, (y := relu_kernel(x.data)), y), x_least),
        },
    }


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    print(f"µs per call, fastest of {rounds} interleaved runs of {LOOP} calls")
    print(
        f"{'op':14s} {'pytorch':>8s} {'chainrule':>10s} {'kernel':>8s} {'least':>8s}"
        f" {'cr/pt':>6s} {'least/pt':>9s}"
    )
    for shape in ((3,), (100, 100)):
        for name, fns in cases(shape).items():
            t = {k: v * 1e6 / LOOP for k, v in race(fns, rounds).items()}
            label = f"{name} {'x'.join(map(str, shape))}"
            print(
                f"{label:14s} {t['pytorch']:8.3f} {t['chainrule']:10.3f} {t['kernel']:8.3f}"
                f" {t['least']:8.3f} {t['chainrule'] / t['pytorch']:6.2f}"
                f" {t['least'] / t['pytorch']:9.2f}"
            )


if __name__ == "__main__":
    main()
