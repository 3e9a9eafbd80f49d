"""Observers, FakeQuantize and dynamic quantization against PyTorch: the observers'
statistics and ``calculate_qparams``, FakeQuantize modules' outputs and gradients, and
``quantize_dynamic`` of ``nn.Linear`` (outputs equal bit for bit, repr, state dict)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.ao.quantization as tq

import chainrule as cr
import chainrule.ao.quantization as cq

pytestmark = pytest.mark.filterwarnings(
    "ignore:.*deprecated:UserWarning",
    "ignore:Please use quant_min and quant_max:UserWarning",
    "ignore:must run observer:UserWarning",
    "ignore:torch.ao.quantization is deprecated:DeprecationWarning",
)

OBSERVERS = [
    ("MinMaxObserver", {}),
    ("MinMaxObserver", {"dtype": "qint8", "qscheme": "per_tensor_symmetric"}),
    ("MinMaxObserver", {"reduce_range": True}),
    ("MinMaxObserver", {"quant_min": 0, "quant_max": 15}),
    ("MinMaxObserver", {"dtype": "qint8", "reduce_range": True}),
    ("MovingAverageMinMaxObserver", {"averaging_constant": 0.25}),
    ("MovingAverageMinMaxObserver", {"dtype": "qint8", "qscheme": "per_tensor_symmetric"}),
    ("PerChannelMinMaxObserver", {"ch_axis": 1}),
    ("PerChannelMinMaxObserver", {"dtype": "qint8", "qscheme": "per_channel_symmetric"}),
    ("PerChannelMinMaxObserver", {"qscheme": "per_channel_affine_float_qparams"}),
    ("MovingAveragePerChannelMinMaxObserver", {"averaging_constant": 0.5, "ch_axis": 2}),
    ("HistogramObserver", {}),
    ("HistogramObserver", {"reduce_range": True}),
    ("HistogramObserver", {"dtype": "qint8", "qscheme": "per_tensor_symmetric", "bins": 256}),
]


def _kwargs(lib, kwargs: dict) -> dict:
    return {k: getattr(lib, v) if isinstance(v, str) else v for k, v in kwargs.items()}


def _same(c, t) -> None:
    np.testing.assert_array_equal(c.detach().numpy(), t.detach().numpy())
    assert str(c.dtype) == str(t.dtype)


@pytest.mark.parametrize(("name", "kwargs"), OBSERVERS)
def test_observers(name: str, kwargs: dict) -> None:
    rng = np.random.default_rng(len(name) + len(kwargs))
    ot = getattr(tq, name)(**_kwargs(torch, kwargs))
    oc = getattr(cq, name)(**_kwargs(cr, kwargs))
    for scale in (1.0, 3.0, 0.1, 0.0):
        x = (rng.standard_normal((3, 4, 5)) * scale + rng.uniform(-1, 1)).astype(np.float32)
        ot(torch.from_numpy(x))
        oc(cr.from_numpy(x.copy()))
        _same(oc.min_val, ot.min_val)
        _same(oc.max_val, ot.max_val)
        if hasattr(ot, "histogram"):
            _same(oc.histogram, ot.histogram)
        st, zt = ot.calculate_qparams()
        sc, zc = oc.calculate_qparams()
        _same(sc, st)
        _same(zc, zt)
    assert (oc.quant_min, oc.quant_max) == (ot.quant_min, ot.quant_max)
    assert sorted(oc.state_dict()) == sorted(ot.state_dict())
    assert repr(oc).replace("chainrule", "torch") == repr(ot)


def test_unrun_observer_and_errors() -> None:
    st, zt = tq.MinMaxObserver().calculate_qparams()
    sc, zc = cq.MinMaxObserver().calculate_qparams()
    _same(sc, st)
    _same(zc, zt)
    for make in (
        lambda m: m.MinMaxObserver(qscheme=(torch if m is tq else cr).per_channel_affine),
        lambda m: m.MinMaxObserver(quant_min=1, quant_max=10),
    ):
        with pytest.raises(Exception) as t:
            make(tq)
        with pytest.raises(Exception) as c:
            make(cq)
        assert type(c.value) is type(t.value) and str(c.value) == str(t.value)


FAKE_QUANTS = [
    "default_fake_quant",
    "default_weight_fake_quant",
    "default_per_channel_weight_fake_quant",
    "default_fused_act_fake_quant",
    "default_fused_wt_fake_quant",
    "default_fused_per_channel_wt_fake_quant",
]


@pytest.mark.parametrize("which", FAKE_QUANTS)
def test_fake_quantize_module(which: str) -> None:
    rng = np.random.default_rng(len(which))
    ft, fc = getattr(tq, which)(), getattr(cq, which)()
    for step in range(4):
        x = (rng.standard_normal((4, 6)) * (step + 1)).astype(np.float32)
        xt = torch.from_numpy(x).requires_grad_()
        xc = cr.from_numpy(x.copy()).requires_grad_()
        yt, yc = ft(xt), fc(xc)
        _same(yc, yt)
        (gt,) = torch.autograd.grad((yt * yt).sum(), xt)
        (gc,) = cr.autograd.grad((yc * yc).sum(), xc)
        _same(gc, gt)
        _same(fc.scale, ft.scale)
        _same(fc.zero_point, ft.zero_point)
        if step == 2:
            ft.disable_observer()
            fc.disable_observer()
    assert repr(fc).replace("chainrule", "torch") == repr(ft)
    assert list(fc.state_dict()) == list(ft.state_dict())


def _models(in_features: int, hidden: int, out: int, per_channel: bool = False) -> tuple:
    """The same float model on both sides, dynamically quantized."""
    torch.manual_seed(in_features + hidden + out)
    t = torch.nn.Sequential(
        torch.nn.Linear(in_features, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, out)
    )
    c = cr.nn.Sequential(cr.nn.Linear(in_features, hidden), cr.nn.ReLU(), cr.nn.Linear(hidden, out))
    with torch.no_grad(), cr.no_grad():
        for pt, pc in zip(t.parameters(), c.parameters(), strict=True):
            pc.copy_(cr.from_numpy(pt.detach().numpy().copy()))
    if per_channel:
        spec_t = {torch.nn.Linear: tq.per_channel_dynamic_qconfig}
        spec_c = {cr.nn.Linear: cq.per_channel_dynamic_qconfig}
    else:
        spec_t, spec_c = {torch.nn.Linear}, {cr.nn.Linear}
    qt = tq.quantize_dynamic(t, spec_t, dtype=torch.qint8)
    qc = cq.quantize_dynamic(c, spec_c, dtype=cr.qint8)
    return qt, qc, t, c


@pytest.mark.parametrize("per_channel", [False, True])
def test_quantize_dynamic_linear_bit_for_bit(per_channel: bool) -> None:
    rng = np.random.default_rng(7)
    for in_features, hidden, out in ((5, 7, 3), (64, 33, 10), (1, 1, 1)):
        qt, qc, t, c = _models(in_features, hidden, out, per_channel)
        for shape in ((1, in_features), (9, in_features), (2, 3, in_features)):
            x = (rng.standard_normal(shape) * 2 + rng.uniform(-1, 1)).astype(np.float32)
            _same(qc(cr.from_numpy(x.copy())), qt(torch.from_numpy(x)))
        assert repr(qc) == repr(qt)
        for lc, lt in ((qc[0], qt[0]), (qc[2], qt[2])):
            assert repr(lc.weight()) == repr(lt.weight())
            _same(lc.weight().int_repr(), lt.weight().int_repr())
            _same(lc.bias(), lt.bias())
        assert isinstance(t[0], torch.nn.Linear) and isinstance(c[0], cr.nn.Linear)


def test_quantize_dynamic_state_dict() -> None:
    qt, qc, _, _ = _models(4, 3, 2)
    st, sc = qt.state_dict(), qc.state_dict()
    assert list(sc) == list(st)
    assert sc["0._packed_params.dtype"] is cr.qint8
    wc, bc = sc["0._packed_params._packed_params"]
    wt, bt = st["0._packed_params._packed_params"]
    assert repr(wc) == repr(wt)
    _same(bc, bt)
    _same(sc["0.scale"], st["0.scale"])
    _same(sc["0.zero_point"], st["0.zero_point"])
    _, fresh, _, _ = _models(4, 3, 2)
    fresh.load_state_dict(sc)
    assert repr(fresh[0].weight()) == repr(wt)
    assert cr.quantization.quantize_dynamic is cq.quantize_dynamic


def test_missing_parts_raise_clearly() -> None:
    from chainrule._missing import NotImplementedInChainrule

    with pytest.raises(NotImplementedInChainrule, match="GRU"):
        cq.quantize_dynamic(cr.nn.Sequential(cr.nn.GRU(3, 4)), dtype=cr.qint8)
    for backend in ("x86", "fbgemm", "qnnpack", "onednn"):
        for version in (0, 1):
            qconfig = repr(cq.get_default_qat_qconfig(backend, version))
            assert qconfig.replace("chainrule", "torch") == repr(
                tq.get_default_qat_qconfig(backend, version)
            )


def test_save_and_load_both_ways(tmp_path) -> None:
    """torch.save of quantized tensors and quantized state dicts in PyTorch's format: each
    library loads what the other saved."""
    qt, qc, _, _ = _models(4, 3, 2)
    w = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    s, z = np.array([0.01, 0.02, 0.03]), np.array([0, 1, 2])
    extra_t = torch.quantize_per_channel(
        torch.from_numpy(w), torch.from_numpy(s), torch.from_numpy(z), 1 - 1, torch.quint8
    )
    extra_c = cr.quantize_per_channel(
        cr.from_numpy(w.copy()), cr.tensor(s), cr.tensor(z), 0, cr.quint8
    )
    torch.save(
        {"sd": qt.state_dict(), "q": extra_t, "s": torch.per_tensor_symmetric}, tmp_path / "t.pt"
    )
    cr.save({"sd": qc.state_dict(), "q": extra_c, "s": cr.per_tensor_symmetric}, tmp_path / "c.pt")
    from_torch = cr.load(tmp_path / "t.pt")
    from_chainrule = torch.load(tmp_path / "c.pt")
    assert repr(from_torch["q"]) == repr(extra_t) and repr(from_chainrule["q"]) == repr(extra_c)
    assert repr(from_torch["s"]) == repr(from_chainrule["s"]) == "torch.per_tensor_symmetric"
    wt = from_torch["sd"]["0._packed_params._packed_params"][0]
    assert repr(wt) == repr(qt[0].weight())
    wc = from_chainrule["sd"]["0._packed_params._packed_params"][0]
    assert repr(wc) == repr(qc[0].weight())
    fresh_t = tq.quantize_dynamic(
        torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2)),
        {torch.nn.Linear},
        dtype=torch.qint8,
    )
    fresh_t.load_state_dict(from_chainrule["sd"])
    x = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    _same(qc(cr.from_numpy(x.copy())), fresh_t(torch.from_numpy(x)))


@pytest.mark.parametrize(
    ("input_size", "hidden", "layers", "bidirectional", "batch_first"),
    [(5, 6, 1, False, False), (7, 8, 2, True, False), (4, 16, 2, False, True)],
)
def test_quantize_dynamic_lstm(
    input_size: int, hidden: int, layers: int, bidirectional: bool, batch_first: bool
) -> None:
    """The quantized weights equal PyTorch's bit for bit; the outputs and states agree to
    a few float32 ulps (the float gates' sigmoid and tanh differ from PyTorch's in the last
    bit), far below the quantization error itself (about 1e-3 here)."""
    kwargs = {"num_layers": layers, "bidirectional": bidirectional, "batch_first": batch_first}
    torch.manual_seed(hidden)  # (fixed weights: see the tolerance note above)
    lt = torch.nn.LSTM(input_size, hidden, **kwargs)
    lc = cr.nn.LSTM(input_size, hidden, **kwargs)
    with torch.no_grad(), cr.no_grad():
        for (nt, pt), (nc, pc) in zip(lt.named_parameters(), lc.named_parameters(), strict=True):
            assert nt == nc
            pc.copy_(cr.from_numpy(pt.detach().numpy().copy()))
    qt = tq.quantize_dynamic(torch.nn.Sequential(lt), {torch.nn.LSTM}, dtype=torch.qint8)[0]
    qc = cq.quantize_dynamic(cr.nn.Sequential(lc), {cr.nn.LSTM}, dtype=cr.qint8)[0]
    assert repr(qc) == repr(qt)
    for name, wt in qt.get_weight().items():
        assert repr(qc.get_weight()[name]) == repr(wt)
    rng = np.random.default_rng(hidden)
    shape = (3, 10, input_size) if batch_first else (10, 3, input_size)
    x = rng.standard_normal(shape).astype(np.float32)
    directions = 2 if bidirectional else 1
    h0 = rng.standard_normal((layers * directions, 3, hidden)).astype(np.float32) * 0.5
    c0 = rng.standard_normal((layers * directions, 3, hidden)).astype(np.float32) * 0.5
    for state in (None, (h0, c0)):
        args_t = [torch.from_numpy(x)]
        args_c = [cr.from_numpy(x.copy())]
        if state is not None:
            args_t.append(tuple(torch.from_numpy(a) for a in state))
            args_c.append(tuple(cr.from_numpy(a.copy()) for a in state))
        yt, (ht, ct) = qt(*args_t)
        yc, (hc, cc) = qc(*args_c)
        for a, b in ((yc, yt), (hc, ht), (cc, ct)):
            assert tuple(a.shape) == tuple(b.shape)
            np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=0, atol=3e-7)
