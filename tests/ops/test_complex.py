"""Complex numbers against PyTorch: their parts and conjugates (ops/complex_parts.py), the
arithmetic marked holomorphic or linear over the reals, promotion with real operands, and
the engine's conventions (the real part of a complex gradient for a real input; backward
from a complex scalar refused; ops without complex derivatives refused, never wrong):
values, gradients for a random complex output gradient, forward-mode tangents, second
derivatives."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import (
    assert_same,
    check,
    check_double_backward,
    compare,
    crandn,
    error_of,
    randn,
)

Z = crandn((3, 4), 0)
W = crandn((3, 4), 1)
X = randn((3, 4), 2)
M = crandn((4, 2), 3)
Z0 = np.array([1 + 2j, 0j, -3.5 + 0.25j, 2j, -1 + 0j])  # with 0 and the axes

CASES = {
    "conj": (lambda L, z: L.conj(z), [Z]),
    "conj_physical": (lambda L, z: L.conj_physical(z), [Z]),
    "conj_physical_method": (lambda L, z: (z * 1).conj_physical_(), [Z]),
    "predicates": (
        lambda L, z: (
            L.resolve_neg(L.resolve_conj(z))
            * (1 if L.is_complex(z) and not L.is_conj(z) and not L.is_neg(z) else 2)
        ),
        [Z],
    ),
    "real": (lambda L, z: L.real(z), [Z]),
    "imag": (lambda L, z: L.imag(z), [Z]),
    "real_property": (lambda L, z: (z * 2).real, [Z]),
    "imag_property": (lambda L, z: (z * 2).imag, [Z]),
    "view_as_real": (lambda L, z: L.view_as_real(z), [Z]),
    "view_as_complex": (lambda L, x: L.view_as_complex(x), [randn((3, 2), 4)]),
    "view_as_complex_strided": (lambda L, x: L.view_as_complex(x[::2]), [randn((4, 2), 5)]),
    "complex": (lambda L, a, b: L.complex(a, b), [X, randn((3, 4), 6)]),
    "complex_broadcast": (lambda L, a, b: L.complex(a, b), [randn((4,), 7), randn((3, 1), 8)]),
    "polar": (lambda L, r, t: L.polar(r, t), [np.abs(X) + 0.5, randn((3, 4), 9)]),
    "abs": (lambda L, z: L.abs(z), [Z]),
    "angle": (lambda L, z: L.angle(z), [Z]),
    "angle_real": (lambda L, x: L.angle(x), [X]),
    "sgn": (lambda L, z: L.sgn(z), [Z]),
    "sgn_zero": (lambda L, z: L.sgn(z), [Z0]),
    "abs_zero": (lambda L, z: L.abs(z), [Z0]),
    "abs_0d": (lambda L, z: z.sum().abs(), [Z]),
    "sgn_0d": (lambda L, z: L.sgn(z.sum()), [Z]),
    "mul": (lambda L, z, w: z * w, [Z, W]),
    "mul_real": (lambda L, z, x: z * x, [Z, X]),
    "mul_scalar": (lambda L, z: z * (2 - 1j), [Z]),
    "real_times_scalar": (lambda L, x: x * 1j, [X]),
    "div": (lambda L, z, w: z / w, [Z, W]),
    "add_sub": (lambda L, z, w, x: z + w - x, [Z, W, X]),
    "rsub": (lambda L, z: 1 - z, [Z]),
    "exp_log": (lambda L, z: L.log(L.exp(z) + 1), [Z]),
    "sqrt": (lambda L, z: L.sqrt(z), [Z]),
    "reciprocal": (lambda L, z: L.reciprocal(z), [Z]),
    "sin_cos_tanh": (lambda L, z: L.sin(z) * L.cos(z) + L.tanh(z), [Z * 0.5]),
    "sum": (lambda L, z: z.sum(dim=1), [Z]),
    "mean": (lambda L, z: z.mean(), [Z]),
    "matmul": (lambda L, z, m: z @ m, [Z, M]),
    "mm_real_cast": (lambda L, x, m: L.mm(x.to(m.dtype), m), [X, M]),
    "dot": (lambda L, a, b: L.dot(a, b), [Z[0], W[0]]),
    "bmm": (lambda L, a, b: L.bmm(a, b), [crandn((2, 3, 4), 10), crandn((2, 4, 2), 11)]),
    "addmm": (lambda L, c, a, b: L.addmm(c, a, b), [crandn((3, 2), 12), Z, M]),
    "mH": (lambda L, z: z.mH, [Z]),
    "adjoint": (lambda L, z: L.adjoint(z), [Z]),
    "views": (lambda L, z: z.t()[1:, ::2].unsqueeze(0).permute(2, 0, 1).flip(0), [Z]),
    "expand_squeeze": (lambda L, z: z[:1].expand(3, 4).squeeze(), [Z]),
    "to_real_dtype": (lambda L, z: (z * 1).real.to(L.float64), [Z]),
    "real_to_complex": (lambda L, x: x.to(L.complex128) * (1 + 2j), [X]),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", CASES)
def test_matches_torch(name, dtype):
    fn, inputs = CASES[name]
    check(fn, *inputs, dtype=dtype)


SECOND = ["mul", "div", "abs", "angle", "sgn", "exp_log", "matmul", "view_as_real", "polar"]


@pytest.mark.parametrize("name", SECOND)
def test_second_derivatives_match_torch(name):
    fn, inputs = CASES[name]
    check_double_backward(fn, *inputs, dtype=np.float64)


def test_dtypes_promotion_and_names_match_torch():
    compare(
        lambda L: [
            str(L.promote_types(L.complex64, L.float64)),
            str(L.promote_types(L.float16, L.complex64)),
            str(L.promote_types(L.complex128, L.int8)),
            str((L.ones(2, dtype=L.float64) * L.tensor(1j)).dtype),
            str((L.ones(2) * L.tensor(1j, dtype=L.complex128)).dtype),
            str((L.ones(2, dtype=L.long) * L.tensor(1j, dtype=L.complex128)).dtype),
            str((L.ones(2, dtype=L.long) * 1j).dtype),
            str((L.ones(2, dtype=L.float64) * 1j).dtype),
            str(L.tensor([1, 2j]).dtype),
            str(L.tensor([1.0], dtype=complex).dtype),
            L.complex64.is_complex,
            L.complex64.is_floating_point,
            L.complex64.itemsize,
            str(L.cfloat),
            str(L.cdouble),
            L.complex64.to_real() == L.float32,
            L.float64.to_complex() == L.complex128,
            repr(L.finfo(L.complex128)),
            L.can_cast(L.complex64, L.float64),
            L.can_cast(L.float64, L.complex64),
            L.is_complex(L.tensor([1j])),
            L.tensor([1j]).is_complex(),
            L.tensor([1.0]).is_complex(),
            L.tensor([1j]).conj().is_conj() and False,
            L.tensor(1 + 2j).item(),
            L.tensor([1 + 2j, 3j]).tolist(),
            complex(L.tensor(2 - 1j)),
        ]
    )


def test_default_complex_follows_the_default_dtype():
    for lib in (cr, torch):
        lib.set_default_dtype(lib.float64)
        try:
            assert str(lib.tensor(1j).dtype) == "torch.complex128"
            assert str((lib.ones(2) * 1j).dtype) == "torch.complex128"
        finally:
            lib.set_default_dtype(lib.float32)


def test_printing_matches_torch():
    compare(
        lambda L: [
            repr(L.tensor([1 + 2j, -3.5 + 0.25j, 1e-5j, 123456 + 1j])),
            repr(L.tensor([[1 + 1j, 2], [3, 4j]], dtype=L.complex128)),
            repr(L.tensor([float("nan") + 1j, float("inf") * 1j, 1 - 0j, -2.5])),
            repr(L.tensor(2 + 3j)),
            repr(L.zeros(2, dtype=L.cfloat)),
            repr(L.tensor([]).to(L.complex64)),
            repr(L.arange(30.0).reshape(10, 3).to(L.complex64) * (1 - 2j)),
            repr(L.arange(3000.0).to(L.complex128) * 1j),
            repr(L.tensor([0.1 + 0.2j], requires_grad=True) * 2),
            repr(L.tensor([1 + 2j], requires_grad=True).real),
        ]
    )


def test_a_real_input_gets_the_real_part_of_its_complex_gradient():
    def grads(L):
        x = L.tensor([1.0, -2.0, 0.5], requires_grad=True)
        z = L.tensor([1 + 1j, 2 - 1j, -1j], requires_grad=True)
        y = (x * z * (0.5 + 2j)).abs().sum() + L.view_as_real(x * z).sum()
        y.backward()
        return [x.grad, z.grad]

    compare(grads, rtol=1e-6, atol=1e-6)


def test_create_graph_through_a_real_input_of_a_complex_result():
    def grads(L):
        x = L.tensor([1.0, -2.0, 0.5], dtype=L.float64, requires_grad=True)
        y = (x * (1 + 2j)).abs().pow(2).sum()
        (g,) = L.autograd.grad(y, x, create_graph=True)
        (h,) = L.autograd.grad(g.sum(), x)
        return [g, h]

    compare(grads)


def test_backward_from_a_complex_scalar_raises_torchs_error():
    def run(L):
        z = L.tensor([1 + 2j], requires_grad=True)
        (z * 2).sum().backward()

    assert str(error_of(run, cr)) == str(error_of(run, torch))


def test_an_op_without_a_complex_derivative_raises_instead_of_a_wrong_gradient(monkeypatch):
    """An op not marked for complex values (``defop(complex=None)``) refuses to record on
    them, also one that keeps its input's dtype and gives a real result (var: such an op
    takes complex inputs the general way); forward mode refuses too. Without grad the
    forward runs."""
    from chainrule.autograd.registry import REGISTRY

    for name in ("mul", "sum", "var"):
        op = REGISTRY[name]
        monkeypatch.setattr(op, "complex", None)
        monkeypatch.setattr(op, "_complex_plans", {})
        monkeypatch.setattr(op, "_keep", 1 if op._keep else False)
    z = cr.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    with pytest.raises(RuntimeError, match="mul does not support automatic differentiation"):
        z * z
    with pytest.raises(RuntimeError, match="sum does not support automatic differentiation"):
        cr.sum(z)
    with pytest.raises(RuntimeError, match="var does not support automatic differentiation"):
        cr.var(z)
    with cr.autograd.forward_ad.dual_level():
        dual = cr.autograd.forward_ad.make_dual(z.detach(), z.detach())
        with pytest.raises(RuntimeError, match="mul does not support"):
            dual * dual
    t = torch.tensor([1 + 2j, 3 - 1j])
    assert_same(z.detach() * z.detach(), t * t)


def test_functions_of_reals_refuse_complex_input_as_torch():
    z = cr.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    with pytest.raises(NotImplementedError, match="not implemented for 'ComplexFloat'"):
        cr.erf(z)


def test_sign_refuses_complex_input_as_torch():
    def run(L):
        return L.sign(L.tensor([1j]))

    assert str(error_of(run, cr)) == str(error_of(run, torch))


def test_statistics_and_refusals_of_complex_values_match_torch():
    zz = np.array([[1 + 2j, 3 - 1j, 0.5j], [2 - 1j, -1 + 1j, 4 + 0j]])
    check(lambda L, z: L.cov(z), zz, dtype=np.float64)
    check(lambda L, z: L.logsumexp(z, 1), zz, dtype=np.float64)
    compare(lambda L: L.corrcoef(L.tensor(zz)), rtol=1e-10, atol=1e-12)
    for fn in (
        lambda L: L.unique(L.tensor([1j])),
        lambda L: L.unique(L.tensor([[1j]]), dim=0),
        lambda L: L.searchsorted(L.tensor([1j]), L.tensor([1j])),
        lambda L: L.isin(L.tensor([1j]), L.tensor([1j])),
        lambda L: L.tensor([1 + 1j]).abs_(),
    ):
        assert repr(error_of(fn, cr)) == repr(error_of(fn, torch))


def test_custom_functions_modules_and_strided_views_take_complex_values():
    def run(L):
        class Double(L.autograd.Function):
            @staticmethod
            def forward(ctx, z):
                return z * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        a = L.tensor([1 + 1j, -2j], requires_grad=True)
        L.view_as_real(Double.apply(a) * (1 - 1j)).sum().backward()
        lin = L.nn.Linear(3, 2, dtype=L.cfloat)
        strided = L.view_as_real(L.tensor([[1 + 2j, 3j], [4, 5 - 1j]]).mT)
        return [a.grad, str(lin.weight.dtype), lin(L.ones(3, dtype=L.cfloat)).shape, strided]

    compare(run)
