"""``nn.utils`` and ``torch.func.functional_call`` against PyTorch's: gradient clipping by
total norm (every norm type, non-finite norms, mixed dtypes, empty inputs) and by value,
flattening parameters into a vector and back, and running a module with other
parameters (tied weights, strict keys, several dicts, gradients through it)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import chainrule as cr
from nn_models import affine, arr, net, tensor
from oracle import assert_same_error, compare


def with_grads(lib, dtypes=("float32", "float32", "float32")):
    """Three parameters of different shapes with gradients of different sizes."""
    params = []
    for i, (shape, dt) in enumerate(zip([(3, 2), (4,), (2, 2, 2)], dtypes, strict=True)):
        p = lib.nn.Parameter(tensor(lib, arr(*shape, seed=i, dtype=dt)))
        p.grad = tensor(lib, arr(*shape, seed=10 + i, dtype=dt) * (i + 1))
        params.append(p)
    return params


def grads(params) -> list:
    return [p.grad for p in params]


# ----- clipping -------------------------------------------------------------------------------


NORM_TYPES = [2, 2.0, 1, 3.5, 0.5, float("inf"), "inf", -float("inf")]


@pytest.mark.parametrize("norm_type", NORM_TYPES, ids=[str(n) for n in NORM_TYPES])
@pytest.mark.parametrize("max_norm", [0.1, 1.5, 100.0])
def test_clip_grad_norm(norm_type, max_norm):
    def fn(lib):
        params = with_grads(lib)
        total = lib.nn.utils.clip_grad_norm_(params, max_norm, norm_type=norm_type)
        return [total, grads(params)]

    compare(fn, rtol=2e-5, atol=1e-6)


def _clip_variants(lib):
    out = []
    params = with_grads(lib)
    out.append(lib.nn.utils.clip_grad_norm_(params[0], 0.1))  # one tensor
    params = with_grads(lib)
    out.append(lib.nn.utils.clip_grad_norm_(iter(params), 0.1, foreach=False))
    params = with_grads(lib)
    params[1].grad = None  # parameters without gradients are skipped
    out += [lib.nn.utils.clip_grad_norm_((p for p in params), 0.3), grads(params)]
    params = with_grads(lib, ("float64", "float32", "float64"))
    out += [lib.nn.utils.clip_grad_norm_(params, 1.0), grads(params)]
    out.append(lib.nn.utils.clip_grad_norm_([], 1.0))
    params = with_grads(lib)
    out.append(lib.nn.utils.get_total_norm(grads(params), 3.0))
    out.append(lib.nn.utils.get_total_norm([]))
    total = lib.nn.utils.get_total_norm(grads(params))
    out.append(lib.nn.utils.clip_grads_with_norm_(params, 0.5, total))
    out.append(grads(params))
    params = with_grads(lib)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out.append(lib.nn.utils.clip_grad_norm(params, 0.5))
    out.append([w.category.__name__ for w in caught])
    return out


def _non_finite_scaled_anyway(lib):
    params = with_grads(lib)
    params[0].grad[0, 0] = float("nan")
    total = lib.nn.utils.clip_grad_norm_(params, 1.0)
    return [total, grads(params)]


def _empty_generator_warns(lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib.nn.utils.clip_grad_norm_((p for p in []), 1.0)
    return [str(w.message) for w in caught]


def _clip_value(lib):
    params = with_grads(lib)
    params[2].grad = None
    result = lib.nn.utils.clip_grad_value_(params, 0.5)
    single = with_grads(lib)[1]
    lib.nn.utils.clip_grad_value_(single, 1, foreach=True)
    return [result, grads(params), single.grad]


def _no_graph(lib):
    """Clipping runs under no_grad: gradients that are part of a graph keep their node."""
    m = affine(lib)
    (m(tensor(lib, arr(4, 2))) ** 2).sum().backward(create_graph=True)
    before = m.weight.grad.grad_fn
    lib.nn.utils.clip_grad_norm_(m.parameters(), 0.01)
    return [before is not None, m.weight.grad.grad_fn is before, m.weight.grad]


CLIPPING = {
    "variants": _clip_variants,
    "non_finite_scaled_anyway": _non_finite_scaled_anyway,
    "empty_generator_warns": _empty_generator_warns,
    "clip_value": _clip_value,
    "no_graph": _no_graph,
}


@pytest.mark.parametrize("fn", CLIPPING.values(), ids=CLIPPING.keys())
def test_clipping_as_torch(fn):
    compare(fn, rtol=2e-5, atol=1e-6)


def _non_finite_error(value):
    def fn(lib):
        params = with_grads(lib)
        params[1].grad[2] = value
        lib.nn.utils.clip_grad_norm_(params, 1.0, norm_type=3, error_if_nonfinite=True)

    return fn


@pytest.mark.parametrize("value", [float("inf"), float("nan"), -float("inf")])
def test_clip_grad_norm_non_finite_error(value):
    assert_same_error(_non_finite_error(value))


# ----- vectors -------------------------------------------------------------------------------


def _to_vector_and_back(lib):
    m = net(lib)
    params = list(m.parameters())
    v = lib.nn.utils.parameters_to_vector(m.parameters())
    v.backward(tensor(lib, arr(*v.shape, seed=5)))
    new = (v.detach() * 2 + 1).clone()
    lib.nn.utils.vector_to_parameters(new, m.parameters())
    return [
        v,
        v.grad_fn.name(),
        [p.grad for p in params],
        list(m.parameters()),
        all(p is q for p, q in zip(params, m.parameters())),
        [type(p).__name__ for p in m.parameters()],
        [p.requires_grad for p in m.parameters()],
    ]


def _vector_shares_memory(lib):
    m = affine(lib)
    v = lib.zeros(9)
    lib.nn.utils.vector_to_parameters(v, m.parameters())
    v.add_(1)  # the parameters' data are views of v
    return list(m.parameters())


VECTORS = {"to_vector_and_back": _to_vector_and_back, "shares_memory": _vector_shares_memory}


@pytest.mark.parametrize("fn", VECTORS.values(), ids=VECTORS.keys())
def test_vectors_as_torch(fn):
    compare(fn, rtol=1e-6, atol=1e-7)


def test_vector_to_parameters_needs_a_tensor():
    assert_same_error(lambda lib: lib.nn.utils.vector_to_parameters([1.0], []))
    assert_same_error(lambda lib: lib.nn.utils.vector_to_parameters(np.ones(2), []))


# ----- functional_call -------------------------------------------------------------------------


def _new_params(lib, m, factor=2.0):
    return {
        k: (v.detach() * factor).requires_grad_(v.requires_grad) for k, v in m.named_parameters()
    }


def _call(lib):
    m = net(lib)
    x = tensor(lib, arr(5, 2, seed=9))
    params = _new_params(lib, m)
    out = lib.func.functional_call(m, params, (x,))
    out.sum().backward()
    return [out, m(x), [params[k].grad for k in params], [p.grad for p in m.parameters()]]


def _call_partial_and_buffers(lib):
    m = net(lib)
    x = tensor(lib, arr(5, 2, seed=9))
    out = lib.func.functional_call(
        m, ({"heads.0.bias": lib.ones(1)}, {"steps": lib.ones(2)}), x, strict=False
    )
    return [out, m.heads[0].bias, m.steps]


def _call_kwargs(lib):
    from nn_models import classes

    m = classes(lib).Scale()
    x, y = tensor(lib, arr(3, seed=1)), tensor(lib, arr(3, seed=2))
    return lib.func.functional_call(m, {"w": lib.ones(3)}, (x,), {"y": y, "scale": 3.0})


def _tied(lib):
    m = affine(lib)
    m.tied = m.weight  # the same Parameter under two names

    def forward(x):
        return x @ m.weight.T + (x @ m.tied.T) * 10

    m.forward = forward
    x = tensor(lib, arr(4, 2, seed=3))
    w = lib.ones(3, 2)
    tied = lib.func.functional_call(m, {"weight": w}, x)
    untied = lib.func.functional_call(m, {"weight": w}, x, tie_weights=False)
    both = lib.func.functional_call(m, {"weight": w, "tied": w}, x)
    return [tied, untied, both, m.tied is m.weight]


def _grad_through(lib):
    m = net(lib)
    x = tensor(lib, arr(5, 2, seed=9))

    def loss(params):
        return (lib.func.functional_call(m, params, x) ** 2).sum()

    params = {k: v.detach() for k, v in m.named_parameters()}
    return lib.func.grad(loss)(params)


def _module_rebinds(lib):
    """What the module assigns during the call goes back into the dict given."""

    class Counter(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("n", lib.zeros(()))

        def forward(self, x):
            self.n = self.n + 1
            return x * self.n

    m = Counter()
    given = {"n": lib.tensor(5.0)}
    out = lib.func.functional_call(m, given, tensor(lib, arr(2)))
    return [out, given["n"], m.n]


def _plain_attribute(lib):
    """A name that is neither parameter nor buffer is set as a plain attribute for the call."""
    m = affine(lib)
    m.extra = lib.ones(3)
    m.forward = lambda x: x @ m.weight.T + m.extra
    out = lib.func.functional_call(m, {"extra": lib.zeros(3)}, tensor(lib, arr(1, 2)))
    return [out, m.extra]


FUNCTIONAL_CALL = {
    "call": _call,
    "partial_and_buffers": _call_partial_and_buffers,
    "kwargs": _call_kwargs,
    "tied": _tied,
    "grad_through": _grad_through,
    "module_rebinds": _module_rebinds,
    "plain_attribute": _plain_attribute,
    "args_none": lambda lib: lib.func.functional_call(lib.nn.Sequential(), {}, kwargs={"input": 1}),
}


@pytest.mark.parametrize("fn", FUNCTIONAL_CALL.values(), ids=FUNCTIONAL_CALL.keys())
def test_functional_call_as_torch(fn):
    compare(fn, rtol=1e-5, atol=1e-6)


def _tied_conflict(lib):
    m = affine(lib)
    m.tied = m.weight
    lib.func.functional_call(m, {"weight": lib.ones(3, 2), "tied": lib.zeros(3, 2)}, lib.ones(1, 2))


def _strict(lib):
    m = affine(lib)
    lib.func.functional_call(
        m, {"weight": lib.ones(3, 2), "nope": lib.ones(1)}, lib.ones(1, 2), strict=True
    )


FUNCTIONAL_CALL_ERRORS = {
    "tied_conflict": _tied_conflict,
    "strict": _strict,
    "repeated_keys": lambda lib: lib.func.functional_call(
        affine(lib), ({"bias": lib.ones(3)}, {"bias": lib.ones(3)}), lib.ones(1, 2)
    ),
    "not_dicts": lambda lib: lib.func.functional_call(
        affine(lib), ({"bias": lib.ones(3)}, 1), lib.ones(1, 2)
    ),
    "not_a_dict": lambda lib: lib.func.functional_call(affine(lib), 3, lib.ones(1, 2)),
    "bad_path": lambda lib: lib.func.functional_call(
        net(lib), {"body.9.weight": lib.ones(1)}, lib.ones(5, 2)
    ),
    "path_through_parameter": lambda lib: lib.func.functional_call(
        net(lib), {"body.0.weight.x": lib.ones(1)}, lib.ones(5, 2)
    ),
    "path_through_buffer": lambda lib: lib.func.functional_call(
        net(lib), {"body.0.count.x": lib.ones(1)}, lib.ones(5, 2)
    ),
    "empty_name": lambda lib: lib.func.functional_call(
        net(lib), {"body.": lib.ones(1)}, lib.ones(5, 2)
    ),
    "not_a_tensor": lambda lib: lib.func.functional_call(
        affine(lib), {"weight": 1.0}, lib.ones(1, 2)
    ),
}


@pytest.mark.parametrize("fn", FUNCTIONAL_CALL_ERRORS.values(), ids=FUNCTIONAL_CALL_ERRORS.keys())
def test_functional_call_errors_as_torch(fn):
    assert_same_error(fn)


def test_functional_call_restores_on_error():
    m = affine(cr)
    weight = m.weight

    def fail(x):
        raise ValueError("inside forward")

    m.forward = fail
    with pytest.raises(ValueError):
        cr.func.functional_call(m, {"weight": cr.zeros(3, 2)}, cr.ones(1, 2))
    assert m.weight is weight and "weight" in m._parameters


def _per_sample_grads(lib):
    m = affine(lib)
    params = {k: v.detach() for k, v in m.named_parameters()}
    xs = tensor(lib, arr(6, 2, seed=1))
    ys = tensor(lib, arr(6, 3, seed=2))

    def loss(p, x, y):
        return ((lib.func.functional_call(m, p, (x.unsqueeze(0),)) - y) ** 2).sum()

    return lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(params, xs, ys)


def test_functional_call_with_vmap_per_sample_gradients():
    """The per-sample-gradient recipe of PyTorch's tutorial: vmap(grad(loss)) over a batch."""
    compare(_per_sample_grads, rtol=1e-5, atol=1e-6)
