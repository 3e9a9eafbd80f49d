"""peft runs unchanged under ``chainrule run`` and gives what it gives on the real PyTorch.

Tiny GPT-2 (Conv1D), LLaMA and BERT base models saved by real PyTorch are loaded on both
sides; the cases of peft_cases.py compare LoRA (on Conv1D and Linear layers, rsLoRA, DoRA,
``modules_to_save``, ``bias="lora_only"``): ``print_trainable_parameters`` text, logits,
losses and the gradients of the adapter weights (no frozen weight gets one), AdamW steps
that change only adapter weights, ``merge_adapter``/``unmerge_adapter``/``merge_and_unload``,
several adapters with ``set_adapter``, ``disable_adapter`` and ``add_weighted_adapter``,
PiSSA and OLoRA initialisations (SVD and QR of the base weights), IA3, prompt tuning and
prefix tuning (with ``generate``), LoRA on a plain module's Embedding/Conv2d/Linear layers,
LoHa, LoKr, OFT, BOFT, AdaLoRA, LayerNorm tuning, VeRA and FourierFT (whose frequencies,
drawn again from its seed when loading, are PyTorch's), and transformers' ``Trainer`` on
a LoRA model. Adapters move through ``save_pretrained`` folders both ways: chainrule loads
real peft's (safetensors and ``.bin``) and real peft loads chainrule's.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from three_sides import check_case, check_reports, run_all

if not all(importlib.util.find_spec(m) for m in ("torch", "peft", "transformers")):
    pytest.skip("needs the real torch, transformers and peft (the oracle)", allow_module_level=True)

SCRIPT = Path(__file__).with_name("peft_cases.py")
CASES = [
    "lora_gpt2_conv1d",
    "lora_llama_linear",
    "lora_bert_classifier",
    "lora_training",
    "merge_and_unmerge",
    "adapters_from_files",
    "multiple_adapters",
    "lora_init_variants",
    "ia3",
    "prompt_and_prefix_tuning",
    "trainer_with_lora",
    "custom_module_tuners",
    "more_tuners",
]
TRAINING = {"lora_training", "trainer_with_lora"}


@pytest.fixture(scope="module")
def sides(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The reports: oracle, chainrule, own (chainrule's adapters) and check (real peft on
    chainrule's adapters)."""
    return run_all(SCRIPT, "peft", tmp_path_factory.mktemp("peft"))


def test_sides(sides: dict) -> None:
    check_reports(sides, CASES, ["own_adapters"])


@pytest.mark.parametrize("case", CASES)
def test_case(sides: dict, case: str) -> None:
    check_case(sides["oracle"], sides["chainrule"], case, case in TRAINING)


def test_only_adapter_weights_train(sides: dict) -> None:
    changed = sides["chainrule"]["results"]["train/changed"]
    assert len(changed) == 4 and all("lora_" in k for k in changed)
    prefixes = ["gpt2", "llama", "bert", "init/dora", "ia3", "prompt", "prefix"]
    for prefix in prefixes + [
        f"more/{n}" for n in ("oft", "boft", "adalora", "ln", "vera", "fourierft")
    ]:
        assert int(sides["chainrule"]["results"][prefix + "/frozen_with_grad"]) == 0


def test_merge_equals_adapted(sides: dict) -> None:
    got = sides["chainrule"]["results"]
    for key in ("merged", "unmerged", "unloaded"):
        np.testing.assert_allclose(got["merge/" + key], got["merge/adapted"], atol=1e-5)
    assert not np.allclose(got["merge/adapted"], got["multi/base"], atol=1e-3)
    np.testing.assert_array_equal(got["multi/disabled"], got["multi/base"])


def test_chainrule_adapters_load_in_real_peft(sides: dict) -> None:
    """Adapters chainrule drew and saved: real peft loads them and gives chainrule's logits."""
    check_case(sides["own"], sides["check"], "own_adapters", False)
