"""Quantized tensors against PyTorch: ``quantize_per_tensor``/``quantize_per_channel``
give the same integers bit for bit (random values and exact ties), the same dequantized
floats, queries, printing and errors; fake quantization gives the same values and
straight-through gradients."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
import torch

import chainrule as cr

pytestmark = pytest.mark.filterwarnings(
    "ignore:torch.quantize_per_tensor:UserWarning", "ignore:.*deprecated:UserWarning"
)

RANGES = {"qint8": (-128, 127), "quint8": (0, 255), "qint32": (-(2**31), 2**31 - 1)}


def _values(rng: np.random.Generator, shape: tuple, scale: np.ndarray) -> np.ndarray:
    """Random float32 values, half of them exact ties ((k + 1/2) * scale)."""
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    k = rng.integers(-60, 60, shape)
    ties = ((k + 0.5) * scale).astype(np.float32)
    half = rng.random(shape) < 0.5
    return np.where(half, ties, x).astype(np.float32)


@pytest.mark.parametrize("dtype", ["qint8", "quint8", "qint32"])
@pytest.mark.parametrize("n", [7, 33, 1000, 4099])
def test_quantize_per_tensor_bit_for_bit(dtype: str, n: int) -> None:
    rng = np.random.default_rng(n)
    lo, hi = RANGES[dtype]
    for _ in range(4):
        scale = float(rng.uniform(0.001, 0.5))
        zp = int(rng.integers(max(lo, -100), min(hi, 200)))
        x = _values(rng, (n,), np.float32(scale))
        t = torch.quantize_per_tensor(torch.from_numpy(x), scale, zp, getattr(torch, dtype))
        c = cr.quantize_per_tensor(cr.from_numpy(x.copy()), scale, zp, getattr(cr, dtype))
        np.testing.assert_array_equal(c.int_repr().numpy(), t.int_repr().numpy())
        assert c.int_repr().dtype == getattr(cr, str(t.int_repr().dtype).split(".")[1])
        np.testing.assert_array_equal(c.dequantize().numpy(), t.dequantize().numpy())
        assert (c.q_scale(), c.q_zero_point()) == (t.q_scale(), t.q_zero_point())
        assert str(c.qscheme()) == str(t.qscheme()) == "torch.per_tensor_affine"


@pytest.mark.parametrize("dtype", ["qint8", "quint8", "qint32"])
@pytest.mark.parametrize(
    ("shape", "axis"),
    [((5, 37), 0), ((3, 1000), 0), ((1000, 3), 1), ((2, 3, 4, 50), 3), ((4, 3, 9), 1)],
)
def test_quantize_per_channel_bit_for_bit(dtype: str, shape: tuple, axis: int) -> None:
    rng = np.random.default_rng(len(shape) * 7 + shape[0])
    channels = shape[axis]
    scales = rng.uniform(0.01, 0.3, channels)
    zps = rng.integers(0, 50, channels)
    view = [1] * len(shape)
    view[axis] = channels
    x = _values(rng, shape, scales.astype(np.float32).reshape(view))
    t = torch.quantize_per_channel(
        torch.from_numpy(x), torch.from_numpy(scales), torch.from_numpy(zps), axis,
        getattr(torch, dtype),
    )  # fmt: skip
    c = cr.quantize_per_channel(
        cr.from_numpy(x.copy()), cr.from_numpy(scales.copy()), cr.from_numpy(zps.copy()), axis,
        getattr(cr, dtype),
    )  # fmt: skip
    np.testing.assert_array_equal(c.int_repr().numpy(), t.int_repr().numpy())
    np.testing.assert_array_equal(c.dequantize().numpy(), t.dequantize().numpy())
    np.testing.assert_array_equal(
        c.q_per_channel_scales().numpy(), t.q_per_channel_scales().numpy()
    )
    assert c.q_per_channel_scales().dtype == cr.float64
    np.testing.assert_array_equal(
        c.q_per_channel_zero_points().numpy(), t.q_per_channel_zero_points().numpy()
    )
    assert c.q_per_channel_axis() == t.q_per_channel_axis()


def _pair(values: list, scale: float, zp: int, dtype: str) -> tuple:
    x = np.array(values, dtype=np.float32)
    t = torch.quantize_per_tensor(torch.from_numpy(x), scale, zp, getattr(torch, dtype))
    c = cr.quantize_per_tensor(cr.from_numpy(x.copy()), scale, zp, getattr(cr, dtype))
    return t, c


def test_printing_and_metadata() -> None:
    t, c = _pair([-1.0, 0.05, 0.15, 0.25, 1.0, 100.0, -100.0, 0.35], 0.1, 3, "qint8")
    assert repr(c) == repr(t)
    for dtype in ("quint8", "qint32"):
        t2, c2 = _pair([-1.0, 0.05, 0.15, 0.25, 1.0, 100.0, -100.0, 0.35], 0.1, 3, dtype)
        assert repr(c2) == repr(t2)
    assert repr(c.reshape(2, 4)) == repr(t.reshape(2, 4))
    assert repr(c[1:3]) == repr(t[1:3]) and repr(c[0]) == repr(t[0])
    assert c.shape == t.shape and c.stride() == t.stride() and c.element_size() == 1
    assert c.is_quantized and not cr.ones(2).is_quantized and c.requires_grad is False
    assert c.type() == t.type() == "torch.quantized.QInt8Tensor"
    assert repr(cr.per_channel_symmetric) == repr(torch.per_channel_symmetric)
    w = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    s, z = np.array([0.1, 0.2, 0.3]), np.array([0, 1, 2])
    tq = torch.quantize_per_channel(
        torch.from_numpy(w), torch.from_numpy(s), torch.from_numpy(z), 0, torch.qint8
    )
    cq = cr.quantize_per_channel(cr.from_numpy(w.copy()), cr.tensor(s), cr.tensor(z), 0, cr.qint8)
    assert repr(cq) == repr(tq)
    for copied in (copy.deepcopy(cq), pickle.loads(pickle.dumps(cq)), cq.clone()):
        assert repr(copied) == repr(tq)


def test_errors_match() -> None:
    x = np.ones(3, dtype=np.float32)
    cases = [
        lambda lib: lib.quantize_per_tensor(lib.tensor(x).double(), 0.1, 0, lib.qint8),
        lambda lib: lib.quantize_per_tensor(lib.tensor(x), 0.1, 0, lib.float32),
        lambda lib: lib.quantize_per_tensor(lib.tensor(x), 0.1, 300, lib.qint8),
        lambda lib: lib.quantize_per_tensor(lib.tensor(x), 0.1, -1, lib.quint8),
        lambda lib: lib.quantize_per_tensor(lib.tensor(x), 0.1, 0, lib.qint8).numpy(),
        lambda lib: lib.quantize_per_channel(
            lib.tensor(x), lib.tensor([0.1]), lib.tensor([0]), -1, lib.qint8
        ),
        lambda lib: lib.quantize_per_tensor(lib.tensor(x), 0.1, 0, lib.qint8).requires_grad_(),
    ]
    for case in cases:
        with pytest.raises(Exception) as t:
            case(torch)
        with pytest.raises(Exception) as c:
            case(cr)
        assert type(c.value) is type(t.value)
        assert str(c.value) == str(t.value)
    q = cr.quantize_per_tensor(cr.tensor(x), 0.1, 0, cr.qint8)
    for op in (lambda: q + q, lambda: q.sum(), lambda: q * 2, lambda: cr.cat([q, q])):
        with pytest.raises(NotImplementedError, match="QuantizedCPU"):
            op()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("lo", "hi"), [(-128, 127), (0, 255), (0, 127)])
def test_fake_quantize_per_tensor(dtype: str, lo: int, hi: int) -> None:
    rng = np.random.default_rng(hi - lo)
    for n in (7, 1000, 4099):
        s = float(np.float32(rng.uniform(0.01, 0.3)))
        zp = int(rng.integers(max(lo, 0), hi // 2))
        x = (_values(rng, (n,), np.float32(s)) * 3).astype(dtype)
        for as_tensor in (False, True):
            scale_t = torch.tensor(s) if as_tensor else s
            zp_t = torch.tensor(zp, dtype=torch.int32) if as_tensor else zp
            scale_c = cr.tensor(s) if as_tensor else s
            zp_c = cr.tensor(zp, dtype=cr.int32) if as_tensor else zp
            xt = torch.from_numpy(x).requires_grad_()
            xc = cr.from_numpy(x.copy()).requires_grad_()
            yt = torch.fake_quantize_per_tensor_affine(xt, scale_t, zp_t, lo, hi)
            yc = cr.fake_quantize_per_tensor_affine(xc, scale_c, zp_c, lo, hi)
            (gt,) = torch.autograd.grad((yt * 3).sum(), xt)
            (gc,) = cr.autograd.grad((yc * 3).sum(), xc)
            np.testing.assert_array_equal(yc.detach().numpy(), yt.detach().numpy())
            np.testing.assert_array_equal(gc.numpy(), gt.numpy())
            assert yc.dtype == getattr(cr, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("lo", "hi"), [(-128, 127), (0, 255)])
def test_fake_quantize_per_channel(dtype: str, lo: int, hi: int) -> None:
    rng = np.random.default_rng(hi)
    for shape, axis in (((6, 500), 0), ((4, 7, 9), 1)):
        channels = shape[axis]
        view = [1] * len(shape)
        view[axis] = channels
        s = rng.uniform(0.01, 0.3, channels).astype(np.float32)
        zp = rng.integers(max(lo, 0), 20, channels).astype(np.int32)
        x = (_values(rng, shape, s.reshape(view)) * 3).astype(dtype)
        xt = torch.from_numpy(x).requires_grad_()
        xc = cr.from_numpy(x.copy()).requires_grad_()
        yt = torch.fake_quantize_per_channel_affine(
            xt, torch.from_numpy(s), torch.from_numpy(zp), axis, lo, hi
        )
        yc = cr.fake_quantize_per_channel_affine(
            xc, cr.from_numpy(s.copy()), cr.from_numpy(zp.copy()), axis, lo, hi
        )
        (gt,) = torch.autograd.grad(yt.sum(), xt)
        (gc,) = cr.autograd.grad(yc.sum(), xc)
        np.testing.assert_array_equal(yc.detach().numpy(), yt.detach().numpy())
        np.testing.assert_array_equal(gc.numpy(), gt.numpy())


def test_fake_quantize_errors_match() -> None:
    x = np.ones((1, 3), dtype=np.float32)
    cases = [
        lambda lib: lib.fake_quantize_per_tensor_affine(lib.tensor(x), 0.1, 200, -128, 127),
        lambda lib: lib.fake_quantize_per_tensor_affine(lib.tensor(x), 0.1, 0, 10, 5),
        lambda lib: lib.fake_quantize_per_channel_affine(
            lib.tensor(x), lib.tensor([0.1]), lib.tensor([0]), 0, -128, 127
        ),
    ]
    for case in cases:
        with pytest.raises(RuntimeError) as t:
            case(torch)
        with pytest.raises(RuntimeError) as c:
            case(cr)
        assert str(c.value) == str(t.value)


def test_dynamic_qparams_match() -> None:
    rng = np.random.default_rng(5)
    for _ in range(200):
        n = int(rng.integers(1, 50))
        x = (rng.standard_normal(n) * rng.uniform(0.01, 10) + rng.uniform(-3, 3)).astype(np.float32)
        for reduce_range in (False, True):
            t = torch._choose_qparams_per_tensor(torch.from_numpy(x), reduce_range)
            c = cr._choose_qparams_per_tensor(cr.from_numpy(x.copy()), reduce_range)
            assert c == t
            tq = torch.quantize_per_tensor_dynamic(torch.from_numpy(x), torch.quint8, reduce_range)
            cq = cr.quantize_per_tensor_dynamic(cr.from_numpy(x.copy()), cr.quint8, reduce_range)
            np.testing.assert_array_equal(cq.int_repr().numpy(), tq.int_repr().numpy())
            assert (cq.q_scale(), cq.q_zero_point()) == (tq.q_scale(), tq.q_zero_point())


def test_quantized_engine() -> None:
    assert cr.backends.quantized.engine == torch.backends.quantized.engine == "x86"
    assert cr.backends.quantized.supported_engines == torch.backends.quantized.supported_engines
    for lib in (torch, cr):
        with pytest.raises(RuntimeError, match="foo is not a valid value for quantized engine"):
            lib.backends.quantized.engine = "foo"
    from chainrule._missing import NotImplementedInChainrule
    from chainrule.ao.quantization import quantize_dynamic

    with pytest.warns(DeprecationWarning):
        model = quantize_dynamic(cr.nn.Sequential(cr.nn.Linear(2, 2)), {cr.nn.Linear})
    cr.backends.quantized.engine = "qnnpack"
    try:
        assert cr.backends.quantized.engine == "qnnpack"
        with pytest.raises(NotImplementedInChainrule, match="x86/fbgemm"):
            model(cr.ones(1, 2))
    finally:
        cr.backends.quantized.engine = "x86"
    assert model(cr.ones(1, 2)).shape == (1, 2)
