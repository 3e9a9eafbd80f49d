"""torch.export.load: programs exported and saved by the real PyTorch, loaded and run by
chainrule; outputs, parameter gradients, signatures and state against PyTorch's
``ep.module()``."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
import torch
import torch.nn as nn

import chainrule as cr
import chainrule.export as cexport

RNG = np.random.default_rng(0)


def _export(model, args, kwargs=None, decompose=False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(model, args, kwargs)
        if decompose:
            ep = ep.run_decompositions()
    return ep


def _roundtrip(tmp_path, model, args, kwargs=None, decompose=False):
    """PyTorch's program and chainrule's load of PyTorch's saved file."""
    ep = _export(model, args, kwargs, decompose)
    path = tmp_path / "model.pt2"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.export.save(ep, path)
        # the oracle is PyTorch's own load of the same file
        ep = torch.export.load(path)
    return ep, cexport.load(path)


def _cr(x):
    if isinstance(x, torch.Tensor):
        return cr.tensor(x.detach().numpy())
    if isinstance(x, (list, tuple)):
        return type(x)(_cr(v) for v in x)
    if isinstance(x, dict):
        return {k: _cr(v) for k, v in x.items()}
    return x


def _flat(x):
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in _flat(v)]
    if isinstance(x, dict):
        return [t for v in x.values() for t in _flat(v)]
    return [x]


def _same(got, want, tol=1e-10):
    assert type(got) is not torch.Tensor
    if isinstance(want, dict):
        assert list(got) == list(want)
    g, w = _flat(got), _flat(want)
    assert len(g) == len(w)
    for a, b in zip(g, w):
        assert tuple(a.shape) == tuple(b.shape)
        assert str(a.dtype) == str(b.dtype)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


def _loss(out, lib):
    return sum(
        (t.double() * (i + 1)).sin().sum()
        for i, t in enumerate(_flat(out))
        if t.is_floating_point()
    )


def _check_run(ep, loaded, args, kwargs=None, grads=True, tol=1e-10, oracle=None):
    """Outputs and gradients w.r.t. every parameter of ``ep.module()``, both libraries
    (``oracle``: the eager module instead, where PyTorch's unlifted module cannot run
    backward)."""
    kwargs = kwargs or {}
    tm, cm = oracle or ep.module(), loaded.module()
    want = tm(*args, **kwargs)
    got = cm(*_cr(args), **_cr(kwargs))
    _same(got, want, tol)
    if grads:
        _loss(want, torch).backward()
        _loss(got, cr).backward()
        tparams = dict(tm.named_parameters())
        cparams = dict(cm.named_parameters())
        assert list(cparams) == list(tparams)
        for name, p in tparams.items():
            assert cparams[name].grad is not None, name
            np.testing.assert_allclose(
                cparams[name].grad.numpy(), p.grad.numpy(), rtol=tol, atol=tol, err_msg=name
            )
    return tm, cm


def _check_signature(ep, loaded):
    tsig, csig = ep.graph_signature, loaded.graph_signature
    assert [str(s) for s in csig.input_specs] == [str(s) for s in tsig.input_specs]
    assert [str(s) for s in csig.output_specs] == [str(s) for s in tsig.output_specs]
    assert [s.kind.name for s in csig.input_specs] == [s.kind.name for s in tsig.input_specs]
    assert [s.kind.value for s in csig.output_specs] == [s.kind.value for s in tsig.output_specs]
    assert list(loaded.state_dict) == list(ep.state_dict)
    for k, v in ep.state_dict.items():
        np.testing.assert_array_equal(loaded.state_dict[k].detach().numpy(), v.detach().numpy())
    assert [n for n, _ in loaded.named_parameters()] == [n for n, _ in ep.named_parameters()]
    assert [n for n, _ in loaded.named_buffers()] == [n for n, _ in ep.named_buffers()]
    assert list(loaded.constants) == list(ep.constants)
    assert [n.name for n in loaded.graph.nodes] == [n.name for n in ep.graph.nodes]
    assert [str(n.target) for n in loaded.graph.nodes if n.op == "call_function"] == [
        str(n.target) for n in ep.graph.nodes if n.op == "call_function"
    ]


def _x(*shape, dtype=torch.float64):
    return torch.tensor(RNG.standard_normal(shape), dtype=dtype)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        h = torch.relu(self.fc(x))
        return self.fc2(torch.sigmoid(h) * torch.tanh(h) - h.exp() / 4).sum(1)


class CNN(nn.Module):
    def __init__(self, dropout=0.0):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2)
        self.avg = nn.AdaptiveAvgPool2d((2, 2))
        self.fc = nn.Linear(16, 5)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        y = self.avg(self.pool(torch.relu(self.bn(self.conv(x)))))
        return self.drop(self.fc(torch.flatten(y, 1))).log_softmax(-1)


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(3, 5, num_layers=2, batch_first=True)
        self.gru = nn.GRU(5, 4, bidirectional=True)

    def forward(self, x):
        y, (h, c) = self.lstm(x)
        z, hg = self.gru(y.transpose(0, 1))
        return z, h + c.mean(), hg


class Shapes(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)

    def forward(self, i, x):
        e = self.emb(i)
        a, b = e.chunk(2, -1)
        c = torch.cat([a * 2, b - 1], -1)
        s = torch.stack([c, c.exp()], 0).unsqueeze(1).squeeze(1)[:, 0, 1:3].mean((0, 1))
        m = x.t().mm(x) + torch.bmm(x.unsqueeze(0), x.unsqueeze(0))[0]
        return s, m.sum() + torch.log1p(torch.tanh(x) ** 2).sum() + (x / 3).permute(1, 0)[0]


def _model(cls, *a, dtype=torch.float64, **k):
    torch.manual_seed(0)
    return cls(*a, **k).to(dtype)


@pytest.mark.parametrize("decompose", [False, True], ids=["training_ir", "decomposed"])
def test_mlp_outputs_and_gradients(tmp_path, decompose):
    m = _model(MLP)
    x = _x(5, 4)
    ep, loaded = _roundtrip(tmp_path, m, (x,), decompose=decompose)
    _check_signature(ep, loaded)
    _check_run(ep, loaded, (x,))


@pytest.mark.parametrize("decompose", [False, True], ids=["training_ir", "decomposed"])
def test_cnn_eval(tmp_path, decompose):
    m = _model(CNN, 0.3).eval()
    with torch.no_grad():
        m.bn.running_mean.copy_(torch.linspace(-0.5, 0.5, 4))
        m.bn.running_var.copy_(torch.linspace(0.5, 2.0, 4))
    x = _x(2, 3, 8, 8)
    ep, loaded = _roundtrip(tmp_path, m, (x,), decompose=decompose)
    _check_signature(ep, loaded)
    _check_run(ep, loaded, (x,))


@pytest.mark.parametrize("decompose", [False, True], ids=["training_ir", "decomposed"])
def test_cnn_train_updates_running_stats(tmp_path, decompose):
    m = _model(CNN).train()
    x = _x(2, 3, 8, 8)
    eager = copy.deepcopy(m)
    ep, loaded = _roundtrip(tmp_path, m, (x,), decompose=decompose)
    _check_signature(ep, loaded)
    # PyTorch's loaded module of the decomposed program refuses backward (its copy_ into
    # the running statistics bumps a version its graph saved): the eager module is the oracle
    tm, cm = _check_run(ep, loaded, (x,), oracle=eager)
    for name, b in tm.named_buffers():
        got = dict(cm.named_buffers())[name]
        np.testing.assert_allclose(got.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert int(dict(cm.named_buffers())["bn.num_batches_tracked"]) == 1


@pytest.mark.parametrize("decompose", [False, True], ids=["training_ir", "decomposed"])
def test_lstm_gru(tmp_path, decompose):
    m = _model(Recurrent)
    x = _x(2, 4, 3)
    ep, loaded = _roundtrip(tmp_path, m, (x,), decompose=decompose)
    _check_signature(ep, loaded)
    _check_run(ep, loaded, (x,))


@pytest.mark.parametrize("decompose", [False, True], ids=["training_ir", "decomposed"])
def test_embedding_and_shape_ops(tmp_path, decompose):
    m = _model(Shapes)
    i, x = torch.tensor([[1, 2], [3, 9]]), _x(3, 3)
    ep, loaded = _roundtrip(tmp_path, m, (i, x), decompose=decompose)
    _check_signature(ep, loaded)
    _check_run(ep, loaded, (i, x))


@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("decompose", [False, True], ids=["training_ir", "decomposed"])
def test_transformer_encoder_layer(tmp_path, decompose, activation):
    torch.manual_seed(0)
    m = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, batch_first=True, activation=activation)
    m = m.double().eval()
    x = _x(2, 5, 8)
    ep, loaded = _roundtrip(tmp_path, m, (x,), decompose=decompose)
    _check_signature(ep, loaded)
    _check_run(ep, loaded, (x,))


class Structured(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.k = torch.arange(6.0, dtype=torch.float64).view(2, 3)[:, 1:]
        self.register_buffer("nb", torch.ones(2, dtype=torch.float64), persistent=False)
        self.register_buffer("steps", torch.zeros((), dtype=torch.float64))

    def forward(self, x, y=None, scale=2.0):
        self.steps.add_(1)
        return {"a": self.lin(x) * self.k + self.nb, "b": [x.sum(), (y * scale).mean()]}


def test_kwargs_dict_outputs_constants_and_buffer_mutation(tmp_path):
    m = _model(Structured)
    x, y = _x(2, 2), _x(3)
    ep, loaded = _roundtrip(tmp_path, m, (x,), {"y": y}, decompose=True)
    _check_signature(ep, loaded)
    assert loaded.graph_signature.buffers_to_mutate == ep.graph_signature.buffers_to_mutate
    assert loaded.graph_signature.non_persistent_buffers == ["nb"]
    tm, cm = _check_run(ep, loaded, (x,), {"y": y})
    assert float(cm.steps) == float(tm.steps) == 1.0
    assert "nb" not in cm.state_dict() and "k" not in cm.state_dict()
    np.testing.assert_array_equal(loaded.constants["k"].numpy(), ep.constants["k"].numpy())
    got = cm(_cr(x), y=_cr(y))
    assert isinstance(got, dict) and isinstance(got["b"], list)


def test_example_inputs_and_range_constraints(tmp_path):
    m = _model(MLP)
    x = _x(4, 4)
    batch = torch.export.Dim("batch", min=2, max=64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(m, (x,), dynamic_shapes={"x": {0: batch}})
        torch.export.save(ep, tmp_path / "dyn.pt2")
    loaded = cexport.load(tmp_path / "dyn.pt2")
    (cx,), kw = loaded.example_inputs
    assert kw == {}
    np.testing.assert_array_equal(cx.numpy(), x.numpy())
    assert {str(k): repr(v) for k, v in loaded.range_constraints.items()} == {
        str(k): repr(v) for k, v in ep.range_constraints.items()
    }
    # a concrete input of another batch size runs
    x7 = _x(7, 4)
    _same(loaded.module()(_cr(x7)), ep.module()(x7))


def test_printed_program_matches_pytorch_without_source_comments(tmp_path):
    m = _model(CNN).train()
    ep, loaded = _roundtrip(tmp_path, m, (_x(2, 3, 8, 8),), decompose=True)
    want = [
        line
        for line in str(ep).split("\n")
        if not line.strip().startswith(("# File", "# No stacktrace"))
    ]
    assert [line for line in str(loaded).split("\n") if line.strip()] == [
        line for line in want if line.strip()
    ]
    assert str(loaded).startswith("ExportedProgram:\n    class GraphModule(torch.nn.Module):\n")
    assert str(loaded).endswith("\n    \nRange constraints: {}\n")


def test_graph_module_and_module_code(tmp_path):
    m = _model(MLP)
    ep, loaded = _roundtrip(tmp_path, m, (_x(2, 4),))
    assert loaded.graph_module.code == ep.graph_module.code
    code = loaded.module().code
    assert "fc_weight = self.fc.weight" in code
    assert "torch.ops.aten.linear.default(x, fc_weight, fc_bias)" in code
    assert [type(n.target).__name__ for n in loaded.graph.nodes if n.op == "call_function"]
    assert (
        str(next(n.target for n in loaded.graph.nodes if n.op == "call_function"))
        == "aten.linear.default"
    )


def test_calling_the_program_raises_as_pytorch(tmp_path):
    ep, loaded = _roundtrip(tmp_path, _model(MLP), (_x(2, 4),))
    with pytest.raises(RuntimeError) as want:
        ep(_x(2, 4))
    with pytest.raises(RuntimeError) as got:
        loaded(cr.zeros(2, 4))
    assert str(got.value) == str(want.value)


def test_unknown_operator_raises_not_implemented(tmp_path):
    class Odd(nn.Module):
        def forward(self, x):
            return torch.special.zeta(x, x + 1)

    ep = _export(Odd(), (_x(3).abs() + 1,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.export.save(ep, tmp_path / "model.pt2")
    with pytest.raises(NotImplementedError, match=r"aten\.special_zeta\.default"):
        cexport.load(tmp_path / "model.pt2")


def test_loaded_module_is_independent_copy_per_call(tmp_path):
    m = _model(MLP)
    ep, loaded = _roundtrip(tmp_path, m, (_x(2, 4),))
    a, b = loaded.module(), loaded.module()
    assert a is not b
    assert [n for n, _ in a.named_parameters()] == [
        "fc.weight",
        "fc.bias",
        "fc2.weight",
        "fc2.bias",
    ]


class Zoo(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(2, 4, 3, padding=1)
        self.ct = nn.ConvTranspose2d(4, 2, 2, stride=2)
        self.gn = nn.GroupNorm(2, 4)
        self.ln = nn.LayerNorm(6)
        self.emb = nn.Embedding(5, 6, padding_idx=0)

    def forward(self, x, img, idx):
        y = nn.functional.leaky_relu(self.c1(x), 0.2)
        y = nn.functional.hardtanh(self.ln(y), -0.5, 0.7) + nn.functional.silu(y)
        z = self.ct(self.gn(nn.functional.avg_pool2d(img, 2)))
        z = nn.functional.pad(z, (1, 1, 0, 0), value=0.5)
        e = self.emb(idx)
        w = torch.where(e > 0, e, e * 0.1).masked_fill(e.abs() < 0.05, 0.0)
        m = torch.clamp(w, -1, 1).cumsum(-1).max(1)
        return y, z, m.values + m.indices, torch.nn.functional.elu(w).var(0), e.argmax(-1)


@pytest.mark.parametrize("decompose", [False, True], ids=["training_ir", "decomposed"])
def test_layer_zoo(tmp_path, decompose):
    m = _model(Zoo)
    args = (_x(2, 2, 6), _x(1, 4, 6, 6), torch.tensor([[0, 1, 2], [3, 4, 0]]))
    ep, loaded = _roundtrip(tmp_path, m, args, decompose=decompose)
    _check_signature(ep, loaded)
    _check_run(ep, loaded, args)


def test_extra_files_are_read(tmp_path):
    ep = _export(_model(MLP), (_x(2, 4),))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.export.save(ep, tmp_path / "m.pt2", extra_files={"note.txt": "hello"})
    extra = {"note.txt": ""}
    cexport.load(tmp_path / "m.pt2", extra_files=extra, expected_opset_version={"aten": 10})
    assert extra == {"note.txt": "hello"}


def test_public_functions_have_type_hints():
    import inspect

    from chainrule.export import exported_program, graph_signature

    for module in (cexport, exported_program, graph_signature):
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", "") != module.__name__:
                continue
            members = [obj]
            if inspect.isclass(obj):
                members = [
                    f
                    for n, f in vars(obj).items()
                    if inspect.isfunction(f) and (not n.startswith("_") or n == "__init__")
                ]
                members += [p.fget for p in vars(obj).values() if isinstance(p, property)]
            for f in members:
                if not inspect.isfunction(f):
                    continue
                sig = inspect.signature(f)
                for p in sig.parameters.values():
                    if p.name in ("self", "cls") or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                        continue
                    assert p.annotation is not p.empty, (
                        f"{module.__name__}.{f.__qualname__}({p.name})"
                    )
                assert sig.return_annotation is not sig.empty, f"{module.__name__}.{f.__qualname__}"
