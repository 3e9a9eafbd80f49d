"""ExportedProgram.run_decompositions of selu, celu, prelu, instance norm (affine or not,
with running statistics or not, training or eval) and attention with ``enable_gqa`` or
dropout, against the real ``ep.run_decompositions()``: the same nodes (names, targets),
code and signature, the same outputs (float64) and buffer updates, on chainrule and in
the real ``torch.export.load`` of the saved file. Also a forward whose parameter is named
``input``, a builtin's name, which PyTorch's export keeps as the placeholder's name."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from export_checks import printed, same

import chainrule as cr
import chainrule.export as cexport

RNG = np.random.default_rng(7)


def _n(*shape):
    return RNG.standard_normal(shape)


def _u(*shape):
    return RNG.random(shape)


def _layers(lib):
    nn = lib.nn

    class Layers(nn.Module):
        def __init__(self):
            super().__init__()
            self.prelu = nn.PReLU()
            self.prelu4 = nn.PReLU(4)
            self.inorm = nn.InstanceNorm1d(4)
            self.inorm_affine = nn.InstanceNorm1d(4, affine=True)
            self.inorm_stats = nn.InstanceNorm1d(4, track_running_stats=True)
            self.inorm2d = nn.InstanceNorm2d(4, affine=True, track_running_stats=True)

    return Layers


# name -> (forward of (lib, F, module, *inputs), the inputs, training mode)
CASES = {
    "selu_celu": (
        lambda lib, F, m, x: (F.selu(x), F.celu(x), F.celu(x, 0.5), F.celu(x, alpha=2.0)),
        lambda: [_n(3, 4)],
        False,
    ),
    "prelu": (
        lambda lib, F, m, x, y, s: (m.prelu(x), m.prelu4(x), m.prelu(y), m.prelu(s)),
        lambda: [_n(2, 4, 3), _n(5), _n(3, 4, 2, 2)],
        False,
    ),
    "prelu_functional": (
        lambda lib, F, m, x, w, s: (F.prelu(x, w), F.prelu(s, w[:1]), F.prelu(s[0, 0], w[:1])),
        lambda: [_n(3, 4), _u(4), _n(2, 3)],
        False,
    ),
    "instance_norm_train": (
        lambda lib, F, m, x: (m.inorm(x), m.inorm_affine(x), F.instance_norm(x, eps=1e-3)),
        lambda: [_n(2, 4, 3)],
        True,
    ),
    "instance_norm_eval": (
        lambda lib, F, m, x, y: (m.inorm_affine(x), m.inorm_stats(x), m.inorm2d(y)),
        lambda: [_n(2, 4, 3), _n(2, 4, 3, 2)],
        False,
    ),
    "instance_norm_strided": (
        lambda lib, F, m, x, w: F.instance_norm(x.transpose(1, 2), w, w, w, w, False),
        lambda: [_n(2, 3, 4), _u(4) + 0.5],
        False,
    ),
    "sdpa_gqa": (
        lambda lib, F, m, q, k, v, b: (
            F.scaled_dot_product_attention(q, k, v, enable_gqa=True),
            F.scaled_dot_product_attention(q, k, v, attn_mask=b, enable_gqa=True),
            F.scaled_dot_product_attention(q, k[:, :1], v[:, :1], is_causal=True, enable_gqa=True),
            F.scaled_dot_product_attention(q, q, q, enable_gqa=True),
        ),
        lambda: [_n(2, 4, 3, 5), _n(2, 2, 6, 5), _n(2, 2, 6, 5), _u(3, 6) < 0.7],
        False,
    ),
}


def _module(lib, name: str, count: int):
    forward = CASES[name][0]

    def run(self, *inputs):
        return forward(lib, lib.nn.functional, self, *inputs)

    forwards = {
        1: lambda self, a: run(self, a),
        2: lambda self, a, b: run(self, a, b),
        3: lambda self, a, b, c: run(self, a, b, c),
        4: lambda self, a, b, c, d: run(self, a, b, c, d),
    }
    return type("Case", (_layers(lib),), {"forward": forwards[count]})()


def _pair(make, arrays, training: bool):
    torch.manual_seed(0)
    tm, cm = make(torch).double(), make(cr).double()
    with torch.no_grad():  # (PReLU's weights, made different from their default)
        for p in tm.parameters():
            p.add_(torch.rand(p.shape, dtype=p.dtype) - 0.5)
    cm.load_state_dict({k: cr.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    tm.train(training)
    cm.train(training)
    targs = tuple(torch.tensor(a) for a in arrays)
    cargs = tuple(cr.tensor(a) for a in arrays)
    return tm, cm, targs, cargs


def _decomposed(tm, cm, targs, cargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (PyTorch's notes on export)
        want = torch.export.export(tm, targs).run_decompositions()
    got = cexport.export(cm, cargs).run_decompositions()
    return want, got


def _same_program(got, want) -> None:
    assert [(n.op, n.name) for n in got.graph.nodes] == [(n.op, n.name) for n in want.graph.nodes]
    assert [str(n.target) for n in got.graph.nodes] == [str(n.target) for n in want.graph.nodes]
    assert got.graph_module.code == want.graph_module.code
    assert str(got.graph_signature) == str(want.graph_signature)


def _loaded(got, want, path):
    """chainrule's saved program read by the real torch.export.load: PyTorch's own saved
    program (a loaded program reads the results nothing read)."""
    cexport.save(got, path / "d.pt2")
    torch.export.save(want, path / "t.pt2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = torch.export.load(path / "d.pt2")
        reference = torch.export.load(path / "t.pt2")
    assert loaded.graph_module.code == reference.graph_module.code
    assert str(loaded.graph_signature) == str(reference.graph_signature)
    return loaded


@pytest.mark.parametrize("name", list(CASES))
def test_a_decomposed_op_is_pytorchs_program_and_runs_to_its_outputs(name, tmp_path):
    arrays = CASES[name][1]()
    tm, cm, targs, cargs = _pair(lambda lib: _module(lib, name, len(arrays)), arrays, False)
    training = CASES[name][2]
    tm.train(training)
    cm.train(training)
    want, got = _decomposed(tm, cm, targs, cargs)
    _same_program(got, want)
    expected = tm(*targs)
    same(got.module()(*cargs), expected)
    loaded = _loaded(got, want, tmp_path)
    same(loaded.module()(*targs), expected)


def test_instance_norm_with_running_statistics_updates_its_buffers_as_pytorch(tmp_path):
    def make(lib):
        class Stats(_layers(lib)):
            def forward(self, x, y):
                return self.inorm_stats(x), self.inorm2d(y)

        return Stats()

    arrays = [_n(2, 4, 3), _n(3, 4, 2, 2)]
    tm, cm, targs, cargs = _pair(make, arrays, True)
    want, got = _decomposed(tm, cm, targs, cargs)
    _same_program(got, want)
    kinds = [s.kind.name for s in got.graph_signature.output_specs]
    assert kinds == ["BUFFER_MUTATION"] * 4 + ["USER_OUTPUT"] * 2
    run, loaded = got.module(), _loaded(got, want, tmp_path).module()
    expected = tm(*targs)  # (one step: the buffers updated once)
    same(run(*cargs), expected)
    same(loaded(*targs), expected)
    buffers, loaded_buffers = dict(run.named_buffers()), dict(loaded.named_buffers())
    for name, value in tm.named_buffers():
        same(buffers[name], value)
        same(loaded_buffers[name], value)
    assert float(tm.inorm_stats.running_mean.abs().sum()) > 0  # (updated, not the zeros)


def _dropout_forward(lib, F, q, k, v, b):
    return (
        F.scaled_dot_product_attention(q, q, q, dropout_p=0.3),
        F.scaled_dot_product_attention(q, k, v, attn_mask=b, dropout_p=0.5, enable_gqa=True),
        F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=0.2, enable_gqa=True),
    )


def test_attention_with_dropout_writes_pytorchs_random_dropout_and_runs(tmp_path):
    """Dropout's mask is random: the program, its random node and the outputs' sizes."""

    def make(lib):
        class Drop(lib.nn.Module):
            def forward(self, q, k, v, b):
                return _dropout_forward(lib, lib.nn.functional, q, k, v, b)

        return Drop()

    arrays = [_n(2, 4, 3, 5), _n(2, 2, 6, 5), _n(2, 2, 6, 5), _u(3, 6) < 0.7]
    tm, cm, targs, cargs = _pair(make, arrays, True)
    want, got = _decomposed(tm, cm, targs, cargs)
    _same_program(got, want)
    dropouts = [n.args[1:] for n in got.graph.nodes if str(n.target).startswith("aten.native_d")]
    assert dropouts == [(0.3, True), (0.5, True), (0.2, True)]
    sizes = [tuple(t.shape) for t in tm(*targs)]
    assert [tuple(t.shape) for t in got.module()(*cargs)] == sizes
    loaded = _loaded(got, want, tmp_path)
    assert [tuple(t.shape) for t in loaded.module()(*targs)] == sizes


def _input_named(lib):
    class Named(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(3, 2)

        def forward(self, input, x):
            return self.lin(input).relu() + x.sum()

    return Named()


def test_a_parameter_named_input_keeps_its_name_as_pytorchs_export(tmp_path):
    """PyTorch's placeholder is ``input`` (its code writes ``input_1 = input``), before
    and after run_decompositions."""
    tm, cm, targs, cargs = _pair(_input_named, [_n(4, 3), _n(2)], False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.export.export(tm, targs)
    got = cexport.export(cm, cargs)
    _same_program(got, want)
    assert [n.name for n in got.graph.nodes if n.op == "placeholder"][2] == "input"
    assert "    input_1 = input\n" in got.graph_module.code
    assert printed(got) == printed(want)  # (``input_1 = input``, not annotated)
    expected = tm(*targs)
    same(got.module()(*cargs), expected)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want_d = want.run_decompositions()
    got_d = got.run_decompositions()
    _same_program(got_d, want_d)
    same(got_d.module()(*cargs), expected)
    loaded = _loaded(got_d, want_d, tmp_path)
    assert [n.name for n in loaded.graph.nodes] == [n.name for n in want_d.graph.nodes]
    same(loaded.module()(*targs), expected)
    back = cexport.load(tmp_path / "d.pt2")
    assert [n.name for n in back.graph.nodes] == [n.name for n in want_d.graph.nodes]
    same(back.module()(*cargs), expected)


def _buffers_first_made_later(lib):
    nn = lib.nn

    class Buffers(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("top", lib.ones(4))
            self.a = nn.BatchNorm1d(4, affine=False)
            self.b = nn.Linear(4, 4)
            self.sub = nn.Sequential(nn.BatchNorm1d(4, affine=False), nn.Linear(4, 4))
            self.register_buffer("z", lib.ones(4))
            self.c = nn.BatchNorm1d(4)

        def forward(self, x):
            return self.c(self.sub(self.b(self.a(x)))) + self.top * self.z

    return Buffers()


def test_decomposed_inputs_list_the_buffers_as_pytorchs_remade_module(tmp_path):
    """PyTorch's run_decompositions traces the module anew, made parameters first: a
    buffer-only submodule's buffers move behind those of submodules with parameters."""
    tm, cm, targs, cargs = _pair(_buffers_first_made_later, [_n(3, 4)], False)
    want, got = _decomposed(tm, cm, targs, cargs)
    _same_program(got, want)
    buffers = [s.target for s in got.graph_signature.input_specs if s.kind.name == "BUFFER"]
    assert buffers[:3] == ["top", "z", "sub.0.running_mean"]
    assert buffers[-1] == "a.num_batches_tracked"
    same(got.module()(*cargs), tm(*targs))
    same(_loaded(got, want, tmp_path).module()(*targs), tm(*targs))
