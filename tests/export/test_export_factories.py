"""Tensors made in an exported forward: ``empty`` and ``empty_like`` with the fills that
follow them, a traced tensor's ``new_zeros``/``new_ones``/``new_full``/``new_empty``,
written as PyTorch's export writes them (the same code and node names), saved files run
by the real torch.export.load, PyTorch's files run by chainrule's load, and a tensor made
from a dynamic size by a call the export keeps as a constant refused rather than frozen at
the example's size."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from export_checks import printed

import chainrule as cr
import chainrule.export as cexport

RNG = np.random.default_rng(17)


def _made(lib):
    class Made(lib.nn.Module):
        def forward(self, x):
            e = lib.empty(x.shape[0], 3).fill_(1.0)
            f = x.new_ones(2, 3)
            g = x.new_zeros((x.shape[0], 3), dtype=lib.float64)
            h = x.new_full((2,), 2.5)
            i = x.new_empty(2, 3).zero_()
            j = lib.empty_like(x).fill_(0.5)
            k = lib.empty(2, dtype=lib.float64).fill_(x.sum())
            return x[:, :3] * e + g, f, h, i, j + x, k

    return Made()


def _export_both(make, x, dynamic):
    def spec(export):
        return {"x": {0: export.Dim.AUTO}} if dynamic else None

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.export.export(
            make(torch), (torch.tensor(x),), dynamic_shapes=spec(torch.export)
        )
    got = cexport.export(make(cr), (cr.tensor(x),), dynamic_shapes=spec(cexport))
    return want, got


def _same(got, want):
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert a.dtype.itemsize == b.dtype.itemsize and tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=0)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic batch"])
def test_made_tensors_export_as_pytorch(tmp_path, dynamic):
    x = RNG.standard_normal((4, 5))
    want, got = _export_both(_made, x, dynamic)
    assert got.graph_module.code == want.graph_module.code
    assert printed(got) == printed(want)
    assert [n.name for n in got.graph.nodes] == [n.name for n in want.graph.nodes]
    cexport.save(got, tmp_path / "m.pt2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = torch.export.load(tmp_path / "m.pt2")
    sizes = (4, 2, 7) if dynamic else (4,)
    for n in sizes:
        other = RNG.standard_normal((n, 5))
        expected = _made(torch)(torch.tensor(other))
        _same(loaded.module()(torch.tensor(other)), expected)
        _same(got.module()(cr.tensor(other)), expected)


def test_pytorch_program_making_tensors_runs_on_chainrule(tmp_path):
    x = RNG.standard_normal((3, 5))
    want, _ = _export_both(_made, x, True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.export.save(want, tmp_path / "p.pt2")
    loaded = cexport.load(tmp_path / "p.pt2")
    assert loaded.graph_module.code == want.graph_module.code
    for n in (3, 6):
        other = RNG.standard_normal((n, 5))
        _same(loaded.module()(cr.tensor(other)), _made(torch)(torch.tensor(other)))


def test_a_constant_of_a_dynamic_size_is_refused_not_frozen():
    """``eye`` is not among the export's factories: its result would be a constant of the
    example's size, wrong at every other batch size."""

    class Eye(cr.nn.Module):
        def forward(self, x):
            return cr.eye(x.shape[0], dtype=x.dtype) @ x

    x = cr.tensor(RNG.standard_normal((4, 4)))
    with pytest.raises(NotImplementedError, match="eye with a dynamic size"):
        cexport.export(Eye(), (x,), dynamic_shapes={"x": {0: cexport.Dim.AUTO}})
    # at a static size the constant is right
    got = cexport.export(Eye(), (x,))
    np.testing.assert_array_equal(got.module()(x).numpy(), x.numpy())
