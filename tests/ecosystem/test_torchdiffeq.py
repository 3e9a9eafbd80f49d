"""torchdiffeq runs unchanged under ``chainrule run`` and gives what it gives on the real
PyTorch, in float64: ``odeint`` with the fixed-grid (euler, midpoint, rk4, heun3, Adams)
and adaptive (dopri5, bosh3, adaptive_heun, dopri8, fehlberg2) solvers on ODEs with
known solutions and on a small neural ODE (solutions and gradients backpropagated through
the solver), ``odeint_adjoint`` gradients (with ``adjoint_params`` and the seminorm), float32
solves, the SciPy solvers, solver options, and ``odeint_event``
(torchdiffeq_cases.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from two_sides import both_sides, check_case, check_sides

if not all(importlib.util.find_spec(m) for m in ("torch", "torchdiffeq")):
    pytest.skip("needs the real torch and torchdiffeq (the oracle)", allow_module_level=True)

SCRIPT = Path(__file__).with_name("torchdiffeq_cases.py")

# every case of torchdiffeq_cases.py (the test checks the script runs exactly these)
CASES = [
    "analytic_decay",
    "analytic_oscillator",
    "time_dependent_tuple_state",
    "neural_ode_backprop",
    "neural_ode_adjoint",
    "adjoint_seminorm_and_params",
    "float32_solves",
    "scipy_solver",
    "options_grid_and_jump_t",
    "events",
]


@pytest.fixture(scope="module")
def sides(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    out = tmp_path_factory.mktemp("torchdiffeq")
    return both_sides(SCRIPT, "torchdiffeq", out)


def test_sides_and_cases(sides: tuple[dict, dict]) -> None:
    check_sides(sides, CASES)


@pytest.mark.parametrize("case", CASES)
def test_case(sides: tuple[dict, dict], case: str) -> None:
    # float32: rounding differences compound over the solver's steps (and move dopri5's
    # adaptive step sizes by as much)
    check_case(sides, case, case == "float32_solves")


def test_accuracy_under_chainrule(sides: tuple[dict, dict]) -> None:
    """The adaptive solvers meet the exact solutions, and the adjoint method's gradients
    meet those backpropagated through dopri5, under chainrule itself."""
    res = sides[1]["results"]
    for name in ("decay", "osc"):
        assert res[f"{name}.dopri5.err"] < 1e-6
        assert res[f"{name}.adaptive_heun.err"] < 1e-5
        assert res[f"{name}.bosh3.err"] < 1e-4
    assert res["tuple.dopri5.err"] < 1e-8
    assert res["scipy.RK45.err"] < 1e-8
    for key in ("grad.y0", "grad.w0"):
        np.testing.assert_allclose(
            res[f"semi.seminorm.{key}"], res[f"semi.default.{key}"], atol=1e-7
        )
    assert res["event.dopri5.err"] < 1e-9
    np.testing.assert_allclose(res["event.dopri5.grad"][0], res["event.exact_dt_dh0"], rtol=1e-7)
    for key in ("y", "grad.y0", "grad.t", "grad.net.0.weight", "grad.net.2.bias"):
        np.testing.assert_allclose(
            res[f"adj.dopri5.adjoint.{key}"], res[f"adj.dopri5.direct.{key}"], atol=1e-7
        )
