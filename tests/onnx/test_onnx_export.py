"""torch.onnx.export: chainrule's ONNX file against PyTorch's, both run by ONNX Runtime.

Each model is written once for both libraries (``make(lib)``); chainrule's copy gets
PyTorch's state_dict, both are exported (PyTorch with ``dynamo=False``), and ONNX Runtime
runs the two files on the same inputs: the outputs agree with each other and with
chainrule's own forward.
"""

from __future__ import annotations

import io
import os
import warnings

import numpy as np
import onnxruntime as ort
import pytest
import torch

import chainrule as cr
import onnx

RNG = np.random.default_rng(0)


def _copy(tm, cm):
    cm.load_state_dict({k: cr.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return cm


def _run(path, feeds):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    sess = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def _torch_export(tm, targs, path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(tm, targs, path, dynamo=False, **kw)


def _export_both(make, arrays, tmp_path, train=False, **kw):
    """Export PyTorch's model and chainrule's copy; (torch file, chainrule file, chainrule's
    forward outputs)."""
    torch.manual_seed(0)
    tm = make(torch)
    cm = _copy(tm, make(cr))
    tm.train(train)
    cm.train(train)
    targs = tuple(torch.from_numpy(a) for a in arrays)
    cargs = tuple(cr.tensor(a) for a in arrays)
    tpath, cpath = str(tmp_path / "t.onnx"), str(tmp_path / "c.onnx")
    _torch_export(tm, targs, tpath, **kw)
    cr.onnx.export(cm, cargs, cpath, dynamo=False, **kw)
    with cr.no_grad():
        out = cm(*cargs)
    outs = [out] if isinstance(out, cr.Tensor) else list(out)
    return tpath, cpath, [o.numpy() for o in outs]


def _names(path):
    m = onnx.load(path)
    return [i.name for i in m.graph.input], [o.name for o in m.graph.output]


def _check(make, arrays, tmp_path, atol=1e-5, names=True, **kw):
    input_names = [f"in{i}" for i in range(len(arrays))]
    tpath, cpath, own = _export_both(make, arrays, tmp_path, input_names=input_names, **kw)
    onnx.checker.check_model(onnx.load(cpath))
    feeds = dict(zip(input_names, arrays))
    expected, got = _run(tpath, feeds), _run(cpath, feeds)
    assert len(expected) == len(got) == len(own)
    for e, g, o in zip(expected, got, own):
        assert g.shape == e.shape and g.dtype == e.dtype
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=atol)
        np.testing.assert_allclose(g, o, rtol=1e-5, atol=atol)
    if names:
        assert _names(cpath)[0] == _names(tpath)[0]
    return tpath, cpath


def randn(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


# ----- models ------------------------------------------------------------------------------


def mlp(lib):
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = lib.nn.Linear(6, 16)
            self.fc2 = lib.nn.Linear(16, 4)

        def forward(self, x):
            return lib.softmax(self.fc2(lib.relu(self.fc1(x))), dim=-1)

    return Net()


def activations(lib):
    F = lib.nn.functional

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = lib.nn.Linear(5, 8)
            self.bn = lib.nn.BatchNorm1d(8)
            self.drop = lib.nn.Dropout(0.3)

        def forward(self, x):
            h = self.drop(self.bn(self.fc(x)))
            parts = [
                F.gelu(h),
                F.gelu(h, approximate="tanh"),
                F.silu(h),
                F.leaky_relu(h, 0.2),
                F.elu(h),
                F.softplus(h),
                F.hardswish(h),
                lib.tanh(h),
                lib.sigmoid(h),
                F.relu6(h * 4),
                F.hardtanh(h),
                F.log_softmax(h, dim=1),
                F.mish(h),
                F.hardsigmoid(h),
            ]
            return lib.cat(parts, dim=1)

    return Net()


def cnn(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv2d(3, 8, 3, padding=1)
            self.bn = nn.BatchNorm2d(8)
            self.c2 = nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=2)
            self.c3 = nn.Conv2d(8, 6, 3, padding="same")
            self.c4 = nn.Conv2d(6, 6, 3, padding=2, dilation=2)
            self.pool = nn.MaxPool2d(2)
            self.avg = nn.AvgPool2d(3, stride=1, padding=1)
            self.gap = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(6, 5)

        def forward(self, x):
            x = self.pool(lib.relu(self.bn(self.c1(x))))
            x = self.avg(self.c4(self.c3(self.c2(x))))
            return self.fc(lib.flatten(self.gap(x), 1))

    return Net()


def norms(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv1d(4, 6, 3, padding=1)
            self.gn = nn.GroupNorm(3, 6)
            self.ln = nn.LayerNorm(10)
            self.up = nn.ConvTranspose2d(6, 2, 3, stride=2, padding=1, output_padding=1)
            self.bn1 = nn.BatchNorm1d(6)

        def forward(self, x):
            h = self.ln(self.gn(self.c1(x)))
            h = self.bn1(h)
            img = h.unsqueeze(-1).expand(-1, -1, -1, 3)
            return self.up(img), nn.functional.adaptive_avg_pool2d(img, (5, 1))

    return Net()


def shapes(lib):
    class Net(lib.nn.Module):
        def forward(self, x):
            n = x.shape[0]
            a = x.permute(0, 2, 1).transpose(1, 2)
            b = lib.cat([a, a * 2], dim=1)
            c = lib.stack([b[:, 1:3], b[:, -2:]], dim=0)
            d, e = lib.chunk(c, 2, dim=-1)
            f, g, _ = lib.split(x, [1, 2, 1], dim=2)
            h = x.narrow(1, 1, 2).select(2, 0)
            i = x[:, None, 0, ::2].squeeze(1).unsqueeze(0)
            j = x.view(n, -1).reshape(-1, 4)
            k = h.unsqueeze(1).expand(-1, 3, -1).repeat(1, 2, 1)
            m = x[..., 1] + x[:, :, -1]
            return d - e, f * g, h, i, j, k, m, x.flatten(1).t().contiguous().T

    return Net()


def elementwise(lib):
    class Net(lib.nn.Module):
        def forward(self, x, y):
            a = (x + 1) * 2 - y / 3 + 1.5**x - 2 - x + 3 / (y.abs() + 1)
            b = lib.pow(x, 2) + x**3 - lib.exp(-x) + lib.log(x.abs() + 1) + lib.sqrt(y.abs())
            c = lib.clamp(x, -0.5, 0.5) + x.clamp(min=0.1) + lib.where(x > y, x, y)
            d = ((x >= 0) & (y < 0)).float() + (x == y).to(lib.float32) + (x != 0).long()
            e = x.mean(dim=1, keepdim=True) + x.sum(-1, keepdim=True) + x.amax(1, keepdim=True)
            f = x.max(dim=1).values + x.min(dim=1)[0] + x.amin(dim=(0, 1)) + x.std(1) + x.var(1)
            g = lib.argmax(x, dim=1) + x.argmin(1) + lib.argmax(x)
            h = x.masked_fill(x > 0.5, -1.0) + lib.maximum(x, y) + lib.minimum(x, y) - (-x)
            return a, b, c, d, e, f, g, h, x.sum(), x.mean()

    return Net()


def embedder(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(20, 8)
            self.ln = nn.LayerNorm(8)
            self.fc = nn.Linear(8, 3)

        def forward(self, ids):
            return self.fc(self.ln(self.emb(ids)).mean(dim=1))

    return Net()


def resizer(lib):
    F = lib.nn.functional

    class Net(lib.nn.Module):
        def forward(self, x):
            a = F.interpolate(x, scale_factor=2, mode="nearest")
            b = F.interpolate(x, size=(7, 5), mode="bilinear", align_corners=False)
            c = F.interpolate(x, size=(8, 6), mode="bilinear", align_corners=True)
            d = F.pad(x, (1, 2, 0, 1))
            e = F.pad(x, (1, 1, 2, 2), mode="reflect")
            f = F.pad(x, (1, 1), value=0.5)
            g = F.interpolate(x, size=(9, 7), mode="nearest")
            return a, b, c, d, e, f, g

    return Net()


def encoder(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, batch_first=True)
            self.mha = nn.MultiheadAttention(8, 4, batch_first=True)

        def forward(self, x):
            h = self.layer(x)
            a, w = self.mha(h, x, x)
            return a, w

    return Net()


def attention(lib):
    F = lib.nn.functional

    class Net(lib.nn.Module):
        def forward(self, q, k, v):
            causal = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            mask = lib.ones(q.shape[-2], k.shape[-2], dtype=lib.bool).tril()
            masked = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=0.3)
            return causal, masked

    return Net()


def more_ops(lib):
    F = lib.nn.functional
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.prelu = nn.PReLU(4)
            self.inorm = nn.InstanceNorm2d(4, affine=True)
            self.emb = nn.Embedding(10, 4)

        def forward(self, x, idx):
            a = lib.roll(x, shifts=(1, -2), dims=(2, 3)) + lib.cumsum(x, dim=3)
            v, i = lib.topk(x.flatten(2), 3, dim=-1)
            b = lib.gather(x.flatten(2), 2, i) * v + i.float()
            c = lib.einsum("nchw,nc->nhw", x, x.mean((2, 3))).tril()
            d = F.interpolate(x, scale_factor=2, mode="bicubic", align_corners=False)
            e = F.adaptive_avg_pool2d(x, (2, 1)) + F.adaptive_max_pool2d(x, 2)
            f = F.pixel_shuffle(x, 2)
            g = F.normalize(x, dim=1) + F.glu(x, dim=1).repeat(1, 2, 1, 1)
            h = self.prelu(x) + self.inorm(x)
            k = x.index_select(1, idx) + self.emb(idx).t().unsqueeze(-1).unsqueeze(0)
            m = lib.logsumexp(x, dim=1) + x.prod(1) + F.softmin(x, dim=1).sum(1)
            return a, b, c, d, e, f, g, h, k, m

    return Net()


def recurrent(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(3, 5, num_layers=2, bidirectional=True, batch_first=True)
            self.gru = nn.GRU(10, 4)
            self.rnn = nn.RNN(4, 3, nonlinearity="relu", batch_first=True)
            self.fc = nn.Linear(3, 2)

        def forward(self, x):
            y, (h, c) = self.lstm(x)
            z, hz = self.gru(y.transpose(0, 1))
            w, hw = self.rnn(z.transpose(0, 1))
            return self.fc(w[:, -1]), h, c, hz, hw

    return Net()


def attention_masks(lib):
    nn = lib.nn
    F = nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.mha = nn.MultiheadAttention(8, 2)

        def forward(self, x, pad, bias):
            mask = lib.ones(x.shape[0], x.shape[0], dtype=lib.bool).triu(1)
            a, w = self.mha(x, x, x, key_padding_mask=pad, attn_mask=mask)
            b, _ = self.mha(x, x, x, need_weights=False, attn_mask=bias)
            q = x.permute(1, 0, 2).unsqueeze(1)
            c = F.scaled_dot_product_attention(q, q, q, attn_mask=bias)
            return a, w, b, c

    return Net()


# ----- tests -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make, arrays",
    [
        (mlp, [randn(3, 6)]),
        (activations, [randn(4, 5)]),
        (cnn, [randn(2, 3, 16, 16)]),
        (norms, [randn(2, 4, 10)]),
        (shapes, [randn(2, 3, 4)]),
        (elementwise, [randn(3, 4), randn(3, 4)]),
        (embedder, [RNG.integers(0, 20, (2, 5)).astype(np.int64)]),
        (resizer, [randn(1, 2, 4, 3)]),
        (encoder, [randn(2, 5, 8)]),
        (attention, [randn(2, 2, 4, 8), randn(2, 2, 6, 8), randn(2, 2, 6, 8)]),
        (more_ops, [randn(2, 4, 4, 4), np.array([3, 0, 1, 1], np.int64)]),
        (recurrent, [randn(2, 6, 3)]),
        (
            attention_masks,
            [randn(5, 2, 8), np.array([[0, 0, 0, 1, 1], [0] * 5], bool), randn(5, 5)],
        ),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_same_outputs_as_pytorch_file(make, arrays, tmp_path):
    _check(make, arrays, tmp_path)


@pytest.mark.parametrize(
    "make, shape",
    [
        (mlp, (3, 6)),
        (cnn, (2, 3, 16, 16)),
        (activations, (3, 5)),
        (encoder, (2, 5, 8)),
        (recurrent, (2, 6, 3)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_dynamic_batch_axis_runs_on_another_batch_size(make, shape, tmp_path):
    axes = {"in0": {0: "batch"}}
    tpath, cpath = _check(make, [randn(*shape)], tmp_path, dynamic_axes=axes)
    model = onnx.load(cpath)
    assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    other = randn(5, *shape[1:])
    for e, g in zip(_run(tpath, {"in0": other}), _run(cpath, {"in0": other})):
        assert g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)


def test_input_output_and_initializer_names_as_pytorch(tmp_path):
    kw = dict(input_names=["ids"], output_names=["logits"])
    tpath, cpath, _ = _export_both(embedder, [np.zeros((2, 3), np.int64)], tmp_path, **kw)
    assert _names(cpath) == _names(tpath) == (["ids"], ["logits"])
    inits = {i.name for i in onnx.load(cpath).graph.initializer}
    assert inits == {i.name for i in onnx.load(tpath).graph.initializer}
    assert inits == {"emb.weight", "ln.weight", "ln.bias", "fc.weight", "fc.bias"}


def test_dynamo_export_returns_program_named_as_pytorch(tmp_path):
    torch.manual_seed(0)
    tm = mlp(torch).eval()
    cm = _copy(tm, mlp(cr)).eval()
    x = randn(2, 6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tp = torch.onnx.export(tm, (torch.from_numpy(x),), dynamo=True, verbose=False)
    cp = cr.onnx.export(cm, (cr.tensor(x),))
    assert isinstance(cp, cr.onnx.ONNXProgram)
    tg, cg = tp.model_proto.graph, cp.model_proto.graph
    assert [i.name for i in cg.input] == [i.name for i in tg.input] == ["x"]
    assert [o.name for o in cg.output] == [o.name for o in tg.output] == ["softmax"]
    assert {i.name for i in cg.initializer} == {i.name for i in tg.initializer}
    assert cp.model_proto.opset_import[0].version == tp.model_proto.opset_import[0].version
    (got,) = cp(cr.tensor(x))
    (expected,) = tp(torch.from_numpy(x))
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
    # f given: the file and its external data, as PyTorch writes them
    path = tmp_path / "m.onnx"
    cr.onnx.export(cm, (cr.tensor(x),), str(path))
    assert sorted(os.listdir(tmp_path)) == ["m.onnx", "m.onnx.data"]
    np.testing.assert_allclose(_run(str(path), {"x": x})[0], got.numpy(), rtol=1e-6)
    (hidden,) = cp.compute_values(["relu"], (cr.tensor(x),))
    with cr.no_grad():
        np.testing.assert_allclose(hidden.numpy(), cr.relu(cm.fc1(cr.tensor(x))).numpy(), atol=1e-6)


def test_export_params_and_initializers_as_inputs(tmp_path):
    cm = mlp(cr).eval()
    x = cr.randn(2, 6)
    path = str(tmp_path / "a.onnx")
    cr.onnx.export(cm, (x,), path, dynamo=False, keep_initializers_as_inputs=True)
    model = onnx.load(path)
    assert [i.name for i in model.graph.input] == [
        "x",
        "fc1.weight",
        "fc1.bias",
        "fc2.weight",
        "fc2.bias",
    ]
    assert len(model.graph.initializer) == 4
    cr.onnx.export(cm, (x,), path, dynamo=False, export_params=False)
    model = onnx.load(path)
    assert len(model.graph.initializer) == 0 and len(model.graph.input) == 5


def test_opset_version_and_training_mode(tmp_path):
    cm = activations(cr).train()
    x = randn(4, 5)
    path = str(tmp_path / "a.onnx")
    # dynamo=False exports in eval mode (TrainingMode.EVAL) and puts the mode back
    assert cr.onnx.export(cm, (cr.tensor(x),), path, dynamo=False, opset_version=17) is None
    assert cm.training
    model = onnx.load(path)
    assert model.opset_import[0].version == 17
    assert "Dropout" not in {n.op_type for n in model.graph.node}
    with cr.onnx.select_model_mode_for_export(cm, cr.onnx.TrainingMode.EVAL):
        assert not cm.training
        with cr.no_grad():
            expected = cm(cr.tensor(x)).numpy()
    np.testing.assert_allclose(_run(path, {"x": x})[0], expected, rtol=1e-5, atol=1e-5)
    assert cm.training
    for name in ("EVAL", "PRESERVE", "TRAINING"):
        assert int(getattr(cr.onnx.TrainingMode, name)) == int(
            getattr(torch.onnx.TrainingMode, name)
        )
    assert int(cr.onnx.OperatorExportTypes.ONNX) == int(torch.onnx.OperatorExportTypes.ONNX) == 0


@pytest.mark.parametrize(
    "fn",
    [
        # PyTorch's TorchScript exporter drops softplus' threshold, and has no nearest-exact
        lambda lib, x: lib.nn.functional.softplus(x, beta=2.0, threshold=1.0),
        lambda lib, x: lib.nn.functional.interpolate(x, size=(7, 5), mode="nearest-exact"),
        lambda lib, x: lib.nn.functional.interpolate(x, scale_factor=1.5, mode="nearest"),
        # nor adaptive pooling to sizes that do not divide the input's
        lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, (3, 2)),
        lambda lib, x: lib.nn.functional.adaptive_max_pool2d(x, (5, 2)),
        # in-place methods, and ops the model files above do not use
        lambda lib, x: x.clone().exp_() + x.flip(1) + lib.flip(x, (0, 2)),
        lambda lib, x: lib.linalg.vector_norm(x, dim=1) + x.norm(dim=1).sum(-1, keepdim=True),
        lambda lib, x: lib.nn.functional.cosine_similarity(x, x.flip(1), dim=2) + lib.norm(x),
        lambda lib, x: lib.nn.functional.one_hot((x.abs() * 3).long().clamp(max=4), 5).sum(-1),
        lambda lib, x: x.sort(dim=1, descending=True)[0] + x.argsort(dim=2).float(),
        lambda lib, x: x.masked_fill(x < 0, 0).relu_().sigmoid_() * (x > 0),
        lambda lib, x: lib.nn.functional.rms_norm(x, (3,)) + x.sum(1, dtype=lib.float64).float(),
        lambda lib, x: lib.where(x > 0, x, lib.zeros_like(x)) + lib.full_like(x, 2.0),
    ],
)
def test_ops_against_eager_pytorch(fn):
    x = randn(1, 2, 4, 3)

    class Net(cr.nn.Module):
        def forward(self, x):
            return fn(cr, x)

    (got,) = cr.onnx.export(Net(), (cr.tensor(x),))(cr.tensor(x))
    expected = fn(torch, torch.from_numpy(x))
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6, atol=1e-7)


def test_is_in_onnx_export():
    seen = []

    class Net(cr.nn.Module):
        def forward(self, x):
            seen.append(cr.onnx.is_in_onnx_export())
            return x * 2

    cr.onnx.export(Net(), (cr.ones(2),))
    assert seen == [True] and not cr.onnx.is_in_onnx_export() and not torch.onnx.is_in_onnx_export()


def test_op_without_translation_raises_unsupported_operator_error():
    class Net(cr.nn.Module):
        def forward(self, x):
            return x.cumprod(1)

    with pytest.raises(cr.onnx.errors.UnsupportedOperatorError) as info:
        cr.onnx.export(Net(), (cr.ones(2, 3),))
    assert str(info.value) == (
        "Exporting the operator 'aten::cumprod' to ONNX opset version 20 is not supported"
    )
    assert str(info.value) == str(
        torch.onnx.errors.UnsupportedOperatorError("aten::cumprod", 20, None)
    )
    assert issubclass(cr.onnx.errors.UnsupportedOperatorError, cr.onnx.OnnxExporterError)
    assert issubclass(cr.onnx.OnnxExporterError, RuntimeError)


def test_write_into_traced_tensor_raises():
    class Net(cr.nn.Module):
        def forward(self, x):
            y = x * 1
            y[0] = 0.0
            return y

    with pytest.raises(cr.onnx.errors.UnsupportedOperatorError, match="aten::setitem"):
        cr.onnx.export(Net(), (cr.ones(2, 3),))


def test_computation_the_trace_does_not_see_raises():
    relu = cr.nn.functional.relu  # the plain function: dispatch is off outside an export

    class Net(cr.nn.Module):
        def forward(self, x):
            return relu(x) * 2

    with pytest.raises(cr.onnx.OnnxExporterError, match="an output was computed during the export"):
        cr.onnx.export(Net(), (cr.randn(2),))


def sized(lib):
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.token = lib.nn.Parameter(lib.ones(1, 1, 4) * 0.5)
            self.fc = lib.nn.Linear(4, 3)

        def forward(self, x):
            n, s, e = x.shape
            h = lib.cat([self.token.expand(n, -1, -1), x], dim=1)
            h = self.fc(h.reshape(n * (s + 1), e)).view(n, s + 1, 3)[:, : x.size(1)]
            return h.sum(1) + lib.zeros(n, 3) + lib.arange(3).float()

    return Net()


def test_sizes_read_by_the_model_follow_dynamic_shapes(tmp_path):
    x = randn(2, 5, 4)
    tpath, cpath = _check(
        sized,
        [x],
        tmp_path,
        dynamic_axes={"in0": {0: "batch", 1: "seq"}},
    )
    torch.manual_seed(0)
    cm = _copy(sized(torch), sized(cr))  # the weights _export_both gave both
    path = str(tmp_path / "d.onnx")
    cr.onnx.export(cm, (cr.tensor(x),), path, dynamic_shapes={"x": {0: "batch", 1: "seq"}})
    dims = onnx.load(path).graph.input[0].type.tensor_type.shape.dim
    assert [d.dim_param or d.dim_value for d in dims] == ["batch", "seq", 4]
    other = randn(3, 7, 4)
    with cr.no_grad():
        expected = cm(cr.tensor(other)).numpy()
    for p, name in ((path, "x"), (cpath, "in0"), (tpath, "in0")):
        np.testing.assert_allclose(_run(p, {name: other})[0], expected, rtol=1e-5, atol=1e-5)


def test_program_save_verify_apply_weights_and_kwargs(tmp_path):
    class Net(cr.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = cr.nn.Linear(3, 2)

        def forward(self, x, *, scale):
            return self.fc(x) * scale, x.sum(0)

    net = Net()
    x, scale = cr.randn(4, 3), cr.tensor(2.0)
    program = cr.onnx.export(net, (x,), kwargs={"scale": scale}, verify=True)
    assert [i.name for i in program.model_proto.graph.input] == ["x", "scale"]
    assert [o.name for o in program.model_proto.graph.output] == ["mul", "sum"]
    path = tmp_path / "p.onnx"
    program.save(path, external_data=False)
    assert os.listdir(tmp_path) == ["p.onnx"]
    with cr.no_grad():
        expected = [t.numpy() for t in net(x, scale=scale)]
    for got, e in zip(_run(str(path), {"x": x.numpy(), "scale": scale.numpy()}), expected):
        np.testing.assert_allclose(got, e, rtol=1e-6)
    weight = cr.ones(2, 3)
    program.apply_weights({"fc.weight": weight})
    (y, _) = program(x, scale=scale)
    with cr.no_grad():
        expected = (x @ weight.T + net.fc.bias) * scale
    np.testing.assert_allclose(y.numpy(), expected.numpy(), rtol=1e-6)
    buffer = io.BytesIO()
    program.save(buffer)
    assert onnx.load_from_string(buffer.getvalue()).graph.initializer[0].name == "fc.weight"
    program.optimize()
    program.release()
    with pytest.raises(TypeError, match="'mode' should be a torch.onnx.TrainingMode enum"):
        with cr.onnx.select_model_mode_for_export(net, 3):
            pass


def test_chainrule_onnx_imports_without_onnx():
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['onnx'] = None\n"
        "import chainrule, chainrule.onnx as o\n"
        "assert not o.is_in_onnx_export()\n"
        "try:\n"
        "    o.export(chainrule.nn.Linear(2, 2), (chainrule.ones(1, 2),))\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "needs the 'onnx' package" in out.stdout
