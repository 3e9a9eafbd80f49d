"""``chainrule.fx.experimental.optimization`` against ``torch.fx.experimental.optimization``:
``fuse`` folds the same batch norms into the same layers (same code, same printed module,
same outputs in float64), ``remove_dropout`` and ``extract_subgraph`` make the same code."""

from __future__ import annotations

import copy
import importlib
import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
import chainrule.fx.experimental.optimization as cr_opt

with warnings.catch_warnings():
    # torch's module imports torch.utils.mkldnn, which uses the deprecated jit.script_method
    warnings.simplefilter("ignore", DeprecationWarning)
    torch_opt = importlib.import_module("torch.fx.experimental.optimization")

RNG = np.random.default_rng(0)


def build(lib, kind: str):
    """The model ``kind`` written with ``lib`` (torch or chainrule), in float64."""
    nn = lib.nn

    class ConvNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3)
            self.bn = nn.BatchNorm2d(4)
            self.block = nn.Sequential(nn.Linear(4 * 6 * 6, 5), nn.BatchNorm1d(5), nn.Dropout(0.5))

        def forward(self, x):
            y = self.bn(self.conv(x)).relu()
            return self.block(y.flatten(1))

    class Convs(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv1d(2, 3, 3, bias=False)
            self.b1 = nn.BatchNorm1d(3)
            self.c3 = nn.Conv3d(2, 2, 2)
            self.b3 = nn.BatchNorm3d(2)

        def forward(self, x, v):
            return self.b1(self.c1(x)).sum() + self.b3(self.c3(v)).sum()

    class Shared(nn.Module):
        # the convolution's result is read twice: its batch norm stays; the second batch
        # norm keeps no running statistics: it stays too
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 3, 1)
            self.bn = nn.BatchNorm2d(3)
            self.conv2 = nn.Conv2d(3, 3, 1)
            self.bn2 = nn.BatchNorm2d(3, track_running_stats=False)

        def forward(self, x):
            y = self.conv(x)
            return self.bn2(self.conv2(self.bn(y) + y))

    model = {"convnet": ConvNet, "convs": Convs, "shared": Shared}[kind]()
    return model.double()


def pair(kind: str):
    """The model in both libraries, in eval mode, with the same parameters and random
    running statistics."""
    torch.manual_seed(0)
    t = build(torch, kind)
    state = {k: v.detach().numpy().copy() for k, v in t.state_dict().items()}
    for k, v in state.items():
        if k.endswith("running_var"):
            state[k] = RNG.uniform(0.5, 2.0, v.shape)
        elif k.endswith(("running_mean", "bn.weight", "bn.bias")):
            state[k] = RNG.normal(size=v.shape)
    t.load_state_dict({k: torch.tensor(v) for k, v in state.items()})
    c = build(cr, kind)
    c.load_state_dict({k: cr.tensor(v) for k, v in state.items()})
    return t.eval(), c.eval()


def outputs(model, lib, inputs):
    return model(*(lib.tensor(x) for x in inputs)).detach().numpy()


INPUTS = {
    "convnet": [RNG.normal(size=(2, 3, 8, 8))],
    "convs": [RNG.normal(size=(2, 2, 5)), RNG.normal(size=(1, 2, 3, 3, 3))],
    "shared": [RNG.normal(size=(2, 3, 4, 4))],
}


@pytest.mark.parametrize("kind", list(INPUTS))
def test_fuse_matches_torch(kind):
    t, c = pair(kind)
    tf, cf = torch_opt.fuse(t), cr_opt.fuse(c)
    assert cf.code == tf.code
    assert str(cf) == str(tf)
    expected = outputs(tf, torch, INPUTS[kind])
    np.testing.assert_allclose(outputs(cf, cr, INPUTS[kind]), expected, rtol=1e-10, atol=1e-12)
    # the fused model computes what the model did
    np.testing.assert_allclose(outputs(c, cr, INPUTS[kind]), expected, rtol=1e-10, atol=1e-12)


def test_fuse_copies_unless_inplace():
    # as in torch, neither way changes the model's layers: inplace only skips the copy, so
    # the result shares the layers it did not fuse with the model
    for lib, opt, model in zip((torch, cr), (torch_opt, cr_opt), pair("convnet")):
        conv_weight = model.conv.weight.detach().numpy().copy()
        dropout = model.block[2]
        copied = opt.fuse(model)
        assert copied.block._modules["2"] is not dropout
        fused = opt.fuse(model, inplace=True)
        assert fused.block._modules["2"] is dropout
        assert fused.conv is not model.conv
        np.testing.assert_array_equal(model.conv.weight.detach().numpy(), conv_weight)
        assert isinstance(model.bn, lib.nn.BatchNorm2d)


def test_fuse_no_trace_uses_the_graph_module():
    t, c = pair("convnet")
    tg, cg = torch.fx.symbolic_trace(t), cr.fx.symbolic_trace(c)
    tf = torch_opt.fuse(tg, no_trace=True)
    cf = cr_opt.fuse(cg, no_trace=True)
    assert cf.code == tf.code
    expected = outputs(tf, torch, INPUTS["convnet"])
    np.testing.assert_allclose(outputs(cf, cr, INPUTS["convnet"]), expected, rtol=1e-10)


def test_fuse_in_training_mode_raises():
    _, c = pair("convnet")
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        cr_opt.fuse(c.train())


def test_remove_dropout_matches_torch():
    t, c = pair("convnet")
    assert cr_opt.remove_dropout(c).code == torch_opt.remove_dropout(t).code


def test_extract_subgraph_matches_torch():
    codes = []
    for lib, opt, model in zip((torch, cr), (torch_opt, cr_opt), pair("convnet")):
        traced = lib.fx.symbolic_trace(model)
        nodes = {n.name: n for n in traced.graph.nodes}
        sub = opt.extract_subgraph(
            traced, [nodes["bn"], nodes["relu"]], [nodes["conv"]], [nodes["relu"]]
        )
        codes.append(sub.code)
    assert codes[1] == codes[0]


def test_matches_module_pattern_and_union_find():
    _, c = pair("convnet")
    traced = cr.fx.symbolic_trace(c)
    modules = dict(traced.named_modules())
    nodes = {n.name: n for n in traced.graph.nodes}
    pattern = (cr.nn.Conv2d, cr.nn.BatchNorm2d)
    assert cr_opt.matches_module_pattern(pattern, nodes["bn"], modules)
    assert not cr_opt.matches_module_pattern(pattern, nodes["relu"], modules)
    uf = cr_opt.UnionFind(4)
    for v in range(4):
        uf.make_set(v)
    uf.join(0, 1)
    uf.join(2, 1)
    assert uf.find(2) == uf.find(0) != uf.find(3)


def test_fused_copy_is_independent_of_the_model():
    _, c = pair("convs")
    fused = cr_opt.fuse(c)
    copied = copy.deepcopy(fused)
    inputs = INPUTS["convs"]
    np.testing.assert_array_equal(outputs(copied, cr, inputs), outputs(fused, cr, inputs))
