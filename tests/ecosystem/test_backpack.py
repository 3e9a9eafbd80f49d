"""BackPACK runs unchanged under ``chainrule run`` and gives what it gives on the real
PyTorch, on the same float64 models (MLPs of Linear/ReLU/Sigmoid/Tanh, a CNN with
Conv2d/MaxPool2d/AvgPool2d/Flatten/Dropout, BatchNorm1d in eval, RNN and LSTM, ZeroPad2d,
ConvTranspose2d, LeakyReLU/ELU/SELU/LogSigmoid, Conv1d with BCEWithLogitsLoss, an
Embedding in float32): the first-order extensions (BatchGrad with subsampling,
BatchL2Grad, SumGradSquared, Variance, checked against a per-example loop too), the
second-order ones (DiagGGNExact, BatchDiagGGNExact, KFLR, KFRA, DiagHessian,
BatchDiagHessian, SqrtGGNExact), the curvature-matrix products (HMP, GGNMP, PCHMP),
``extension_hook``, ``backpack.hessianfree`` (ggnvp, hvp, L_op/R_op and the
Jacobian-vector products), ``backpack.utils.convert_parameters``, ``extend(...,
use_converter=True)`` on a residual block with an in-place add, and PyTorch's
full-backward-hook warning and the frame it names (backpack_cases.py). The Monte-Carlo
extensions (DiagGGNMC, BatchDiagGGNMC, KFAC) give PyTorch's values for the same seed (their
draws are PyTorch's), and what does not depend on the draws holds (see backpack_cases.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from two_sides import both_sides, check_case, check_float64, check_sides

SCRIPT = Path(__file__).with_name("backpack_cases.py")

# every case of backpack_cases.py (the test checks the script runs exactly these)
CASES = [
    "first_order_mlp_cross_entropy",
    "first_order_mlp_mse_sum",
    "first_order_cnn",
    "batch_grad_subsampling",
    "per_sample_gradients_against_a_loop",
    "batchnorm_eval",
    "second_order_mlp_cross_entropy",
    "second_order_mlp_mse",
    "second_order_cnn",
    "diag_ggn_against_hessianfree",
    "monte_carlo_cross_entropy",
    "monte_carlo_mse",
    "recurrent_first_order",
    "recurrent_diag_ggn",
    "more_layers",
    "conv1d_embedding_and_bce",
    "curvature_matrix_products",
    "extension_hook_and_sqrt_ggn",
    "hessianfree_products",
    "convert_parameters",
    "hook_warnings",
    "converter_residual",
]


@pytest.fixture(scope="module")
def sides(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    return both_sides(SCRIPT, "backpack", tmp_path_factory.mktemp("backpack"))


def test_sides_and_cases(sides: tuple[dict, dict]) -> None:
    check_sides(sides, CASES)


@pytest.mark.parametrize("case", CASES)
def test_case(sides: tuple[dict, dict], case: str) -> None:
    check_case(sides, case, False)
    check_float64(sides, case)  # (the models run in float64)


def test_what_the_draws_do_not_change(sides: tuple[dict, dict]) -> None:
    """The properties the Monte-Carlo cases file hold (on both sides: the oracle's are
    compared with chainrule's above), as does the per-example loop and the converter."""
    ours = sides[1]["results"]
    flags = [k for k, v in ours.items() if v.dtype == np.bool_ and k.split(".")[0] != "hook"]
    assert len(flags) > 40
    for key in flags:
        assert ours[key].item() is True, key
