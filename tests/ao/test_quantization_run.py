"""``chainrule run`` of a quantization script (quantization_script.py): dynamic
quantization gives the same outputs, weights and repr as under PyTorch; post-training
static quantization of a small conv net the same modules and outputs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

SCRIPT = Path(__file__).with_name("quantization_script.py")


def _run(tmp_path: Path, *prefix: str) -> dict:
    out = tmp_path / f"{len(prefix)}.npz"
    subprocess.run(
        [sys.executable, *prefix, str(SCRIPT), str(out)],
        check=True,
        env=dict(os.environ, OMP_NUM_THREADS="1"),
        timeout=300,
    )
    with np.load(out) as data:
        return dict(data)


def test_dynamic_quantization_script_runs_unchanged(tmp_path: Path) -> None:
    torch_side = _run(tmp_path)
    chainrule_side = _run(tmp_path, "-m", "chainrule", "run")
    for key in ("out", "ints", "scale", "text", "static_kinds"):
        np.testing.assert_array_equal(chainrule_side[key], torch_side[key])
    # (calibrated on float layers that may differ in the last bit: within a quantization step)
    step = float(torch_side["static_scale"])
    np.testing.assert_allclose(chainrule_side["static_scale"], step, rtol=1e-5)
    np.testing.assert_allclose(
        chainrule_side["static_out"], torch_side["static_out"], atol=step * 1.01
    )
    np.testing.assert_allclose(
        chainrule_side["float_out"], torch_side["float_out"], rtol=1e-5, atol=1e-6
    )
