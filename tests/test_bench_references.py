"""The hand-written NumPy references of bench/run.py compute what chainrule and PyTorch
compute (a ratio to a reference that computes something else would mean nothing): the MLP
step's updated weights, the Hessian-vector product and the LSTM's recurrent weight gradient."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import torch

import chainrule as cr

_PATH = Path(__file__).resolve().parent.parent / "bench" / "run.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("chainrule_bench_run", _PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("lib", [cr, torch], ids=["chainrule", "torch"])
def test_numpy_hvp_is_the_libraries_hvp(bench, lib):
    want = [t.detach().numpy() for t in bench.hvp_lib(lib)()]
    got = bench.hvp_numpy()()
    assert len(got) == len(want) == 4
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-6)
        assert np.abs(w).max() > 1e-3  # (not all zeros on either side)


def test_numpy_mlp_step_updates_the_weights_as_sgd_does(bench, monkeypatch):
    batch = 16
    x_np, t_np, weights = bench.mlp_data(batch)
    before = [w.copy() for w in weights]
    monkeypatch.setattr(bench, "mlp_data", lambda b: (x_np, t_np, weights))  # (kept here)
    bench.mlp_numpy(batch)()  # one step: the weights updated in place
    nn, F = torch.nn, torch.nn.functional
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    with torch.no_grad():
        for p, w in zip(model.parameters(), before):
            p.copy_(torch.from_numpy(w))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    F.cross_entropy(model(torch.from_numpy(x_np)), torch.from_numpy(t_np)).backward()
    opt.step()
    for p, w, w0 in zip(model.parameters(), weights, before):
        assert not np.array_equal(w, w0)
        np.testing.assert_allclose(w, p.detach().numpy(), rtol=1e-5, atol=1e-7)


def test_numpy_lstm_gradient_is_the_libraries(bench):
    r = np.random.default_rng(0)
    shape = (bench.LSTM_T, bench.LSTM_B, bench.LSTM_IN)
    x_np = r.standard_normal(shape).astype(np.float32)
    n, k = bench.LSTM_H, 1 / np.sqrt(bench.LSTM_H)
    sizes = [(4 * n, bench.LSTM_IN), (4 * n, n), (4 * n,), (4 * n,)]
    weights = [r.uniform(-k, k, s).astype(np.float32) for s in sizes]
    got = bench.lstm_numpy(x_np, weights)()
    for lib in (cr, torch):
        want = bench.lstm_lib(lib, x_np, weights)().detach().numpy()
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
        assert np.abs(want).max() > 1e-5
