"""Quantization edge cases found by sweeping chainrule against PyTorch: clamping of qint32,
NaN inputs, per-channel checks and float zero points, fake quantization of NaN and with
tensor qparams, the fused fake quantizer with fake quantization off, quantized.functional."""

import warnings

import numpy as np
import pytest
import torch

import chainrule as cr

warnings.filterwarnings("ignore", message="torch.quantize_per_tensor")

X = np.array([0.5, 1.5, 2.5, -2.5, 127.5, 1e30, -1e30, np.inf, -np.inf, np.nan], np.float32)
M = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32) * 2


def _quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def _outcome(fn):
    try:
        return _quiet(fn)
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return (type(e).__name__, str(e))


@pytest.mark.parametrize("dtype", ["qint8", "quint8", "qint32"])
@pytest.mark.parametrize("scale,zp", [(1.0, 0), (0.5, 3), (1e-10, 0)])
def test_quantize_per_tensor_clamps_and_nan(dtype, scale, zp):
    a = _quiet(lambda: torch.quantize_per_tensor(torch.tensor(X), scale, zp, getattr(torch, dtype)))
    b = _quiet(lambda: cr.quantize_per_tensor(cr.tensor(X), scale, zp, getattr(cr, dtype)))
    assert b.int_repr().numpy().tolist() == a.int_repr().numpy().tolist()


ZPS = {
    "int": [0, 1, 2, 3],
    "float": [0.0, 1.5, 2.0, -3.25],
    "high": [0, -1, 5, 300],
}


@pytest.mark.parametrize("dtype", ["qint8", "quint8"])
@pytest.mark.parametrize("zps", ["int", "float", "high"])
@pytest.mark.parametrize("axis", [1, -1, 0])
def test_quantize_per_channel_matches(dtype, zps, axis):
    def run(lib):
        z = lib.tensor(ZPS[zps])
        s = lib.tensor([0.1, 0.2, 0.3, 0.4], dtype=lib.float64)
        q = lib.quantize_per_channel(lib.tensor(M), s, z, axis, getattr(lib, dtype))
        sc, zp = q.q_per_channel_scales(), q.q_per_channel_zero_points()
        return (
            q.int_repr().numpy().tolist(),
            q.dequantize().numpy().tolist(),
            str(q.qscheme()),
            (str(sc.dtype), sc.numpy().tolist()),
            (str(zp.dtype), zp.numpy().tolist()),
        )

    assert _outcome(lambda: run(cr)) == _outcome(lambda: run(torch))


@pytest.mark.parametrize(
    "scales,zps", [([0.1, 0.2], [0, 1, 2]), ([0.1, 0.2], [0, 1]), ([0.1, 0.2, 0.3], [0, 9, 1])]
)
def test_quantize_per_channel_errors(scales, zps):
    def run(lib):
        s, z = lib.tensor(scales, dtype=lib.float64), lib.tensor(zps)
        lib.quantize_per_channel(lib.tensor(M), s, z, 0, lib.quint8 if 9 in zps else lib.qint8)

    got, want = _outcome(lambda: run(cr)), _outcome(lambda: run(torch))
    assert got == want


FX = np.array([-3.0, -0.5, 0.0, 0.25, 0.5, 1.5, 2.5, 100.0, np.nan], np.float32)


@pytest.mark.parametrize("scale,zp,lo,hi", [(0.3, 0, -2, 2), (1.0, 1, 0, 255), (0.0, 0, 0, 2)])
@pytest.mark.parametrize("tensors", [False, True])
def test_fake_quantize_per_tensor_nan_and_grad(scale, zp, lo, hi, tensors):
    def run(lib):
        x = lib.tensor(FX, requires_grad=True)
        s, z = (lib.tensor(scale), lib.tensor(zp, dtype=lib.int32)) if tensors else (scale, zp)
        y = lib.fake_quantize_per_tensor_affine(x, s, z, lo, hi)
        y.backward(lib.arange(1.0, 10.0))
        return y.detach().numpy().tolist(), x.grad.numpy().tolist()

    assert repr(run(cr)) == repr(run(torch))


def test_fake_quantize_tensor_qparams_skip_zero_point_check():
    def run(lib):
        y = lib.fake_quantize_per_tensor_affine(
            lib.tensor(FX), lib.tensor(0.3), lib.tensor(5, dtype=lib.int32), 0, 2
        )
        return y.numpy().tolist()

    assert run(cr) == run(torch)
    with pytest.raises(RuntimeError, match="`zero_point` must be between"):
        cr.fake_quantize_per_tensor_affine(cr.tensor(FX), 0.3, 5, 0, 2)


@pytest.mark.parametrize("zd", ["int32", "float32"])
@pytest.mark.parametrize(
    "zps,axis", [([0, 1, -1], 1), ([0, 1, 300], 1), ([0, 1, -1], -1), ([0, 1], 1)]
)
def test_fake_quantize_per_channel_matches(zd, zps, axis):
    x = np.stack([FX] * 3, axis=1)
    if zd == "float32":
        zps = [z + 0.25 for z in zps]

    def run(lib):
        t = lib.tensor(x, requires_grad=True)
        z = lib.tensor(zps, dtype=getattr(lib, zd))
        y = lib.fake_quantize_per_channel_affine(t, lib.tensor([1.0, 1.0, 0.5]), z, axis, -2, 2)
        y.sum().backward()
        return y.detach().numpy().tolist(), t.grad.numpy().tolist()

    assert repr(_outcome(lambda: run(cr))) == repr(_outcome(lambda: run(torch)))


def test_fused_fake_quantize_keeps_qparams_while_fake_quant_off():
    rng = np.random.default_rng(3)
    batches = [rng.standard_normal((4, 3)).astype(np.float32) * k + o for k, o in ((1, 0), (3, 1))]

    def run(lib):
        m = lib.ao.quantization.FusedMovingAvgObsFakeQuantize()
        m(lib.tensor(batches[0]))
        m.disable_fake_quant()
        m(lib.tensor(batches[1]))
        return {k: v.numpy().tolist() for k, v in m.state_dict().items()}

    assert run(cr) == run(torch)


def test_fused_fake_quantize_per_channel_needs_axis_0():
    def run(lib):
        q = lib.ao.quantization
        m = q.FusedMovingAvgObsFakeQuantize(
            observer=q.MovingAveragePerChannelMinMaxObserver,
            quant_min=-128,
            quant_max=127,
            dtype=lib.qint8,
            qscheme=lib.per_channel_symmetric,
            ch_axis=1,
        )
        m(lib.tensor(M))

    with pytest.raises(RuntimeError, match="only supported on axis == 0"):
        run(torch)
    with pytest.raises(RuntimeError, match="only supported on axis == 0"):
        run(cr)


def test_quantized_functional_linear_and_max_pool2d():
    rng = np.random.default_rng(4)
    w = rng.standard_normal((5, 4)).astype(np.float32) * 0.3
    b = rng.standard_normal(5).astype(np.float32) * 0.1

    def run(lib):
        x = lib.quantize_per_tensor(lib.tensor(M), 0.02, 128, lib.quint8)
        qw = lib.quantize_per_tensor(lib.tensor(w), 0.01, 0, lib.qint8)
        f = lib.ao.nn.quantized.functional
        y = f.linear(x, qw, lib.tensor(b), 0.05, 64)
        pooled = f.max_pool2d(x.reshape(1, 1, 3, 4), 2)
        return y.int_repr().numpy().tolist(), y.q_scale(), pooled.int_repr().numpy().tolist()

    assert _quiet(lambda: run(cr)) == _quiet(lambda: run(torch))
