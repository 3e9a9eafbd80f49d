"""``chainrule.fx.passes.pass_manager`` and ``passes.infra`` against torch's: the same passes
and constraints run in the same order, give the same results and raise the same errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.fx.passes.infra.pass_base as torch_base
import torch.fx.passes.infra.pass_manager as torch_infra
import torch.fx.passes.pass_manager as torch_pm

import chainrule as cr
import chainrule.fx.passes.infra.pass_base as cr_base
import chainrule.fx.passes.infra.pass_manager as cr_infra
import chainrule.fx.passes.pass_manager as cr_pm

PM = {"torch": torch_pm, "chainrule": cr_pm}


def add_one(xs: list) -> list:
    return [*xs, 1]


def double(xs: list) -> list:
    return xs + xs


def append_two(xs: list) -> None:
    xs.append(2)


@pytest.mark.parametrize("lib", list(PM))
def test_pass_manager_runs_passes_in_order(lib):
    pm = PM[lib]
    manager = pm.PassManager([add_one, double, pm.inplace_wrapper(append_two)])
    assert manager([0]) == [0, 1, 0, 1, 2]
    manager.add_pass(pm.loop_pass(add_one, n_iter=2))
    assert manager([]) == [1, 1, 2, 1, 1]
    manager.remove_pass(["double"])
    assert manager([]) == [1, 2, 1, 1]
    manager.replace_pass(add_one, double)
    # the looped add_one keeps add_one's name: it is replaced too
    assert manager([5]) == [5, 5, 2, 5, 5, 2]


@pytest.mark.parametrize("lib", list(PM))
def test_loop_pass_with_predicate_and_errors(lib):
    pm = PM[lib]
    assert pm.loop_pass(add_one, predicate=lambda xs: len(xs) < 4)([]) == [1, 1, 1, 1]
    with pytest.raises(AssertionError, match="Exactly one of"):
        pm.loop_pass(add_one)
    with pytest.raises(RuntimeError, match="positive int n_iter"):
        pm.loop_pass(add_one, n_iter=0)([])


def test_constraint_violation_message_matches_torch():
    messages = []
    for pm in (torch_pm, cr_pm):
        manager = pm.PassManager(
            [double, add_one], [pm.this_before_that_pass_constraint(add_one, double)]
        )
        with pytest.raises(RuntimeError) as info:
            manager([])
        messages.append(str(info.value))
        loose = pm.PassManager(
            [pm.loop_pass(double, 2), add_one],
            [pm.these_before_those_pass_constraint(add_one, double)],
        )
        with pytest.raises(RuntimeError, match="pass schedule constraint violated"):
            loose.validate()
    assert messages[1] == messages[0]


def traced_pair():
    def traced(lib):
        class M(lib.nn.Module):
            def forward(self, x):
                return (x + 0).relu().neg()

        return lib.fx.symbolic_trace(M())

    return traced(torch), traced(cr)


def make_passes(lib):
    """A PassBase removing ``+ 0`` nodes, and a plain function turning ``neg`` into ``abs``."""
    import operator

    base = torch_base if lib is torch else cr_base

    class RemoveAddZero(base.PassBase):
        def call(self, gm):
            modified = False
            for node in list(gm.graph.nodes):
                if node.target is operator.add and node.args[1] == 0:
                    node.replace_all_uses_with(node.args[0])
                    gm.graph.erase_node(node)
                    modified = True
            return base.PassResult(gm, modified)

    def neg_to_abs(gm):
        for node in gm.graph.nodes:
            if node.op == "call_method" and node.target == "neg":
                node.target = "abs"

    return RemoveAddZero(), neg_to_abs


def test_infra_pass_manager_matches_torch():
    results = []
    for lib, infra, gm in zip((torch, cr), (torch_infra, cr_infra), traced_pair()):
        remove, neg_to_abs = make_passes(lib)
        checked = []
        manager = infra.PassManager(
            [infra.pass_result_wrapper(neg_to_abs), remove], run_checks_after_each_pass=True
        )
        manager.add_checks(checked.append)
        res = manager(gm)
        x = lib.tensor(np.array([-1.0, 2.0]))
        checked_types = [type(m).__name__ for m in checked]
        results.append(
            (res.modified, res.graph_module.code, res.graph_module(x).tolist(), checked_types)
        )
        assert isinstance(res, (torch_base if lib is torch else cr_base).PassResult)
    assert results[1] == results[0]


def test_infra_solves_constraints_and_reports_failures():
    orders = []
    for lib, infra, gm in zip((torch, cr), (torch_infra, cr_infra), traced_pair()):
        remove, neg_to_abs = make_passes(lib)
        wrapped = infra.pass_result_wrapper(neg_to_abs)
        manager = infra.PassManager([wrapped, remove])
        manager.add_constraint(infra.this_before_that_pass_constraint(remove, wrapped))
        manager.solve_constraints()
        orders.append([getattr(p, "__name__", type(p).__name__) for p in manager.passes])
        with pytest.raises(RuntimeError, match="Circular dependency"):
            bad = infra.PassManager([wrapped, remove])
            bad.add_constraint(infra.this_before_that_pass_constraint(remove, wrapped))
            bad.add_constraint(infra.this_before_that_pass_constraint(wrapped, remove))
            bad(gm)
        with pytest.raises(Exception, match="An error occurred when running the 'bad' pass"):

            def bad(m):
                return 3

            infra.PassManager([bad])(gm)
        with pytest.raises(TypeError, match="only take in one variable"):
            infra.PassManager().add_checks(lambda a, b: None)
    assert orders[1] == orders[0] == ["RemoveAddZero", "neg_to_abs"]
