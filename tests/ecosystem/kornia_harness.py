"""The harness of kornia_cases.py (test_kornia.py): the side run, the results and
errors it records, the values it moves from the oracle to chainrule (``shared``: weights,
augmentation parameters, saved to ``OUT/kornia_weights.pt``), NumPy-seeded inputs and the
gradient helper."""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np
import torch
from case_inputs import Weights, arr
from case_runner import Cases

OUT, SIDE = sys.argv[1], sys.argv[2]
ORACLE = SIDE == "oracle"
SAVED = Weights(f"{OUT}/kornia_weights.pt", ORACLE)
CASES = Cases()
case, put = CASES.case, CASES.put
F64 = torch.float64


def shared(key: str, make: Callable[[], object]) -> object:
    """``make()`` on the oracle side (saved), the oracle's value on chainrule's."""
    if ORACLE:
        SAVED[key] = make()
    return SAVED[key]


def module(key: str, make: Callable[[], torch.nn.Module]) -> torch.nn.Module:
    """``make()`` with the oracle's weights (drawn there from a fixed seed)."""
    if ORACLE:
        torch.manual_seed(len(SAVED))
    m = make()
    state = shared(key, lambda: {k: v.clone() for k, v in m.state_dict().items()})
    m.load_state_dict(state)
    return m


def img(shape: tuple, seed: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """An image in [0, 1)."""
    return torch.tensor(np.random.default_rng(seed).random(shape), dtype=dtype)


def grads_of(name: str, fn: Callable, *inputs: torch.Tensor) -> None:
    """``fn(*inputs)`` and the gradients of a weighted sum of it, for inputs needing them."""
    leaves = [t.detach().clone().requires_grad_(t.is_floating_point()) for t in inputs]
    out = fn(*leaves)
    put(name + ".out", out)
    w = arr(tuple(out.shape), 99, out.dtype)
    (out * w).sum().backward()
    for i, t in enumerate(leaves):
        if t.requires_grad:
            put(f"{name}.grad{i}", t.grad)


def aug_params(key: str, aug: torch.nn.Module, x: torch.Tensor) -> dict:
    """The oracle's parameters of ``aug`` on ``x`` (drawn there), for both sides."""

    def draw() -> dict:
        aug(x)
        return {k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in aug._params.items()}

    return shared(key, draw)


# ---------------------------------------------------------------- run


def main() -> None:
    CASES.run(f"{OUT}/kornia_{SIDE}")
    SAVED.save()
