"""The order backward runs nodes in is PyTorch's: of the ready nodes, the one made last
(the highest ``_sequence_nr()``; a leaf's AccumulateGrad highest of all) runs first, and
nodes of one number (leaves') leave the queue in the order PyTorch's heap gives them. Hooks
observe the order; libraries rely on it (opacus pairs a layer's calls with its saved inputs
by it). Each scenario logs its hooks on both libraries, on the plain and the general loop."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import chainrule as cr
from chainrule.autograd import engine

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])


@pytest.fixture(params=["plain", "general"])
def loop(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "general":
        monkeypatch.setattr(engine, "_plain_enabled", False)
    return request.param


def tag(t: Any, name: str, log: list) -> Any:
    t.register_hook(lambda g: log.append(name))
    return t


def diamond(lib: Any, log: list) -> None:
    a = tag(lib.tensor(X[0], requires_grad=True), "a", log)
    b = tag(lib.tensor(X[1], requires_grad=True), "b", log)
    u = tag(a * 2, "u", log)
    v = tag(b * 3, "v", log)
    w = tag(u.exp(), "w", log)
    s = tag(v + w, "s", log)
    (s.sum() + u.sum()).backward()


def leaves_of_one_node(lib: Any, log: list, n: int = 8) -> None:
    leaves = [tag(lib.tensor(X[0] * i, requires_grad=True), i, log) for i in range(n)]
    lib.stack(leaves).sum().backward()


def branches(lib: Any, log: list) -> None:
    a = lib.tensor(X[0], requires_grad=True)
    x1 = tag(a.sin(), "x1", log)
    x2 = tag(a.cos(), "x2", log)
    x3 = tag(a.exp(), "x3", log)
    (x2 + x1 + x3).sum().backward()


def recurrent_cell(lib: Any, log: list) -> None:
    """opacus's pattern: two Linears called at each step, full backward hooks on both."""
    lib.manual_seed(0)
    ih, hh = lib.nn.Linear(3, 3).double(), lib.nn.Linear(3, 3).double()
    ih.register_full_backward_hook(lambda m, gi, go: log.append("ih"))
    hh.register_full_backward_hook(lambda m, gi, go: log.append("hh"))
    xs = lib.tensor(np.linspace(-1, 1, 12).reshape(4, 3), requires_grad=True)
    h = lib.zeros(3, dtype=lib.float64, requires_grad=True)
    for t in range(4):
        h = tag((ih(xs[t]) + hh(h)).tanh(), f"h{t}", log)
    h.sum().backward()


def two_roots(lib: Any, log: list) -> None:
    a = tag(lib.tensor(X[0], requires_grad=True), "a", log)
    b = tag(lib.tensor(X[1], requires_grad=True), "b", log)
    y = tag(a * b, "y", log)
    z = tag(b.exp(), "z", log)
    lib.autograd.backward([y.sum(), z.sum(), (y * z).sum()])


def grad_of_some(lib: Any, log: list) -> None:
    a = tag(lib.tensor(X[0], requires_grad=True), "a", log)
    b = tag(lib.tensor(X[1], requires_grad=True), "b", log)
    y = tag(a * b, "y", log)
    z = tag(y.sin() + b, "z", log)
    w = tag(z * y, "w", log)
    lib.autograd.grad(w.sum(), [a, y], create_graph=True)


def node_hooks(lib: Any, log: list) -> None:
    a = lib.tensor(X[0], requires_grad=True)
    b = lib.tensor(X[1], requires_grad=True)
    p, q, r = a * b, a + b, b.tanh()
    for t, name in ((p, "p"), (q, "q"), (r, "r")):
        t.grad_fn.register_prehook(lambda go, name=name: log.append(f"pre {name}"))
        t.grad_fn.register_hook(lambda gi, go, name=name: log.append(f"post {name}"))
    (r * q + p).sum().backward()


SCENARIOS = {
    "diamond": diamond,
    "branches": branches,
    "recurrent_cell": recurrent_cell,
    "two_roots": two_roots,
    "grad_of_some": grad_of_some,
    "node_hooks": node_hooks,
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_hooks_run_in_pytorchs_order(name: str, loop: str) -> None:
    ours: list = []
    theirs: list = []
    SCENARIOS[name](cr, ours)
    SCENARIOS[name](torch, theirs)
    assert ours == theirs
    assert len(ours) >= 3


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8, 11])
def test_leaves_ready_together_leave_in_pytorchs_heap_order(n: int, loop: str) -> None:
    ours: list = []
    theirs: list = []
    leaves_of_one_node(cr, ours, n)
    leaves_of_one_node(torch, theirs, n)
    assert ours == theirs


def test_sequence_numbers_count_nodes_as_made() -> None:
    a = cr.tensor(X[0], requires_grad=True)
    y = a * 2
    z = y.sin()
    w = cr.stack([z, y])
    numbers = [t.grad_fn._sequence_nr() for t in (y, z, w)]
    assert numbers == sorted(numbers) and len(set(numbers)) == 3
    leaf = y.grad_fn.next_functions[0][0]
    assert leaf._sequence_nr() == 2**64 - 1  # as PyTorch's AccumulateGrad (UINT64_MAX)
    ta = torch.tensor(X[0], requires_grad=True)
    assert (ta * 2).grad_fn.next_functions[0][0]._sequence_nr() == leaf._sequence_nr()
