"""Index and mask inputs are no edges of a node, as in PyTorch: ``next_functions`` lists the
differentiable inputs only, and a node hook gets one gradient per listed input (and
returns as many). Each case runs on both libraries and compares node names and values."""

from __future__ import annotations

import pytest
import torch

import chainrule

LIBS = (torch, chainrule)


def _ix(L, *rows):
    return L.tensor(list(rows))


# each: (lambda L, x -> output); x is a 3x3 float64 leaf
CASES = {
    "index_select": lambda L, x: L.index_select(x, 0, _ix(L, 0, 1)),
    "repeat_interleave": lambda L, x: x.repeat_interleave(_ix(L, 1, 2, 1), 0),
    "gather": lambda L, x: L.gather(x, 1, _ix(L, [0], [1], [0])),
    "take": lambda L, x: L.take(x, _ix(L, 0, 5)),
    "scatter_value": lambda L, x: x.scatter(1, _ix(L, [0], [1], [0]), 1.0),
    "scatter": lambda L, x: x.scatter(1, _ix(L, [0], [1], [0]), x[:, :1] * 2),
    "scatter_add": lambda L, x: x.scatter_add(1, _ix(L, [0], [1], [0]), x[:, :1] * 2),
    "scatter_reduce": lambda L, x: x.scatter_reduce(1, _ix(L, [0], [1], [0]), x[:, :1] * 2, "sum"),
    "index_add": lambda L, x: x.index_add(0, _ix(L, 0, 1), x[:2] * 2),
    "index_copy": lambda L, x: x.index_copy(0, _ix(L, 0, 1), x[:2] * 2),
    "index_fill": lambda L, x: x.index_fill(0, _ix(L, 0, 1), 2.0),
    "index_fill_tensor": lambda L, x: x.index_fill(0, _ix(L, 0, 1), x[0, 0] * 2),
    "put": lambda L, x: x.put(_ix(L, 0, 1), x[0, :2] * 2),
    "masked_fill": lambda L, x: x.masked_fill(x > 0, 1.0),
    "masked_fill_tensor": lambda L, x: x.masked_fill(x > 0, x[0, 0] * 2),
    "masked_scatter": lambda L, x: x.masked_scatter(x > 0, x * 2),
    "masked_select": lambda L, x: x.masked_select(x > 0),
    "where": lambda L, x: L.where(x > 0, x, x * 2),
}


def _names(y) -> list:
    return [(None if f is None else f.name(), nr) for f, nr in y.grad_fn.next_functions]


def _x(L):
    rows = [[1.0, -2.0, 3.0], [-4.0, 5.0, 6.0], [7.0, 8.0, -9.0]]
    return L.tensor(rows, dtype=L.float64, requires_grad=True)


@pytest.mark.parametrize("case", sorted(CASES))
def test_next_functions_list_the_differentiable_inputs_only(case):
    got, want = (_names(CASES[case](L, _x(L))) for L in (chainrule, torch))
    assert got == want
    assert all(name is not None for name, _ in got)


@pytest.mark.parametrize("case", ["scatter_add", "index_add", "masked_scatter", "index_copy"])
def test_a_node_hook_gets_and_returns_one_gradient_per_listed_input(case):
    results = []
    for L in LIBS:
        x = _x(L)
        y = CASES[case](L, x)
        seen = []

        def hook(grad_inputs, grad_outputs, seen=seen):
            seen.append([None if g is None else g.tolist() for g in grad_inputs])
            return tuple(None if g is None else g * (k + 2) for k, g in enumerate(grad_inputs))

        y.grad_fn.register_hook(hook)
        (y * L.arange(1.0, 10.0, dtype=L.float64).reshape(3, 3)).sum().backward()
        results.append((seen, x.grad.tolist()))
    assert results[0] == results[1]


def test_a_node_hook_returning_a_gradient_for_the_index_too_is_refused_as_in_torch():
    messages = []
    for L in LIBS:
        x = _x(L)
        y = L.index_select(x, 0, _ix(L, 0, 1))
        y.grad_fn.register_hook(lambda gi, go: (gi[0], None))
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
        messages.append(str(info.value).split("(got")[1])
    assert messages[0] == messages[1]


def test_standard_gamma_grad_has_no_edge_for_its_sample():
    got = []
    for L in LIBS:
        a = L.tensor([1.5, 2.0], dtype=L.float64, requires_grad=True)
        x = L.tensor([0.5, 1.0], dtype=L.float64, requires_grad=True)
        y = L._standard_gamma_grad(a, x)
        got.append(_names(y))
    assert got[0] == got[1]
