"""Shared helpers for the optim tests: the same parameters in both libraries, and state
dicts converted from one library to the other through NumPy."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

import chainrule

SHAPES = [(3, 4), (5,), (2, 3, 2), ()]


def initial(seed: int = 0) -> list[np.ndarray]:
    """A few float64 arrays of different shapes."""
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in SHAPES]


def params(lib, arrays: list[np.ndarray], dtype: str = "float64") -> list[Any]:
    """Leaf parameters of ``lib`` holding copies of ``arrays``."""
    return [lib.nn.Parameter(lib.tensor(a.copy(), dtype=getattr(lib, dtype))) for a in arrays]


def numpy_of(t: Any) -> np.ndarray:
    return t.detach().numpy().copy()


def convert(value: Any, to: Any) -> Any:
    """A (nested) state dict with every tensor remade in library ``to`` through NumPy."""
    if isinstance(value, (torch.Tensor, chainrule.Tensor)):
        return to.from_numpy(np.array(numpy_of(value)))
    if isinstance(value, dict):
        return {k: convert(v, to) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(convert(v, to) for v in value)
    return value


def plain(value: Any) -> Any:
    """A (nested) state dict with tensors as (dtype name, array) pairs, for comparison."""
    if isinstance(value, (torch.Tensor, chainrule.Tensor)):
        return (str(value.dtype), numpy_of(value))
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(plain(v) for v in value)
    return value


def assert_same_plain(got: Any, want: Any, rtol: float, path: str = "") -> None:
    """Two ``plain`` structures equal: same types, keys and dtypes, arrays at ``rtol``."""
    if isinstance(want, tuple) and len(want) == 2 and isinstance(want[1], np.ndarray):
        assert isinstance(got, tuple) and got[0] == want[0], (path, got, want)
        np.testing.assert_allclose(got[1], want[1], rtol=rtol, atol=rtol * 1e-3, err_msg=path)
        return
    assert type(got) is type(want), (path, type(got), type(want))
    if isinstance(want, dict):
        assert list(got) == list(want) or set(got) == set(want), (path, list(got), list(want))
        for k in want:
            assert_same_plain(got[k], want[k], rtol, f"{path}/{k}")
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same_plain(g, w, rtol, f"{path}/{i}")
    elif isinstance(want, float):
        np.testing.assert_allclose(got, want, rtol=rtol, err_msg=path)
    else:
        assert got == want, (path, got, want)
