"""``nn.AdaptiveLogSoftmaxWithLoss`` side by side with torch.nn, torch's weights loaded into
chainrule's module: the sizes, names and repr of the head and the clusters, ``forward``'s
``(output, loss)`` and their gradients (input and every weight, batched and unbatched),
``log_prob``, ``predict``, the state dict both ways, PyTorch's errors, and a few SGD steps
ending at torch's weights."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from nn_layers import check_module, lib_dtype, pair, state_shapes
from oracle import DT_IDS, FLOATS, assert_same, assert_same_error, randn, to_numpy

# (in_features, n_classes, cutoffs, keyword arguments)
CONFIGS = [
    (8, 10, [3, 6], {}),
    (8, 10, [3, 6], {"div_value": 2.0}),
    (6, 12, (2, 5, 9), {"div_value": 1.5, "head_bias": True}),
    (4, 5, [4], {}),  # one cluster of one class
    (3, 10, [3, 6], {}),  # cluster projections of width 0: log_softmax of zeros
]
CONFIG_IDS = ["two", "div2", "three_bias", "one", "zero_width"]


def ctor(config):
    in_features, n_classes, cutoffs, kw = config

    def build(lib):
        with warnings.catch_warnings():  # zero-width weights: "a no-op" from both
            warnings.simplefilter("ignore")
            return lib.nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, cutoffs, **kw)

    return build


def targets(n_classes: int, n: int, seed: int = 0) -> np.ndarray:
    """``n`` labels in ``[0, n_classes)``: the first and the last class always among them."""
    y = np.random.default_rng(seed).integers(0, n_classes, n)
    y[0], y[-1] = 0, n_classes - 1
    return y.astype(np.int64)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
def test_forward_output_loss_and_gradients(config, dtype):
    in_features, n_classes = config[0], config[1]
    check_module(ctor(config), randn((9, in_features)), targets(n_classes, 9), dtype=dtype)


@pytest.mark.parametrize(
    "y",
    [[0, 1, 2, 1], [3, 4, 5, 3], [0, 9, 8, 7], [5]],
    ids=["head_only", "first_cluster_only", "head_and_last_cluster", "one_row"],
)
def test_forward_skips_the_clusters_without_targets(y):
    y = np.array(y, dtype=np.int64)
    check_module(ctor(CONFIGS[0]), randn((len(y), 8), seed=3), y, dtype=np.float64)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("label", [1, 4, 9])
def test_unbatched_input_and_0d_target(label, dtype):
    cm, tm = check_module(
        ctor(CONFIGS[0]), randn((8,), seed=5), np.array(label, dtype=np.int64), dtype=dtype
    )
    assert cm(cr.zeros(8, dtype=lib_dtype(cr, dtype)), cr.tensor(label)).output.shape == ()


def test_empty_batch_gives_nan_loss():
    check_module(ctor(CONFIGS[0]), randn((0, 8)), np.zeros(0, dtype=np.int64), dtype=np.float64)


def test_output_is_the_named_tuple():
    cm, tm = pair(ctor(CONFIGS[0]), np.float64)
    x, y = randn((3, 8)), np.array([0, 5, 9])
    got = cm(cr.tensor(x), cr.tensor(y))
    want = tm(torch.from_numpy(x), torch.from_numpy(y))
    assert type(got).__name__ == type(want).__name__ == "_ASMoutput"
    assert got._fields == want._fields == ("output", "loss")
    # loss = -mean(output): the average negative log-likelihood
    np.testing.assert_allclose(to_numpy(got.loss), -to_numpy(want.output).mean(), rtol=1e-12)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
def test_log_prob_and_its_gradients(config, dtype):
    cm, tm = check_module(
        ctor(config), randn((5, config[0]), seed=7), dtype=dtype, call=lambda m, x: m.log_prob(x)
    )
    x = torch.from_numpy(randn((5, config[0]), seed=7)).to(lib_dtype(torch, dtype))
    # a distribution over all the classes: the probabilities sum to 1
    np.testing.assert_allclose(to_numpy(tm.log_prob(x).exp().sum(1)), 1, rtol=1e-5)


def _predicts(config, x: np.ndarray, shift: float = 0.0):
    """Both modules' ``predict(x)``, torch's ``log_prob(x).argmax(1)`` and how many rows
    the head sends to a cluster; ``shift`` is added to the head's cluster rows first."""
    cm, tm = pair(ctor(config), np.float64)
    with torch.no_grad():
        tm.head.weight[tm.shortlist_size :] += shift
    cm.load_state_dict({k: cr.tensor(to_numpy(v)) for k, v in tm.state_dict().items()})
    tx = torch.from_numpy(x)
    in_clusters = int((tm.head(tx).argmax(1) >= tm.shortlist_size).sum())
    return cm.predict(cr.tensor(x)), tm.predict(tx), tm.log_prob(tx).argmax(1), in_clusters


@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
@pytest.mark.parametrize("case", ["head", "clusters", "mixed"])
def test_predict(config, case):
    """The three ways through ``predict``: no row, every row, some rows in a cluster."""
    x = randn((12, config[0]), seed=11)
    if case != "mixed":  # positive inputs: a shift of the cluster rows moves every logit
        x = np.abs(x) + 0.1
    shift = {"head": -20.0, "clusters": 20.0, "mixed": 0.0}[case]
    got, want, argmax, in_clusters = _predicts(config, x, shift)
    assert_same(got, want, "predict")
    assert torch.equal(want, argmax)
    assert not got.requires_grad
    if case == "head":
        assert in_clusters == 0
    elif case == "clusters":
        assert in_clusters == len(x)
    else:
        assert 0 < in_clusters < len(x), in_clusters


def test_structure_repr_and_attributes():
    for config in CONFIGS:
        cm, tm = ctor(config)(cr), ctor(config)(torch)
        assert repr(cm) == repr(tm)
        assert state_shapes(cm) == state_shapes(tm)
        assert [n for n, _ in cm.named_modules()] == [n for n, _ in tm.named_modules()]
        for name in (
            "in_features",
            "n_classes",
            "cutoffs",
            "div_value",
            "head_bias",
            "shortlist_size",
            "n_clusters",
            "head_size",
        ):
            assert getattr(cm, name) == getattr(tm, name), name
        assert type(cm.cutoffs) is list


def test_dtype_and_device_arguments():
    def build(lib):
        return lib.nn.AdaptiveLogSoftmaxWithLoss(
            6, 9, [2], head_bias=True, dtype=lib.float64, device="cpu"
        )

    assert state_shapes(build(cr)) == state_shapes(build(torch))
    assert all(str(p.device) == "cpu" for p in build(cr).parameters())


def test_state_dict_both_ways():
    cm, tm = pair(ctor(CONFIGS[2]), np.float64)
    assert (
        list(cm.state_dict())
        == list(tm.state_dict())
        == [
            "head.weight",
            "head.bias",
            "tail.0.0.weight",
            "tail.0.1.weight",
            "tail.1.0.weight",
            "tail.1.1.weight",
            "tail.2.0.weight",
            "tail.2.1.weight",
        ]
    )
    back = ctor(CONFIGS[2])(torch).double()
    back.load_state_dict({k: torch.from_numpy(to_numpy(v)) for k, v in cm.state_dict().items()})
    for (k, v), (k2, w) in zip(back.state_dict().items(), tm.state_dict().items(), strict=True):
        assert k == k2 and torch.equal(v, w), k


def test_reset_parameters_draws_linear_init():
    cr.manual_seed(
        0
    )  # (7 draws of the head's bias: a spread below bound/4 is rare, not impossible)
    m = cr.nn.AdaptiveLogSoftmaxWithLoss(16, 40, [5, 20], head_bias=True)
    with cr.no_grad():
        for p in m.parameters():
            p.fill_(7.0)
    m.reset_parameters()
    for name, p in m.named_parameters():
        # every weight and the head's bias: U(-1/sqrt(fan_in), 1/sqrt(fan_in))
        bound = 1 / math.sqrt(16 if name.startswith("head") else p.shape[1])
        a = to_numpy(p)
        assert np.all(np.abs(a) <= bound) and a.std() > bound / 4, name


def test_training_reaches_torchs_weights():
    cm, tm = pair(ctor(CONFIGS[2]), np.float64)
    copt = cr.optim.SGD(cm.parameters(), lr=0.1, momentum=0.9)
    topt = torch.optim.SGD(tm.parameters(), lr=0.1, momentum=0.9)
    for step in range(5):
        x, y = randn((16, 6), seed=20 + step), targets(12, 16, seed=step)
        for lib, m, opt in ((cr, cm, copt), (torch, tm, topt)):
            opt.zero_grad()
            m(lib.tensor(x), lib.tensor(y)).loss.backward()
            opt.step()
    for (name, c), (_, t) in zip(cm.named_parameters(), tm.named_parameters(), strict=True):
        assert_same(c, t, name, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "args",
    [
        (8, 10, []),
        (8, 10, [6, 3]),
        (8, 10, [3, 3]),
        (8, 10, [0, 3]),
        (8, 10, [3, 10]),
        (8, 10, [2.5, 6]),
        (8, 10, [-1]),
        (8, 10, [None]),
        (8, 10, ["3"]),
    ],
    ids=[
        "empty",
        "unsorted",
        "repeated",
        "zero",
        "n_classes",
        "fraction",
        "negative",
        "none",
        "string",
    ],
)
def test_cutoff_errors(args):
    assert_same_error(lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(*args))


FORWARD_ERRORS = {  # (input shape, target, input dtype)
    "batch_sizes": ((4, 8), [0, 1, 2], "float32"),
    "1d_target_1d_input": ((8,), [0] * 8, "float32"),
    "1d_target_3d_input": ((2, 3, 8), [0, 1], "float32"),
    "0d_target_2d_input": ((1, 8), 1, "float32"),
    "2d_target": ((2, 8), [[0], [1]], "float32"),
    "label_too_large": ((3, 8), [0, 10, 4], "float32"),
    "negative_label": ((3, 8), [-1, 2, 4], "float32"),
    "0d_label_too_large": ((8,), 12, "float32"),
    "0d_input": ((), [0], "float32"),
    "features_in_a_cluster": ((3, 7), [0, 1, 7], "float32"),
    "features_in_the_head": ((3, 7), [0, 1, 2], "float32"),
    "float_target": ((3, 8), [0.0, 4.0, 9.0], "float32"),
    "float64_input": ((3, 8), [0, 1, 5], "float64"),
}


@pytest.mark.parametrize("case", FORWARD_ERRORS)
def test_forward_errors(case):
    shape, y, dtype = FORWARD_ERRORS[case]

    def run(lib):
        m = ctor(CONFIGS[0])(lib)
        return m(lib.tensor(randn(shape), dtype=getattr(lib, dtype)), lib.tensor(y))

    assert_same_error(run)


def test_int32_targets():
    y = targets(10, 7, seed=4).astype(np.int32)
    check_module(ctor(CONFIGS[0]), randn((7, 8), seed=4), y, dtype=np.float64)


@pytest.mark.parametrize("method", ["log_prob", "predict"])
def test_log_prob_and_predict_want_a_batch(method):
    def run(lib):
        return getattr(ctor(CONFIGS[0])(lib), method)(lib.zeros(8))

    assert_same_error(run)
