"""The end-to-end examples are real runs: ``examples/digits.py`` (a CNN on scikit-learn's
8x8 digits) and ``examples/char_lstm.py`` (a character-level LSTM) run unchanged under
``chainrule run``, shortened here; and the digits CNN, from identical initial weights on
identical batches, follows PyTorch's losses step by step with SGD+momentum, Adam and AdamW."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from chainrule import _import_hook

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def load_example(name: str, with_chainrule: bool):
    """The example's module, its ``torch`` being PyTorch or chainrule."""
    spec = importlib.util.spec_from_file_location(
        f"{name}_{'chainrule' if with_chainrule else 'torch'}", EXAMPLES / f"{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    if with_chainrule:
        with _import_hook.installed():
            spec.loader.exec_module(module)
    else:
        spec.loader.exec_module(module)
    return module


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, OMP_NUM_THREADS="1", MPLBACKEND="Agg")
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=900, env=env
    )


@pytest.mark.parametrize("optimizer", ["sgd", "adam", "adamw"])
def test_the_digits_cnn_follows_torch_s_losses(optimizer):
    theirs, ours = load_example("digits", False), load_example("digits", True)
    torch.manual_seed(0)
    t_model = theirs.DigitsNet()
    c_model = ours.DigitsNet()
    c_model.load_state_dict(
        {k: ours.torch.tensor(v.numpy()) for k, v in t_model.state_dict().items()}
    )
    t_model.dropout.p = c_model.dropout.p = 0.0  # dropout masks come from different streams
    t_opt = theirs.make_optimizer(optimizer, t_model.parameters())
    c_opt = ours.make_optimizer(optimizer, c_model.parameters())
    train, _ = theirs.digits_data(0)
    order = np.random.default_rng(0).permutation(len(train))
    for step in range(20):
        idx = torch.tensor(order[step * 64 : (step + 1) * 64])
        x, y = train.tensors[0][idx], train.tensors[1][idx]
        losses = []
        for lib, model, opt, xb, yb in (
            (torch, t_model, t_opt, x, y),
            (
                ours.torch,
                c_model,
                c_opt,
                ours.torch.tensor(x.numpy()),
                ours.torch.tensor(y.numpy()),
            ),
        ):
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        np.testing.assert_allclose(losses[1], losses[0], rtol=1e-4, err_msg=f"step {step}")


def test_digits_trains_under_chainrule_run(tmp_path):
    plot = tmp_path / "digits.png"
    proc = run("-m", "chainrule", "run", "examples/digits.py", "--epochs", "5", "--plot", str(plot))
    assert proc.returncode == 0, proc.stderr[-3000:]
    accuracy = float(re.search(r"final test accuracy ([\d.]+)", proc.stdout).group(1))
    assert accuracy > 0.88, proc.stdout
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_char_lstm_loss_falls_under_chainrule_run():
    proc = run("-m", "chainrule", "run", "examples/char_lstm.py", "--steps", "150")
    assert proc.returncode == 0, proc.stderr[-3000:]
    first, last = map(
        float, re.search(r"loss fell from ([\d.]+) to ([\d.]+)", proc.stdout).groups()
    )
    assert first - last > 0.8, proc.stdout
    assert "The chain rule" in proc.stdout
