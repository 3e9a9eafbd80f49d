"""The loss layers of ``nn`` side by side with torch.nn: values, gradients of every
differentiable input and forward-mode tangents (``oracle.check``) and node names for every
reduction in float32 and float64, their ``weight``/``pos_weight`` buffers (state_dict keys,
conversion with ``to``), reprs, the legacy ``size_average``/``reduce`` with PyTorch's
warning, and PyTorch's constructor and input errors."""

from __future__ import annotations

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
    same_node,
    warns_as_torch,
)


def uniform(shape, seed=0, low=0.1, high=0.9):
    return np.random.default_rng(seed).uniform(low, high, shape)


X = randn((3, 4))
Y = randn((3, 4), seed=1)
Z = randn((3, 4), seed=2)
P = uniform((3, 4), seed=3)
Q = uniform((3, 4), seed=4)
SIGNS = NoGrad(np.sign(randn((3, 4), seed=5)))
T = L64(1, 3, 0)
W4 = uniform((4,), seed=6, low=0.5, high=2.0)
LABELS = L64([1, 2, -1, 0], [0, -1, 0, 0], [3, 2, 1, 0])
PAIR = L64(1, -1, 1)
RANK = NoGrad(np.array([1.0, -1.0, 1.0, -1.0]))
LOGITS = randn((6, 3, 5), seed=9)
TARGETS = L64([1, 2, 2], [3, 1, 0], [4, 4, 4])
IN_LENS, TARGET_LENS = L64(6, 5, 4), L64(3, 2, 1)


def weights(**arrays):
    """Constructor keywords holding tensors made from ``arrays`` in the input's dtype."""

    def make(lib, dtype):
        return {k: lib.tensor(v).to(dtype) for k, v in arrays.items()}

    return make


def plain(**kw):
    return lambda lib, dtype: kw


def cosine_distance(lib):
    return lambda u, v: 1 - lib.nn.functional.cosine_similarity(u, v)


# name -> (class, constructor keywords (lib, dtype) -> dict, inputs)
CASES = {
    "L1Loss": ("L1Loss", plain(), X, Y),
    "MSELoss": ("MSELoss", plain(), X, Y),
    "SmoothL1Loss": ("SmoothL1Loss", plain(beta=0.4), X, Y),
    "HuberLoss": ("HuberLoss", plain(delta=0.8), X * 2, Y),
    "BCELoss": ("BCELoss", plain(), P, Q),
    "BCELoss_weight": ("BCELoss", weights(weight=W4), P, Q),
    "BCEWithLogitsLoss": ("BCEWithLogitsLoss", plain(), X * 3, Q),
    "BCEWithLogitsLoss_weights": (
        "BCEWithLogitsLoss",
        weights(weight=P[0], pos_weight=W4),
        X * 3,
        Q,
    ),
    "SoftMarginLoss": ("SoftMarginLoss", plain(), X, SIGNS),
    "KLDivLoss": ("KLDivLoss", plain(), X, Q),
    "KLDivLoss_log_target": ("KLDivLoss", plain(log_target=True), X, Y),
    "PoissonNLLLoss": ("PoissonNLLLoss", plain(), X, Q * 3),
    "PoissonNLLLoss_full": ("PoissonNLLLoss", plain(log_input=False, full=True), P, Q * 3),
    "GaussianNLLLoss": ("GaussianNLLLoss", plain(), X, Y, P),
    "GaussianNLLLoss_full": ("GaussianNLLLoss", plain(full=True, eps=1e-3), X, Y, P[:, :1]),
    "NLLLoss": ("NLLLoss", plain(), X, T),
    "NLLLoss_weight_ignore": ("NLLLoss", weights(weight=W4), X, T),
    "CrossEntropyLoss": ("CrossEntropyLoss", plain(), X, T),
    "CrossEntropyLoss_smoothing": (
        "CrossEntropyLoss",
        lambda lib, dt: {
            "weight": lib.tensor(W4).to(dt),
            "ignore_index": 0,
            "label_smoothing": 0.2,
        },
        X,
        T,
    ),
    "CrossEntropyLoss_probabilities": ("CrossEntropyLoss", plain(), X, Q),
    "MultiMarginLoss": ("MultiMarginLoss", plain(), X, T),
    "MultiMarginLoss_p2": (
        "MultiMarginLoss",
        lambda lib, dt: {"p": 2, "margin": 0.6, "weight": lib.tensor(W4).to(dt)},
        X,
        T,
    ),
    "MultiLabelMarginLoss": ("MultiLabelMarginLoss", plain(), X, LABELS),
    "MultiLabelSoftMarginLoss": ("MultiLabelSoftMarginLoss", weights(weight=W4), X, Q),
    "CosineEmbeddingLoss": ("CosineEmbeddingLoss", plain(margin=0.1), X, Y, PAIR),
    "MarginRankingLoss": ("MarginRankingLoss", plain(margin=0.2), X[0], Y[0], RANK),
    "HingeEmbeddingLoss": ("HingeEmbeddingLoss", plain(margin=0.5), X, SIGNS),
    "TripletMarginLoss": ("TripletMarginLoss", plain(), X, Y, Z),
    "TripletMarginLoss_swap_p1": (
        "TripletMarginLoss",
        plain(margin=2.0, p=1, swap=True),
        X,
        Y,
        Z,
    ),
    "TripletMarginWithDistanceLoss": ("TripletMarginWithDistanceLoss", plain(), X, Y, Z),
    "TripletMarginWithDistanceLoss_cosine": (
        "TripletMarginWithDistanceLoss",
        lambda lib, dt: {"distance_function": cosine_distance(lib), "swap": True},
        X,
        Y,
        Z,
    ),
}
REDUCTIONS = ["none", "mean", "sum"]
# where torch's graph ends in a node chainrule names otherwise (as the functional tests'
# NODE_DIFFERS): PyTorch's C++ divides by a Scalar (DivBackward1)
NODE_DIFFERS = {("CrossEntropyLoss_probabilities", "mean")}
# the NLLLoss case with ignore_index: set after construction, as a module attribute
IGNORE = {"NLLLoss_weight_ignore": 3}


def torch_dtype(lib, dtype):
    return getattr(lib, np.dtype(dtype).name)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", list(CASES))
def test_loss_modules_match_torch(name, reduction, dtype):
    cls, kwargs, *inputs = CASES[name]

    def fn(lib, *xs):
        m = getattr(lib.nn, cls)(reduction=reduction, **kwargs(lib, torch_dtype(lib, dtype)))
        if name in IGNORE:
            m.ignore_index = IGNORE[name]
        return m(*xs)

    if cls == "KLDivLoss" and reduction == "mean":  # PyTorch's note on 'mean', and chainrule's
        fn = warns_as_torch("'mean' divides the total loss by both", fn)
    result = check(fn, *inputs, dtype=dtype)
    if (name, reduction) not in NODE_DIFFERS:
        same_node(result)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("kwargs", [{}, {"reduction": "sum"}, {"blank": 4, "reduction": "none"}])
def test_ctc_loss_module_matches_torch(kwargs, dtype):
    targets = TARGETS - (TARGETS == 4) if kwargs.get("blank") == 4 else TARGETS

    def fn(lib, x, t, il, tl):
        return lib.nn.CTCLoss(**kwargs)(x.log_softmax(-1), t, il, tl)

    same_node(check(fn, LOGITS, targets, IN_LENS, TARGET_LENS, dtype=dtype))


def test_ctc_loss_zero_infinity():
    def fn(lib, x, t, il, tl):
        return lib.nn.CTCLoss(zero_infinity=True)(x.log_softmax(-1), t, il, tl)

    check(fn, LOGITS, TARGETS, L64(2, 5, 4), TARGET_LENS)


def _buffers(lib):
    nn = lib.nn
    w = lib.tensor(W4, dtype=lib.float32)
    modules = [
        nn.CrossEntropyLoss(),
        nn.CrossEntropyLoss(weight=w),
        nn.NLLLoss(weight=w),
        nn.BCELoss(weight=w),
        nn.BCEWithLogitsLoss(pos_weight=w),
        nn.BCEWithLogitsLoss(weight=w, pos_weight=w * 2),
        nn.MultiLabelSoftMarginLoss(weight=w),
        nn.MultiMarginLoss(weight=w),
        nn.MSELoss(),
    ]
    out = []
    for m in modules:
        sd = m.state_dict()
        out.append((repr(m), list(sd), [tuple(v.shape) for v in sd.values()]))
        out.append(sorted(n for n, _ in m.named_buffers()))
        out.append([n for n, _ in m.named_parameters()])
        m.double()
        out.append([str(b.dtype) for b in m.buffers()])
        out.append(m.weight is None if hasattr(m, "weight") else "no weight")
    out.append(str(nn.Sequential(nn.ReLU(), nn.CrossEntropyLoss(weight=w))))
    return out


def test_buffers_state_dict_and_reprs_as_torch():
    got, want = _buffers(cr), _buffers(torch)
    assert got == want


def test_weight_buffer_follows_the_module_and_loads():
    def fn(lib):
        m = lib.nn.CrossEntropyLoss(weight=lib.ones(4))
        m.load_state_dict({"weight": lib.tensor(W4)})
        x = lib.tensor(X, dtype=lib.float32, requires_grad=True)
        loss = m(x, lib.tensor(T))
        loss.backward()
        return loss, x.grad, m.weight

    compare(fn, rtol=1e-5, atol=1e-6)


REPRS = [
    ("L1Loss", {}),
    ("MSELoss", {"reduction": "sum"}),
    ("CrossEntropyLoss", {"label_smoothing": 0.1}),
    ("NLLLoss", {"ignore_index": 1}),
    ("CTCLoss", {"blank": 1}),
    ("PoissonNLLLoss", {}),
    ("GaussianNLLLoss", {"full": True}),
    ("KLDivLoss", {"log_target": True}),
    ("BCELoss", {}),
    ("BCEWithLogitsLoss", {}),
    ("MarginRankingLoss", {"margin": 0.5}),
    ("HingeEmbeddingLoss", {}),
    ("MultiLabelMarginLoss", {}),
    ("HuberLoss", {"delta": 2}),
    ("SmoothL1Loss", {"beta": 0.5}),
    ("SoftMarginLoss", {}),
    ("MultiLabelSoftMarginLoss", {}),
    ("CosineEmbeddingLoss", {}),
    ("MultiMarginLoss", {"p": 2}),
    ("TripletMarginLoss", {"swap": True}),
]
ATTRS = ["reduction", "ignore_index", "label_smoothing", "blank", "zero_infinity", "log_input"]
ATTRS += ["full", "eps", "log_target", "margin", "delta", "beta", "p", "swap"]


def test_reprs_and_attributes_as_torch():
    def fn(lib):
        out = []
        for name, kw in REPRS:
            m = getattr(lib.nn, name)(**kw)
            attrs = {a: getattr(m, a) for a in ATTRS if hasattr(m, a)}
            out.append((repr(m), attrs, m.training, list(m.state_dict())))
        return out

    compare(fn)


def test_triplet_margin_with_distance_loss_holds_a_module_distance():
    def fn(lib):
        m = lib.nn.TripletMarginWithDistanceLoss(distance_function=lib.nn.Softsign(), margin=0.5)
        return repr(m), [n for n, _ in m.named_modules()], m.margin, m.swap

    compare(fn)


LEGACY = [(None, False), (False, None), (False, True), (True, False), (True, True)]


def _warned(fn, lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = fn(lib)
    return value, [(str(w.message), w.category.__name__) for w in caught]


@pytest.mark.parametrize("size_average, reduce", LEGACY)
@pytest.mark.parametrize(
    "name",
    ["L1Loss", "MSELoss", "NLLLoss", "CrossEntropyLoss", "BCELoss", "KLDivLoss", "SmoothL1Loss"]
    + ["MultiMarginLoss", "TripletMarginLoss", "PoissonNLLLoss", "MarginRankingLoss"],
)
def test_legacy_size_average_and_reduce(name, size_average, reduce):
    def fn(lib):
        m = getattr(lib.nn, name)(size_average=size_average, reduce=reduce)
        return m.reduction

    assert _warned(fn, cr) == _warned(fn, torch)


def test_legacy_reduction_applies():
    def fn(lib):
        with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
            m = lib.nn.MSELoss(size_average=False)
        return m(lib.tensor(X), lib.tensor(Y))

    compare(fn, rtol=1e-12)


def test_nllloss2d_is_deprecated_as_torch():
    def fn(lib):
        m = lib.nn.NLLLoss2d(ignore_index=1)
        x = lib.tensor(randn((2, 3, 2, 2))).log_softmax(1)
        return repr(m), m(x, lib.tensor(L64([[0, 1], [2, 1]], [[1, 1], [0, 2]])))

    (ours, our_warn), (theirs, their_warn) = _warned(fn, cr), _warned(fn, torch)
    assert_close(ours, theirs, requires_grad=False)
    assert our_warn == their_warn and len(their_warn) == 1


ERRORS = {
    "multi_margin_p": lambda lib: lib.nn.MultiMarginLoss(p=3),
    "multi_margin_weight_2d": lambda lib: lib.nn.MultiMarginLoss(weight=lib.ones(2, 2)),
    "triplet_margin": lambda lib: lib.nn.TripletMarginLoss(margin=0),
    "triplet_distance_margin": lambda lib: lib.nn.TripletMarginWithDistanceLoss(margin=-1.0),
    "triplet_distance_positional": lambda lib: lib.nn.TripletMarginWithDistanceLoss(None),
    "gaussian_positional": lambda lib: lib.nn.GaussianNLLLoss(True),
    "huber_delta": lambda lib: lib.nn.HuberLoss(delta="1"),
    "bad_reduction": lambda lib: lib.nn.L1Loss(reduction="avg")(lib.ones(2), lib.ones(2)),
    "bad_reduction_ce": lambda lib: lib.nn.CrossEntropyLoss(reduction="x")(
        lib.ones(2, 3), lib.tensor([0, 1])
    ),
    "ce_target_out_of_range": lambda lib: lib.nn.CrossEntropyLoss()(
        lib.ones(2, 3), lib.tensor([0, 3])
    ),
    "bce_shape": lambda lib: lib.nn.BCELoss()(lib.full((2, 3), 0.5), lib.ones(3, 2)),
    "mse_arity": lambda lib: lib.nn.MSELoss()(lib.ones(2)),
    "unexpected_kwarg": lambda lib: lib.nn.L1Loss(weight=None),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_as_torch(name):
    assert_same_error(ERRORS[name])
