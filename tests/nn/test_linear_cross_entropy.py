"""``F.linear_cross_entropy`` and ``nn.LinearCrossEntropyLoss`` side by side with PyTorch
2.13's: values, gradients of input, linear weight and bias (and probability targets) and
forward-mode tangents for class-index and probability targets, every reduction, class
weights, ignore_index, label smoothing, the K-dimensional loss and one sample; the module
with torch's state_dict loaded into it, its repr, state_dict keys, initialization bound,
``LinearCrossEntropyOptions`` (fields, checks, PyTorch's warning where chunking cannot
apply) and PyTorch's errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import (
    DT_IDS,
    FLOATS,
    L64,
    NoGrad,
    assert_close,
    assert_same_error,
    check,
    compare,
    randn,
    warns_as_torch,
)

X = randn((4, 3), seed=1)  # a batch of 4 samples of 3 features
W = randn((5, 3), seed=2)  # 5 classes
B = randn((5,), seed=3)
T = L64(1, 4, 0, 2)
WK = randn((5, 2, 3), seed=4)  # K = 1: 5 classes at each of 2 positions
BK = randn((5, 2), seed=5)
TK = L64([1, 4], [0, 0], [3, 2], [4, 1])
CLASS_W = NoGrad(np.random.default_rng(6).uniform(0.5, 2.0, (5,)))


def probabilities(shape, seed):
    """Rows that sum to 1 along dim 1 (the classes)."""
    p = np.random.default_rng(seed).uniform(0.1, 1.0, shape)
    return p / p.sum(axis=1, keepdims=True)


P = probabilities((4, 5), 7)
PK = probabilities((4, 5, 2), 8)


def lce(**kw):
    """``linear_cross_entropy(x, w, t, **kw)`` of the case's inputs."""
    return lambda L, x, w, t: L.nn.functional.linear_cross_entropy(x, w, t, **kw)


def with_bias(**kw):
    return lambda L, x, w, b, t: L.nn.functional.linear_cross_entropy(x, w, t, linear_bias=b, **kw)


def with_class_weight(**kw):
    return lambda L, x, w, t, c: L.nn.functional.linear_cross_entropy(x, w, t, weight=c, **kw)


CASES = {
    "class_indices": (lce(), X, W, T),
    "bias": (with_bias(), X, W, B, T),
    "none": (with_bias(reduction="none"), X, W, B, T),
    "sum": (lce(reduction="sum"), X, W, T),
    "weight": (with_class_weight(), X, W, T, CLASS_W),
    "weight_sum_ignore": (with_class_weight(reduction="sum", ignore_index=4), X, W, T, CLASS_W),
    "ignore_index": (lce(ignore_index=0), X, W, T),
    "ignore_index_none": (lce(ignore_index=1, reduction="none"), X, W, T),
    "label_smoothing": (with_class_weight(label_smoothing=0.2), X, W, T, CLASS_W),
    "probabilities": (lce(), X, W, P),
    "probabilities_smoothing_none": (lce(label_smoothing=0.3, reduction="none"), X, W, P),
    "probabilities_weight": (with_class_weight(reduction="sum"), X, W, NoGrad(P), CLASS_W),
    "k_dim": (with_bias(), X, WK, BK, TK),
    "k_dim_none_ignore": (lce(reduction="none", ignore_index=4), X, WK, TK),
    "k_dim_probabilities": (with_bias(label_smoothing=0.1), X, WK, BK, PK),
    "one_sample": (with_bias(), X[0], W, B, L64(3).reshape(())),
    "one_sample_probabilities": (lce(reduction="none"), X[0], W, P[0]),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(name, dtype):
    fn, *inputs = CASES[name]
    check(fn, *inputs, dtype=dtype)


def test_equals_linear_then_cross_entropy():
    """PyTorch's definition: cross_entropy(linear(x, W, b), t) (chainrule on both sides)."""
    x, w, b = (cr.tensor(a) for a in (X, W, B))
    got = cr.nn.functional.linear_cross_entropy(x, w, cr.tensor(T), linear_bias=b)
    want = cr.nn.functional.cross_entropy(cr.nn.functional.linear(x, w, b), cr.tensor(T))
    assert_close(got, want, 1e-12, 1e-12)


OPTIONS = cr.nn.LinearCrossEntropyOptions


@pytest.mark.parametrize(
    "kw",
    [{}, {"reduction": "none", "weight": CLASS_W}, {"reduction": "sum", "ignore_index": 2}],
    ids=["mean", "none_weight", "sum_ignore"],
)
def test_options_give_the_reference_values(kw):
    """With options PyTorch chunks the batch; chainrule computes the reference way: the
    same values and gradients."""

    def fn(L, x, w, b, t):
        args = {k: L.tensor(v.array) if isinstance(v, NoGrad) else v for k, v in kw.items()}
        opts = L.nn.LinearCrossEntropyOptions(batch_chunk_size=2, chunking_method=None)
        return L.nn.functional.linear_cross_entropy(x, w, t, linear_bias=b, options=opts, **args)

    check(fn, X, W, B, T, dtype=np.float64, forward=False)  # (torch: no forward mode there)


def test_options_warn_where_chunking_cannot_apply():
    def fn(L, x, w, t):
        opts = L.nn.LinearCrossEntropyOptions()
        return L.nn.functional.linear_cross_entropy(x, w, t, label_smoothing=0.1, options=opts)

    check(warns_as_torch("``options`` ignored; chunked path needs", fn), X, W, T)
    with warnings.catch_warnings(record=True) as torch_said:
        warnings.simplefilter("always")
        fn(torch, torch.tensor(X), torch.tensor(W), torch.tensor(T))
    with pytest.warns(UserWarning) as cr_said:
        fn(cr, cr.tensor(X), cr.tensor(W), cr.tensor(T))
    assert [str(w.message) for w in cr_said] == [str(w.message) for w in torch_said]


def test_options_fields_defaults_and_repr():
    def fn(L):
        o = L.nn.LinearCrossEntropyOptions()
        p = L.nn.LinearCrossEntropyOptions(
            allow_retain_graph=True, batch_chunk_size=8, chunking_method="aspect_ratio:2"
        )
        fields = [f.name for f in __import__("dataclasses").fields(o)]
        return (
            repr(o),
            repr(p),
            fields,
            o == L.nn.LinearCrossEntropyOptions(),
            hash(o) == hash(L.nn.LinearCrossEntropyOptions()),
        )

    compare(fn)
    with pytest.raises(AttributeError):  # frozen, as PyTorch's
        OPTIONS().batch_chunk_size = 3


@pytest.mark.parametrize(
    "kw",
    [
        {"acc_policy": "fast"},
        {"chunking_method": "aspect_ratio:0"},
        {"chunking_method": "square"},
        {"batch_chunk_size": 0},
        {"batch_chunk_size": 2.0},
        {"acc_dtype": "int64"},
    ],
    ids=lambda kw: next(iter(kw)) + "=" + str(next(iter(kw.values()))),
)
def test_options_errors_match_torch(kw):
    def fn(L):
        args = {k: getattr(L, v) if k == "acc_dtype" else v for k, v in kw.items()}
        return L.nn.LinearCrossEntropyOptions(**args)

    assert_same_error(fn)


def _f(L):
    return L.nn.functional.linear_cross_entropy


ERRORS = {
    "scalar_input": lambda L: _f(L)(L.tensor(1.0), L.tensor(W), L.tensor(T)),
    "matrix_batch": lambda L: _f(L)(L.tensor(randn((2, 4, 3))), L.tensor(W), L.tensor(T)),
    "vector_weight": lambda L: _f(L)(L.tensor(X), L.tensor(B), L.tensor(T)),
    "in_features": lambda L: _f(L)(L.tensor(X), L.tensor(W[:, :2]), L.tensor(T)),
    "bias_shape": lambda L: _f(L)(L.tensor(X), L.tensor(WK), L.tensor(TK), linear_bias=L.tensor(B)),
    "k_dim_one_sample": lambda L: _f(L)(L.tensor(X[0]), L.tensor(WK), L.tensor(TK[0])),
    "probabilities_ignore_index": lambda L: _f(L)(
        L.tensor(X), L.tensor(W), L.tensor(P), ignore_index=-100
    ),
    "target_shape": lambda L: _f(L)(L.tensor(X), L.tensor(W), L.tensor(T[:3])),
    "class_weight_size": lambda L: _f(L)(
        L.tensor(X), L.tensor(W), L.tensor(T), weight=L.tensor(B[:3])
    ),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(name):
    assert_same_error(ERRORS[name])


# ----- the module -----------------------------------------------------------------------


def _pair(in_features, num_classes, seed=0, **kw):
    """torch's module (its own initialization) and chainrule's with torch's state_dict."""
    torch.manual_seed(seed)
    weight = kw.pop("weight", None)
    t = torch.nn.LinearCrossEntropyLoss(
        in_features,
        num_classes,
        dtype=torch.float64,
        weight=None if weight is None else torch.tensor(weight),
        **kw,
    )
    c = cr.nn.LinearCrossEntropyLoss(
        in_features,
        num_classes,
        dtype=cr.float64,
        weight=None if weight is None else cr.tensor(weight),
        **kw,
    )
    c.load_state_dict({k: cr.tensor(v.numpy()) for k, v in t.state_dict().items()})
    return c, t


MODULES = {
    "plain": ({}, X, T),
    "bias_k_dim": ({"out_features": (2,), "bias": True}, X, TK),
    "probabilities_k_dim": ({"out_features": (2,), "bias": True, "reduction": "sum"}, X, PK),
    "weight_ignore_smoothing": (
        {"weight": CLASS_W.array, "ignore_index": 4, "label_smoothing": 0.2, "reduction": "none"},
        X,
        T,
    ),
}


@pytest.mark.parametrize("name", list(MODULES))
def test_module_with_torch_state_dict_matches_torch(name):
    kw, x, target = MODULES[name]
    c, t = _pair(3, 5, **kw)
    xs = [torch.tensor(x, requires_grad=True), cr.tensor(x, requires_grad=True)]
    outs = [t(xs[0], torch.tensor(target)), c(xs[1], cr.tensor(target))]
    g = np.random.default_rng(9).standard_normal(tuple(outs[0].shape))
    outs[0].backward(torch.tensor(g))
    outs[1].backward(cr.tensor(g))
    got = [outs[1], xs[1].grad, *(p.grad for p in c.parameters())]
    want = [outs[0], xs[0].grad, *(p.grad for p in t.parameters())]
    assert_close(got, want, 1e-10, 1e-12)


def test_module_parameters_repr_and_state_dict():
    def fn(L):
        modules = [
            L.nn.LinearCrossEntropyLoss(3, 5),
            L.nn.LinearCrossEntropyLoss(
                4,
                6,
                out_features=(2, 3),
                bias=True,
                weight=L.ones(6),
                reduction="sum",
                ignore_index=1,
                label_smoothing=0.25,
            ),
            L.nn.LinearCrossEntropyLoss(3, 5, options=L.nn.LinearCrossEntropyOptions()),
        ]
        out = []
        for m in modules:
            sd = m.state_dict()
            out.append((repr(m), list(sd), [tuple(v.shape) for v in sd.values()]))
            out.append([(n, tuple(p.shape)) for n, p in m.named_parameters()])
            out.append((m.num_classes, m.out_features, m.ignore_index, repr(m.options)))
        return out

    compare(fn)


def test_module_initialization_is_linears():
    """The flat linear weight, Linear's uniform(-1/√in, 1/√in) (as torch's module)."""
    m = cr.nn.LinearCrossEntropyLoss(16, 5, out_features=(3,), bias=True)
    bound = 1 / math.sqrt(16)
    for p in (m.linear.weight, m.linear.bias):
        a = p.detach().numpy()
        assert np.abs(a).max() <= bound and np.abs(a).max() > bound / 2 and a.std() > bound / 4


def test_module_dtype_and_training_step():
    m = cr.nn.LinearCrossEntropyLoss(3, 5, bias=True, dtype=cr.float64)
    assert m.linear.weight.dtype == cr.float64 and m.linear.bias.dtype == cr.float64
    before = m(cr.tensor(X), cr.tensor(T))
    opt = cr.optim.SGD(m.parameters(), lr=0.5)
    before.backward()
    opt.step()
    assert m(cr.tensor(X), cr.tensor(T)).item() < before.item()


@pytest.mark.parametrize(
    "kw",
    [{"weight": "ones3"}, {"label_smoothing": 1.5}, {"label_smoothing": -0.1}],
    ids=["weight_shape", "smoothing_above", "smoothing_below"],
)
def test_module_constructor_errors_match_torch(kw):
    def fn(L):
        args = {k: L.ones(3) if v == "ones3" else v for k, v in kw.items()}
        return L.nn.LinearCrossEntropyLoss(4, 5, **args)

    assert_same_error(fn)
