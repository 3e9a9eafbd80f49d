"""Which error ``autograd.functional`` raises when several apply: PyTorch's order.

jacobian's forward mode refuses ``create_graph``, then ``strict``, then a missing
``vectorize``; reverse mode runs the function and checks its outputs before refusing
``strict`` with ``vectorize``; hessian, hvp and vhp check in strict mode that the output
is differentiable before that it is a single element; inputs given as a list are refused.
Each case raises on both libraries with the same type and message.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from oracle import assert_same_error

X = np.array([0.3, -0.7, 1.1])


def _x(lib):
    return lib.tensor(X)


def _scalar(x):
    return (x**3).sum()


def _vector(x):
    return x.sin()


def _constant(x):
    return x.new_ones(())


FUNCTIONS = {"scalar": _scalar, "vector": _vector, "constant": _constant}


def _refused(jacobian_or_hessian: str, name: str, strict, create_graph, vectorize, strategy):
    """Whether PyTorch refuses (or fails on) the combination."""
    forward_refused = strategy == "forward-mode" and (strict or create_graph or not vectorize)
    strict_refused = strict and (vectorize or name == "constant")
    single_element = jacobian_or_hessian == "hessian" and name == "vector"
    return forward_refused or strict_refused or single_element


REFUSED = [
    (api, *combination)
    for api in ("jacobian", "hessian")
    for combination in itertools.product(
        FUNCTIONS, [False, True], [False, True], [False, True], ["reverse-mode", "forward-mode"]
    )
    if _refused(api, *combination)
]


@pytest.mark.parametrize("api,name,strict,create_graph,vectorize,strategy", REFUSED)
def test_error_order(api, name, strict, create_graph, vectorize, strategy):
    key = "strategy" if api == "jacobian" else "outer_jacobian_strategy"
    assert_same_error(
        lambda L: getattr(L.autograd.functional, api)(
            FUNCTIONS[name],
            _x(L),
            create_graph=create_graph,
            strict=strict,
            vectorize=vectorize,
            **{key: strategy},
        )
    )


@pytest.mark.parametrize("kind", ["hvp", "vhp"])
@pytest.mark.parametrize("name", ["constant", "vector"])
@pytest.mark.parametrize("strict", [False, True])
def test_products_error_order(kind, name, strict):
    if name == "constant" and not strict:
        return _products_run(kind, name)  # (zeros: not an error without strict)
    assert_same_error(
        lambda L: getattr(L.autograd.functional, kind)(
            FUNCTIONS[name], _x(L), L.ones(3, dtype=L.float64), strict=strict
        )
    )


def _products_run(kind, name):
    import torch

    import chainrule as cr

    results = [
        getattr(lib.autograd.functional, kind)(
            FUNCTIONS[name], _x(lib), lib.ones(3, dtype=lib.float64)
        )
        for lib in (torch, cr)
    ]
    for want, got in zip(*results):
        np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.autograd.functional.jacobian(lambda x, y: x * y, [_x(L), _x(L)]),
        lambda L: L.autograd.functional.jacobian(lambda x: [x, x], _x(L)),
        lambda L: L.autograd.functional.vjp(lambda x: x * 2, [_x(L)], [_x(L)]),
        lambda L: L.autograd.functional.jacobian(lambda x: x, [1.0]),
    ],
    ids=["list_inputs", "list_outputs", "list_vjp", "list_of_float"],
)
def test_lists_refused(call):
    assert_same_error(call)
