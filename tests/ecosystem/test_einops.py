"""einops runs unchanged under ``chainrule run`` and gives what it gives on the real
PyTorch: rearrange, reduce, repeat, einsum, pack/unpack, parse_shape, the layers of
``einops.layers.torch`` (Rearrange, Reduce, EinMix) in nn.Sequential with gradients and a
short training loop, torch.compile and torch.export of them (einops_cases.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from two_sides import both_sides, check_case, check_sides

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


@pytest.fixture(scope="module")
def sides(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    out = tmp_path_factory.mktemp("einops")
    return both_sides(SCRIPT, "einops", out)


def test_sides_and_cases(sides: tuple[dict, dict]) -> None:
    check_sides(sides, CASES)


@pytest.mark.parametrize("case", CASES)
def test_case(sides: tuple[dict, dict], case: str) -> None:
    check_case(sides, case, case in TRAINING)
