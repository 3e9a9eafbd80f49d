"""chainrule is silent where PyTorch is: no NumPy warning (empty means, log(0), 1/0)
reaches a user, even under ``python -W error``.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from oracle import (
    check,
)

NUMERIC_EDGE_CASES = {
    "mean_empty": "x.mean()",
    "mean_empty_dim": "x.mean(dim=1)",
    "log_div_zero": "x.log() + 1 / x",
    "sqrt_sum": "x.sqrt().sum()",
}


@pytest.mark.parametrize("name", list(NUMERIC_EDGE_CASES))
def test_no_numpy_warnings(name):
    """PyTorch is silent about empty means, log(0) and 1/0; so must chainrule be.

    Run as a user would, in a fresh interpreter with ``-W error``: chainrule's own
    filter applies, nothing of pytest's.
    """
    expr = NUMERIC_EDGE_CASES[name]
    script = (
        "import numpy as np, chainrule as torch\n"
        "for shape in ((2, 0), (2, 1)):\n"
        "    x = torch.zeros(*shape, dtype=torch.float64, requires_grad=True)\n"
        f"    out = {expr}\n"
        "    out.backward(torch.ones_like(out))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-W", "error", "-c", script], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, f"chainrule warned or failed: {proc.stderr.strip()[-600:]}"
    fn = eval(f"lambda lib, x: {expr}")  # noqa: S307 - a fixed expression above
    for shape in ((2, 0), (2, 1)):
        check(fn, np.zeros(shape), dtype=np.float64)
