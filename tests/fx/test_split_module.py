"""``chainrule.fx.passes.split_module`` against ``torch.fx.passes.split_module``: the same
modules split by the same callbacks give the same outer code, the same submodules with the
same code, the same ``qualname_map`` and the same outputs (float64)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.fx.passes.split_module as torch_split

import chainrule as cr
import chainrule.fx.passes.split_module as cr_split

SPLIT = {"torch": torch_split.split_module, "chainrule": cr_split.split_module}


def build(lib, kind: str):
    """The module ``kind`` written with ``lib`` (torch or chainrule), in float64."""
    nn = lib.nn

    class ParamLinear(nn.Module):
        def __init__(self):
            super().__init__()
            self.param = nn.Parameter(lib.ones(3, 4))
            self.linear = nn.Linear(4, 5)

        def forward(self, x, y):
            z = self.linear(x + self.param).clamp(min=0.0, max=1.0)
            w = self.linear(y).clamp(min=0.0, max=1.0)
            return z + w

    class Branches(nn.Module):
        def forward(self, x, y):
            a = x.relu()
            b = y.sigmoid()
            return a * b + a

    class Pipeline(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.Sequential(
                nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 3)
            )

        def forward(self, x):
            return lib.softmax(self.layers(x), dim=-1)

    class Chain(nn.Module):
        def forward(self, x):
            a = x.relu()
            return a * a.sigmoid()

    class Defaults(nn.Module):
        def forward(self, x, scale=2.0):
            return (x * scale).exp() + x

    module = {
        "param_linear": ParamLinear,
        "branches": Branches,
        "pipeline": Pipeline,
        "defaults": Defaults,
        "chain": Chain,
    }[kind]()
    return module.double()


def pair(kind: str):
    """The module ``kind`` in torch and in chainrule, with the same parameters."""
    torch.manual_seed(0)
    t = build(torch, kind)
    c = build(cr, kind)
    c.load_state_dict({k: cr.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    return t, c


def round_robin(n: int):
    """A callback putting the operations in partitions 0, 1, ..., n-1, 0, 1, ... in turn."""
    count = [0]

    def callback(node):
        count[0] += 1
        return (count[0] - 1) % n

    return callback


def by_name(mapping: dict[str, int]):
    """A callback reading each Node's partition from its name."""
    return lambda node: mapping[node.name]


def split_both(kind: str, make_callback, **kwargs):
    """``kind`` traced and split in both libraries; (torch result, chainrule result, the
    qualname maps)."""
    results, maps = [], []
    for lib, module in zip((torch, cr), pair(kind)):
        traced = lib.fx.symbolic_trace(module)
        qualname_map: dict[str, str] = {}
        name = "torch" if lib is torch else "chainrule"
        results.append(
            SPLIT[name](traced, module, make_callback(), qualname_map=qualname_map, **kwargs)
        )
        maps.append(qualname_map)
    return results[0], results[1], maps


def assert_same_split(t, c) -> None:
    """The same outer code, submodule names, submodule code and printed modules."""
    assert c.code == t.code
    t_children = dict(t.named_children())
    c_children = dict(c.named_children())
    assert list(c_children) == list(t_children)
    for name, t_sub in t_children.items():
        c_sub = c_children[name]
        if isinstance(t_sub, torch.fx.GraphModule):
            assert c_sub.code == t_sub.code, name
    assert str(c) == str(t)


def assert_same_outputs(t, c, *inputs: np.ndarray) -> None:
    expected = t(*(torch.tensor(x) for x in inputs))
    actual = c(*(cr.tensor(x) for x in inputs))
    np.testing.assert_allclose(actual.detach().numpy(), expected.detach().numpy(), rtol=1e-12)


RNG = np.random.default_rng(0)
X34, Y34 = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"keep_original_order": True},
        {"keep_original_node_name": True},
        {"keep_original_input_name": False},
        {"partition_affix": "pp"},
        {"tuple_return": True},
        {"keep_original_order": True, "keep_original_node_name": True},
    ],
)
def test_round_robin_partitions_match_torch(options):
    t, c, (t_map, c_map) = split_both("param_linear", lambda: round_robin(3), **options)
    assert_same_split(t, c)
    assert c_map == t_map
    assert c.meta["partition_names"] == t.meta["partition_names"]
    assert_same_outputs(t, c, X34, Y34)


@pytest.mark.parametrize("keep_original_order", [False, True])
def test_independent_partitions_order(keep_original_order):
    # partitions 0 and 1 depend on nothing: the topological order calls submod_1 first,
    # keep_original_order calls them as they first appear
    mapping = {"relu": 0, "sigmoid": 1, "mul": 2, "add": 2}
    t, c, _ = split_both(
        "branches", lambda: by_name(mapping), keep_original_order=keep_original_order
    )
    assert_same_split(t, c)
    order = [n.target for n in c.graph.nodes if n.op == "call_module"]
    assert order == (["submod_0", "submod_1", "submod_2"] if keep_original_order else
                     ["submod_1", "submod_0", "submod_2"])  # fmt: skip
    assert_same_outputs(t, c, X34, Y34)


def test_pipeline_stages_of_a_sequential():
    stages = {"layers_0": 0, "layers_1": 0, "layers_2": 1, "layers_3": 1, "layers_4": 2}
    t, c, (t_map, c_map) = split_both("pipeline", lambda: lambda n: stages.get(n.name, 2))
    assert_same_split(t, c)
    assert (
        c_map
        == t_map
        == {
            "submod_0.layers_0": "layers.0",
            "submod_0.layers_1": "layers.1",
            "submod_1.layers_2": "layers.2",
            "submod_1.layers_3": "layers.3",
            "submod_2.layers_4": "layers.4",
        }
    )
    # the stages share the original Linear modules
    assert c.submod_1.layers_2 is dict(c.named_modules())["submod_1.layers_2"]
    assert_same_outputs(t, c, X34)


def test_placeholder_default_is_kept():
    t, c, _ = split_both("defaults", lambda: round_robin(3))
    assert_same_split(t, c)
    assert_same_outputs(t, c, X34)
    x = RNG.normal(size=(2, 2))
    expected = t(torch.tensor(x), 0.5).numpy()
    np.testing.assert_allclose(c(cr.tensor(x), 0.5).numpy(), expected, rtol=1e-12)


def test_one_partition():
    t, c, _ = split_both("pipeline", lambda: lambda n: 0)
    assert_same_split(t, c)
    assert_same_outputs(t, c, X34)


def test_partition_repr():
    p = cr_split.Partition("0")
    assert p.submod_name == "submod_0"
    assert repr(p) == repr(torch_split.Partition("0"))


def test_cycle_between_partitions_raises():
    # relu (0) -> sigmoid (1) -> mul (0): partition 0 both feeds and reads partition 1
    mapping = {"relu": 0, "sigmoid": 1, "mul": 0}
    for name, module in zip(SPLIT, pair("chain")):
        traced = (torch if name == "torch" else cr).fx.symbolic_trace(module)
        with pytest.raises(RuntimeError, match="cycle exists between partitions!"):
            SPLIT[name](traced, module, by_name(mapping))


class TwoOutputs:
    """``relu`` -> {``sigmoid``, ``mul``} -> ``add``, returning ``add`` and ``sigmoid``."""

    @staticmethod
    def traced(lib):
        class M(lib.nn.Module):
            def forward(self, x, y):
                a = x.relu()
                b = y.sigmoid()
                return a * b + a, b

        return lib.fx.symbolic_trace(M())


@pytest.mark.parametrize("affix", [None, "pp"])
def test_split_module_simple_matches_torch(affix):
    mapping = {"relu": 0, "sigmoid": 1, "mul": 1, "add": 2}
    results = []
    for lib, split in ((torch, torch_split), (cr, cr_split)):
        gm = TwoOutputs.traced(lib)
        node_to_partition = {n: mapping[n.name] for n in gm.graph.nodes if n.name in mapping}
        res = split.split_module_simple(gm, node_to_partition, partition_affix=affix)
        codes = {name: sub.code for name, sub in res.named_children()}
        out = res(lib.tensor(X34), lib.tensor(Y34))
        results.append((res.code, codes, str(res), res.training, [v.numpy() for v in out]))
    (t_code, t_codes, t_str, t_training, t_out), (c_code, c_codes, c_str, c_training, c_out) = (
        results
    )
    assert (c_code, c_codes, c_str, c_training) == (t_code, t_codes, t_str, t_training)
    for c_val, t_val in zip(c_out, t_out):
        np.testing.assert_allclose(c_val, t_val, rtol=1e-12)
