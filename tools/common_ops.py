"""Recording cost of common ops on a small tensor (4x5 float32, requiring grad), chainrule
against PyTorch, single-threaded, in µs (the fastest of 5 repeats of 3,000 calls each):
where the Python around NumPy's call is still far above PyTorch's whole op. Sorted by the
ratio, the worst first.

    PYTHONPATH=src OMP_NUM_THREADS=1 python tools/common_ops.py
"""

from __future__ import annotations

import os
import timeit

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import torch  # noqa: E402

import chainrule  # noqa: E402


def cases(lib) -> dict:
    """name -> a call recording one op (or a few: linear, layer_norm, cross_entropy)."""
    F = lib.nn.functional
    x = lib.randn(4, 5, requires_grad=True)
    y = lib.randn(4, 5, requires_grad=True)
    v = lib.randn(5, requires_grad=True)
    w = lib.randn(3, 5, requires_grad=True)
    b = lib.randn(3, requires_grad=True)
    ones, zeros = lib.ones(5, requires_grad=True), lib.zeros(5, requires_grad=True)
    target = lib.tensor([0, 1, 2, 3])
    return {
        "x + v": lambda: x + v,
        "x * y": lambda: x * y,
        "x / y": lambda: x / y,
        "x - 1": lambda: x - 1,
        "x ** 2": lambda: x**2,
        "x.pow(2)": lambda: x.pow(2),
        "x > 0": lambda: x > 0,
        "x @ v": lambda: x @ v,
        "-x": lambda: -x,
        "x.exp()": lambda: x.exp(),
        "x.log()": lambda: x.log(),
        "x.tanh()": lambda: x.tanh(),
        "x.sigmoid()": lambda: x.sigmoid(),
        "x.sqrt()": lambda: x.sqrt(),
        "x.abs()": lambda: x.abs(),
        "x.clamp(0, 1)": lambda: x.clamp(0, 1),
        "where(x > 0, x, y)": lambda: lib.where(x > 0, x, y),
        "x.sum()": lambda: x.sum(),
        "x.sum(1)": lambda: x.sum(1),
        "x.mean()": lambda: x.mean(),
        "x.mean(0)": lambda: x.mean(0),
        "x.max(1)": lambda: x.max(1),
        "x.norm()": lambda: x.norm(),
        "x.t()": lambda: x.t(),
        "x.view(5, 4)": lambda: x.view(5, 4),
        "x.reshape(20)": lambda: x.reshape(20),
        "x.flatten()": lambda: x.flatten(),
        "x.unsqueeze(0)": lambda: x.unsqueeze(0),
        "x.transpose(0, 1)": lambda: x.transpose(0, 1),
        "x[0]": lambda: x[0],
        "x[:, 1]": lambda: x[:, 1],
        "x.detach()": lambda: x.detach(),
        "cat([x, y])": lambda: lib.cat([x, y]),
        "stack([x, y])": lambda: lib.stack([x, y]),
        "F.relu(x)": lambda: F.relu(x),
        "F.gelu(x)": lambda: F.gelu(x),
        "F.softmax(x, 1)": lambda: F.softmax(x, 1),
        "F.log_softmax(x, 1)": lambda: F.log_softmax(x, 1),
        "F.linear(x, w, b)": lambda: F.linear(x, w, b),
        "F.layer_norm(x, (5,))": lambda: F.layer_norm(x, (5,), ones, zeros),
        "F.mse_loss(x, y)": lambda: F.mse_loss(x, y),
        "F.cross_entropy(x, t)": lambda: F.cross_entropy(x, target),
        "F.dropout(x, train=False)": lambda: F.dropout(x, 0.5, False),
        "zeros(4, 5)": lambda: lib.zeros(4, 5),
        "tensor([1.0, 2.0])": lambda: lib.tensor([1.0, 2.0]),
    }


def main() -> None:
    torch.set_num_threads(1)
    ours, theirs = cases(chainrule), cases(torch)
    rows = []
    for name in ours:
        t = [
            min(timeit.repeat(fn[name], number=3000, repeat=5)) / 3000 * 1e6
            for fn in (ours, theirs)
        ]
        rows.append((t[0] / t[1], name, t))
    print(f"{'op':28s} {'chainrule':>9s} {'PyTorch':>9s} {'ratio':>6s}")
    for ratio, name, (a, b) in sorted(rows, reverse=True):
        print(f"{name:28s} {a:9.2f} {b:9.2f} {ratio:6.2f}")


if __name__ == "__main__":
    main()
