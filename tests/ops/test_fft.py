"""torch.fft against PyTorch (ops/spectral.py, chainrule/fft): every transform on real and
complex inputs, each norm, sizes cut and padded (n, s), several dims, float32 and float64:
values, gradients for a random output gradient, forward-mode tangents; second derivatives
through create_graph; the sample frequencies and shifts; PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import (
    assert_same_error,
    check,
    check_double_backward,
    compare,
    crandn,
    randn,
    same_node,
)

X = randn((4, 6), 0)
Z = crandn((4, 6), 1)
X3 = randn((3, 4, 5), 2)
Z3 = crandn((3, 4, 5), 3)
H = crandn((4, 4), 4)  # a half spectrum: 4 bins of an 6-point signal (irfft, hfft)
NORMS = [None, "backward", "ortho", "forward"]

CASES = {
    # one dim, complex to complex and real to complex
    "fft": (lambda L, x, norm: L.fft.fft(x, norm=norm), [Z]),
    "fft_real": (lambda L, x, norm: L.fft.fft(x, norm=norm), [X]),
    "fft_pad_dim0": (lambda L, x, norm: L.fft.fft(x, n=7, dim=0, norm=norm), [Z]),
    "fft_trim": (lambda L, x, norm: L.fft.fft(x, n=3, norm=norm), [X]),
    "ifft": (lambda L, x, norm: L.fft.ifft(x, norm=norm), [Z]),
    "ifft_real_pad": (lambda L, x, norm: L.fft.ifft(x, n=8, norm=norm), [X]),
    "rfft": (lambda L, x, norm: L.fft.rfft(x, norm=norm), [X]),
    "rfft_odd": (lambda L, x, norm: L.fft.rfft(x, n=5, dim=-1, norm=norm), [X]),
    "rfft_dim0_pad": (lambda L, x, norm: L.fft.rfft(x, n=9, dim=0, norm=norm), [X]),
    "irfft": (lambda L, x, norm: L.fft.irfft(x, norm=norm), [H]),
    "irfft_odd": (lambda L, x, norm: L.fft.irfft(x, n=7, norm=norm), [H]),
    "irfft_trim": (lambda L, x, norm: L.fft.irfft(x, n=4, norm=norm), [H]),
    "irfft_real_dim0": (lambda L, x, norm: L.fft.irfft(x, n=10, dim=0, norm=norm), [X]),
    "hfft": (lambda L, x, norm: L.fft.hfft(x, norm=norm), [H]),
    "hfft_odd": (lambda L, x, norm: L.fft.hfft(x, n=5, dim=0, norm=norm), [H]),
    "ihfft": (lambda L, x, norm: L.fft.ihfft(x, norm=norm), [X]),
    "ihfft_odd": (lambda L, x, norm: L.fft.ihfft(x, n=7, norm=norm), [X]),
    # several dims
    "fft2": (lambda L, x, norm: L.fft.fft2(x, norm=norm), [Z3]),
    "fft2_real_s": (lambda L, x, norm: L.fft.fft2(x, s=(3, 7), norm=norm), [X3]),
    "ifft2": (lambda L, x, norm: L.fft.ifft2(x, dim=(0, 2), norm=norm), [Z3]),
    "fftn": (lambda L, x, norm: L.fft.fftn(x, norm=norm), [Z3]),
    "fftn_real_s": (lambda L, x, norm: L.fft.fftn(x, s=(-1, 6), dim=(2, 0), norm=norm), [X3]),
    "ifftn": (lambda L, x, norm: L.fft.ifftn(x, s=(2, 5), norm=norm), [Z3]),
    "rfft2": (lambda L, x, norm: L.fft.rfft2(x, norm=norm), [X3]),
    "rfftn": (lambda L, x, norm: L.fft.rfftn(x, s=(5, 3), dim=(0, 1), norm=norm), [X3]),
    "irfft2": (lambda L, x, norm: L.fft.irfft2(x, norm=norm), [Z3]),
    "irfftn": (lambda L, x, norm: L.fft.irfftn(x, s=(4, 5), dim=(0, 2), norm=norm), [Z3]),
    "irfftn_all": (lambda L, x, norm: L.fft.irfftn(x, norm=norm), [Z3]),
    "hfft2": (lambda L, x, norm: L.fft.hfft2(x, norm=norm), [Z3]),
    "hfftn": (lambda L, x, norm: L.fft.hfftn(x, s=(3, 7), dim=(0, 1), norm=norm), [Z3]),
    "ihfft2": (lambda L, x, norm: L.fft.ihfft2(x, norm=norm), [X3]),
    "ihfftn": (lambda L, x, norm: L.fft.ihfftn(x, s=(2, 3, 6), norm=norm), [X3]),
    # shifts and round trips
    "fftshift": (lambda L, x, norm: L.fft.fftshift(x), [Z3]),
    "fftshift_dim": (lambda L, x, norm: L.fft.fftshift(x, dim=(0, -1)), [X3]),
    "ifftshift": (lambda L, x, norm: L.fft.ifftshift(L.fft.fft(x, norm=norm), dim=1), [X3]),
    "round_trip": (lambda L, x, norm: L.fft.irfft(L.fft.rfft(x, norm=norm), n=6, norm=norm), [X]),
    "power_spectrum": (lambda L, x, norm: L.fft.rfft(x, norm=norm).abs() ** 2, [X]),
}
ONE_NORM = {"fftshift", "fftshift_dim"}
CASE_IDS = [(name, norm) for name in CASES for norm in (NORMS[:1] if name in ONE_NORM else NORMS)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name,norm", CASE_IDS, ids=[f"{n}-{str(m).lower()}" for n, m in CASE_IDS])
def test_matches_torch(name, norm, dtype):
    fn, inputs = CASES[name]
    check(lambda L, *xs: fn(L, *xs, norm), *inputs, dtype=dtype)


@pytest.mark.parametrize("name", ["fft", "fft_real", "ifft", "rfft", "irfft", "fftshift"])
def test_nodes_are_torch_s(name):
    fn, inputs = CASES[name]
    same_node(check(lambda L, *xs: fn(L, *xs, None), *inputs))


SECOND = ["fft", "fft_real", "rfft_odd", "irfft", "hfft", "ihfft", "fftn_real_s", "irfftn"]


@pytest.mark.parametrize("name", SECOND)
def test_second_derivatives_match_torch(name):
    fn, inputs = CASES[name]
    check_double_backward(lambda L, *xs: fn(L, *xs, "ortho"), *inputs)


def test_integer_input_is_promoted_to_the_default_float():
    compare(
        lambda L: [
            L.fft.fft(L.arange(6)),
            L.fft.rfft(L.arange(6)),
            L.fft.irfft(L.arange(6)),
            L.fft.fftn(L.tensor([[True, False], [False, True]])),
        ],
        rtol=1e-6,
        atol=1e-6,
    )


def test_out_writes_the_result():
    def fn(L):
        out_c = L.empty(6, dtype=L.complex128)
        out_r = L.empty(0, dtype=L.float64)
        a = L.fft.fft(L.linspace(0, 1, 6, dtype=L.float64), out=out_c)
        b = L.fft.irfft(L.ones(4, dtype=L.complex64), out=out_r)
        return [a is out_c, out_c, b is out_r, out_r]

    compare(fn, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    "fn",
    [
        lambda L: L.fft.fftfreq(5),
        lambda L: L.fft.fftfreq(6, 0.3, dtype=L.float64),
        lambda L: L.fft.rfftfreq(7, 0.25),
        lambda L: L.fft.rfftfreq(8, dtype=L.float64, requires_grad=True),
        lambda L: L.fft.fftfreq(4, out=L.empty(0, dtype=L.float64)),
        lambda L: L.fft.fftshift(L.fft.fftfreq(9)),
        lambda L: L.fft.ifftshift(L.fft.fftshift(L.arange(12).reshape(3, 4))),
    ],
    ids=["fftfreq", "fftfreq_d", "rfftfreq", "rfftfreq_grad", "fftfreq_out", "shift", "undo"],
)
def test_frequencies_and_shifts_match_torch(fn):
    compare(fn, rtol=1e-7, atol=1e-7)


Z4 = crandn((4,), 5)


@pytest.mark.parametrize(
    "fn",
    [
        lambda L: L.fft.rfft(L.tensor(Z4)),
        lambda L: L.fft.ihfft(L.tensor(Z4)),
        lambda L: L.fft.rfftn(L.tensor(Z4)),
        lambda L: L.fft.ihfftn(L.tensor(Z4)),
        lambda L: L.fft.fft(L.ones(4), n=0),
        lambda L: L.fft.irfft(L.ones(1)),
        lambda L: L.fft.fft(L.ones(4), dim=2),
        lambda L: L.fft.fft(L.tensor(3.0)),
        lambda L: L.fft.fft(L.ones(4), norm="bogus"),
        lambda L: L.fft.fftn(L.ones(3, 4), s=(2, 3, 4)),
        lambda L: L.fft.fftn(L.ones(3, 4), s=(2, 3), dim=(0,)),
        lambda L: L.fft.fftn(L.ones(3, 4), dim=(0, -2)),
        lambda L: L.fft.fftn(L.ones(3, 4), s=(0, 5)),
        lambda L: L.fft.rfftn(L.ones(3, 4), dim=()),
        lambda L: L.fft.irfftn(L.ones(3, 4), dim=()),
        lambda L: L.fft.hfftn(L.ones(3, 4), dim=()),
        lambda L: L.fft.fft(L.ones(3, dtype=L.float16)),
        lambda L: L.fft.fft([1.0, 2.0]),
        lambda L: L.fft.fft(L.ones(3), out=L.empty(3)),
        lambda L: L.fft.irfft(L.ones(3), out=L.empty(3, dtype=L.complex64)),
        lambda L: L.fft.fft(L.ones(3, requires_grad=True), out=L.empty(3, dtype=L.complex64)),
        lambda L: L.fft.fftfreq(5, dtype=L.int64),
        lambda L: L.fft.fftfreq(5, dtype=L.complex64),
        lambda L: L.fft.fftshift(L.tensor(1.0)),
    ],
)
def test_errors_match_torch(fn):
    assert_same_error(fn)


def test_complex_gradient_of_a_real_loss():
    """A complex leaf through fft2 and a real loss: grad = ∂L/∂x + i ∂L/∂y, as PyTorch's."""

    def fn(L):
        z = L.tensor(Z3, requires_grad=True)
        spectrum = L.fft.fft2(z, norm="ortho")
        loss = (spectrum.abs() ** 2 * L.tensor(randn((3, 4, 5), 9))).sum()
        loss.backward()
        return z.grad

    compare(fn, rtol=1e-10, atol=1e-12)


def test_the_namespace_is_torch_fft_s():
    """chainrule.fft has each function of torch.fft, and nothing torch.fft lacks."""
    theirs = {n for n in torch.fft.__all__} if hasattr(torch.fft, "__all__") else set()
    theirs |= {n for n in dir(torch.fft) if callable(getattr(torch.fft, n)) and n[0] != "_"}
    theirs -= {"Tensor"}
    assert set(cr.fft.__all__) == theirs
    for name in cr.fft.__all__:
        assert callable(getattr(cr.fft, name)), name
