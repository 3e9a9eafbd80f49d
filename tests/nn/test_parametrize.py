"""Parametrizations side by side with PyTorch: ``torch._weight_norm``/``norm_except_dim``
(values, gradients, tangents, second derivatives, node names), ``nn.utils.parametrize``
(the parametrized class, properties, ``right_inverse``, stacking, ``cached``, removal,
state-dict keys, errors), ``parametrizations.weight_norm``/``spectral_norm`` and the old
``nn.utils.weight_norm``/``spectral_norm`` hooks (keys, values, gradients, power
iteration from the same vectors, removal, warnings), on a hand-written linear layer."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from nn_models import affine, arr
from oracle import (
    DT_IDS,
    FLOATS,
    assert_close,
    assert_same_error,
    check,
    check_double_backward,
    check_fd,
    compare,
    randn,
    same_node,
    tangent,
)

# ----- torch._weight_norm and torch.norm_except_dim ------------------------------------------

# (shape of v, dim): the first or last dim is PyTorch's fused op, a middle dim or -1 composed
WEIGHT_NORM = [((3, 4), 0), ((3, 4), 1), ((2, 3, 4), 0), ((2, 3, 4), 2), ((2, 3, 4), 1)]
WEIGHT_NORM += [((2, 3, 4), -1), ((5,), 0), ((3, 4), -1)]


def g_shape(shape, dim):
    if dim == -1:
        return ()
    return tuple(s if i == dim else 1 for i, s in enumerate(shape))


def wn_id(case):
    return f"{'x'.join(map(str, case[0]))}-dim{case[1]}"


def _weight_norm(lib, v, g, dim):
    return lib._weight_norm(v, g, dim)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("case", WEIGHT_NORM, ids=wn_id)
def test_weight_norm_op_matches_torch(case, dtype):
    shape, dim = case
    v = randn(shape)
    g = randn(g_shape(shape, dim), seed=1)
    # forward=False for dim=-1 only: torch's forward mode of its norm_except_dim(v, 2, -1)
    # gives a (1, 1) tangent for a 0-d norm and refuses it (the tangents are compared with
    # torch's forward mode through vector_norm below)
    result = check(
        lambda lib, v, g: _weight_norm(lib, v, g, dim), v, g, dtype=dtype, forward=dim != -1
    )
    same_node(result)


def _composed(lib, v, g, dim):
    """g·v/‖v‖ through vector_norm: the function of _weight_norm in ops torch differentiates
    in every mode and order."""
    if dim == -1:
        return v * (g / lib.linalg.vector_norm(v))
    others = tuple(i for i in range(v.ndim) if i != dim)
    return v * (g / (lib.linalg.vector_norm(v, dim=others, keepdim=True) if others else v.abs()))


@pytest.mark.parametrize("case", WEIGHT_NORM, ids=wn_id)
def test_weight_norm_op_finite_differences_and_second_derivatives(case):
    shape, dim = case
    v, g = randn(shape), randn(g_shape(shape, dim), seed=1)
    check_fd(lambda lib, v, g: _weight_norm(lib, v, g, dim), v, g)
    # PyTorch's fused op (the first or last dim) has a wrong second derivative in v (2.0
    # off finite differences of its own gradient, where chainrule's is within 3e-10):
    # chainrule's op against torch's composed function
    check_double_backward(
        lambda lib, v, g: _weight_norm(lib, v, g, dim) if lib is cr else _composed(lib, v, g, dim),
        v,
        g,
    )


def test_torch_fused_weight_norm_second_derivative_is_off_and_chainrules_is_not():
    """The reason for the comparison above, by central differences of the gradient."""
    r = np.random.default_rng(0)
    v0, g0, w0, u0 = (r.standard_normal(s) for s in [(3, 4), (3, 1), (3, 4), (3, 4)])

    def gradient(lib, v0):
        v = lib.tensor(v0, requires_grad=True)
        (gv,) = lib.autograd.grad(
            lib._weight_norm(v, lib.tensor(g0), 0), (v,), lib.tensor(w0), create_graph=True
        )
        return v, gv

    def s_of(lib, v0):
        return float((gradient(lib, v0)[1].detach().numpy() * u0).sum())

    for lib, close in [(cr, True), (torch, False)]:
        num = np.zeros_like(v0)
        for i in np.ndindex(v0.shape):
            d = np.zeros_like(v0)
            d[i] = 1e-6
            num[i] = (s_of(lib, v0 + d) - s_of(lib, v0 - d)) / 2e-6
        v, gv = gradient(lib, v0)
        (second,) = lib.autograd.grad((gv * lib.tensor(u0)).sum(), (v,))
        assert np.allclose(second.numpy(), num, rtol=1e-6, atol=1e-6) == close, lib.__name__


@pytest.mark.parametrize("case", WEIGHT_NORM, ids=wn_id)
def test_weight_norm_op_tangents_match_torchs_composed_formula(case):
    """torch has no forward mode for its fused op: chainrule's tangents against torch's
    forward mode through v·(g/norm_except_dim(v)), the same function."""
    shape, dim = case
    r = np.random.default_rng(3)
    primals = [randn(shape), randn(g_shape(shape, dim), seed=1)]
    tangents = [r.standard_normal(p.shape) for p in primals]
    ours = tangent(cr, lambda lib, v, g: _weight_norm(lib, v, g, dim), primals, tangents)
    theirs = tangent(torch, lambda lib, v, g: _composed(lib, v, g, dim), primals, tangents)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("case", WEIGHT_NORM, ids=wn_id)
def test_norm_except_dim_matches_torch(case, dtype):
    shape, dim = case
    # dim=-1: torch's forward mode refuses its own 0-d tangent (see above)
    check(
        lambda lib, v: lib.norm_except_dim(v, 2, dim),
        randn(shape),
        dtype=dtype,
        forward=dim != -1,
    )


def test_weight_norm_errors_as_torch():
    assert_same_error(lambda lib: lib._weight_norm(lib.ones(2, 3), lib.ones(2, 1), 5))
    assert_same_error(lambda lib: lib.norm_except_dim(lib.ones(2, 3), 2, -3))


# ----- nn.utils.parametrize --------------------------------------------------------------------


def parametrizations(lib):
    nn = lib.nn

    class Symmetric(nn.Module):
        """X.triu() + X.triu(1).T, its right inverse X.triu()."""

        def forward(self, x):
            return x.triu() + x.triu(1).transpose(-1, -2)

        def right_inverse(self, a):
            return a.triu()

    class Scale(nn.Module):
        """2·X, no right inverse."""

        def forward(self, x):
            return x * 2

    class Split(nn.Module):
        """A + B from two originals; the right inverse gives (X/2, X/2)."""

        def forward(self, a, b):
            return a + b

        def right_inverse(self, x):
            return x / 2, x / 2

    class Reshape(nn.Module):
        def forward(self, x):
            return x.reshape(-1)

    return Symmetric, Scale, Split, Reshape


def square(lib):
    """An Affine layer (nn_models) with a 3x3 weight."""
    return affine(lib, 3, 3)


def _run(lib, m):
    x = lib.tensor(arr(2, 3, seed=4), requires_grad=True)
    out = m(x)
    out.backward(lib.tensor(arr(2, 3, seed=5)))
    return out, x.grad


def _grads(m):
    return {n: p.grad for n, p in m.named_parameters()}


def _register(lib):
    P = lib.nn.utils.parametrize
    Symmetric, Scale, _, _ = parametrizations(lib)
    m = square(lib)
    P.register_parametrization(m, "weight", Symmetric())
    out = [type(m).__name__, P.type_before_parametrizations(m).__name__, str(m)]
    out += [list(m.state_dict()), [n for n, _ in m.named_parameters()]]
    out += [P.is_parametrized(m), P.is_parametrized(m, "weight"), P.is_parametrized(m, "bias")]
    out += [m.weight, m.parametrizations.weight.original, _run(lib, m), _grads(m)]
    out.append(m.weight.grad_fn.name())
    P.register_parametrization(m, "weight", Scale())  # stacked
    out += [str(m), m.weight, list(m.state_dict())]
    P.register_parametrization(m, "bias", Scale())
    out += [list(m.state_dict()), m.bias, type(m.parametrizations).__name__]
    return out


def test_register_parametrization_as_torch():
    compare(_register, rtol=1e-6, atol=1e-6)


def _assign_and_cache(lib):
    P = lib.nn.utils.parametrize
    Symmetric, _, _, _ = parametrizations(lib)
    m = square(lib)
    P.register_parametrization(m, "weight", Symmetric())
    original = m.parametrizations.weight.original
    m.weight = lib.tensor(arr(3, 3, seed=9))  # right_inverse: the upper triangle
    out = [m.weight, original is m.parametrizations.weight.original, original]
    with P.cached():
        first = m.weight
        out.append(first is m.weight)
    out.append(first is m.weight)
    return out


def test_assignment_runs_right_inverse_and_cached_computes_once():
    compare(_assign_and_cache, rtol=1e-6)


def _sequence_originals(lib):
    P = lib.nn.utils.parametrize
    _, _, Split, _ = parametrizations(lib)
    m = square(lib)
    P.register_parametrization(m, "weight", Split())
    out = [list(m.state_dict()), m.weight, m.parametrizations.weight.original1, _run(lib, m)]
    out.append(_grads(m))
    m.weight = lib.tensor(arr(3, 3, seed=2))
    out.append(m.parametrizations.weight.original0)
    P.remove_parametrizations(m, "weight")
    out += [type(m).__name__, list(m.state_dict()), m.weight, type(m.weight).__name__]
    return out


def test_a_right_inverse_giving_several_originals():
    compare(_sequence_originals, rtol=1e-6)


@pytest.mark.parametrize("leave", [True, False])
def test_remove_parametrizations_as_torch(leave):
    for lib in (cr, torch):
        P = lib.nn.utils.parametrize
        Symmetric, _, _, _ = parametrizations(lib)
        m = square(lib)
        cls = type(m)
        P.register_parametrization(m, "weight", Symmetric())
        assert type(m) is not cls and type(m).__bases__ == (cls,)

    def scenario(lib):
        P = lib.nn.utils.parametrize
        Symmetric, Scale, _, _ = parametrizations(lib)
        m = square(lib)
        cls = type(m)
        P.register_parametrization(m, "weight", Symmetric())
        P.register_parametrization(m, "bias", Scale())
        P.remove_parametrizations(m, "weight", leave_parametrized=leave)
        out = [type(m).__name__, list(m.state_dict()), m.weight, type(m.weight).__name__]
        P.remove_parametrizations(m, "bias", leave_parametrized=leave)
        out += [type(m) is cls, hasattr(m, "parametrizations"), list(m.state_dict()), m.bias]
        out.append(str(m))
        return out

    compare(scenario, rtol=1e-6)


def _param_errors():
    def P(lib):
        return lib.nn.utils.parametrize

    def make(lib, which, name="weight", **kw):
        m = square(lib)
        cls = parametrizations(lib)[which]
        return P(lib).register_parametrization(m, name, cls(), **kw)

    def stacked_shape(lib):
        m = make(lib, 0)
        P(lib).register_parametrization(m, "weight", parametrizations(lib)[3]())

    def no_inverse(lib):
        m = make(lib, 1)
        m.weight = lib.ones(3, 3)

    def leave_sequence(lib):
        m = make(lib, 2)
        P(lib).remove_parametrizations(m, "weight", leave_parametrized=False)

    return {
        "no_such_tensor": lambda lib: make(lib, 0, "nope"),
        "shape_changes": lambda lib: make(lib, 3),
        "stacked_shape_changes": stacked_shape,
        "no_right_inverse": no_inverse,
        "leave_sequence_unparametrized": leave_sequence,
        "remove_unparametrized": lambda lib: P(lib).remove_parametrizations(square(lib), "bias"),
        "empty_list": lambda lib: P(lib).ParametrizationList([], lib.ones(2)),
    }


PARAM_ERRORS = _param_errors()


@pytest.mark.parametrize("name", PARAM_ERRORS)
def test_parametrize_errors_as_torch(name):
    assert_same_error(PARAM_ERRORS[name])


def test_unsafe_allows_a_shape_change():
    def fn(lib):
        P = lib.nn.utils.parametrize
        m = square(lib)
        P.register_parametrization(m, "weight", parametrizations(lib)[3](), unsafe=True)
        return m.weight, m.parametrizations.weight.unsafe

    compare(fn)


def test_transfer_parametrizations_and_params():
    def fn(lib):
        P = lib.nn.utils.parametrize
        a, b = square(lib), affine(lib, 3, 3, seed=7)
        P.register_parametrization(a, "weight", parametrizations(lib)[0]())
        P.transfer_parametrizations_and_params(a, b)
        shared = b.parametrizations.weight.original is a.parametrizations.weight.original
        return b.weight, shared, list(b.state_dict()), type(b).__name__

    compare(fn)


def test_parametrized_modules_refuse_pickling_as_torch():
    import pickle

    def fn(lib):
        m = square(lib)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", parametrizations(lib)[0]())
        pickle.dumps(m)

    assert_same_error(fn)


def test_parametrized_modules_deepcopy():
    import copy

    def fn(lib):
        m = square(lib)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", parametrizations(lib)[0]())
        c = copy.deepcopy(m)
        return (
            c.weight,
            type(c).__name__,
            c.parametrizations.weight.original is not (m.parametrizations.weight.original),
        )

    compare(fn)


# ----- parametrizations.weight_norm ------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("dim", [0, 1, None, -1])
def test_weight_norm_parametrization_as_torch(dim, dtype):
    def fn(lib):
        m = affine(lib, 4, 3).to(getattr(lib, np.dtype(dtype).name))
        lib.nn.utils.parametrizations.weight_norm(m, dim=dim)
        sd = m.state_dict()
        x = lib.tensor(arr(2, 4, seed=4, dtype=dtype), requires_grad=True)
        out = m(x)
        out.backward(lib.tensor(arr(2, 3, seed=5, dtype=dtype)))
        return [str(m), list(sd), {k: v for k, v in sd.items()}, out, x.grad, _grads(m)] + [
            m.weight.grad_fn.name(),
            m.parametrizations.weight[0].dim,
        ]

    tol = 1e-5 if dtype is np.float32 else 1e-12
    compare(fn, rtol=tol, atol=tol)


def test_weight_norm_loads_an_old_style_state_dict():
    def fn(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            old = lib.nn.utils.weight_norm(affine(lib, 4, 3, seed=3))
        sd = old.state_dict()
        m = lib.nn.utils.parametrizations.weight_norm(affine(lib, 4, 3))
        result = m.load_state_dict(sd)
        return str(result), m.weight, old.weight

    compare(fn, rtol=1e-6)


# ----- parametrizations.spectral_norm ----------------------------------------------------------


def _copy_buffers(src, dst):
    """torch's power-iteration vectors into chainrule's module (their random draws differ)."""
    for name, b in src.named_buffers():
        dict(dst.named_buffers())[name].copy_(cr.tensor(b.detach().numpy().copy()))


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("dim", [0, 1])
def test_spectral_norm_parametrization_as_torch(dim, training, dtype):
    tdt = {np.float32: "float32", np.float64: "float64"}[dtype]
    torch.manual_seed(0)  # (torch's power-iteration vectors, copied: as in the test below)
    ms = {}
    for lib in (cr, torch):
        m = affine(lib, 4, 3).to(getattr(lib, tdt))
        ms[lib.__name__] = lib.nn.utils.parametrizations.spectral_norm(m, dim=dim)
    _copy_buffers(ms["torch"], ms["chainrule"])

    def fn(lib):
        m = ms[lib.__name__]
        m.train(training)
        sd = m.state_dict()
        x = lib.tensor(arr(2, 4, seed=4, dtype=dtype), requires_grad=True)
        out = m(x)
        out.backward(lib.tensor(arr(2, 3, seed=5, dtype=dtype)))
        return [str(m), list(sd), out, x.grad, _grads(m), dict(m.named_buffers())] + [
            m.weight.grad_fn.name(),
            m.parametrizations.weight[0].dim,
        ]

    tol = 1e-5 if dtype is np.float32 else 1e-10
    compare(fn, rtol=tol, atol=tol)


def test_spectral_norm_gives_spectral_norm_one_after_its_iterations():
    m = cr.nn.utils.parametrizations.spectral_norm(affine(cr, 6, 5), n_power_iterations=30)
    m.train()
    for _ in range(5):
        m(cr.ones(1, 6))
    sigma = np.linalg.svd(m.weight.detach().numpy(), compute_uv=False)[0]
    np.testing.assert_allclose(sigma, 1.0, rtol=1e-4)
    u, v = m.parametrizations.weight[0]._u, m.parametrizations.weight[0]._v
    np.testing.assert_allclose(np.linalg.norm(u.numpy()), 1.0, rtol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(v.numpy()), 1.0, rtol=1e-5)


SPECTRAL_ERRORS = {
    "no_tensor": lambda lib: lib.nn.utils.parametrizations.spectral_norm(affine(lib), "nope"),
    "dim": lambda lib: lib.nn.utils.parametrizations.spectral_norm(affine(lib), dim=2),
    "iterations": lambda lib: lib.nn.utils.parametrizations.spectral_norm(
        affine(lib), n_power_iterations=0
    ),
    "old_iterations": lambda lib: lib.nn.utils.spectral_norm(affine(lib), n_power_iterations=0),
    "old_twice": lambda lib: lib.nn.utils.spectral_norm(lib.nn.utils.spectral_norm(affine(lib))),
    "old_remove_missing": lambda lib: lib.nn.utils.remove_spectral_norm(affine(lib)),
    "old_wn_remove_missing": lambda lib: lib.nn.utils.remove_weight_norm(affine(lib)),
}


@pytest.mark.parametrize("name", SPECTRAL_ERRORS)
def test_normalization_errors_as_torch(name):
    assert_same_error(SPECTRAL_ERRORS[name])


def test_old_weight_norm_twice_errors_as_torch():
    def fn(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            lib.nn.utils.weight_norm(lib.nn.utils.weight_norm(affine(lib)))

    assert_same_error(fn)


# ----- the old hooks: nn.utils.weight_norm, nn.utils.spectral_norm -----------------------------


@pytest.mark.parametrize("dim", [0, 1, None])
def test_old_weight_norm_as_torch(dim):
    def fn(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m = lib.nn.utils.weight_norm(affine(lib, 4, 3), dim=dim)
        messages = [(str(w.message), w.category.__name__) for w in caught]
        sd = m.state_dict()
        x = lib.tensor(arr(2, 4, seed=4), requires_grad=True)
        out = m(x)
        out.backward(lib.tensor(arr(2, 3, seed=5)))
        result = [messages, str(m), list(sd), {k: v for k, v in sd.items()}, out, x.grad]
        result += [_grads(m), m.weight.grad_fn.name()]
        lib.nn.utils.remove_weight_norm(m)
        result += [list(m.state_dict()), m.weight, type(m.weight).__name__]
        result.append(len(m._forward_pre_hooks))
        return result

    compare(fn, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("training", [True, False])
def test_old_spectral_norm_as_torch(training):
    # torch's power-iteration vectors (copied into chainrule's) drawn from a fixed seed: from
    # whatever state the tests before left, σ = uᵀ W v can come out near 0 and the outputs,
    # W / σ x, differ past the tolerance by rounding alone (seen: 1845 against 1845.1)
    torch.manual_seed(0)
    ms = {lib.__name__: lib.nn.utils.spectral_norm(affine(lib, 4, 3)) for lib in (cr, torch)}
    _copy_buffers(ms["torch"], ms["chainrule"])

    def fn(lib):
        m = ms[lib.__name__]
        m.train(training)
        sd = m.state_dict()
        x = lib.tensor(arr(2, 4, seed=4), requires_grad=True)
        out = m(x)
        out.backward(lib.tensor(arr(2, 3, seed=5)))
        result = [str(m), list(sd), dict(sd._metadata), out, x.grad, _grads(m)]
        result += [dict(m.named_buffers()), m.weight.grad_fn.name()]
        lib.nn.utils.remove_spectral_norm(m)
        result += [list(m.state_dict()), m.weight, len(m._forward_pre_hooks)]
        result.append(len(m._state_dict_hooks))
        return result

    compare(fn, rtol=1e-5, atol=1e-6)


def test_old_spectral_norm_state_dict_round_trip():
    def fn(lib):
        a = lib.nn.utils.spectral_norm(affine(lib, 4, 3))
        b = lib.nn.utils.spectral_norm(affine(lib, 4, 3, seed=8))
        result = b.load_state_dict(a.state_dict())
        b.eval()
        a.eval()
        x = lib.ones(1, 4)
        return str(result), bool((a(x) == b(x)).all())

    got, want = fn(cr), fn(torch)
    assert got == want
    assert_close(got, want)


# ----- parametrizations.orthogonal -------------------------------------------------------------

# (weight shape (out, in), orthogonal_map): square, tall and wide, each map
ORTHOGONAL = [((3, 3), None), ((3, 3), "cayley"), ((3, 3), "householder"), ((4, 3), None)]
ORTHOGONAL += [((3, 5), None), ((3, 5), "matrix_exp"), ((4, 3), "cayley")]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("case", ORTHOGONAL, ids=lambda c: f"{c[0][0]}x{c[0][1]}-{c[1]}")
def test_orthogonal_as_torch(case, dtype):
    (n_out, n_in), orthogonal_map = case
    tdt = {np.float32: "float32", np.float64: "float64"}[dtype]
    torch.manual_seed(0)  # (torch's power-iteration vectors, copied: as in the test below)
    ms = {}
    for lib in (cr, torch):
        m = affine(lib, n_in, n_out).to(getattr(lib, tdt))
        ms[lib.__name__] = lib.nn.utils.parametrizations.orthogonal(
            m, orthogonal_map=orthogonal_map
        )
    # a non-square weight is completed to a square base by random columns: torch's into ours
    _copy_buffers(ms["torch"], ms["chainrule"])

    def fn(lib):
        m = ms[lib.__name__]
        x = lib.tensor(arr(2, n_in, seed=4, dtype=dtype), requires_grad=True)
        out = m(x)
        out.backward(lib.tensor(arr(2, n_out, seed=5, dtype=dtype)))
        w = m.weight.detach().numpy()
        gram = w @ w.T if n_out < n_in else w.T @ w
        orthonormal = bool(np.allclose(gram, np.eye(min(n_in, n_out)), atol=1e-5))
        return [str(m), list(m.state_dict()), out, x.grad, _grads(m), orthonormal]

    tol = 2e-5 if dtype is np.float32 else 1e-10
    compare(fn, rtol=tol, atol=tol)


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
def test_orthogonal_assignment_and_no_trivialization(orthogonal_map):
    def fn(lib):
        P = lib.nn.utils.parametrizations
        m = P.orthogonal(affine(lib, 3, 3), orthogonal_map=orthogonal_map)
        q = lib.linalg.qr(lib.tensor(arr(3, 3, seed=6)))[0]
        m.weight = q  # right_inverse: q becomes the base
        out = [m.weight, m.parametrizations.weight[0].base]
        plain = P.orthogonal(
            affine(lib, 3, 3), orthogonal_map=orthogonal_map, use_trivialization=False
        )
        out += [plain.weight, list(plain.state_dict())]
        return out

    compare(fn, rtol=1e-5, atol=1e-6)


ORTHOGONAL_ERRORS = {
    "vector": lambda lib: lib.nn.utils.parametrizations.orthogonal(affine(lib), "bias"),
    "missing": lambda lib: lib.nn.utils.parametrizations.orthogonal(affine(lib), "nope"),
    "map": lambda lib: lib.nn.utils.parametrizations.orthogonal(affine(lib), "weight", "qr"),
    "assign_shape": lambda lib: setattr(
        lib.nn.utils.parametrizations.orthogonal(affine(lib, 3, 3)), "weight", lib.ones(2, 2)
    ),
    "assign_without_base": lambda lib: setattr(
        lib.nn.utils.parametrizations.orthogonal(affine(lib, 3, 3), use_trivialization=False),
        "weight",
        lib.eye(3),
    ),
}


@pytest.mark.parametrize("name", ORTHOGONAL_ERRORS)
def test_orthogonal_errors_as_torch(name):
    assert_same_error(ORTHOGONAL_ERRORS[name])
