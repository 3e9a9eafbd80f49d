"""Empty batches and other empty inputs where PyTorch computes (or refuses) in its own way:
grid_sample with no samples, scaled_dot_product_attention without queries or values (and
with is_causal plus a mask), instance_norm with no samples."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import chainrule
import chainrule.nn.functional as CF


def _both(shape, requires_grad=False, dtype="float32", fill=None):
    rng = np.random.default_rng(sum(shape) + len(shape))
    a = rng.standard_normal(shape).astype(dtype) if fill is None else np.full(shape, fill, dtype)
    t = torch.tensor(a, requires_grad=requires_grad)
    c = chainrule.tensor(a, requires_grad=requires_grad)
    return t, c


def _same(t, c):
    assert tuple(c.shape) == tuple(t.shape)
    assert str(c.dtype) == str(t.dtype)
    np.testing.assert_allclose(c.detach().numpy(), t.detach().numpy(), rtol=1e-6, atol=1e-6)


def _raises_like(run):
    with pytest.raises(Exception) as expected:
        run(torch, F)
    with pytest.raises(type(expected.value)) as got:
        run(chainrule, CF)
    assert str(got.value) == str(expected.value)


# ----- grid_sample ---------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_empty_batch(mode, padding_mode):
    kw = dict(mode=mode, padding_mode=padding_mode, align_corners=False)
    (tx, cx), (tg, cg) = _both((0, 2, 4, 5), True), _both((0, 3, 6, 2), True)
    t, c = F.grid_sample(tx, tg, **kw), CF.grid_sample(cx, cg, **kw)
    _same(t, c)
    t.sum().backward()
    c.sum().backward()
    _same(tx.grad, cx.grad)
    _same(tg.grad, cg.grad)


def test_grid_sample_empty_batch_5d_and_no_channels():
    for x_shape, g_shape in (((0, 2, 4, 5, 3), (0, 3, 6, 2, 3)), ((2, 0, 4, 5), (2, 3, 6, 2))):
        (tx, cx), (tg, cg) = _both(x_shape), _both(g_shape)
        _same(F.grid_sample(tx, tg, align_corners=True), CF.grid_sample(cx, cg, align_corners=True))


# ----- scaled_dot_product_attention ------------------------------------------------------------


@pytest.mark.parametrize(
    "q, k, v, mask",
    [
        ((0, 2, 3, 4), (0, 2, 5, 4), (0, 2, 5, 4), (0, 2, 3, 5)),  # no samples
        ((0, 2, 3, 4), (0, 2, 5, 4), (0, 2, 5, 4), (9, 9)),  # the mask is not even read
        ((0, 3, 4), (0, 5, 4), (0, 5, 4), (0, 3, 5)),  # 3-D
        ((1, 2, 0, 4), (3, 2, 5, 4), (3, 2, 5, 4), (1, 2, 0, 5)),  # no queries: query's batch
        ((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 0), (1, 2, 3, 5)),  # no value size
        ((1, 2, 3, 4), (1, 2, 0, 4), (1, 2, 0, 4), (1, 2, 3, 0)),  # no keys: zeros
        ((1, 2, 3, 4), (0, 2, 5, 4), (0, 2, 5, 4), (7, 7)),  # no values: query's batch
    ],
)
def test_attention_without_queries_or_values_skips_the_checks(q, k, v, mask):
    # PyTorch returns zeros + 0·(Σq + Σk + Σv) here, before the check that refuses a mask
    # with is_causal (and the shape and dropout checks)
    (tq, cq), (tk, ck), (tv, cv) = _both(q, True), _both(k, True), _both(v, True)
    (tm, cm) = _both(mask)
    kw = dict(is_causal=True, dropout_p=0.0)
    t = F.scaled_dot_product_attention(tq, tk, tv, attn_mask=tm, **kw)
    c = CF.scaled_dot_product_attention(cq, ck, cv, attn_mask=cm, **kw)
    _same(t, c)
    assert c.grad_fn.name() == t.grad_fn.name() == "AddBackward0"
    t.sum().backward()
    c.sum().backward()
    for tt, ct in ((tq, cq), (tk, ck), (tv, cv)):
        _same(tt.grad, ct.grad)


def test_attention_without_values_keeps_query_dtype_and_nan():
    (tq, cq), (tk, ck), (tv, cv) = _both((1, 3, 4), fill=np.nan), _both((1, 0, 4)), _both((1, 0, 2))
    _same(F.scaled_dot_product_attention(tq, tk, tv), CF.scaled_dot_product_attention(cq, ck, cv))
    (tq, cq) = _both((0, 3, 4), dtype="int64")
    (tk, ck) = _both((0, 5, 4), dtype="int64")
    _same(F.scaled_dot_product_attention(tq, tk, tk), CF.scaled_dot_product_attention(cq, ck, ck))


@pytest.mark.parametrize("bool_mask", [True, False])
def test_attention_fused_kernel_takes_a_mask_and_is_causal(bool_mask):
    # PyTorch's fused CPU kernel applies both: the mask, and -inf above the diagonal
    (tq, cq), (tk, ck), (tv, cv) = _both((2, 2, 4, 8)), _both((2, 2, 3, 8)), _both((2, 2, 3, 8))
    mask = np.random.default_rng(3).standard_normal((2, 2, 4, 3)).astype("float32")
    if bool_mask:
        mask = mask > -0.3
        mask[0, 0, 0, 0] = False  # a row masked throughout: zeros
    t = F.scaled_dot_product_attention(tq, tk, tv, attn_mask=torch.tensor(mask), is_causal=True)
    c = CF.scaled_dot_product_attention(
        cq, ck, cv, attn_mask=chainrule.tensor(mask), is_causal=True
    )
    _same(t, c)


@pytest.mark.parametrize(
    "q, k, v, kw",
    [
        ((2, 3, 4), (2, 5, 4), (2, 5, 4), {}),  # 3-D: the math kernel
        ((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 6), {}),  # value's size differs
        ((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4), dict(dropout_p=0.5)),
        ((1, 2, 3, 0), (1, 2, 5, 0), (1, 2, 5, 4), {}),  # no embedding
        ((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4), dict(strided=True)),
    ],
)
def test_attention_math_kernel_refuses_a_mask_with_is_causal(q, k, v, kw):
    kw = dict(kw)
    strided = kw.pop("strided", False)

    def run(lib, functional):
        query = lib.zeros(q[:-2] + (q[-1], q[-2])).transpose(-1, -2) if strided else lib.zeros(q)
        mask = lib.zeros(q[:-1] + (k[-2],))
        return functional.scaled_dot_product_attention(
            query, lib.zeros(k), lib.zeros(v), attn_mask=mask, is_causal=True, **kw
        )

    _raises_like(run)


def test_attention_without_embedding_attends_evenly():
    (tq, cq), (tk, ck), (tv, cv) = _both((1, 2, 3, 0)), _both((1, 2, 5, 0)), _both((1, 2, 5, 4))
    _same(F.scaled_dot_product_attention(tq, tk, tv), CF.scaled_dot_product_attention(cq, ck, cv))


# ----- instance_norm -----------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(0, 3, 5), (0, 3, 4, 4), (0, 0, 5)])
def test_instance_norm_empty_batch_refuses_weight_and_bias(shape):
    c = shape[1]
    for kw in (dict(weight=c), dict(bias=c), dict(weight=c, bias=c, running=c)):

        def run(lib, functional, kw=kw):
            args = {}
            if "weight" in kw:
                args["weight"] = lib.ones(kw["weight"])
            if "bias" in kw:
                args["bias"] = lib.zeros(kw["bias"])
            if "running" in kw:
                args.update(running_mean=lib.zeros(c), running_var=lib.ones(c))
            return functional.instance_norm(lib.zeros(shape), **args)

        _raises_like(run)


@pytest.mark.parametrize("shape", [(0, 3, 5), (0, 3, 4, 4), (0, 0, 5)])
@pytest.mark.parametrize("use_input_stats", [True, False])
def test_instance_norm_empty_batch_running_stats(shape, use_input_stats):
    c = shape[1]
    results = []
    for lib, functional in ((torch, F), (chainrule, CF)):
        rm, rv = lib.full((c,), 2.0), lib.full((c,), 3.0)
        x = lib.zeros(shape, requires_grad=True)
        out = functional.instance_norm(
            x, running_mean=rm, running_var=rv, use_input_stats=use_input_stats
        )
        results.append((out, rm, rv))
    for t, c_ in zip(*results):
        _same(t, c_)  # training: the running statistics become nan (a mean over no samples)


def test_instance_norm_refusals_match_torch():
    cases = [
        lambda lib, f: f.instance_norm(lib.zeros(0, 3, 5), use_input_stats=False),
        lambda lib, f: f.instance_norm(lib.zeros(2, 3, 5), use_input_stats=False),
        lambda lib, f: f.instance_norm(
            lib.zeros(0, 3, 5), running_mean=lib.zeros(4), running_var=lib.ones(4)
        ),
        lambda lib, f: f.instance_norm(lib.zeros(0, 3), weight=lib.ones(3)),
        lambda lib, f: _affine_module(lib)(lib.zeros(0, 3, 5)),
    ]
    for run in cases:
        _raises_like(run)


def _affine_module(lib):
    return lib.nn.InstanceNorm1d(3, affine=True, track_running_stats=True)
