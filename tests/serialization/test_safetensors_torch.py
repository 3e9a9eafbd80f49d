"""The safetensors package's own PyTorch API (``safetensors.torch``: ``save_file``,
``load_file``, ``save_model``/``load_model`` with tied weights, ``safe_open``) runs on
chainrule under ``chainrule run``, printing what it prints with PyTorch: it reads a
tensor's memory through ``data_ptr``, ``untyped_storage()`` and ``torch.frombuffer``. The
data holds the four float8 formats (which the package finds with ``getattr(torch, ...)``
when it is imported) beside float32, bfloat16, int64 and float64."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import sys
import torch
from safetensors import safe_open
from safetensors.torch import load, load_file, load_model, save, save_file, save_model

path = sys.argv[1]
t = {"a": torch.arange(6.0).reshape(2, 3), "b": torch.ones(2, dtype=torch.bfloat16),
     "c": torch.tensor([1, 2]), "d": torch.tensor(3.5, dtype=torch.float64),
     "e": torch.tensor([0.5, -3.0, 500.0, 1e-3]).to(torch.float8_e4m3fn),
     "g": torch.tensor([[1.5, -60000.0]]).to(torch.float8_e5m2),
     "h": torch.tensor([0.25, 2.0]).to(torch.float8_e4m3fnuz),
     "i": torch.tensor([-1.0, 8.0]).to(torch.float8_e5m2fnuz)}
save_file(t, path + "/t.safetensors", metadata={"format": "pt"})
r = load_file(path + "/t.safetensors")
print({k: (v.dtype, v.shape, v.tolist()) for k, v in sorted(r.items())})
print({k: v.view(torch.uint8).tolist() for k, v in sorted(r.items()) if v.element_size() == 1})
print(sorted(load(save(t))), len(save(t)), load(save(t))["h"].dtype)
with safe_open(path + "/t.safetensors", framework="pt") as f:
    print(sorted(f.keys()), f.get_tensor("a"), f.get_slice("a")[0:1], f.metadata())
    print(f.get_tensor("e"), f.get_slice("g")[:, 1:])
m = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.LayerNorm(2))
m[1].weight = m[0].bias  # tied: save_file refuses, save_model keeps one copy
try:
    save_file(m.state_dict(), path + "/m.safetensors")
except RuntimeError as e:
    print("RuntimeError", " ".join(str(e).split())[:60])
save_model(m, path + "/m.safetensors")
m2 = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.LayerNorm(2))
m2[1].weight = m2[0].bias
print(load_model(m2, path + "/m.safetensors"), torch.equal(m2[0].weight, m[0].weight))
try:
    save_file({"t": t["a"].t()}, path + "/nc.safetensors")
except ValueError as e:
    print("ValueError", str(e)[:50])
"""


def run(args: list, tmp: Path) -> str:
    env = dict(os.environ)
    env.pop("PYTHONWARNINGS", None)
    out = subprocess.run(
        [sys.executable, *args, str(tmp)], capture_output=True, text=True, env=env, check=True
    )
    return out.stdout


def test_safetensors_torch_api_runs_as_with_torch(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    (tmp_path / "torch").mkdir()
    (tmp_path / "chainrule").mkdir()
    want = run([str(script)], tmp_path / "torch")
    got = run(["-m", "chainrule", "run", str(script)], tmp_path / "chainrule")
    assert got == want
    assert "RuntimeError Some tensors share memory" in got  # (its check of tied weights)
