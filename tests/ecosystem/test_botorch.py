"""botorch 0.18 runs unchanged under ``chainrule run`` and gives what it gives on the real
PyTorch, in float64 (botorch_cases.py): test functions, input and outcome transforms,
SingleTaskGP (and fixed-noise, two-output, model-list, multitask, mixed, multi-fidelity
GPs) fitted with ``fit_gpytorch_mll`` (scipy's L-BFGS-B, the parameters moved through
NumPy) or with its torch optimizer, posteriors and seeded Sobol QMC samples, analytic and
Monte Carlo acquisition functions and their gradients, the knowledge gradient,
multi-objective hypervolumes, qLogEHVI and qLogNEHVI, and ``optimize_acqf`` from given
starting points, with fixed features, under linear and nonlinear constraints (SLSQP),
and on discrete choices.

``optimize_acqf`` from its own raw samples (``raw_samples``, ``options={"seed": ...}``):
the Sobol raw samples are PyTorch's, and so are the restarts picked from them with
``torch.multinomial`` and an IID sampler's draws, for the same seed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from two_sides import both_sides, check_sides

if not all(importlib.util.find_spec(m) for m in ("torch", "botorch")):
    pytest.skip("needs the real torch and botorch (the oracle)", allow_module_level=True)

SCRIPT = Path(__file__).with_name("botorch_cases.py")

# every case of botorch_cases.py (the test checks the script runs exactly these)
CASES = [
    "test_functions",
    "transforms",
    "fit_single_task",
    "fit_with_torch_optimizer",
    "analytic_acquisitions",
    "mc_acquisitions",
    "optimize_acquisition",
    "constrained_optimization",
    "multi_output_models",
    "multi_objective",
    "more_models_and_tools",
    "other_models",
]
# cases without an optimizer: float64 rounding only
EXACT = {"test_functions", "transforms"}


def compare64(name: str, ours: np.ndarray, theirs: np.ndarray, fitted: bool) -> None:
    """Same dtype and shape; floats to float64 rounding (scaled by the largest value;
    ``fitted``: through an optimizer, to its tolerance), the rest exactly."""
    assert ours.dtype == theirs.dtype, (name, ours.dtype, theirs.dtype)
    assert ours.shape == theirs.shape, (name, ours.shape, theirs.shape)
    if theirs.dtype.kind in "fc":
        finite = np.isfinite(theirs)
        scale = max(1.0, float(np.max(np.abs(theirs[finite]), initial=0.0)))
        atol = (1e-7 if fitted else 1e-10) * scale
        rtol = 1e-6 if fitted else 1e-9
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, equal_nan=True, err_msg=name)
    else:
        np.testing.assert_array_equal(ours, theirs, err_msg=name)


@pytest.fixture(scope="module")
def sides(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    out = tmp_path_factory.mktemp("botorch")
    return both_sides(SCRIPT, "botorch", out)


def test_sides_and_cases(sides: tuple[dict, dict]) -> None:
    check_sides(sides, CASES)


@pytest.mark.parametrize("case", CASES)
def test_case(sides: tuple[dict, dict], case: str) -> None:
    oracle, chainrule = sides
    assert case not in chainrule["errors"], chainrule["errors"].get(case)
    keys = oracle["keys"][case]
    assert keys, case
    assert chainrule["keys"][case] == keys
    for key in keys:
        compare64(key, chainrule["results"][key], oracle["results"][key], case not in EXACT)
