"""More diffusers model families for test_diffusers.py, run as a script on either side
(tests/ecosystem/two_sides.py): the video and image transformers and autoencoders of
recent pipelines (PixArt, Sana, Wan, LTX-Video, CogVideoX, AuraFlow, Lumina 2, the DC
autoencoder, Wan's causal video VAE), each built from a tiny config by the oracle (random
weights, saved with ``save_pretrained``) and loaded on both sides: the output and the
gradient of a loss with respect to every parameter.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

import numpy as np
from case_inputs import pretrained
from case_runner import Cases

OUT, SIDE = sys.argv[1], sys.argv[2]
if SIDE != "chainrule":
    # (the real torchvision of this environment does not import against the real torch)
    sys.modules["torchvision"] = None  # type: ignore[assignment]

import diffusers  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

diffusers.utils.logging.set_verbosity_error()

CASES = Cases(copies=True)
put = CASES.put


def arr(seed: int, *shape: int) -> torch.Tensor:
    return torch.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def t(*values: float) -> torch.Tensor:
    return torch.tensor(values)


# name: (class name, config, the call's inputs). Timesteps are small: the sinusoidal
# timestep embeddings are computed in float32, where NumPy's exp, sin and cos differ from
# PyTorch's kernels by an ulp, which a timestep of hundreds magnifies (the larger timesteps
# are test_diffusers.py's, at looser places).
MODELS: dict[str, tuple[str, dict, Callable[[], dict]]] = {
    "pixart": (
        "PixArtTransformer2DModel",
        dict(
            num_attention_heads=2,
            attention_head_dim=4,
            in_channels=4,
            out_channels=8,
            num_layers=1,
            sample_size=8,
            patch_size=2,
            cross_attention_dim=8,
            caption_channels=12,
            norm_num_groups=4,
        ),
        lambda: dict(
            hidden_states=arr(1, 2, 4, 8, 8),
            encoder_hidden_states=arr(2, 2, 5, 12),
            timestep=t(1, 2),
            added_cond_kwargs={"resolution": None, "aspect_ratio": None},
        ),
    ),
    "sana": (
        "SanaTransformer2DModel",
        dict(
            in_channels=4,
            out_channels=4,
            num_attention_heads=2,
            attention_head_dim=4,
            num_layers=1,
            num_cross_attention_heads=2,
            cross_attention_head_dim=4,
            cross_attention_dim=8,
            caption_channels=12,
            sample_size=8,
            patch_size=1,
        ),
        lambda: dict(
            hidden_states=arr(3, 2, 4, 8, 8),
            encoder_hidden_states=arr(4, 2, 5, 12),
            timestep=t(1, 2),
        ),
    ),
    "wan": (
        "WanTransformer3DModel",
        dict(
            patch_size=(1, 2, 2),
            num_attention_heads=2,
            attention_head_dim=8,
            in_channels=4,
            out_channels=4,
            text_dim=12,
            freq_dim=16,
            ffn_dim=16,
            num_layers=1,
            rope_max_seq_len=32,
        ),
        lambda: dict(
            hidden_states=arr(5, 1, 4, 2, 8, 8),
            timestep=t(3),
            encoder_hidden_states=arr(6, 1, 5, 12),
        ),
    ),
    "ltx": (
        "LTXVideoTransformer3DModel",
        dict(
            in_channels=4,
            out_channels=4,
            patch_size=1,
            patch_size_t=1,
            num_attention_heads=2,
            attention_head_dim=8,
            cross_attention_dim=16,
            num_layers=1,
            caption_channels=12,
        ),
        lambda: dict(
            hidden_states=arr(7, 1, 32, 4),
            encoder_hidden_states=arr(8, 1, 5, 12),
            timestep=t(3),
            encoder_attention_mask=torch.tensor([[1, 1, 1, 1, 0]]),
            num_frames=2,
            height=4,
            width=4,
        ),
    ),
    "cogvideox": (
        "CogVideoXTransformer3DModel",
        dict(
            num_attention_heads=2,
            attention_head_dim=8,
            in_channels=4,
            out_channels=4,
            time_embed_dim=4,
            text_embed_dim=12,
            num_layers=1,
            sample_width=8,
            sample_height=8,
            sample_frames=5,
            patch_size=2,
            temporal_compression_ratio=4,
            max_text_seq_length=5,
        ),
        lambda: dict(
            hidden_states=arr(9, 1, 2, 4, 8, 8),
            encoder_hidden_states=arr(10, 1, 5, 12),
            timestep=t(3),
        ),
    ),
    "auraflow": (
        "AuraFlowTransformer2DModel",
        dict(
            sample_size=8,
            patch_size=2,
            in_channels=4,
            num_mmdit_layers=1,
            num_single_dit_layers=1,
            attention_head_dim=8,
            num_attention_heads=2,
            joint_attention_dim=12,
            caption_projection_dim=16,
            out_channels=4,
            pos_embed_max_size=64,
        ),
        lambda: dict(
            hidden_states=arr(11, 2, 4, 8, 8),
            encoder_hidden_states=arr(12, 2, 5, 12),
            timestep=t(1, 2),
        ),
    ),
    "lumina2": (
        "Lumina2Transformer2DModel",
        dict(
            sample_size=8,
            patch_size=2,
            in_channels=4,
            hidden_size=16,
            num_layers=1,
            num_refiner_layers=1,
            num_attention_heads=2,
            num_kv_heads=1,
            multiple_of=8,
            cap_feat_dim=12,
            axes_dim_rope=(4, 2, 2),
            axes_lens=(32, 32, 32),
        ),
        lambda: dict(
            hidden_states=arr(13, 1, 4, 8, 8),
            timestep=t(0.3),
            encoder_hidden_states=arr(14, 1, 5, 12),
            encoder_attention_mask=torch.ones(1, 5, dtype=torch.bool),
        ),
    ),
    "dc_ae": (
        "AutoencoderDC",
        dict(
            in_channels=3,
            latent_channels=4,
            attention_head_dim=2,
            encoder_block_types=("ResBlock", "EfficientViTBlock"),
            decoder_block_types=("ResBlock", "EfficientViTBlock"),
            encoder_block_out_channels=(8, 8),
            decoder_block_out_channels=(8, 8),
            encoder_layers_per_block=(1, 1),
            decoder_layers_per_block=(1, 1),
            encoder_qkv_multiscales=((), (5,)),
            decoder_qkv_multiscales=((), (5,)),
            upsample_block_type="interpolate",
            downsample_block_type="Conv",
            decoder_norm_types="rms_norm",
            decoder_act_fns="silu",
        ),
        lambda: dict(sample=arr(15, 1, 3, 16, 16)),
    ),
    "wan_vae": (
        "AutoencoderKLWan",
        dict(base_dim=4, z_dim=4, dim_mult=[1, 1], num_res_blocks=1, temperal_downsample=[False]),
        lambda: dict(sample=arr(16, 1, 3, 5, 16, 16)),
    ),
}


def model(name: str) -> torch.nn.Module:
    """The model ``name``: built (random weights) and saved by the oracle, loaded here."""
    cls_name, cfg, _ = MODELS[name]
    cls = getattr(diffusers, cls_name)
    path = os.path.join(OUT, "more", name)
    return pretrained(cls, cfg, path, SIDE == "oracle")


def forward_and_grads(name: str) -> None:
    net = model(name)
    out = net(**MODELS[name][2]()).sample
    put(f"{name}/out", out)
    loss = F.mse_loss(out, torch.zeros_like(out) + 0.1)
    put(f"{name}/loss", loss)
    loss.backward()
    for n, p in net.named_parameters():
        if p.grad is not None:
            put(f"{name}/grad/{n}", p.grad)
    put(f"{name}/no_grad", ",".join(n for n, p in net.named_parameters() if p.grad is None))


for _name in MODELS:
    CASES.add(_name, lambda name=_name: forward_and_grads(name))

CASES.run(os.path.join(OUT, f"diffusers_more_{SIDE}"))
