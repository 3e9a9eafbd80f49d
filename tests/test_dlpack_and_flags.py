"""DLPack exchange with the real PyTorch and NumPy (memory shared both ways), the global
switches PyTorch scripts set (float32 matmul precision, deterministic algorithms and their
debug mode) and torch.utils.swap_tensors, against PyTorch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import compare, error_of


def test_pytorch_tensors_come_in_without_a_copy():
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    c = cr.from_dlpack(t)
    assert c.dtype is cr.float32 and tuple(c.shape) == (2, 3)
    t[0, 0] = 7.0
    assert c[0, 0].item() == 7.0
    c2 = cr.utils.dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(t))  # (a capsule)
    c2[1, 2] = -1.0
    assert t[1, 2].item() == -1.0


def test_chainrule_tensors_go_out_without_a_copy():
    c = cr.arange(6, dtype=cr.float64).reshape(2, 3)
    t = torch.from_dlpack(c)
    assert t.dtype == torch.float64 and tuple(t.shape) == (2, 3)
    t[0, 1] = 5.0
    assert c[0, 1].item() == 5.0
    t2 = torch.utils.dlpack.from_dlpack(cr.utils.dlpack.to_dlpack(c))
    assert t2.tolist() == c.tolist()
    n = np.from_dlpack(c)
    n[1, 1] = 3.0
    assert c[1, 1].item() == 3.0


def test_dlpack_device_and_refusal_match_torch():
    def run(L):
        return L.arange(3.0).__dlpack_device__(), int(L.utils.dlpack.DLDeviceType.kDLCUDA)

    assert run(cr) == run(torch)
    got = error_of(lambda L: L.ones(2, requires_grad=True).__dlpack__(), cr)
    want = error_of(lambda L: L.ones(2, requires_grad=True).__dlpack__(), torch)
    assert type(got) is type(want) and str(got) == str(want)


@pytest.fixture
def restored_switches():
    yield
    for lib in (cr, torch):
        lib.set_float32_matmul_precision("highest")
        lib.use_deterministic_algorithms(False)


def test_switches_match_torch(restored_switches):
    def run(L):
        seen = [L.get_float32_matmul_precision()]
        L.set_float32_matmul_precision("high")
        seen.append(L.get_float32_matmul_precision())
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            L.set_float32_matmul_precision("bad")
        seen += [str(caught[0].message).split(" (Triggered")[0], L.get_float32_matmul_precision()]
        for mode, warn_only in ((True, True), (True, False), (False, True)):
            L.use_deterministic_algorithms(mode, warn_only=warn_only)
            seen.append(
                (
                    L.are_deterministic_algorithms_enabled(),
                    L.is_deterministic_algorithms_warn_only_enabled(),
                    L.get_deterministic_debug_mode(),
                )
            )
        for mode in ("warn", "error", "default", 1):
            L.set_deterministic_debug_mode(mode)
            seen.append(L.get_deterministic_debug_mode())
        return seen

    assert run(cr) == run(torch)
    for fn in (
        lambda L: L.set_deterministic_debug_mode("x"),
        lambda L: L.use_deterministic_algorithms("x"),
    ):
        got, want = error_of(fn, cr), error_of(fn, torch)
        assert type(got) is type(want) and str(got) == str(want)


def test_swap_tensors_matches_torch():
    def run(L):
        a = L.arange(4.0)
        b = L.zeros(3, requires_grad=True)
        L.utils.swap_tensors(a, b)
        return a, b, a.requires_grad, b.requires_grad

    compare(run)


def test_config_describes_the_build():
    """torch.__config__.show() and parallel_info() are text, as PyTorch's (chainrule's build:
    NumPy and its BLAS; the thread counts)."""
    import numpy

    shown = cr.__config__.show()
    assert isinstance(shown, str) and f"NumPy {numpy.__version__}" in shown
    info = cr.__config__.parallel_info()
    assert f"get_num_threads() : {cr.get_num_threads()}" in info
    assert isinstance(torch.__config__.show(), str)
