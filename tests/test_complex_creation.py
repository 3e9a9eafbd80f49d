"""Complex dtypes through the constructors against PyTorch: fills and ``*_like`` with
complex dtypes and complex fill values, ``eye``, ``linspace``, ``tensor``/``as_tensor``/
``from_numpy`` of complex data, the casts (``to``, ``type``, ``cfloat``, ``cdouble``, the
real part kept with PyTorch's warning), the samplers' complex distributions (each part of
``randn`` N(0, 1/2), of ``rand`` U[0, 1)) and PyTorch's errors where it refuses complex
values (``arange``, ``randint``, a complex value for a real dtype)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import cases
import chainrule as cr
from chainrule import _creation
from oracle import compare, error_of

C = np.array([1 + 2j, -0.5j, 3.0 + 0j])


def test_fills_and_likes_match_torch():
    compare(
        lambda L: [
            L.zeros(2, 3, dtype=L.complex64),
            L.ones(2, dtype=L.cdouble),
            L.empty(0, 2, dtype=L.cfloat),
            L.full((2,), 1 + 2j),
            L.full((2,), 1 + 2j, dtype=L.complex128),
            L.full((2,), 1.5, dtype=L.complex64),
            L.full((2,), 3, dtype=L.complex64),
            L.full((2,), 1 + 0j, dtype=L.float32),
            L.full((2,), 1 + 2j, dtype=L.bool),
            L.full_like(L.zeros(2), 1 + 2j, dtype=L.complex64),
            L.full_like(L.zeros(2, dtype=L.complex64), 3j),
            L.zeros_like(L.ones(2, dtype=L.complex128)),
            L.ones_like(L.ones(2), dtype=L.complex64),
            L.empty_like(L.ones(2, dtype=L.complex128)).zero_(),
            L.ones(2, dtype=L.complex64).new_zeros(3),
            L.ones(2, dtype=L.complex64).new_full((2,), 1j),
            L.ones(2, dtype=L.complex64).new_ones(2),
            L.zeros(2).fill_(1 + 0j),
            L.zeros(2, dtype=L.complex64).fill_(2 - 1j),
            L.eye(2, dtype=L.complex64),
            L.eye(2, 3, dtype=L.complex128, requires_grad=True),
            L.zeros(2, dtype=L.complex128, requires_grad=True),
        ],
        exact=True,
    )


def test_linspace_matches_torch():
    compare(
        lambda L: [
            L.linspace(0, 1 + 1j, 3),
            L.linspace(0, 1, 3, dtype=L.complex64),
            L.linspace(1j, 1 + 2j, 4, dtype=L.complex128),
            L.linspace(1j, 2, 5),
            L.linspace(L.tensor(1j), 2, 3),
        ],
        rtol=1e-6,
        atol=1e-6,
    )


def test_from_data_matches_torch():
    compare(
        lambda L: [
            L.tensor([1j, 2, 3.5]),
            L.tensor([1, 2], dtype=L.complex64),
            L.tensor([[1j], [2]]),
            L.tensor([True, 1j]),
            L.tensor([1j, 0j], dtype=L.bool),
            L.tensor(C),
            L.tensor(C.astype(np.complex64)),
            L.as_tensor(C.astype(np.complex64)),
            L.as_tensor([1, 2], dtype=L.complex128),
            L.from_numpy(C.copy()),
            L.asarray([1j, 2]),
            L.ones(2).new_tensor([1j, 2], dtype=L.complex64),
            L.tensor([L.tensor(1j), 2]),
        ],
        exact=True,
    )


def test_complex_arrays_for_a_real_dtype_keep_the_real_part_as_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the complex-to-real warning: its own test)
        compare(
            lambda L: [
                L.tensor(C, dtype=L.float32),
                L.as_tensor(C, dtype=L.float64),
                L.tensor(C - 3, dtype=L.bool),
                L.tensor(C * 1.7, dtype=L.int64),
                L.tensor(L.tensor(C), dtype=L.float32),
            ],
            exact=True,
        )


def test_from_numpy_shares_memory():
    a = C.copy()
    t = cr.from_numpy(a)
    t[0] = 5j
    assert a[0] == 5j


def test_casts_match_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the complex-to-real warning: its own test)
        compare(
            lambda L: [
                L.tensor([1.0, 2.0]).cfloat(),
                L.tensor([1, 2]).cdouble(),
                L.tensor([1.0, 2.0]).to(L.complex64),
                L.tensor([1.0]).type(L.complex64),
                L.tensor([1.0]).type_as(L.tensor([1j])),
                L.tensor([1 + 2j]).to(L.complex128),
                L.tensor([1 + 2j, -3.5 - 1j]).to(L.float32),
                L.tensor([1.7 + 2j, -2.5 + 1j]).to(L.int64),
                L.tensor([2j, 0j]).to(L.bool),
                L.tensor([1 + 2j]).double(),
                L.tensor([1j]).type(),
                L.zeros(2, dtype=L.complex64).copy_(L.tensor([1.0, 3.0])),
            ],
            exact=True,
        )


def test_cast_to_a_real_dtype_keeps_the_real_part_and_warns_once():
    """PyTorch warns once per process (TORCH_WARN_ONCE): a UserWarning, not NumPy's
    ComplexWarning."""
    _creation._warned_discarding[0] = False
    z = cr.tensor([1 + 2j, -3j], requires_grad=True)
    with pytest.warns(UserWarning, match="Casting complex values to real discards the imaginary"):
        x = z.to(cr.float64)
    assert x.tolist() == [1.0, 0.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # neither again nor NumPy's
        y = z.float()
        z.detach().to(cr.bool)  # (no warning for bool, as PyTorch's)
    y.sum().backward()
    assert z.grad.tolist() == [1 + 0j, 1 + 0j]  # the real part's gradient, as PyTorch's
    _creation._warned_discarding[0] = False
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        cr.tensor(C, dtype=cr.float32)


def _moments(draw, lib, n=200_000):
    """(mean, std of the real parts, std of the imaginary parts, min, max of the parts)."""
    lib.manual_seed(0)
    z = draw(lib, n)
    parts = torch.view_as_real(torch.from_numpy(z.numpy())) if lib is cr else torch.view_as_real(z)
    return (
        complex(z.mean().item()),
        float(parts[:, 0].std()),
        float(parts[:, 1].std()),
        float(parts.min()),
        float(parts.max()),
    )


DISTRIBUTIONS = {
    "randn": lambda L, n: L.randn(n, dtype=L.complex64),
    "rand": lambda L, n: L.rand(n, dtype=L.complex128),
    "randn_like": lambda L, n: L.randn_like(L.zeros(n, dtype=L.complex128)),
    "rand_like": lambda L, n: L.rand_like(L.zeros(n, dtype=L.complex64)),
    "normal_": lambda L, n: L.zeros(n, dtype=L.complex128).normal_(1.0, 2.0),
    "uniform_": lambda L, n: L.zeros(n, dtype=L.complex64).uniform_(1.0, 3.0),
    "normal_complex_mean": lambda L, n: L.normal(L.full((n,), 1 + 1j), 2.0),
    "normal_numbers_complex_dtype": lambda L, n: L.normal(1.0, 2.0, (n,), dtype=L.complex128),
}


@pytest.mark.parametrize("name", DISTRIBUTIONS)
def test_complex_distributions_match_torch(name):
    """Each part drawn independently: randn's N(0, 1/2) (so E|z|² = 1), normal_'s
    N(mean, std²/2) with the mean on both parts, rand's and uniform_'s U[from, to)."""
    ours, theirs = (_moments(DISTRIBUTIONS[name], lib) for lib in (cr, torch))
    assert str(DISTRIBUTIONS[name](cr, 2).dtype) == str(DISTRIBUTIONS[name](torch, 2).dtype)
    np.testing.assert_allclose(ours[0], theirs[0], atol=0.02)  # mean
    np.testing.assert_allclose(ours[1:3], theirs[1:3], rtol=0.02)  # each part's spread
    if name in ("rand", "rand_like", "uniform_"):  # the bounds of each part
        np.testing.assert_allclose(ours[3:], theirs[3:], atol=1e-3)


ERRORS = {
    "full_complex_into_float": (lambda L: L.full((2,), 1 + 2j, dtype=L.float32), []),
    "full_complex_into_double": (lambda L: L.full((2,), 1 + 2j, dtype=L.float64), []),
    "full_complex_into_int": (lambda L: L.full((2,), 1 + 2j, dtype=L.int64), []),
    "full_like_complex_into_float": (lambda L: L.full_like(L.zeros(2), 1 + 2j), []),
    "new_full_complex_into_float": (lambda L: L.ones(2).new_full((2,), 1j), []),
    "fill_complex_into_int32": (lambda L: L.zeros(2, dtype=L.int32).fill_(1j), []),
    "fill_complex_into_half": (lambda L: L.zeros(2, dtype=L.float16).fill_(1j), []),
    "tensor_complex_as_float": (lambda L: L.tensor([1j, 2], dtype=L.float32), []),
    "tensor_complex_as_int": (lambda L: L.tensor([1j], dtype=L.int64), []),
    "new_tensor_complex_as_float": (lambda L: L.ones(2).new_tensor([1j, 2]), []),
    "arange_complex_end": (lambda L: L.arange(0, 1j, 1), []),
    "arange_complex_step": (lambda L: L.arange(0, 3, 1j), []),
    "arange_complex_dtype": (lambda L: L.arange(3, dtype=L.complex64), []),
    "linspace_complex_into_float": (lambda L: L.linspace(0, 1j, 3, dtype=L.float32), []),
    "randint_complex": (lambda L: L.randint(0, 5, (3,), dtype=L.complex64), []),
    "randint_like_complex": (lambda L: L.randint_like(L.ones(2, dtype=L.complex64), 5), []),
    "randperm_complex": (lambda L: L.randperm(3, dtype=L.complex64), []),
    "random_complex": (lambda L: L.zeros(3, dtype=L.complex64).random_(), []),
    "geometric_complex": (lambda L: L.zeros(3, dtype=L.complex64).geometric_(0.5), []),
    "cauchy_complex": (lambda L: L.zeros(3, dtype=L.complex64).cauchy_(), []),
    "exponential_complex": (lambda L: L.zeros(3, dtype=L.complex64).exponential_(), []),
    "log_normal_complex": (lambda L: L.zeros(3, dtype=L.complex64).log_normal_(), []),
    "bernoulli_complex": (lambda L: L.bernoulli(L.zeros(3, dtype=L.complex64)), []),
    "bernoulli_in_place_complex": (lambda L: L.zeros(3, dtype=L.complex64).bernoulli_(0.5), []),
    "normal_complex_std": (lambda L: L.normal(L.ones(2), L.ones(2, dtype=L.complex64)), []),
    "poisson_complex": (lambda L: L.poisson(L.ones(3, dtype=L.complex64)), []),
}

test_errors_match_torch = cases.same_errors_as_torch(ERRORS)


@pytest.mark.parametrize("value", [1e39, 1e39j, complex(1, 1e40), 2**70, -(2**70)])
def test_fill_values_complex64_cannot_hold_raise_as_torch(value):
    def run(L):
        return L.full((1,), value, dtype=L.complex64)

    mine, theirs = error_of(run, cr), error_of(run, torch)
    assert (type(mine), str(mine)) == (type(theirs), str(theirs))


def test_fill_values_complex64_holds_match_torch():
    compare(
        lambda L: [L.full((1,), v, dtype=L.complex64) for v in (float("inf"), 3.0, 2**63, 1e38j)]
    )
