"""gpytorch 1.15 (with linear_operator 0.6) runs unchanged under ``chainrule run`` and gives
what it gives on the real PyTorch, in float64 to about 1e-10 (gp_cases.py): kernels'
covariance matrices and gradients, linear_operator's algebra, exact GPs trained with Adam
on the exact marginal log likelihood (losses, hyperparameters, posteriors), settings
contexts, fixed-noise, batch and multitask GPs, KISS-GP, SGPR, variational GPs with several
likelihoods and strategies, and state_dicts moved both ways (the real PyTorch loads the
exact GP chainrule trained and predicts what chainrule predicted)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from two_sides import both_sides, check_sides, compare

if not all(importlib.util.find_spec(m) for m in ("torch", "gpytorch")):
    pytest.skip("needs the real torch and gpytorch (the oracle)", allow_module_level=True)

SCRIPT = Path(__file__).with_name("gp_cases.py")

# every case of gp_cases.py (the test checks the script runs exactly these)
CASES = [
    "kernel_matrices",
    "batch_kernels",
    "linear_operators",
    "exact_rbf",
    "exact_matern",
    "exact_periodic",
    "exact_priors_and_constraints",
    "exact_settings",
    "exact_float32",
    "fixed_noise_and_batch",
    "multitask",
    "variational_gp",
    "structured_kernels",
    "fantasy_and_loo",
    "other_likelihoods",
    "multitask_variational",
    "deepcopy_pickle_and_utils",
    "state_dict_roundtrip",
]
# cases without an optimizer loop: float64 rounding only
EXACT = {"kernel_matrices", "batch_kernels", "linear_operators", "state_dict_roundtrip"}


def compare64(name: str, ours: np.ndarray, theirs: np.ndarray, trained: bool) -> None:
    """Same dtype and shape; floats to float64 rounding (scaled by the largest value;
    ``trained``: after optimizer steps, which let rounding grow), float32 results to float32
    rounding, the rest exactly."""
    assert ours.dtype == theirs.dtype, (name, ours.dtype, theirs.dtype)
    assert ours.shape == theirs.shape, (name, ours.shape, theirs.shape)
    if theirs.dtype == np.float32:
        compare(name, ours, theirs, loose=trained)
    elif theirs.dtype.kind in "fc":
        scale = max(1.0, float(np.nanmax(np.abs(theirs), initial=0.0)))
        atol = (1e-8 if trained else 1e-10) * scale
        rtol = 1e-7 if trained else 1e-9
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, equal_nan=True, err_msg=name)
    else:
        np.testing.assert_array_equal(ours, theirs, err_msg=name)


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("gpytorch")


@pytest.fixture(scope="module")
def sides(out: Path) -> tuple[dict, dict]:
    return both_sides(SCRIPT, "gp", out)


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


def test_real_torch_loads_chainrule_state(sides: tuple[dict, dict], out: Path) -> None:
    """The real PyTorch loads the exact GP chainrule trained (its torch.save file) into
    gpytorch and predicts what chainrule predicted."""
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), str(out), "reload"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    with np.load(out / "gp_reload.npz") as reloaded:
        results = dict(reloaded)
    assert list(results["reload.keys"]) == list(sides[0]["results"]["roundtrip.keys"])
    ours = sides[1]["results"]
    for key in ("rbf.f_mean", "rbf.f_var", "rbf.f_cov", "rbf.mean", "rbf.var", "rbf.lo"):
        compare64(key, results[key], ours[key], trained=False)
