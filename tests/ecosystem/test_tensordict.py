"""tensordict runs unchanged under ``chainrule run`` and gives what it gives on the real
PyTorch: TensorDict construction, indexing, nested keys, stack/cat/reshape, ``apply``,
``update``, ``clone``, ``to``, arithmetic and reductions, memory-mapped TensorDicts (the
oracle's files read back), ``save``/``load`` and state dicts, ``from_module``/``to_module``
functional calls with their gradients, ``torch.vmap`` over stacked parameter TensorDicts
(model ensembles) and over TensorDict inputs, tensorclasses, and ``tensordict.nn``'s
TensorDictModule, TensorDictSequential and probabilistic modules with gradients
(tensordict_cases.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from two_sides import both_sides, check_case, check_sides

if not all(importlib.util.find_spec(m) for m in ("torch", "tensordict")):
    pytest.skip("needs the real torch and tensordict (the oracle)", allow_module_level=True)

SCRIPT = Path(__file__).with_name("tensordict_cases.py")

# every case of tensordict_cases.py (the test checks the script runs exactly these)
CASES = [
    "construction_and_indexing",
    "stack_cat_reshape",
    "apply_update_clone_to",
    "arithmetic_reductions",
    "memmap_and_save",
    "functional_from_module",
    "vmap_over_tensordicts",
    "tensorclasses",
    "nn_modules",
    "probabilistic_modules",
]


@pytest.fixture(scope="module")
def sides(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    out = tmp_path_factory.mktemp("tensordict")
    return both_sides(SCRIPT, "tensordict", out)


def test_sides_and_cases(sides: tuple[dict, dict]) -> None:
    check_sides(sides, CASES)


@pytest.mark.parametrize("case", CASES)
def test_case(sides: tuple[dict, dict], case: str) -> None:
    check_case(sides, case, False)
