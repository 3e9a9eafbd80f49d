"""captum runs unchanged under ``chainrule run`` and gives what it gives on the real
PyTorch, on the same float64 models (an MLP, a small CNN, embedding+LSTM and
embedding+transformer text models): IntegratedGradients (with convergence deltas),
Saliency, InputXGradient, DeepLift (ReLU, Tanh, Sigmoid, ELU, Softmax, max-pool rules),
DeepLiftShap, GradientShap, GuidedBackprop, Deconvolution, GuidedGradCam, the layer
methods (GradCam, Conductance, IntegratedGradients on embeddings, Activation, DeepLift,
GradientXActivation, InternalInfluence, FeatureAblation, GradientShap, LRP), the neuron
methods, Occlusion, FeatureAblation, exact Shapley values, ShapleyValueSampling,
FeaturePermutation, KernelShap, Lime, NoiseTunnel, LRP, the interpretable embedding layer,
``captum.metrics`` (infidelity, sensitivity_max), ``captum.robust`` (FGSM, PGD,
MinParamPerturbation, AttackComparator), the stochastic gates of ``captum.module``,
per-example gradients and TCAV (concept activation vectors saved and loaded, the oracle's
files read too) (captum_cases.py). What depends on ``torch``'s random draws is seeded
and gives PyTorch's values (sampled Shapley values, NoiseTunnel, PGD's random start), and
what does not depend on the draws holds too (see captum_cases.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from two_sides import both_sides, check_case, check_float64, check_sides

if not all(importlib.util.find_spec(m) for m in ("torch", "captum", "sklearn")):
    pytest.skip(
        "needs the real torch, captum and scikit-learn (the oracle)", allow_module_level=True
    )

SCRIPT = Path(__file__).with_name("captum_cases.py")

# every case of captum_cases.py (the test checks the script runs exactly these)
CASES = [
    "integrated_gradients",
    "saliency_and_input_x_gradient",
    "deeplift",
    "deeplift_shap",
    "gradient_shap",
    "guided_backprop_and_deconvolution",
    "grad_cam",
    "layer_methods",
    "neuron_methods",
    "text_models",
    "perturbation_methods",
    "sampled_shapley_and_permutation",
    "lime_and_kernel_shap",
    "noise_tunnel",
    "lrp",
    "metrics",
    "robust",
    "robust_metrics",
    "stochastic_gates_and_sample_gradients",
    "tcav",
]


@pytest.fixture(scope="module")
def sides(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    return both_sides(SCRIPT, "captum", tmp_path_factory.mktemp("captum"))


def test_sides_and_cases(sides: tuple[dict, dict]) -> None:
    check_sides(sides, CASES)


@pytest.mark.parametrize("case", CASES)
def test_case(sides: tuple[dict, dict], case: str) -> None:
    check_case(sides, case, False)
    check_float64(sides, case)  # (the models run in float64)


def test_what_the_draws_do_not_change(sides: tuple[dict, dict]) -> None:
    """The random-stream cases hold what they claim on chainrule's side: a seeded run
    repeats itself, KernelShap recovers the linear model, PGD's random start stays in
    its ball, and captum leaves the inputs' requires_grad as it found them."""
    ours = sides[1]["results"]
    for key in ("svs.seeded_repeats", "nt.seeded_repeats", "pgd.random_start.within"):
        assert ours[key].item() is True, key
    np.testing.assert_allclose(ours["ks.linear"], ours["ks.expected"], rtol=1e-5, atol=1e-5)
    assert ours["sal.input_still_requires_grad"].item() is True
    assert ours["ixg.input_requires_grad_after"].item() is False
