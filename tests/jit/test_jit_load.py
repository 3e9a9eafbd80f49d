"""torch.jit.load: TorchScript archives traced or scripted and saved by the real PyTorch,
loaded and run by chainrule's interpreter (no code from the file executed); outputs,
parameter gradients, state_dict keys and ``.code`` against PyTorch's own ``torch.jit.load``
of the same file, and archives that must be refused."""

from __future__ import annotations

import io
import pickle
import zipfile

import numpy as np
import pytest
import torch
import torch.nn as nn

import chainrule as cr
import chainrule.jit as cjit

# PyTorch 2.13 deprecates torch.jit.trace/script/save/load: the oracle still runs them
pytestmark = pytest.mark.filterwarnings(
    "ignore::DeprecationWarning", "ignore::FutureWarning", "ignore::torch.jit.TracerWarning"
)


def _cr(x):
    return cr.tensor(x.detach().numpy())


def _saved(tmp_path, module, example, script=False, name="model.pt"):
    """PyTorch's module traced (or scripted) and saved, loaded by PyTorch and by chainrule."""
    torch.manual_seed(0)
    compiled = torch.jit.script(module) if script else torch.jit.trace(module, example)
    path = tmp_path / name
    torch.jit.save(compiled, str(path))
    return torch.jit.load(str(path)), cjit.load(str(path))


def _check(want_mod, got_mod, inputs, tol=1e-10):
    """Equal outputs, and equal gradients of sum(output) w.r.t. every parameter."""
    want = want_mod(*inputs)
    got = got_mod(*[_cr(x) for x in inputs])
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=tol, atol=tol)
    want.sum().backward()
    got.sum().backward()
    want_params = dict(want_mod.named_parameters())
    got_params = dict(got_mod.named_parameters())
    assert list(got_params) == list(want_params)
    for name, p in want_params.items():
        assert isinstance(got_params[name], cr.nn.Parameter)
        np.testing.assert_allclose(
            got_params[name].grad.numpy(), p.grad.numpy(), rtol=tol, atol=tol, err_msg=name
        )
    assert list(got_mod.state_dict()) == list(want_mod.state_dict())
    for k, v in want_mod.state_dict().items():
        np.testing.assert_allclose(got_mod.state_dict()[k].numpy(), v.numpy(), rtol=tol, atol=tol)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.act, self.fc2 = nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2)
        self.ap = nn.AdaptiveAvgPool2d((2, 2))
        self.fc = nn.Linear(16, 5)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn(self.conv(x))))
        return self.fc(torch.flatten(self.ap(x), 1))


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 6, num_layers=2, batch_first=True)
        self.gru = nn.GRU(6, 5)
        self.fc = nn.Linear(5, 2)

    def forward(self, x):
        y, _ = self.lstm(x)
        z, _ = self.gru(y)
        return self.fc(z[:, -1])


class Embed(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb, self.fc = nn.Embedding(10, 4), nn.Linear(4, 2)

    def forward(self, i):
        return self.fc(self.emb(i)).mean(1)


class Scripted(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.n = 3
        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])
        self.register_buffer("scale", torch.tensor(2.0))

    def forward(self, x):
        if x.size(0) > 2:
            x = x * self.scale
        else:
            x = x - 1.0
        for i in range(self.n):
            x = torch.tanh(self.fc(x)) + i
        for layer in self.layers:
            x = layer(x)
        ys: list[torch.Tensor] = []
        for j in range(x.shape[1]):
            ys.append(x[:, j].sum())
        out = torch.stack(ys)
        return x.mean() + out * float(len(ys)) + x[0, 1:3].sum()


class Layers(nn.Module):
    """Sequential layers and tensor methods a trace records: GELU, GroupNorm,
    ConvTranspose2d, AvgPool2d, view with a size, cat, softmax, LayerNorm, dtype casts."""

    def __init__(self):
        super().__init__()
        self.seq = nn.Sequential(
            nn.Conv2d(3, 4, 3, stride=2), nn.GELU(), nn.GroupNorm(2, 4),
            nn.ConvTranspose2d(4, 2, 2), nn.AvgPool2d(2), nn.Dropout(0.0),
        )  # fmt: skip
        self.ln = nn.LayerNorm(2)

    def forward(self, x):
        y = self.seq(x)
        y = y.view(y.size(0), -1)
        z = torch.cat([y, y * 2], 1)
        z = nn.functional.softmax(z, -1) + nn.functional.log_softmax(z, dim=1)
        out = self.ln(z.reshape(z.shape[0], -1, 2)).sum(-1)
        return out + x.mean() - x.float().double().max() + torch.sigmoid(z).pow(2).sum()


class Residual(nn.Module):
    """A residual block in training mode (batch norm updates its running stats), nearest
    upsampling, slicing, arange of a size, matmul/bmm, an embedding of a constant tensor."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 3, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(3)
        self.emb = nn.Embedding(5, 3, padding_idx=0)

    def forward(self, x):
        y = nn.functional.relu(self.bn(self.c(x))) + x
        y = nn.functional.interpolate(y, scale_factor=2, mode="nearest")
        y = y.permute(0, 2, 3, 1)[:, 1:, :-1]
        a = torch.arange(y.shape[-1], dtype=torch.float64)
        z = torch.matmul(y, a.unsqueeze(-1)).squeeze(-1)
        w = torch.bmm(z, z.transpose(1, 2)).softmax(-1)
        e = self.emb(torch.tensor([0, 1, 2])).sum()
        out = w.mean(dim=(1, 2)) + e + torch.cumsum(z, 1).std() + z.chunk(2, 1)[0].sum()
        return out + nn.functional.leaky_relu(z, 0.1).amax()


class Control(nn.Module):
    """Scripted control flow: a helper method with an Optional argument, a while loop,
    self.training, a dict, int arithmetic on a list, F.relu (a function of the code files)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.k = 2

    def helper(self, x: torch.Tensor, y: torch.Tensor | None = None) -> tuple[torch.Tensor, int]:
        if y is None:
            return x, 0
        return x + y, 1

    def forward(self, x: torch.Tensor, y: torch.Tensor | None = None):
        a, n = self.helper(x, y)
        i = 0
        while i < self.k:
            a = self.fc(a)
            i += 1
        if self.training:
            a = a * 2
        d = {"k": a, "j": a + 1}
        total = a.new_zeros(a.shape)
        for key in d.keys():
            total = total + d[key]
        sizes = [1, 2, 3]
        m = max(sizes) // 2 + len(sizes) % 2 + n
        b = a.clamp(min=-0.5, max=0.5)
        c = nn.functional.relu(a).masked_fill(a > 0.3, 0.0)
        return total * m + b + c + torch.where(a > 0, a, -a) + torch.ones(3, 4, dtype=torch.float64)


class ScriptedLayers(nn.Module):
    """PyTorch's own layers scripted: LSTM (overloaded forward), GRU, a transformer layer."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 8, batch_first=True)
        self.gru = nn.GRU(8, 8, batch_first=True)
        self.enc = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)

    def forward(self, x):
        y, _ = self.lstm(x)
        z, _ = self.gru(y)
        return self.enc(z)


def _double(module):
    torch.manual_seed(0)
    return module.double()


def test_traced_mlp_outputs_gradients_state_and_code(tmp_path):
    x = torch.randn(5, 4, dtype=torch.float64)
    want, got = _saved(tmp_path, _double(MLP()), x)
    _check(want, got, [x])
    assert got.code == want.code
    assert got.fc1.code == want.fc1.code
    assert got.training == want.training
    assert got.original_name == want.original_name == "MLP"
    assert isinstance(got, cjit.ScriptModule) and isinstance(got, cr.nn.Module)
    assert repr(got) == repr(want)


def test_traced_cnn_with_batch_norm_in_eval(tmp_path):
    x = torch.randn(2, 3, 8, 8, dtype=torch.float64)
    want, got = _saved(tmp_path, _double(CNN()).eval(), x)
    assert not got.training and not got.bn.training
    _check(want, got, [x])
    assert [n for n, _ in got.named_buffers()] == [n for n, _ in want.named_buffers()]
    assert got.code == want.code


def test_traced_lstm_and_gru(tmp_path):
    x = torch.randn(2, 5, 4, dtype=torch.float64)
    want, got = _saved(tmp_path, _double(Recurrent()), x)
    _check(want, got, [x])
    # the traced code reads the batch size from the input: another batch size runs too
    x3 = torch.randn(3, 7, 4, dtype=torch.float64)
    np.testing.assert_allclose(
        got(_cr(x3)).detach().numpy(), want(x3).detach().numpy(), rtol=1e-10, atol=1e-10
    )


def test_traced_embedding_and_linear(tmp_path):
    i = torch.randint(0, 10, (2, 3))
    want, got = _saved(tmp_path, _double(Embed()), i)
    _check(want, got, [i])


def test_traced_transformer_encoder_layer(tmp_path):
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True).double()
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    want, got = _saved(tmp_path, layer, x)
    _check(want, got, [x])


def test_scripted_module_with_if_and_for(tmp_path):
    want, got = _saved(tmp_path, _double(Scripted()), None, script=True)
    for rows in (3, 2):  # both branches of the `if` on the size
        torch.manual_seed(rows)
        x = torch.randn(rows, 4, dtype=torch.float64)
        _check(want, got, [x])
        want.zero_grad()
        got.zero_grad()
    assert got.n == 3
    assert got.layers[1].in_features == 4  # a class constant (Final) of the code


def test_traced_sequential_and_tensor_methods(tmp_path):
    x = torch.randn(2, 3, 9, 9, dtype=torch.float64)
    want, got = _saved(tmp_path, _double(Layers()), x)
    _check(want, got, [x])


def test_traced_training_mode_batch_norm_and_upsampling(tmp_path):
    x = torch.randn(2, 3, 6, 6, dtype=torch.float64)
    want, got = _saved(tmp_path, _double(Residual()), x)
    assert got.training and got.bn.training
    _check(want, got, [x])  # (after one call each, the running stats must agree)
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        np.testing.assert_allclose(
            getattr(got.bn, name).numpy(), getattr(want.bn, name).numpy(), rtol=1e-12
        )


def test_scripted_helpers_optional_while_dict(tmp_path):
    want, got = _saved(tmp_path, _double(Control()), None, script=True)
    x, y = (torch.randn(3, 4, dtype=torch.float64) for _ in range(2))
    _check(want, got, [x])  # y is None
    want.zero_grad()
    got.zero_grad()
    _check(want, got, [x, y])
    want.eval()
    got.eval()
    np.testing.assert_allclose(
        got(_cr(x)).detach().numpy(), want(x).detach().numpy(), rtol=1e-10, atol=1e-10
    )


def test_scripted_lstm_gru_transformer(tmp_path):
    want, got = _saved(tmp_path, _double(ScriptedLayers()), None, script=True)
    x = torch.randn(2, 5, 4, dtype=torch.float64)
    _check(want, got, [x], tol=1e-9)


def test_eval_and_extra_files(tmp_path):
    x = torch.randn(5, 4, dtype=torch.float64)
    traced = torch.jit.trace(_double(MLP()), x)
    path = tmp_path / "extra.pt"
    torch.jit.save(traced, str(path), _extra_files={"meta.txt": "hello"})
    want_extra, got_extra = {"meta.txt": ""}, {"meta.txt": ""}
    torch.jit.load(str(path), _extra_files=want_extra)
    with path.open("rb") as stream:
        got = cjit.load(stream, map_location="cpu", _extra_files=got_extra)
    assert got_extra == want_extra
    assert got.training
    got.eval()
    assert not got.fc1.training


def _rewrite(path, out, change):
    """A copy of the archive with some records' bytes changed."""
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(out, "w") as dst:
        for name in src.namelist():
            dst.writestr(name, change(name, src.read(name)))


def test_operator_outside_the_whitelist_is_refused_at_call(tmp_path):
    class Odd(nn.Module):
        def forward(self, x):
            return torch.special.bessel_j0(x)

    x = torch.randn(3, dtype=torch.float64)
    _, got = _saved(tmp_path, Odd(), x)
    with pytest.raises(RuntimeError, match="special_bessel_j0"):
        got(_cr(x))


class _Evil:
    def __reduce__(self):
        import os

        return (os.system, ("echo pwned > /dev/null",))


def test_malicious_pickle_is_refused(tmp_path, monkeypatch):
    x = torch.randn(5, 4, dtype=torch.float64)
    _saved(tmp_path, _double(MLP()), x)
    evil = pickle.dumps(_Evil(), protocol=2)
    calls = []
    monkeypatch.setattr("os.system", lambda *a: calls.append(a))
    _rewrite(
        tmp_path / "model.pt",
        tmp_path / "evil.pt",
        lambda n, b: evil if n.endswith("/data.pkl") else b,
    )
    with pytest.raises(pickle.UnpicklingError, match="os.system|posix.system"):
        cjit.load(str(tmp_path / "evil.pt"))
    assert calls == []


def test_code_with_import_is_refused_without_running(tmp_path, monkeypatch):
    x = torch.randn(5, 4, dtype=torch.float64)
    _saved(tmp_path, _double(MLP()), x)
    calls = []
    monkeypatch.setattr("os.system", lambda *a: calls.append(a))

    def inject(name, data):
        if "modules/activation" in name and name.endswith(".py"):
            return data.replace(
                b"return torch.relu(argument_1)",
                b'_9 = __import__("os").system("true")\n    return torch.relu(argument_1)',
            )
        return data

    _rewrite(tmp_path / "model.pt", tmp_path / "evil.pt", inject)
    got = cjit.load(str(tmp_path / "evil.pt"))  # parsing runs nothing
    with pytest.raises(RuntimeError, match="__import__"):
        got(_cr(x))
    assert calls == []


def test_code_reaching_for_python_internals_is_refused(tmp_path):
    x = torch.randn(5, 4, dtype=torch.float64)
    _saved(tmp_path, _double(MLP()), x)

    def inject(name, data):
        if "modules/activation" in name and name.endswith(".py"):
            return data.replace(b"torch.relu(argument_1)", b"argument_1.__class__")
        return data

    _rewrite(tmp_path / "model.pt", tmp_path / "evil.pt", inject)
    with pytest.raises(RuntimeError, match="__class__"):
        cjit.load(io.BytesIO((tmp_path / "evil.pt").read_bytes()))(_cr(x))


def test_ops_aten_and_tensor_method_calls_run(tmp_path):
    """``ops.aten.<op>`` and ``x.<method>()`` spellings of code run as ``torch.<op>``."""
    x = torch.randn(5, 4, dtype=torch.float64)
    want, _ = _saved(tmp_path, _double(MLP()), x)

    def respell(name, data):
        if "modules/activation" in name and name.endswith(".py"):
            return data.replace(
                b"torch.relu(argument_1)", b"ops.aten.relu(argument_1.view(argument_1.size(0), -1))"
            )
        return data

    _rewrite(tmp_path / "model.pt", tmp_path / "respelled.pt", respell)
    got = cjit.load(str(tmp_path / "respelled.pt"))
    _check(want, got, [x])


def test_saved_attribute_shadowing_the_module_is_refused(tmp_path):
    x = torch.randn(5, 4, dtype=torch.float64)
    _saved(tmp_path, _double(MLP()), x)
    key = b"X\x08\x00\x00\x00training"  # (the pickle's key string, 8 characters long)

    def rename(name, data):
        return (
            data.replace(key, b"X\x08\x00\x00\x00__init__") if name.endswith("data.pkl") else data
        )

    _rewrite(tmp_path / "model.pt", tmp_path / "shadow.pt", rename)
    with pytest.raises(RuntimeError, match="'__init__'"):
        cjit.load(str(tmp_path / "shadow.pt"))
