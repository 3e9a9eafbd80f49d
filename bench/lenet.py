"""A LeNet-style forward and backward, chainrule against PyTorch, single-threaded.

conv2d(1→6, 5x5) + max_pool2d(2) + conv2d(6→16, 5x5) + max_pool2d(2), then sum().backward(),
on a batch of 64 1x28x28 inputs (the weights and biases require grad). The runs are
interleaved, so load from elsewhere falls on both alike; the table gives the median and
the fastest of each, and their ratios.

    OMP_NUM_THREADS=1 python bench/lenet.py [--repeat 50]
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402

import chainrule  # noqa: E402

torch.set_num_threads(1)


def lenet_step(lib):
    lib.manual_seed(0)
    x = lib.randn(64, 1, 28, 28)
    w1 = lib.randn(6, 1, 5, 5, requires_grad=True)
    b1 = lib.randn(6, requires_grad=True)
    w2 = lib.randn(16, 6, 5, 5, requires_grad=True)
    b2 = lib.randn(16, requires_grad=True)
    F = lib.nn.functional

    def step():
        h = F.max_pool2d(F.conv2d(x, w1, b1), 2)
        h = F.max_pool2d(F.conv2d(h, w2, b2), 2)
        h.sum().backward()

    return step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    steps = {"chainrule": lenet_step(chainrule), "torch": lenet_step(torch)}
    for step in steps.values():
        for _ in range(5):
            step()
    times: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(args.repeat):
        for name, step in steps.items():
            t0 = time.perf_counter()
            step()
            times[name].append(time.perf_counter() - t0)
    for name in times:
        times[name].sort()
    median = {name: t[len(t) // 2] * 1e3 for name, t in times.items()}
    fastest = {name: t[0] * 1e3 for name, t in times.items()}
    print(f"{'':10} {'median ms':>10} {'fastest ms':>11}")
    for name in steps:
        print(f"{name:10} {median[name]:10.2f} {fastest[name]:11.2f}")
    print(
        f"{'ratio':10} {median['chainrule'] / median['torch']:10.2f} "
        f"{fastest['chainrule'] / fastest['torch']:11.2f}"
    )


if __name__ == "__main__":
    main()
