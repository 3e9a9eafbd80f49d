"""torch.jit.trace and torch.jit.save on chainrule: modules and functions traced by
chainrule, their replay against PyTorch's eager outputs of the same weights, and the
archives chainrule writes loaded and run by the real PyTorch's ``torch.jit.load`` (and by
chainrule's own) with equal outputs, state_dict keys and gradients."""

from __future__ import annotations

import io
import warnings
import zipfile

import numpy as np
import pytest
import torch

import chainrule as cr
import chainrule.jit as cjit

# PyTorch 2.13 deprecates torch.jit.trace/load; chainrule says so too
pytestmark = pytest.mark.filterwarnings(
    "ignore::DeprecationWarning", "ignore::FutureWarning", "ignore::torch.jit.TracerWarning"
)


def _cr(x):
    return cr.tensor(x.detach().numpy())


def _np(x):
    return x.detach().numpy()


def build(t):
    """The test models for the library ``t`` (torch or chainrule), same code for both."""
    nn, F = t.nn, t.nn.functional

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.ReLU())
            self.head = nn.Linear(8, 3, bias=False)

        def forward(self, x):
            return self.head(self.body(x))

    class CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)
            self.pool = nn.MaxPool2d(2)
            self.drop = nn.Dropout(0.4)
            self.conv2 = nn.Conv2d(4, 6, 3, stride=2, padding=1)
            self.ap = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(6, 5)

        def forward(self, x):
            x = self.pool(F.relu(self.bn(self.conv(x))))
            x = F.avg_pool2d(self.conv2(self.drop(x)), 1)
            return F.log_softmax(self.fc(self.ap(x).view(x.size(0), -1)), dim=1)

    class RNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(5, 6, batch_first=True)
            self.gru = nn.GRU(6, 4, num_layers=2)
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            out, (h, c) = self.lstm(x)
            out2, h2 = self.gru(out.transpose(0, 1))
            return self.fc(out2[-1]), (h, c), h2

    class Buffers(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("scale", t.tensor([0.5, 2.0, -1.0]))
            self.register_buffer("shift", t.tensor([1.0, 0.0, 3.0]), persistent=False)
            self.w = nn.Parameter(t.ones(3) * 0.25)

        def forward(self, x, y):
            z = x * self.scale + self.shift * self.w
            return [z.sum(1), (z * y).mean(0) + t.tensor([1.0, 2.0, 3.0])]

    class Sorting(nn.Module):
        """sort (default and stable), argsort, topk, PReLU and plain RNNs."""

        def __init__(self):
            super().__init__()
            self.prelu = nn.PReLU(3)
            self.tanh_rnn = nn.RNN(4, 5, batch_first=True)
            self.relu_rnn = nn.RNN(4, 3, num_layers=2, nonlinearity="relu", bidirectional=True)

        def forward(self, x):
            ordered = t.sort(x, dim=-1)[0] + x.sort(descending=True, stable=True).values
            ranks = x.argsort(dim=1).float() + t.argsort(x, descending=True, stable=True)
            top = x.topk(2, dim=-1).values.sum(-1) + t.topk(x, 1, largest=False)[1].float()[..., 0]
            act = self.prelu(x) + F.prelu(x, self.prelu.weight * 2)
            seq = x[:, 0]  # (batch, 3 steps, 4 features)
            return ordered + ranks + act, top, self.tanh_rnn(seq)[0], self.relu_rnn(seq)[1]

    return {"mlp": MLP, "cnn": CNN, "rnn": RNN, "buffers": Buffers, "sorting": Sorting}


def _pair(name, training=False):
    """The real PyTorch module and the chainrule one with the same weights."""
    torch.manual_seed(0)
    ref = build(torch)[name]()
    ours = build(cr)[name]()
    with torch.no_grad():
        for p in ref.parameters():
            p.uniform_(-0.5, 0.5)
        for b_name, b in ref.named_buffers():
            if b_name.endswith("running_mean"):
                b.uniform_(-0.2, 0.2)
            if b_name.endswith("running_var"):
                b.uniform_(0.5, 1.5)
    ours.load_state_dict({k: _cr(v) for k, v in ref.state_dict().items()})
    ref.train(training)
    ours.train(training)
    return ref, ours


def _leaves(value):
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _leaves(v)]
    return [value]


def _close(got, want, tol=1e-5):
    got, want = _leaves(got), _leaves(want)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        np.testing.assert_allclose(_np(a), _np(b), rtol=tol, atol=tol)


INPUTS = {
    "mlp": lambda g: (torch.randn(5, 4, generator=g),),
    "cnn": lambda g: (torch.randn(2, 3, 8, 8, generator=g),),
    "rnn": lambda g: (torch.randn(3, 7, 5, generator=g),),
    "buffers": lambda g: (torch.randn(4, 3, generator=g), torch.randn(4, 3, generator=g)),
    "sorting": lambda g: (torch.randn(2, 3, 3, 4, generator=g),),
}


@pytest.fixture(scope="module")
def traced_cases(tmp_path_factory):
    """Each model traced by chainrule (eval mode) and saved; PyTorch's eager module too."""
    folder = tmp_path_factory.mktemp("traced")
    cases = {}
    for name in INPUTS:
        ref, ours = _pair(name)
        inputs = INPUTS[name](torch.Generator().manual_seed(1))
        traced = cjit.trace(ours, tuple(_cr(x) for x in inputs), strict=name != "buffers")
        path = folder / f"{name}.pt"
        traced.save(str(path))
        cases[name] = (ref, ours, traced, inputs, path)
    return cases


@pytest.mark.parametrize("name", list(INPUTS))
def test_replay_matches_pytorch(traced_cases, name):
    ref, ours, traced, inputs, _ = traced_cases[name]
    _close(traced(*[_cr(x) for x in inputs]), ref(*inputs))
    # new inputs of the same shapes: the recorded graph, not the example's values
    fresh = INPUTS[name](torch.Generator().manual_seed(7))
    _close(traced(*[_cr(x) for x in fresh]), ref(*fresh))


@pytest.mark.parametrize("name", list(INPUTS))
def test_real_pytorch_loads_chainrule_archive(traced_cases, name):
    ref, ours, traced, inputs, path = traced_cases[name]
    loaded = torch.jit.load(str(path))
    fresh = INPUTS[name](torch.Generator().manual_seed(3))
    _close(loaded(*fresh), ref(*fresh))
    _close(loaded(*fresh), traced(*[_cr(x) for x in fresh]))
    assert list(loaded.state_dict()) == list(traced.state_dict())
    for k, v in loaded.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), traced.state_dict()[k].numpy())
    assert loaded.original_name == type(ours).__name__
    assert not loaded.training


@pytest.mark.parametrize("name", list(INPUTS))
def test_chainrule_loads_its_own_archive(traced_cases, name):
    ref, ours, traced, inputs, path = traced_cases[name]
    loaded = cjit.load(str(path))
    fresh = INPUTS[name](torch.Generator().manual_seed(5))
    _close(loaded(*[_cr(x) for x in fresh]), ref(*fresh))


@pytest.mark.parametrize("name", ["mlp", "cnn", "rnn", "sorting"])
def test_gradients_through_replay_and_pytorch_load(traced_cases, name):
    ref, ours, traced, inputs, path = traced_cases[name]
    loaded = torch.jit.load(str(path))
    sum(o.sum() for o in _leaves(loaded(*inputs))).backward()
    traced.zero_grad()
    sum(o.sum() for o in _leaves(traced(*[_cr(x) for x in inputs]))).backward()
    got = dict(traced.named_parameters())
    for k, p in loaded.named_parameters():
        np.testing.assert_allclose(_np(got[k].grad), p.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_sizes_follow_the_inputs(traced_cases):
    """Sizes read while tracing (``x.view(x.size(0), -1)``, an RNN's zero initial state)
    follow the input's batch and sequence sizes, as in PyTorch's trace."""
    for name, shape in (("mlp", (9, 4)), ("cnn", (5, 3, 8, 8)), ("rnn", (5, 4, 5))):
        ref, ours, traced, inputs, path = traced_cases[name]
        x = torch.randn(shape, generator=torch.Generator().manual_seed(2))
        _close(traced(_cr(x)), ref(x))
        _close(torch.jit.load(str(path))(x), ref(x))
        _close(cjit.load(str(path))(_cr(x)), ref(x))
    assert "torch.size(x, 0)" in traced_cases["cnn"][2].code


def test_traced_module_shares_state_and_hierarchy(traced_cases):
    ref, ours, traced, inputs, path = traced_cases["cnn"]
    assert isinstance(traced, cjit.ScriptModule)
    assert traced.conv.weight is ours.conv.weight
    assert traced.bn.running_mean is ours.bn.running_mean
    assert [n for n, _ in traced.named_modules()] == [n for n, _ in ours.named_modules()]
    assert list(traced.state_dict()) == list(ref.state_dict())
    assert traced.original_name == "CNN" and traced.conv.original_name == "Conv2d"
    assert "torch.conv2d(" in traced.code and "torch.batch_norm(" in traced.code
    assert traced.graph.startswith("graph(%self : __torch__.")
    assert "aten::max_pool2d" in traced.graph
    # a called submodule has its own traced forward, as in PyTorch
    x = torch.randn(2, 3, 8, 8)
    _close(traced.conv(_cr(x)), ref.conv(x))
    _close(torch.jit.load(str(path)).conv(x), ref.conv(x))
    # the traced module follows later changes to the shared parameters
    with cr.no_grad():
        ours.fc.bias.add_(1.0)
    with torch.no_grad():
        ref.fc.bias.add_(1.0)
    _close(traced(_cr(x)), ref(x))
    with cr.no_grad():
        ours.fc.bias.sub_(1.0)
    with torch.no_grad():
        ref.fc.bias.sub_(1.0)


def test_archive_layout(traced_cases):
    path = traced_cases["mlp"][4]
    names = zipfile.ZipFile(path).namelist()
    for record in ("data.pkl", "constants.pkl", "byteorder", ".data/version", "code/__torch__/"):
        assert any(n.split("/", 1)[1].startswith(record) for n in names), record
    assert any("torch/nn/modules/linear" in n for n in names)
    # two Linear layouts (with and without bias): two TorchScript classes
    sources = [zipfile.ZipFile(path).read(n).decode() for n in names if n.endswith(".py")]
    assert any("___torch_mangle_" in s for s in sources)


def test_training_mode_batch_norm_updates_running_stats(tmp_path):
    ref, ours = _pair("cnn", training=True)
    ours.drop.p = ref.drop.p = 0.0
    x = torch.randn(4, 3, 8, 8, generator=torch.Generator().manual_seed(4))
    traced = cjit.trace(ours, _cr(x), check_trace=False)
    path = tmp_path / "train.pt"
    traced.save(str(path))
    loaded = torch.jit.load(str(path))
    assert loaded.training
    want = ref(x)
    _close(loaded(x), want)
    _close(traced(_cr(x)), want)
    for k in ("bn.running_mean", "bn.running_var", "bn.num_batches_tracked"):
        np.testing.assert_allclose(
            loaded.state_dict()[k].numpy(), ref.state_dict()[k].numpy(), rtol=1e-5, atol=1e-6
        )
        np.testing.assert_allclose(
            _np(ours.state_dict()[k]), ref.state_dict()[k].numpy(), rtol=1e-5, atol=1e-6
        )


def _two(x, y):
    return x * y + x.sin(), torch_like_cat(x, y)


def torch_like_cat(x, y):
    return cr.cat([x, y]).sum(0)


def test_function_of_several_tensors():
    x, y = torch.randn(3, 2), torch.randn(3, 2)
    fn = cjit.trace(_two, (_cr(x), _cr(y)))
    assert isinstance(fn, cjit.ScriptFunction)
    assert fn.code.startswith("def _two(x: Tensor,")
    x2, y2 = torch.randn(3, 2), torch.randn(3, 2)
    want = (x2 * y2 + x2.sin(), torch.cat([x2, y2]).sum(0))
    _close(fn(_cr(x2), _cr(y2)), want)
    buffer = io.BytesIO()
    cjit.save(fn, buffer)
    buffer.seek(0)
    loaded = torch.jit.load(buffer)
    _close(loaded(x2, y2), want)


def test_lifted_constant_tensor():
    weights = cr.tensor([[1.0, -2.0], [0.5, 3.0]])
    fn = cjit.trace(lambda x: x @ weights + 1, cr.ones(3, 2))
    assert "CONSTANTS.c0" in fn.code
    buffer = io.BytesIO()
    fn.save(buffer)
    buffer.seek(0)
    x = torch.randn(3, 2)
    want = x @ torch.tensor([[1.0, -2.0], [0.5, 3.0]]) + 1
    _close(torch.jit.load(buffer)(x), want)
    _close(fn(_cr(x)), want)


def test_control_flow_is_frozen_with_tracer_warning():
    def branchy(x):
        if x.sum() > 0:
            return x * 2
        return x - 10

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn = cjit.trace(branchy, cr.ones(3))
    tracer = [w for w in caught if issubclass(w.category, cjit.TracerWarning)]
    assert tracer and "Converting a tensor to a Python boolean" in str(tracer[0].message)
    assert tracer[0].filename == __file__
    # the branch taken while tracing, whatever the new input
    np.testing.assert_allclose(_np(fn(-cr.ones(3))), [-2.0, -2.0, -2.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cjit.trace(lambda x: x * x.max().item(), cr.ones(3))
    assert any("a Python number" in str(w.message) for w in caught)


def test_is_tracing_and_output_rules():
    seen = []

    def f(x):
        seen.append(cjit.is_tracing())
        return [x + 1, x * 2]

    with pytest.warns(cjit.TracerWarning, match="Encountering a list at the output"):
        fn = cjit.trace(f, cr.ones(2))
    assert seen[0] is True and not cjit.is_tracing()
    assert isinstance(fn(cr.ones(2)), list)
    with warnings.catch_warnings():
        warnings.simplefilter("error", cjit.TracerWarning)
        cjit.trace(f, cr.ones(2), strict=False)
    with pytest.raises(RuntimeError, match="Only tensors, lists, tuples of tensors"):
        cjit.trace(lambda x: (x, 3), cr.ones(2))


def test_untraceable_op_names_it():
    with pytest.raises(cr._missing.NotImplementedInChainrule, match="special.zeta"):
        cjit.trace(lambda x: cr.special.zeta(x, x), cr.randn(2, 3, 4))


def test_check_trace_warns_on_nondeterminism():
    with pytest.warns(cjit.TracerWarning, match="does not match the corresponding output"):
        cjit.trace(lambda x: cr.nn.functional.dropout(x, 0.5, True), cr.ones(64))


def test_save_of_plain_modules_refused_and_script_gives_them_back():
    with pytest.raises(AttributeError, match="has no attribute 'save'"):
        cjit.save(cr.nn.Linear(2, 2), io.BytesIO())
    model = cr.nn.Linear(2, 2)
    with pytest.warns(DeprecationWarning, match="torch.jit.script` is deprecated"):
        assert cjit.script(model) is model  # (PyTorch's with PYTORCH_JIT=0)


def test_dict_output_kwargs_method_and_extra_files(tmp_path):
    class Twice(cr.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = cr.nn.Linear(3, 2)

        def forward(self, x, y):
            return {"sum": self.fc(x) + y, "diff": self.fc(x) - y}

    model = Twice()
    x, y = cr.randn(4, 3), cr.randn(4, 2)
    traced = cjit.trace(model.forward, example_kwarg_inputs={"x": x, "y": y}, strict=False)
    assert isinstance(traced, cjit.ScriptModule) and "Dict[str, Tensor]" in traced.code
    got = traced(x, y)
    assert list(got) == ["sum", "diff"]
    _close([got["sum"], got["diff"]], [model(x, y)["sum"], model(x, y)["diff"]])
    path = tmp_path / "twice.pt"
    cjit.save(traced, str(path), _extra_files={"meta.txt": "hello"})
    extra = {"meta.txt": ""}
    loaded = torch.jit.load(str(path), _extra_files=extra)
    assert extra["meta.txt"] == b"hello"
    out = loaded(torch.tensor(x.numpy()), torch.tensor(y.numpy()))
    _close([out["sum"], out["diff"]], [got["sum"], got["diff"]])


def test_pytorch_program_under_chainrule_run(tmp_path):
    """A PyTorch script that traces and saves a CNN, run by ``chainrule run``; the real
    PyTorch loads the archive and matches its own eager model of the saved weights."""
    import os
    import pathlib
    import subprocess
    import sys

    script = pathlib.Path(__file__).with_name("jit_trace_program.py")
    archive, tensors = tmp_path / "cnn.pt", tmp_path / "out.pt"
    subprocess.run(
        [sys.executable, "-m", "chainrule", "run", str(script), str(archive), str(tensors)],
        env=dict(os.environ, OMP_NUM_THREADS="1"),
        check=True,
        capture_output=True,
    )
    saved = torch.load(str(tensors))
    ref = torch.nn.Sequential(
        torch.nn.Conv2d(1, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Dropout(0.2), torch.nn.Linear(4 * 3 * 3, 10),
    ).eval()  # fmt: skip
    ref.load_state_dict(saved["state"])
    loaded = torch.jit.load(str(archive))
    _close(loaded(saved["x"]), ref(saved["x"]))
    _close(saved["y"], ref(saved["x"]))


@pytest.mark.parametrize("name", ["resnet18", "squeezenet1_0"])
def test_torchvision_models(tmp_path, name):
    """chainrule.vision's models (their code calls functions imported by name, which the
    recorder sees too) traced with batch 1, saved, and run by the real PyTorch on batch 2."""
    import chainrule.vision as cv

    model = getattr(cv.models, name)(num_classes=7).eval()
    with cr.no_grad():
        traced = cjit.trace(model, cr.randn(1, 3, 32, 32))
    path = tmp_path / f"{name}.pt"
    traced.save(str(path))
    x = torch.randn(2, 3, 32, 32, generator=torch.Generator().manual_seed(6))
    want = model(_cr(x))
    _close(torch.jit.load(str(path))(x), want)
    _close(traced(_cr(x)), want)


def test_tuple_and_list_inputs(tmp_path):
    """A state tuple input (an LSTM's ``(h, c)``) and a list input, as PyTorch takes them."""

    class Cell(cr.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = cr.nn.LSTM(3, 4, batch_first=True)

        def forward(self, x, state):
            out, (h, c) = self.lstm(x, state)
            return out, (h, c)

    model = Cell().eval()
    traced = cjit.trace(model, (cr.randn(2, 5, 3), (cr.zeros(1, 2, 4), cr.ones(1, 2, 4))))
    assert "state: Tuple[Tensor, Tensor]" in traced.code
    path = tmp_path / "cell.pt"
    traced.save(str(path))
    g = torch.Generator().manual_seed(8)
    x, h, c = (
        torch.randn(3, 6, 3, generator=g),
        torch.randn(1, 3, 4, generator=g),
        torch.randn(1, 3, 4, generator=g),
    )
    want = model(_cr(x), (_cr(h), _cr(c)))
    _close(torch.jit.load(str(path))(x, (h, c)), want)
    _close(traced(_cr(x), (_cr(h), _cr(c))), want)
    fn = cjit.trace(lambda xs: xs[0] * xs[1], [[cr.ones(2), cr.ones(2) * 3]])
    assert fn.code.startswith("def _lambda(xs: List[Tensor])")
    buffer = io.BytesIO()
    fn.save(buffer)
    buffer.seek(0)
    _close(torch.jit.load(buffer)([x[0, 0], x[0, 1]]), x[0, 0] * x[0, 1])


class _ScriptedNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(3, 4, batch_first=True)
        self.fc = torch.nn.Linear(4, 2)
        self.bn = torch.nn.BatchNorm1d(2)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.bn(self.fc(out[:, -1]))


@pytest.mark.parametrize("how", ["script", "trace"])
def test_loaded_archive_trained_and_saved_back(how):
    """A PyTorch archive loaded by chainrule, its weights changed there, saved by chainrule
    and loaded by PyTorch again: the code as it was, the new state."""
    torch.manual_seed(0)
    model = _ScriptedNet().eval()
    x = torch.randn(2, 5, 3)
    compiled = torch.jit.script(model) if how == "script" else torch.jit.trace(model, x)
    buffer = io.BytesIO()
    torch.jit.save(compiled, buffer)
    buffer.seek(0)
    ours = cjit.load(buffer)
    with cr.no_grad():
        for p in ours.parameters():
            p.mul_(1.5)
        ours.bn.running_mean.add_(0.3)
    out = io.BytesIO()
    cjit.save(ours, out)
    out.seek(0)
    back = torch.jit.load(out)
    want = ours(_cr(x))
    _close(back(x), want)
    assert list(back.state_dict()) == list(compiled.state_dict())
    np.testing.assert_allclose(back.bn.running_mean.numpy(), _np(ours.bn.running_mean))
    with pytest.raises(NotImplementedError, match="only the top module"):
        ours.fc.save(io.BytesIO())
