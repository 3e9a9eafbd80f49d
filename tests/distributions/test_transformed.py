"""``TransformedDistribution``, the elementwise transforms and ``LogNormal`` against
PyTorch: log densities pulled back through the transforms, their gradients, entropies and
moments, supports, the inverse transforms and their cache, KL, errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import compare, error_of


def _t(lib, values):
    return lib.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)


def _params(lib):
    return _t(lib, [0.5, -1.0]), _t(lib, [1.5, 0.3])


def _T(lib):
    return lib.distributions.transforms


CASES = {
    "lognormal": (
        lambda L, loc, scale: L.distributions.LogNormal(loc, scale),
        [[0.5, 2.0], [1.3, 0.1]],
    ),
    "tanh of a normal": (
        lambda L, loc, scale: L.distributions.TransformedDistribution(
            L.distributions.Normal(loc, scale), [_T(L).TanhTransform()]
        ),
        [[0.3, -0.9], [0.99, 0.0]],
    ),
    "affine then exp": (
        lambda L, loc, scale: L.distributions.TransformedDistribution(
            L.distributions.Normal(loc, scale),
            [_T(L).AffineTransform(1.0, 2.0), _T(L).ExpTransform()],
        ),
        [[0.5, 2.0], [1.3, 0.1]],
    ),
    "tensor affine": (
        lambda L, loc, scale: L.distributions.TransformedDistribution(
            L.distributions.Normal(loc, scale), _T(L).AffineTransform(loc * 0 + 0.5, scale * 2)
        ),
        [[0.5, 2.0], [-1.3, 0.1]],
    ),
    "logit of a uniform": (
        lambda L, loc, scale: L.distributions.TransformedDistribution(
            L.distributions.Uniform(loc - 2, loc + 2), [_T(L).SigmoidTransform()]
        ),
        [[0.3, 0.2], [0.9, 0.05]],
    ),
    "a composition": (
        lambda L, loc, scale: L.distributions.TransformedDistribution(
            L.distributions.Normal(loc, scale),
            _T(L).ComposeTransform([_T(L).AffineTransform(0.0, 3.0), _T(L).SigmoidTransform()]),
        ),
        [[0.3, 0.6], [0.01, 0.99]],
    ),
    "an inverse": (
        lambda L, loc, scale: L.distributions.TransformedDistribution(
            L.distributions.Uniform(loc * 0, loc * 0 + 1), [_T(L).SigmoidTransform().inv]
        ),
        [[0.3, -0.2], [4.0, -3.0]],
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_log_prob_and_gradients_as_torch(name):
    make, values = CASES[name]

    def run(lib):
        loc, scale = _params(lib)
        d = make(lib, loc, scale)
        lp = d.log_prob(lib.tensor(np.asarray(values)))
        out = [repr(d), repr(d.support), tuple(d.batch_shape), tuple(d.event_shape), lp]
        if name == "lognormal":
            out += [d.entropy(), d.mean, d.mode, d.variance]
        total = sum(v.sum() for v in out if isinstance(v, lib.Tensor))
        return out, lib.autograd.grad(total, [loc, scale], allow_unused=True)

    compare(run, rtol=1e-12, atol=1e-14)


def test_lognormal_kl_as_torch():
    def run(lib):
        loc, scale = _params(lib)
        D = lib.distributions
        return D.kl_divergence(D.LogNormal(loc, scale), D.LogNormal(0.0, 1.0))

    compare(run, rtol=1e-12)


def test_the_cache_gives_back_the_exact_input():
    for lib in (torch, cr):
        t = _T(lib).TanhTransform(cache_size=1)
        x = lib.tensor([20.0], dtype=lib.float64)
        y = t(x)
        assert t.inv(y) is x and t.inv.inv is t
        assert repr(t.inv) == "_InverseTransform(TanhTransform())"


def test_samples_lie_in_the_support_and_rsample_is_differentiable():
    cr.manual_seed(0)
    loc, scale = _params(cr)
    d = cr.distributions.TransformedDistribution(
        cr.distributions.Normal(loc, scale), [_T(cr).TanhTransform()]
    )
    s = d.sample((1000,))
    assert tuple(s.shape) == (1000, 2) and (s.abs() < 1).all() and not s.requires_grad
    r = cr.distributions.LogNormal(loc, scale).rsample((5,))
    assert r.requires_grad and (r > 0).all()
    r.sum().backward()
    assert loc.grad is not None and scale.grad is not None


ERRORS = {
    "not a transform": lambda L: L.distributions.TransformedDistribution(
        L.distributions.Normal(0.0, 1.0), 3
    ),
    "a list of other things": lambda L: L.distributions.TransformedDistribution(
        L.distributions.Normal(0.0, 1.0), [3]
    ),
    "a negative scale": lambda L: L.distributions.LogNormal(0.0, -1.0),
    "a value outside the support": lambda L: L.distributions.LogNormal(0.0, 1.0).log_prob(
        L.tensor([-1.0])
    ),
    "a cache of 2": lambda L: _T(L).TanhTransform(cache_size=2),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    want, got = error_of(ERRORS[name], torch), error_of(ERRORS[name], cr)
    assert (type(got), str(got)) == (type(want), str(want))


# ----- every transform against torch ---------------------------------------------------


def _x(values):
    return np.asarray(values, dtype=np.float64)


X23 = _x([[0.3, -1.2, 2.0], [0.7, 0.1, -0.4]])
POS23 = _x([[0.3, 1.2, 2.0], [0.7, 0.1, 3.4]])
M33 = _x(
    [
        [[0.3, 0.5, -0.2], [1.2, -0.4, 0.6], [0.1, 2.0, 0.25]],
        [[-0.7, 0.0, 1.0], [0.8, 0.9, -1.1], [-0.5, 0.3, 0.4]],
    ]
)


def _p(lib, values):
    return lib.tensor(_x(values), requires_grad=True)


# name: (the transform of torch's or chainrule's module, the input x in its domain)
TRANSFORMS = {
    "exp": (lambda L, T: T.ExpTransform(), X23),
    "affine of numbers": (lambda L, T: T.AffineTransform(1.0, -2.0), X23),
    "affine of tensors": (
        lambda L, T: T.AffineTransform(_p(L, [0.5, -1.0, 0.0]), _p(L, [2.0, -0.5, 3.0])),
        X23,
    ),
    "affine over vectors": (
        lambda L, T: T.AffineTransform(_p(L, [0.5, -1.0, 0.0]), _p(L, [2.0, -0.5, 3.0]), 1),
        X23,
    ),
    "affine over matrices": (lambda L, T: T.AffineTransform(1.0, 3.0, event_dim=2), X23),
    "abs": (lambda L, T: T.AbsTransform(), X23),
    "power": (lambda L, T: T.PowerTransform(_p(L, [0.5, 2.0, -1.5])), POS23),
    "power of a number": (lambda L, T: T.PowerTransform(3.0), POS23),
    "sigmoid": (lambda L, T: T.SigmoidTransform(), X23),
    "tanh": (lambda L, T: T.TanhTransform(), X23),
    "softplus": (lambda L, T: T.SoftplusTransform(), X23),
    "softmax": (lambda L, T: T.SoftmaxTransform(), X23),
    "stick breaking": (lambda L, T: T.StickBreakingTransform(), X23),
    "lower cholesky": (lambda L, T: T.LowerCholeskyTransform(), M33),
    "positive definite": (lambda L, T: T.PositiveDefiniteTransform(), M33),
    "corr cholesky": (lambda L, T: T.CorrCholeskyTransform(), X23),
    "corr cholesky of 4": (
        lambda L, T: T.CorrCholeskyTransform(),
        _x([0.3, -1.2, 2.0, 0.7, 0.1, -0.4]),
    ),
    "reshape": (lambda L, T: T.ReshapeTransform((2, 3), (3, 2)), M33[:, :2]),
    "independent": (lambda L, T: T.IndependentTransform(T.SigmoidTransform(), 2), X23),
    "cat": (
        lambda L, T: T.CatTransform(
            [T.ExpTransform(), T.identity_transform, T.TanhTransform()], -1, [1, 1, 1]
        ),
        X23,
    ),
    "cat along dim 0": (
        lambda L, T: T.CatTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)], 0, [1, 1]),
        X23,
    ),
    "cat of vector transforms": (
        lambda L, T: T.CatTransform(
            [T.IndependentTransform(T.ExpTransform(), 1), T.AffineTransform(0.0, 2.0, 1)],
            -1,
            [2, 1],
        ),
        X23,
    ),
    "stack": (
        lambda L, T: T.StackTransform(
            [T.ExpTransform(), T.SigmoidTransform(), T.AffineTransform(1.0, -2.0)], dim=1
        ),
        X23,
    ),
    "cumulative distribution": (
        lambda L, T: T.CumulativeDistributionTransform(
            L.distributions.Normal(_p(L, [0.5, -1.0, 0.0]), _p(L, [2.0, 0.5, 3.0]))
        ),
        X23,
    ),
    "compose changing event dims": (
        lambda L, T: T.ComposeTransform(
            [T.AffineTransform(_p(L, [0.5, -1.0, 0.0]), 2.0), T.StickBreakingTransform()]
        ),
        X23,
    ),
    "compose with a cache": (
        lambda L, T: T.ComposeTransform(
            [T.ExpTransform(), T.AffineTransform(1.0, 2.0)], cache_size=1
        ),
        X23,
    ),
    "identity": (lambda L, T: T.identity_transform, X23),
    "an inverse": (
        lambda L, T: T.StickBreakingTransform().inv,
        _x([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]),
    ),
    "an inverse of an elementwise one": (lambda L, T: T.TanhTransform().inv, X23 / 3),
}

NOT_INJECTIVE = ("abs", "softmax", "lower cholesky", "positive definite")


def _attempt(fn):
    """fn()'s value, or the type and message of what it raised (compared as such)."""
    try:
        return fn()
    except (NotImplementedError, ValueError) as exc:
        return (type(exc).__name__, str(exc))


def _parameters(lib, obj):
    """The tensors requiring grad that a transform holds, also in its parts, its
    distribution, its inverse's transform."""
    found, todo, seen = {}, [obj], set()
    while todo:
        o = todo.pop()
        if id(o) in seen:
            continue
        seen.add(id(o))
        for v in vars(o).values():
            if isinstance(v, lib.Tensor) and v.requires_grad:
                found[id(v)] = v
            elif isinstance(v, (list, tuple)):
                todo.extend(p for p in v if hasattr(p, "__dict__"))
            elif isinstance(v, (_T(lib).Transform, lib.distributions.Distribution)):
                todo.append(v)
    return list(found.values())


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transforms_as_torch(name):
    make, x0 = TRANSFORMS[name]

    def run(lib):
        T = _T(lib)
        t = make(lib, T)
        x = lib.tensor(x0, requires_grad=True)
        y = t(x)
        back = t.inv(y)
        out = {
            "repr": repr(t),
            "domain": repr(t.domain),
            "codomain": repr(t.codomain),
            "bijective": t.bijective,
            "event_dim": _attempt(lambda: t.event_dim),
            "sign": _attempt(lambda: t.sign),
            "forward_shape": tuple(t.forward_shape(x.shape)),
            "inverse_shape": tuple(t.inverse_shape(y.shape)),
            "y": y,
            "back": back,
            "in the codomain": bool(t.codomain.check(y).all()),
        }
        if name not in NOT_INJECTIVE:
            out["log_abs_det_jacobian"] = t.log_abs_det_jacobian(x, y)
        leaves = [x] + _parameters(lib, t)
        total = sum(v.sum() for v in (y, back, out.get("log_abs_det_jacobian", y)))
        return out, lib.autograd.grad(total, leaves, allow_unused=True)

    compare(run, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", [n for n in TRANSFORMS if n not in NOT_INJECTIVE])
def test_a_round_trip_gives_back_the_input(name):
    make, x0 = TRANSFORMS[name]
    t = make(cr, _T(cr))
    x = cr.tensor(x0)
    # (a number exponent is a float32 tensor, as in PyTorch: 1/3 of it is rounded)
    rtol = 1e-6 if name == "power of a number" else 1e-10
    np.testing.assert_allclose(t.inv(t(x)).detach().numpy(), x0, rtol=rtol, atol=1e-12)


def test_log_abs_det_jacobian_is_the_log_determinant_of_the_jacobian():
    # the stick-breaking map R^3 -> its first 3 coordinates, and the corr-cholesky map
    # R^3 -> the strict lower triangle, are square: their log |det J| from autograd
    T = _T(cr)
    x = cr.tensor(X23[0])
    for t, pick in (
        (T.StickBreakingTransform(), lambda y: y[:-1]),
        (T.CorrCholeskyTransform(), lambda y: y[[1, 2, 2], [0, 0, 1]]),
    ):
        jac = cr.autograd.functional.jacobian(lambda v, t=t, pick=pick: pick(t(v)), x).numpy()
        want = np.log(abs(np.linalg.det(jac)))
        np.testing.assert_allclose(t.log_abs_det_jacobian(x, t(x)).item(), want, rtol=1e-10)


def test_equality_caches_and_with_cache_as_torch():
    def run(lib):
        T = _T(lib)
        a = T.AffineTransform(1.0, 2.0)
        p = T.PowerTransform(lib.tensor([2.0, 3.0]))
        out = [
            T.ExpTransform() == T.ExpTransform(),
            T.ExpTransform() != T.SigmoidTransform(),
            a == T.AffineTransform(1.0, 2.0),
            a == T.AffineTransform(1.0, 3.0),
            p == T.PowerTransform(lib.tensor([2.0, 3.0])),
            T.ComposeTransform([a, T.ExpTransform()]) == T.ComposeTransform([a, T.ExpTransform()]),
            T.ExpTransform().inv == T.ExpTransform().inv,
            T.ReshapeTransform((4,), (2, 2)) == T.ReshapeTransform((4,), (2, 2)),
            T.StickBreakingTransform() == T.StickBreakingTransform(),
            T.CorrCholeskyTransform() == T.CorrCholeskyTransform(),
        ]
        for t in (
            T.ExpTransform(),
            a,
            p,
            T.ComposeTransform([a]),
            T.IndependentTransform(T.ExpTransform(), 1),
            T.ReshapeTransform((4,), (2, 2)),
            T.ExpTransform().inv,
            T.CatTransform([T.ExpTransform()]),
            T.StackTransform([T.ExpTransform()]),
        ):
            c = t.with_cache(1)
            out += [type(c).__name__, c._cache_size, c.with_cache(1) is c, t.with_cache(0) is t]
        out.append(T.ComposeTransform([a, T.ExpTransform()]).with_cache(1).parts[0]._cache_size)
        out.append(T.ComposeTransform([a]).inv.inv.parts == [a])
        return out

    compare(run)


def test_the_cache_keeps_the_last_pair_through_inverses_and_compositions():
    T = _T(cr)
    t = T.ComposeTransform([T.AffineTransform(0.0, 2.0), T.TanhTransform()], cache_size=1)
    x = cr.tensor([20.0], dtype=cr.float64)
    y = t(x)
    assert float(y) == 1.0  # (tanh saturates: without the cache atanh(1) = inf)
    assert float(t.inv(y)) == 20.0


TRANSFORM_ERRORS = {
    "reshape of other sizes": lambda L: _T(L).ReshapeTransform((2, 3), (4,)),
    "a reshape forward shape too short": lambda L: (
        _T(L).ReshapeTransform((2, 3), (6,)).forward_shape((3,))
    ),
    "a reshape shape mismatch": lambda L: (
        _T(L).ReshapeTransform((2, 3), (6,)).forward_shape((3, 2))
    ),
    "corr cholesky of a length that is no triangle": lambda L: _T(L).CorrCholeskyTransform()(
        L.zeros(5)
    ),
    "corr cholesky of a triangle number too many": lambda L: _T(L).CorrCholeskyTransform()(
        L.zeros(4)
    ),
    "corr cholesky inverse shape not square": lambda L: (
        _T(L).CorrCholeskyTransform().inverse_shape((2, 3))
    ),
    "stick breaking of a scalar shape": lambda L: _T(L).StickBreakingTransform().forward_shape(()),
    "event_dim of a transform changing it": lambda L: (
        _T(L).ComposeTransform([_T(L).ReshapeTransform((4,), (2, 2))]).event_dim
    ),
    "sign of a non-monotone transform": lambda L: _T(L).SoftmaxTransform().sign,
    "with_cache of a transform without it": lambda L: _T(L).ExpTransform().with_cache(2),
    "independent of too few dims": lambda L: _T(L).IndependentTransform(_T(L).ExpTransform(), 2)(
        L.zeros(3)
    ),
    "cat of the wrong length": lambda L: _T(L).CatTransform([_T(L).ExpTransform()] * 2, 0)(
        L.zeros(3)
    ),
    "stack of a dim out of range": lambda L: _T(L).StackTransform([_T(L).ExpTransform()], 2)(
        L.zeros(3)
    ),
    "cat of things that are not transforms": lambda L: _T(L).CatTransform([1]),
    "transformed base with too few dims": lambda L: L.distributions.TransformedDistribution(
        L.distributions.Normal(0.0, 1.0), [_T(L).StickBreakingTransform()]
    ),
}


@pytest.mark.parametrize("name", list(TRANSFORM_ERRORS))
def test_transform_errors_as_torch(name):
    want, got = error_of(TRANSFORM_ERRORS[name], torch), error_of(TRANSFORM_ERRORS[name], cr)
    assert (type(got), str(got)) == (type(want), str(want))


# ----- biject_to and transform_to ------------------------------------------------------


# name: (the constraint, the unconstrained input, whether biject_to registers it)
CONSTRAINTS = {
    "real": (lambda C, L: C.real, X23, True),
    "real vector": (lambda C, L: C.real_vector, X23, True),
    "independent positive": (lambda C, L: C.independent(C.positive, 2), X23, True),
    "positive": (lambda C, L: C.positive, X23, True),
    "nonnegative": (lambda C, L: C.nonnegative, X23, True),
    "greater than a tensor": (
        lambda C, L: C.greater_than(L.tensor([1.0, -2.0, 0.5], dtype=L.float64)),
        X23,
        True,
    ),
    "greater than or equal": (lambda C, L: C.greater_than_eq(2.0), X23, True),
    "less than": (lambda C, L: C.less_than(-1.0), X23, True),
    "unit interval": (lambda C, L: C.unit_interval, X23, True),
    "interval": (lambda C, L: C.interval(-2.0, 3.0), X23, True),
    "half open interval": (lambda C, L: C.half_open_interval(0.0, 2.0), X23, True),
    "simplex": (lambda C, L: C.simplex, X23, True),
    "lower cholesky": (lambda C, L: C.lower_cholesky, M33, False),
    "positive definite": (lambda C, L: C.positive_definite, M33, False),
    "positive semidefinite": (lambda C, L: C.positive_semidefinite, M33, False),
    "corr cholesky": (lambda C, L: C.corr_cholesky, X23, True),
    "cat": (lambda C, L: C.cat([C.positive, C.real], -1, [2, 1]), X23, True),
    "stack": (lambda C, L: C.stack([C.positive, C.unit_interval, C.real], -1), X23, True),
}


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name", list(CONSTRAINTS))
def test_constraint_registry_as_torch(registry, name):
    make, u0, bijective = CONSTRAINTS[name]
    if registry == "biject_to" and not bijective:
        want = error_of(
            lambda L: L.distributions.biject_to(make(L.distributions.constraints, L)), torch
        )
        got = error_of(
            lambda L: L.distributions.biject_to(make(L.distributions.constraints, L)), cr
        )
        assert (type(got), str(got)) == (type(want), str(want))
        return

    def run(lib):
        c = make(lib.distributions.constraints, lib)
        t = getattr(lib.distributions, registry)(c)
        u = lib.tensor(u0, requires_grad=True)
        y = t(u)
        out = {"repr": repr(t), "y": y, "satisfied": bool(c.check(y).all())}
        total = y.sum()
        if t.bijective:
            out["ladj"] = t.log_abs_det_jacobian(u, y)
            total = total + out["ladj"].sum()
        return out, lib.autograd.grad(total, [u])

    compare(run, rtol=1e-12, atol=1e-14)


def test_the_registries_are_the_package_names_and_take_new_factories():
    from chainrule.distributions import constraint_registry

    D = cr.distributions
    assert D.biject_to is constraint_registry.biject_to
    assert D.transform_to is D.constraint_registry.transform_to
    registry = constraint_registry.ConstraintRegistry()
    registry.register(D.constraints.positive, lambda c: D.transforms.SoftplusTransform())
    assert registry(D.constraints.greater_than(3.0)) == D.transforms.SoftplusTransform()
    for fn in (
        lambda L: L.distributions.constraint_registry.ConstraintRegistry().register(3, len),
    ):
        want, got = error_of(fn, torch), error_of(fn, cr)
        assert (type(got), str(got)) == (type(want), str(want))


# ----- distributions through transforms that change the event --------------------------


EVENT_CASES = {
    "stick breaking of a normal": (
        lambda L, loc, scale: L.distributions.TransformedDistribution(
            L.distributions.Normal(loc, scale), [_T(L).StickBreakingTransform()]
        ),
        [[0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.15, 0.05]],
    ),
    "a reshape": (
        lambda L, loc, scale: L.distributions.TransformedDistribution(
            L.distributions.Normal(loc, scale),
            [_T(L).ReshapeTransform((3,), (3, 1)), _T(L).ExpTransform()],
        ),
        [[[0.1], [0.2], [0.3]], [[1.7], [0.1], [2.5]]],
    ),
    "corr cholesky": (
        lambda L, loc, scale: L.distributions.TransformedDistribution(
            L.distributions.Normal(loc[0], scale[0]), _T(L).CorrCholeskyTransform()
        ),
        None,
    ),
    "an affine broadcasting the base": (
        lambda L, loc, scale: L.distributions.TransformedDistribution(
            L.distributions.Normal(loc, scale),
            _T(L).AffineTransform(L.zeros(4, 1, 1, dtype=L.float64), 2.0),
        ),
        [[0.1, 0.2, 0.3], [0.7, -0.1, 0.15]],
    ),
    "an affine over vectors of an mvn": (
        lambda L, loc, scale: L.distributions.TransformedDistribution(
            L.distributions.MultivariateNormal(loc, scale_tril=scale[0].diag_embed()),
            _T(L).AffineTransform(loc[0] * 0 + 1, scale[1], event_dim=1),
        ),
        [[0.1, 0.2, 0.3], [0.7, -0.1, 0.15]],
    ),
    "an independent transform": (
        lambda L, loc, scale: L.distributions.TransformedDistribution(
            L.distributions.Normal(loc, scale), _T(L).IndependentTransform(_T(L).ExpTransform(), 1)
        ),
        [[0.1, 0.2, 0.3], [0.7, 1.1, 0.15]],
    ),
}


def _event_params(lib):
    return _t(lib, [[0.5, -1.0, 0.2], [0.0, 1.0, 2.0]]), _t(lib, [[1.5, 0.3, 1.0], [1.0, 2.0, 0.5]])


@pytest.mark.parametrize("name", list(EVENT_CASES))
def test_transforms_changing_the_event_as_torch(name):
    make, values = EVENT_CASES[name]

    def run(lib):
        loc, scale = _event_params(lib)
        d = make(lib, loc, scale)
        if values is None:  # (a correlation factor, from the transform itself)
            value = _T(lib).CorrCholeskyTransform()(lib.tensor(X23[0], dtype=lib.float64))
        else:
            value = lib.tensor(np.asarray(values))
        e = d.expand((5,) + tuple(d.batch_shape))
        out = {
            "shapes": (tuple(d.batch_shape), tuple(d.event_shape)),
            "support": repr(d.support),
            "base": (repr(d.base_dist), tuple(d.base_dist.batch_shape)),
            "sample": tuple(d.sample((2,)).shape),
            "rsample": tuple(d.rsample().shape),
            "log_prob": d.log_prob(value),
            "expanded": (tuple(e.batch_shape), tuple(e.event_shape), tuple(e.sample().shape)),
            "expanded log_prob": e.log_prob(value),
        }
        total = out["log_prob"].sum() + out["expanded log_prob"].sum()
        return out, lib.autograd.grad(total, [loc, scale], allow_unused=True)

    compare(run, rtol=1e-12, atol=1e-14)


def test_cdf_and_icdf_through_decreasing_transforms_as_torch():
    def run(lib):
        loc, scale = _params(lib)
        D, T = lib.distributions, _T(lib)
        d = D.TransformedDistribution(
            D.Normal(loc, scale), [T.AffineTransform(1.0, -2.0), T.ExpTransform()]
        )
        e = D.TransformedDistribution(
            D.Normal(loc, scale), [T.AffineTransform(0.0, _t(lib, [-1.0, 2.0]))]
        )
        value = lib.tensor([0.5, 2.0], dtype=lib.float64)
        p = lib.tensor([0.1, 0.8], dtype=lib.float64)
        out = [d.cdf(value), d.icdf(p), e.cdf(value), e.icdf(p)]
        return out, lib.autograd.grad(sum(v.sum() for v in out), [loc, scale])

    compare(run, rtol=1e-12, atol=1e-14)


def test_lognormal_expand_as_torch():
    def run(lib):
        loc, scale = _params(lib)
        d = lib.distributions.LogNormal(loc, scale).expand((3, 2))
        lp = d.log_prob(lib.tensor([0.5, 2.0], dtype=lib.float64))
        out = [type(d).__name__, tuple(d.batch_shape), lp, d.mean, d.entropy()]
        return out, lib.autograd.grad(lp.sum() + d.mean.sum(), [loc, scale])

    compare(run, rtol=1e-12, atol=1e-14)
