"""gradcheck and gradgradcheck on complex functions, against PyTorch's: a complex output is
checked through its imaginary, then its real part (the message names the part); a
complex input's numerical column is ∂s/∂x + i ∂s/∂y, the gradient PyTorch's convention
gives. Correct functions pass in both libraries; a wrong gradient fails with the same
message. testing.assert_close compares complex tensors with PyTorch's tolerances and
messages, and testing.make_tensor draws both parts of a complex tensor."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

import chainrule as cr

Z = np.array([1 + 2j, -0.5 + 0.3j, 0.7 - 1.1j])
A = np.array([[2 + 1j, 0.3], [-0.4j, 1.5 - 0.2j]])
X = np.array([0.3, -1.2, 0.8])

FUNCTIONS = {
    "square": (lambda L, z: z * z, [Z]),
    "abs": (lambda L, z: z.abs(), [Z]),
    "conj_times": (lambda L, z: z.conj() * z[0], [Z]),
    "complex_of_reals": (lambda L, x: L.complex(x, x * 2), [X]),
    "inv": (lambda L, a: L.linalg.inv(a), [A]),
    "eigvals": (lambda L, a: L.linalg.eigvals(a), [A]),
    "svdvals": (lambda L, a: L.linalg.svdvals(a), [A]),
    "mixed": (lambda L, z, x: (z * x, (z.abs() * x).sum()), [Z, X]),
}


def inputs(lib, arrays):
    return tuple(lib.tensor(a, requires_grad=True) for a in arrays)


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_gradcheck_passes_on_correct_complex_functions(name):
    fn, arrays = FUNCTIONS[name]
    for lib in (torch, cr):
        assert lib.autograd.gradcheck(lambda *a, L=lib: fn(L, *a), inputs(lib, arrays))


@pytest.mark.parametrize("name", ["square", "abs", "complex_of_reals", "inv"])
def test_gradcheck_with_forward_mode_on_complex_functions(name):
    fn, arrays = FUNCTIONS[name]
    for lib in (torch, cr):
        f = lambda *a, L=lib: fn(L, *a)  # noqa: E731
        assert lib.autograd.gradcheck(f, inputs(lib, arrays), check_forward_ad=True)


@pytest.mark.parametrize("name", ["square", "abs", "inv", "eigvals", "mixed"])
def test_gradgradcheck_passes_on_complex_functions(name):
    fn, arrays = FUNCTIONS[name]
    for lib in (torch, cr):
        assert lib.autograd.gradgradcheck(lambda *a, L=lib: fn(L, *a), inputs(lib, arrays))


def conjugated_gradient(L, z):
    """z² whose backward conjugates the gradient on the way (a wrong derivative): a hook
    on an intermediate turns g into ḡ."""
    y = z * 1
    y.register_hook(lambda g: g.conj())
    return y * y


def abs_with_wrong_gradient(L, z):
    """|z| through a hook that conjugates the gradient reaching z: real output, complex input."""
    y = z * 1
    y.register_hook(lambda g: g.conj())
    return y.abs()


def unsigned_zeros(message: str) -> str:
    """The message with the signs of printed zeros dropped (-0 and +0 are equal values, and
    which of them a zero gradient entry holds differs between the libraries)."""
    message = re.sub(r"[-+]0\.0000j", "+0.0000j", message)
    return re.sub(r"(?<![\d.])-0\.0000(?!\d)", " 0.0000", message)


@pytest.mark.parametrize("fn", [conjugated_gradient, abs_with_wrong_gradient])
def test_a_wrong_complex_gradient_fails_with_torchs_message(fn):
    messages = []
    for lib in (torch, cr):
        (z,) = inputs(lib, [Z])
        with pytest.raises(RuntimeError) as err:
            lib.autograd.gradcheck(lambda a, L=lib: fn(L, a), (z,))
        assert type(err.value).__name__ == "GradcheckError"
        messages.append(str(err.value))
        assert (
            lib.autograd.gradcheck(
                lambda a, L=lib: fn(L, a), inputs(lib, [Z]), raise_exception=False
            )
            is False
        )
    assert unsigned_zeros(messages[1]) == unsigned_zeros(messages[0])
    if fn is conjugated_gradient:  # a complex output: its imaginary part is checked first
        assert messages[1].startswith(
            "While considering the imaginary part of complex outputs only, Jacobian mismatch "
            "for output 0 with respect to input 0,"
        )


def test_complex128_inputs_do_not_warn_but_complex64_ones_do():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cr.autograd.gradcheck(lambda z: z * z, inputs(cr, [Z]))
    z64 = cr.tensor(Z, dtype=cr.complex64, requires_grad=True)
    with pytest.warns(UserWarning, match="not a double precision floating point or complex"):
        cr.autograd.gradcheck(lambda z: z * z, (z64,), raise_exception=False)


# ----- testing.assert_close ----------------------------------------------------------------


CLOSE = {
    "equal": lambda L, a: L.testing.assert_close(a, a.clone()),
    "imaginary_off": lambda L, a: L.testing.assert_close(a, a + 1e-3j),
    "complex64_within_its_tolerance": lambda L, a: L.testing.assert_close(
        a.to(L.complex64), a.to(L.complex64) + 1e-6
    ),
    "complex64_off": lambda L, a: L.testing.assert_close(
        a.to(L.complex64), a.to(L.complex64) + 1e-4j
    ),
    "dtype": lambda L, a: L.testing.assert_close(a, a.to(L.complex64)),
    "dtype_unchecked": lambda L, a: L.testing.assert_close(a, a.to(L.complex64), check_dtype=False),
    "complex_vs_real": lambda L, a: L.testing.assert_close(a, a.real),
    "nan": lambda L, a: L.testing.assert_close(
        L.tensor([complex("nan+1j")]), L.tensor([complex("nan+1j")])
    ),
    "nan_equal": lambda L, a: L.testing.assert_close(
        L.tensor([complex("1+nanj")]), L.tensor([complex("nan+1j")]), equal_nan=True
    ),
    "python_complex": lambda L, a: L.testing.assert_close(1 + 2j, 1 + 2.1j),
    "python_complex_close": lambda L, a: L.testing.assert_close(1 + 2j, 1 + 2.00000001j),
    "rtol": lambda L, a: L.testing.assert_close(
        L.tensor([1 + 1j, 2 + 2j, 3 + 3j]), L.tensor([1 + 1j, 2.5 + 2j, 3 + 4j])
    ),
}


@pytest.mark.parametrize("case", list(CLOSE))
def test_assert_close_on_complex_values_as_torch(case):
    outcomes = []
    for lib in (torch, cr):
        a = lib.tensor([1 + 2j, 3 - 1j], dtype=lib.complex128)
        try:
            CLOSE[case](lib, a)
            outcomes.append(None)
        except AssertionError as err:
            outcomes.append(str(err))
    if outcomes[0] is None or "difference" not in outcomes[0]:
        assert outcomes[1] == outcomes[0]
        return
    # the greatest relative difference may differ in its last digit (|z| by another hypot)
    ours, theirs = outcomes[1].splitlines(), outcomes[0].splitlines()
    assert ours[:-1] == theirs[:-1]
    assert ours[-1].split(":")[0] == theirs[-1].split(":")[0]
    assert ours[-1].split("(up to")[-1] == theirs[-1].split("(up to")[-1]


def test_make_tensor_draws_both_parts_of_a_complex_tensor():
    t = cr.testing.make_tensor(200, dtype=cr.complex64, low=-2, high=3)
    assert t.dtype == cr.complex64
    for part in (t.real.numpy(), t.imag.numpy()):
        assert part.min() >= -2 and part.max() < 3 and part.std() > 0.5
    assert not np.allclose(t.real.numpy(), t.imag.numpy())
    z = cr.testing.make_tensor(3, dtype=cr.complex128, low=1, high=1)
    np.testing.assert_array_equal(z.numpy(), np.full(3, 1 + 1j))
