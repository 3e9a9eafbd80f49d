"""diffusers runs unchanged under ``chainrule run`` and gives what it gives on the real PyTorch.

Tiny models built from small configs with random weights are saved by real PyTorch and
loaded on both sides. The cases of diffusers_cases.py compare outputs and the gradients of
a loss with respect to every parameter (float32; float64 after ``.double()``) of
UNet2DModel, UNet2DConditionModel (cross-attention, masks), AutoencoderKL (its latent
distribution, tiling and slicing), DiT, ControlNet, VQModel, SD3's and Flux's transformers,
UNet3DConditionModel, AutoencoderTiny and a peft LoRA adapter; the attention processor
diffusers picks (``AttnProcessor2_0``, through ``F.scaled_dot_product_attention``), the
classic, sliced and fused-QKV ones and the attention dispatcher's math and flash backends;
float8 layerwise casting, group offloading, the first-block cache, float16 inference,
``torch.jit.trace`` and ``torch.export`` (a .pt2 file of PyTorch's loaded); seventeen
schedulers (``set_timesteps``, ``add_noise``, runs of ``step``); the DDPM, DDIM, Stable
Diffusion (text to image from a whole saved folder with a CLIP tokenizer and text encoder,
textual inversion, FreeU; img2img; inpainting) and SDXL pipelines, with the noise drawn from
NumPy through diffusers' ``randn_tensor`` or fed as ``latents``; LoRA weight files; a DDPM
training step (gradient checkpointing, AdamW, EMA); learning-rate schedules; and state
dicts through ``torch.save``, ``.bin``, sharded and fp16-variant folders. Models and
pipelines move through ``save_pretrained`` folders both ways: chainrule loads real
diffusers' and real diffusers loads chainrule's. diffusers_more_cases.py adds the
transformers and autoencoders of recent video and image pipelines (PixArt, Sana, Wan,
LTX-Video, CogVideoX, AuraFlow, Lumina 2, DC-AE, Wan's VAE).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from three_sides import check_case, check_reports, run_all
from two_sides import both_sides, check_sides

if not all(importlib.util.find_spec(m) for m in ("torch", "diffusers")):
    pytest.skip("needs the real torch and diffusers (the oracle)", allow_module_level=True)

SCRIPT = Path(__file__).with_name("diffusers_cases.py")
MORE_SCRIPT = Path(__file__).with_name("diffusers_more_cases.py")
MORE = ["pixart", "sana", "wan", "ltx", "cogvideox", "auraflow", "lumina2", "dc_ae", "wan_vae"]
CASES = [
    "unet2d",
    "unet2d_double",
    "unet_condition",
    "autoencoder_kl",
    "dit_transformer",
    "controlnet",
    "vq_model",
    "mmdit_transformers",
    "attention_variants",
    "video_and_tiny_models",
    "hooks_and_offloading",
    "float16_inference",
    "trace_and_export",
    "generator_noise",
    "schedulers",
    "ddim_pipeline",
    "ddpm_pipeline",
    "stable_diffusion_pipeline",
    "text_to_image_folder",
    "image_to_image_pipelines",
    "sdxl_pipeline",
    "lora_weights_files",
    "training_utilities",
    "lora_adapter",
    "training_step",
    "torch_save_state_dict",
]
TRAINING = {"training_step"}
# deep float32 convolution stacks: PyTorch's oneDNN kernels round differently on different
# processors (up to 6e-6 of the largest output on an Intel AVX-512 machine): the looser
# float32 tolerance of the training cases
DEEP_CONV = {"autoencoder_kl", "wan_vae"}


@pytest.fixture(scope="module")
def sides(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The reports: oracle, chainrule, own (chainrule's folders) and check (real
    diffusers on chainrule's folders)."""
    return run_all(SCRIPT, "diffusers", tmp_path_factory.mktemp("diffusers"))


def test_sides(sides: dict) -> None:
    check_reports(sides, CASES, ["own_models"])


@pytest.mark.parametrize("case", [c for c in CASES if c != "float16_inference"])
def test_case(sides: dict, case: str) -> None:
    check_case(sides["oracle"], sides["chainrule"], case, case in TRAINING | DEEP_CONV)


def test_float16_inference(sides: dict) -> None:
    """float16 all through: equal to a few float16 roundings (each op rounds its result to
    float16, and sums inside an op round differently from PyTorch's kernels)."""
    want, got = sides["oracle"]["results"], sides["chainrule"]["results"]
    assert "float16_inference" not in sides["chainrule"]["errors"]
    assert str(got["half/dtype"]) == str(want["half/dtype"]) == "torch.float16"
    assert got["half/out"].dtype == np.float16
    scale = float(np.abs(want["half/out"]).max())
    np.testing.assert_allclose(got["half/out"], want["half/out"], rtol=0, atol=1e-2 * scale)


def test_sdpa_processor(sides: dict) -> None:
    """diffusers picks the scaled-dot-product-attention processor, as on PyTorch 2."""
    got = sides["chainrule"]["results"]
    assert str(got["unet2d/processor"]) == "AttnProcessor2_0"
    assert str(got["cond/processor"]) == "AttnProcessor2_0"
    np.testing.assert_allclose(got["unet2d/classic_attn"], got["unet2d/out"], atol=1e-5)


def test_pipeline_round_trip(sides: dict) -> None:
    got = sides["chainrule"]["results"]
    assert bool(got["ddpm_pipe/same_weights"])
    assert str(got["ddpm_pipe/scheduler"]) == "DDPMScheduler"


def test_chainrule_folders_load_in_real_diffusers(sides: dict) -> None:
    """Models and a pipeline chainrule built and saved: real diffusers gives its outputs."""
    check_case(sides["own"], sides["check"], "own_models", False)


def test_float64_unet_to_double_precision(sides: dict) -> None:
    """In float64 the UNet's output and gradients agree to float64 rounding."""
    want, got = sides["oracle"]["results"], sides["chainrule"]["results"]
    keys = [k for k in sides["oracle"]["keys"]["unet2d_double"] if want[k].dtype.kind == "f"]
    assert all(want[k].dtype == np.float64 for k in keys)
    scale = max(float(np.abs(want[k]).max()) for k in keys)
    for key in keys:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-9, atol=1e-11 * scale, err_msg=key)


@pytest.fixture(scope="module")
def more_sides(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    """The reports of diffusers_more_cases.py: the oracle's, then chainrule's."""
    return both_sides(MORE_SCRIPT, "diffusers_more", tmp_path_factory.mktemp("diffusers_more"))


def test_more_sides(more_sides: tuple[dict, dict]) -> None:
    check_sides(more_sides, MORE)


@pytest.mark.parametrize("name", MORE)
def test_more_models(more_sides: tuple[dict, dict], name: str) -> None:
    """PixArt, Sana, Wan, LTX-Video, CogVideoX, AuraFlow and Lumina 2 transformers, the DC
    and Wan autoencoders: outputs and every parameter's gradient."""
    check_case(*more_sides, name, name in DEEP_CONV)
