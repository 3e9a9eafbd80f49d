"""nn.functional in float16 and bfloat16 against PyTorch's CPU kernels: forward outputs and
the gradients of every floating input (parameters included), compared bit for bit where
chainrule's one rounding per op is PyTorch's, and within one ulp of the dtype where
PyTorch's kernel sums in another order.

Each case runs the same call on both libraries from the same float32 values cast to the
dtype, with the same output gradient.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr

_rng = np.random.default_rng(0)


def _r(*shape: int, scale: float = 1.0) -> np.ndarray:
    return (_rng.standard_normal(shape) * scale).astype(np.float32)


def _f(L):
    return L.nn.functional


X2 = _r(16, 64)
XI = _r(2, 3, 12, 12)
XA = _r(4000, scale=3.0)
XL, YL = _r(8, 50), _r(8, 50)
TARGET = _rng.integers(0, 50, 8)
RM, RV = _r(6), np.abs(_r(6)) + 0.5
XB = _r(8, 6, 5, 5) * 2 + 1
Q, K, V = _r(2, 4, 10, 16), _r(2, 4, 12, 16), _r(2, 4, 12, 16)
MASK = _r(10, 12)

# name -> (call, inputs: (values, needs a gradient))
EXACT = {
    "matmul_3d": (lambda L, x, w: x @ w, [(_r(4, 8, 64), 1), (_r(4, 64, 16), 1)]),
    "conv1d": (
        lambda L, x, w, b: _f(L).conv1d(x, w, b, padding=1),
        [(_r(2, 4, 20), 1), (_r(6, 4, 3, scale=0.3), 1), (_r(6), 1)],
    ),
    "conv2d_depthwise": (
        lambda L, x, w, b: _f(L).conv2d(x, w, b, groups=4, padding=1),
        [(_r(2, 4, 8, 8), 1), (_r(4, 1, 3, 3, scale=0.3), 1), (_r(4), 1)],
    ),
    "conv_transpose2d": (
        lambda L, x, w, b: _f(L).conv_transpose2d(x, w, b, stride=2, padding=1),
        [(_r(2, 4, 6, 6), 1), (_r(4, 3, 3, 3, scale=0.3), 1), (_r(3), 1)],
    ),
    "max_pool1d": (lambda L, x: _f(L).max_pool1d(x, 3, 2), [(_r(2, 3, 20), 1)]),
    "adaptive_avg_pool2d_1": (lambda L, x: _f(L).adaptive_avg_pool2d(x, 1), [(XI, 1)]),
    "adaptive_max_pool1d": (lambda L, x: _f(L).adaptive_max_pool1d(x, 6), [(_r(2, 3, 20), 1)]),
    "rms_norm": (lambda L, x, w: _f(L).rms_norm(x, (64,), w), [(X2 * 2 + 1, 1), (_r(64), 1)]),
    "embedding_padding_idx": (
        lambda L, i, w: _f(L).embedding(i, w, padding_idx=3),
        [(np.array([[1, 3, 5], [3, 3, 0]]), 0), (_r(7, 16), 1)],
    ),
    "dropout_eval": (lambda L, x: _f(L).dropout(x, 0.3, training=False), [(_r(64), 1)]),
    "relu": (lambda L, x: _f(L).relu(x), [(XA, 1)]),
    "mish": (lambda L, x: _f(L).mish(x), [(XA, 1)]),
    "elu": (lambda L, x: _f(L).elu(x, 1.3), [(XA, 1)]),
    "hardswish": (lambda L, x: _f(L).hardswish(x), [(XA, 1)]),
    "hardsigmoid": (lambda L, x: _f(L).hardsigmoid(x), [(XA, 1)]),
    "leaky_relu": (lambda L, x: _f(L).leaky_relu(x, 0.2), [(XA, 1)]),
    "tanh": (lambda L, x: L.tanh(x), [(XA, 1)]),
    "softmax_last": (lambda L, x: _f(L).softmax(x.reshape(40, 100), -1), [(XA, 1)]),
    "log_softmax_dim0": (lambda L, x: _f(L).log_softmax(x.reshape(40, 100), 0), [(XA, 1)]),
    "l1_loss": (lambda L, x, y: _f(L).l1_loss(x, y), [(XL, 1), (YL, 1)]),
    "smooth_l1_loss": (lambda L, x, y: _f(L).smooth_l1_loss(x, y, beta=0.5), [(XL, 1), (YL, 1)]),
    "kl_div_log_target": (
        lambda L, x, y: _f(L).kl_div(x, y, reduction="sum", log_target=True),
        [(np.log(np.abs(XL) + 0.1), 1), (-np.abs(YL), 1)],
    ),
    "nll_loss_none": (
        lambda L, x, t: _f(L).nll_loss(x, t, reduction="none", ignore_index=3),
        [(XL, 1), (TARGET, 0)],
    ),
    "interpolate_nearest": (
        lambda L, x: _f(L).interpolate(x, scale_factor=2),
        [(_r(2, 3, 5, 5), 1)],
    ),
    "interpolate_trilinear": (
        lambda L, x: _f(L).interpolate(x, scale_factor=2, mode="trilinear"),
        [(_r(1, 2, 3, 4, 5), 1)],
    ),
    "pad_constant": (lambda L, x: _f(L).pad(x, (1, 2), value=0.3), [(_r(2, 3, 5), 1)]),
}

# bit for bit in bfloat16 only (float16: PyTorch's addmm, its sigmoid backward in float16
# steps, its own float16 convolution sums)
EXACT_BF16 = {
    "linear": (
        lambda L, x, w, b: _f(L).linear(x, w, b),
        [(X2, 1), (_r(32, 64, scale=0.2), 1), (_r(32), 1)],
    ),
    "conv2d": (
        lambda L, x, w, b: _f(L).conv2d(x, w, b, padding=1),
        [(_r(2, 3, 10, 10), 1), (_r(5, 3, 3, 3, scale=0.3), 1), (_r(5), 1)],
    ),
    "sigmoid": (lambda L, x: L.sigmoid(x), [(XA, 1)]),
    "sdpa_float_mask": (
        lambda L, q, k, v, m: _f(L).scaled_dot_product_attention(q, k, v, attn_mask=m),
        [(Q, 1), (K, 1), (V, 1), (MASK, 1)],
    ),
}

# within one ulp of the dtype, in under 1% of the elements (PyTorch's float32 exp, expm1
# and sums of products differ from NumPy's in the last bit here and there)
CLOSE = {
    "batch_norm_eval": (
        lambda L, x, w, b: _f(L).batch_norm(
            x, L.tensor(RM).to(x.dtype), L.tensor(RV).to(x.dtype), w, b, training=False
        ),
        [(XB, 1), (_r(6), 1), (_r(6), 1)],
    ),
    "selu": (lambda L, x: _f(L).selu(x), [(XA, 1)]),
    "softplus": (lambda L, x: _f(L).softplus(x), [(XA, 1)]),
    "silu": (lambda L, x: _f(L).silu(x), [(XA, 1)]),
    "softplus_beta": (
        lambda L, x: _f(L).softplus(x, beta=2.0, threshold=5.0),
        [(XA, 1)],
    ),
    "interpolate_bilinear": (
        lambda L, x: _f(L).interpolate(x, size=(8, 9), mode="bilinear"),
        [(_r(2, 3, 5, 5), 1)],
    ),
}


def _run(L, case, dtype_name: str) -> dict:
    """The call's outputs and its inputs' gradients, as float32 arrays."""
    fn, inputs = case
    dtype = getattr(L, dtype_name)
    args = []
    for values, grad in inputs:
        t = L.tensor(values)
        if values.dtype.kind == "f":
            t = t.to(dtype).requires_grad_(bool(grad))
        args.append(t)
    out = fn(L, *args)
    g = np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(np.float32)
    out.backward(L.tensor(g).to(out.dtype))
    result = {"out": out.detach().float().numpy()}
    for i, t in enumerate(args):
        if t.grad is not None:
            result[f"grad{i}"] = t.grad.float().numpy()
    return result


def _compare(name: str, case, dtype_name: str):
    want, got = _run(torch, case, dtype_name), _run(cr, case, dtype_name)
    assert sorted(got) == sorted(want), name
    return [(key, got[key], want[key]) for key in want]


def _ulp(values: np.ndarray, dtype_name: str) -> np.ndarray:
    """The spacing of the dtype at each |value| (its subnormal step at least)."""
    if dtype_name == "float16":
        return np.spacing(np.abs(values).astype(np.float16)).astype(np.float32)
    exponent = np.floor(np.log2(np.maximum(np.abs(values), np.float32(2.0**-126))))
    return np.exp2(exponent - 7).astype(np.float32)


@pytest.mark.parametrize("dtype_name", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(EXACT))
def test_same_bits_as_pytorch(name, dtype_name):
    for key, got, want in _compare(name, EXACT[name], dtype_name):
        np.testing.assert_array_equal(got, want, err_msg=f"{name} {key}")


@pytest.mark.parametrize("name", sorted(EXACT_BF16))
def test_same_bits_as_pytorch_bfloat16(name):
    for key, got, want in _compare(name, EXACT_BF16[name], "bfloat16"):
        np.testing.assert_array_equal(got, want, err_msg=f"{name} {key}")


@pytest.mark.parametrize("dtype_name", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(CLOSE))
def test_within_one_ulp_of_pytorch(name, dtype_name):
    for key, got, want in _compare(name, CLOSE[name], dtype_name):
        assert (np.abs(got - want) <= _ulp(want, dtype_name)).all(), f"{name} {key}"
        assert (got != want).mean() < 0.01, f"{name} {key}"


@pytest.mark.parametrize("dtype_name", ["float16", "bfloat16"])
def test_batch_norm_eval_reads_running_statistics_in_float32(dtype_name):
    """Running statistics of the input's dtype enter the evaluation-mode normalization in
    float32 (rounded once with the result), as PyTorch's kernel reads them: NumPy's own
    float16 arithmetic rounded var + eps first, 28% of the elements off by up to 14 ulps."""
    x = np.linspace(-3, 3, 2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    mean, var = np.float32([0.1, -0.3, 0.7]), np.float32([0.3, 1.7, 2.9])
    outs = []
    for L in (torch, cr):
        d = getattr(L, dtype_name)
        y = _f(L).batch_norm(
            L.tensor(x).to(d), L.tensor(mean).to(d), L.tensor(var).to(d), training=False
        )
        outs.append(y.float().numpy())
    np.testing.assert_array_equal(outs[1], outs[0])


def _mlp_steps(L, opt: str) -> list:
    """Three optimizer steps of a bias-free bfloat16 MLP; its parameters after each."""
    np_rng = np.random.default_rng(2)
    w1, w2 = np_rng.standard_normal((64, 32)) * 0.2, np_rng.standard_normal((10, 64)) * 0.2
    model = L.nn.Sequential(
        L.nn.Linear(32, 64, bias=False), L.nn.GELU(), L.nn.Linear(64, 10, bias=False)
    )
    with L.no_grad():
        model[0].weight.copy_(L.tensor(w1))
        model[2].weight.copy_(L.tensor(w2))
    model = model.bfloat16()
    optimizer = (
        L.optim.SGD(model.parameters(), lr=0.1)
        if opt == "sgd"
        else L.optim.Adam(model.parameters(), lr=1e-2)
    )
    x = L.tensor(np_rng.standard_normal((16, 32)).astype(np.float32)).bfloat16()
    seen = []
    for _ in range(3):
        optimizer.zero_grad()
        (model(x).float() ** 2).mean().backward()
        optimizer.step()
        seen += [p.detach().float().numpy() for p in model.parameters()]
    return seen


@pytest.mark.parametrize("opt", ["sgd", "adam"])
def test_bfloat16_mlp_train_steps_same_bits(opt):
    for got, want in zip(_mlp_steps(cr, opt), _mlp_steps(torch, opt)):
        np.testing.assert_array_equal(got, want)
