"""Post-training static quantization and QAT conversion against PyTorch: ``prepare``,
calibration, ``convert`` of a model of stubs, linear layers and ReLU (quantized linear
layers, ReLU on quantized tensors); with PyTorch's converted state dict loaded, the
quantized outputs equal PyTorch's bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.ao.quantization as tq

import chainrule as cr
import chainrule.ao.quantization as cq

pytestmark = pytest.mark.filterwarnings(
    "ignore:.*deprecated:UserWarning",
    "ignore:torch.ao.quantization is deprecated:DeprecationWarning",
    "ignore:Please use quant_min and quant_max:UserWarning",
)


def _model(lib, q):
    class Net(lib.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.quant = q.QuantStub()
            self.fc = lib.nn.Linear(6, 5)
            self.relu = lib.nn.ReLU()
            self.fc2 = lib.nn.Linear(5, 3)
            self.dequant = q.DeQuantStub()

        def forward(self, x):
            return self.dequant(self.fc2(self.relu(self.fc(self.quant(x)))))

    return Net()


def _pair() -> tuple:
    torch.manual_seed(0)
    mt, mc = _model(torch, tq), _model(cr, cq)
    with torch.no_grad(), cr.no_grad():
        for pt, pc in zip(mt.parameters(), mc.parameters(), strict=True):
            pc.copy_(cr.from_numpy(pt.detach().numpy().copy()))
    return mt, mc


def _qconfigs(which: str) -> tuple:
    if which == "default":
        return tq.default_qconfig, cq.default_qconfig
    if which in ("x86", "qnnpack"):  # (a HistogramObserver of the activations)
        return tq.get_default_qconfig(which), cq.get_default_qconfig(which)
    return (
        tq.QConfig(
            activation=tq.MinMaxObserver.with_args(reduce_range=True),
            weight=tq.default_per_channel_weight_observer,
        ),
        cq.QConfig(
            activation=cq.MinMaxObserver.with_args(reduce_range=True),
            weight=cq.default_per_channel_weight_observer,
        ),
    )


def _check_converted(ct, cc, tmp_path, rng) -> None:
    """The same layers and, with PyTorch's state dict loaded, the same quantized outputs."""
    assert list(cc.state_dict()) == list(ct.state_dict())
    torch.save(ct.state_dict(), tmp_path / "converted.pt")
    cc.load_state_dict(cr.load(tmp_path / "converted.pt"))
    assert repr(cc).replace("chainrule", "torch") == repr(ct)
    x = rng.standard_normal((10, 6)).astype(np.float32)
    qt = ct.fc2(ct.relu(ct.fc(ct.quant(torch.from_numpy(x)))))
    qc = cc.fc2(cc.relu(cc.fc(cc.quant(cr.from_numpy(x)))))
    assert repr(qc) == repr(qt)
    np.testing.assert_array_equal(qc.int_repr().numpy(), qt.int_repr().numpy())
    np.testing.assert_array_equal(cc(cr.from_numpy(x)).numpy(), ct(torch.from_numpy(x)).numpy())


# PyTorch's fbgemm sums neighbouring uint8·int8 products in saturating 16-bit lanes where
# the processor lacks AVX-512 (VNNI): activations over 0..255 (the qnnpack qconfig, no
# reduce_range) then clip there, and the oracle is exact only on AVX-512 machines
# (docs/quantization.md); chainrule's sums are exact on every machine, so elsewhere the
# comparison fails, as expected
EXACT_ORACLE = torch.backends.cpu.get_cpu_capability().startswith("AVX512")


@pytest.mark.parametrize(
    "which",
    [
        "default",
        "per_channel",
        "x86",
        pytest.param(
            "qnnpack",
            marks=pytest.mark.xfail(
                not EXACT_ORACLE,
                reason="PyTorch's AVX2 kernels saturate 16-bit pair sums",
                strict=True,
            ),
        ),
    ],
)
def test_post_training_static_quantization(which: str, tmp_path) -> None:
    mt, mc = _pair()
    mt.qconfig, mc.qconfig = _qconfigs(which)
    pt, pc = tq.prepare(mt.eval()), cq.prepare(mc.eval())
    rng = np.random.default_rng(0)
    for _ in range(4):
        x = rng.standard_normal((16, 6)).astype(np.float32)
        pt(torch.from_numpy(x))
        pc(cr.from_numpy(x))
    ct, cc = tq.convert(pt), cq.convert(pc)
    # calibrated on their own: the scales agree to the float layers' last bits
    assert cc.fc.zero_point == ct.fc.zero_point
    np.testing.assert_allclose(cc.fc2.scale, ct.fc2.scale, rtol=1e-5)
    assert repr(cc.quant).replace("chainrule", "torch") == repr(ct.quant)
    _check_converted(ct, cc, tmp_path, rng)


def test_quantization_aware_training_then_convert(tmp_path) -> None:
    mt, mc = _pair()
    mt.qconfig = tq.get_default_qat_qconfig("x86")
    mc.qconfig = cq.get_default_qat_qconfig("x86")
    pt, pc = tq.prepare_qat(mt.train()), cq.prepare_qat(mc.train())
    ot = torch.optim.SGD(pt.parameters(), lr=0.05)
    oc = cr.optim.SGD(pc.parameters(), lr=0.05)
    rng = np.random.default_rng(1)
    for _ in range(5):
        x = rng.standard_normal((8, 6)).astype(np.float32)
        y = rng.standard_normal((8, 3)).astype(np.float32)
        lt = ((pt(torch.from_numpy(x)) - torch.from_numpy(y)) ** 2).mean()
        lc = ((pc(cr.from_numpy(x)) - cr.from_numpy(y)) ** 2).mean()
        ot.zero_grad()
        lt.backward()
        ot.step()
        oc.zero_grad()
        lc.backward()
        oc.step()
    ct, cc = tq.convert(pt.eval()), cq.convert(pc.eval())
    _check_converted(ct, cc, tmp_path, rng)


def test_what_cannot_be_converted_raises() -> None:
    from chainrule._missing import NotImplementedInChainrule

    model = cr.nn.Sequential(cq.QuantStub(), cr.nn.Conv1d(1, 1, 1), cq.DeQuantStub())
    model.qconfig = cq.default_qconfig
    prepared = cq.prepare(model.eval())
    prepared(cr.randn(1, 1, 3))
    with pytest.raises(NotImplementedInChainrule, match="Conv1d"):
        cq.convert(prepared)
    q = cr.quantize_per_tensor(cr.randn(3), 0.1, 0, cr.quint8)
    with pytest.raises(NotImplementedError, match="QuantizedCPU"):
        cr.nn.functional.conv1d(q.reshape(1, 1, 3), cr.ones(1, 1, 1))


def _fusable(lib, q):
    class Net(lib.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.quant = q.QuantStub()
            self.fc = lib.nn.Linear(6, 5)
            self.relu = lib.nn.ReLU()
            self.fc2 = lib.nn.Linear(5, 3)
            self.bn = lib.nn.BatchNorm1d(3)
            self.dequant = q.DeQuantStub()

        def forward(self, x):
            return self.dequant(self.bn(self.fc2(self.relu(self.fc(self.quant(x))))))

    return Net()


def _fusable_pair() -> tuple:
    torch.manual_seed(1)
    mt, mc = _fusable(torch, tq), _fusable(cr, cq)
    with torch.no_grad():
        mt.bn.running_mean.uniform_(-1, 1)
        mt.bn.running_var.uniform_(0.5, 2)
        mt.bn.weight.uniform_(0.5, 1.5)
        mt.bn.bias.uniform_(-1, 1)
    with cr.no_grad():
        for pt, pc in zip(mt.state_dict().values(), mc.state_dict().values(), strict=True):
            pc.copy_(cr.from_numpy(pt.detach().numpy().copy()))
    return mt, mc


def test_fuse_prepare_convert(tmp_path) -> None:
    mt, mc = _fusable_pair()
    groups = [["fc", "relu"], ["fc2", "bn"]]
    ft, fc = tq.fuse_modules(mt.eval(), groups), cq.fuse_modules(mc.eval(), groups)
    assert repr(fc).replace("chainrule", "torch") == repr(ft)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 6)).astype(np.float32)
    np.testing.assert_allclose(
        fc(cr.from_numpy(x)).detach().numpy(),
        ft(torch.from_numpy(x)).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )
    ft.qconfig, fc.qconfig = tq.default_qconfig, cq.default_qconfig
    pt, pc = tq.prepare(ft), cq.prepare(fc)
    assert repr(pc).replace("chainrule", "torch") == repr(pt)
    for _ in range(3):
        x = rng.standard_normal((16, 6)).astype(np.float32)
        pt(torch.from_numpy(x))
        pc(cr.from_numpy(x))
    ct, cc = tq.convert(pt), cq.convert(pc)
    assert type(cc.fc).__name__ == "LinearReLU"
    qx_t = ct.quant(torch.from_numpy(x))
    torch.save(ct.state_dict(), tmp_path / "fused.pt")
    cc.load_state_dict(cr.load(tmp_path / "fused.pt"))
    assert repr(cc).replace("chainrule", "torch") == repr(ct)
    qx_c = cc.quant(cr.from_numpy(x))
    np.testing.assert_array_equal(cc.fc(qx_c).int_repr().numpy(), ct.fc(qx_t).int_repr().numpy())
    np.testing.assert_array_equal(cc(cr.from_numpy(x)).numpy(), ct(torch.from_numpy(x)).numpy())


def test_fuse_modules_qat_linear_relu() -> None:
    mt, mc = _fusable_pair()
    mt.qconfig = tq.get_default_qat_qconfig("x86")
    mc.qconfig = cq.get_default_qat_qconfig("x86")
    ft = tq.fuse_modules_qat(mt.train(), [["fc", "relu"]])
    fc = cq.fuse_modules_qat(mc.train(), [["fc", "relu"]])
    pt, pc = tq.prepare_qat(ft), cq.prepare_qat(fc)
    assert repr(pc).replace("chainrule", "torch") == repr(pt)
    x = np.random.default_rng(3).standard_normal((8, 6)).astype(np.float32)
    np.testing.assert_allclose(
        pc(cr.from_numpy(x)).detach().numpy(),
        pt(torch.from_numpy(x)).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )


def test_fusions_chainrule_lacks_raise() -> None:
    from chainrule._missing import NotImplementedInChainrule

    model = cr.nn.Sequential(cr.nn.Conv2d(1, 2, 1), cr.nn.BatchNorm2d(2), cr.nn.ReLU())
    with pytest.raises(NotImplementedInChainrule, match="quantization-aware training"):
        cq.fuse_modules_qat(model.train(), ["0", "1", "2"])
    model = cr.nn.Sequential(cr.nn.Conv1d(1, 2, 1), cr.nn.ReLU())
    fused = cq.fuse_modules(model.eval(), ["0", "1"])
    assert type(fused[0]).__name__ == "ConvReLU1d"
    fused.qconfig = cq.default_qconfig
    prepared = cq.prepare(fused)
    prepared(cr.randn(1, 1, 3))
    with pytest.raises(NotImplementedInChainrule, match="ConvReLU1d"):
        cq.convert(prepared)
    model = cr.nn.Sequential(cr.nn.Conv3d(1, 1, 1))
    model.qconfig = cq.get_default_qat_qconfig("x86")
    with pytest.raises(NotImplementedInChainrule, match="Conv3d"):
        cq.prepare_qat(model.train())


def _convnet(lib, q):
    class Net(lib.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.quant = q.QuantStub()
            self.conv = lib.nn.Conv2d(3, 8, 3, padding=1)
            self.bn = lib.nn.BatchNorm2d(8)
            self.relu = lib.nn.ReLU()
            self.pool = lib.nn.MaxPool2d(2)
            self.conv2 = lib.nn.Conv2d(8, 4, 3, stride=2, groups=4, bias=False)
            self.relu2 = lib.nn.ReLU()
            self.fc = lib.nn.Linear(16, 5)
            self.dequant = q.DeQuantStub()

        def forward(self, x):
            x = self.pool(self.relu(self.bn(self.conv(self.quant(x)))))
            x = self.relu2(self.conv2(x))
            return self.dequant(self.fc(x.flatten(1)))

    return Net()


def _convnet_pair() -> tuple:
    torch.manual_seed(2)
    mt, mc = _convnet(torch, tq), _convnet(cr, cq)
    with torch.no_grad():
        mt.bn.running_mean.uniform_(-1, 1)
        mt.bn.running_var.uniform_(0.5, 2)
    with cr.no_grad():
        for pt, pc in zip(mt.state_dict().values(), mc.state_dict().values(), strict=True):
            pc.copy_(cr.from_numpy(pt.detach().numpy().copy()))
    return mt, mc


def _check_convnet(ct, cc, tmp_path, rng) -> None:
    assert list(cc.state_dict()) == list(ct.state_dict())
    torch.save(ct.state_dict(), tmp_path / "convnet.pt")
    cc.load_state_dict(cr.load(tmp_path / "convnet.pt"))
    assert repr(cc).replace("chainrule", "torch") == repr(ct)
    x = rng.standard_normal((2, 3, 10, 10)).astype(np.float32)
    qt = ct.conv2(ct.pool(ct.conv(ct.quant(torch.from_numpy(x)))))
    qc = cc.conv2(cc.pool(cc.conv(cc.quant(cr.from_numpy(x)))))
    assert repr(qc) == repr(qt)
    np.testing.assert_array_equal(cc(cr.from_numpy(x)).numpy(), ct(torch.from_numpy(x)).numpy())


def test_static_quantization_of_a_convnet(tmp_path) -> None:
    """Fusion (conv + bn + relu folded), the x86 qconfig (histogram observer, per-channel
    weights), calibration, convert: quantized convolutions, max pooling and flatten."""
    mt, mc = _convnet_pair()
    groups = [["conv", "bn", "relu"], ["conv2", "relu2"]]
    ft, fc = tq.fuse_modules(mt.eval(), groups), cq.fuse_modules(mc.eval(), groups)
    assert repr(fc).replace("chainrule", "torch") == repr(ft)
    ft.qconfig, fc.qconfig = tq.get_default_qconfig("x86"), cq.get_default_qconfig("x86")
    pt, pc = tq.prepare(ft), cq.prepare(fc)
    rng = np.random.default_rng(4)
    for _ in range(3):
        x = rng.standard_normal((4, 3, 10, 10)).astype(np.float32)
        pt(torch.from_numpy(x))
        pc(cr.from_numpy(x))
    ct, cc = tq.convert(pt), cq.convert(pc)
    np.testing.assert_allclose(cc.conv.scale, ct.conv.scale, rtol=1e-5)
    _check_convnet(ct, cc, tmp_path, rng)


def test_quantization_aware_training_of_a_convnet(tmp_path) -> None:
    mt, mc = _convnet_pair()
    mt.bn, mc.bn = torch.nn.Identity(), cr.nn.Identity()  # (QAT batch norm: not in chainrule)
    mt.qconfig = tq.get_default_qat_qconfig("x86")
    mc.qconfig = cq.get_default_qat_qconfig("x86")
    ft = tq.fuse_modules_qat(mt.train(), [["conv2", "relu2"]])
    fc = cq.fuse_modules_qat(mc.train(), [["conv2", "relu2"]])
    pt, pc = tq.prepare_qat(ft), cq.prepare_qat(fc)
    assert repr(pc).replace("chainrule", "torch") == repr(pt)
    ot = torch.optim.SGD(pt.parameters(), lr=0.01)
    oc = cr.optim.SGD(pc.parameters(), lr=0.01)
    rng = np.random.default_rng(5)
    for _ in range(3):
        x = rng.standard_normal((4, 3, 10, 10)).astype(np.float32)
        lt = pt(torch.from_numpy(x)).square().mean()
        lc = pc(cr.from_numpy(x)).square().mean()
        np.testing.assert_allclose(lc.item(), lt.item(), rtol=1e-4)
        ot.zero_grad()
        lt.backward()
        ot.step()
        oc.zero_grad()
        lc.backward()
        oc.step()
    ct, cc = tq.convert(pt.eval()), cq.convert(pc.eval())
    _check_convnet(ct, cc, tmp_path, rng)


def _residual(lib, q, nnq):
    class Net(lib.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.quant = q.QuantStub()
            self.conv = lib.nn.Conv2d(3, 3, 3, padding=1)
            self.skip = nnq.FloatFunctional()
            self.conv2 = lib.nn.Conv2d(3, 3, 1)
            self.skip2 = nnq.FloatFunctional()
            self.dequant = q.DeQuantStub()

        def forward(self, x):
            x = self.quant(x)
            y = self.skip.add(self.conv(x), x)
            return self.dequant(self.skip2.add_relu(self.conv2(y), y))

    return Net()


def test_residual_additions_with_float_functional(tmp_path) -> None:
    import torch.ao.nn.quantized as t_nnq

    import chainrule.ao.nn.quantized as c_nnq

    torch.manual_seed(3)
    mt, mc = _residual(torch, tq, t_nnq), _residual(cr, cq, c_nnq)
    with cr.no_grad():
        for pt, pc in zip(mt.state_dict().values(), mc.state_dict().values(), strict=True):
            pc.copy_(cr.from_numpy(pt.detach().numpy().copy()))
    mt.qconfig, mc.qconfig = tq.get_default_qconfig("x86"), cq.get_default_qconfig("x86")
    pt, pc = tq.prepare(mt.eval()), cq.prepare(mc.eval())
    assert repr(pc).replace("chainrule", "torch") == repr(pt)
    rng = np.random.default_rng(6)
    for _ in range(3):
        x = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
        pt(torch.from_numpy(x))
        pc(cr.from_numpy(x))
    ct, cc = tq.convert(pt), cq.convert(pc)
    assert list(cc.state_dict()) == list(ct.state_dict())
    torch.save(ct.state_dict(), tmp_path / "residual.pt")
    cc.load_state_dict(cr.load(tmp_path / "residual.pt"))
    assert repr(cc).replace("chainrule", "torch") == repr(ct)
    for _ in range(3):
        x = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
        np.testing.assert_array_equal(cc(cr.from_numpy(x)).numpy(), ct(torch.from_numpy(x)).numpy())


def _mobile(lib, q, nnq):
    class Block(lib.nn.Module):
        """A MobileNetV2-style block: expand (conv-bn-relu), ReLU6, residual add."""

        def __init__(self) -> None:
            super().__init__()
            self.quant = q.QuantStub()
            self.conv = lib.nn.Conv2d(3, 6, 3, padding=1, bias=False)
            self.bn = lib.nn.BatchNorm2d(6)
            self.relu = lib.nn.ReLU()
            self.project = lib.nn.Conv2d(6, 3, 1)
            self.relu6 = lib.nn.ReLU6()
            self.skip = nnq.FloatFunctional()
            self.pool = lib.nn.AdaptiveAvgPool2d(1)
            self.drop = lib.nn.Dropout(0.2)
            self.fc = lib.nn.Linear(3, 4)
            self.dequant = q.DeQuantStub()

        def forward(self, x):
            x = self.quant(x)
            y = self.relu6(self.project(self.relu(self.bn(self.conv(x)))))
            x = self.skip.add(x, y)
            pooled = self.pool(x).flatten(1)
            means = x.mean([2, 3])
            return self.dequant(self.fc(self.drop(pooled))), self.dequant(means)

    return Block()


def test_a_mobilenet_style_block(tmp_path) -> None:
    """ReLU6, Dropout, FloatFunctional.add, global average pooling, mean over H and W."""
    import torch.ao.nn.quantized as t_nnq

    import chainrule.ao.nn.quantized as c_nnq

    torch.manual_seed(4)
    mt, mc = _mobile(torch, tq, t_nnq), _mobile(cr, cq, c_nnq)
    with torch.no_grad():
        mt.bn.running_mean.uniform_(-1, 1)
        mt.bn.running_var.uniform_(0.5, 2)
    with cr.no_grad():
        for pt, pc in zip(mt.state_dict().values(), mc.state_dict().values(), strict=True):
            pc.copy_(cr.from_numpy(pt.detach().numpy().copy()))
    groups = [["conv", "bn", "relu"]]
    ft, fc = tq.fuse_modules(mt.eval(), groups), cq.fuse_modules(mc.eval(), groups)
    ft.qconfig, fc.qconfig = tq.get_default_qconfig("x86"), cq.get_default_qconfig("x86")
    pt, pc = tq.prepare(ft), cq.prepare(fc)
    assert repr(pc).replace("chainrule", "torch") == repr(pt)
    rng = np.random.default_rng(7)
    for _ in range(3):
        x = rng.standard_normal((2, 3, 5, 5)).astype(np.float32)
        pt(torch.from_numpy(x))
        pc(cr.from_numpy(x))
    ct, cc = tq.convert(pt), cq.convert(pc)
    assert list(cc.state_dict()) == list(ct.state_dict())
    torch.save(ct.state_dict(), tmp_path / "mobile.pt")
    cc.load_state_dict(cr.load(tmp_path / "mobile.pt"))
    assert repr(cc).replace("chainrule", "torch") == repr(ct)
    for _ in range(3):
        x = rng.standard_normal((2, 3, 5, 5)).astype(np.float32)
        for a, b in zip(cc(cr.from_numpy(x)), ct(torch.from_numpy(x)), strict=True):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
