"""The normalization layers of nn.functional against PyTorch: batch_norm (training and
evaluation, the running statistics updated in place), instance_norm, layer_norm,
group_norm, local_response_norm, rms_norm; float32 and float64, with and without weight
and bias, batches of any rank, values, gradients of input, weight and bias, tangents, node
names, finite differences, second derivatives, and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import chainrule as cr
from chainrule.ops import norm_arrays, norm_layers
from oracle import (
    DT_IDS,
    FLOATS,
    NoGrad,
    assert_same,
    assert_same_error,
    check,
    check_double_backward,
    check_fd,
    randn,
    same_node,
)


def F(lib):
    return lib.nn.functional


def pos(shape, seed=0):
    return np.random.default_rng(seed).uniform(0.5, 2.0, shape)


C = 3  # channels
W, Bv = pos((C,), 1), randn((C,), seed=2)
RM, RV = NoGrad(randn((C,), seed=3)), NoGrad(pos((C,), 4))


def _bn(training, affine=True, running=True, momentum=0.1):
    if affine and running:
        return lambda L, x, rm, rv, w, b: F(L).batch_norm(x, rm, rv, w, b, training, momentum)
    if affine:
        return lambda L, x, w, b: F(L).batch_norm(x, None, None, w, b, training, momentum)
    if running:
        return lambda L, x, rm, rv: F(L).batch_norm(x, rm, rv, training=training)
    return lambda L, x: F(L).batch_norm(x, None, None, training=training)


NORMS = {
    "batch_norm_2d": (_bn(True), randn((4, C)), RM, RV, W, Bv),
    "batch_norm_3d": (_bn(True, momentum=0.3), randn((2, C, 5)), RM, RV, W, Bv),
    "batch_norm_4d": (_bn(True), randn((2, C, 2, 3)), RM, RV, W, Bv),
    "batch_norm_no_affine": (_bn(True, affine=False), randn((2, C, 4)), RM, RV),
    "batch_norm_no_running": (_bn(True, running=False), randn((2, C, 4)), W, Bv),
    "batch_norm_bare": (_bn(True, affine=False, running=False), randn((5, C))),
    "batch_norm_eval": (_bn(False), randn((2, C, 4)), RM, RV, W, Bv),
    "batch_norm_eval_no_affine": (_bn(False, affine=False), randn((4, C)), RM, RV),
    "instance_norm": (lambda L, x: F(L).instance_norm(x), randn((2, C, 5))),
    "instance_norm_affine_running": (
        lambda L, x, rm, rv, w, b: F(L).instance_norm(x, rm, rv, w, b),
        randn((2, C, 2, 3)),
        RM,
        RV,
        W,
        Bv,
    ),
    "instance_norm_running_stats": (
        lambda L, x, rm, rv, w: F(L).instance_norm(x, rm, rv, weight=w, use_input_stats=False),
        randn((2, C, 4)),
        RM,
        RV,
        W,
    ),
    "layer_norm": (
        lambda L, x, w, b: F(L).layer_norm(x, (4,), w, b),
        randn((3, 4)),
        pos((4,), 5),
        randn((4,), seed=6),
    ),
    "layer_norm_2_dims": (
        lambda L, x, w, b: F(L).layer_norm(x, [3, 4], w, b, eps=1e-3),
        randn((2, 3, 4)),
        pos((3, 4), 5),
        randn((3, 4), seed=6),
    ),
    "layer_norm_no_affine": (lambda L, x: F(L).layer_norm(x, (2, 3)), randn((2, 2, 3))),
    "layer_norm_weight_only": (
        lambda L, x, w: F(L).layer_norm(x, (5,), weight=w),
        randn((5,)),
        pos((5,), 7),
    ),
    "group_norm": (
        lambda L, x, w, b: F(L).group_norm(x, 2, w, b),
        randn((2, 4, 3)),
        pos((4,), 8),
        randn((4,), seed=9),
    ),
    "group_norm_4d": (
        lambda L, x, w, b: F(L).group_norm(x, 3, w, b, eps=1e-4),
        randn((2, 6, 2, 2)),
        pos((6,), 8),
        randn((6,), seed=9),
    ),
    "group_norm_one_group": (lambda L, x: F(L).group_norm(x, 1), randn((2, 4, 3))),
    "group_norm_2d": (lambda L, x, w: F(L).group_norm(x, 2, w), randn((3, 4)), pos((4,), 8)),
    "local_response_norm_3d": (lambda L, x: F(L).local_response_norm(x, 2), randn((2, 5, 3))),
    "local_response_norm_4d": (
        lambda L, x: F(L).local_response_norm(x, 3, alpha=0.1, beta=0.5, k=2.0),
        randn((2, 5, 2, 3)),
    ),
    "local_response_norm_5d_wide": (
        lambda L, x: F(L).local_response_norm(x, 4, alpha=0.3),
        randn((1, 3, 2, 2, 2)),
    ),
    "rms_norm": (lambda L, x: F(L).rms_norm(x, (4,)), randn((3, 4))),
    "rms_norm_weight_eps": (
        lambda L, x, w: F(L).rms_norm(x, [3, 4], w, eps=1e-3),
        randn((2, 3, 4)),
        pos((3, 4), 10),
    ),
}

# float32: statistics accumulate differently (torch sums in double, NumPy pairwise)
F32 = dict(rtol=1e-4, atol=1e-5)


def _tol(dtype):
    return F32 if dtype is np.float32 else {}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(NORMS))
def test_matches_torch(name, dtype):
    fn, *inputs = NORMS[name]
    res = check(fn, *inputs, dtype=dtype, **_tol(dtype))
    same_node(res)
    # the running statistics, updated in place (or not), are torch's
    for i, v in enumerate(inputs):
        if isinstance(v, NoGrad):
            assert_same(res.cr_inputs[i], res.torch_inputs[i], f"input {i} after", **_tol(dtype))
            assert res.cr_inputs[i]._version == res.torch_inputs[i]._version


@pytest.mark.parametrize("name", sorted(NORMS))
def test_finite_differences(name):
    fn, *inputs = NORMS[name]
    check_fd(fn, *inputs)


@pytest.mark.parametrize("name", sorted(NORMS))
def test_second_derivatives_match_torch(name):
    fn, *inputs = NORMS[name]
    check_double_backward(fn, *inputs, rtol=1e-8, atol=1e-10)


def test_running_statistics_follow_pytorchs_update():
    """running = (1 - momentum)·running + momentum·statistic, the variance unbiased."""
    x = randn((6, C, 2), seed=11)
    rm, rv = cr.zeros(C, dtype=cr.float64), cr.ones(C, dtype=cr.float64)
    F(cr).batch_norm(cr.tensor(x), rm, rv, training=True, momentum=0.25)
    mean = x.mean(axis=(0, 2))
    var = x.var(axis=(0, 2), ddof=1)
    np.testing.assert_allclose(rm.numpy(), 0.25 * mean, rtol=1e-12)
    np.testing.assert_allclose(rv.numpy(), 0.75 + 0.25 * var, rtol=1e-12)


def test_evaluation_saves_the_running_statistics_it_used():
    """Changing the running statistics after the forward does not change the gradient."""
    x = cr.tensor(randn((4, C)), requires_grad=True)
    rm, rv = cr.zeros(C, dtype=cr.float64), cr.ones(C, dtype=cr.float64) * 4
    y = F(cr).batch_norm(x, rm, rv, training=False)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((4, C), 1 / np.sqrt(4 + 1e-5)))


ERRORS = {
    "batch_norm_one_value": lambda L: F(L).batch_norm(L.ones(1, 4), None, None, training=True),
    "batch_norm_eps": lambda L: F(L).batch_norm(L.ones(2, 4), None, None, training=True, eps=0),
    "batch_norm_eval_eps": lambda L: F(L).batch_norm(L.ones(2, 4), L.zeros(4), L.ones(4), eps=-1.0),
    "batch_norm_eval_without_running": lambda L: F(L).batch_norm(L.ones(2, 4), None, None),
    "batch_norm_running_size": lambda L: F(L).batch_norm(
        L.ones(2, 4), L.zeros(3), L.ones(3), training=True
    ),
    "batch_norm_weight_size": lambda L: F(L).batch_norm(
        L.ones(2, 4), None, None, L.ones(3), training=True
    ),
    "batch_norm_mixed_dtype": lambda L: F(L).batch_norm(
        L.ones(2, 4), L.zeros(4, dtype=L.float64), L.ones(4), training=True
    ),
    "batch_norm_mixed_dtype_double": lambda L: F(L).batch_norm(
        L.ones(2, 4, dtype=L.float64), None, None, L.ones(4), training=True
    ),
    "batch_norm_integer": lambda L: F(L).batch_norm(
        L.tensor([[1, 2], [3, 4]]), None, None, training=True
    ),
    "batch_norm_momentum_none": lambda L: F(L).batch_norm(
        L.ones(2, 4), None, None, training=True, momentum=None
    ),
    "layer_norm_shape": lambda L: F(L).layer_norm(L.ones(3, 4), (5,)),
    "layer_norm_weight": lambda L: F(L).layer_norm(L.ones(3, 4), (4,), weight=L.ones(3)),
    "layer_norm_bias": lambda L: F(L).layer_norm(L.ones(3, 4), (4,), bias=L.ones(3)),
    "layer_norm_int_shape": lambda L: F(L).layer_norm(L.ones(3, 4), 4),
    "layer_norm_integer": lambda L: F(L).layer_norm(L.tensor([[1, 2]]), (2,)),
    "layer_norm_mixed_dtype": lambda L: F(L).layer_norm(
        L.ones(3, 4), (4,), L.ones(4, dtype=L.float64)
    ),
    "group_norm_groups": lambda L: F(L).group_norm(L.ones(3, 4, 5), 3),
    "group_norm_weight": lambda L: F(L).group_norm(L.ones(3, 4, 5), 2, weight=L.ones(3)),
    "group_norm_1d": lambda L: F(L).group_norm(L.ones(4), 2),
    "group_norm_one_value": lambda L: F(L).group_norm(L.ones(1, 2, 1), 2),
    "instance_norm_one_element": lambda L: F(L).instance_norm(L.ones(3, 4, 1)),
    "local_response_norm_2d": lambda L: F(L).local_response_norm(L.ones(3, 4), 2),
    "rms_norm_shape": lambda L: F(L).rms_norm(L.ones(3, 4), (3,)),
    "rms_norm_weight": lambda L: F(L).rms_norm(L.ones(3, 4), (4,), L.ones(3)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    assert_same_error(ERRORS[name])


TORCH_FORMS = {
    "batch_norm": (
        lambda L, x, w, b, rm, rv: L.batch_norm(x, w, b, rm, rv, True, 0.2, 1e-5, False),
        randn((4, C, 2)),
        W,
        Bv,
        RM,
        RV,
    ),
    "instance_norm": (
        lambda L, x, w: L.instance_norm(x, w, None, None, None, True, 0.1, 1e-5, False),
        randn((2, C, 4)),
        W,
    ),
    "layer_norm": (lambda L, x: L.layer_norm(x, [4]), randn((3, 4))),
    "group_norm": (lambda L, x, w, b: L.group_norm(x, 3, w, b), randn((2, C, 4)), W, Bv),
    "rms_norm": (lambda L, x: L.rms_norm(x, (4,), eps=1e-4), randn((3, 4))),
}


@pytest.mark.parametrize("name", sorted(TORCH_FORMS))
def test_torch_forms_match_torch(name):
    fn, *inputs = TORCH_FORMS[name]
    res = check(fn, *inputs)
    same_node(res)
    for i, v in enumerate(inputs):
        if isinstance(v, NoGrad):
            assert_same(res.cr_inputs[i], res.torch_inputs[i], f"input {i} after")


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_batch_norm_keeps_the_forwards_statistics(monkeypatch, dtype):
    """In training on float32/float64 arrays the batch's mean, variance and invstd come from
    the forward's one pass of statistics: the running statistics are updated from them and
    the backward reads them (no normalization with ops either way), as PyTorch's saved mean
    and invstd."""
    calls = []

    def counting(module, name):
        real = getattr(module, name)

        def counted(*args):
            calls.append(name)
            return real(*args)

        monkeypatch.setattr(module, name, counted)

    counting(norm_layers, "normalized")
    counting(norm_arrays, "batch_norm")
    x = randn((6, C, 600), seed=13).astype(dtype) * 3 + 2  # (above norm_arrays.SHORT)
    res = check(
        lambda L, x, rm, rv, w, b: F(L).batch_norm(x, rm, rv, w, b, training=True),
        x,
        NoGrad(np.zeros(C, dtype)),
        NoGrad(np.ones(C, dtype)),
        W,
        Bv,
        dtype=dtype,
        forward=False,  # (forward mode would normalize once more: the count is backward's)
        **_tol(dtype),
    )
    assert calls == ["batch_norm"]  # (the forward's, with its statistics buffer)
    for i in (1, 2):
        assert_same(res.cr_inputs[i], res.torch_inputs[i], "running", **_tol(dtype))


# (layer, the input's shape, the weight's and bias's shape): the norm layers whose backward
# on arrays works from the forward's statistics and the sums it shares
ARRAY_BACKWARDS = {
    "batch_norm": (lambda L, x, w, b: F(L).batch_norm(x, None, None, w, b, True), (6, C, 7), (C,)),
    "layer_norm": (lambda L, x, w, b: F(L).layer_norm(x, (7,), w, b), (6, 7), (7,)),
    "layer_norm_two_dims": (
        lambda L, x, w, b: F(L).layer_norm(x, (4, 5), w, b),
        (2, 3, 4, 5),
        (4, 5),
    ),
    "group_norm_2d": (lambda L, x, w, b: F(L).group_norm(x, 3, w, b), (4, 6), (6,)),
    "group_norm_3d": (lambda L, x, w, b: F(L).group_norm(x, 3, w, b), (3, 6, 5), (6,)),
    "group_norm_4d": (lambda L, x, w, b: F(L).group_norm(x, 3, w, b), (2, 6, 3, 4), (6,)),
    # (rows of 128 values or more: sums by BLAS, NumPy's buffer a row long, _RowByRow)
    "group_norm_long_rows": (lambda L, x, w, b: F(L).group_norm(x, 2, w, b), (2, 4, 12, 12), (4,)),
    # (instance_norm: batch_norm of one sample, the group norm of a channel a group)
    "instance_norm": (
        lambda L, x, w, b: F(L).instance_norm(x, weight=w, bias=b),
        (3, 4, 5),
        (4,),
    ),
    "instance_norm_long_rows": (
        lambda L, x, w, b: F(L).instance_norm(x, weight=w, bias=b),
        (2, 3, 12, 12),
        (3,),
    ),
    "batch_norm_one_sample": (
        lambda L, x, w, b: F(L).batch_norm(x, None, None, w, b, True),
        (1, C, 7),
        (C,),
    ),
    # (batch_norm's rows of samples: all 8 in one row, 2 a row, a sample a row)
    "batch_norm_2d": (lambda L, x, w, b: F(L).batch_norm(x, None, None, w, b, True), (8, 5), (5,)),
    "batch_norm_rows_of_samples": (
        lambda L, x, w, b: F(L).batch_norm(x, None, None, w, b, True),
        (6, 3, 1000),
        (3,),
    ),
    "batch_norm_long_samples": (
        lambda L, x, w, b: F(L).batch_norm(x, None, None, w, b, True),
        (3, 2, 70, 70),
        (2,),
    ),
    # (rows of 64 values or more: a BLAS dot per row)
    "layer_norm_long_rows": (lambda L, x, w, b: F(L).layer_norm(x, (70,), w, b), (2, 3, 70), (70,)),
    # (above norm_arrays.SHORT the forwards too go by norm_arrays' rows)
    "group_norm_rows_by_blas": (
        lambda L, x, w, b: F(L).group_norm(x, 2, w, b),
        (2, 4, 40, 40),
        (4,),
    ),
    "instance_norm_rows_by_blas": (
        lambda L, x, w, b: F(L).instance_norm(x, weight=w, bias=b),
        (2, 3, 40, 40),
        (3,),
    ),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("offset", [1000, 0], ids=["far_from_0", "near_0"])
@pytest.mark.parametrize("weight", [True, False], ids=["weight", "no_weight"])
@pytest.mark.parametrize("name", sorted(ARRAY_BACKWARDS))
def test_norm_backward_on_arrays_is_the_ops_rule(name, weight, offset, dtype):
    """Backward on arrays (the statistics the forward kept, x - mean substituted for x̂, the
    sums per channel, row or group shared by the gradients of x, of the weight and of the
    bias) gives the gradients of the rule written in ops (taken with create_graph), to
    rounding: on inputs whose mean is far from 0 against their spread (no cancellation:
    x - mean is formed first), and near 0 (group norm's well-conditioned groups: Σ v·x and
    x itself, as PyTorch's kernel)."""
    fn, shape, param = ARRAY_BACKWARDS[name]
    r = np.random.default_rng(len(shape) + len(param))
    x = (offset + r.standard_normal(shape)).astype(dtype)
    w = r.standard_normal(param).astype(dtype) if weight else None
    b = r.standard_normal(param).astype(dtype)
    g = r.standard_normal(shape).astype(dtype)
    grads = []
    for create_graph in (False, True):
        xt, bt = cr.tensor(x, requires_grad=True), cr.tensor(b, requires_grad=True)
        wt = None if w is None else cr.tensor(w, requires_grad=True)
        inputs = [xt, bt] + ([] if wt is None else [wt])
        got = cr.autograd.grad(fn(cr, xt, wt, bt), inputs, cr.tensor(g), create_graph=create_graph)
        grads.append([t.detach().numpy() for t in got])
    tol = dict(rtol=2e-4, atol=2e-5) if dtype == np.float32 else dict(rtol=1e-9, atol=1e-11)
    for a, e in zip(*grads):
        np.testing.assert_allclose(a, e, **tol)


def _group_rows(x: np.ndarray, groups: int) -> np.ndarray:
    return x.reshape(x.shape[0] * groups, -1)


# group_norm and batch_norm of one sample (instance_norm's) called as ops, with or without a
# statistics buffer (the array path and the ops' path): fn(x, w, b, stats), the input's
# shape, the groups per sample
ROW_NORMS = {
    "group_norm": (
        lambda x, w, b, stats: norm_layers.group_norm(x, w, b, num_groups=2, eps=1e-5, stats=stats),
        (2, 4, 12, 12),
        2,
    ),
    "group_norm_short_rows": (
        lambda x, w, b, stats: norm_layers.group_norm(x, w, b, num_groups=3, eps=1e-5, stats=stats),
        (3, 6, 5),
        3,
    ),
    "batch_norm_one_sample": (
        lambda x, w, b, stats: norm_layers.batch_norm(
            x, w, b, training=True, eps=1e-5, stats=stats
        ),
        (1, 6, 5, 5),
        6,
    ),
    # (above norm_arrays.SHORT: norm_arrays' rows)
    "group_norm_rows_by_blas": (
        lambda x, w, b, stats: norm_layers.group_norm(x, w, b, num_groups=2, eps=1e-5, stats=stats),
        (2, 4, 40, 40),
        2,
    ),
    "batch_norm_one_sample_rows_by_blas": (
        lambda x, w, b, stats: norm_layers.batch_norm(
            x, w, b, training=True, eps=1e-5, stats=stats
        ),
        (1, 6, 40, 40),
        6,
    ),
}


@pytest.mark.parametrize("offset", [0, 1000], ids=["well_conditioned", "far_from_0"])
@pytest.mark.parametrize("affine", ["weight_bias", "weight", "bias", "none"])
@pytest.mark.parametrize("name", sorted(ROW_NORMS))
def test_group_norm_forward_on_arrays_is_the_ops_forward(name, affine, offset):
    """The forward on float64 arrays, which keeps the groups' mean, biased variance and
    invstd in its statistics buffer, gives the ops' normalization, to rounding: where every
    group's mean² ≤ var, from Σx and Σx², y = x·a + (bias - mean·a), a = invstd·weight
    (PyTorch's kernel); else from x - mean (a mean far from 0 against the spread)."""
    fn, shape, groups = ROW_NORMS[name]
    r = np.random.default_rng(3)
    x = r.standard_normal(shape)
    rows = _group_rows(x, groups)
    rows -= rows.mean(1, keepdims=True)  # (a mean of 0 before the offset: well conditioned)
    x += offset
    w = r.standard_normal(shape[1]) if "weight" in affine else None
    b = r.standard_normal(shape[1]) if "bias" in affine else None
    t = [None if a is None else cr.tensor(a) for a in (x, w, b)]
    stats = np.empty((3, shape[0] * groups))
    got = fn(*t, stats).numpy()
    np.testing.assert_allclose(got, fn(*t, None).numpy(), rtol=1e-12, atol=1e-12)
    assert norm_arrays.well_conditioned(stats) == (offset == 0)
    rows = _group_rows(x, groups)
    var = rows.var(1)
    np.testing.assert_allclose(stats[0], rows.mean(1), rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(stats[1], var, rtol=1e-12)
    np.testing.assert_allclose(stats[2], 1 / np.sqrt(var + 1e-5), rtol=1e-12)


# batch_norm and layer_norm called as ops, with or without a statistics buffer (the array
# path and the ops' path): fn(x, w, b, stats), the input's shape, the statistics' number and
# the axes of each one's values
MOMENT_NORMS = {
    "batch_norm_2d": (
        lambda x, w, b, stats: norm_layers.batch_norm(x, w, b, training=True, stats=stats),
        (16, 5),
        5,
        (0,),
    ),
    "batch_norm_4d": (
        lambda x, w, b, stats: norm_layers.batch_norm(x, w, b, training=True, stats=stats),
        (6, 4, 5, 5),
        4,
        (0, 2, 3),
    ),
    "batch_norm_rows_of_samples": (
        lambda x, w, b, stats: norm_layers.batch_norm(x, w, b, training=True, stats=stats),
        (6, 3, 1000),
        3,
        (0, 2),
    ),
    "layer_norm": (
        lambda x, w, b, stats: norm_layers.layer_norm(x, w, b, normalized_ndim=1, stats=stats),
        (4, 5, 70),
        20,
        (2,),
    ),
    "layer_norm_two_dims": (
        lambda x, w, b, stats: norm_layers.layer_norm(x, w, b, normalized_ndim=2, stats=stats),
        (5, 3, 7),
        5,
        (1, 2),
    ),
    "layer_norm_rows_by_blas": (  # (above norm_arrays.SHORT: norm_arrays' rows)
        lambda x, w, b, stats: norm_layers.layer_norm(x, w, b, normalized_ndim=1, stats=stats),
        (4, 40, 70),
        160,
        (2,),
    ),
}


def _moment_input(shape, axes, offset, seed=3):
    """randn of ``shape``, each statistic's values shifted to mean 0 (well conditioned), then
    ``offset`` added (a mean far from 0 against the spread where 1000)"""
    x = np.random.default_rng(seed).standard_normal(shape)
    x -= x.mean(axes, keepdims=True)
    return x + offset


def _moment_affine(name, shape, affine, seed=4):
    axes = MOMENT_NORMS[name][3]
    size = (shape[1],) if name.startswith("batch") else tuple(shape[a] for a in axes)
    r = np.random.default_rng(seed)
    w = r.standard_normal(size) if "weight" in affine else None
    b = r.standard_normal(size) if "bias" in affine else None
    return w, b


@pytest.mark.parametrize("offset", [0, 1000], ids=["well_conditioned", "far_from_0"])
@pytest.mark.parametrize("affine", ["weight_bias", "weight", "bias", "none"])
@pytest.mark.parametrize("name", sorted(MOMENT_NORMS))
def test_batch_and_layer_norm_forward_on_arrays_is_the_ops_forward(name, affine, offset):
    """The forward on float64 arrays, which keeps the mean, biased variance and invstd in
    its statistics buffer, gives the ops' normalization, to rounding: where every channel's
    (row's) mean² ≤ var from Σx and Σx², y = x·a + (bias - mean·a); else from x - mean."""
    fn, shape, count, axes = MOMENT_NORMS[name]
    x = _moment_input(shape, axes, offset)
    w, b = _moment_affine(name, shape, affine)
    t = [None if a is None else cr.tensor(a) for a in (x, w, b)]
    stats = np.empty((3, count))
    got = fn(*t, stats).numpy()
    np.testing.assert_allclose(got, fn(*t, None).numpy(), rtol=1e-12, atol=1e-12)
    assert norm_arrays.well_conditioned(stats) == (offset == 0)
    var = x.var(axes)
    np.testing.assert_allclose(stats[0], x.mean(axes).reshape(-1), rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(stats[1], var.reshape(-1), rtol=1e-12)
    np.testing.assert_allclose(stats[2], 1 / np.sqrt(var.reshape(-1) + 1e-5), rtol=1e-12)


@pytest.mark.parametrize("name", sorted(MOMENT_NORMS))
def test_float32_far_from_0_stays_accurate(name):
    """float32 inputs of mean 1000 and spread 1 (where Σx²/n - mean² would lose every digit
    of the variance): forward and backward on arrays within float32 rounding of the same
    input in float64."""
    fn, shape, count, axes = MOMENT_NORMS[name]
    x = (1000 + np.random.default_rng(5).standard_normal(shape)).astype(np.float32)
    w, b = _moment_affine(name, shape, "weight_bias")
    g = np.random.default_rng(6).standard_normal(shape)
    results = []
    for dtype in (np.float32, np.float64):
        xt = cr.tensor(x.astype(dtype), requires_grad=True)
        wt, bt = (cr.tensor(a.astype(dtype), requires_grad=True) for a in (w, b))
        y = fn(xt, wt, bt, np.empty((3, count), dtype))
        grads = cr.autograd.grad(y, (xt, wt, bt), cr.tensor(g.astype(dtype)))
        results.append([a.detach().numpy().astype(np.float64) for a in (y, *grads)])
    for a, e in zip(*results):
        np.testing.assert_allclose(a, e, rtol=1e-3, atol=2e-3)


def test_group_norm_restores_numpys_buffer_size():
    """On arrays with rows of 128 values or more, group_norm shrinks NumPy's ufunc buffer
    to a row only within its blocks (``norm_arrays.RowByRow``), exceptions included."""
    before = np.getbufsize()
    x = cr.tensor(randn((2, 4, 12, 12)), requires_grad=True)
    F(cr).group_norm(x, 2).pow(2).sum().backward()
    assert np.getbufsize() == before
    with pytest.raises(ZeroDivisionError), norm_arrays.RowByRow(200):
        assert np.getbufsize() == 192  # (a multiple of 16, as NumPy 1 requires)
        raise ZeroDivisionError
    assert np.getbufsize() == before
