"""einops runs unchanged under ``chainrule run`` and gives what it gives on the real
PyTorch: rearrange, reduce, repeat, einsum, pack/unpack, parse_shape, the layers of
``einops.layers.torch`` (Rearrange, Reduce, EinMix) in nn.Sequential with gradients and a
short training loop, torch.compile and torch.export of them (einops_cases.py)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

if not all(importlib.util.find_spec(m) for m in ("torch", "einops")):
    pytest.skip("needs the real torch and einops (the oracle)", allow_module_level=True)

SCRIPT = Path(__file__).with_name("einops_cases.py")

# every case of einops_cases.py (the test checks the script runs exactly these)
CASES = [
    "rearrange_patterns",
    "reduce_patterns",
    "repeat_patterns",
    "einsum_pack_parse",
    "layers_in_sequential",
    "layers_training",
    "compile_and_export",
    "dtypes",
    "errors",
]
# results after many optimizer steps: float32 rounding grows with each step
TRAINING = {"layers_training"}


def _run(prefix: list, side: str, out: Path) -> dict:
    """Run einops_cases.py for ``side`` ("oracle": plain Python, the real PyTorch;
    "chainrule": under ``chainrule run``); its report, with the results."""
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    proc = subprocess.run(
        [*prefix, str(SCRIPT), str(out), side],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report = json.loads((out / f"einops_{side}_errors.json").read_text())
    with np.load(out / f"einops_{side}.npz") as results:
        report["results"] = dict(results)
    return report


@pytest.fixture(scope="module")
def sides(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    out = tmp_path_factory.mktemp("einops")
    oracle = _run([sys.executable], "oracle", out)  # (writes the weights chainrule loads)
    chainrule = _run([sys.executable, "-m", "chainrule", "run"], "chainrule", out)
    return oracle, chainrule


def test_sides_and_cases(sides: tuple[dict, dict]) -> None:
    oracle, chainrule = sides
    assert oracle["torch"] == "torch"
    assert chainrule["torch"] == "chainrule"  # `import torch` gave chainrule
    assert oracle["cases"] == CASES
    assert chainrule["cases"] == CASES
    assert oracle["errors"] == {}


def _compare(name: str, ours: np.ndarray, theirs: np.ndarray, training: bool) -> None:
    assert ours.dtype == theirs.dtype, (name, ours.dtype, theirs.dtype)
    assert ours.shape == theirs.shape, (name, ours.shape, theirs.shape)
    if theirs.dtype.kind in "fc":
        scale = max(1.0, float(np.nanmax(np.abs(theirs), initial=0.0)))
        atol = (1e-5 if training else 2e-6) * scale
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=atol, equal_nan=True, err_msg=name)
    else:
        np.testing.assert_array_equal(ours, theirs, err_msg=name)


@pytest.mark.parametrize("case", CASES)
def test_case(sides: tuple[dict, dict], case: str) -> None:
    oracle, chainrule = sides
    assert case not in chainrule["errors"], chainrule["errors"].get(case)
    keys = oracle["keys"][case]
    assert keys, case
    assert chainrule["keys"][case] == keys
    for key in keys:
        _compare(key, chainrule["results"][key], oracle["results"][key], case in TRAINING)
