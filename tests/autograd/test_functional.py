"""``chainrule.autograd.functional`` against ``torch.autograd.functional``.

Every product, Jacobian and Hessian of several nonlinear functions of vectors and
matrices must equal PyTorch's to 1e-10 in float64, with PyTorch's output structure
(a tensor, a tuple, or a tuple of tuples) and PyTorch's errors. Higher derivatives
are checked against closed forms, and the seed's doubling loop against its Jacobian
``2**(c+1) * I``.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch

import chainrule as cr
from chainrule.autograd.registry import REGISTRY
from oracle import assert_close, both, error_of

RTOL, ATOL = 1e-10, 1e-12


def _t(lib, a):
    return lib.tensor(np.asarray(a, dtype=np.float64))


# ----- the functions: scalar-valued (for Hessians) and vector-valued ------------------

X = np.array([0.3, -0.7, 1.1])
A = np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.4], [-0.6, 0.2, 0.9]])
B = np.array([[0.2, 0.4], [-0.5, 0.1], [0.3, -0.3]])


def scalar_vec(x):
    return (x.sin() * x.exp()).sum() + (x**3).sum() * x[0]


def scalar_mat(a):
    return (a @ a.t()).tanh().sum() + (a * a.sigmoid()).sum()


def scalar_two(a, x):
    return ((a @ x).cos() * x.exp()).sum() + (x**2).sum() * a.sum()


def vector_vec(x):
    return x.sin() * x.exp() * x[0] + x**2


def matrix_pair(a, b):
    return (a @ b).tanh() * b.exp()


def several_outputs(a, x):
    return (a @ x).sigmoid(), (x * x).sum() * a


SCALAR_CASES = {
    "vector": (scalar_vec, (X,)),
    "matrix": (scalar_mat, (A,)),
    "two_inputs": (scalar_two, (A, X)),
}

VECTOR_CASES = {
    "vector": (vector_vec, (X,)),
    "matrix_pair": (matrix_pair, (A, B)),
    "several_outputs": (several_outputs, (A, X)),
    **SCALAR_CASES,
}


def _inputs(lib, arrays, as_tuple: bool):
    ts = tuple(_t(lib, a) for a in arrays)
    return ts if as_tuple or len(ts) > 1 else ts[0]


def _like(lib, value, seed: int):
    """A random vector shaped like ``value`` (a tensor or a tuple of them)."""
    rng = np.random.default_rng(seed)
    if isinstance(value, tuple):
        return tuple(_t(lib, rng.standard_normal(tuple(v.shape))) for v in value)
    return _t(lib, rng.standard_normal(tuple(value.shape)))


# ----- vjp, jvp, jacobian -------------------------------------------------------------


@pytest.mark.parametrize("as_tuple", [False, True], ids=["tensor", "tuple"])
@pytest.mark.parametrize("name", sorted(VECTOR_CASES))
def test_vjp_matches_torch(name, as_tuple):
    f, arrays = VECTOR_CASES[name]

    def run(lib):
        inputs = _inputs(lib, arrays, as_tuple)
        out = f(*inputs) if isinstance(inputs, tuple) else f(inputs)
        return lib.autograd.functional.vjp(f, inputs, _like(lib, out, seed=1))

    ours, theirs = both(run)
    assert_close(ours, theirs, RTOL, ATOL, requires_grad=False)


@pytest.mark.parametrize("as_tuple", [False, True], ids=["tensor", "tuple"])
@pytest.mark.parametrize("name", sorted(VECTOR_CASES))
def test_jvp_matches_torch(name, as_tuple):
    f, arrays = VECTOR_CASES[name]

    def run(lib):
        inputs = _inputs(lib, arrays, as_tuple)
        return lib.autograd.functional.jvp(f, inputs, _like(lib, inputs, seed=2))

    ours, theirs = both(run)
    assert_close(ours, theirs, RTOL, ATOL, requires_grad=False)


@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode"])
@pytest.mark.parametrize("name", sorted(VECTOR_CASES))
def test_jacobian_matches_torch(name, strategy):
    f, arrays = VECTOR_CASES[name]

    def run(lib):
        inputs = _inputs(lib, arrays, as_tuple=False)
        return lib.autograd.functional.jacobian(
            f, inputs, vectorize=strategy == "forward-mode", strategy=strategy
        )

    ours, theirs = both(run)
    assert_close(ours, theirs, RTOL, ATOL, requires_grad=False)


def test_jacobian_of_a_single_input_given_as_a_tuple_is_a_tuple():
    ours, theirs = both(
        lambda lib: lib.autograd.functional.jacobian(lambda x: x.exp(), (_t(lib, X),))
    )
    assert isinstance(ours, tuple) and len(ours) == 1
    assert_close(ours, theirs, RTOL, ATOL, requires_grad=False)


def test_vjp_equals_v_times_the_jacobian():
    """vᵀJ from vjp and from the full Jacobian agree (both from chainrule, checked by math)."""
    x = _t(cr, X)
    v = _t(cr, [0.1, 1.0, -2.0])
    jac = cr.autograd.functional.jacobian(vector_vec, x)
    _, vjp = cr.autograd.functional.vjp(vector_vec, x, v)
    _, jvp = cr.autograd.functional.jvp(vector_vec, x, v)
    np.testing.assert_allclose(vjp.numpy(), v.numpy() @ jac.numpy(), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(jvp.numpy(), jac.numpy() @ v.numpy(), rtol=RTOL, atol=ATOL)


# ----- Hessians and their products ----------------------------------------------------


@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode"])
@pytest.mark.parametrize("name", sorted(SCALAR_CASES))
def test_hessian_matches_torch(name, strategy):
    f, arrays = SCALAR_CASES[name]

    def run(lib):
        inputs = _inputs(lib, arrays, as_tuple=False)
        return lib.autograd.functional.hessian(
            f, inputs, vectorize=strategy == "forward-mode", outer_jacobian_strategy=strategy
        )

    ours, theirs = both(run)
    assert_close(ours, theirs, RTOL, ATOL, requires_grad=False)


@pytest.mark.parametrize("product", ["vhp", "hvp"])
@pytest.mark.parametrize("as_tuple", [False, True], ids=["tensor", "tuple"])
@pytest.mark.parametrize("name", sorted(SCALAR_CASES))
def test_hessian_products_match_torch(name, as_tuple, product):
    f, arrays = SCALAR_CASES[name]

    def run(lib):
        inputs = _inputs(lib, arrays, as_tuple)
        return getattr(lib.autograd.functional, product)(f, inputs, _like(lib, inputs, seed=3))

    ours, theirs = both(run)
    assert_close(ours, theirs, RTOL, ATOL, requires_grad=False)


def test_hessian_of_a_quadratic_form_is_a_plus_a_transpose():
    """d²/dx² xᵀAx = A + Aᵀ."""
    a = _t(cr, A)
    h = cr.autograd.functional.hessian(lambda x: x @ (a @ x), _t(cr, X))
    np.testing.assert_allclose(h.numpy(), A + A.T, rtol=RTOL, atol=ATOL)


# ----- create_graph: derivatives of derivatives ---------------------------------------


def test_create_graph_results_are_differentiable_like_torch():
    def run(lib):
        x = _t(lib, X).requires_grad_()
        h = lib.autograd.functional.hessian(scalar_vec, x, create_graph=True)
        (third,) = lib.autograd.grad(h.sum(), x)
        _, vhp = lib.autograd.functional.vhp(scalar_vec, x, _t(lib, [1.0, 2.0, 3.0]), True)
        (third_v,) = lib.autograd.grad((vhp * vhp).sum(), x)
        return h, third, third_v

    ours, theirs = both(run)
    assert ours[0].requires_grad
    assert_close(ours, theirs, RTOL, ATOL, requires_grad=False)


def test_without_create_graph_results_are_detached():
    x = _t(cr, X).requires_grad_()
    out, vjp = cr.autograd.functional.vjp(vector_vec, x, _t(cr, X))
    jac = cr.autograd.functional.jacobian(vector_vec, x)
    assert not out.requires_grad and not vjp.requires_grad and not jac.requires_grad
    assert x.grad is None


def test_third_derivative_of_sin_times_exp():
    """d³/dx³ eˣ sin x = 2eˣ(cos x − sin x), as the Jacobian of the Hessian."""
    x = _t(cr, X)

    def hess_diag(v):
        return cr.autograd.functional.hessian(
            lambda u: (u.sin() * u.exp()).sum(), v, create_graph=True
        ).diagonal()

    third = cr.autograd.functional.jacobian(hess_diag, x).diagonal()
    np.testing.assert_allclose(third.numpy(), 2 * np.exp(X) * (np.cos(X) - np.sin(X)), rtol=RTOL)


def test_fourth_derivative_of_a_to_the_fourth():
    """d⁴/da⁴ a⁴ = 24 and d³/da³ a⁴ = 24a, by nesting jacobian around hessian."""
    a = _t(cr, X)

    def third(v):
        return cr.autograd.functional.jacobian(
            lambda u: cr.autograd.functional.hessian(
                lambda w: (w**4).sum(), u, create_graph=True
            ).diagonal(),
            v,
            create_graph=True,
        ).diagonal()

    np.testing.assert_allclose(third(a).detach().numpy(), 24 * X, rtol=RTOL)
    fourth = cr.autograd.functional.jacobian(third, a)
    np.testing.assert_allclose(fourth.numpy(), 24 * np.eye(3), rtol=RTOL, atol=ATOL)


# ----- the seed's program ------------------------------------------------------------


def _doubling(x):
    y = x * 2
    c = 0
    while y.data.norm() < 1000:
        y = y * 2
        c += 1
    return y, c


def test_seed_jacobian_is_2_to_the_c_plus_1_times_identity():
    """J of the doubling loop is 2**(c+1) I, and v @ J is what backward(v) accumulates."""
    x0 = np.array([0.3, -1.2, 0.7], dtype=np.float32)
    x = cr.tensor(x0)
    counts = []

    def f(x):
        y, c = _doubling(x)
        counts.append(c)
        return y

    jac = cr.autograd.functional.jacobian(f, x)
    c = counts[0]
    assert c == _doubling(torch.tensor(x0))[1]
    np.testing.assert_array_equal(jac.numpy(), 2 ** (c + 1) * np.eye(3, dtype=np.float32))
    v = cr.tensor([0.1, 1.0, 0.0001])
    leaf = cr.tensor(x0, requires_grad=True)
    _doubling(leaf)[0].backward(v)
    np.testing.assert_array_equal((v @ jac).numpy(), leaf.grad.numpy())
    _, vjp = cr.autograd.functional.vjp(f, x, v)
    np.testing.assert_array_equal(vjp.numpy(), leaf.grad.numpy())


# ----- errors, and strict mode ----------------------------------------------------------

_x = X  # a float64 vector

ERRORS = {
    "vjp_v_none_nonscalar": lambda L, F: F.vjp(lambda a: a * 2, _t(L, _x)),
    "vjp_v_wrong_size": lambda L, F: F.vjp(lambda a: a * 2, _t(L, _x), L.ones(2)),
    "vjp_v_tuple_for_tensor": lambda L, F: F.vjp(
        lambda a: a.sum(), _t(L, _x), (L.ones(()), L.ones(()))
    ),
    "vjp_output_not_tensor": lambda L, F: F.vjp(lambda a: 3, _t(L, _x)),
    "vjp_input_not_tensor": lambda L, F: F.vjp(lambda a: a.sum(), 3),
    "vjp_input_tuple_not_tensor": lambda L, F: F.vjp(lambda a, b: a.sum(), (_t(L, _x), 3)),
    "vjp_strict_constant": lambda L, F: F.vjp(lambda a: L.ones(()), _t(L, _x), strict=True),
    "vjp_strict_unused": lambda L, F: F.vjp(
        lambda a, b: a * 2, (_t(L, _x), _t(L, _x)), L.ones(3), strict=True
    ),
    "vjp_strict_create_graph": lambda L, F: F.vjp(
        lambda a, b: a * 2, (_t(L, _x), _t(L, _x)), L.ones(3), strict=True, create_graph=True
    ),
    "jvp_v_none": lambda L, F: F.jvp(lambda a: a * 2, _t(L, _x)),
    "jvp_v_wrong_size": lambda L, F: F.jvp(lambda a: a.sum(), _t(L, _x), L.ones(2)),
    "jvp_v_wrong_length": lambda L, F: F.jvp(
        lambda a, b: a * 2, (_t(L, _x), _t(L, _x)), (_t(L, _x),)
    ),
    "jvp_strict_unused": lambda L, F: F.jvp(
        lambda a, b: a * 2, (_t(L, _x), _t(L, _x)), (_t(L, _x), _t(L, _x)), strict=True
    ),
    "jacobian_forward_without_vectorize": lambda L, F: F.jacobian(
        lambda a: a * 2, _t(L, _x), strategy="forward-mode"
    ),
    "jacobian_forward_create_graph": lambda L, F: F.jacobian(
        lambda a: a * 2, _t(L, _x), strategy="forward-mode", vectorize=True, create_graph=True
    ),
    "jacobian_bad_strategy": lambda L, F: F.jacobian(lambda a: a * 2, _t(L, _x), strategy="x"),
    "jacobian_strict_vectorize": lambda L, F: F.jacobian(
        lambda a: a.sum(), _t(L, _x), strict=True, vectorize=True
    ),
    "jacobian_strict_constant": lambda L, F: F.jacobian(
        lambda a: L.ones(2), _t(L, _x), strict=True
    ),
    "jacobian_strict_unused": lambda L, F: F.jacobian(
        lambda a, b: a * 2, (_t(L, _x), _t(L, _x)), strict=True
    ),
    "hessian_not_scalar": lambda L, F: F.hessian(lambda a: a * 2, _t(L, _x)),
    "hessian_tuple_output": lambda L, F: F.hessian(lambda a: (a, a), _t(L, _x)),
    "hessian_strict_linear": lambda L, F: F.hessian(
        lambda a: (a * 2).sum(), _t(L, _x), strict=True
    ),
    "hessian_forward_without_vectorize": lambda L, F: F.hessian(
        lambda a: (a**3).sum(), _t(L, _x), outer_jacobian_strategy="forward-mode"
    ),
    "vhp_v_none": lambda L, F: F.vhp(lambda a: (a**3).sum(), _t(L, _x)),
    "vhp_not_scalar": lambda L, F: F.vhp(lambda a: a**3, _t(L, _x), _t(L, _x)),
    "vhp_strict_linear": lambda L, F: F.vhp(
        lambda a: (a * 2).sum(), _t(L, _x), L.ones(3), strict=True
    ),
    "vhp_strict_unused": lambda L, F: F.vhp(
        lambda a, b: (a**2).sum(), (_t(L, _x), _t(L, _x)), (_t(L, _x), _t(L, _x)), strict=True
    ),
    "hvp_strict_unused": lambda L, F: F.hvp(
        lambda a, b: (a**2).sum(), (_t(L, _x), _t(L, _x)), (_t(L, _x), _t(L, _x)), strict=True
    ),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    fn = ERRORS[name]
    ours, theirs = (error_of(lambda L: fn(L, L.autograd.functional), lib) for lib in (cr, torch))
    assert type(ours) is type(theirs)
    assert str(ours) == str(theirs)


STRICT_OK = {
    "vjp_constant_gives_zeros": lambda L, F: F.vjp(lambda a: L.ones(()), _t(L, _x)),
    "jacobian_constant_gives_zeros": lambda L, F: F.jacobian(lambda a: L.ones(2), _t(L, _x)),
    "jacobian_unused_gives_zeros": lambda L, F: F.jacobian(
        lambda a, b: a * 2, (_t(L, _x), _t(L, _x))
    ),
    "hessian_linear_gives_zeros": lambda L, F: F.hessian(lambda a: (a * 2).sum(), _t(L, _x)),
    "vhp_linear_gives_zeros": lambda L, F: F.vhp(lambda a: (a * 2).sum(), _t(L, _x), L.ones(3)),
    "strict_with_a_dependence_through_zero": lambda L, F: F.vjp(
        lambda a: (a * 0).sum() + 1, _t(L, _x), strict=True
    ),
}


@pytest.mark.parametrize("name", sorted(STRICT_OK))
def test_independence_gives_zeros_without_strict(name):
    ours, theirs = both(lambda lib: STRICT_OK[name](lib, lib.autograd.functional))
    assert_close(ours, theirs, RTOL, ATOL, requires_grad=False)


# ----- import paths and forward-mode coverage --------------------------------------------


def test_torch_autograd_functional_resolves_to_chainrule_under_the_hook():
    code = (
        "from chainrule import _import_hook\n"
        "with _import_hook.installed():\n"
        "    import torch\n"
        "    import torch.autograd.functional as F\n"
        "    from torch.autograd.functional import hessian\n"
        "    from torch.autograd import gradcheck\n"
        "    import torch.func\n"
        "    import chainrule\n"
        "    assert F is chainrule.autograd.functional and hessian is F.hessian\n"
        "    assert torch.func is chainrule.func and gradcheck is chainrule.autograd.gradcheck\n"
        "    print(hessian(lambda x: (x ** 3).sum(), torch.tensor([1.0, 2.0])).tolist())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[[6.0, 0.0], [0.0, 12.0]]"


def test_every_registered_op_has_a_jvp_rule():
    """Forward mode covers every op: an input with a VJP must have a JVP too."""
    missing = sorted(
        {
            f"{op.name} (input {i}: {op.args[i]})"
            for op in REGISTRY.values()
            for i, (vjp, jvp) in enumerate(zip(op.raw_vjps, op.raw_jvps))
            if vjp is not None and jvp is None
        }
    )
    assert not missing, "ops without a JVP rule for a differentiable input: " + ", ".join(missing)


# ----- autograd.grad's options ---------------------------------------------------------


def _grad_case(L, **kw):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    w = L.tensor([3.0, 4.0], requires_grad=True)
    return L.autograd.grad((x * x).sum(), [x, w], **kw)


GRAD_OK = {
    "allow_unused": lambda L: _grad_case(L, allow_unused=True)[0],
    "materialize_grads": lambda L: _grad_case(L, materialize_grads=True),
    "materialize_with_create_graph": lambda L: _grad_case(
        L, materialize_grads=True, create_graph=True
    ),
    "is_grads_batched": lambda L: (
        lambda x: L.autograd.grad(x * x, x, L.eye(2), is_grads_batched=True)
    )(L.tensor([1.0, 2.0], requires_grad=True)),
    "repeated_input": lambda L: (lambda x: L.autograd.grad((x * x).sum(), [x, x]))(
        L.tensor([1.0, 2.0], requires_grad=True)
    ),
}


@pytest.mark.parametrize("name", sorted(GRAD_OK))
def test_grad_options_match_torch(name):
    ours, theirs = both(GRAD_OK[name])
    if not isinstance(ours, tuple):
        ours, theirs = (ours,), (theirs,)
    assert [o.requires_grad for o in ours] == [t.requires_grad for t in theirs]
    assert_close(ours, theirs, RTOL, ATOL, requires_grad=False)


GRAD_ERRORS = {
    "unused_input": lambda L: _grad_case(L),
    "materialize_without_allow_unused": lambda L: _grad_case(
        L, materialize_grads=True, allow_unused=False
    ),
    "empty_inputs": lambda L: L.autograd.grad((L.ones(2, requires_grad=True) * 2).sum(), []),
    "non_scalar_output": lambda L: (lambda x: L.autograd.grad(x * 2, x))(
        L.ones(2, requires_grad=True)
    ),
    "input_without_grad": lambda L: L.autograd.grad(
        (L.ones(2, requires_grad=True) * 2).sum(), L.ones(2)
    ),
}


@pytest.mark.parametrize("name", sorted(GRAD_ERRORS))
def test_grad_errors_match_torch(name):
    ours, theirs = error_of(GRAD_ERRORS[name], cr), error_of(GRAD_ERRORS[name], torch)
    assert type(ours) is type(theirs)
    assert str(ours) == str(theirs)


def test_grad_only_inputs_false_warns_like_torch():
    import warnings

    def run(L):
        x = L.ones(2, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            L.autograd.grad((x * 2).sum(), x, only_inputs=False)
        return [str(w.message) for w in caught]

    assert run(cr) == run(torch)


def _containers(value):
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, [_containers(v) for v in value])
    return type(value).__name__


@pytest.mark.parametrize(
    "call",
    [
        lambda L, F, x: F.jacobian(
            lambda a, b: a * b, (x, x), strategy="forward-mode", vectorize=True
        ),
        lambda L, F, x: F.jacobian(
            lambda a: (a * 2, a.sum()), x, strategy="forward-mode", vectorize=True
        ),
        lambda L, F, x: F.jacobian(
            lambda a: (a * 2,), (x,), strategy="forward-mode", vectorize=True
        ),
        lambda L, F, x: F.jacobian(lambda a: a * 2, (x,), strategy="forward-mode", vectorize=True),
        lambda L, F, x: F.hessian(
            lambda a: (a**3).sum(), (x,), outer_jacobian_strategy="forward-mode", vectorize=True
        ),
        lambda L, F, x: F.jacobian(lambda a, b: (a * b, a.sum()), (x, x)),
        lambda L, F, x: F.hessian(lambda a, b: (a * b).sum(), (x, x)),
    ],
)
def test_container_types_match_torch(call):
    """Tuples, except where PyTorch's forward mode returns lists (tuple inputs)."""
    ours, theirs = both(lambda L: call(L, L.autograd.functional, _t(L, X)))
    assert _containers(ours) == _containers(theirs)
    assert_close(ours, theirs, RTOL, ATOL, requires_grad=False)


def test_top_level_anomaly_switches_match_torch():
    def run(L):
        states = []
        for enabled, check_nan in [(True, False), (False, True)]:
            L.set_anomaly_enabled(enabled, check_nan=check_nan)
            states.append((L.is_anomaly_enabled(), L.is_anomaly_check_nan_enabled()))
        return states

    assert run(cr) == run(torch) == [(True, False), (False, True)]
