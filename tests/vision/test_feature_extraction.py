"""``torchvision.models.feature_extraction`` against the real torchvision: node names in
train and eval mode, the generated code, the extracted values, the warnings and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import chainrule
from chainrule.vision.models.feature_extraction import (
    create_feature_extractor,
    get_graph_node_names,
)


def net_class(lib):
    """One model, written once, for either library: repeated leaf modules (``fc_1``, named
    ``fc`` then ``fc_1``), functions inside modules, a dropout only in train mode."""

    class Block(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = lib.nn.Conv2d(3, 3, 3, padding=1)
            self.fc_1 = lib.nn.ReLU()
            self.drop = lib.nn.Dropout(0.5)

        def forward(self, x):
            y = self.fc_1(self.conv(x))
            y = self.fc_1(y + x)
            y = lib.relu(y + 1) + x
            if self.training:
                y = self.drop(y)
            return y.mean() * 0 + y

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.b = lib.nn.Sequential(Block(), Block())
            self.head = lib.nn.Linear(3, 2)

        def forward(self, x):
            y = self.b(x)
            return self.head(lib.flatten(y.mean((2, 3)), 1))

    return Net


@pytest.fixture(scope="module")
def pair(tv):
    ours = net_class(chainrule)()
    theirs = net_class(torch)()
    state = {k: chainrule.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()}
    ours.load_state_dict(state)
    return ours, theirs


def fe_of(tv):
    from torchvision.models import feature_extraction

    return feature_extraction


def test_node_names_in_both_modes(tv, pair):
    ours, theirs = pair
    with warnings.catch_warnings(record=True) as mine:
        warnings.simplefilter("always")
        names = get_graph_node_names(ours)
    with warnings.catch_warnings(record=True) as its:
        warnings.simplefilter("always")
        expected = fe_of(tv).get_graph_node_names(theirs)
    assert names == expected
    assert "b.0.fc" in names[0] and "b.0.fc_1" in names[0] and "b.0.drop" not in names[1]
    assert [str(w.message) for w in mine] == [str(w.message) for w in its]
    assert "eval mode are a subsequence" in str(mine[0].message)


@pytest.mark.parametrize(
    "nodes",
    [["b.0", "b.1.add_1", "head"], {"b.0": "first"}, ["b.1.relu", "flatten"]],
    ids=["list", "dict", "functions"],
)
def test_extractor_code_and_values(tv, pair, nodes):
    ours, theirs = pair
    kwargs = {"return_nodes": nodes, "suppress_diff_warning": True}
    mine = create_feature_extractor(ours, **kwargs)
    its = fe_of(tv).create_feature_extractor(theirs, **kwargs)
    assert mine.code == its.code
    assert type(mine).__name__ == type(its).__name__ == "Net"
    x = np.random.default_rng(0).standard_normal((2, 3, 5, 5)).astype(np.float32)
    mine.eval(), its.eval()
    got, want = mine(chainrule.tensor(x)), its(torch.tensor(x))
    assert list(got) == list(want)
    for key in want:
        np.testing.assert_allclose(
            got[key].detach().numpy(), want[key].detach().numpy(), rtol=1e-5, atol=1e-6
        )


def test_train_and_eval_graphs_switch(tv, pair):
    ours, theirs = pair
    kwargs = {
        "train_return_nodes": ["b.0.drop", "head"],
        "eval_return_nodes": ["head"],
        "suppress_diff_warning": True,
    }
    mine = create_feature_extractor(ours, **kwargs)
    its = fe_of(tv).create_feature_extractor(theirs, **kwargs)
    assert mine.training and mine.code == its.code and "b_0_drop" in mine.code
    mine.eval(), its.eval()
    assert mine.code == its.code and "drop" not in mine.code
    mine.train(), its.train()
    assert mine.code == its.code
    assert str(mine) == str(its)


def test_gradients_flow_through_the_extractor(pair):
    ours, _ = pair
    fe = create_feature_extractor(ours, return_nodes=["head"], suppress_diff_warning=True).eval()
    x = chainrule.randn(1, 3, 4, 4, requires_grad=True)
    fe(x)["head"].sum().backward()
    expected = chainrule.autograd.grad(ours.eval()(x).sum(), x)[0]
    ours.train()
    np.testing.assert_allclose(x.grad.numpy(), expected.numpy(), rtol=1e-6)


def test_errors_as_torchvision(tv, pair):
    ours, theirs = pair
    cases = [
        {"return_nodes": ["nope"]},
        {},
        {"return_nodes": ["head"], "train_return_nodes": ["head"]},
        {"return_nodes": ["head"], "train_return_nodes": ["head"], "eval_return_nodes": ["head"]},
    ]
    for kwargs in cases:
        with pytest.raises(ValueError) as mine:
            create_feature_extractor(ours, suppress_diff_warning=True, **kwargs)
        with pytest.raises(ValueError) as its:
            fe_of(tv).create_feature_extractor(theirs, suppress_diff_warning=True, **kwargs)
        assert str(mine.value) == str(its.value)
    assert ours.training is theirs.training is True


@pytest.mark.parametrize("arch", ["resnet18", "resnet50"])
def test_resnet_graph_node_order_as_torchvision(tv, arch):
    """The shortcut (``downsample``) is traced after the block's main path, as in
    torchvision, so graphs and node names come in the same order."""
    ours = chainrule.fx.symbolic_trace(getattr(chainrule.vision.models, arch)())
    theirs = torch.fx.symbolic_trace(getattr(tv.models, arch)())
    assert [(n.op, n.name) for n in ours.graph.nodes] == [
        (n.op, n.name) for n in theirs.graph.nodes
    ]
