"""Forward and backward of common layers at moderate sizes (64x256, (16, 32, 16, 16),
(32, 16) indices), chainrule against PyTorch, single-threaded, in µs (the fastest of 5
repeats of 10 calls each): which layers are far from PyTorch in the models tutorials
train. Sorted by the ratio, the worst first.

    PYTHONPATH=src OMP_NUM_THREADS=1 python tools/layer_scan.py
"""

from __future__ import annotations

import os
import timeit

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

import chainrule  # noqa: E402

_R = np.random.default_rng(0)
ROWS = _R.standard_normal((64, 256)).astype(np.float32)
IMAGES = _R.standard_normal((16, 32, 16, 16)).astype(np.float32)
INDICES = _R.integers(0, 1000, (32, 16))


def cases(lib) -> dict:
    """name -> (the input array or None, a function of the input tensor)."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)
    embedding = nn.Embedding(1000, 64)
    transposed = nn.ConvTranspose2d(32, 16, 4, 2, 1)
    depthwise = nn.Conv2d(32, 32, 3, padding=1, groups=32)
    pointwise = nn.Conv2d(32, 64, 1)
    nearest = nn.Upsample(scale_factor=2, mode="nearest")
    bilinear = nn.Upsample(scale_factor=2, mode="bilinear")
    instance, group = nn.InstanceNorm2d(32, affine=True), nn.GroupNorm(8, 32)
    index = lib.from_numpy(INDICES)
    return {
        "softmax": (ROWS, lambda x: F.softmax(x, -1)),
        "log_softmax": (ROWS, lambda x: F.log_softmax(x, -1)),
        "silu": (ROWS, F.silu),
        "tanh": (ROWS, lib.tanh),
        "sigmoid": (ROWS, lib.sigmoid),
        "elu": (ROWS, F.elu),
        "leaky_relu": (ROWS, nn.LeakyReLU(0.2)),
        "softplus": (ROWS, F.softplus),
        "mish": (ROWS, F.mish),
        "hardswish": (ROWS, F.hardswish),
        "mse_loss": (ROWS, lambda x: F.mse_loss(x, x.detach() * 0.5)),
        "smooth_l1_loss": (ROWS, lambda x: F.smooth_l1_loss(x, x.detach() * 0.5)),
        "bce_with_logits": (
            ROWS,
            lambda x: F.binary_cross_entropy_with_logits(x, (x.detach() > 0).float()),
        ),
        "normalize": (ROWS, lambda x: F.normalize(x, dim=-1)),
        "cumsum": (ROWS, lambda x: lib.cumsum(x, 1)),
        "max(dim)": (ROWS, lambda x: x.max(1)[0]),
        "var": (ROWS, lambda x: x.var(1)),
        "norm": (ROWS, lambda x: x.norm(dim=1)),
        "cat": (ROWS, lambda x: lib.cat([x, x], 1)),
        "stack": (ROWS, lambda x: lib.stack([x, x], 0)),
        "t().contiguous()": (ROWS, lambda x: x.t().contiguous()),
        "index_select": (ROWS, lambda x: x[lib.from_numpy(np.arange(0, 64, 2))]),
        "masked_fill": (ROWS, lambda x: x.masked_fill(x.detach() > 1, 0.0)),
        "where": (ROWS, lambda x: lib.where(x.detach() > 0, x, x * 0.1)),
        "embedding": (None, lambda _: embedding(index)),
        "conv_transpose2d": (IMAGES, transposed),
        "depthwise conv2d": (IMAGES, depthwise),
        "1x1 conv2d": (IMAGES, pointwise),
        "max_pool2d": (IMAGES, nn.MaxPool2d(2)),
        "avg_pool2d": (IMAGES, nn.AvgPool2d(2)),
        "upsample nearest": (IMAGES, nearest),
        "upsample bilinear": (IMAGES, bilinear),
        "instance_norm": (IMAGES, instance),
        "group_norm": (IMAGES, group),
        "pad reflect": (IMAGES, lambda x: F.pad(x, (1, 1, 1, 1), mode="reflect")),
    }


def time_of(lib, array, fn) -> float:
    """µs per forward and backward (a gradient of ones) of ``fn`` on ``array``."""
    x = None if array is None else lib.from_numpy(array.copy()).requires_grad_()

    def step():
        y = fn(x)
        y.backward(lib.ones_like(y))

    step()
    return min(timeit.repeat(step, number=10, repeat=5)) / 10 * 1e6


def main() -> None:
    torch.set_num_threads(1)
    ours, theirs = cases(chainrule), cases(torch)
    rows = []
    for name, (array, fn) in ours.items():
        a = time_of(chainrule, array, fn)
        b = time_of(torch, *theirs[name])
        rows.append((a / b, name, a, b))
    print(f"{'layer':20} {'chainrule':>10} {'PyTorch':>10} {'ratio':>7}")
    for ratio, name, a, b in sorted(rows, reverse=True):
        print(f"{name:20} {a:10.1f} {b:10.1f} {ratio:6.2f}x")


if __name__ == "__main__":
    main()
