"""torch.func's vmap, jacfwd and friends against PyTorch where the loop shows through.

chainrule's ``vmap`` runs the function once per batch element. Its random draws follow
``randomness`` as PyTorch's do: "error" refuses any draw (at every nesting), "same" gives
every element the numbers of one unbatched draw, "different" the next numbers of the
stream (PyTorch's values for these samplers, and the generator left where PyTorch leaves
it). A write in place into an unmapped input is refused (the loop would repeat it); an
empty batch gives empty outputs of the right shapes; ``argnums=()`` and a chunk size under
1 raise PyTorch's errors.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import assert_same_error

SAMPLERS = {
    "rand": lambda L: lambda x: x + L.rand(3),
    "randn": lambda L: lambda x: x + L.randn(3),
    "rand_like": lambda L: lambda x: L.rand_like(x),
    "dropout": lambda L: lambda x: L.nn.functional.dropout(x + 1, 0.5),
    "uniform_": lambda L: lambda x: x.clone().uniform_(),
    "randint": lambda L: lambda x: x + L.randint(0, 10, (3,)),
    "randperm": lambda L: lambda x: L.randperm(5),
    "bernoulli": lambda L: lambda x: x + L.bernoulli(L.full((3,), 0.5)),
}


def _vmapped(L, sampler, randomness):
    L.manual_seed(0)
    out = L.func.vmap(SAMPLERS[sampler](L), randomness=randomness)(L.zeros(4, 3))
    return out.numpy(), L.rand(2).numpy()  # (and where the generator was left)


@pytest.mark.parametrize("randomness", ["same", "different"])
@pytest.mark.parametrize("sampler", sorted(SAMPLERS))
def test_vmap_randomness_values(sampler, randomness):
    want, want_after = _vmapped(torch, sampler, randomness)
    got, got_after = _vmapped(cr, sampler, randomness)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_after, want_after)
    if randomness == "same":
        assert (got == got[:1]).all()


@pytest.mark.parametrize("sampler", sorted(SAMPLERS))
def test_vmap_randomness_error(sampler):
    assert_same_error(lambda L: L.func.vmap(SAMPLERS[sampler](L))(L.zeros(4, 3)))


@pytest.mark.parametrize("outer,inner", [("same", "error"), ("error", "same"), ("error", "error")])
def test_vmap_randomness_error_when_nested(outer, inner):
    def run(L):
        inner_f = L.func.vmap(lambda x: x + L.rand(()), randomness=inner)
        return L.func.vmap(inner_f, randomness=outer)(L.zeros(2, 2))

    assert_same_error(run)


def test_vmap_same_randomness_nested():
    def run(L):
        L.manual_seed(0)
        inner_f = L.func.vmap(lambda x: x + L.rand(()), randomness="different")
        return L.func.vmap(inner_f, randomness="same")(L.zeros(2, 3)).numpy()

    np.testing.assert_array_equal(run(cr), run(torch))


@pytest.mark.parametrize("randomness", ["same", "different", "error"])
def test_jacfwd_randomness(randomness):
    def run(L):
        L.manual_seed(0)
        f = L.func.jacfwd(lambda x: x * L.rand(3), randomness=randomness)
        return f(L.zeros(3)).numpy()

    if randomness == "error":
        assert_same_error(run)
    else:
        np.testing.assert_array_equal(run(cr), run(torch))


def test_hessian_of_a_random_function_refused():
    assert_same_error(lambda L: L.func.hessian(lambda x: (x * L.rand(3)).sum())(L.zeros(3)))


@pytest.mark.parametrize("value", ["foo", 3])
def test_randomness_value_refused(value):
    assert_same_error(lambda L: L.func.vmap(lambda x: x, randomness=value))
    assert_same_error(lambda L: L.func.jacfwd(lambda x: x, randomness=value)(L.zeros(2)))


def test_write_into_an_unmapped_input_refused():
    x, y = cr.zeros(3), cr.ones(2, 3)
    with pytest.raises(RuntimeError, match="wrote in place into input 0, which is not mapped"):
        cr.func.vmap(lambda a, b: a.add_(b), in_dims=(None, 0))(x, y)
    with pytest.raises(RuntimeError, match="input 1, which is not mapped"):
        cr.func.vmap(lambda b, a: a.mul_(2) + b, in_dims=(0, None))(y, x.clone())


def test_write_into_a_mapped_input():
    def run(L):
        x = L.arange(6.0).reshape(2, 3)
        out = L.func.vmap(lambda a: a.mul_(2) + 1)(x)
        return out.numpy(), x.numpy()

    for got, want in zip(run(cr), run(torch)):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("out_dims", [0, 1, -1])
def test_vmap_of_an_empty_batch(out_dims):
    def run(L):
        f = L.func.vmap(lambda x, y: (x * y, x.sum()), in_dims=(0, None), out_dims=(out_dims, 0))
        a, s = f(L.zeros(0, 3, 2), L.ones(3, 2))
        return a.shape, s.shape, a.dtype, s.dtype

    assert [tuple(v) if isinstance(v, cr.Size) else str(v).split(".")[-1] for v in run(cr)] == [
        tuple(v) if isinstance(v, torch.Size) else str(v).split(".")[-1] for v in run(torch)
    ]


@pytest.mark.parametrize("transform", ["grad", "jacrev", "jacfwd", "hessian"])
def test_empty_argnums(transform):
    assert_same_error(
        lambda L: getattr(L.func, transform)(lambda x: (x**2).sum(), argnums=())(L.ones(3))
    )


@pytest.mark.parametrize("chunk", [0, -1])
def test_chunk_size_below_one(chunk):
    assert_same_error(lambda L: L.func.vmap(lambda x: x, chunk_size=chunk)(L.zeros(2, 3)))
    assert_same_error(lambda L: L.func.jacrev(lambda x: x, chunk_size=chunk)(L.zeros(3)))


@pytest.mark.parametrize("transform", ["grad", "jacrev", "jacfwd", "vjp", "jvp"])
@pytest.mark.parametrize("aux", ["none", "int", "str", "tuple_none", "list_float"])
def test_aux_must_hold_tensors(transform, aux):
    def run(L):
        x = L.ones(3)
        value = {
            "none": None,
            "int": 1,
            "str": "a",
            "tuple_none": (x, None),
            "list_float": [x, 2.0],
        }[aux]

        def f(x):
            return (x**2).sum(), value

        if transform == "vjp":
            return L.func.vjp(f, x, has_aux=True)
        if transform == "jvp":
            return L.func.jvp(f, (x,), (x,), has_aux=True)
        return getattr(L.func, transform)(f, has_aux=True)(x)

    assert_same_error(run)


@pytest.mark.parametrize("method", ["max", "sort", "topk", "cummax"])
def test_jvp_keeps_named_results(method):
    def run(L):
        x = L.arange(12.0).reshape(3, 4).sin()
        args = {"max": (0,), "sort": (1,), "topk": (2,), "cummax": (1,)}[method]
        primal, tangent = L.func.jvp(lambda a: getattr(a, method)(*args), (x,), (L.ones(3, 4),))
        return type(primal).__name__, type(tangent).__name__, primal[0], tangent[0]

    (cr_p, cr_t, cr_v, cr_dv), (pt_p, pt_t, pt_v, pt_dv) = run(cr), run(torch)
    assert (cr_p, cr_t) == (pt_p, pt_t) == (method, method)
    np.testing.assert_allclose(cr_v.numpy(), pt_v.numpy(), rtol=1e-6)
    np.testing.assert_allclose(cr_dv.numpy(), pt_dv.numpy(), rtol=1e-6)
