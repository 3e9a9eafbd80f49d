"""Quantization-aware training against PyTorch: ``prepare_qat`` of a model with stubs and
linear layers (the QAT qconfigs of both versions: FakeQuantize and the fused fake
quantizers), its repr and state dict keys, and a few SGD steps with the same losses and
parameters; ``prepare`` with observers (post-training calibration) too."""

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
            self.fc = lib.nn.Linear(4, 3)
            self.relu = lib.nn.ReLU()
            self.fc2 = lib.nn.Linear(3, 2)
            self.dequant = q.DeQuantStub()

        def forward(self, x):
            return self.dequant(self.fc2(self.relu(self.fc(self.quant(x)))))

    return Net()


def _pair() -> tuple:
    torch.manual_seed(0)  # (the same weights on every run: a fake-quantization rounding
    # that the last bit of a float matmul decides stays decided the same way)
    mt, mc = _model(torch, tq), _model(cr, cq)
    with torch.no_grad(), cr.no_grad():
        for pt, pc in zip(mt.parameters(), mc.parameters(), strict=True):
            pc.copy_(cr.from_numpy(pt.detach().numpy().copy()))
    return mt, mc


@pytest.mark.parametrize("backend", ["x86", "qnnpack"])
@pytest.mark.parametrize("version", [0, 1])
def test_prepare_qat_and_train(backend: str, version: int) -> None:
    mt, mc = _pair()
    mt.qconfig = tq.get_default_qat_qconfig(backend, version)
    mc.qconfig = cq.get_default_qat_qconfig(backend, version)
    pt, pc = tq.prepare_qat(mt.train()), cq.prepare_qat(mc.train())
    assert repr(pc).replace("chainrule", "torch") == repr(pt)
    assert list(pc.state_dict()) == list(pt.state_dict())
    assert type(pc.fc).__name__ == "Linear" and isinstance(pc.fc, cr.nn.Linear)
    ot = torch.optim.SGD(pt.parameters(), lr=0.1)
    oc = cr.optim.SGD(pc.parameters(), lr=0.1)
    rng = np.random.default_rng(version)
    for step in range(5):
        x = rng.standard_normal((8, 4)).astype(np.float32)
        y = rng.standard_normal((8, 2)).astype(np.float32)
        lt = ((pt(torch.from_numpy(x)) - torch.from_numpy(y)) ** 2).mean()
        lc = ((pc(cr.from_numpy(x)) - cr.from_numpy(y)) ** 2).mean()
        np.testing.assert_allclose(lc.item(), lt.item(), rtol=1e-5)
        ot.zero_grad()
        lt.backward()
        ot.step()
        oc.zero_grad()
        lc.backward()
        oc.step()
        for a, b in zip(pc.parameters(), pt.parameters(), strict=True):
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=0, atol=1e-6)
        if step == 2:
            pt.apply(tq.disable_observer)
            pc.apply(cq.disable_observer)
    for (name, a), (_, b) in zip(pc.state_dict().items(), pt.state_dict().items(), strict=True):
        if "scale" in name or "zero_point" in name:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, err_msg=name)


def test_prepare_calibrates_observers() -> None:
    mt, mc = _pair()
    mt.qconfig, mc.qconfig = tq.default_qconfig, cq.default_qconfig
    pt, pc = tq.prepare(mt.eval()), cq.prepare(mc.eval())
    assert repr(pc).replace("chainrule", "torch") == repr(pt)
    rng = np.random.default_rng(3)
    for _ in range(3):
        x = rng.standard_normal((5, 4)).astype(np.float32)
        np.testing.assert_allclose(
            pc(cr.from_numpy(x)).detach().numpy(),
            pt(torch.from_numpy(x)).detach().numpy(),
            rtol=1e-5,
            atol=1e-6,
        )
    for name in ("quant", "fc", "fc2"):
        obs_t = getattr(pt, name).activation_post_process
        obs_c = getattr(pc, name).activation_post_process
        (sc, zc), (st, zt) = obs_c.calculate_qparams(), obs_t.calculate_qparams()
        # (the stub sees the inputs: exact; the layers' outputs may differ from PyTorch's
        # matmul in the last bit, and so may their scales)
        np.testing.assert_allclose(sc.numpy(), st.numpy(), rtol=0 if name == "quant" else 1e-5)
        np.testing.assert_allclose(zc.numpy(), zt.numpy(), atol=0 if name == "quant" else 1)
    with pytest.warns(UserWarning, match="None of the submodule got qconfig"):
        cq.prepare(_model(cr, cq))
