"""opacus runs unchanged under ``chainrule run`` and gives what it gives on the real
PyTorch (opacus_cases.py): per-sample gradients of ``GradSampleModule`` with the "hooks",
"functorch" and "ew" (ExpandedWeights) modes for Linear, Conv1d/2d, LayerNorm,
GroupNorm, InstanceNorm, Embedding, EmbeddingBag, DPMultiheadAttention, DPLSTM, DPGRU
and DPRNN (each also checked against an explicit per-sample loop, on either side);
``PrivacyEngine.make_private`` on an MLP and a CNN, with Poisson sampling made certain
(sample rate 1) and the noise multiplier 0; flat, per-layer, adaptive and ghost clipping;
the added noise (seeded: PyTorch's values) and its statistics; ``make_private_with_epsilon``
and the RDP, PRV and GDP accountants; ``ModuleValidator``; ``BatchMemoryManager``'s virtual
steps; and ``DPDataLoader``'s Poisson batches (seeded: PyTorch's sizes and indices)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from two_sides import both_sides, check_case, check_sides

if not all(importlib.util.find_spec(m) for m in ("torch", "opacus")):
    pytest.skip("needs the real torch and opacus (the oracle)", allow_module_level=True)

SCRIPT = Path(__file__).with_name("opacus_cases.py")

# every case of opacus_cases.py (the test checks the script runs exactly these)
CASES = [
    "grad_samples_hooks",
    "grad_samples_functorch",
    "grad_samples_ew",
    "grad_samples_rnn_hooks",
    "grad_samples_rnn_functorch",
    "grad_samples_rnn_ew",
    "make_private_mlp",
    "make_private_cnn_shuffled_off",
    "clipping_flat_per_layer_adaptive",
    "noise_statistics",
    "make_private_with_epsilon",
    "accountants",
    "validator_fix",
    "batch_memory_manager",
    "dp_data_loader",
    "ghost_clipping",
]


@pytest.fixture(scope="module")
def sides(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    return both_sides(SCRIPT, "opacus", tmp_path_factory.mktemp("opacus"))


def test_sides_and_cases(sides: tuple[dict, dict]) -> None:
    check_sides(sides, CASES)


# opacus's hooks pair each call of a DPLSTM/DPGRU/DPRNN input layer (one per time step)
# with its activations by the order backward reaches the calls: PyTorch's, which chainrule's
# engine keeps (tests/autograd/test_engine_order.py)
@pytest.mark.parametrize("case", CASES)
def test_case(sides: tuple[dict, dict], case: str) -> None:
    # the training cases take several optimizer steps: float32 rounding grows with each
    check_case(sides, case, True)


def test_per_sample_gradients_are_the_loops(sides: tuple[dict, dict]) -> None:
    """On either side, each mode's per-sample gradients are the explicit loop's."""
    for side in sides:
        flags = {k: v for k, v in side["results"].items() if k.endswith(".is_loop")}
        assert len(flags) == 3 * 26 - 2 + 3 * 20  # (EmbeddingBag only with hooks)
        assert all(flags.values()), [k for k, v in flags.items() if not v]
