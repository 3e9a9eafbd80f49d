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


def step(lib, opt, ps: list, grads: list[np.ndarray], dtype: str) -> None:
    """One optimizer step with ``grads`` set as the parameters' gradients."""
    for p, g in zip(ps, grads):
        p.grad = lib.tensor(g, dtype=getattr(lib, dtype))
    opt.step()


def assert_params(got: list, want: list, rtol: float) -> None:
    for c, t in zip(got, want):
        assert str(c.dtype) == str(t.dtype)
        np.testing.assert_allclose(numpy_of(c), numpy_of(t), rtol=rtol, atol=rtol)


def trajectory_across_libraries(
    make: Any, arrays: list[np.ndarray], grads: list, half: int, dtype: str, rtol: float
) -> None:
    """Steps of ``make(lib, params)`` (an optimizer; ``make(lib, params, lr)`` another
    learning rate) from ``arrays`` with ``grads`` equal torch's; at ``half`` each library's
    state dict is loaded into a fresh optimizer of the other (on copies of the parameters)
    and all four continue the same way."""
    cps, tps = params(chainrule, arrays, dtype), params(torch, arrays, dtype)
    copt, topt = make(chainrule, cps), make(torch, tps)
    for g in grads[:half]:
        step(chainrule, copt, cps, g, dtype)
        step(torch, topt, tps, g, dtype)
    assert_params(cps, tps, rtol)
    csd, tsd = copt.state_dict(), topt.state_dict()
    assert_same_plain(plain(csd), plain(tsd), rtol)
    cps2 = params(chainrule, [numpy_of(p) for p in tps], dtype)
    tps2 = params(torch, [numpy_of(p) for p in cps], dtype)
    copt2, topt2 = make(chainrule, cps2, 9.0), make(torch, tps2, 9.0)
    copt2.load_state_dict(convert(tsd, chainrule))
    topt2.load_state_dict(convert(csd, torch))
    assert_same_plain(plain(copt2.state_dict()), plain(topt2.state_dict()), rtol)
    for g in grads[half:]:
        for lib, opt, ps in (
            (chainrule, copt, cps),
            (torch, topt, tps),
            (chainrule, copt2, cps2),
            (torch, topt2, tps2),
        ):
            step(lib, opt, ps, g, dtype)
    assert_params(cps, tps, rtol)
    assert_params(cps2, tps, rtol)
    assert_params(tps2, tps, rtol)
    assert_same_plain(plain(copt.state_dict()), plain(topt.state_dict()), rtol)
