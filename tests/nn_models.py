"""What the tests of ``tests/nn/`` share (a shared helper, beside oracle.py): small models built the same way on both libraries.

``lib`` is chainrule or torch; ``classes(lib)`` defines the test modules on ``lib.nn.Module``
(the same class names, so reprs compare), with parameters from fixed NumPy arrays, so a
scenario ``fn(lib)`` run on both libraries must give the same results (``oracle.compare``)
or raise the same error (``oracle.assert_same_error``). ``Affine`` is a hand-written
linear layer (weight and bias Parameters, an int64 buffer and a non-persistent buffer):
the real ``nn.Linear`` comes with the layers.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from types import SimpleNamespace
from typing import Any

import numpy as np


def arr(*shape: int, seed: int = 0, dtype: Any = np.float32) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def tensor(lib: Any, a: np.ndarray, requires_grad: bool = False) -> Any:
    t = lib.tensor(np.array(a, copy=True))
    return t.requires_grad_(True) if requires_grad else t


@functools.cache
def classes(lib: Any) -> SimpleNamespace:
    nn = lib.nn

    class Affine(nn.Module):
        """x @ weight.T + bias, with a counter buffer and a non-persistent scratch buffer."""

        def __init__(self, n_in: int = 2, n_out: int = 3, seed: int = 0) -> None:
            super().__init__()
            self.weight = nn.Parameter(tensor(lib, arr(n_out, n_in, seed=seed)))
            self.bias = nn.Parameter(tensor(lib, arr(n_out, seed=seed + 1)))
            self.register_buffer("count", lib.zeros((), dtype=lib.int64))
            self.register_buffer("scratch", lib.ones(1), persistent=False)

        def forward(self, x: Any) -> Any:
            return x @ self.weight.T + self.bias

        def extra_repr(self) -> str:
            return f"in={self.weight.shape[1]}, out={self.weight.shape[0]}"

    class Scale(nn.Module):
        """x * w (+ 2 y) times a keyword scale: positional tensors, an optional one, a kwarg."""

        def __init__(self) -> None:
            super().__init__()
            self.w = nn.Parameter(tensor(lib, arr(3, seed=7)))

        def forward(self, x: Any, y: Any = None, scale: float = 1.0) -> Any:
            out = x * self.w
            if y is not None:
                out = out + y * 2
            return out * scale

    class Two(nn.Module):
        """Three outputs: two tensors and a string; takes a tensor, an int and a tensor."""

        def forward(self, a: Any, k: int, b: Any) -> Any:
            return a * k, (a * b).sum(), "label"

    class Net(nn.Module):
        """A model with a parameter, buffers and nested submodules of each kind."""

        def __init__(self) -> None:
            super().__init__()
            self.scale = nn.Parameter(tensor(lib, arr(1, seed=3)))
            self.register_buffer("steps", lib.zeros(2))
            self.body = nn.Sequential(
                Affine(2, 3),
                nn.Flatten(),
                nn.Sequential(OrderedDict(fc=Affine(3, 4, seed=5), id=nn.Identity())),
            )
            self.heads = nn.ModuleList([Affine(4, 1, seed=8), nn.Identity(), nn.Identity()])
            self.table = nn.ModuleDict({"b": nn.Flatten(0), "a": nn.Unflatten(1, (2, 2))})

        def forward(self, x: Any) -> Any:
            return self.heads[0](self.body(x)) * self.scale

    return SimpleNamespace(Affine=Affine, Scale=Scale, Two=Two, Net=Net)


def net(lib: Any) -> Any:
    return classes(lib).Net()


def affine(lib: Any, n_in: int = 2, n_out: int = 3, seed: int = 0) -> Any:
    return classes(lib).Affine(n_in, n_out, seed)
