"""``uniform_`` and ``normal_`` write their draws straight into a row-major float tensor when
nothing is recorded (api/parsers/random.py ``_fill_in_place``, what ``nn.init`` fills): the
fast path is pinned here to the general one (draw, then the recorded in-place copy) and to
the real PyTorch, value for value."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from chainrule.api.parsers import random as parsers_random

SIZES = [(5,), (16,), (3, 333), (65536 * 2 + 40,)]  # (the last: two chunks and a tail)
FILLS = {
    "uniform": lambda t: t.uniform_(-0.3, 0.7),
    "uniform_default": lambda t: t.uniform_(),
    "normal": lambda t: t.normal_(0.5, 2.0),
    "normal_std": lambda t: t.normal_(0.0, 0.01),  # (fma with 0: the product, -0 made +0)
    "normal_standard": lambda t: t.normal_(),
}


def _filled(lib, fill, shape, dtype, fast=True):
    lib.manual_seed(11)
    t = lib.empty(shape, dtype=getattr(lib, dtype))
    with lib.no_grad():
        out = fill(t)
    assert out is t
    return t.numpy().copy()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SIZES, ids=str)
@pytest.mark.parametrize("name", list(FILLS))
def test_filled_in_place_as_the_general_path_and_pytorch(name, shape, dtype, monkeypatch):
    fill = FILLS[name]
    fast = _filled(cr, fill, shape, dtype)
    with monkeypatch.context() as m:
        m.setattr(parsers_random, "_fill_in_place", lambda self: False)
        general = _filled(cr, fill, shape, dtype)
    np.testing.assert_array_equal(fast.view(np.uint8), general.view(np.uint8))
    want = _filled(torch, fill, shape, dtype)
    if dtype == "float32" and torch.backends.cpu.get_cpu_capability() in ("AVX2", "AVX512"):
        np.testing.assert_array_equal(fast, want)
    elif dtype == "float64" and (name.startswith("uniform") or _numpy_log_is_the_c_librarys()):
        np.testing.assert_array_equal(fast, want)
    else:  # (float32 normals through the C library, float64 ones through NumPy's own log
        # on AVX-512 machines: docs/random.md), to a few roundings of the largest value
        eps = np.finfo(want.dtype).eps
        np.testing.assert_allclose(fast, want, rtol=4 * eps, atol=4 * eps * np.abs(want).max())


def _numpy_log_is_the_c_librarys() -> bool:
    """Whether NumPy's float64 log gives the C library's values here (on AVX-512 machines
    NumPy runs its own, 1 ulp off for some 0.3% of arguments)."""
    import math

    x = np.linspace(0.001, 1.0, 4001)
    return all(float(v) == math.log(a) for v, a in zip(np.log(x), x.tolist()))


def test_what_the_write_keeps():
    """The tensor's own memory is written (views of it see the draws), its version moves,
    and the generator moves on as for the general path."""
    base = cr.zeros(4, 64)
    row = base[1]
    version = row._version
    with cr.no_grad():
        row.normal_()
    assert row._version == version + 1 and base._version == row._version
    assert base[1].tolist() == row.tolist() and base[0].abs().sum().item() == 0
    cr.manual_seed(3)
    fresh = cr.empty(100).uniform_()
    after = cr.rand(3)
    cr.manual_seed(3)
    general = cr.empty(100).requires_grad_().clone().uniform_()  # (recorded: the general path)
    assert general.grad_fn is not None
    assert cr.equal(fresh, general.detach()) and cr.equal(after, cr.rand(3))


def test_refusals_stay():
    leaf = cr.zeros(20, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        leaf.normal_()
    with cr.inference_mode():
        inference = cr.zeros(20)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        inference.uniform_()
    with cr.no_grad():
        leaf.uniform_()  # (allowed without grad mode, as in PyTorch: nn.init's case)
    assert leaf.requires_grad and leaf.grad_fn is None and 0 <= leaf.min().item()
