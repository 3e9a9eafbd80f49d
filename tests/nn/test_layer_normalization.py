"""The normalisation layers side by side with torch.nn: ``LayerNorm``, ``GroupNorm``,
``RMSNorm``, ``LocalResponseNorm``, ``BatchNorm1d/2d/3d`` and
``InstanceNorm1d/2d/3d``: outputs, gradients of inputs and parameters, running statistics
in training and eval mode, reprs, state dicts, initial values, PyTorch's errors."""

from __future__ import annotations

from contextlib import nullcontext

import pytest
import torch

import chainrule as cr
from nn_layers import check_module, state_shapes
from oracle import DT_IDS, FLOATS, R, assert_same_error, compare

LAYER_NORM = [
    ((3,), {}, (2, 3)),
    ([2, 3], {}, (4, 2, 3)),
    (4, {"elementwise_affine": False}, (3, 4)),
    ((4,), {"bias": False}, (2, 5, 4)),
    ((2, 2), {"eps": 1e-3}, (2, 2)),
    (torch.Size([3]), {}, (3,)),
    ((64,), {}, (2, 5, 64)),  # (rows of 64 values or more: a BLAS dot per row)
]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("shape,kw,x", LAYER_NORM, ids=lambda v: str(v))
def test_layer_norm(shape, kw, x, dtype):
    check_module(lambda lib: lib.nn.LayerNorm(shape, **kw), R(*x), dtype=dtype)


def test_layer_norm_parameters():
    m = cr.nn.LayerNorm([2, 3], dtype=cr.float64)
    assert m.normalized_shape == (2, 3) and m.eps == 1e-5 and m.elementwise_affine
    assert cr.equal(m.weight, cr.ones(2, 3, dtype=cr.float64))
    assert cr.equal(m.bias, cr.zeros(2, 3, dtype=cr.float64))
    assert cr.nn.LayerNorm(3, elementwise_affine=False).weight is None
    assert list(cr.nn.LayerNorm(3, bias=False).state_dict()) == ["weight"]


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib: lib.nn.LayerNorm(3)(lib.ones(2, 4)),
        lambda lib: lib.nn.LayerNorm([2, 3])(lib.ones(3, 2)),
    ],
)
def test_layer_norm_errors(fn):
    assert_same_error(fn)


# ----- GroupNorm, RMSNorm, LocalResponseNorm -----------------------------------

OTHERS = [
    ("GroupNorm", (2, 4), {}, (3, 4, 5)),
    ("GroupNorm", (1, 3), {"affine": False}, (2, 3, 2, 2)),
    ("GroupNorm", (3, 6), {"eps": 1e-3, "bias": False}, (2, 6)),
    ("GroupNorm", (2, 4), {}, (2, 4, 12, 12)),  # (rows of 128 values or more)
    ("RMSNorm", (4,), {}, (3, 4)),
    ("RMSNorm", ([2, 3],), {"eps": 1e-4}, (4, 2, 3)),
    ("RMSNorm", (3,), {"elementwise_affine": False}, (2, 5, 3)),
    ("LocalResponseNorm", (2,), {}, (2, 5, 4)),
    ("LocalResponseNorm", (3, 0.01, 0.5, 2.0), {}, (2, 6, 3, 3)),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name,args,kw,x", OTHERS, ids=lambda v: str(v))
def test_other_norms(name, args, kw, x, dtype):
    check_module(lambda lib: getattr(lib.nn, name)(*args, **kw), R(*x), dtype=dtype)


def test_group_norm_errors():
    assert_same_error(lambda lib: lib.nn.GroupNorm(3, 4))
    assert_same_error(lambda lib: lib.nn.GroupNorm(2, 4)(lib.ones(2, 6, 3)))


# ----- BatchNorm -------------------------------------------------------------------------------

BATCH = [
    ("BatchNorm1d", (3,), {}, (4, 3)),
    ("BatchNorm1d", (3,), {"momentum": 0.3}, (4, 3, 5)),
    ("BatchNorm1d", (3,), {"affine": False}, (4, 3, 2)),
    ("BatchNorm1d", (3,), {"track_running_stats": False}, (4, 3)),
    ("BatchNorm2d", (2,), {}, (3, 2, 4, 4)),
    ("BatchNorm2d", (2,), {"momentum": None, "eps": 1e-3}, (3, 2, 3, 2)),
    ("BatchNorm2d", (2,), {"bias": False}, (3, 2, 3, 2)),
    ("BatchNorm3d", (2,), {}, (2, 2, 3, 2, 2)),
    ("BatchNorm3d", (2,), {"affine": False, "track_running_stats": False}, (2, 2, 2, 2, 2)),
    # (on arrays: rows of several samples, a channel's values a long run in each)
    ("BatchNorm1d", (16,), {}, (32, 16)),
    ("BatchNorm2d", (4,), {"momentum": 0.2}, (6, 4, 9, 9)),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("name,args,kw,x", BATCH, ids=lambda v: str(v))
def test_batch_norm(name, args, kw, x, train, dtype):
    """One call in training or eval mode: outputs, gradients and the running statistics
    and batch count after the call."""
    check_module(lambda lib: getattr(lib.nn, name)(*args, **kw), R(*x), dtype=dtype, train=train)


@pytest.mark.parametrize("momentum", [0.1, None], ids=["ema", "cumulative"])
def test_batch_norm_running_stats_over_steps(momentum):
    """Three training steps (momentum None: the cumulative average), then eval."""

    def run(lib):
        m = lib.nn.BatchNorm2d(3, momentum=momentum).double()
        outs = []
        for step in range(3):
            outs.append(m(lib.tensor(R(4, 3, 2, 2, seed=step))))
        m.eval()
        outs.append(m(lib.tensor(R(2, 3, 2, 2, seed=9))))
        m.train()
        m.reset_running_stats()
        return outs + [dict(m.named_buffers())]

    compare(run, rtol=1e-10, atol=1e-12)


def test_batch_norm_state_and_repr():
    def mods(lib):
        nn = lib.nn
        return nn.Sequential(
            nn.BatchNorm1d(3),
            nn.BatchNorm2d(4, eps=1e-3, momentum=None, affine=False),
            nn.BatchNorm3d(2, track_running_stats=False, bias=False),
            nn.InstanceNorm1d(3),
            nn.InstanceNorm2d(4, affine=True, track_running_stats=True),
            nn.InstanceNorm3d(2, momentum=0.2, affine=True, bias=False),
            nn.GroupNorm(2, 4),
            nn.RMSNorm([2, 3]),
            nn.LocalResponseNorm(3),
        )

    c, t = mods(cr), mods(torch)
    assert str(c) == str(t)
    assert state_shapes(c) == state_shapes(t)
    assert c[0].num_batches_tracked.dtype == cr.int64 and c[0].num_batches_tracked.item() == 0
    assert cr.equal(c[0].running_var, cr.ones(3))


def test_batch_norm_old_state_dict():
    """A state dict without num_batches_tracked (version 1) still loads."""
    for lib in (cr, torch):
        m = lib.nn.BatchNorm1d(2)
        sd = m.state_dict()
        del sd["num_batches_tracked"]
        sd._metadata[""]["version"] = 1
        assert not m.load_state_dict(sd).missing_keys


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib: lib.nn.BatchNorm1d(3)(lib.ones(2, 3, 4, 5)),
        lambda lib: lib.nn.BatchNorm1d(3)(lib.ones(3)),
        lambda lib: lib.nn.BatchNorm2d(3)(lib.ones(2, 3, 4)),
        lambda lib: lib.nn.BatchNorm3d(3)(lib.ones(2, 3, 4, 4)),
        lambda lib: lib.nn.BatchNorm1d(3)(lib.ones(1, 3)),
        lambda lib: lib.nn.InstanceNorm2d(3)(lib.ones(2, 3)),
        lambda lib: lib.nn.InstanceNorm1d(3, affine=True)(lib.ones(2, 4, 5)),
    ],
    ids=[
        "bn1d-4d",
        "bn1d-1d",
        "bn2d",
        "bn3d",
        "one-value",
        "in-dims",
        "in-features",
    ],
)
def test_norm_errors(fn):
    assert_same_error(fn)


# ----- InstanceNorm ----------------------------------------------------------------------------

INSTANCE = [
    ("InstanceNorm1d", (3,), {}, (2, 3, 5)),
    ("InstanceNorm1d", (3,), {"affine": True}, (3, 5)),
    ("InstanceNorm1d", (3,), {"affine": True, "track_running_stats": True}, (2, 3, 6)),
    ("InstanceNorm2d", (2,), {"affine": True, "bias": False}, (3, 2, 3, 4)),
    ("InstanceNorm2d", (2,), {"track_running_stats": True, "momentum": 0.4}, (2, 3, 4)),
    ("InstanceNorm3d", (2,), {"affine": True, "eps": 1e-3}, (2, 2, 2, 3, 2)),
    # (rows of 128 values or more)
    ("InstanceNorm2d", (3,), {"affine": True, "track_running_stats": True}, (2, 3, 12, 12)),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("name,args,kw,x", INSTANCE, ids=lambda v: str(v))
def test_instance_norm(name, args, kw, x, train, dtype):
    check_module(lambda lib: getattr(lib.nn, name)(*args, **kw), R(*x), dtype=dtype, train=train)


def test_instance_norm_feature_warning():
    for lib in (cr, torch):
        with pytest.warns(UserWarning, match="does not match num_features"):
            lib.nn.InstanceNorm1d(3)(lib.ones(2, 4, 5))


# ----- the lazy norms --------------------------------------------------------------------------

LAZY = [
    ("LazyBatchNorm1d", {}, (4, 3)),
    ("LazyBatchNorm2d", {"affine": False}, (3, 2, 3, 3)),
    ("LazyBatchNorm3d", {"momentum": None}, (2, 2, 2, 2, 2)),
    ("LazyInstanceNorm1d", {}, (2, 3, 5)),
    ("LazyInstanceNorm2d", {"affine": False, "track_running_stats": False}, (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", {}, (2, 2, 2, 3, 2)),
]


@pytest.mark.parametrize("name,kw,x", LAZY, ids=lambda v: str(v))
def test_lazy_norms(name, kw, x):
    def run(lib):
        m = getattr(lib.nn, name)(**kw).double()
        before = (repr(m), list(m.state_dict()))
        y = m(lib.tensor(R(*x)))
        return [before, type(m).__name__, repr(m), y, dict(m.named_buffers()), state_shapes(m)]

    # an InstanceNorm without affine ignores num_features: both libraries warn when the
    # input's channels differ from the lazy module's num_features (0 before the first call)
    warns = name.startswith("LazyInstanceNorm") and not kw.get("affine", True)
    with pytest.warns(UserWarning, match="does not match num_features") if warns else nullcontext():
        compare(run, rtol=1e-10, atol=1e-12, requires_grad=False)
