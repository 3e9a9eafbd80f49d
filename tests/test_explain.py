"""chainrule.explain: the steps, numbers and pictures of a backward call."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import chainrule as torch

ROOT = Path(__file__).resolve().parent.parent


def _seed_program(seed: int):
    torch.manual_seed(seed)
    with torch.explain.record():
        x = torch.randn(3, requires_grad=True)
        y = x * 2
        c = 0
        while y.data.norm() < 1000:
            y = y * 2
            c += 1
    return x, y, c, torch.FloatTensor([0.1, 1.0, 0.0001])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_seed_program_explained(seed):
    x, y, c, v = _seed_program(seed)
    e = torch.explain(y, v)
    text = str(e)
    factor = 2 ** (c + 1)
    assert "vector-Jacobian product" in text
    assert "MulBackward0" in text and "AccumulateGrad" in text
    assert f"{factor} * I" in text  # the diagonal Jacobian, with the factor as a number
    assert "y = y * 2" in text and "y = x * 2" in text  # the user's own lines
    assert "[0.1, 1., 1.0000e-04]" in text  # v
    assert torch.equal(e.gradients[x], v * factor)
    assert torch.equal(e.jacobian(), torch.eye(3) * factor)
    assert x.grad is None  # explain accumulates nothing
    y.backward(v)  # and frees nothing
    assert torch.equal(x.grad, v * factor)


def test_scalar_example_explained():
    x = torch.ones(2, 2, requires_grad=True)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    text = str(torch.explain(out))
    for name in ("MeanBackward0", "MulBackward0", "AddBackward0", "AccumulateGrad"):
        assert name in text
    assert "d mean(z)/dz_i = 1/4" in text
    assert "d(y*y)/dy = 2y" in text
    assert "d(a*3)/da = 3" in text
    assert "4.5" in text
    out.backward()
    assert x.grad.tolist() == [[4.5, 4.5], [4.5, 4.5]]


def test_small_network_every_number_matches_backward():
    torch.manual_seed(3)
    x = torch.randn(4, 3)
    w1 = torch.randn(3, 5, requires_grad=True)
    b1 = torch.randn(5, requires_grad=True)  # broadcast over the batch
    w2 = torch.randn(5, 2, requires_grad=True)
    loss = ((x @ w1 + b1).relu() @ w2).mean()
    e = torch.explain(loss)
    loss.backward()
    for leaf in (w1, b1, w2):
        np.testing.assert_allclose(e.gradients[leaf].numpy(), leaf.grad.numpy(), rtol=1e-6)
    names = [s.node for s in e.steps]
    assert {"MeanBackward0", "MmBackward0", "ReluBackward0", "AddBackward0"} <= set(names)
    # every step's outgoing gradients have the shapes of its inputs
    for s in e.steps:
        for shape, g in zip(s.input_shapes, s.grads_out):
            if g is not None:
                assert tuple(g.shape) == tuple(shape)


def test_long_chain_is_summarised_fast():
    x = torch.ones(3, requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y * 1.0001
    t0 = time.perf_counter()
    text = str(torch.explain(y.sum()))
    assert time.perf_counter() - t0 < 5
    assert len(text) < 20_000
    assert "MulBackward0 x 10000" in text


def test_dot_and_html():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    e = torch.explain((x * x).sum())
    dot = e.to_dot()
    assert dot.startswith("digraph") and "MulBackward0" in dot and "->" in dot
    page = e.to_html()
    assert (
        "<svg" in page
        and 'id="steps"' in page
        and "http" not in page.replace("http://www.w3.org/2000/svg", "")
    )  # self-contained: no network requests
    assert "function show(" in page
    assert "| 1 | `SumBackward0`" in e.to_markdown()


def test_non_scalar_without_gradient_raises_like_backward():
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        torch.explain(x * 2)


def test_jacobian_size_limit():
    x = torch.ones(2000, requires_grad=True)
    with pytest.raises(RuntimeError, match="never forms it"):
        torch.explain(x * 2, torch.ones(2000)).jacobian()


def test_cli_explains_the_unedited_seed_script(tmp_path):
    page = tmp_path / "seed.html"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "chainrule",
            "explain",
            str(ROOT / "examples" / "seed.py"),
            "--html",
            str(page),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "y = y * 2" in proc.stdout
    assert "x.grad would receive" in proc.stdout
    assert page.read_text().startswith("<!DOCTYPE html>")


def test_demo_explain():
    proc = subprocess.run(
        [sys.executable, "-m", "chainrule", "demo", "--explain", "--seed", "4"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Folded: every step only scales" in proc.stdout
