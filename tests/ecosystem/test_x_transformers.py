"""x-transformers (with einx) runs unchanged under ``chainrule run`` and gives what it gives
on the real PyTorch (xtransformers_cases.py): TransformerWrapper with Decoder and Encoder
over some 80 attention-layer and wrapper options (rotary, ALiBi, relative position bias,
GLU feedforwards, flash attention through F.scaled_dot_product_attention, RMSNorm, residual
attention, memory key/values and memory tokens, gated, sandwich and hyper-connection
residuals, token shifting, macaron, cross-attention, masks, KV caches ...), XTransformer,
ViTransformerWrapper, ContinuousTransformerWrapper, the autoregressive, XL (with test-time
training through torch.func), continuous, xval, DPO and belief-state wrappers with their
losses, gradients of every parameter and greedy ``generate``, a few AdamW steps,
torch.compile, torch.jit.trace and torch.export of flash-attention models, bfloat16 autocast,
and einx's own ops (with gradients) through each of its torch backends.

Models run in float64 with the oracle's weights. x-transformers computes its non-flash
attention softmax in float32 (``softmax(..., dtype=torch.float32)``), so those results carry
float32 rounding; the cases that stay in float64 throughout (flash attention, qk-norm,
hard and sigmoid attention, einx) are held to float64 rounding. Models that chainrule
initialises and trains (with their AdamW states) load into the real x-transformers and give
chainrule's logits, greedy tokens and next optimizer step; a program chainrule exports
loads with the real ``torch.export.load``.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from three_sides import check_reports, run_all

if not all(importlib.util.find_spec(m) for m in ("torch", "x_transformers", "einx")):
    pytest.skip(
        "needs the real torch, x-transformers and einx (the oracle)", allow_module_level=True
    )

SCRIPT = Path(__file__).with_name("xtransformers_cases.py")

# every case of xtransformers_cases.py (the test checks the script runs exactly these)
CASES = [
    "decoder_plain",
    "decoder_rotary",
    "decoder_alibi",
    "decoder_rel_pos_bias",
    "decoder_ff_glu",
    "decoder_flash",
    "decoder_flash_rotary",
    "decoder_rmsnorm",
    "decoder_residual_attn",
    "decoder_num_mem_kv",
    "decoder_gate_residual",
    "decoder_sandwich_norm",
    "decoder_shift_tokens",
    "decoder_macaron",
    "decoder_qk_norm",
    "decoder_talking_heads",
    "decoder_gqa",
    "decoder_layer_scale",
    "decoder_scalenorm",
    "decoder_ff_swish_relu2",
    "decoder_attn_gate_values",
    "decoder_value_residual",
    "decoder_hard",
    "decoder_l2_distance",
    "decoder_sigmoid",
    "decoder_selective",
    "decoder_laser",
    "decoder_latent_q",
    "decoder_latent_kv",
    "decoder_orthog_values",
    "decoder_head_sink",
    "decoder_polar",
    "decoder_rotate_heads",
    "decoder_xpos",
    "decoder_rotary_interp",
    "decoder_dynamic_tanh",
    "decoder_derf",
    "decoder_simple_rmsnorm",
    "decoder_integrate_layers",
    "decoder_reinject",
    "decoder_orthog_residual",
    "decoder_mv_split_residual",
    "decoder_aggregated_residuals",
    "decoder_execute_order",
    "decoder_weight_tie",
    "decoder_custom_layers",
    "decoder_par_ratio",
    "decoder_sandwich_coef",
    "decoder_rel_proj_pos_bias",
    "decoder_one_kv_head",
    "decoder_value_dim_head",
    "decoder_add_zero_kv",
    "decoder_max_attend_past",
    "decoder_head_scale",
    "decoder_swiglu_values",
    "decoder_ff_no_bias_post_ln",
    "decoder_ff_solu",
    "decoder_qk_norm_dim_scale",
    "decoder_flash_alibi",
    "decoder_flash_mem_kv",
    "decoder_flash_qk_norm",
    "decoder_pre_and_post_norm",
    "decoder_post_norm",
    "decoder_scale_residual",
    "decoder_softclamp_output",
    "decoder_on_attn",
    "decoder_gate_values_headwise",
    "decoder_depth_scale_residual",
    "decoder_latent_rope_subheads",
    "decoder_inverted_attention",
    "decoder_cog_signed",
    "decoder_value_qk_rmsnorm",
    "decoder_k_rmsnorm",
    "decoder_pre_scale_post_talking_heads",
    "decoder_only_attn",
    "wrapper_mixture_of_softmax",
    "wrapper_sigsoftmax",
    "wrapper_deep_embed",
    "wrapper_interspersed_memory",
    "wrapper_output_heads",
    "wrapper_scaled_sinusoidal",
    "wrapper_l2norm_embed",
    "wrapper_post_emb_norm",
    "wrapper_emb_frac_gradient",
    "wrapper_emb_dim",
    "decoder_memory_tokens",
    "decoder_no_abs_pos_tied",
    "decoder_cross_attend",
    "decoder_masks",
    "decoder_intermediates_and_cache",
    "encoder_padding_mask",
    "encoder_flash_rotary",
    "xtransformer_enc_dec",
    "vit_wrapper",
    "continuous_wrapper",
    "autoregressive_loss",
    "generate_greedy",
    "generate_flags",
    "generate_filtered_logits",
    "float32_dynamic_pos_bias",
    "float32_data_dependent_alibi",
    "float32_cope",
    "float32_hyper_connections",
    "float32_softclamp_sparse",
    "float32_head_gate_out_gate",
    "float32_unet_skips",
    "prefix_decoder_and_pooling",
    "xl_memories",
    "xl_test_time_training",
    "continuous_autoregressive",
    "xval_wrapper",
    "training_steps",
    "traced_and_exported",
    "generate_one_hot_sampling",
    "generate_contrastive_and_belief",
    "nar_loss_weight",
    "conditioned_and_multi_input",
    "recycling_eval",
    "dpo_loss",
    "belief_state_loss",
    "entropy_tokenizer_and_neo_mlp",
    "compiled_model",
    "autocast_bfloat16",
    "einx_ops",
    "einx_more_ops",
    "einx_gradients",
    "einx_adapters",
]
# cases computed in float64 from end to end: held to float64 rounding
FLOAT64 = {
    "decoder_flash",
    "decoder_flash_rotary",
    "decoder_flash_alibi",
    "decoder_flash_mem_kv",
    "decoder_flash_qk_norm",
    "decoder_qk_norm",
    "decoder_qk_norm_dim_scale",
    "decoder_hard",
    "decoder_sigmoid",
    "encoder_flash_rotary",
    "compiled_model",
    "traced_and_exported",
    "training_steps",
    "einx_ops",
    "einx_more_ops",
    "einx_gradients",
    "einx_adapters",
}
# chainrule's own models, loaded by the real PyTorch
OWN = ["own_trained_lm", "own_encoder_decoder", "own_exported_program"]
# cases run under torch.autocast to bfloat16: held to bfloat16 rounding
BFLOAT16 = {"autocast_bfloat16"}


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("xtransformers")
    return run_all(SCRIPT, "xtransformers", out)


def compare(name: str, ours: np.ndarray, theirs: np.ndarray, rounding: str) -> None:
    """Same dtype and shape; the same infinities (masked logits) where there are any, and
    the finite floats to ``rounding`` ("float32", "float64", "bfloat16") of the largest."""
    assert ours.dtype == theirs.dtype, (name, ours.dtype, theirs.dtype)
    assert ours.shape == theirs.shape, (name, ours.shape, theirs.shape)
    if theirs.dtype.kind != "f":
        np.testing.assert_array_equal(ours, theirs, err_msg=name)
        return
    finite = np.isfinite(theirs)
    np.testing.assert_array_equal(np.isfinite(ours), finite, err_msg=name)
    np.testing.assert_array_equal(ours[~finite], theirs[~finite], err_msg=name)
    scale = max(1.0, float(np.abs(theirs[finite]).max(initial=0.0)))
    # (float64 after a few training steps: 3e-13 apart on an Intel AVX-512 machine)
    rtol, atol = {"float64": (1e-11, 1e-12), "float32": (1e-5, 2e-6), "bfloat16": (0, 2e-2)}[
        rounding
    ]
    np.testing.assert_allclose(
        ours[finite], theirs[finite], rtol=rtol, atol=atol * scale, err_msg=name
    )


def test_sides_and_cases(reports: dict) -> None:
    check_reports(reports, CASES, OWN)


def check_case(expected: dict, got: dict, case: str, rounding: str) -> None:
    """``case`` ran in ``got`` and put ``expected``'s keys, each with its value."""
    assert case not in got["errors"], got["errors"].get(case)
    keys = expected["keys"][case]
    assert keys, case
    assert got["keys"][case] == keys
    for key in keys:
        compare(key, got["results"][key], expected["results"][key], rounding)


@pytest.mark.parametrize("case", CASES)
def test_case(reports: dict, case: str) -> None:
    rounding = "float64" if case in FLOAT64 else "bfloat16" if case in BFLOAT16 else "float32"
    check_case(reports["oracle"], reports["chainrule"], case, rounding)


@pytest.mark.parametrize("case", OWN)
def test_own_models_load_in_pytorch(reports: dict, case: str) -> None:
    check_case(reports["own"], reports["check"], case, "float32")
