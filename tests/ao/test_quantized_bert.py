"""Dynamic quantization of a transformers BERT (the PyTorch tutorial's recipe) under
``chainrule run``: the same quantized weights and layers as PyTorch, and outputs equal to
a few float32 ulps (the float parts of BERT — layer norms, GELU, softmax — differ from
PyTorch's in the last bits, and the dynamic quantization of each linear layer's input
follows them), far below the quantization error itself."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("transformers")

SCRIPT = str(Path(__file__).with_name("bert_quant_script.py"))


def _run(*args: str) -> None:
    proc = subprocess.run(
        [sys.executable, *args],
        env=dict(  # (one thread for every library: sums in one order, run to run)
            os.environ,
            OMP_NUM_THREADS="1",
            OPENBLAS_NUM_THREADS="1",
            MKL_NUM_THREADS="1",
            TRANSFORMERS_NO_ADVISORY_WARNINGS="1",
        ),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]


def test_dynamic_quantization_of_bert(tmp_path: Path) -> None:
    weights = str(tmp_path / "bert.pt")
    _run(SCRIPT, str(tmp_path / "torch.npz"), weights, "save")
    _run("-m", "chainrule", "run", SCRIPT, str(tmp_path / "chainrule.npz"), weights, "load")
    t, c = np.load(tmp_path / "torch.npz"), np.load(tmp_path / "chainrule.npz")
    assert str(c["text"]) == str(t["text"])
    np.testing.assert_array_equal(c["ints"], t["ints"])
    np.testing.assert_allclose(c["float"], t["float"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(c["quant"], t["quant"], rtol=1e-5, atol=1e-5)
    assert np.abs(t["quant"] - t["float"]).max() > 1e-4  # (the quantization did something)
